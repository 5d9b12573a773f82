"""Parsers shared by the graders: numbers (digits, words, LaTeX, separators, fractions), hedges, letters.

Each parser reads an extracted answer into a canonical value. Grading compares canonical values, and
majority voting counts them, so "(B)" and "Option B" are the same vote. The number rules are listed with
their reasons in docs/scoring.md ("Grading rules by answer type").
"""

from __future__ import annotations

import re
from fractions import Fraction

from vcot.scoring.commit import Mention

_UNITS = {
    "zero": 0,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "thirteen": 13,
    "fourteen": 14,
    "fifteen": 15,
    "sixteen": 16,
    "seventeen": 17,
    "eighteen": 18,
    "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_DIGIT_WORDS = "|".join(k for k in _UNITS if 0 < _UNITS[k] < 10)
_NUMBER_WORD = re.compile(
    r"\b(?:(?P<hundred>(?:a|one)\s+hundred)|(?P<tens>"
    + "|".join(_TENS)
    + r")(?:[\s-]+(?P<unit>"
    + _DIGIT_WORDS
    + r"))?|(?P<single>"
    + "|".join(sorted(_UNITS, key=len, reverse=True))
    + r"))\b",
    re.I,
)
NUMBER_WORDS = r"(?:" + "|".join(sorted([*_UNITS, *_TENS], key=len, reverse=True)) + r")"

# Minus signs that are not ASCII: U+2212 (the mathematical minus), small and full-width hyphen-minus.
_CHARS = str.maketrans({"−": "-", "﹣": "-", "－": "-", "\u202f": None, "\u2009": None, "\u00a0": " "})
_LATEX_FRAC = re.compile(r"(?:(-)\s*)?\\[dt]?frac\s*\{\s*(-?\d+(?:\.\d+)?)\s*\}\s*\{\s*(-?\d+(?:\.\d+)?)\s*\}")
_LATEX_FRAC_SHORT = re.compile(r"(?:(-)\s*)?\\[dt]?frac\s*(\d)\s*(\d)")
_LATEX = (
    ("\\times", "×"),
    ("\\cdot", "×"),
    ("\\approx", "≈"),
    ("\\%", "%"),
    ("\\,", ""),
    ("\\!", ""),
    ("\\left", ""),
    ("\\right", ""),
    ("\\div", "÷"),
    ("\\neq", "≠"),
    ("\\sim", "~"),
    ("\\;", " "),
)
# "minus three", "negative 3": a sign, unless a number or bracket precedes ("10 minus 3" is subtraction).
_SIGN_WORD = re.compile(r"\b(minus|negative)\s+(?=\.?\d)", re.I)
_OPERATOR_WORDS = (
    (re.compile(r"\bplus\b", re.I), "+"),
    (re.compile(r"\bminus\b", re.I), "-"),
    (re.compile(r"\b(?:times|multiplied\s+by)\b", re.I), "×"),
    (re.compile(r"\bdivided\s+by\b", re.I), "/"),
    (re.compile(r"\b(?:equals|is\s+equal\s+to)\b", re.I), "="),
)
_DENOMINATORS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fourth": 4,
    "fourths": 4,
    "fifth": 5,
    "fifths": 5,
    "sixth": 6,
    "sixths": 6,
    "seventh": 7,
    "sevenths": 7,
    "eighth": 8,
    "eighths": 8,
    "ninth": 9,
    "ninths": 9,
    "tenth": 10,
    "tenths": 10,
}
_FRACTION_WORD = re.compile(r"\b(\d+|an?)[\s-]+(" + "|".join(_DENOMINATORS) + r")\b", re.I)
# "3 1/4" and "3 and 1/4" are mixed numbers only when the fraction is proper; "3 5/4" stays two numbers.
_MIXED = re.compile(r"(?<![\w./])(\d+)\s+(?:and\s+)?(\d+)\s*/\s*(\d+)(?![\d/])")
# Thousands groups need exactly three digits after each comma, so "1,2" stays a list and "1,234" a number.
# A leading dot (".25", "-.4") is a decimal; a dot after a word character is not ("v.25").
_NUMBER = re.compile(
    r"(?<![\w.])(-?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?(?:\s*/\s*\d+(?:\.\d+)?)?|\.\d+))(?![\d])"
)
# "1+2+3 = 6" states the answer after the equals sign; the addends are working, not candidates.
_TERM = r"-?(?:\d+(?:\.\d+)?|\.\d+)(?:\s*/\s*\d+)?"
_EQUATION = re.compile(rf"(?:{_TERM}\s*[-+*x×·÷]\s*)+{_TERM}\s*=\s*(?=-?\.?\d)")
_PERCENT = re.compile(r"\s*(?:%|percent\b|per\s+cent\b)", re.I)
_APPROX_BEFORE = re.compile(r"≈\s*$")
_BOUND_BEFORE = re.compile(
    r"(?:\b(?:(?:fewer|less|more|greater|larger|smaller|higher|lower|bigger)\s+than|"
    r"at\s+(?:least|most)|up\s+to|upwards\s+of|over|under|above|below|beyond|exceeding|"
    r"exceeds|within|(?:a\s+)?(?:minimum|maximum)(?:\s+of)?)|>=?|<=?|[≥≤⩾⩽])\s*$",
    re.I,
)
_BOUND_AFTER = re.compile(
    r"\s*(?:\+(?!\s*[-.\d])|(?:or|and)\s+(?:more|less|fewer|above|below|over|under|up|"
    r"higher|lower)\b|at\s+(?:least|most)\b)",
    re.I,
)

HEDGE = re.compile(
    r"\b(?:or|either|maybe|perhaps|possibly|probably|unsure|not\s+sure|uncertain|cannot\s+be\s+determined|"
    r"can't\s+be\s+determined|unclear)\b|\?",
    re.I,
)
# Word approximations and "~" make a count a guess. "≈" is different: models use it to print a computed value
# ("5/8 ≈ 0.625"), so it is accepted when followed by the exact gold value (grade.py).
APPROX = re.compile(r"\b(?:approximately|approx|about|around|roughly|nearly|almost|circa)\b|~", re.I)


_LETTERS = re.compile(r"[a-z]+")
_NUMBER_WORD_SET = frozenset([*_UNITS, *_TENS, "hundred"])
_OPERATOR_WORD_SET = frozenset({"plus", "minus", "times", "multiplied", "divided", "equals", "equal"})


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


def _sign(m: re.Match[str], text: str) -> str:
    before = text[: m.start()].rstrip()
    if m.group(1).lower() == "minus" and (before[-1:].isdigit() or before[-1:] == ")"):
        return "- "
    return "-"


def _mixed(m: re.Match[str]) -> str:
    whole, num, den = int(m.group(1)), int(m.group(2)), int(m.group(3))
    if den == 0 or num >= den:
        return m.group(0)
    return f"{whole * den + num}/{den}"


def _fraction_word(m: re.Match[str]) -> str:
    n = m.group(1).lower()
    return f"{1 if n in ('a', 'an') else n}/{_DENOMINATORS[m.group(2).lower()]}"


def normalize_numbers(text: str) -> str:
    """Text with every number in one plain form: ASCII minus, LaTeX fractions as a/b, words as digits,
    mixed numbers as improper fractions, and the working of equations removed."""
    text = text.translate(_CHARS)
    if text[:1] in "–-" and text[1:].lstrip()[:1].isdigit():
        text = "-" + text[1:].lstrip()  # "- 4", "–4": a sign at the very start
    if "\\" in text:
        text = _LATEX_FRAC.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}/{m.group(3)}".replace("--", ""), text)
        text = _LATEX_FRAC_SHORT.sub(lambda m: f"{m.group(1) or ''}{m.group(2)}/{m.group(3)}", text)
        for a, b in _LATEX:
            text = text.replace(a, b)
    low = text.lower()
    words = set(_LETTERS.findall(low))
    if words:
        if not words.isdisjoint(_NUMBER_WORD_SET):
            text = words_to_digits(text)
        if "minus" in words or "negative" in words:
            text = _SIGN_WORD.sub(lambda m: _sign(m, text), text)
        if not words.isdisjoint(_DENOMINATORS):
            text = _FRACTION_WORD.sub(_fraction_word, text)
        if not words.isdisjoint(_OPERATOR_WORD_SET):
            for pat, op in _OPERATOR_WORDS:
                text = pat.sub(op, text)
    if "/" in text:
        text = _MIXED.sub(_mixed, text)
    return _EQUATION.sub(" ", text) if "=" in text else text


def _value(tok: str) -> Fraction | None:
    tok = tok.replace(",", "").replace(" ", "")
    try:
        if "/" in tok:
            num, den = tok.split("/")
            if Fraction(den) == 0:
                return None
            return Fraction(num) / Fraction(den)
        return Fraction(tok)
    except (ValueError, ZeroDivisionError):
        return None


def number_mentions(norm: str) -> list[Mention]:
    """Numbers in normalised text with their positions. A percentage is its own kind of value ("%", v), so
    "3%" never equals 3; a number after "≈" is flagged approximate."""
    out: list[Mention] = []
    for m in _NUMBER.finditer(norm):
        v = _value(m.group(1))
        if v is None:
            continue
        end = m.end()
        pct = _PERCENT.match(norm, end)
        value: Fraction | tuple[str, Fraction] = v
        if pct:
            value, end = ("%", v), pct.end()
        bound = bool(_BOUND_BEFORE.search(norm, max(0, m.start() - 40), m.start()) or _BOUND_AFTER.match(norm, end))
        out.append(Mention(m.start(), end, value, approx=bool(_APPROX_BEFORE.search(norm, 0, m.start())), bound=bound))
    return out


def numbers(text: str) -> list[Fraction]:
    """Every number stated in the text, in order, as exact fractions (so 0.5 == 1/2 exactly)."""
    out = []
    for m in number_mentions(normalize_numbers(text)):
        out.append(m.value[1] if isinstance(m.value, tuple) else m.value)
    return out


def decimals_of(text: str) -> int | None:
    """Decimal places of a plain decimal literal; None when the value is a fraction or has none."""
    m = re.fullmatch(r"\s*-?\d*\.(\d+)\s*%?\s*", text)
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
