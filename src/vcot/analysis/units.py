"""Scored rows -> scoring units: one sample per (run, model, condition, problem, epoch).

A problem is usually one row. MIRA's gear_rotation problems are two rows (uids n.1 / n.2) and count as
right only when both are right; the same holds for any rows sharing a `pair_id` column value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Hashable, Iterable
from dataclasses import dataclass
from typing import Any

from vcot.schema import AnswerType, Instance

PAIRED_TASKS = frozenset({"gear_rotation"})
# Finish reasons meaning "cut off by the output-token limit" (OpenAI-compatible, Anthropic, Gemini).
TRUNCATION_REASONS = frozenset({"length", "max_tokens", "MAX_TOKENS"})


def outcome(row: dict[str, Any]) -> str:
    """How the engine ended a row: "error" (given up, rejected, broken prompt), "timeout", "truncated"
    (cut off by the token limit) or "answered". Errors and timeouts count as wrong; a truncated response is
    graded only from a complete answer tag (`vcot.scoring`)."""
    err = row.get("error")
    if err:
        return "timeout" if str(err).startswith("timeout") else "error"
    if row.get("finish_reason") in TRUNCATION_REASONS:
        return "truncated"
    return "answered"


_SUB_UID = re.compile(r"^(?P<base>.+)\.(?P<sub>\d+)$")


def pair_key(row: dict[str, Any], instance: Instance | None = None) -> str:
    """The problem a row belongs to: its `pair_id` column or the instance's `meta["pair_id"]` if set, `n` for
    uid `n.1`/`n.2` in paired tasks, else the uid itself."""
    pid = row.get("pair_id")
    if pid in (None, "") and instance is not None:
        pid = instance.meta.get("pair_id")
    if pid not in (None, ""):
        return f"{row.get('task', '')}:{pid}"
    uid = str(row["uid"])
    if row.get("task") in PAIRED_TASKS:
        m = _SUB_UID.match(uid)
        if m:
            return f"{row.get('task')}:{m.group('base')}"
    return uid


# How a header names a paired task's rows: "paired gear rows count once".
PAIR_LABELS = {"gear_rotation": "gear"}


def count_phrase(instances: Iterable[Instance]) -> str:
    """What a suite or a run asks in problems, the unit every table counts: "66 problems (69 instances; paired
    gear rows count once)", or "69 instances" when each problem is one instance."""
    instances = list(instances)
    units = {pair_key({"uid": i.uid, "task": i.task}, i) for i in instances}
    if len(units) == len(instances):
        return f"{len(instances)} instances"
    paired = sorted({i.task for i in instances if pair_key({"uid": i.uid, "task": i.task}, i) != i.uid})
    names = " and ".join(PAIR_LABELS.get(t, t) for t in paired)
    return f"{len(units)} problems ({len(instances)} instances; paired {names} rows count once)"


@dataclass(slots=True)
class Sample:
    run_id: str
    model: str
    condition: str
    task: str
    domain: str
    unit: str
    epoch: int
    correct: bool
    vote: Hashable | None  # the canonical answer (tuple of them for paired problems)
    chance: float
    n_rows: int = 1
    tiers: tuple[str, ...] = ()
    errors: int = 0  # member rows the engine could not complete (counted wrong), timeouts excluded
    timeouts: int = 0  # member rows that timed out on every attempt (counted wrong)
    truncated: int = 0  # member rows cut off by the token limit (graded from a complete answer tag only)


def chance_of(row: dict[str, Any], instance: Instance | None = None) -> float:
    """Chance level of one row: the engine's chance baseline on the instance (built from the row's columns
    when no suite is given); falls back to 1/options for choice, and is NaN (shown as "—", never as 0) when
    the answer space is unknown, e.g. a task whose space lives in the scene, reported without its suite."""
    from vcot.engine.chance import NoAnswerSpace, answer_space
    from vcot.scoring.score import parse_options

    opts = parse_options(row.get("options"))
    judged = _judged_steps(row) if instance is None else None
    if judged is not None:
        return 1.0 / (judged + 1)  # a step judge's answer: one of the steps, or none (vcot.process)
    if instance is None:
        try:
            instance = Instance(
                uid=str(row["uid"]),
                task=str(row.get("task") or "unknown"),
                domain=str(row.get("domain") or "?"),
                question="?",
                image="unknown.png",
                answer=str(row["gold"]),
                answer_type=AnswerType(str(row["answer_type"])),
                options=opts,
            )
        except (ValueError, KeyError):
            instance = None
    if instance is not None:
        try:
            return 1.0 / answer_space(instance).size
        except (NoAnswerSpace, ValueError, NotImplementedError):
            pass
    return 1.0 / len(opts) if opts else math.nan


def _judged_steps(row: dict[str, Any]) -> int | None:
    """The step count of a step-judging row (its episode record's labels), None for any other row."""
    from vcot.conditions.process_judge import row_judge_record

    rec = row_judge_record(row)
    return len(rec["labels"]) if rec is not None else None


def to_samples(rows: Iterable[dict[str, Any]], instances: dict[str, Instance] | None = None) -> list[Sample]:
    """Collapse scored rows into per-problem samples, in first-appearance order."""
    # Here, not at the top: `vcot eval` imports this module for `count_phrase` before its first request.
    from vcot.scoring.grade import canonical
    from vcot.scoring.score import parse_options

    instances = instances or {}
    chance_cache: dict[tuple, float] = {}
    # Parsing each answer into its vote was most of this function's time on large runs; the same (answer,
    # question) pairs recur across epochs and models, so each is parsed once.
    vote_cache: dict[tuple, Hashable | None] = {}
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for row in rows:
        key = (
            str(row.get("run_id", "")),
            str(row["model"]),
            str(row["condition"]),
            pair_key(row, instances.get(str(row["uid"]))),
            int(row.get("epoch") or 0),
        )
        groups.setdefault(key, []).append(row)
    out = []
    for (run_id, model, condition, unit, epoch), members in groups.items():
        members.sort(key=lambda r: str(r["uid"]))
        votes = []
        chance = 1.0
        for r in members:
            opts = parse_options(r.get("options"))
            vk = (r.get("extracted"), str(r["answer_type"]), tuple(opts) if opts else None, str(r["gold"]))
            if vk not in vote_cache:
                vote_cache[vk] = canonical(r.get("extracted"), r["answer_type"], opts, str(r["gold"]))
            votes.append(vote_cache[vk])
            ck = (str(r.get("task")), str(r["uid"]), str(r["gold"]))
            if ck not in chance_cache:
                chance_cache[ck] = chance_of(r, instances.get(str(r["uid"])))
            chance *= chance_cache[ck]
        vote: Hashable | None
        if len(members) == 1:
            vote = votes[0]
        else:
            vote = None if any(v is None for v in votes) else tuple(votes)
        first = members[0]
        out.append(
            Sample(
                run_id,
                model,
                condition,
                str(first.get("task", "")),
                str(first.get("domain", "")),
                unit,
                epoch,
                all(bool(r.get("correct")) for r in members),
                vote,
                chance,
                len(members),
                tuple(str(r.get("tier", "none")) for r in members),
                *(sum(1 for r in members if outcome(r) == k) for k in ("error", "timeout", "truncated")),
            )
        )
    return out
