"""Scene3DTask: what the 3D question tasks share — the sampling loop (draw a family and an answer, build a scene,
search for a program with that answer), the answer space, rendering, and the corruption that reads one relation
the wrong way. A task supplies its objects, its programs, its solver, its step pictures and its other
corruptions (docs/draw3d.md)."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import random
from collections import Counter
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
    reachable,
    render_of,
    run_chain,
    unique_filter,
    vocab_of,
)

FLIP = {"left": "right", "right": "left", "front": "behind", "behind": "front"}

# Attempts at a program with the drawn answer in one scene before the scene is rejected.
PROGRAM_ATTEMPTS = 60


class Scene3DTask(Task):
    domain: ClassVar[str] = "3D"
    answer_type: ClassVar[AnswerType] = AnswerType.TEXT
    colour_pools: ClassVar[tuple[Any, ...]] = (COLOURS,)
    # Scenes drawn before an instance fails. Hard questions with a rare balanced answer (compositional_3d's
    # count_part_match answering 3: three other vehicles sharing one part colour, every hop mattering) need about
    # 2000 draws, most rejected before anything is rendered, and the legibility rules (issue 45) add a few more.
    max_attempts: ClassVar[int] = 6000

    # -- what a task supplies ---------------------------------------------------------------------------------

    @staticmethod
    def answers_of(family: str, max_count: int) -> tuple[str, ...]:
        """The possible answers of a question family."""
        raise NotImplementedError

    def new_scene(self, rng: random.Random, n: int) -> dict[str, Any]:
        """A scene of n objects and a camera, without a program (drawn from `rng` in a fixed order)."""
        raise NotImplementedError

    def program(
        self, rng: random.Random, scene: dict[str, Any], lay: Layout, family: str, target: str, hops: int
    ) -> dict[str, Any]:
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

    @staticmethod
    def answer_from(scene: dict[str, Any], results: dict[str, list[int]]) -> str:
        """The program's answer once each chain (by key) has its result: one object for a reference, the
        objects kept for a set."""
        raise NotImplementedError

    def implied_answer(self, scene: dict[str, Any], states: list[dict[str, Any]]) -> str | None:
        """The answer a trajectory's states conclude, read from its own steps (the objects its last steps keep
        or isolate), not re-solved: a corrupted trajectory's wrong mark is carried into its answer (issue 46).
        None when the states single out no answer among the family's answers."""
        raise NotImplementedError

    def checked_answer(self, scene: dict[str, Any], states: list[dict[str, Any]]) -> str | None:
        """`implied_answer`, or None when it is not one of the family's answers or the states are malformed:
        the corruption's answer must never make `corrupt` raise for a scene it used to accept."""
        try:
            value = self.implied_answer(scene, states)
        except (KeyError, IndexError, TypeError, ValueError):
            return None
        options = self.answers_of(scene["program"]["family"], self.config.max_count)
        return value if value in options else None

    @staticmethod
    def as_set(family: str, key: str) -> bool:
        """Whether the chain under `key` is a set (its last step may keep any number of objects)."""
        return key == "set" or family == "compare_count"

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
                if not self.every_hop_matters(scene, lay):
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
        return finite(
            self.answers_of(fam, self.config.max_count),
            f"the answers of a {fam} question",
            canon=lambda a: a.strip().lower(),
        )

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(image=self.render_input(scene, solution), steps=self.steps(scene, solution.states))

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        res = render_of(scene)
        assert res.image is not None
        return res.image.copy()

    def every_hop_matters(self, scene: dict[str, Any], lay: Layout) -> bool:
        """Whether every chain of two relations or more needs all its hops (docs/tasks/object_attributes.md,
        "Every hop matters"). A reader who leaves hops out (`shorter_readings`: one chain at a time, each
        shorter reading alone and all its skipped-object readings pooled, and every long chain shortened the
        same way at once), trying every object a description fits and reading relations without margins as a
        reader with a perfect scene graph would, must reach nothing, or results whose most common answer is not
        the program's (a tie with it counts as the program's). Only the answer counts, not the object: a
        reading that reaches other objects with the same answer still answers right. Chains of one relation
        are held to the rules of `random_reference` and `set_options` instead."""
        plain = dataclasses.replace(lay, lr_margin=0.0, fb_margin=0.0, fb_px=0.0)
        prog = scene["program"]
        fam = prog["family"]
        chains = program_chains(prog)
        results = {
            key: sorted(next(iter(reachable(scene, plain, chain, self.as_set(fam, key))))) for key, chain in chains
        }
        gold = self.answer_from(scene, results)
        long = [(key, chain) for key, chain in chains if sum(step["relate"] is not None for step in chain) >= 2]

        def reached(key: str, readings: list[list[dict[str, Any]]]) -> list[tuple[int, ...]]:
            return sorted({r for shorter in readings for r in reachable(scene, plain, shorter, self.as_set(fam, key))})

        sets = any(self.as_set(fam, key) for key, _ in chains)
        binary = len(self.answers_of(fam, self.config.max_count)) == 2

        def leaks(votes: Counter[str]) -> bool:
            if sets:  # sizes of sets cluster: a stricter rule leaves no scene for small counts
                return set(votes) == {gold}
            if binary:  # any lean, towards the answer or away from it, would tell it
                return len(votes) < 2 or len(set(votes.values())) > 1
            return votes[gold] == max(votes.values())

        tries: list[dict[str, list[tuple[int, ...]]]] = []
        for key, chain in long:
            shorter = shorter_readings(chain)
            tries += [{key: reached(key, [one])} for one in shorter]
            tries.append({key: reached(key, skipped_objects(chain))})
        if len(long) > 1:
            tries.append({key: reached(key, [outermost_reading(chain)]) for key, chain in long})
            tries.append({key: reached(key, skipped_objects(chain)) for key, chain in long})
        for pools in tries:
            if not all(pools.values()):
                continue
            keys = sorted(pools)
            votes = Counter(
                self.answer_from(scene, {**results, **{k: list(r) for k, r in zip(keys, combo, strict=True)}})
                for combo in itertools.product(*(pools[k] for k in keys))
            )
            if leaks(votes):
                return False
        return True

    def flipped_relation(
        self,
        scene: dict[str, Any],
        lay: Layout,
        states: list[dict[str, Any]],
        names: list[str],
        rng: random.Random,
        always: bool = False,
    ) -> Corruption | None:
        """Half the time (or `always`, when the program relates), one relation read the wrong way and the whole program
        carried out from there as a solver would: the same steps, every reference still picking exactly one
        object, and a different answer. None when the flip leaves a reference empty, plural or within a margin,
        or reaches the true answer (a wrong mark is tried instead)."""
        spots = [
            (key, j)
            for key, chain in program_chains(scene["program"])
            for j, step in enumerate(chain)
            if step["relate"] is not None
        ]
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
        # The flipped program is the question as the trajectory reads it: the oracle re-derives its answer.
        return Corruption(
            steps=lambda: self.steps(scene, wrong.states),
            description=f"relation {rel} of {names[anchor]} taken the wrong way ({FLIP[rel]})",
            answer=self.checked_answer(scene, wrong.states),
            scene={**scene, "program": program},
        )

    def misread_reference(
        self, scene: dict[str, Any], lay: Layout, states: list[dict[str, Any]], names: list[str], rng: random.Random
    ) -> Corruption | None:
        """One reference's description misread: a step that should single out one object boxes another it had in
        view, in the same words, and the program is carried out from that object on as a solver would (each
        later relation read from the wrong object's place in the picture, so every dashed line and every
        object kept by it agree). A misreading that reaches a different answer is preferred; one that reaches
        the right answer by a wrong object is taken only when there is none (as a wrong mark may). None when no
        misreading gives the same number of steps and unique later references (docs/tasks/object_attributes.md,
        "Corrupted trajectories")."""
        program = scene["program"]
        fam = program["family"]
        objs = scene["objects"]
        vocab = vocab_of(scene)
        gold = self.solve(scene).answer
        spots = [
            (key, j)
            for key, chain in program_chains(program)
            for j in range(len(chain))
            if j < len(chain) - 1 or not self.as_set(fam, key)
        ]
        rng.shuffle(spots)
        same_answer: Corruption | None = None
        for key, j in spots:
            try:
                trace = run_chain(scene, lay, program[key][: j + 1], as_set=False)
            except (Reject, Ambiguous):
                continue
            seen = trace[-1]
            right = seen["kept"][0]
            others = [k for k in seen["among"] if k != right]
            rng.shuffle(others)
            for new in others:
                try:
                    # A description that fits `new` alone among the objects in view makes the solver take it.
                    flt = unique_filter(rng, objs, new, seen["among"], vocab.attrs)
                    wrong_prog = copy.deepcopy(program)
                    wrong_prog[key][j]["filter"] = flt
                    wrong = self.solve({**scene, "program": wrong_prog})
                except (Reject, Ambiguous):
                    continue
                if len(wrong.states) != len(states):
                    continue
                # The misread step keeps the question's words: the state differs, not its description.
                pos = state_index(program, key, j)
                wrong_states = list(wrong.states)
                wrong_states[pos] = {**wrong_states[pos], "filter": seen["filter"]}
                # The program with the misread description is what the trajectory carries out.
                found = self._carried(
                    scene,
                    wrong_states,
                    f"a description misread: {names[new]} taken for {names[right]}",
                    read={**scene, "program": wrong_prog},
                )
                if wrong.answer != gold:
                    return found
                same_answer = same_answer or found
        return same_answer

    def _carried(
        self, scene: dict[str, Any], states: list[dict[str, Any]], description: str, read: dict[str, Any] | None = None
    ) -> Corruption:
        """The corruption drawing `states`, its answer read from them; `read`: the scene as the trajectory
        reads it, when the error is a misread program (None when it is a wrong mark no scene explains)."""
        return Corruption(
            steps=lambda: self.steps(scene, states),
            description=description,
            answer=self.checked_answer(scene, states),
            scene=read,
        )


def state_index(program: dict[str, Any], key: str, j: int) -> int:
    """Where the filter state of step j of chain `key` stands in the solver's states: the chains' traces in
    the order the solver runs them (the task's keys in `program_chains` order), each step a relate state (when
    it relates) and a filter state."""
    pos = 0
    for k, chain in program_chains(program):
        if k == key:
            return pos + sum(1 + (step["relate"] is not None) for step in chain[: j + 1]) - 1
        pos += sum(1 + (step["relate"] is not None) for step in chain)
    raise KeyError(key)


def shorter_readings(chain: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """What a reader who leaves one hop out reads instead of `chain` (docs/tasks/object_attributes.md, "Every
    hop matters"): the chain started afresh at a later object, found by its own description alone (one
    relation dropped with everything before it; the last start is the outermost relation alone), and the chain
    with one intermediate object skipped, its next relation taken from the object before it."""
    restarts = [[{"relate": None, "filter": chain[j]["filter"]}, *chain[j + 1 :]] for j in range(1, len(chain) - 1)]
    return restarts + skipped_objects(chain)


def outermost_reading(chain: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`chain` read with only its outermost relation, that relation's anchor found by its own description
    (the last of `shorter_readings`' restarts)."""
    return [{"relate": None, "filter": chain[-2]["filter"]}, chain[-1]]


def skipped_objects(chain: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """`chain` with one intermediate object skipped, its next relation taken from the object before it."""
    return [chain[:j] + chain[j + 1 :] for j in range(1, len(chain) - 1)]


def program_chains(program: dict[str, Any]) -> list[tuple[str, list[dict[str, Any]]]]:
    """The reference and set chains of a program, by key, in key order."""
    return [
        (key, value)
        for key, value in sorted(program.items())
        if isinstance(value, list) and value and isinstance(value[0], dict) and "relate" in value[0]
    ]
