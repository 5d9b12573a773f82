"""Parsers shared by the graders: numbers (digits, words, separators, fractions), hedges, letters.

Each parser reads an extracted answer into a canonical value. Grading compares canonical values, and
majority voting counts them, so "(B)" and "Option B" are the same vote.
"""

from __future__ import annotations

import re
from fractions import Fraction

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
_DIGIT_WORDS = "|".join(k for k in _UNITS if 0 < _UNITS[k] < 10)
_NUMBER_WORD = re.compile(
    r"\b(?:(?P<hundred>(?:a|one)\s+hundred)|(?P<tens>" + "|".join(_TENS) + r")(?:[\s-]+(?P<unit>" + _DIGIT_WORDS
    + r"))?|(?P<single>" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r"))\b",
    re.I,
)
# Thousands groups need exactly three digits after each comma, so "1,2" stays a list and "1,234" a number.
_NUMBER = re.compile(r"(?<![\w.])(-?\d{1,3}(?:,\d{3})+(?:\.\d+)?|-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?)(?![\d])")
# "1+2+3 = 6" states the answer after the equals sign; the addends are working, not candidates.
_EQUATION = re.compile(r"(?:-?\d+(?:\.\d+)?\s*[-+*x×·]\s*)+-?\d+(?:\.\d+)?\s*=\s*")

HEDGE = re.compile(
    r"\b(?:or|either|maybe|perhaps|possibly|probably|unsure|not\s+sure|uncertain|cannot\s+be\s+determined|"
    r"can't\s+be\s+determined|unclear)\b|\?",
    re.I,
)
APPROX = re.compile(r"\b(?:approximately|approx|about|around|roughly|nearly|almost)\b|~|≈", re.I)


def words_to_digits(text: str) -> str:
    """'twenty-one cubes' -> '21 cubes'; only whole words, so 'someone' keeps its 'one'."""

    def repl(m: re.Match[str]) -> str:
        if m.group("hundred"):
            return "100"
        if m.group("single"):
            return str(_UNITS[m.group("single").lower()])
        value = _TENS[m.group("tens").lower()]
        if m.group("unit"):
            value += _UNITS[m.group("unit").lower()]
        return str(value)

    return _NUMBER_WORD.sub(repl, text)


def numbers(text: str) -> list[Fraction]:
    """Every number stated in the text, in order, as exact fractions (so 0.5 == 1/2 exactly)."""
    text = words_to_digits(text.replace("−", "-").replace("\u202f", "").replace("\u2009", ""))
    text = _EQUATION.sub(" ", text)
    out: list[Fraction] = []
    for tok in _NUMBER.findall(text):
        tok = tok.replace(",", "").replace(" ", "")
        try:
            if "/" in tok:
                num, den = tok.split("/")
                if int(den) == 0:
                    continue
                out.append(Fraction(int(num), int(den)))
            else:
                out.append(Fraction(tok))
        except (ValueError, ZeroDivisionError):
            continue
    return out


def decimals_of(text: str) -> int | None:
    """Decimal places of a plain decimal literal; None when the value is a fraction or has none."""
    m = re.fullmatch(r"\s*-?\d+\.(\d+)\s*", text)
    return len(m.group(1)) if m else None


def distinct(values: list) -> list:
    seen: list = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen


_SIMPLE = re.compile(r"[^0-9a-z]+")


def simple(text: str) -> str:
    """Lowercase alphanumerics separated by single spaces: the form option texts are compared in."""
    return _SIMPLE.sub(" ", text.lower()).strip()
