"""The chance baseline: a uniformly random answer from each instance's answer space, offline and seeded.

Answer spaces, per answer type (an instance may override with `meta["answer_space"]`, a list of strings):

- choice: the option letters (chance 1/n).
- integer: a per-task range where the task fixes one (rolling_dice_top: 1–6); otherwise 0..hi with
  hi = max(9, 2·|gold|) — a plausible range that contains the gold answer without centring on it.
- number: the integer range above at the gold answer's decimal precision.
- direction: eight compass directions, in the vocabulary the gold answer uses (north/north-east/… or
  up/up-right/…).
- time: the 720 minutes of a 12-hour clock face, "H:MM".
- text: for gear_rotation, clockwise/counterclockwise (plus the gold answer's own word if it is another
  one, e.g. a jam); otherwise only `meta["answer_space"]` gives a space, and without one the baseline
  answers "unknown" (chance 0).
- pair: first part over {red, black, same} (or the gold's first part when it is not one of them), second
  part from the integer range of the gold's second part; joined with the gold's separator.
- set: non-empty subsets of the option letters when the instance has options, else of the letters A up to
  max(F, the largest letter in the gold answer).
- coordinates: the gold's number of points, each coordinate uniform over 0..max(5, largest gold coordinate),
  with the gold's formatting.

`chance_level(instance)` is the probability that this baseline answers right: 1/|space| when the gold
answer lies in the space, else 0. Spaces are defined from the task and the gold answer's *format* and
size, so the level is exact for choice/direction/time tasks and a documented approximation elsewhere.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass

from vcot.schema import AnswerType, Instance, option_letters
from vcot.tasks.base import derive_seed

_TASK_INT_RANGES: dict[str, tuple[int, int]] = {"rolling_dice_top": (1, 6)}
_COMPASS = ["north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west"]
_SCREEN = ["up", "up-right", "right", "down-right", "down", "down-left", "left", "up-left"]
_GEAR = ["clockwise", "counterclockwise"]
_PAIR_FIRST = ["red", "black", "same"]


@dataclass(frozen=True)
class AnswerSpace:
    size: int
    contains_gold: bool
    sample: Callable[[random.Random], str]


def _int_range(instance: Instance, gold: str) -> tuple[int, int]:
    if instance.task in _TASK_INT_RANGES:
        return _TASK_INT_RANGES[instance.task]
    try:
        g = abs(int(float(gold)))
    except ValueError:
        g = 0
    return 0, max(9, 2 * g)


def _uniform(values: list[str], gold: str, canon: Callable[[str], str] = str.strip) -> AnswerSpace:
    return AnswerSpace(len(values), canon(gold) in {canon(v) for v in values}, lambda r: r.choice(values))


def _norm_dir(s: str) -> str:
    return re.sub(r"[\s_-]+", "", s.strip().lower())


def answer_space(instance: Instance) -> AnswerSpace:
    gold = instance.answer.strip()
    given = instance.meta.get("answer_space")
    if isinstance(given, list) and given and all(isinstance(v, str) for v in given):
        return _uniform(list(given), gold)
    t = instance.answer_type
    if t == AnswerType.CHOICE:
        return _uniform(option_letters(len(instance.options or [])), gold)
    if t == AnswerType.INTEGER:
        lo, hi = _int_range(instance, gold)
        inside = bool(re.fullmatch(r"-?\d+", gold)) and lo <= int(gold) <= hi
        return AnswerSpace(hi - lo + 1, inside, lambda r: str(r.randint(lo, hi)))
    if t == AnswerType.NUMBER:
        decimals = len(gold.split(".", 1)[1]) if re.fullmatch(r"-?\d+\.\d+", gold) else 0
        lo, hi = _int_range(instance, gold)
        steps = (hi - lo) * 10**decimals + 1

        def sample_number(r: random.Random) -> str:
            return f"{lo + r.randrange(steps) / 10**decimals:.{decimals}f}"

        return AnswerSpace(steps, re.fullmatch(r"-?\d+(\.\d+)?", gold) is not None, sample_number)
    if t == AnswerType.DIRECTION:
        compass = {_norm_dir(d) for d in _COMPASS}
        vocab = _COMPASS if _norm_dir(gold) in compass or gold.lower()[:1] in "nesw" else _SCREEN
        return _uniform(vocab, gold, _norm_dir)
    if t == AnswerType.TIME:
        def sample_time(r: random.Random) -> str:
            m = r.randrange(720)
            return f"{m // 60 or 12}:{m % 60:02d}"

        return AnswerSpace(720, re.fullmatch(r"\d{1,2}:\d{2}", gold) is not None, sample_time)
    if t == AnswerType.TEXT:
        if instance.task == "gear_rotation":
            vocab = list(_GEAR)
            if gold.lower() not in vocab:
                vocab.append(gold)
            return _uniform(vocab, gold, lambda s: s.strip().lower())
        return AnswerSpace(1, False, lambda r: "unknown")
    if t == AnswerType.PAIR:
        m = re.fullmatch(r"\s*(.*?)\s*([,;/])\s*(.*?)\s*", gold)
        first, sep, second = (m.group(1), m.group(2), m.group(3)) if m else (gold, ",", "0")
        firsts = list(_PAIR_FIRST) if first.lower() in _PAIR_FIRST else [*_PAIR_FIRST, first]
        lo, hi = _int_range(instance, second)

        def sample_pair(r: random.Random) -> str:
            return f"{r.choice(firsts)}{sep} {r.randint(lo, hi)}"

        inside = second.isdigit() and lo <= int(second) <= hi
        return AnswerSpace(len(firsts) * (hi - lo + 1), inside, sample_pair)
    if t == AnswerType.SET:
        gold_letters = re.findall(r"[A-Za-z]", gold)
        if instance.options:
            universe = option_letters(len(instance.options))
        else:
            top = max([ord("F")] + [ord(c.upper()) for c in gold_letters])
            universe = [chr(c) for c in range(ord("A"), min(top, ord("Z")) + 1)]

        def sample_set(r: random.Random) -> str:
            while True:
                picked = [u for u in universe if r.random() < 0.5]
                if picked:
                    return ", ".join(picked)

        inside = bool(gold_letters) and all(c.upper() in universe for c in gold_letters)
        return AnswerSpace(2 ** len(universe) - 1, inside, sample_set)
    if t == AnswerType.COORDINATES:
        nums = [int(x) for x in re.findall(r"-?\d+", gold)]
        hi = max([5] + nums)
        template = re.sub(r"-?\d+", "{}", gold)

        def sample_coords(r: random.Random) -> str:
            return template.format(*(r.randint(0, hi) for _ in nums))

        inside = bool(nums) and min(nums) >= 0
        return AnswerSpace((hi + 1) ** max(1, len(nums)), inside, sample_coords)
    raise ValueError(f"{instance.uid}: no chance answer space for answer type {t!r}")


def chance_level(instance: Instance) -> float:
    """Probability that the chance baseline answers `instance` correctly."""
    space = answer_space(instance)
    return 1.0 / space.size if space.contains_gold else 0.0


def chance_answer(instance: Instance, condition: str, epoch: int) -> str:
    """The baseline's answer, a pure function of (uid, condition, epoch)."""
    rng = random.Random(derive_seed("chance", instance.uid, condition, epoch))
    return answer_space(instance).sample(rng)
