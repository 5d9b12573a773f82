"""Scene3DTask: what the 3D question tasks share — the sampling loop (draw a family and an answer, build a scene,
search for a program with that answer), the answer space, rendering, and the corruption that reads one relation
the wrong way. A task supplies its objects, its programs, its solver, its step pictures and its other
corruptions (docs/draw3d.md)."""

from __future__ import annotations

import copy
import random
from typing import Any, ClassVar

from PIL import Image

from vcot.schema import AnswerType, Instance
from vcot.tasks.answer_space import AnswerSpace, finite
from vcot.tasks.base import Corruption, GenContext, Reject, Rendering, Solution, Task
from vcot.tasks.scene3d._scene import (
    COLOURS,
    Ambiguous,
    Layout,
    chain_result,
    check_counts_and_families,
    draw_family_and_sizes,
    layout,
    render_of,
    run_chain,
)

FLIP = {"left": "right", "right": "left", "front": "behind", "behind": "front"}

# Attempts at a program with the drawn answer in one scene before the scene is rejected.
PROGRAM_ATTEMPTS = 60


class Scene3DTask(Task):
    domain: ClassVar[str] = "3D"
    answer_type: ClassVar[AnswerType] = AnswerType.TEXT
    colour_pools: ClassVar[tuple[Any, ...]] = (COLOURS,)

    # -- what a task supplies ---------------------------------------------------------------------------------

    @staticmethod
    def answers_of(family: str, max_count: int) -> tuple[str, ...]:
        """The possible answers of a question family."""
        raise NotImplementedError

    def new_scene(self, rng: random.Random, n: int) -> dict[str, Any]:
        """A scene of n objects and a camera, without a program (drawn from `rng` in a fixed order)."""
        raise NotImplementedError

    def program(self, rng: random.Random, scene: dict[str, Any], lay: Layout, family: str, target: str,
                hops: int) -> dict[str, Any]:
        """A question program of `family` meant to have answer `target` (Reject or Ambiguous when not)."""
        raise NotImplementedError

    def names_answer(self, family: str, target: str, program: dict[str, Any]) -> bool:
        """Whether the question or step texts would name the answer (the program is then drawn again)."""
        return False

    def picture_centres(self, scene: dict[str, Any]) -> list[list[float]]:
        """Reject a scene whose picture does not show what the question needs; each object's visible centre."""
        raise NotImplementedError

    def steps(self, scene: dict[str, Any], states: list[dict[str, Any]]) -> list[tuple[Image.Image, str]]:
        """The step pictures and texts of a trace."""
        raise NotImplementedError

    # -- shared -----------------------------------------------------------------------------------------------

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        check_counts_and_families(self.name, config)

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg = self.config
        family, target, hops, n = draw_family_and_sizes(ctx, cfg, self.answers_of)
        rng = ctx.rng
        scene = self.new_scene(rng, n)
        lay = layout(scene)
        for _ in range(PROGRAM_ATTEMPTS):
            try:
                scene["program"] = self.program(rng, scene, lay, family, target, hops)
                if self.solve(scene).answer != target:
                    continue
                if self.names_answer(family, target, scene["program"]):
                    continue
                break
            except (Reject, Ambiguous):
                continue
        else:
            raise Reject(f"no {family} question with answer {target} in this scene")
        scene["picture"] = {"object_centres": self.picture_centres(scene)}
        return scene

    def answer_space(self, instance: Instance) -> AnswerSpace:
        scene = instance.meta.get("scene") if isinstance(instance.meta, dict) else None
        if not isinstance(scene, dict) or "program" not in scene:
            # A ValueError is what the chance model and the report expect of an instance they cannot place.
            raise ValueError(f"{instance.uid}: the question family is in meta['scene'], which this copy lacks")
        fam = scene["program"]["family"]
        return finite(self.answers_of(fam, self.config.max_count), f"the answers of a {fam} question",
                      canon=lambda a: a.strip().lower())

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        res = render_of(scene)
        assert res.image is not None
        return Rendering(image=res.image.copy(), steps=self.steps(scene, solution.states))

    def flipped_relation(self, scene: dict[str, Any], lay: Layout, states: list[dict[str, Any]],
                         names: list[str], rng: random.Random, always: bool = False) -> Corruption | None:
        """Half the time (or `always`, when the program relates), one relation read the wrong way and the whole program
        carried out from there as a solver would: the same steps, every reference still picking exactly one
        object, and a different answer. None when the flip leaves a reference empty, plural or within a margin,
        or reaches the true answer (a wrong mark is tried instead)."""
        spots = [(key, j) for key, chain in program_chains(scene["program"]) for j, step in enumerate(chain)
                 if step["relate"] is not None]
        if not spots or (not always and rng.random() >= 0.5):
            return None
        key, j = rng.choice(spots)
        program = copy.deepcopy(scene["program"])
        rel = program[key][j]["relate"]
        program[key][j]["relate"] = FLIP[rel]
        try:
            anchor = chain_result(run_chain(scene, lay, scene["program"][key][:j], as_set=False))[0]
            wrong = self.solve({**scene, "program": program})
        except (Reject, Ambiguous):
            return None
        if wrong.answer == self.solve(scene).answer or len(wrong.states) != len(states):
            return None
        return Corruption(steps=self.steps(scene, wrong.states),
                          description=f"relation {rel} of {names[anchor]} taken the wrong way ({FLIP[rel]})")


def program_chains(program: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The reference and set chains of a program, by key, in key order."""
    return [(key, value) for key, value in sorted(program.items())
            if isinstance(value, list) and value and isinstance(value[0], dict) and "relate" in value[0]]
