"""Answer spaces: every answer a question admits, as its wording and the task's configuration define it.

The chance baseline samples from a task's answer space and its chance level is 1/size. A space is built
from the question, the options and the configuration — never from the gold answer — so a baseline that
uses it cannot know anything a guesser would not (`docs/tasks/README.md`, "Answer spaces").
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

COMPASS = ("north", "north-east", "east", "south-east", "south", "south-west", "west", "north-west")


@dataclass(frozen=True)
class AnswerSpace:
    """`size` answers, drawn uniformly by `sample`; `contains(answer)` says whether one is among them (used
    to check generators: a gold answer outside its task's space is a bug in the space's definition)."""

    size: int
    sample: Callable[[random.Random], str]
    contains: Callable[[str], bool]
    description: str

    def __post_init__(self) -> None:
        if self.size < 1:
            raise ValueError(f"an answer space needs at least one answer ({self.description})")


def finite(values: Sequence[str], description: str, canon: Callable[[str], str] = str.strip) -> AnswerSpace:
    """A uniform space over listed answers."""
    vals = list(dict.fromkeys(values))
    keys = {canon(v) for v in vals}
    return AnswerSpace(len(vals), lambda r: r.choice(vals), lambda a: canon(a) in keys, description)


def integers(lo: int, hi: int, description: str = "") -> AnswerSpace:
    """The integers lo..hi inclusive."""
    if hi < lo:
        raise ValueError(f"empty integer range {lo}..{hi}")

    def contains(a: str) -> bool:
        try:
            return lo <= int(a.strip()) <= hi
        except ValueError:
            return False

    return AnswerSpace(
        hi - lo + 1, lambda r: str(r.randint(lo, hi)), contains, description or f"the integers {lo} to {hi}"
    )


def option_letters_space(letters: Sequence[str]) -> AnswerSpace:
    return finite(list(letters), f"one of the {len(letters)} option letters", lambda s: s.strip().upper())


def clock_times() -> AnswerSpace:
    """The 720 minutes of a 12-hour face, written H:MM."""

    def sample(r: random.Random) -> str:
        m = r.randrange(720)
        return f"{m // 60 or 12}:{m % 60:02d}"

    def contains(a: str) -> bool:
        h, _, mm = a.strip().partition(":")
        return h.isdigit() and mm.isdigit() and 1 <= int(h) <= 12 and len(mm) == 2 and int(mm) < 60

    return AnswerSpace(720, sample, contains, "the 720 minutes of a 12-hour clock face")


def compass_directions(names: Sequence[str] = COMPASS) -> AnswerSpace:
    """The 8 compass directions, written as `names` ("north-east" or "northeast"); either spelling is
    recognised as a member."""
    return finite(
        list(names), "the 8 compass directions", lambda s: s.strip().lower().replace(" ", "").replace("-", "")
    )


def product(
    parts: Sequence[AnswerSpace],
    join: Callable[[Sequence[str]], str],
    split: Callable[[str], Sequence[str] | None],
    description: str,
) -> AnswerSpace:
    """Tuples of answers from independent spaces, written by `join` and read back by `split`."""
    size = 1
    for p in parts:
        size *= p.size

    def contains(a: str) -> bool:
        pieces = split(a)
        return (
            pieces is not None
            and len(pieces) == len(parts)
            and all(p.contains(x) for p, x in zip(parts, pieces, strict=True))
        )

    return AnswerSpace(size, lambda r: join([p.sample(r) for p in parts]), contains, description)


def subsets(
    universe: Sequence[str],
    min_size: int,
    max_size: int,
    description: str,
    join: Callable[[Sequence[str]], str] = ", ".join,
) -> AnswerSpace:
    """Subsets of `universe` with min_size..max_size members, written in universe order."""
    from math import comb

    n = len(universe)
    lo, hi = max(0, min_size), min(n, max_size)
    size = sum(comb(n, k) for k in range(lo, hi + 1))
    weights = [comb(n, k) for k in range(lo, hi + 1)]

    def sample(r: random.Random) -> str:
        k = r.choices(range(lo, hi + 1), weights=weights)[0]
        picked = set(r.sample(range(n), k))
        return join([u for i, u in enumerate(universe) if i in picked])

    def contains(a: str) -> bool:
        items = [x.strip() for x in a.replace(" and ", ",").split(",") if x.strip()]
        return lo <= len(items) <= hi and len(set(items)) == len(items) and set(items) <= set(universe)

    return AnswerSpace(size, sample, contains, description)
