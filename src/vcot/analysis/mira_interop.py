"""Score result files of the official MIRA scripts (eval_api.py / acc.py) with our grader, side by side with
MIRA's own rule.

MIRA's files are `<model_alias>_<task>.jsonl`, one line per call: uid, scenario (direct_answer | text_cot |
visual_cot), model_alias, response, original_data (the dataset item: uid, question, answer, image_path).
MIRA's rule (acc.py): the *first* `<answer>…</answer>` match, stripped and lowercased, must equal the
lowercased gold; rows with an empty response or no gold are dropped from the denominator; gear_rotation
uids n.1 / n.2 count as one problem, right only if both are.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from vcot.analysis.tables import Table, group
from vcot.analysis.units import PAIRED_TASKS, pair_key
from vcot.jsonl import iter_jsonl
from vcot.schema import AnswerType
from vcot.scoring.extract import clean_answer
from vcot.scoring.grade import parse_choice, parse_coordinates, parse_direction, parse_number, parse_time
from vcot.scoring.judge import Judge
from vcot.scoring.score import score_fields
from vcot.tasks.catalog import MIRA_TASKS

SCENARIOS = {"direct_answer": "direct", "text_cot": "text_cot", "visual_cot": "visual_cot"}
_MIRA_TAG = re.compile(r"<answer>(.*?)</answer>", re.S)


def mira_extract(response: str) -> str | None:
    """MIRA's extraction, verbatim in behaviour: first tag pair, case-sensitive, stripped."""
    m = _MIRA_TAG.search(response or "")
    return m.group(1).strip() if m else None


def mira_exact_match(response: str, gold: Any) -> bool:
    pred = mira_extract(response)
    return pred is not None and pred.strip().lower() == str(gold).strip().lower()


def _gold_type(task: str, gold: str) -> tuple[str, AnswerType]:
    """Domain and answer type from our catalog, demoted to text when the gold does not read as that type
    (imported items sometimes spell choices out)."""
    domain, at = MIRA_TASKS.get(task, ("?", AnswerType.TEXT))
    checks = {
        AnswerType.INTEGER: lambda g: parse_number(g, integer=True).ok,
        AnswerType.CHOICE: lambda g: parse_choice(g).ok and len(g.strip("() .")) == 1,
        AnswerType.TIME: lambda g: parse_time(g).ok,
        AnswerType.COORDINATES: lambda g: parse_coordinates(g).ok,
        AnswerType.DIRECTION: lambda g: parse_direction(g).ok,
    }
    ok = checks.get(at)
    if ok is not None and not ok(gold):
        return domain, AnswerType.TEXT
    if task not in MIRA_TASKS and parse_number(gold, integer=True).ok:
        return domain, AnswerType.INTEGER
    return domain, at


def read_mira_results(paths: Iterable[str | Path]) -> list[dict[str, Any]]:
    """Rows in our results-table shape (plus `question` and `mira_skip`) from MIRA result files or folders."""
    files: list[Path] = []
    for p in map(Path, paths):
        files += sorted(p.glob("*.jsonl")) if p.is_dir() else [p]
    rows = []
    for f in files:
        alias, _, task = f.stem.partition("_")  # MIRA's own split: the alias ends at the first underscore
        task = task or "unknown_task"
        for _lineno, _where, data in iter_jsonl(f):
            orig = data.get("original_data") or {}
            gold = orig.get("answer")
            response = data.get("response") or ""
            uid = data.get("uid", orig.get("uid"))
            gold_s = "" if gold is None else str(gold)
            domain, at = _gold_type(task, gold_s)
            rows.append({
                "run_id": f"mira:{f.parent.name}", "model": str(data.get("model_alias") or alias),
                "condition": SCENARIOS.get(str(data.get("scenario")), str(data.get("scenario"))),
                "uid": str(uid), "task": task, "domain": domain, "answer_type": at.value, "gold": gold_s,
                "options": None, "epoch": 0, "response": response, "question": str(orig.get("question", "")),
                "error": None,
                # acc.py drops these rows entirely instead of counting them wrong.
                "mira_skip": gold is None or not response,
            })
    return rows


def score_mira_rows(rows: list[dict[str, Any]], judge: Judge | None = None) -> list[dict[str, Any]]:
    out = []
    for r in rows:
        s = score_fields(r["response"], r["gold"], r["answer_type"], None, r.get("question", ""), judge)
        new = dict(r, extracted=s.extracted, tier=s.tier, correct=s.correct, score_reason=s.reason)
        new["mira_em"] = None if r["mira_skip"] else mira_exact_match(r["response"], r["gold"])
        new["difference"] = difference_class(new) if new["mira_em"] is not None and new["mira_em"] != s.correct else ""
        out.append(new)
    return out


def difference_class(row: dict[str, Any]) -> str:
    """Why our verdict differs from MIRA's exact match (the classes docs/scoring.md documents)."""
    if row.get("tier") == "judge":
        return "judge"
    first = mira_extract(row["response"])
    if first is None:
        return "untagged answer"
    if row.get("extracted") is None or clean_answer(first) != row["extracted"]:
        return "tag choice"
    return "type-aware normalization"


@dataclass
class MiraComparison:
    rows: list[dict[str, Any]]
    table: Table
    differences: Table


def _problem_accuracy(rows: list[dict[str, Any]], key: str) -> tuple[int, int]:
    """(right, total) problems, gear pairs collapsed; rows MIRA skips are left out for both rules, so the
    two accuracies share one denominator."""
    kept = [r for r in rows if not r["mira_skip"]]
    problems = group(kept, lambda r: pair_key(r) if r["task"] in PAIRED_TASKS else r["uid"])
    right = sum(all(bool(r[key]) for r in rs) for rs in problems.values())
    return right, len(problems)


def compare_with_mira(paths: Iterable[str | Path], judge: Judge | None = None) -> MiraComparison:
    rows = score_mira_rows(read_mira_results(paths), judge)
    t = Table("MIRA result files: vcot grading vs MIRA exact match",
              ["model", "task", "condition", "problems", "vcot %", "MIRA EM %", "vcot only", "MIRA only"],
              note="Problems exclude rows MIRA's acc.py drops (empty response, no gold). 'vcot only': rows right "
                   "under vcot's grading and wrong under exact match; 'MIRA only': the reverse.")
    for (model, task, cond), rs in sorted(group(rows, lambda r: (r["model"], r["task"], r["condition"])).items()):
        ours, n = _problem_accuracy(rs, "correct")
        em, _ = _problem_accuracy(rs, "mira_em")
        kept = [r for r in rs if not r["mira_skip"]]
        t.rows.append([model, task, cond, n, f"{100 * ours / n:.1f}" if n else "—", f"{100 * em / n:.1f}" if n else "—",
                       sum(bool(r["correct"]) and not r["mira_em"] for r in kept),
                       sum(bool(r["mira_em"]) and not r["correct"] for r in kept)])
    d = Table("Where vcot and MIRA exact match disagree", ["class", "vcot right", "MIRA right", "example uid"])
    for cls, rs in sorted(group([r for r in rows if r["difference"]], lambda r: r["difference"]).items()):
        d.rows.append([cls, sum(bool(r["correct"]) for r in rs), sum(bool(r["mira_em"]) for r in rs),
                       f"{rs[0]['task']}:{rs[0]['uid']}"])
    return MiraComparison(rows, t, d)
