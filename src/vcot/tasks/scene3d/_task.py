"""Scene3DTask: what the 3D question tasks share — the sampling loop (draw a family and an answer, build a scene,
search for a program with that answer), the answer space, rendering, and the corruption that reads one relation
the wrong way. A task supplies its objects, its programs, its solver, its step pictures and its other
corruptions (docs/draw3d.md)."""

from __future__ import annotations

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
    check_counts_and_families,
    draw_family_and_sizes,
    layout,
    matches,
    related,
    render_of,
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
                         names: list[str], rng: random.Random) -> Corruption | None:
        """Half the time (when the trace relates), one relation read the wrong way; else None."""
        relates = [i for i, s in enumerate(states) if s["op"] == "relate"]
        if relates and rng.random() < 0.5:
            i = rng.choice(relates)
            wrong = flipped(scene, lay, states, i)
            if wrong is not None:
                s = states[i]
                return Corruption(steps=self.steps(scene, wrong),
                                  description=f"relation {s['rel']} of {names[s['anchor']]} taken the wrong way "
                                              f"({FLIP[s['rel']]})")
        return None


def flipped(scene: dict[str, Any], lay: Layout, states: list[dict[str, Any]], i: int) -> list[dict[str, Any]] | None:
    """The trace with relate state i read the other way, continued while its references stay unique."""
    s = states[i]
    try:
        kept = related(lay, s["anchor"], FLIP[s["rel"]])
    except Ambiguous:
        return None
    if kept == s["kept"]:
        return None
    out = [*states[:i], {**s, "rel": FLIP[s["rel"]], "kept": kept}]
    if i + 1 < len(states) and states[i + 1]["op"] == "filter":
        f = states[i + 1]
        chosen = [k for k in kept if matches(scene["objects"][k], f["filter"])]
        out.append({**f, "among": kept, "kept": chosen})
    return out
