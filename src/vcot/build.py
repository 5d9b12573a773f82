"""Build suites from generators: single tasks or the preset suites (`mini`, `mira-synth`, `see2think-synth`),
in one or several processes with identical output (every instance depends only on task, parameters, seed,
index).
"""

from __future__ import annotations

import dataclasses
import json
import multiprocessing as mp
import typing
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcot.suite import EncodedSample, write_suite
from vcot.tasks import GenerationError, get_task, get_task_class, task_names
from vcot.tasks.catalog import mira_synth_counts
from vcot.worker_signals import init_worker_signals

MINI_PER_TASK = 3
SUITE_PRESETS = ("mini", "mira-synth", "see2think-synth")
DEFAULT_SEED = 0


@dataclass(frozen=True)
class TaskPlan:
    task: str
    n: int
    seed: int
    difficulty: str = "medium"
    params: dict[str, Any] = field(default_factory=dict)


def preset_plans(suite: str, seed: int = DEFAULT_SEED, difficulty: str = "medium") -> list[TaskPlan]:
    """Plans for a preset (`SUITE_PRESETS`) over the tasks registered in this vcot."""
    registered = task_names()
    if suite == "mini":
        return [TaskPlan(t, MINI_PER_TASK * get_task_class(t).rows_per_problem, seed, difficulty) for t in registered]
    if suite == "mira-synth":
        counts = mira_synth_counts()
        return [TaskPlan(t, counts[t], seed, difficulty) for t in registered if t in counts]
    if suite == "see2think-synth":
        # See2Think's categories that vcot can generate, 100 problems each (tasks/see2think_categories.py).
        from vcot.tasks.see2think_categories import plan

        return [
            TaskPlan(t, n * get_task_class(t).rows_per_problem, seed, difficulty) for _, t, n in plan(set(registered))
        ]
    from vcot.suggest import unknown_name

    raise ValueError(unknown_name("preset", suite, SUITE_PRESETS, "presets"))


class BuildError(ValueError):
    """Generation failed for a reason the user can act on (a parameter value, the attempt budget); the
    message names the task, the parameters and the instance."""


def _type_name(tp: Any) -> str:
    return {int: "an integer", float: "a number", bool: "true or false", str: "a string"}.get(
        tp, "a list (JSON, e.g. '[\"a\"]')" if typing.get_origin(tp) in (list, tuple) else str(tp)
    )


def check_params(task: str, params: dict[str, Any]) -> dict[str, Any]:
    """`params` checked against the task's config fields by type, before any generation starts.

    Only the type is checked here; whether a value is in range is the task config's own business (it
    raises ValueError, which callers report), or shows up as a BuildError when generation fails.
    """
    cls = get_task_class(task)
    hints = typing.get_type_hints(cls.config_cls)
    names = {f.name for f in dataclasses.fields(cls.config_cls)}
    out: dict[str, Any] = {}
    for key, value in params.items():
        if key not in names:
            raise BuildError(f"unknown parameter {key!r} for task {task}; known: {', '.join(sorted(names))}")
        tp = hints.get(key)
        ok = True
        if tp is bool:
            ok = isinstance(value, bool)
        elif tp is int:
            ok = isinstance(value, int) and not isinstance(value, bool)
        elif tp is float:
            ok = isinstance(value, int | float) and not isinstance(value, bool)
        elif tp is str:
            ok = isinstance(value, str)
        elif typing.get_origin(tp) in (list, tuple):
            ok = isinstance(value, list)
            value = tuple(value) if ok and typing.get_origin(tp) is tuple else value
        if not ok:
            raise BuildError(f"parameter {key} of task {task} must be {_type_name(tp)}, got {value!r}")
        out[key] = value
    return out


def generation_plans(
    task: str | None, preset: str | None, n: int, seed: int, difficulty: str, params: dict[str, Any]
) -> tuple[list[TaskPlan], str]:
    """The plans of one `vcot generate` request — one task (`n` instances, `params` overriding its preset) or a
    preset suite — and the suite's default name. Everything is checked before anything is generated: an
    unknown task or preset, a parameter of the wrong type or out of its limits, a value the generator cannot
    work with (its first instance is tried). Raises ValueError (UnknownTaskError is a KeyError) saying which."""
    if (task is None) == (preset is None):
        raise BuildError("give exactly one of a task or a preset")
    if task is None:
        return preset_plans(str(preset), seed, difficulty), str(preset)
    if n <= 0:
        raise BuildError(f"the number of instances must be positive, got {n}")
    checked = check_params(task, params)
    get_task(task, difficulty, **checked)  # the name, the difficulty and the limits
    plan = TaskPlan(task, n, seed, difficulty, checked)
    if checked:
        try_plan(plan)
    return [plan], task


_worker_tasks: dict[tuple[str, str, str], Any] = {}


MAX_VARIANTS = 50  # fresh draws tried for an index whose scene repeats an earlier one


def _task(plan: TaskPlan) -> Any:
    # JSON, not a tuple of items: list-valued parameters are not hashable.
    key = (plan.task, plan.difficulty, json.dumps(plan.params, sort_keys=True, default=str))
    task = _worker_tasks.get(key)
    if task is None:
        task = _worker_tasks[key] = get_task(plan.task, plan.difficulty, **plan.params)
    return task


def _make_encoded(args: tuple[TaskPlan, int] | tuple[TaskPlan, int, int]) -> EncodedSample:
    plan, index = args[0], args[1]
    variant = args[2] if len(args) > 2 else 0
    try:
        return EncodedSample.from_sample(_task(plan).make(index, plan.seed, variant=variant))
    except GenerationError as exc:
        raise BuildError(f"{exc} (parameters {plan.params or 'of the ' + plan.difficulty + ' preset'})") from None
    except Exception as exc:
        # A generator failing on a parameter value it does not check (an empty range, a negative size) is
        # reported as that, not as a traceback; with no overrides it is a generator bug, so it propagates.
        if not plan.params:
            raise
        raise BuildError(
            f"task {plan.task} failed on instance {index} with parameters {plan.params}: "
            f"{type(exc).__name__}: {exc} — a parameter value is probably out of range"
        ) from None


def try_plan(plan: TaskPlan) -> None:
    """Generate the plan's first instance and drop it: a parameter value the generator cannot work with is
    then reported before the output folder is touched."""
    _make_encoded((plan, 0))


def unique_scenes(plans: list[TaskPlan], encoded: Iterator[EncodedSample]) -> Iterator[EncodedSample]:
    """Pass instances through in order, replacing any whose scene repeats an earlier one of the suite by a
    fresh draw for the same index (variant 1, 2, …). Done in order in one process, so the suite is the same
    whatever the number of workers."""
    seen: dict[str, set[str]] = {}
    drawn: dict[str, Counter[str]] = {}  # every draw's scene, repeats included: what the size estimate reads
    plan_of = {p.task: p for p in plans}
    for enc in encoded:
        plan = plan_of[enc.instance.task]
        task = _task(plan)
        if task.rows_per_problem > 1:  # one scene over several rows: rows of a problem share it
            yield enc
            continue
        key = task.scene_key(enc.instance.meta["scene"])
        keys = seen.setdefault(enc.instance.task, set())
        counts = drawn.setdefault(enc.instance.task, Counter())
        counts[key] += 1
        variant = 0
        while key in keys:
            variant += 1
            if variant > MAX_VARIANTS:
                from vcot.scene_space import describe

                raise BuildError(
                    f"task {enc.instance.task}: its setting has {describe(counts.values())}, and {plan.n} "
                    f"instances were asked for: instance {enc.instance.meta['generator']['index']} repeats an "
                    f"earlier scene after {MAX_VARIANTS} fresh draws. Ask for fewer (--n) or widen the setting "
                    f"(a larger size or answer range, another --difficulty)"
                )
            enc = _make_encoded((plan, enc.instance.meta["generator"]["index"], variant))
            key = task.scene_key(enc.instance.meta["scene"])
            counts[key] += 1
        keys.add(key)
        yield enc


def iter_encoded(plans: list[TaskPlan], processes: int = 1) -> Iterator[EncodedSample]:
    if processes < 1:
        raise BuildError(f"processes must be at least 1, got {processes}")
    jobs = [(plan, i) for plan in plans for i in range(plan.n)]
    if processes == 1:
        for job in jobs:
            yield _make_encoded(job)
        return
    # Ordered imap keeps output identical to the single-process run.
    with mp.get_context().Pool(processes, initializer=init_worker_signals) as pool:
        yield from pool.imap(_make_encoded, jobs, chunksize=4)


def iter_encoded_jobs(jobs: Iterable[tuple[TaskPlan, int]]) -> Iterator[EncodedSample]:
    """The instances of (plan, index) jobs in order, made one at a time in this process: the streaming hook
    of `vcot.shards`, which writes each shard as its instances come."""
    for job in jobs:
        yield _make_encoded(job)


def task_manifest_entry(plan: TaskPlan) -> dict[str, Any]:
    task = get_task(plan.task, plan.difficulty, **plan.params)
    return {
        "source": "generated",
        "seed": plan.seed,
        "difficulty": plan.difficulty,
        "params": task.params(),
        "generator_version": task.version,
        "n": plan.n,
    }


def build_suite(
    out_dir: str | Path,
    name: str,
    plans: list[TaskPlan],
    processes: int = 1,
    progress: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Generate every plan into a suite folder; returns the manifest."""
    if processes < 1:
        raise BuildError(f"processes must be at least 1, got {processes}")
    tasks = {p.task: task_manifest_entry(p) for p in plans}
    if len(tasks) != len(plans):
        raise ValueError("each task may appear only once in a suite plan")

    def stream() -> Iterator[EncodedSample]:
        for enc in unique_scenes(plans, iter_encoded(plans, processes)):
            if progress is not None:
                progress(1)
            yield enc

    return write_suite(out_dir, name, stream(), tasks=tasks)
