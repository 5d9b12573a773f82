"""Type-aware grading (SPEC §7): read both the extracted answer and the gold into canonical values and compare.

Every parser returns a Parsed: a canonical value, or a reason it has none. A hedge ("A or C", "7?",
"probably B") or several conflicting values is never a value, so it is graded wrong. `correct=None` means
"no rule can decide" (free text outside any known vocabulary): the caller may ask a judge.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from vcot.schema import AnswerType
from vcot.scoring.extract import clean_answer
from vcot.scoring.normalize import APPROX, HEDGE, decimals_of, distinct, numbers, simple


@dataclass(frozen=True, slots=True)
class Parsed:
    value: Hashable | None
    why: str = ""

    @property
    def ok(self) -> bool:
        return self.value is not None


@dataclass(frozen=True, slots=True)
class Verdict:
    correct: bool | None
    reason: str


def _fail(why: str) -> Parsed:
    return Parsed(None, why)


# ---------------------------------------------------------------------------------------------- numbers


def parse_number(text: str, integer: bool = False) -> Parsed:
    if HEDGE.search(text):
        return _fail("hedged")
    if APPROX.search(text):
        return _fail("approximate")
    vals = distinct(numbers(text))
    if not vals:
        return _fail("no number")
    if len(vals) > 1:
        return _fail(f"several numbers {[str(v) for v in vals]}")
    v = vals[0]
    if integer and v.denominator != 1:
        return _fail(f"{v} is not an integer")
    return Parsed(v)


def _number_close(cand: Fraction, gold: Fraction, gold_text: str) -> bool:
    # A decimal gold is only as precise as its printed digits: 0.333 accepts 1/3. A fraction or integer
    # gold must be met exactly (up to float noise), so 0.3 never passes for 1/3.
    places = decimals_of(gold_text)
    if places is not None:
        return abs(cand - gold) <= Fraction(1, 2 * 10**places)
    if cand == gold:
        return True
    return abs(float(cand) - float(gold)) <= 1e-9 * max(1.0, abs(float(gold)))


# ---------------------------------------------------------------------------------------------- choice

_KEYWORD_LETTER = re.compile(r"\b(?:option|choice|answer|letter|candidate)\s*[:#-]?\s*\(?([A-Za-z])\)?(?![\w'])", re.I)
_PAREN_LETTER = re.compile(r"[(\[]([A-Za-z])[)\]]")
_LEADING_LETTER = re.compile(r"^([A-Z])(?:[.):\]]|\s*$)")
_UPPER_LETTER = re.compile(r"(?<![\w'’-])([A-Z])(?![\w'’])")
# "A cube with ..." uses the article; "A is correct" names option A.
_ARTICLE_A = re.compile(
    r"A\s+(?!(?:is|was|fits|matches|seems|would|should|and|or|because|since|as|looks|works|gives)\b)[a-z]"
)


def _option_text_letter(text: str, options: Sequence[str] | None) -> str | None:
    if not options:
        return None
    s = simple(text)
    for i, opt in enumerate(options):
        if s == simple(opt) and s:
            return chr(65 + i)
    return None


def parse_choice(text: str, options: Sequence[str] | None = None) -> Parsed:
    n = len(options) if options else 26
    valid = {chr(65 + i) for i in range(n)}
    # The full text of one option is an unambiguous answer, even if that text contains "or".
    by_text = _option_text_letter(text, options)
    if by_text:
        return Parsed(by_text)
    bare = text.strip().strip("()[]{}.:").strip()
    if len(bare) == 1 and bare.isalpha():
        letter = bare.upper()
        return Parsed(letter) if letter in valid else _fail(f"letter {letter} is not an option")
    if HEDGE.search(text):
        return _fail("hedged")
    found: list[str] = []
    found += [m.upper() for m in _KEYWORD_LETTER.findall(text)]
    found += [m.upper() for m in _PAREN_LETTER.findall(text)]
    m = _LEADING_LETTER.match(text)
    if m:
        found.append(m.group(1))
        # "B. <text of another option>" contradicts itself.
        rest = text[m.end():].strip()
        other = _option_text_letter(rest, options) if rest else None
        if other and other != m.group(1):
            return _fail(f"letter {m.group(1)} with the text of option {other}")
    for m2 in _UPPER_LETTER.finditer(text):
        letter = m2.group(1)
        if letter == "I" and "I" not in valid:
            continue
        if letter == "A" and _ARTICLE_A.match(text, m2.start()):
            continue  # the article in "A cube with..."
        found.append(letter)
    letters = distinct([x for x in found if x in valid])
    if len(letters) == 1:
        return Parsed(letters[0])
    if len(letters) > 1:
        return _fail(f"several options {letters}")
    # No letter: the answer may quote exactly one option's text inside a sentence.
    if options:
        s = f" {simple(text)} "
        hits = [chr(65 + i) for i, o in enumerate(options) if simple(o) and f" {simple(o)} " in s]
        if len(hits) == 1:
            return Parsed(hits[0])
        if len(hits) > 1:
            return _fail(f"text of several options {hits}")
    return _fail("no option letter")


# ---------------------------------------------------------------------------------------------- time

_TIME = re.compile(
    r"(?<!\d)(\d{1,2})\s*[:：h.]\s*(\d{2})(?::\d{2})?(?!\d)\s*(a\.?\s?m\.?|p\.?\s?m\.?)?|"
    r"(?<!\d)(\d{1,2})\s*(?:(o['’]?\s*clock)|(a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z]))",
    re.I,
)
_NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)


def parse_time(text: str) -> Parsed:
    """Value (minutes on a 12-hour dial, 24-hour minutes or None): the 12-hour reading always compares;
    the 24-hour one only when both sides state it (AM/PM, or an hour 0 or 13-23)."""
    if HEDGE.search(text):
        return _fail("hedged")
    found: list[tuple[int, int | None]] = []
    for m in _TIME.finditer(text):
        if m.group(1) is not None:
            h, mi, ampm = int(m.group(1)), int(m.group(2)), m.group(3)
        else:
            h, mi, ampm = int(m.group(4)), 0, m.group(6)
        if h > 24 or mi > 59:
            continue
        found.append(_time_value(h, mi, ampm))
    for m in _NOON.finditer(text):
        found.append((0, 12 * 60 if m.group(1).lower() != "midnight" else 0))
    vals = distinct(found)
    if not vals:
        return _fail("no time")
    dial = distinct([v[0] for v in vals])
    if len(dial) > 1:
        return _fail("several times")
    day = distinct([v[1] for v in vals if v[1] is not None])
    if len(day) > 1:
        return _fail("several times")
    return Parsed((dial[0], day[0] if day else None))


def _time_value(h: int, mi: int, ampm: str | None) -> tuple[int, int | None]:
    dial = (h % 12) * 60 + mi
    if ampm:
        pm = ampm.lower().startswith("p")
        if h > 12:
            return dial, None  # "15:05 PM" is self-contradictory; keep only the dial reading
        return dial, ((h % 12) + (12 if pm else 0)) * 60 + mi
    if h == 0 or 13 <= h <= 23:
        return dial, h * 60 + mi
    if h == 24:
        return dial, mi
    return dial, None


def _time_equal(c: tuple, g: tuple) -> bool:
    if c[0] != g[0]:
        return False
    return c[1] is None or g[1] is None or c[1] == g[1]


# ---------------------------------------------------------------------------------------------- coordinates

_PAIR = re.compile(r"[(\[{<]\s*(-?\d+(?:\.\d+)?)\s*[,;]\s*(-?\d+(?:\.\d+)?)\s*[)\]}>]")
_BARE_COORDS = re.compile(r"^[\s\d.,;:\-()\[\]{}]+$")


def parse_coordinates(text: str) -> Parsed:
    if HEDGE.search(text):
        return _fail("hedged")
    pairs = [(Fraction(a), Fraction(b)) for a, b in _PAIR.findall(text)]
    if not pairs and _BARE_COORDS.match(text):
        # "1,2; 3,4" without brackets: numbers taken two at a time.
        nums = [Fraction(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text)]
        if nums and len(nums) % 2 == 0:
            pairs = list(zip(nums[::2], nums[1::2], strict=True))
    if not pairs:
        return _fail("no coordinates")
    return Parsed(tuple(pairs))


# ---------------------------------------------------------------------------------------------- sets

_SET_FILLER = frozenset({"and", "pieces", "piece", "the", "set", "are", "is", "answer", "options", "option",
                         "shapes", "shape", "parts", "part", "with", "together", "plus", "needed", "used"})
_SET_SPLIT = re.compile(r"\s*(?:,|;|\band\b|&|\+|\n)\s*", re.I)


@lru_cache(maxsize=4096)
def _gold_set(gold: str) -> tuple[str, frozenset]:
    items = [x for x in _SET_SPLIT.split(gold.strip().strip("{}[]()")) if x.strip()]
    if items and all(len(x.strip()) == 1 and x.strip().isalpha() for x in items):
        return "letters", frozenset(x.strip().upper() for x in items)
    if items and all(re.fullmatch(r"-?\d+(?:\.\d+)?", x.strip()) for x in items):
        return "numbers", frozenset(Fraction(x.strip()) for x in items)
    return "text", frozenset(simple(x) for x in items)


def parse_set(text: str, kind: str) -> Parsed:
    if HEDGE.search(text):
        return _fail("hedged")
    if kind == "numbers":
        vals = numbers(text)
        return Parsed(frozenset(vals)) if vals else _fail("no numbers")
    if kind == "letters":
        tokens = [t for t in re.findall(r"[A-Za-z0-9]+", text) if t.lower() not in _SET_FILLER]
        if tokens and all(len(t) == 1 and t.isalpha() for t in tokens):
            return Parsed(frozenset(t.upper() for t in tokens))
        if len(tokens) == 1 and tokens[0].isupper() and len(tokens[0]) <= 12:
            return Parsed(frozenset(tokens[0]))  # "ACD"
        letters = [m for m in _UPPER_LETTER.findall(text) if m != "I"]
        return Parsed(frozenset(letters)) if letters else _fail("no letters")
    items = [simple(x) for x in _SET_SPLIT.split(text) if simple(x)]
    return Parsed(frozenset(items)) if items else _fail("empty set")


# ---------------------------------------------------------------------------------------------- vocabularies

# Word groups whose members exclude each other: naming two members is a contradiction, not an answer.
_ROTATION = re.compile(
    r"\b(?P<ccw>(?:counter|anti)[\s-]?clock[\s-]?wise|ccw)\b|\b(?P<cw>clock[\s-]?wise|cw)\b|"
    r"\b(?P<jam>jam(?:med|s|ming)?|lock(?:ed|s)?|stuck|seized|(?:can\s*not|can['’]?t|won['’]?t|will\s+not|"
    r"does\s+not|doesn['’]?t|cannot|unable\s+to)\s+(?:rotate|turn|move|spin))\b",
    re.I,
)
_COLOUR_SAME = re.compile(r"\b(?:same|equal|equally|tie|tied|draw|neither)\b", re.I)
_COLOURS = ("red", "black", "blue", "green", "yellow", "white", "orange", "purple")
_COLOUR = re.compile(r"\b(" + "|".join(_COLOURS) + r")\b", re.I)
_YESNO = re.compile(r"\b(?P<yes>yes|true)\b|\b(?P<no>no|false)\b", re.I)


def _rotation(text: str) -> set[str]:
    out = set()
    for m in _ROTATION.finditer(text):
        out.add("counterclockwise" if m.group("ccw") else "clockwise" if m.group("cw") else "jammed")
    return out


def _colour_words(text: str) -> set[str]:
    out = {m.lower() for m in _COLOUR.findall(text)}
    if _COLOUR_SAME.search(text):
        out.add("same")
    return out


@lru_cache(maxsize=4096)
def _vocabulary(gold: str) -> str | None:
    g = gold.strip().lower()
    if _rotation(g) and len(_rotation(g)) == 1 and len(g) <= 30:
        return "rotation"
    if g in _COLOURS or g == "same":
        return "colour"
    if g in {"yes", "no", "true", "false"}:
        return "yesno"
    return None


def _vocab_value(text: str, vocab: str) -> Parsed:
    if vocab == "rotation":
        found = _rotation(text)
    elif vocab == "colour":
        found = _colour_words(text)
    else:
        found = {"yes" if m.group("yes") else "no" for m in _YESNO.finditer(text)}
    if HEDGE.search(_ROTATION.sub(" ", text) if vocab == "rotation" else text):
        return _fail("hedged")
    if len(found) > 1:
        return _fail(f"contradictory {sorted(found)}")
    if not found:
        return _fail(f"no {vocab} word")
    return Parsed(found.pop())


# ---------------------------------------------------------------------------------------------- directions

_DIR_TOKEN = re.compile(
    r"\b(north|south|east|west|up|upwards?|down|downwards?|left|leftwards?|right|rightwards?|top|bottom|"
    r"upper|lower|above|below)\b|[↑↓←→↖↗↘↙]"
)
_VEC = {
    "north": (0, 1), "up": (0, 1), "upward": (0, 1), "upwards": (0, 1), "top": (0, 1), "upper": (0, 1),
    "above": (0, 1), "↑": (0, 1),
    "south": (0, -1), "down": (0, -1), "downward": (0, -1), "downwards": (0, -1), "bottom": (0, -1),
    "lower": (0, -1), "below": (0, -1), "↓": (0, -1),
    "east": (1, 0), "right": (1, 0), "rightward": (1, 0), "rightwards": (1, 0), "→": (1, 0),
    "west": (-1, 0), "left": (-1, 0), "leftward": (-1, 0), "leftwards": (-1, 0), "←": (-1, 0),
    "↖": (-1, 1), "↗": (1, 1), "↘": (1, -1), "↙": (-1, -1),
}
_ABBREV = {"n": (0, 1), "s": (0, -1), "e": (1, 0), "w": (-1, 0), "ne": (1, 1), "nw": (-1, 1), "se": (1, -1),
           "sw": (-1, -1)}
_NAMES = {(0, 1): "north", (1, 1): "northeast", (1, 0): "east", (1, -1): "southeast", (0, -1): "south",
          (-1, -1): "southwest", (-1, 0): "west", (-1, 1): "northwest"}


def parse_direction(text: str) -> Parsed:
    if HEDGE.search(text):
        return _fail("hedged")
    t = text.lower().strip().strip(".!()")
    if t in _ABBREV:
        return Parsed(_NAMES[_ABBREV[t]])
    t = re.sub(r"(north|south)[\s-]*(east|west)", r"\1 \2", t)
    t = re.sub(r"[-_/]", " ", t)
    xs, ys = set(), set()
    for m in _DIR_TOKEN.finditer(t):
        dx, dy = _VEC[m.group(0)]
        if dx:
            xs.add(dx)
        if dy:
            ys.add(dy)
    if len(xs) > 1 or len(ys) > 1:
        return _fail("contradictory directions")
    vec = (xs.pop() if xs else 0, ys.pop() if ys else 0)
    if vec == (0, 0):
        return _fail("no direction")
    return Parsed(_NAMES[vec])


# ---------------------------------------------------------------------------------------------- pairs

@lru_cache(maxsize=4096)
def _gold_pair(gold: str) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
    parts = [p.strip() for p in re.split(r"[,;]", gold) if p.strip()]
    words = tuple(simple(p) for p in parts if not re.fullmatch(r"-?\d+(?:\.\d+)?", p))
    nums = tuple(Fraction(p) for p in parts if re.fullmatch(r"-?\d+(?:\.\d+)?", p))
    return words, nums


def parse_pair(text: str, gold: str) -> Parsed:
    """Both parts must match (MIRA's rolling_dice_two rule): the word part by vocabulary, the numbers in order."""
    if HEDGE.search(text):
        return _fail("hedged")
    words, nums = _gold_pair(gold)
    got_words: list[str] = []
    for w in words:
        vocab = _vocabulary(w)
        if vocab:
            p = _vocab_value(text, vocab)
            if not p.ok:
                return p
            got_words.append(str(p.value))
        else:
            got_words.append(w if f" {w} " in f" {simple(text)} " else "")
    got_nums = tuple(distinct(numbers(text)))
    if len(got_nums) != len(nums):
        return _fail(f"expected {len(nums)} number(s), found {len(got_nums)}")
    return Parsed((tuple(got_words), got_nums))


def _gold_pair_value(gold: str) -> tuple:
    words, nums = _gold_pair(gold)
    canon = []
    for w in words:
        vocab = _vocabulary(w)
        canon.append(str(_vocab_value(w, vocab).value) if vocab else w)
    return tuple(canon), nums


# ---------------------------------------------------------------------------------------------- dispatch


def _as_type(answer_type: AnswerType | str) -> AnswerType:
    return answer_type if isinstance(answer_type, AnswerType) else AnswerType(str(answer_type))


def grade_detail(extracted: str | None, gold: str, answer_type: AnswerType | str,
                 options: Sequence[str] | None = None) -> Verdict:
    """Verdict with a reason; `correct` is None when no rule can decide (free text): ask a judge then."""
    if extracted is None:
        return Verdict(False, "no answer extracted")
    cand = clean_answer(str(extracted))
    if not cand:
        return Verdict(False, "empty answer")
    gold = str(gold).strip()
    try:
        return _GRADERS[_as_type(answer_type)](cand, gold, options)
    except (ValueError, ZeroDivisionError, OverflowError) as exc:  # odd gold data must not stop a run
        return Verdict(False, f"ungradable: {exc}")


def grade(extracted: str | None, gold: str, answer_type: AnswerType | str,
          options: Sequence[str] | None = None) -> bool:
    """True only when a rule proves the answer right; undecidable free text counts as wrong here."""
    return grade_detail(extracted, gold, answer_type, options).correct is True


def _compare(c: Parsed, g: Parsed, equal=None) -> Verdict:
    if not g.ok:
        raise ValueError(f"gold unreadable ({g.why})")
    if not c.ok:
        return Verdict(False, c.why)
    same = equal(c.value, g.value) if equal else c.value == g.value
    return Verdict(True, "match") if same else Verdict(False, f"{_fmt(c.value)} != {_fmt(g.value)}")


def _fmt(value: object) -> str:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, tuple | list):
        return "(" + ", ".join(_fmt(v) for v in value) + ")"
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(sorted(_fmt(v) for v in value)) + "}"
    return str(value)


def _grade_integer(cand: str, gold: str, options) -> Verdict:
    return _compare(parse_number(cand, integer=True), parse_number(gold, integer=True))


def _grade_number(cand: str, gold: str, options) -> Verdict:
    return _compare(parse_number(cand), parse_number(gold), lambda c, g: _number_close(c, g, gold))


@lru_cache(maxsize=4096)
def _gold_choice(gold: str, options: tuple[str, ...] | None) -> Parsed:
    return parse_choice(gold, options)


def _grade_choice(cand: str, gold: str, options) -> Verdict:
    opts = tuple(options) if options else None
    return _compare(parse_choice(cand, opts), _gold_choice(gold, opts))


def _grade_time(cand: str, gold: str, options) -> Verdict:
    return _compare(parse_time(cand), parse_time(gold), _time_equal)


def _grade_coordinates(cand: str, gold: str, options) -> Verdict:
    return _compare(parse_coordinates(cand), parse_coordinates(gold))


def _grade_set(cand: str, gold: str, options) -> Verdict:
    kind, gset = _gold_set(gold)
    return _compare(parse_set(cand, kind), Parsed(gset))


def _grade_pair(cand: str, gold: str, options) -> Verdict:
    return _compare(parse_pair(cand, gold), Parsed(_gold_pair_value(gold)))


def _grade_direction(cand: str, gold: str, options) -> Verdict:
    return _compare(parse_direction(cand), parse_direction(gold))


def _grade_text(cand: str, gold: str, options) -> Verdict:
    if re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", gold):
        return _grade_number(cand, gold, options)
    vocab = _vocabulary(gold)
    if vocab:
        return _compare(_vocab_value(cand, vocab), _vocab_value(gold, vocab))
    if simple(cand) == simple(gold):
        return Verdict(True, "match")
    return Verdict(None, "free text outside known vocabularies")


_GRADERS = {
    AnswerType.INTEGER: _grade_integer,
    AnswerType.NUMBER: _grade_number,
    AnswerType.CHOICE: _grade_choice,
    AnswerType.TIME: _grade_time,
    AnswerType.COORDINATES: _grade_coordinates,
    AnswerType.SET: _grade_set,
    AnswerType.PAIR: _grade_pair,
    AnswerType.DIRECTION: _grade_direction,
    AnswerType.TEXT: _grade_text,
}


def canonical(extracted: str | None, answer_type: AnswerType | str, options: Sequence[str] | None = None,
              gold: str | None = None) -> Hashable | None:
    """The value majority voting counts; None when the answer has no definite value (hedged, missing)."""
    if extracted is None:
        return None
    cand = clean_answer(str(extracted))
    if not cand:
        return None
    at = _as_type(answer_type)
    try:
        if at == AnswerType.INTEGER:
            p = parse_number(cand, integer=True)
        elif at == AnswerType.NUMBER:
            p = parse_number(cand)
        elif at == AnswerType.CHOICE:
            p = parse_choice(cand, tuple(options) if options else None)
        elif at == AnswerType.TIME:
            p = parse_time(cand)
            return p.value[0] if p.ok else None  # the dial reading; 24-hour detail would split votes
        elif at == AnswerType.COORDINATES:
            p = parse_coordinates(cand)
        elif at == AnswerType.SET:
            p = parse_set(cand, _gold_set(gold)[0] if gold else "letters")
        elif at == AnswerType.PAIR and gold:
            p = parse_pair(cand, gold)
        elif at == AnswerType.DIRECTION:
            p = parse_direction(cand)
        else:
            vocab = _vocabulary(gold) if gold else None
            p = _vocab_value(cand, vocab) if vocab else Parsed(simple(cand) or None)
    except (ValueError, ZeroDivisionError):
        return None
    return p.value if p.ok else None
