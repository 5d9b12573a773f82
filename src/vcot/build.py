"""Build suites from generators: single tasks or the preset suites (`mini`, `mira-synth`), in one or
several processes with identical output (every instance depends only on task, parameters, seed, index).
"""

from __future__ import annotations

import multiprocessing as mp
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcot.suite import EncodedSample, write_suite
from vcot.tasks import get_task, get_task_class, task_names
from vcot.tasks.catalog import mira_synth_counts

MINI_PER_TASK = 3
DEFAULT_SEED = 0


@dataclass(frozen=True)
class TaskPlan:
    task: str
    n: int
    seed: int
    difficulty: str = "medium"
    params: dict[str, Any] = field(default_factory=dict)


def preset_plans(suite: str, seed: int = DEFAULT_SEED, difficulty: str = "medium") -> list[TaskPlan]:
    """Plans for a named suite over the tasks registered in this vcot."""
    registered = task_names()
    if suite == "mini":
        return [TaskPlan(t, MINI_PER_TASK * get_task_class(t).rows_per_problem, seed, difficulty) for t in registered]
    if suite == "mira-synth":
        counts = mira_synth_counts()
        return [TaskPlan(t, counts[t], seed, difficulty) for t in registered if t in counts]
    raise ValueError(f"unknown suite {suite!r}; choose 'mini' or 'mira-synth'")


_worker_tasks: dict[tuple[str, str, tuple], Any] = {}


def _make_encoded(args: tuple[TaskPlan, int]) -> EncodedSample:
    plan, index = args
    key = (plan.task, plan.difficulty, tuple(sorted(plan.params.items())))
    task = _worker_tasks.get(key)
    if task is None:
        task = _worker_tasks[key] = get_task(plan.task, plan.difficulty, **plan.params)
    return EncodedSample.from_sample(task.make(index, plan.seed))


def iter_encoded(plans: list[TaskPlan], processes: int = 1) -> Iterator[EncodedSample]:
    jobs = [(plan, i) for plan in plans for i in range(plan.n)]
    if processes <= 1:
        for job in jobs:
            yield _make_encoded(job)
        return
    # Ordered imap keeps output identical to the single-process run.
    with mp.get_context().Pool(processes) as pool:
        yield from pool.imap(_make_encoded, jobs, chunksize=4)


def task_manifest_entry(plan: TaskPlan) -> dict[str, Any]:
    task = get_task(plan.task, plan.difficulty, **plan.params)
    return {"source": "generated", "seed": plan.seed, "difficulty": plan.difficulty, "params": task.params(),
            "generator_version": task.version, "n": plan.n}


def build_suite(out_dir: str | Path, name: str, plans: list[TaskPlan], processes: int = 1,
                progress: Callable[[int], None] | None = None) -> dict[str, Any]:
    """Generate every plan into a suite folder; returns the manifest."""
    tasks = {p.task: task_manifest_entry(p) for p in plans}
    if len(tasks) != len(plans):
        raise ValueError("each task may appear only once in a suite plan")

    def stream() -> Iterator[EncodedSample]:
        for enc in iter_encoded(plans, processes):
            if progress is not None:
                progress(1)
            yield enc

    return write_suite(out_dir, name, stream(), tasks=tasks)
