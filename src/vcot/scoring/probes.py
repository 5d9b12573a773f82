"""Per-step grading of `state_probe` replies: extract each `<stepK>` answer and grade it with the rule-based
grader against the probe's exact answer (no judge; docs/evaluation.md, "State probes").

The probes of a row come from its episode record (the `episode` column of results.parquet), so a results
table alone is enough: no suite needed.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from typing import Any

from vcot.scoring.grade import grade

# A tag is `<step\s*(\d+)\s*>(.*?)</step\s*\1\s*>` (re.S | re.I) as finditer reads it, but paired from
# the tag positions (step_answers): the lazy regex retries the rest of the reply from every opening tag that
# never closes, and replies are untrusted, so 10^5 unclosed `<step1>` tags would take minutes.
_STEP_OPEN = re.compile(r"<step\s*(\d+)\s*>", re.I)
_STEP_CLOSE = re.compile(r"</step\s*(\d+)\s*>", re.I)

PROBE_COLUMNS = ("probe_n", "probe_correct", "probe_n_correct", "first_wrong_step")


def step_answers(response: str | None) -> dict[int, str]:
    """The text inside each `<stepK>` tag; when a tag repeats, the last one counts (the model's final word)."""
    text = response or ""
    out: dict[int, str] = {}
    if "<" not in text:
        return out
    # Closing tags by their digits as written: the backreference needs "</step01>" for "<step01>".
    closes: dict[str, list[tuple[int, int]]] = {}
    for m in _STEP_CLOSE.finditer(text):
        closes.setdefault(m.group(1), []).append(m.span())
    starts = {k: [a for a, _ in v] for k, v in closes.items()}
    pos = 0
    for m in _STEP_OPEN.finditer(text):
        if m.start() < pos:
            continue  # inside the tag paired before, as finditer resumes after a match
        digits = m.group(1)
        spans = closes.get(digits)
        if not spans:
            continue
        i = bisect_left(starts[digits], m.end())
        if i < len(spans):
            out[int(digits)] = text[m.end() : spans[i][0]].strip()
            pos = spans[i][1]
    return out


def grade_steps(response: str | None, probes: list[dict[str, Any]]) -> list[bool]:
    """Correctness of every probe, in step order; a missing tag is wrong."""
    answers = step_answers(response)
    return [
        grade(answers.get(int(p["step"])), str(p["answer"]), str(p["answer_type"]), p.get("options")) for p in probes
    ]


def row_probes(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The probes recorded in a results row's episode record ([] when the row is no state_probe sample)."""
    rec = row.get("episode")
    if isinstance(rec, str) and rec.strip():
        try:
            rec = json.loads(rec)
        except ValueError:
            return []
    probes = rec.get("probes") if isinstance(rec, dict) else None
    return list(probes) if isinstance(probes, list) else []


def first_wrong(correct: list[bool]) -> int | None:
    """1-based index of the first wrong step, None when every step is right."""
    return next((k for k, ok in enumerate(correct, start=1) if not ok), None)


def probe_fields(row: dict[str, Any]) -> dict[str, Any]:
    """The per-step columns of one row (all None for a row without probes); an engine error makes every step
    wrong."""
    probes = row_probes(row)
    if not probes:
        return dict.fromkeys(PROBE_COLUMNS)
    correct = [False] * len(probes) if row.get("error") else grade_steps(row.get("response"), probes)
    return {
        "probe_n": len(probes),
        "probe_correct": json.dumps(correct),
        "probe_n_correct": sum(correct),
        "first_wrong_step": first_wrong(correct),
    }


def add_probe_columns(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """New row dicts with the per-step columns: probe_n, probe_correct (JSON list of booleans, step order),
    probe_n_correct and first_wrong_step (None when every step is right)."""
    return [{**row, **probe_fields(row)} for row in rows]
