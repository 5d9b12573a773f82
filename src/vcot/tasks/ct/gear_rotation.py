"""gear_rotation (CT): gears, open and crossed belts and shared shafts; gear A turns one way — which way does
another gear turn, or is the system jammed?

MIRA asks two sub-questions about one picture and counts a problem right only when both are right. Instances
stay random-access by pairing indices: instance i belongs to problem i // 2 and asks sub-question i % 2 + 1.
The scene of a problem is drawn from an RNG derived from (task, version, difficulty parameters, seed, problem),
not from the per-instance RNG, so both rows share the identical scene and picture.

The solver propagates directions from gear A over a parity constraint graph (`_gear_propagation`); a
contradiction means the gears cannot turn at all: "jammed". The system is built by `_gear_layout`, checked by
`_gear_geometry` and `_gear_labels`, drawn by `_gear_drawing`, and its visual chain of thought is `_gear_steps`.

Shortcuts are planned out (docs/tasks/gear_rotation.md, "Answer" and "Shortcut audit"): a third of the rows jam at
every preset, the wheel count is drawn independently of the answer, half the turning systems have a consistent
loop, the letters after A are shuffled, and the direction read off the distance in the drawing agrees with the
answer in exactly half the turning rows. Labels never touch a belt, another wheel or label, the legend or the
border ("Labels").
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vcot.schema import Instance
from vcot.seeding import derive_seed
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, finite
from vcot.tasks.base import Corruption, GenContext, Limit, ParameterError, Reject, Rendering, Solution, Task
from vcot.tasks.ct._gear_corruption import misread_system
from vcot.tasks.ct._gear_drawing import draw_system
from vcot.tasks.ct._gear_geometry import centre_of, check_geometry, dist
from vcot.tasks.ct._gear_labels import Disc, check_labels, label_layout
from vcot.tasks.ct._gear_layout import build_system
from vcot.tasks.ct._gear_propagation import DIRS, direction_of, gear_answer, propagate
from vcot.tasks.ct._gear_steps import cot_steps

# The words the question offers, whatever the configuration (jammed_per_block = 0 never jams, but says nothing
# of it).
ANSWER_WORDS = (*DIRS, "jammed")
LOOP_TRIES = 300  # attempts at a planned consistent loop before a turning system is drawn without one


@dataclass(frozen=True)
class GearRotationConfig:
    n_min: int = 4
    n_max: int = 6
    p_mesh: float = 0.6
    p_belt: float = 0.4
    p_shaft: float = 0.0
    extra_links: int = 1  # at most this many links close a loop
    jammed_per_block: int = 4  # jammed problems in each block of jammed_per_block + 8 consecutive problems
    min_depth: int = 2  # asked gears are at least this many links away from gear A when possible


def plan_answers(pctx: GenContext, jammed_per_block: int) -> tuple[bool, list[str], list[bool]]:
    """Jam status, wanted directions and wanted distance-cue agreement of both sub-questions, exactly balanced
    over blocks of problems: each block of jammed_per_block + 8 problems has that many jammed ones, and its 8
    others cover every (sub-question 1, sub-question 2) direction combination twice — once with the distance
    cue agreeing on sub-question 1 only, once on sub-question 2 only."""
    v = pctx.balanced(jammed_per_block + 8, "plan")
    if v < jammed_per_block:
        return True, ["jammed", "jammed"], [False, False]
    u = v - jammed_per_block
    return False, [DIRS[u % 2], DIRS[(u // 2) % 2]], [u < 4, u >= 4]


def distance_cue(scene: dict[str, Any], target: int) -> str:
    """The direction read off the drawing without following links: one reversal per mean wheel diameter
    between A's centre and the asked wheel's (at least one unless they share a centre). In a chain of meshing
    gears this is nearly always right, so the generator plans where it agrees with the answer (half the
    non-jammed rows); the audit's "distance parity" heuristic computes the same (docs/tasks/gear_rotation.md)."""
    gears = scene["gears"]
    driver, asked = gears[scene["driver"]], gears[target]
    outer = [g for g in gears if g["host"] is None]
    step = 2 * sum(g["r"] for g in outer) / len(outer)
    d = dist(centre_of(driver), centre_of(asked))
    flips = max(1, round(d / step)) if d > 0 else 0
    return direction_of(scene["driver_dir"], flips % 2)


@register
class GearRotationTask(Task):
    name = "gear_rotation"
    config_cls = GearRotationConfig
    presets = {
        "easy": GearRotationConfig(
            n_min=4, n_max=5, p_mesh=1.0, p_belt=0.0, p_shaft=0.0, extra_links=1, jammed_per_block=4, min_depth=1
        ),
        "medium": GearRotationConfig(
            n_min=4, n_max=7, p_mesh=0.55, p_belt=0.15, p_shaft=0.3, extra_links=1, jammed_per_block=4, min_depth=2
        ),
        "hard": GearRotationConfig(
            n_min=6, n_max=10, p_mesh=0.5, p_belt=0.15, p_shaft=0.35, extra_links=2, jammed_per_block=4, min_depth=2
        ),
    }
    version = "5"
    limits = {
        "n_min": Limit(
            4,
            10,
            "wheels in the system: fewer than 4 cannot give every planned pair of answers, and "
            "with more than 10 the picture (960 x 640) fills up and sampling slows",
        ),
        "n_max": Limit(4, 10, "wheels in the system (see n_min)"),
        "p_mesh": Limit(
            0.05,
            1,
            "weight of growing by a meshing gear; only meshing gears take further wheels, so it must be positive",
        ),
        "p_belt": Limit(0, 1, "weight of growing by a belt"),
        "p_shaft": Limit(0, 1, "weight of growing by a shaft wheel and its belt"),
        "extra_links": Limit(0, 3, "links closing a loop; each must fit between existing wheels"),
        "jammed_per_block": Limit(0, 8, "jammed problems per block of this + 8 (4: a third of the answers)"),
        "min_depth": Limit(
            1,
            4,
            "links from A to an asked wheel; deeper is tried first, shallower accepted "
            "when fewer than two wheels are that deep",
        ),
    }
    description = "Direction of a gear driven through meshes, open/crossed belts and shafts (paired questions)."
    rows_per_problem = 2
    # Every step draws each newly reached wheel's rotation arrow and its text names that direction; the asked
    # wheel's arrow is one of them. A jammed system's last step shows two arrows that its marked link forbids.
    final_state_shows = "the rotation arrow drawn on the asked wheel once the propagation reaches it"
    max_attempts = 5  # the problem RNG ignores retries; sample_scene loops internally instead

    def check_config(self, config: GearRotationConfig) -> None:
        super().check_config(config)
        if config.jammed_per_block > 0 and config.extra_links < 1:
            raise ParameterError(
                f"parameters of task {self.name}: jammed_per_block > 0 needs extra_links >= 1 "
                "(a jam needs a closed loop)"
            )

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        problem, sub = divmod(ctx.index, 2)
        rng = random.Random(
            derive_seed(self.name, self.version, sorted(self.params().items()), ctx.seed, "problem", problem)
        )
        pctx = GenContext(rng=rng, task=self.name, seed=ctx.seed, index=problem, setting=ctx.setting)
        jammed, want, agree = plan_answers(pctx, self.config.jammed_per_block)
        driver_dir = DIRS[pctx.balanced(2, "driver")]
        size = self.config.n_min + pctx.balanced(self.config.n_max - self.config.n_min + 1, "wheels")
        # Half the systems that turn get a closed (consistent) loop too, so a loop alone does not mean a jam.
        loop = jammed or (self.config.extra_links > 0 and pctx.balanced(2, "loop") == 0)
        last: Reject | None = None
        for attempt in range(LOOP_TRIES + 400):
            try:
                # A consistent loop does not fit every small system (four meshing gears in a ring barely do):
                # after LOOP_TRIES attempts the system that turns is drawn without one.
                scene = self._attempt(
                    rng, jammed, loop and (jammed or attempt < LOOP_TRIES), want, agree, driver_dir, size
                )
                break
            except Reject as exc:
                last = exc
        else:
            raise Reject(f"no gear system for problem {problem}: {last}")
        scene["pair_id"] = problem
        scene["sub_question"] = sub + 1
        scene["target"] = scene["targets"][sub]
        return scene

    def _attempt(
        self,
        rng: random.Random,
        jammed: bool,
        loop: bool,
        want: list[str],
        agree: list[bool],
        driver_dir: str,
        size: int,
    ) -> dict[str, Any]:
        scene = build_system(rng, self.config, jammed, loop, size)
        scene["driver"] = 0
        scene["driver_dir"] = driver_dir
        check_geometry(scene)
        check_labels(scene)
        prop = propagate(scene)
        if (prop["conflict"] is not None) != jammed:
            raise Reject("jam status differs from the one drawn for this problem")
        n = len(scene["gears"])
        deep = [i for i in range(1, n) if prop["layer"][i] is not None and prop["layer"][i] >= self.config.min_depth]
        pool = deep if len(deep) >= 2 else [i for i in range(1, n)]
        targets: list[int] = []
        for w, ok in zip(want, agree, strict=True):
            cands = [
                i
                for i in pool
                if i not in targets
                and (jammed or (gear_answer(scene, prop, i) == w and (distance_cue(scene, i) == w) == ok))
            ]
            if not cands:
                raise Reject(f"no gear turns {w} with the planned distance cue")
            targets.append(rng.choice(cands))
        scene["targets"] = targets
        return scene

    def solve(self, scene: dict[str, Any]) -> Solution:
        prop = propagate(scene)
        answer = gear_answer(scene, prop, scene["target"])
        dirs = [None if s is None else direction_of(scene["driver_dir"], s) for s in prop["sign"]]
        return Solution(answer=answer, states=dirs, details={"conflict": prop["conflict"], "layers": prop["layer"]})

    def question(self, scene: dict[str, Any]) -> str:
        kinds = {link["type"] for link in scene["links"]}
        labels = [g["label"] for g in scene["gears"]]
        rules = ["Gears whose teeth touch mesh and turn in opposite directions."]
        if kinds & {"open_belt", "crossed_belt"}:
            rules.append(
                "A belt whose two straight runs do not cross (open belt) makes its two wheels turn in "
                "the same direction; a belt whose runs cross between the wheels (crossed belt) makes "
                "them turn in opposite directions."
            )
        if "shaft" in kinds:
            rules.append(
                "A smaller wheel drawn on top of a larger one with the same centre is fixed to the same "
                "shaft: the two turn together in the same direction."
            )
        driver = scene["gears"][scene["driver"]]["label"]
        target = scene["gears"][scene["target"]]["label"]
        return (
            f"The picture shows wheels labelled {labels[0]} to {labels[-1]}. "
            + " ".join(rules)
            + f" Gear {driver} turns {scene['driver_dir']} (red arrow). In which direction does gear "
            f"{target} turn? If the wheels cannot turn at all because the connections contradict each "
            f"other, the system is {ANSWER_WORDS[2]}. Answer with one word: {ANSWER_WORDS[0]}, "
            f"{ANSWER_WORDS[1]} or {ANSWER_WORDS[2]}."
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        return finite(
            list(ANSWER_WORDS),
            "the three words the question offers: clockwise, counterclockwise or jammed",
            lambda a: a.strip().lower(),
        )

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        layout = label_layout(scene)
        return Rendering(image=self._input_picture(scene, layout), steps=cot_steps(scene, propagate(scene), layout))

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._input_picture(scene, label_layout(scene))

    @staticmethod
    def _input_picture(scene: dict[str, Any], layout: list[Disc]) -> Image.Image:
        # The layout is a parameter so that render works it out once for the input picture and the steps.
        return draw_system(scene, {}, set(), layout=layout)

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        # The propagation itself stays right; the system it reads is misread (`_gear_corruption`), so every
        # corrupted sentence obeys the rules the question states.
        wrong, misread = misread_system(scene, rng)
        # The propagation over the misread system answers for the asked wheel (a direction, or "jammed" when
        # the misread links contradict); `misread_system` has already computed it to pick the misreading, so
        # the Reject guard (asked wheel not driven) is only there so that this never fails a scene.
        try:
            answer: str | None = gear_answer(wrong, propagate(wrong), wrong["target"])
        except Reject:
            answer = None
        return Corruption(
            steps=lambda: cot_steps(wrong, propagate(wrong), label_layout(scene)),
            description=f"{misread}; the asked wheel's answer changes",
            answer=answer,
            scene=wrong if answer is not None else None,
        )
