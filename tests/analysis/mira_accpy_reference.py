"""An independent model of MIRA's acc.py (exact match, no LLM judge), written from the rules stated in
docs/scoring.md ("Official MIRA result files") and deliberately not sharing code or structure with
`vcot.analysis.mira_acc`: string scanning instead of regular expressions, its own file-name table. The parity
tests hold vcot's "MIRA EM" column to this model.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# acc.py's task table, in its order: a file name is read with the first entry that ends it.
ACC_PY_TASK_ORDER = (
    "paper_airplane",
    "gear_rotation",
    "rolling_dice_top",
    "rolling_dice_sum",
    "rolling_dice_two",
    "convex_hull",
    "overlap",
    "localizer",
    "mirror_pattern",
    "cubes_count",
    "cubes_missing",
    "puzzle",
    "multi_piece_puzzle",
    "defuse_a_bomb",
    "unfolded_cube",
    "trailer_cubes_count",
    "trailer_cubes_missing",
    "billiards",
    "electric_charge",
    "mirror_clock",
)
_OPEN, _CLOSE = "<answer>", "</answer>"
_COLOURS = {"red", "black", "same"}


def file_label(stem: str) -> tuple[str, str]:
    for task in ACC_PY_TASK_ORDER:
        tail = "_" + task
        if stem.endswith(tail):
            return stem[: len(stem) - len(tail)], task
    if "_" not in stem:
        return stem, "unknown_task"
    alias, rest = stem.split("_", 1)
    return alias, rest if rest else "unknown_task"


def tag_text(response: str) -> str | None:
    start = response.find(_OPEN)
    if start < 0:
        return None
    end = response.find(_CLOSE, start + len(_OPEN))
    if end < 0:
        return None
    return response[start + len(_OPEN) : end].strip()


def _words(text: str) -> list[str]:
    out, cur = [], ""
    for ch in text:
        if ch.isalnum() or ch == "_":
            cur += ch
        elif cur:
            out.append(cur)
            cur = ""
    if cur:
        out.append(cur)
    return out


def _last_number(text: str) -> int | None:
    runs, cur = [], ""
    for ch in text:
        if ch.isdecimal():
            cur += ch
        elif cur:
            runs.append(cur)
            cur = ""
    if cur:
        runs.append(cur)
    return int(runs[-1]) if runs else None


def verdict(task: str, line: Any) -> tuple[bool, Any] | None:
    """(correct, original uid), or None where acc.py skips the line."""
    if type(line) is not dict:
        return None
    response = line.get("response", "")
    orig = line.get("original_data", {})
    if type(orig) is not dict:
        return None
    if "rolling_dice_two" in task:
        colour, total = orig.get("answer1"), orig.get("answer2")
        if colour is None or total is None or not response or type(response) is not str:
            return None
        inner = tag_text(response)
        if inner is None:
            return False, orig.get("uid")
        word = next((w.lower() for w in _words(inner) if w.lower() in _COLOURS), None)
        number = _last_number(inner) if inner else None
        try:
            wanted = int(total)
        except (TypeError, ValueError):
            wanted = None
        ok = (
            word is not None
            and word == str(colour).strip().lower()
            and number is not None
            and wanted is not None
            and number == wanted
        )
        return ok, orig.get("uid")
    gold = orig.get("answer")
    if gold is None or not response or type(response) is not str:
        return None
    inner = tag_text(response)
    return inner is not None and inner.lower() == str(gold).strip().lower(), orig.get("uid")


def _cell(task: str, results: list[tuple[bool, Any]]) -> tuple[int, int]:
    if "gear_rotation" not in task:
        return sum(1 for ok, _ in results if ok), len(results)
    pairs: dict[str, dict[str, bool]] = {}
    for ok, uid in results:
        if uid is None:
            continue
        text = str(uid)
        if "." in text:
            head, tail = text.split(".", 1)
        else:
            head, tail = text, "single"
        pairs.setdefault(head, {})[tail] = ok
    good = 0
    for subs in pairs.values():
        if subs.get("1") and subs.get("2"):
            good += 1
        elif subs.get("single"):
            good += 1
    return good, len(pairs)


def score_folder(folder: Path) -> dict[tuple[str, str], tuple[int, int]]:
    """(file stem, raw scenario) -> (correct, total), as acc.py counts them (it prints them under
    `file_label(stem)`)."""
    cells: dict[tuple[str, str], list[tuple[bool, Any]]] = {}
    for path in sorted(folder.glob("*.jsonl")):
        _, task = file_label(path.stem)
        for raw in path.read_text(encoding="utf-8").split("\n"):
            try:
                line = json.loads(raw)
            except ValueError:
                continue
            result = verdict(task, line)
            if result is None:
                continue
            cells.setdefault((path.stem, line.get("scenario", "unknown_scenario")), []).append(result)
    out = {}
    for (stem, scenario), results in cells.items():
        out[(stem, scenario)] = _cell(file_label(stem)[1], results)
    return out
