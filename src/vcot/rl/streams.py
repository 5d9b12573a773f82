"""The training stream: seeded, infinite, deterministic problems over tasks or a preset (docs/rl.md, "Streams").

Item `i` of a stream over tasks t0..tn-1 is problem `i // n` of task `t[i % n]` (round-robin in the given
order). It depends on the stream's seed, `i`, the task's setting and the excluded scenes only — never on what
was drawn before — so items can be made in any order, in any number of processes, with identical text and
pixels. A scene of an excluded suite (its `Task.scene_key`, as `vcot overlap` compares suites) is replaced by
a fresh draw from a re-derived seed, so training never sees a test scene.

The module is `streams`, not `stream`: importing a submodule sets it as an attribute of its package, which
would hide the function `vcot.rl.stream` behind a module of the same name.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from vcot.rl.problems import (
    Problem,
    accepted_scene,
    build_problem,
    check_condition,
    configured_task,
    params_label,
    stream_seed,
)
from vcot.tasks import get_task_class, task_names

if TYPE_CHECKING:
    from vcot.rl.curriculum import Curriculum
    from vcot.suite import Suite
    from vcot.tasks.base import Task

# Fresh draws tried for an item whose scene is excluded. A knob setting whose scenes the excluded suites
# cover so much that 64 draws all hit them cannot feed a stream: the error says so.
MAX_REDRAWS = 64


class ExclusionError(RuntimeError):
    """Every fresh draw for a stream item repeated an excluded scene."""


@dataclass(frozen=True)
class Capacity:
    """How many distinct scenes a task's setting produces before repeating, from `sampled` stream draws.

    `count` is exact when known (no task declares its scene count yet, so it is None today); `estimate` is
    the Chao1 estimate of the number of distinct scenes (the distinct scenes seen, when every one was seen at
    least twice); `lower_bound` is a 95 % lower bound when no scene repeated; `first_repeat` the expected
    number of draws before the first repeat (about sqrt(pi N / 2) for N equally likely scenes).
    """

    task: str
    difficulty: str
    params: dict[str, Any]
    sampled: int
    distinct: int
    count: int | None
    estimate: float | None
    lower_bound: float | None
    first_repeat: float | None
    redrawn: int  # draws that hit an excluded scene and were drawn again
    reason: str


class ProblemStream:
    """An infinite iterator of `Problem`s with random access (`stream[i]`); see the module docstring."""

    def __init__(
        self,
        tasks: list[str],
        difficulty: Mapping[str, str],
        params: Mapping[str, Mapping[str, Any]],
        seed: int,
        excluded: Mapping[str, frozenset[str]],
        condition: str,
        steps: bool,
        curriculum: Curriculum | None = None,
    ) -> None:
        if not tasks:
            raise ValueError("a stream needs at least one task")
        self.tasks = list(tasks)
        self.seed = int(seed)
        self.condition = condition
        self.steps = steps
        self.curriculum = curriculum
        self.position = 0
        self._difficulty = dict(difficulty)
        self._params = {t: dict(p) for t, p in params.items()}
        self.excluded = {t: frozenset(k) for t, k in excluded.items() if t in self.tasks and k}
        for t in self.tasks:
            check_condition(condition, t)
            configured_task(t, *self.setting(t))  # refuse a bad parameter before the first draw

    # -- settings ---------------------------------------------------------------------------------------------

    def setting(self, task: str) -> tuple[str, dict[str, Any]]:
        """(preset, parameter overrides) that `task` is drawn at now: the curriculum's when it manages the
        task, else the stream's fixed setting."""
        if self.curriculum is not None and task in self.curriculum.tasks:
            return self.curriculum.setting(task)
        return self._difficulty.get(task, "medium"), self._params.get(task, {})

    def task(self, name: str) -> Task:
        """The configured task `name` is drawn from now."""
        return configured_task(name, *self.setting(name))

    # -- access -----------------------------------------------------------------------------------------------

    def slot(self, i: int) -> tuple[str, int]:
        """(task, index within the task's generation sequence) of item `i`."""
        if i < 0:
            raise IndexError(f"stream items start at 0, got {i}")
        return self.tasks[i % len(self.tasks)], i // len(self.tasks)

    def _draw(self, task: str, j: int) -> tuple[Task, int, dict[str, Any], Any, int, int]:
        """(task, generation seed, scene, solution, attempts, redraws) of problem `j` of `task`."""
        t = self.task(task)
        keys = self.excluded.get(task)
        for redraw in range(MAX_REDRAWS + 1):
            seed = stream_seed(self.seed, redraw)
            scene, solution, attempts = accepted_scene(t, seed, j)
            if not keys or t.scene_key(scene) not in keys:
                return t, seed, scene, solution, attempts, redraw
        raise ExclusionError(
            f"task {task}: {MAX_REDRAWS + 1} draws for problem {j} all repeat a scene of the "
            f"excluded suites; its setting {self.setting(task)} admits too few other scenes"
        )

    def __getitem__(self, i: int) -> Problem:
        task, j = self.slot(i)
        t, seed, scene, solution, attempts, _ = self._draw(task, j)
        return build_problem(t, seed, j, scene, solution, condition=self.condition, steps=self.steps, attempts=attempts)

    def audit(self, i: int) -> tuple[str, str, int]:
        """(task, scene key, fresh draws it took) of item `i`, without rendering anything: what an exclusion
        audit needs (the number of draws says how often an excluded scene came up)."""
        task, j = self.slot(i)
        t, _, scene, _, _, redraws = self._draw(task, j)
        return task, t.scene_key(scene), redraws

    def scene_key(self, i: int) -> str:
        """The scene key of item `i`, without rendering anything."""
        return self.audit(i)[1]

    def __iter__(self) -> Iterator[Problem]:
        return self

    def __next__(self) -> Problem:
        problem = self[self.position]
        self.position += 1
        return problem

    def take(self, n: int) -> list[Problem]:
        """The next `n` problems (the stream moves on by `n`)."""
        return [next(self) for _ in range(n)]

    def state_dict(self) -> dict[str, Any]:
        """Where the stream is (JSON-able), to resume it with a trainer checkpoint; a curriculum keeps its own
        state."""
        return {"position": self.position, "seed": self.seed, "tasks": self.tasks}

    def load_state_dict(self, state: Mapping[str, Any]) -> None:
        if state.get("seed") != self.seed or list(state.get("tasks") or []) != self.tasks:
            raise ValueError("stream state is of another stream (seed or tasks differ)")
        self.position = int(state["position"])

    # -- capacity ---------------------------------------------------------------------------------------------

    def capacity(self, n: int = 256, tasks: Iterable[str] | None = None) -> dict[str, Capacity]:
        """Per task, how many distinct scenes its current setting yields before repeating, estimated from
        the stream's first `n` problems of that task (excluded scenes already left out)."""
        if n < 2:
            raise ValueError(f"capacity needs at least 2 draws, got {n}")
        out = {}
        for task in tasks if tasks is not None else self.tasks:
            keys: Counter[str] = Counter()
            redrawn = 0
            for j in range(n):
                t, _, scene, _, _, redraws = self._draw(task, j)
                keys[t.scene_key(scene)] += 1
                redrawn += redraws
            difficulty, _ = self.setting(task)
            params = t.params()
            out[task] = _capacity(task, params_label(task, difficulty, params), params, n, keys, redrawn)
        return out


def _capacity(task: str, label: str, params: dict[str, Any], n: int, keys: Counter[str], redrawn: int) -> Capacity:
    from vcot.scene_space import chao1, no_repeat_bound

    distinct = len(keys)
    freq = Counter(keys.values())
    f1, f2 = freq.get(1, 0), freq.get(2, 0)
    if distinct == n:
        # No repeat in n draws: the space is larger than the bound with 95 % confidence.
        bound = no_repeat_bound(n)
        return Capacity(
            task,
            label,
            params,
            n,
            distinct,
            None,
            None,
            bound,
            None,
            redrawn,
            f"no scene repeated in {n} draws: more than {bound:.0f} scenes (95 % lower bound)",
        )
    estimate = chao1(keys.values())
    if f1 == 0:
        reason = f"every one of the {distinct} scenes seen was drawn at least twice in {n} draws: likely all"
    else:
        reason = f"Chao1 estimate from {distinct} distinct scenes in {n} draws ({f1} seen once, {f2} twice)"
    return Capacity(
        task, label, params, n, distinct, None, estimate, None, math.sqrt(math.pi * estimate / 2), redrawn, reason
    )


# -- building a stream ----------------------------------------------------------------------------------------


def stream(
    tasks: str | Iterable[str] | None = None,
    preset: str | None = None,
    difficulty: str | Mapping[str, str] | None = None,
    params: Mapping[str, Any] | None = None,
    seed: int = 0,
    exclude: Any = None,
    condition: str = "direct",
    steps: bool = False,
    curriculum: Curriculum | None = None,
) -> ProblemStream:
    """A seeded, infinite, deterministic problem stream.

    `tasks`: a task name or names (default: every registered task), or `preset`: the tasks of a suite preset
    ("mini", "mira-synth", "see2think-synth"). `difficulty`: a preset level for every task or a mapping
    task → level (default "medium"). `params`: parameter overrides, a mapping task → overrides, or for a
    one-task stream the overrides themselves. `exclude`: suites (folders or `vcot.suite.Suite` objects, or a
    mapping task → scene keys) whose scenes never appear. `condition`: the prompt (see
    `vcot.rl.problems.CONDITIONS`). `steps`: render the step pictures too (`Problem.step_images`).
    `curriculum`: a `vcot.rl.Curriculum` whose current setting each of its tasks is drawn at.
    """
    names = _task_list(tasks, preset)
    levels = _per_task(difficulty, names, "medium")
    for t, level in levels.items():
        if level not in get_task_class(t).presets:
            raise ValueError(
                f"unknown difficulty {level!r} for task {t}; choose one of {sorted(get_task_class(t).presets)}"
            )
    return ProblemStream(
        names,
        levels,
        _per_task_params(params, names),
        seed,
        excluded_keys(exclude, names),
        condition,
        steps,
        curriculum,
    )


def _task_list(tasks: str | Iterable[str] | None, preset: str | None) -> list[str]:
    if tasks is not None and preset is not None:
        raise ValueError("give tasks or a preset, not both")
    if preset is not None:
        from vcot.build import preset_plans

        return [p.task for p in preset_plans(preset)]
    if tasks is None:
        return task_names()
    names = [tasks] if isinstance(tasks, str) else list(tasks)
    for t in names:
        get_task_class(t)  # an unknown name fails here, listing the registered tasks
    if len(set(names)) != len(names):
        raise ValueError(f"a task appears twice in {names}")
    return names


def _per_task(value: str | Mapping[str, str] | None, names: list[str], default: str) -> dict[str, str]:
    if value is None:
        return dict.fromkeys(names, default)
    if isinstance(value, str):
        return dict.fromkeys(names, value)
    unknown = set(value) - set(names)
    if unknown:
        raise ValueError(f"difficulty given for tasks not in the stream: {sorted(unknown)}")
    return {t: value.get(t, default) for t in names}


def _per_task_params(params: Mapping[str, Any] | None, names: list[str]) -> dict[str, dict[str, Any]]:
    if not params:
        return {}
    if all(k in names and isinstance(v, Mapping) for k, v in params.items()):
        return {t: dict(v) for t, v in params.items()}
    if len(names) == 1:
        return {names[0]: dict(params)}
    raise ValueError(
        "params must map task names of the stream to parameter overrides (or, for a one-task "
        f"stream, be the overrides); got keys {sorted(params)}"
    )


def excluded_keys(exclude: Any, tasks: Iterable[str] | None = None) -> dict[str, frozenset[str]]:
    """Task → scene keys of everything in `exclude`: suite folders, `Suite` objects, mappings task → keys,
    or a list of those. A suite's keys are those `vcot overlap` compares (`vcot.validate.scene_keys`), plus the
    scenes of paired tasks, which `vcot overlap` leaves out since two rows share one scene."""
    wanted = set(tasks) if tasks is not None else None
    out: dict[str, set[str]] = {}
    for item in _items(exclude):
        if isinstance(item, Mapping):
            for task, keys in item.items():
                out.setdefault(str(task), set()).update(str(k) for k in keys)
            continue
        for task, key in _suite_keys(_suite(item)):
            out.setdefault(task, set()).add(key)
    return {t: frozenset(k) for t, k in out.items() if wanted is None or t in wanted}


def _items(exclude: Any) -> list[Any]:
    if exclude is None:
        return []
    if isinstance(exclude, str | Path | Mapping) or hasattr(exclude, "instances"):
        return [exclude]
    return list(exclude)


def _suite(item: Any) -> Suite:
    from vcot.suite import Suite, read_suite

    if isinstance(item, Suite):
        return item
    if isinstance(item, str | Path):
        return read_suite(item, check_images="none")
    raise TypeError(
        f"exclude takes suite folders, Suite objects or mappings task -> scene keys, got {type(item).__name__}"
    )


def _suite_keys(suite: Suite) -> Iterator[tuple[str, str]]:
    from vcot.validate import scene_keys

    yield from scene_keys(suite)
    registered = set(task_names())
    for inst in suite.instances:
        meta = inst.meta if isinstance(inst.meta, dict) else {}
        if inst.task not in registered or "scene" not in meta or "generator" not in meta:
            continue
        if get_task_class(inst.task).rows_per_problem > 1:
            yield inst.task, configured_task(inst.task).scene_key(meta["scene"])
