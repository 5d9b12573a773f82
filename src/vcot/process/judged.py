"""A judge run's replies read back as verdicts on their labelled trajectories (issue 46; docs/process.md,
"Running a judge"): what `vcot judge-process run` prints and the report's step-judging tables show.

Each results row of a judging condition carries its trajectory's exact labels in its episode record
(`vcot.conditions.process_judge`), so no suite is needed to score it. The named step is the reply's answer, as
the grader reads it (`vcot.scoring.extract`): the `correct` column and the localisation figure are one
accounting. `judge_steps` replies add a verdict per `<stepK>` tag. A reply that names no step (no answer, an
engine error, a truncated reply, a number that is no step) is a verdict that is not given: wrong, and counted.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from vcot.conditions.process_judge import row_judge_record
from vcot.process.judging import JudgeScores, Verdict, baselines, score

_STEP_TAG = re.compile(r"<step(\d{1,3})>\s*(correct|incorrect)\s*</step\1>", re.I)
# A reply longer than this is read only this far (model output is untrusted).
MAX_REPLY_CHARS = 200_000


@dataclass(frozen=True)
class JudgedItem:
    """A labelled trajectory as a results row records it."""

    uid: str
    task: str
    kind: str
    labels: list[str]

    @property
    def first_error(self) -> int | None:
        return next((k for k, lab in enumerate(self.labels, start=1) if lab == "incorrect"), None)


def judged_item(row: dict[str, Any]) -> JudgedItem | None:
    """The labelled trajectory a results row judged (None for a row of another condition)."""
    rec = row_judge_record(row)
    if rec is None:
        return None
    return JudgedItem(
        str(row.get("uid")),
        str(rec.get("task") or row.get("task")),
        str(rec.get("kind")),
        [str(x) for x in rec["labels"]],
    )


def read_verdict(response: str | None, n_steps: int, *, error: bool = False, truncated: bool = False) -> Verdict:
    """The verdict a reply states (module docstring)."""
    from vcot.scoring.extract import extract_detail
    from vcot.scoring.grade import parse_number

    if error or not response or not str(response).strip():
        return Verdict(None, given=False)
    text = str(response)[:MAX_REPLY_CHARS]
    steps: list[str | None] = [None] * n_steps
    for m in _STEP_TAG.finditer(text):
        k = int(m.group(1))
        if 1 <= k <= n_steps and steps[k - 1] is None:
            steps[k - 1] = m.group(2).lower()
    tags = tuple(steps) if any(s is not None for s in steps) else None
    found = extract_detail(text, truncated).text
    # The grader's own reading of an integer answer, so that the `correct` column and localisation agree.
    parsed = parse_number(found, integer=True) if found else None
    value = parsed.value if parsed is not None and parsed.ok else None
    value = value[1] if isinstance(value, tuple) else value
    if value is None or value.denominator != 1 or not 0 <= value <= n_steps:
        return Verdict(None, tags, given=False)
    return Verdict(int(value) or None, tags, stated=True)


def row_verdict(row: dict[str, Any], item: JudgedItem) -> Verdict:
    from vcot.scoring.score import row_truncated

    return read_verdict(
        row.get("response"), len(item.labels), error=bool(row.get("error")), truncated=row_truncated(row)
    )


@dataclass
class JudgeRun:
    """One judge (a model under one judging condition) on its labelled set."""

    model: str
    condition: str
    items: list[JudgedItem]
    verdicts: list[Verdict]
    errors: int

    @property
    def scores(self) -> JudgeScores:
        return score(self.items, self.verdicts)

    @property
    def disagreements(self) -> int:
        """Replies whose step tags name another first wrong step than their answer (localisation reads the
        answer): a judge that contradicts itself."""
        n = 0
        for v in self.verdicts:
            if v.given and v.steps is not None:
                tagged = next((k for k, s in enumerate(v.steps, start=1) if s == "incorrect"), None)
                n += tagged != v.first_error
        return n


def judge_runs(rows: Iterable[dict[str, Any]]) -> list[JudgeRun]:
    """The judging rows grouped by (model, condition), in the order met; each (uid, epoch) is one judgement.
    Raises ValueError when a (uid, epoch) comes twice under one model and condition (two runs of one model
    identity, which `vcot report` refuses too: they would count one trajectory twice)."""
    runs: dict[tuple[str, str], JudgeRun] = {}
    seen: set[tuple[str, str, str, Any]] = set()
    for row in rows:
        item = judged_item(row)
        if item is None:
            continue
        key = (str(row.get("model")), str(row.get("condition")))
        once = (*key, item.uid, row.get("epoch"))
        if once in seen:
            raise ValueError(
                f"model {key[0]!r} judged {item.uid} under {key[1]} twice in epoch {row.get('epoch')}: give each run "
                "once, and runs of different servers or settings distinct --model names"
            )
        seen.add(once)
        run = runs.setdefault(key, JudgeRun(*key, [], [], 0))
        run.items.append(item)
        run.verdicts.append(row_verdict(row, item))
        run.errors += bool(row.get("error"))
    return list(runs.values())


def baseline_scores(runs: Sequence[JudgeRun], seed: int = 0) -> dict[str, JudgeScores]:
    """The judge-free baselines on the trajectories the runs judged (each once)."""
    seen: dict[str, JudgedItem] = {}
    for run in runs:
        for item in run.items:
            seen.setdefault(item.uid, item)
    return baselines(list(seen.values()), seed) if seen else {}
