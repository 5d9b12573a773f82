"""Which participant answers which problem under which condition, and in what order: seeded and balanced.

Pure functions over names; `vcot.human.study` feeds them the suite's problems and stores the result, so a
study's assignment never changes once participants have started.

The design (docs/human.md, "Assignment"): the sampled problems are put in one order that alternates tasks;
`k` rounds of `C` passes over that order make the job list, pass `c` giving the problem at position `i` the
condition `(i + c) mod C`, so every (problem, condition) appears exactly `k` times. The job list is cut into
one contiguous block per participant, the blocks differing in length by at most one. Every block is at most
as long as the order (because `k × C ≤ participants`), and a window of the repeated order no longer than the
order holds each problem at most once: no participant sees a problem twice. Within a block tasks and
conditions alternate, so each participant gets a mix of both. Each block is then shuffled with the
participant's own seed.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from vcot.seeding import derive_seed


class AssignmentError(ValueError):
    """The requested design cannot be built (e.g. more answers per problem than participants allow)."""


@dataclass(frozen=True, slots=True)
class Job:
    """One item of a participant's list: a row (`uid`) of a problem, shown under `condition`."""

    participant: str
    position: int  # 1-based, in the participant's order
    uid: str
    condition: str


def sample_problems(by_task: Mapping[str, Sequence[str]], n: int | None, seed: int) -> list[str]:
    """Up to `n` problems (all when None), as evenly spread over tasks as the tasks allow, in an order that
    alternates tasks. Problems of a task are shuffled with the seed first, so the sample is a random one."""
    rng = random.Random(derive_seed("vcot-human-sample", seed))
    pools = {task: list(problems) for task, problems in sorted(by_task.items())}
    for pool in pools.values():
        rng.shuffle(pool)
    order: list[str] = []
    while any(pools.values()):
        for task in sorted(pools):
            if pools[task]:
                order.append(pools[task].pop(0))
    return order if n is None else order[:n]


def assign(
    problems: Sequence[str],
    rows: Mapping[str, Sequence[str]],
    conditions: Sequence[str],
    k: int,
    participants: Sequence[str],
    seed: int,
) -> list[Job]:
    """Every participant's list of jobs (see the module docstring).

    `problems` in their interleaved order; `rows[problem]` the uids of a problem (two for a paired
    gear_rotation problem, else one), which stay next to each other in the participant's order.
    """
    if k < 1:
        raise AssignmentError("k (answers per problem and condition) must be at least 1")
    if not conditions or len(set(conditions)) != len(conditions):
        raise AssignmentError("give at least one condition, each once")
    if not problems or len(set(problems)) != len(problems):
        raise AssignmentError("give at least one problem, each once")
    if len(set(participants)) != len(participants):
        raise AssignmentError("participant ids must be distinct")
    n_cond = len(conditions)
    if k * n_cond > len(participants):
        raise AssignmentError(
            f"{k} answers per problem × {n_cond} condition(s) = {k * n_cond} answers per problem need at least "
            f"that many participants (got {len(participants)}): nobody may see a problem twice. Lower k, "
            "drop a condition or add participants"
        )
    jobs = [
        (problem, conditions[(i + c) % n_cond])
        for _ in range(k)
        for c in range(n_cond)
        for i, problem in enumerate(problems)
    ]
    n_part = len(participants)
    base, extra = divmod(len(jobs), n_part)
    out: list[Job] = []
    start = 0
    for p, pid in enumerate(participants):
        block = jobs[start : start + base + (1 if p < extra else 0)]
        start += len(block)
        random.Random(derive_seed("vcot-human-order", seed, pid)).shuffle(block)
        position = 0
        for problem, condition in block:
            for uid in rows[problem]:
                position += 1
                out.append(Job(pid, position, uid, condition))
    return out
