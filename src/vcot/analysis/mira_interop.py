"""Score result files of the official MIRA scripts (eval_api.py / acc.py) with our grader, side by side with
acc.py's own numbers.

MIRA's files are `<model_alias>_<task>.jsonl`, one line per call: uid, scenario (direct_answer | text_cot |
visual_cot), model_alias, response, original_data (the dataset item: uid, question, answer — or answer1 /
answer2 for rolling_dice_two —, image_path). acc.py's rules live in `vcot.analysis.mira_acc`; docs/scoring.md
("Official MIRA result files") describes them and where vcot's grading differs.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcot.analysis.mira_acc import (
    DICE_TWO,
    EMPTY,
    UNKNOWN_SCENARIO,
    acc_counts,
    acc_row,
    exact_match,
    first_tag,
    split_result_name,
)
from vcot.analysis.tables import Table, group
from vcot.analysis.units import PAIRED_TASKS, pair_key
from vcot.schema import AnswerType
from vcot.scoring.extract import clean_answer
from vcot.scoring.grade import parse_choice, parse_coordinates, parse_direction, parse_number, parse_time
from vcot.scoring.judge import Judge
from vcot.scoring.score import missing_to_none, score_fields
from vcot.tasks.catalog import MIRA_TASKS

SCENARIOS = {"direct_answer": "direct", "text_cot": "text_cot", "visual_cot": "visual_cot"}
TABLE_TITLE = "MIRA result files: vcot grading vs MIRA exact match (acc.py)"
# Every row has exactly these keys, so the rows convert to one Arrow table (pyarrow infers the schema from
# the first row) and round-trip through pandas.
ROW_KEYS = (
    "run_id",
    "model",
    "condition",
    "uid",
    "task",
    "domain",
    "answer_type",
    "gold",
    "options",
    "epoch",
    "response",
    "question",
    "error",
    "pair_id",
    "scenario",
    "source",
    "mira_uid",
    "mira_model",
    "mira_task",
    "mira_em",
    "mira_drop",
)


def mira_extract(response: str) -> str | None:
    """acc.py's extraction: first tag pair, case-sensitive, stripped."""
    return first_tag(response or "")


def mira_exact_match(response: str, gold: Any) -> bool:
    """acc.py's rule for every task but rolling_dice_two (see `mira_acc.dice_two_match` for that one)."""
    return exact_match(response or "", gold)


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


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _vcot_gold(task: str, original: dict[str, Any]) -> str | None:
    """The gold our grader compares with; None when the item has none. rolling_dice_two items carry the
    colour and the sum as answer1 / answer2 (upstream leaves `answer` empty), which our `pair` type reads
    as one "colour, sum" answer."""
    if task == DICE_TWO and original.get("answer1") is not None and original.get("answer2") is not None:
        return f"{_text(original['answer1']).strip()}, {_text(original['answer2']).strip()}"
    answer = original.get("answer")
    return None if answer is None else _text(answer)


@dataclass
class MiraFiles:
    rows: list[dict[str, Any]]
    unreadable: dict[str, int] = field(default_factory=dict)  # file -> lines that are not JSON objects


def _result_files(paths: Iterable[str | Path] | str | Path) -> list[Path]:
    if isinstance(paths, str | Path):
        paths = [paths]
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.glob("*.jsonl") if f.is_file())
            if not found:
                raise FileNotFoundError(f"{p}: no .jsonl result files found")
            files += found
        elif p.is_file():
            files.append(p)
        else:
            raise FileNotFoundError(f"{p}: not found")
    unique: dict[Path, Path] = {}
    for f in files:
        unique.setdefault(f.resolve(), f)
    return list(unique.values())


def _run_ids(files: list[Path]) -> dict[Path, str]:
    """One run per folder, named by the folder; folders sharing a name are told apart by their path, so
    acc.py's per-folder counts are never merged across runs."""
    parents = {f.parent.resolve() for f in files}
    names = Counter(p.name for p in parents)
    out = {}
    for f in files:
        parent = f.parent.resolve()
        out[f] = f"mira:{parent.name if names[parent.name] == 1 else parent}"
    return out


_UNREADABLE = object()


def _json_lines(path: Path) -> Iterator[tuple[int, Any]]:
    """Parsed lines as acc.py reads them: text mode (universal newlines), UTF-8, one json.loads per line;
    a line that does not parse is skipped there, so it yields the `_UNREADABLE` marker here."""
    try:
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                try:
                    value = json.loads(line)
                except (ValueError, RecursionError):
                    value = _UNREADABLE
                yield lineno, value
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def load_mira_results(paths: Iterable[str | Path] | str | Path) -> MiraFiles:
    """Rows in our results-table shape (plus the `mira_*` columns acc.py's numbers need) from MIRA result
    files or folders of them."""
    files = _result_files(paths)
    run_ids = _run_ids(files)
    out = MiraFiles([])
    epochs: Counter[tuple] = Counter()
    for f in files:
        model, task = split_result_name(f.stem)
        acc_model, acc_task = split_result_name(f.stem, as_acc_py=True)
        for lineno, data in _json_lines(f):
            if not isinstance(data, dict):
                out.unreadable[str(f)] = out.unreadable.get(str(f), 0) + 1
                continue
            acc = acc_row(acc_task, data)
            raw_original = data.get("original_data", {})
            original = raw_original if isinstance(raw_original, dict) else {}
            scenario = _text(data.get("scenario", UNKNOWN_SCENARIO))
            raw_uid = original.get("uid", data.get("uid"))
            uid = None if raw_uid is None else str(raw_uid)
            # Problems are keyed by (task, MIRA uid): MIRA numbers each task from 1, so a bare uid names up
            # to 20 different problems. gear_rotation's n.1 / n.2 share the problem n, as in acc.py.
            if uid is None:
                problem = f"{f.name}:{lineno}"
            elif task in PAIRED_TASKS and "." in uid:
                problem = uid.partition(".")[0]
            else:
                problem = uid
            vcot_uid = original.get("vcot_uid")
            row_uid = vcot_uid if isinstance(vcot_uid, str) and vcot_uid else f"mira-{task}-{uid or problem}"
            # A result file appended to twice (eval_api.py appends) holds repeated calls: epochs to us,
            # extra rows to acc.py.
            epoch_key = (str(f), scenario, row_uid)
            epoch = epochs[epoch_key]
            epochs[epoch_key] += 1
            gold = _vcot_gold(task, original)
            domain, at = _gold_type(task, gold or "")
            response = data.get("response")
            row = {
                "run_id": run_ids[f],
                "model": model,
                "condition": SCENARIOS.get(scenario, scenario),
                "uid": row_uid,
                "task": task,
                "domain": domain,
                "answer_type": at.value,
                "gold": gold,
                "options": None,
                "epoch": epoch,
                "response": "" if response is None else _text(response),
                "question": _text(original.get("question") or ""),
                "error": None,
                "pair_id": problem,
                "scenario": scenario,
                "source": f"{f}:{lineno}",
                "mira_uid": acc.uid,
                "mira_model": acc_model,
                "mira_task": acc_task,
                "mira_em": acc.correct,
                "mira_drop": acc.dropped,
            }
            out.rows.append(row)
    return out


def read_mira_results(paths: Iterable[str | Path] | str | Path) -> list[dict[str, Any]]:
    """Rows (see `load_mira_results`) from MIRA result files or folders of them."""
    return load_mira_results(paths).rows


def as_records(table: Any) -> list[dict[str, Any]]:
    """Rows of a list of dicts, a pyarrow Table or a pandas DataFrame, missing cells as None.

    pandas marks a missing cell of a text column with NaN (its default string dtype from pandas 3, and every
    Arrow→pandas conversion), and NaN is truthy: kept, it would read as an error, a response or a gold.
    """
    if isinstance(table, list):
        return [dict(r) for r in table]
    if hasattr(table, "to_pylist"):
        return table.to_pylist()
    if hasattr(table, "to_dict"):
        return [{k: missing_to_none(v) for k, v in r.items()} for r in table.to_dict("records")]
    raise TypeError(f"cannot read rows from a {type(table).__name__}; pass rows, a pyarrow Table or a DataFrame")


def score_mira_rows(rows: Any, judge: Judge | None = None) -> list[dict[str, Any]]:
    """Our verdict beside acc.py's for each row (a list of rows, a pyarrow Table or a pandas DataFrame)."""
    out = []
    for r in as_records(rows):
        if r["gold"] is None:
            extracted, tier, correct, reason, judge_model = None, "none", False, "no gold in the result file", None
        else:
            s = score_fields(r["response"], r["gold"], r["answer_type"], None, r.get("question") or "", judge)
            extracted, tier, correct, reason, judge_model = s.extracted, s.tier, s.correct, s.reason, s.judge_model
        new = dict(r, extracted=extracted, tier=tier, correct=correct, score_reason=reason, judge_model=judge_model)
        em = r["mira_em"]
        new["difference"] = difference_class(new) if em is not None and bool(em) != correct else ""
        out.append(new)
    return out


def difference_class(row: dict[str, Any]) -> str:
    """Why our verdict differs from acc.py's (the classes docs/scoring.md documents)."""
    if row.get("tier") == "judge":
        return "judge"
    first = mira_extract(row["response"])
    if first is None:
        return "untagged answer"
    if row.get("extracted") is None or clean_answer(first) != row["extracted"]:
        return "tag choice"
    if DICE_TWO in str(row.get("mira_task", "")):
        return "rolling_dice_two rule"
    return "type-aware normalization"


@dataclass
class MiraComparison:
    rows: list[dict[str, Any]]  # scored rows with a gold: what the report analyses
    table: Table
    differences: Table
    counts: dict[tuple[str, str, str, str], tuple[int, int]] = field(default_factory=dict)
    """(run_id, model, task, condition) -> acc.py's (correct, total)."""


def _acc_cell(rows: list[dict[str, Any]]) -> tuple[int, int]:
    """acc.py's (correct, total) over rows of one table cell: summed over acc.py's own cells (its file-name
    reading and raw scenario) so the sum is what acc.py prints even where its labels differ from ours."""
    right = total = 0
    cells = group(
        [r for r in rows if r["mira_em"] is not None], lambda r: (r["mira_model"], r["mira_task"], r["scenario"])
    )
    for (_, task, _), rs in cells.items():
        c, n = acc_counts(task, [(bool(r["mira_em"]), r["mira_uid"]) for r in rs])
        right, total = right + c, total + n
    return right, total


def _pct(right: int, n: int) -> str:
    return f"{100 * right / n:.1f}" if n else "—"


def compare_mira_rows(
    rows: Any, judge: Judge | None = None, unreadable: dict[str, int] | None = None
) -> MiraComparison:
    """The side-by-side tables from rows of `read_mira_results` (a list, pyarrow Table or DataFrame)."""
    scored = score_mira_rows(rows, judge)
    runs = sorted({r["run_id"] for r in scored})
    many = len(runs) > 1
    t = Table(
        TABLE_TITLE,
        [
            *(["run"] if many else []),
            "model",
            "task",
            "condition",
            "problems",
            "empty",
            "other dropped",
            "MIRA EM",
            "MIRA EM %",
            "vcot %",
            "vcot only",
            "MIRA only",
        ],
    )
    counts: dict[tuple[str, str, str, str], tuple[int, int]] = {}
    for key, rs in sorted(group(scored, lambda r: (r["run_id"], r["model"], r["task"], r["condition"])).items()):
        em, n = _acc_cell(rs)
        counts[key] = (em, n)
        kept = [r for r in rs if r["mira_em"] is not None]
        problems = group(kept, lambda r: pair_key(r))
        ours = sum(all(bool(r["correct"]) for r in p) for p in problems.values())
        empty = sum(r["mira_drop"] == EMPTY for r in rs)
        other = sum(r["mira_drop"] not in (None, EMPTY) for r in rs)
        t.rows.append(
            [
                *([key[0]] if many else []),
                *key[1:],
                n,
                empty,
                other,
                em,
                _pct(em, n),
                _pct(ours, len(problems)),
                sum(bool(r["correct"]) and not r["mira_em"] for r in kept),
                sum(bool(r["mira_em"]) and not r["correct"] for r in kept),
            ]
        )
    notes = [
        "'problems' and 'MIRA EM' are acc.py's total and correct count (exact match, no LLM judge); "
        "'empty' and 'other dropped' are rows acc.py leaves out of both (an empty response; no gold or an "
        "unreadable row). 'vcot %' grades the same kept rows with vcot's rules (gear_rotation pairs as one "
        "problem). 'vcot only': rows right under vcot's grading and wrong under acc.py's rule; "
        "'MIRA only': the reverse."
    ]
    relabelled = sorted(
        {
            (r["source"].rsplit(":", 1)[0], r["mira_model"], r["mira_task"])
            for r in scored
            if (r["mira_model"], r["mira_task"]) != (r["model"], r["task"])
        }
    )
    notes += [f"acc.py prints {Path(f).name} as model '{m}', task '{tk}' (same counts)." for f, m, tk in relabelled]
    notes += [
        f"{Path(f).name}: {k} line(s) not JSON objects, skipped (acc.py skips them too)."
        for f, k in sorted((unreadable or {}).items())
    ]
    t.note = " ".join(notes)
    d = Table("Where vcot and MIRA exact match disagree", ["class", "vcot right", "MIRA right", "example uid"])
    for cls, rs in sorted(group([r for r in scored if r["difference"]], lambda r: r["difference"]).items()):
        d.rows.append([cls, sum(bool(r["correct"]) for r in rs), sum(bool(r["mira_em"]) for r in rs), rs[0]["uid"]])
    return MiraComparison([r for r in scored if r["gold"] is not None], t, d, counts)


def _is_rows(source: Any) -> bool:
    if hasattr(source, "to_pylist") or hasattr(source, "to_dict"):
        return True
    return isinstance(source, list) and bool(source) and isinstance(source[0], dict)


def compare_with_mira(source: Iterable[str | Path] | str | Path | Any, judge: Judge | None = None) -> MiraComparison:
    """Read MIRA result files or folders (or take rows already read, as a list, pyarrow Table or pandas
    DataFrame) and build the side-by-side tables."""
    if _is_rows(source):
        return compare_mira_rows(source, judge)
    files = load_mira_results(source)
    return compare_mira_rows(files.rows, judge, files.unreadable)
