"""Generator base: config dataclasses with presets, seeded per-instance RNGs, rejection sampling,
solver/renderer separation and the corrupted-trajectory hook.

A task subclass implements four pure pieces:

- `sample_scene(ctx)` draws a JSON-able scene from `ctx.rng` and raises `Reject` when the scene would give
  an ambiguous or fragile answer (it may call `solve` to check);
- `solve(scene)` computes the answer (and the intermediate states) from the scene alone — used again by
  `vcot validate --resolve` and the tests to re-derive every gold answer from `meta`;
- `render(scene, solution)` draws the input picture and the visual chain-of-thought steps with texts;
- `corrupt(scene, solution, rng)` (optional) returns a plausible but wrong trajectory;
- `slip(scene, solution, rng)` (optional) returns a trajectory that read the input right and slipped once in
  applying a rule (docs/process.md, kind `wrong_state`).

Instances are random-access: instance `index` of seed `seed` depends on nothing else, so generation
parallelises over processes with identical output.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, ClassVar, TypeVar

from PIL import Image

from vcot.schema import AnswerType, Instance, Step, option_letters

# Code written against vcot.tasks.base still imports derive_seed from here.
from vcot.seeding import derive_seed
from vcot.tasks.answer_space import AnswerSpace, clock_times, compass_directions, option_letters_space
from vcot.tasks.catalog import MIRA_TASKS


class Reject(Exception):
    """The drawn scene is ambiguous, fragile or degenerate; the generator draws another."""


class GenerationError(RuntimeError):
    """A generator could not produce an acceptable scene within its attempt budget."""


@dataclass
class GenContext:
    """What `sample_scene` may use: its own RNG and a suite-level balancing helper."""

    rng: random.Random
    task: str
    seed: int
    index: int
    # The setting's label (`Task.setting`): balancing blocks of different difficulties are drawn apart, so
    # that one index of two difficulties does not share its answer slot.
    setting: str = "medium"

    def balanced(self, n: int, salt: str = "") -> int:
        """A value in range(n), exactly balanced over each block of n consecutive indices.

        Choice tasks use it to pick the answer's option slot so that no letter dominates a suite, while
        each instance stays independent of the others (the block permutation is itself seeded).
        """
        if n <= 0:
            raise ValueError("n must be positive")
        block, pos = divmod(self.index, n)
        perm = list(range(n))
        random.Random(derive_seed(self.task, self.setting, self.seed, "balance", salt, n, block)).shuffle(perm)
        return perm[pos]


@dataclass
class Solution:
    """The solver's output: the canonical answer string and the trajectory of intermediate states."""

    answer: str
    states: list[Any] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Rendering:
    """Pictures for one instance: the input image and visual CoT steps as (image, text) pairs."""

    image: Image.Image
    steps: list[tuple[Image.Image, str]]


StepList = list[tuple[Image.Image, str]]


class Corruption:
    """A plausible but wrong trajectory plus a short description of what was changed (kept in meta), and the
    final answer it implies when the task computes it (`answer`).

    `steps` may be given as the list or as a zero-argument callable that draws it: the rejection loop asks
    only whether a scene admits a corrupted trajectory, and most of its callers (`make` without the
    corruption, `vcot.rl` for suite seeds) throw the trajectory away, so its pictures are drawn the first
    time `steps` is read, once. A task's `corrupt` decides everything (every `Reject`, every use of its
    RNG) before it returns and leaves only the drawing to the callable.
    """

    __slots__ = ("_steps", "answer", "description", "scene")

    def __init__(
        self,
        steps: StepList | Callable[[], StepList],
        description: str,
        answer: str | None = None,
        scene: dict[str, Any] | None = None,
    ) -> None:
        self._steps = steps
        self.description = description
        # The scene as the corrupted trajectory reads it, when the corruption is a misreading carried through
        # the task's rules: the task's independent oracle then re-derives `answer` from it (tests).
        self.scene = scene
        # The final answer the corrupted trajectory leads to, in the task's answer format (a choice task's
        # option letter), or None when the task does not say or the value is no option: what a labelled
        # trajectory that errs and carries the error on concludes (issue 46). Never stored in the instance.
        self.answer = answer

    @property
    def steps(self) -> StepList:
        if callable(self._steps):
            self._steps = self._steps()
        return self._steps

    def __repr__(self) -> str:
        return f"Corruption(description={self.description!r}, drawn={not callable(self._steps)})"


@dataclass
class Sample:
    """A generated instance and its pictures, keyed by the relative path the instance references."""

    instance: Instance
    images: dict[str, Image.Image]


ConfigT = TypeVar("ConfigT")


@dataclass(frozen=True)
class Limit:
    """The range a numeric task parameter may take, and why (memory, run time, a geometric bound).

    Every int and float field of a task's config declares one in `Task.limits`; `Task.__init__` refuses a
    value outside it with an error naming the task, the parameter, the range and the reason.
    """

    lo: float
    hi: float
    why: str


@dataclass(frozen=True)
class Choices:
    """The values a string parameter (or each item of a list parameter) may take, and what they mean."""

    values: tuple[str, ...]
    why: str = ""


class ParameterError(ValueError):
    """A task parameter is outside its declared limits; the message names task, parameter, range and reason."""


def answer_range_presets(levels: dict[str, ConfigT], **ranges: tuple[int, int]) -> dict[str, ConfigT]:
    """Difficulty presets of sibling tasks that draw the same kind of scene but ask different questions: each
    level keeps the shared config of `levels` and gets this task's own answer range (`level=(min, max)` sets
    the config fields answer_min and answer_max), since two questions about one scene span different numbers.
    """
    if set(ranges) != set(levels):
        raise ValueError(f"answer ranges given for {sorted(ranges)}, but the levels are {sorted(levels)}")
    presets = {}
    for level, cfg in levels.items():
        lo, hi = ranges[level]
        presets[level] = dataclasses.replace(cfg, answer_min=lo, answer_max=hi)
    return presets


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


class Task(ABC):
    """A generator of one task type: a config (from a difficulty preset plus overrides, checked against
    `limits`) and the pure pieces described at the top of this module. `make(index, seed)` returns one
    Sample (instance and pictures), the same for the same arguments in any process; `generate(n, seed)` a run
    of them."""

    name: ClassVar[str]
    domain: ClassVar[str]
    answer_type: ClassVar[AnswerType]
    config_cls: ClassVar[type]
    presets: ClassVar[dict[str, Any]]  # "easy" | "medium" | "hard" -> config instance
    version: ClassVar[str] = "1"
    description: ClassVar[str] = ""
    max_attempts: ClassVar[int] = 2000
    # Tasks whose problems have several sub-question rows (MIRA's gear_rotation pairs n.1 / n.2).
    rows_per_problem: ClassVar[int] = 1
    # When the final state inherently shows the answer (the die's top face, the asked gear's arrow), say which
    # element does: step texts may then name the answer's value while describing that state, never in a
    # concluding phrase (`vcot.tasks.answer_leaks`, docs/tasks/README.md "Steps are states").
    final_state_shows: ClassVar[str] = ""
    # Declared bounds of the config's parameters (docs/tasks/README.md, "Parameter limits"): every numeric
    # field has a Limit, every string field (or list of strings) its Choices.
    limits: ClassVar[dict[str, Limit | Choices]] = {}
    # The palette-colour pools the task draws information from (lists or dicts of palette names), so the
    # colour-vision check sees every colour a preset's first instances may not happen to show
    # (tests/test_colour_vision.py, docs/tasks/README.md "Colour").
    colour_pools: ClassVar[tuple[Any, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A MIRA task takes its domain and answer type from the catalog, the one place that states them (the
        importers read it too), unless the class sets them itself."""
        super().__init_subclass__(**kwargs)
        name = cls.__dict__.get("name")
        if name in MIRA_TASKS:
            domain, answer_type = MIRA_TASKS[name]
            if "domain" not in cls.__dict__:
                cls.domain = domain
            if "answer_type" not in cls.__dict__:
                cls.answer_type = answer_type

    def __init__(self, config: Any | None = None, difficulty: str = "medium", **overrides: Any) -> None:
        if difficulty not in self.presets:
            raise ValueError(
                f"unknown difficulty {difficulty!r} for task {self.name}; choose one of {sorted(self.presets)}"
            )
        base = config if config is not None else self.presets[difficulty]
        if not isinstance(base, self.config_cls):
            raise TypeError(f"config for {self.name} must be a {self.config_cls.__name__}")
        unknown = set(overrides) - {f.name for f in dataclasses.fields(self.config_cls)}
        if unknown:
            raise ValueError(
                f"unknown parameter(s) {sorted(unknown)} for task {self.name}; "
                f"known: {[f.name for f in dataclasses.fields(self.config_cls)]}"
            )
        self.config = dataclasses.replace(base, **overrides) if overrides else base
        self.difficulty = difficulty if config is None else "custom"
        self.check_config(self.config)
        self.setting = self._setting_label()

    def _setting_label(self) -> str:
        """The name of this configuration: the preset's name when the parameters are that preset's, else
        `custom-` and a digest of the parameters. Instance seeds and uids include it, so instance `index`
        of one seed is a different draw, with a different uid, at every difficulty and every custom
        setting (docs/tasks/README.md, "Seeds and uids")."""
        params = json.dumps(dataclasses.asdict(self.config), sort_keys=True, default=str)
        preset = self.presets.get(self.difficulty)
        if preset is not None and json.dumps(dataclasses.asdict(preset), sort_keys=True, default=str) == params:
            return self.difficulty
        return "custom-" + hashlib.sha256(params.encode()).hexdigest()[:8]

    def check_config(self, config: Any) -> None:
        """Refuse a parameter outside its declared limits, a `min_x` above its `max_x`, and whatever
        relation between parameters the task adds (override, call super first)."""
        values = dataclasses.asdict(config)
        for name, limit in self.limits.items():
            if name not in values:
                raise TypeError(f"task {self.name} declares a limit for {name!r}, which its config lacks")
            value = values[name]
            if isinstance(limit, Limit):
                if isinstance(value, bool) or not isinstance(value, int | float):
                    raise ParameterError(f"parameter {name} of task {self.name} must be a number, got {value!r}")
                if not limit.lo <= value <= limit.hi:
                    raise ParameterError(
                        f"parameter {name} of task {self.name} must be between "
                        f"{_num(limit.lo)} and {_num(limit.hi)} ({limit.why}), got {value!r}"
                    )
            else:
                items = list(value) if isinstance(value, list | tuple) else [value]
                bad = [v for v in items if v not in limit.values]
                if bad or not items:
                    raise ParameterError(
                        f"parameter {name} of task {self.name} takes "
                        f"{' or '.join(map(repr, limit.values))}"
                        f"{' (' + limit.why + ')' if limit.why else ''}, got {value!r}"
                    )
        for name, value in values.items():
            for lo_name in (
                f"min_{name[4:]}" if name.startswith("max_") else None,
                f"{name[:-4]}_min" if name.endswith("_max") else None,
            ):
                if lo_name and lo_name in values and isinstance(value, int | float) and values[lo_name] > value:
                    raise ParameterError(
                        f"parameters of task {self.name}: {lo_name} ({values[lo_name]!r}) "
                        f"must not exceed {name} ({value!r})"
                    )

    # -- to implement -------------------------------------------------------------------------------

    @abstractmethod
    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        """Draw a JSON-able scene; raise Reject for ambiguous or fragile scenes."""

    @abstractmethod
    def solve(self, scene: dict[str, Any]) -> Solution:
        """Compute the answer from the scene alone."""

    @abstractmethod
    def question(self, scene: dict[str, Any]) -> str:
        """The question text (it states every rule the solver relies on)."""

    def options(self, scene: dict[str, Any]) -> list[str] | None:
        """Option texts for choice questions (letters are implied by position)."""
        return None

    @abstractmethod
    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        """Input picture and visual CoT steps with texts."""

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        """The input picture alone, pixel for pixel `render(scene, solution).image`.

        Training streams (`vcot.rl`) need only this picture. The default renders everything and keeps the
        input; a task whose step pictures cost much may override it to skip them.
        """
        return self.render(scene, solution).image

    def answer_space(self, instance: Instance) -> AnswerSpace:
        """Every answer the question admits under this configuration (the chance baseline draws from it).

        Built from the configuration, the options and the question's form, never from the gold answer. The
        default covers answer types whose space the question fixes (choice: the option letters; direction:
        the 8 compass directions; time: a 12-hour clock face); tasks with other answer types define theirs.
        """
        if self.answer_type == AnswerType.CHOICE and instance.options:
            return option_letters_space(option_letters(len(instance.options)))
        if self.answer_type == AnswerType.DIRECTION:
            return compass_directions()
        if self.answer_type == AnswerType.TIME:
            return clock_times()
        raise NotImplementedError(f"task {self.name} defines no answer space for its {self.answer_type} answers")

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """A plausible but wrong trajectory for ablations; None when the task has none."""
        return None

    def slip(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """A trajectory that reads the input picture right and slips once in applying a rule: the steps before
        the slip are the true ones, the slipped step's picture and text agree with each other and state the
        wrong state in a right step's words (no rule broken within the step, no impossible value), and every
        later step follows from it by the task's rules. `answer` is what that trajectory concludes (it differs
        from the gold answer), and `scene`, when set, is a scene from which the task's independent oracle
        derives that answer (tests/tasks/test_slip_answers.py). `steps` may be drawn lazily, as for `corrupt`.
        None when the task or this scene has no such slip (the default).

        Only the labelled trajectories call it (`vcot.process.labelled`, kind `wrong_state`), with their own
        seed: it never decides which scenes a task accepts, so no instance depends on it.
        """
        return None

    # -- provided -----------------------------------------------------------------------------------

    def params(self) -> dict[str, Any]:
        return dataclasses.asdict(self.config)

    def instance_seed(self, seed: int, index: int, variant: int = 0) -> int:
        # The setting is part of the seed: without it, index i of seed s drew the same random numbers at
        # every difficulty, and a mixed-difficulty suite held correlated answers. A variant > 0 is a fresh
        # draw for the same index, used when a suite would otherwise repeat a scene (vcot.build).
        if variant:
            return derive_seed(self.name, self.version, self.setting, seed, index, "variant", variant)
        return derive_seed(self.name, self.version, self.setting, seed, index)

    def scene_key(self, scene: dict[str, Any]) -> str:
        """Identifies the problem a scene poses: two scenes with the same key are the same problem, and a
        suite holds each key once. The default is the scene's canonical JSON (exact repeats); a task whose
        scenes can differ without changing the problem may normalise them first."""
        return hashlib.sha256(json.dumps(scene, sort_keys=True, default=str).encode()).hexdigest()

    def _accept(
        self, index: int, seed: int, check_corruption: bool, variant: int = 0
    ) -> tuple[dict[str, Any], Solution, Corruption | None, int]:
        """The rejection loop: draw scenes from the instance's RNG until one is acceptable."""
        inst_seed = self.instance_seed(seed, index, variant)
        ctx = GenContext(rng=random.Random(inst_seed), task=self.name, seed=seed, index=index, setting=self.setting)
        last: Reject | None = None
        for attempt in range(1, self.max_attempts + 1):
            try:
                scene = self.sample_scene(ctx)
                solution = self.solve(scene)
                corruption = None
                if check_corruption:
                    corruption = self.corrupt(scene, solution, random.Random(derive_seed(inst_seed, "corrupt")))
                    if corruption is None:
                        raise Reject("no plausible corrupted trajectory for this scene")
                return scene, solution, corruption, attempt
            except Reject as exc:
                last = exc
        raise GenerationError(
            f"{self.name}: no acceptable scene for seed={seed} index={index} after "
            f"{self.max_attempts} attempts (last rejection: {last})"
        )

    def solved_scene(self, index: int, seed: int) -> tuple[dict[str, Any], Solution]:
        """Scene and solution of instance `index` without rendering (fast: for invariants and statistics).

        Equal to what `make` uses, except in the rare case where a scene admits no corrupted trajectory and
        `make` draws on.
        """
        scene, solution, _, _ = self._accept(index, seed, check_corruption=False)
        return scene, solution

    def make(self, index: int, seed: int, with_corruption: bool = True, variant: int = 0) -> Sample:
        """Instance `index` of the stream for `seed`; independent of every other index. `variant` > 0 draws
        another scene for the same index (same uid and answer-balancing slot)."""
        # Every instance of a task that can corrupt must have a corrupted trajectory, so that the
        # visual_cot_corrupted ablation serves the whole suite; it is computed even when not emitted so
        # that `with_corruption` never changes which scene is accepted.
        can_corrupt = type(self).corrupt is not Task.corrupt
        scene, solution, corruption, attempt = self._accept(index, seed, check_corruption=can_corrupt, variant=variant)
        return self.assemble(
            index,
            seed,
            scene,
            solution,
            variant=variant,
            attempts=attempt,
            corruption=corruption if with_corruption else None,
        )

    def assemble(
        self,
        index: int,
        seed: int,
        scene: dict[str, Any],
        solution: Solution,
        *,
        variant: int = 0,
        attempts: int = 1,
        corruption: Corruption | None = None,
        steps: bool = True,
        uid: str | None = None,
    ) -> Sample:
        """The instance and its pictures for an accepted scene of instance `index` (what `make` returns once
        the rejection loop has accepted it). `corruption`: the corrupted trajectory to include, if any.

        `steps=False` draws the input picture only (`render_input`): the instance then has no steps. `uid`
        replaces the generated uid (and with it the image paths); `vcot.rl` names its problems this way.
        """
        inst_seed = self.instance_seed(seed, index, variant)
        if steps:
            rendering = self.render(scene, solution)
        else:
            rendering = Rendering(image=self.render_input(scene, solution), steps=[])
        # The setting is in the uid: instance `index` of one seed differs between difficulties.
        if uid is None and self.rows_per_problem > 1:
            # MIRA's paired form: rows n.1, n.2, ... of one problem share a scene and a uid stem.
            problem, sub = divmod(index, self.rows_per_problem)
            uid = f"{self.name}-{seed}-{self.setting}-{problem:06d}.{sub + 1}"
        elif uid is None:
            uid = f"{self.name}-{seed}-{self.setting}-{index:06d}"
        stem = f"images/{self.name}/{uid}"
        images: dict[str, Image.Image] = {f"{stem}.png": rendering.image}
        step_list = []
        for k, (img, text) in enumerate(rendering.steps, start=1):
            path = f"{stem}_step{k}.png"
            images[path] = img
            step_list.append(Step(image=path, text=text))
        corrupted_steps: list[Step] = []
        corruption_note = None
        if corruption is not None:
            corruption_note = corruption.description
            for k, (img, text) in enumerate(corruption.steps, start=1):
                path = f"{stem}_corrupt{k}.png"
                images[path] = img
                corrupted_steps.append(Step(image=path, text=text))
        meta = {
            "scene": scene,
            "solution": {"states": solution.states, "details": solution.details},
            "generator": {
                "task": self.name,
                "version": self.version,
                "difficulty": self.difficulty,
                "setting": self.setting,
                "params": self.params(),
                "suite_seed": seed,
                "index": index,
                "instance_seed": inst_seed,
                "attempts": attempts,
                **({"variant": variant} if variant else {}),
            },
        }
        if corruption_note is not None:
            meta["corruption"] = corruption_note
        if self.rows_per_problem > 1:
            meta["pair_id"] = f"{seed}-{self.setting}-{index // self.rows_per_problem}"
        # Normalise through JSON (tuples become lists) so that a stored instance equals a re-made one.
        meta = json.loads(json.dumps(meta))
        instance = Instance(
            uid=uid,
            task=self.name,
            domain=self.domain,
            question=self.question(scene),
            image=f"{stem}.png",
            answer=solution.answer,
            answer_type=self.answer_type,
            options=self.options(scene),
            steps=step_list,
            corrupted_steps=corrupted_steps,
            meta=meta,
        )
        return Sample(instance=instance, images=images)

    def generate(self, n: int, seed: int, start: int = 0, with_corruption: bool = True) -> Iterator[Sample]:
        for index in range(start, start + n):
            yield self.make(index, seed, with_corruption=with_corruption)

    def resolve(self, instance: Instance) -> str:
        """Re-derive the answer from the instance's meta (the independent check behind `vcot validate`)."""
        return self.solve(instance.meta["scene"]).answer
