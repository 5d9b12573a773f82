"""The rules of MIRA's official accuracy script (`acc.py`), re-implemented from reading it, so that vcot can
print the numbers acc.py prints for the same result files (exact match only; acc.py's optional LLM judge is
not reproduced). docs/scoring.md, "Official MIRA result files (`acc.py`)", states each rule and every place
vcot's own grading differs; the tests check these functions against an independent implementation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from vcot.tasks.catalog import MIRA_TASKS

GEAR = "gear_rotation"
DICE_TWO = "rolling_dice_two"
UNKNOWN_TASK = "unknown_task"
UNKNOWN_SCENARIO = "unknown_scenario"

# Drop reasons: acc.py leaves these rows out of both the numerator and the denominator.
EMPTY = "empty response"
NO_GOLD = "no gold"
NOT_OBJECT = "line is not a JSON object"
BAD_ORIGINAL = "original_data is not an object"
NOT_TEXT = "response is not text"
UNPARSABLE = "number too large to read"

_TAG = re.compile(r"<answer>(.*?)</answer>", re.S)
# acc.py's rolling_dice_two reading of the tag: the first whole colour word (any case) and the last digit run.
_DICE_WORD = re.compile(r"\b(red|black|same)\b", re.I)
_DIGITS = re.compile(r"\d+")

# The known names that can end a file name, longest first. acc.py tries them in its own table's order, which
# lists every name before the longer names ending in it (puzzle / multi_piece_puzzle, cubes_count /
# trailer_cubes_count, cubes_missing / trailer_cubes_missing), so it always picks the shortest fit.
_LONGEST_FIRST = tuple(sorted(MIRA_TASKS, key=lambda t: (-len(t), t)))


def split_result_name(stem: str, *, as_acc_py: bool = False) -> tuple[str, str]:
    """(model alias, task) from a result file name `<alias>_<task>` without `.jsonl`.

    The alias may contain underscores (MIRA's own example is `qwen3_vl`), so the task is the longest known
    task name ending the stem. `as_acc_py=True` gives acc.py's reading instead, which takes the shortest, so
    `x_multi_piece_puzzle` is model `x_multi_piece`, task `puzzle` there. Names ending in no known task fall
    back to a split at the first underscore, as acc.py does.
    """
    names = reversed(_LONGEST_FIRST) if as_acc_py else _LONGEST_FIRST
    for task in names:
        if stem.endswith("_" + task):
            return stem[: -len(task) - 1], task
    alias, _, task = stem.partition("_")
    return alias, task or UNKNOWN_TASK


def first_tag(response: str) -> str | None:
    """The stripped content of the first `<answer>…</answer>` pair (tags case-sensitive), as acc.py reads it."""
    m = _TAG.search(response)
    return m.group(1).strip() if m else None


def _norm(value: Any) -> str:
    return str(value).strip().lower()


def exact_match(response: str, gold: Any) -> bool:
    """acc.py's rule for every task but rolling_dice_two: the first tag equals the gold, case-insensitively."""
    pred = first_tag(response)
    return pred is not None and _norm(pred) == _norm(gold)


class _Drop(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def _dice_parts(text: str) -> tuple[str | None, int | None]:
    if not text:
        return None, None
    m = _DICE_WORD.search(text)
    nums = _DIGITS.findall(text)
    try:
        number = int(nums[-1]) if nums else None
    except ValueError:  # Python refuses to read a digit run longer than its limit; acc.py then skips the row
        raise _Drop(UNPARSABLE) from None
    return (m.group(1).lower() if m else None), number


def dice_two_match(response: str, colour: Any, total: Any) -> bool:
    """acc.py's rolling_dice_two rule: inside the first tag, the first of red/black/same must equal `colour`
    and the last integer must equal `total` (read with int(); an unreadable total can never match)."""
    pred = first_tag(response)
    if pred is None:
        return False
    word, number = _dice_parts(pred)
    try:
        want = int(total)
    except (TypeError, ValueError):
        want = None
    except OverflowError:  # int(inf): acc.py does not catch this one, so the row is skipped
        raise _Drop(UNPARSABLE) from None
    return word is not None and _norm(word) == _norm(colour) and number is not None and number == want


@dataclass(frozen=True, slots=True)
class AccRow:
    """acc.py's view of one result line."""

    correct: bool | None  # None: acc.py leaves the row out (see `dropped`)
    dropped: str | None
    uid: str | None  # str() of original_data's uid: the only uid acc.py looks at


def acc_row(task: str, data: Any) -> AccRow:
    """acc.py's verdict for one parsed JSON line of a file whose task acc.py reads as `task`."""
    if not isinstance(data, dict):
        return AccRow(None, NOT_OBJECT, None)
    original = data.get("original_data", {})
    if not isinstance(original, dict):
        return AccRow(None, BAD_ORIGINAL, None)
    raw_uid = original.get("uid")
    uid = None if raw_uid is None else str(raw_uid)
    response = data.get("response", "")
    # acc.py picks its rule by substring, so any task name containing these gets the special treatment.
    dice = DICE_TWO in task
    golds = (original.get("answer1"), original.get("answer2")) if dice else (original.get("answer"),)
    if any(g is None for g in golds):
        return AccRow(None, NO_GOLD, uid)
    if not response:
        return AccRow(None, EMPTY, uid)
    if not isinstance(response, str):
        return AccRow(None, NOT_TEXT, uid)
    try:
        correct = dice_two_match(response, *golds) if dice else exact_match(response, golds[0])
    except _Drop as drop:
        return AccRow(None, drop.reason, uid)
    return AccRow(correct, None, uid)


def acc_counts(task: str, verdicts: Iterable[tuple[bool, str | None]]) -> tuple[int, int]:
    """(correct, total) of one (model, task, scenario) cell from its kept rows' (verdict, uid), in file order.

    gear_rotation: rows are grouped by the uid's part before the first dot; a group is right when its `.1`
    and `.2` rows are both right, or when it has a right dot-less uid. Rows without a uid are not counted.
    A repeated uid keeps the verdict read last (acc.py keeps whichever of its worker threads finished last).
    Every other task counts rows.
    """
    if GEAR not in task:
        vs = [bool(c) for c, _ in verdicts]
        return sum(vs), len(vs)
    problems: dict[str, dict[str, bool]] = {}
    for correct, uid in verdicts:
        if uid is None:
            continue
        base, dot, sub = uid.partition(".")
        # acc.py files a dot-less uid under the sub-key "single", so a uid `n.single` lands in the same slot.
        problems.setdefault(base, {})[sub if dot else "single"] = bool(correct)
    right = sum((p.get("1", False) and p.get("2", False)) or p.get("single", False) for p in problems.values())
    return right, len(problems)
