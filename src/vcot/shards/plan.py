"""Which instances go into which shard, and the fingerprint that says two runs mean the same shard set.

A shard holds every K-th *problem* of the concatenated plans (problem u of the whole plan goes to shard
u mod K), so each shard carries every task in proportion and the rows of a paired problem (MIRA's n.1, n.2)
stay together. Every instance depends only on (task, parameters, seed, index) — `vcot.build` — so a shard's
content depends only on the plan, K and its number: never on the process count or the backend.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from vcot.build import TaskPlan, task_manifest_entry
from vcot.tasks import get_task_class
from vcot.version import __version__

FORMATS = ("folder", "parquet", "webdataset")
BACKENDS = ("local", "ray")
MAX_SHARDS = 100_000  # five-digit shard numbers in the file names


class ShardError(ValueError):
    """A shard set cannot be written or resumed; the message says why and what to do."""


@dataclass(frozen=True)
class ShardJob:
    """Everything one worker needs to write shard `index` (picklable: sent to processes and Ray tasks)."""

    out: str  # folder path or URI of the shard set, resolved by the driver
    name: str
    plans: tuple[TaskPlan, ...]
    shards: int
    index: int
    fmt: str
    rows_per_group: int = 256

    @property
    def stem(self) -> str:
        return shard_stem(self.index)


def shard_stem(index: int) -> str:
    return f"shard-{index:05d}"


def shard_file(index: int, fmt: str) -> str:
    """The shard's name inside the shard set: a file (Parquet, tar) or a suite folder."""
    return shard_stem(index) + {"folder": "", "parquet": ".parquet", "webdataset": ".tar"}[fmt]


def check_layout(plans: list[TaskPlan], shards: int, fmt: str) -> None:
    if fmt not in FORMATS:
        raise ShardError(f"unknown shard format {fmt!r}; choose {', '.join(FORMATS)}")
    if not 1 <= shards <= MAX_SHARDS:
        raise ShardError(f"--shards must be between 1 and {MAX_SHARDS}, got {shards}")
    if len({p.task for p in plans}) != len(plans):
        raise ShardError("each task may appear only once in a plan")
    problems = sum(_problems(p) for p in plans)
    if shards > problems:
        raise ShardError(f"{shards} shards for {problems} problems: some shards would be empty; use at most {problems}")


def _problems(plan: TaskPlan) -> int:
    rows = get_task_class(plan.task).rows_per_problem
    return -(-plan.n // rows)


def shard_indices(
    plans: tuple[TaskPlan, ...] | list[TaskPlan], shards: int, index: int
) -> Iterator[tuple[TaskPlan, int]]:
    """(plan, instance index) of every instance of shard `index`, in the order it is written."""
    offset = 0  # problems of the plans before this one
    for plan in plans:
        rows = get_task_class(plan.task).rows_per_problem
        problems = -(-plan.n // rows)
        for problem in range((index - offset) % shards, problems, shards):
            for i in range(problem * rows, min(plan.n, (problem + 1) * rows)):
                yield plan, i
        offset += problems


def plan_record(name: str, plans: list[TaskPlan], shards: int, fmt: str) -> dict[str, Any]:
    """What fixes a shard set's content: resuming is allowed only into a folder with the same record."""
    return {
        "name": name,
        "shards": shards,
        "format": fmt,
        "vcot_version": __version__,
        "order": [p.task for p in plans],
        "tasks": {p.task: task_manifest_entry(p) for p in plans},
    }


def fingerprint(record: dict[str, Any]) -> str:
    text = json.dumps(record, sort_keys=True, separators=(",", ":"), default=str)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()
