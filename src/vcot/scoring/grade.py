"""Type-aware grading (docs/scoring.md): read the extracted answer and the gold into canonical values, compare.

Each parser finds the *mentions* of candidate values in the answer (numbers, letters, times, direction words,
points) and asks commit.resolve which of them the answer commits to, so "not E", "D (A and C are ruled out)"
and "not 9 — on a recount it is 11" are read as the model meant them. Every parser returns a Parsed: a
canonical value, or why there is none. A hedge ("A or C", "probably B") is graded wrong; an answer whose
commitment the rules cannot read ("4 of the 9 points", "9 — it is 11") is *ambiguous*: `correct=None`, so
the caller may ask a judge, as it does for free text outside any known vocabulary. An answer that rejects
the gold value is wrong, never a match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from vcot.schema import AnswerType
from vcot.scoring.commit import AMBIGUOUS, HEDGED, Mention, Reading, distinct_keys, resolve, skeleton
from vcot.scoring.extract import clean_answer
from vcot.scoring.normalize import (
    APPROX,
    HEDGE,
    NUMBER_WORDS,
    decimals_of,
    distinct,
    normalize_numbers,
    number_mentions,
    simple,
    words_to_digits,
)

# Verdict statuses (docs/scoring.md, "Verdicts").
CORRECT = "correct"
WRONG = "wrong"
UNDECIDABLE = "undecidable"
NO_ANSWER = "no answer"


@dataclass(frozen=True, slots=True)
class Parsed:
    value: Hashable | None
    why: str = ""
    kind: str = ""  # "", HEDGED or AMBIGUOUS: why there is no value
    rejected: tuple[Hashable, ...] = ()  # values the answer negates or withdraws
    notes: tuple[str, ...] = ()  # commitment rules that applied
    approx: bool = False  # the value was given after "≈"

    @property
    def ok(self) -> bool:
        return self.value is not None


@dataclass(frozen=True, slots=True)
class Verdict:
    correct: bool | None
    reason: str
    status: str = field(default="")

    def __post_init__(self) -> None:
        if not self.status:
            status = CORRECT if self.correct else WRONG if self.correct is False else UNDECIDABLE
            object.__setattr__(self, "status", status)


def _fail(why: str, kind: str = "", rejected: tuple[Hashable, ...] = ()) -> Parsed:
    return Parsed(None, why, kind, rejected)


def _fmt(value: object) -> str:
    if isinstance(value, Fraction):
        return str(value)
    if isinstance(value, tuple) and len(value) == 2 and value[0] == "%":
        return f"{_fmt(value[1])}%"
    if isinstance(value, tuple | list):
        return "(" + ", ".join(_fmt(v) for v in value) + ")"
    if isinstance(value, frozenset | set):
        return "{" + ", ".join(sorted(_fmt(v) for v in value)) + "}"
    return str(value)


def _single(r: Reading, fmt: Callable[[Hashable], str] = _fmt) -> Parsed:
    """The one value a reading commits to, for answer types that hold one value."""
    rejected = tuple(distinct_keys(r.rejected))
    if r.problem:
        return Parsed(None, r.why, r.problem, rejected, r.notes)
    keys = distinct_keys(r.kept)
    if not keys:
        if rejected:
            return Parsed(None, "commits to no answer", "", rejected, r.notes)
        return _fail("no value")
    if len(keys) > 1:
        return Parsed(None, f"several values {', '.join(map(fmt, keys))}", AMBIGUOUS, rejected, r.notes)
    if keys[0] in rejected:
        return Parsed(None, f"both gives and rejects {fmt(keys[0])}", AMBIGUOUS, rejected, r.notes)
    first = next(m for m in r.kept if m.k == keys[0])
    return Parsed(first.value, notes=r.notes, rejected=rejected, approx=all(m.approx for m in r.kept))


# ---------------------------------------------------------------------------------------------- numbers

_ROUNDING = re.compile(r"\s*(?:≈|=)\s*$")


def _drop_roundings(ms: list[Mention], sk: str) -> list[Mention]:
    """ "5/8 ≈ 0.625", "1/3 ≈ 0.333": a decimal printed right after an exact value is its rendering, not a
    second answer, if it is that value rounded to its own digits."""
    out: list[Mention] = []
    for m in ms:
        prev = out[-1] if out else None
        if (
            m.approx
            and prev is not None
            and isinstance(m.value, Fraction)
            and isinstance(prev.value, Fraction)
            and _ROUNDING.fullmatch(sk, prev.end, m.start)
        ):
            places = decimals_of(sk[m.start : m.end])
            if places is not None and abs(prev.value - m.value) <= Fraction(1, 2 * 10**places):
                continue
        out.append(m)
    return out


def parse_number(text: str, integer: bool = False) -> Parsed:
    norm = normalize_numbers(text)
    ms = _drop_roundings(number_mentions(norm), norm)
    if not ms:
        return _fail("hedged", HEDGED) if HEDGE.search(text) else _fail("no number")
    r = resolve(norm, ms, fmt=_fmt, extra_hedge=APPROX)
    p = _single(r)
    if not p.ok:
        return p
    if any(m.bound for m in r.kept):
        return Parsed(None, f"a bound, not a value ({_fmt(p.value)})", HEDGED, p.rejected, p.notes)
    v = p.value[1] if isinstance(p.value, tuple) else p.value
    if integer and v.denominator != 1:
        return Parsed(None, f"{_fmt(p.value)} is not an integer", rejected=p.rejected, notes=p.notes)
    return p


def _number_equal(cand: Hashable, gold: Hashable, gold_text: str, exact: bool = False) -> bool:
    # A percentage equals only a percentage: "3%" is not the count 3.
    if isinstance(cand, tuple) != isinstance(gold, tuple):
        return False
    if isinstance(cand, tuple):
        cand, gold = cand[1], gold[1]
    if exact:
        return cand == gold
    # A decimal gold is only as precise as its printed digits: 0.333 accepts 1/3. A fraction or integer
    # gold must be met exactly (up to float noise), so 0.3 never passes for 1/3.
    places = decimals_of(gold_text)
    if places is not None:
        return abs(cand - gold) <= Fraction(1, 2 * 10**places)
    if cand == gold:
        return True
    return abs(float(cand) - float(gold)) <= 1e-9 * max(1.0, abs(float(gold)))


# ---------------------------------------------------------------------------------------------- choice

_KEYWORD_LETTER = re.compile(
    r"\b(?:option|choice|answer|letter|candidate|pocket|wire|pair|view|piece)\s*[:#-]?\s*"
    r"\(?([A-Za-z])\)?(?![\w'])",
    re.I,
)
_PAREN_LETTER = re.compile(r"[(\[]([A-Za-z])[)\]]")
_LEADING_LETTER = re.compile(r"^([A-Z])(?:[.):\]]|\s*$)")
_UPPER_LETTER = re.compile(r"(?<![\w'’-])([A-Z])(?![\w'’])")
# "A cube with ..." uses the article; "A is correct" names option A.
_ARTICLE_A = re.compile(
    r"A\s+(?!(?:is|was|fits|matches|seems|would|should|and|or|because|since|as|looks|works|gives|can|could|"
    r"cannot|can't|isn't|wasn't|does|doesn't|must|will|has|had|too|also|only|—|-)\b)[a-z]"
)


def _option_text_letter(text: str, options: Sequence[str] | None) -> str | None:
    if not options:
        return None
    s = simple(text)
    for i, opt in enumerate(options):
        if s == simple(opt) and s:
            return chr(65 + i)
    return None


@lru_cache(maxsize=1024)
def _option_patterns(options: tuple[str, ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    """Option texts that can be quoted inside a sentence; one-character texts are letters, read as such."""
    out = []
    for i, opt in enumerate(options):
        words = simple(opt).split()
        if not words or (len(words) == 1 and len(words[0]) == 1):
            continue
        out.append(
            (chr(65 + i), re.compile(r"(?<![\w])" + r"[^0-9A-Za-z]+".join(map(re.escape, words)) + r"(?![\w])", re.I))
        )
    return tuple(out)


def _choice_mentions(text: str, options: tuple[str, ...] | None, valid: set[str]) -> list[Mention]:
    found: dict[int, Mention] = {}
    covered: list[tuple[int, int]] = []
    if options:
        for letter, pat in _option_patterns(options):
            for m in pat.finditer(text):
                found[m.start()] = Mention(m.start(), m.end(), letter)
                covered.append((m.start(), m.end()))

    def add(start: int, letter: str) -> None:
        letter = letter.upper()
        if letter in valid and start not in found and not any(s <= start < e for s, e in covered):
            found[start] = Mention(start, start + 1, letter)

    for m in _KEYWORD_LETTER.finditer(text):
        add(m.start(1), m.group(1))
    for m in _PAREN_LETTER.finditer(text):
        add(m.start(1), m.group(1))
    m0 = _LEADING_LETTER.match(text)
    if m0:
        add(0, m0.group(1))
    for m in _UPPER_LETTER.finditer(text):
        letter = m.group(1)
        if letter == "I" and "I" not in valid:
            continue
        if letter == "A" and _ARTICLE_A.match(text, m.start()):
            continue  # the article in "A cube with..."
        add(m.start(), letter)
    return sorted(found.values(), key=lambda x: x.start)


def parse_choice(text: str, options: Sequence[str] | None = None) -> Parsed:
    opts = tuple(options) if options else None
    n = len(opts) if opts else 26
    valid = {chr(65 + i) for i in range(n)}
    # The full text of one option is an unambiguous answer, even if that text contains "or".
    by_text = _option_text_letter(text, opts)
    if by_text:
        return Parsed(by_text)
    bare = text.strip().strip("()[]{}.:").strip()
    if len(bare) == 1 and bare.isalpha():
        letter = bare.upper()
        return Parsed(letter) if letter in valid else _fail(f"letter {letter} is not an option")
    m = _LEADING_LETTER.match(text)
    if m:
        # "B. <text of another option>" contradicts itself.
        rest = text[m.end() :].strip()
        other = _option_text_letter(rest, opts) if rest else None
        if other and other != m.group(1):
            return _fail(f"letter {m.group(1)} with the text of option {other}", AMBIGUOUS)
    ms = _choice_mentions(text, opts, valid)
    if not ms:
        return _fail("hedged", HEDGED) if HEDGE.search(text) else _fail("no option letter")
    return _single(resolve(text, ms))


# ---------------------------------------------------------------------------------------------- time

_TIME = re.compile(
    r"(?<![\d.])(\d{1,2})\s*[:：h.]\s*(\d{2})(?::\d{2})?(?!\d)\s*(a\.?\s?m\.?|p\.?\s?m\.?)?|"
    r"(?<![\d.:])(\d{1,2})\s*(?:(o['’]?\s*clock)|(a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z]))",
    re.I,
)
_NOON = re.compile(r"\b(noon|midday|midnight)\b", re.I)
_HOURS = {w: i for i, w in enumerate("one two three four five six seven eight nine ten eleven twelve".split(), 1)}
_HOUR = r"(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|1[0-2]|0?[1-9])"
_TEENS = "ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen|eighteen|nineteen"
_UNIT_WORDS = "one|two|three|four|five|six|seven|eight|nine"
# "seven fifteen", "three oh five", "eleven forty-five": clock readings spoken as words (words only, so a
# list of digits such as "7 15" is never read as a time).
_SPOKEN = re.compile(
    r"\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)[\s-]+"
    rf"(?:(?:oh|o|zero)[\s-]+({_UNIT_WORDS})|({_TEENS})|(twenty|thirty|forty|fifty)(?:[\s-]+({_UNIT_WORDS}))?)\b"
    r"(?![\s-]+(?:past|after|to|before|till|til|of|minutes?)\b)",
    re.I,
)
# "quarter past three", "twenty to eight", "half past ten", "10 minutes to 4". Bare digit minutes ("10 to
# 4") are left alone: that reads as a range as often as a time.
_RELATIVE = re.compile(
    r"\b(?:(?:a\s+)?(?P<quarter>quarter)|(?P<half>half)|(?P<word>five|ten|twenty|twenty[\s-]five)|"
    rf"(?P<num>\d{{1,2}}|{NUMBER_WORDS}(?:[\s-]+(?:{_UNIT_WORDS}))?)\s+min(?:ute)?s?)"
    rf"\s+(?P<rel>past|after|to|before|till|til|of)\s+{_HOUR}\b",
    re.I,
)
_TENS_VALUE = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50}
_UNIT_VALUE = {w: i for i, w in enumerate(_UNIT_WORDS.split("|"), 1)}
_TEEN_VALUE = {w: i for i, w in enumerate(_TEENS.split("|"), 10)}


def _hour(word: str) -> int:
    return _HOURS.get(word.lower()) or int(word)


def _spoken(m: re.Match[str]) -> str:
    h = _HOURS[m.group(1).lower()]
    if m.group(2):
        mi = _UNIT_VALUE[m.group(2).lower()]
    elif m.group(3):
        mi = _TEEN_VALUE[m.group(3).lower()]
    else:
        mi = _TENS_VALUE[m.group(4).lower()] + (_UNIT_VALUE[m.group(5).lower()] if m.group(5) else 0)
    return f"{h}:{mi:02d}"


def _relative(m: re.Match[str]) -> str:
    rel = m.group("rel").lower()
    if m.group("quarter"):
        mi = 15
    elif m.group("half"):
        if rel not in ("past", "after"):
            return m.group(0)
        mi = 30
    else:
        raw = re.sub(r"[\s-]+", " ", m.group("word") or m.group("num"))
        digits = words_to_digits(raw).split()
        if not all(d.isdigit() for d in digits):
            return m.group(0)
        mi = sum(int(d) for d in digits)
    h = _hour(m.groups()[-1])
    if not 1 <= mi <= 30 or not 1 <= h <= 12:
        return m.group(0)
    if rel in ("past", "after"):
        return f"{h}:{mi:02d}"
    return f"{12 if h == 1 else h - 1}:{60 - mi:02d}"


def normalize_time(text: str) -> str:
    """Clock readings in words rewritten as H:MM, then other number words as digits."""
    if re.search(r"[A-Za-z]", text):
        text = _SPOKEN.sub(_spoken, text)
        text = _RELATIVE.sub(_relative, text)
        text = words_to_digits(text)
    return text


def _time_mentions(norm: str) -> list[Mention]:
    out: list[Mention] = []
    for m in _TIME.finditer(norm):
        if m.group(1) is not None:
            h, mi, ampm = int(m.group(1)), int(m.group(2)), m.group(3)
        else:
            h, mi, ampm = int(m.group(4)), 0, m.group(6)
        if h > 24 or mi > 59:
            continue
        v = _time_value(h, mi, ampm)
        out.append(Mention(m.start(), m.end(), v, key=v[0]))
    for m in _NOON.finditer(norm):
        if any(x.start <= m.start() < x.end for x in out):
            continue
        v = (0, 12 * 60 if m.group(1).lower() != "midnight" else 0)
        out.append(Mention(m.start(), m.end(), v, key=0))
    return sorted(out, key=lambda x: x.start)


def _fmt_dial(dial: Hashable) -> str:
    if isinstance(dial, tuple):
        dial = dial[0]
    h, mi = divmod(int(dial), 60)  # type: ignore[call-overload]
    return f"{h or 12}:{mi:02d}"


def parse_time(text: str) -> Parsed:
    """Value (minutes on a 12-hour dial, 24-hour minutes or None): the 12-hour reading always compares;
    the 24-hour one only when both sides state it (AM/PM, or an hour 0 or 13-23)."""
    norm = normalize_time(text)
    ms = _time_mentions(norm)
    if not ms:
        return _fail("hedged", HEDGED) if HEDGE.search(text) else _fail("no time")
    r = resolve(norm, ms, fmt=_fmt_dial)
    p = _single(r, _fmt_dial)
    if not p.ok:
        return p
    dial = p.value[0]  # type: ignore[index]
    day = distinct([m.value[1] for m in r.kept if m.k == dial and m.value[1] is not None])  # type: ignore[index]
    if len(day) > 1:
        return _fail("several times", AMBIGUOUS)
    return Parsed((dial, day[0] if day else None), notes=p.notes, rejected=p.rejected)


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

_NUM = r"(-?\d+(?:\.\d+)?)"
_PAIR = re.compile(rf"[(\[{{<]\s*{_NUM}\s*[,;]\s*{_NUM}\s*[)\]}}>]")
# Named components: "x = 4, y = -1", "(y: 2, x: 3)", "column 3, row 2". Columns are x and rows are y, the
# localizer task's convention ("Columns are numbered x = 1 to W ... rows y = 1 to H").
_SEP = r"\s*(?:[,;]|\band\b)?\s*"
_NAMED = re.compile(
    rf"[(\[{{]?\s*(?:\bx\s*[=:]?\s*{_NUM}{_SEP}\by\s*[=:]?\s*{_NUM}|\by\s*[=:]?\s*{_NUM}{_SEP}\bx\s*[=:]?\s*{_NUM}|"
    rf"\b(?:column|col)\.?\s*[=:#]?\s*{_NUM}{_SEP}\brow\s*[=:#]?\s*{_NUM}|"
    rf"\brow\s*[=:#]?\s*{_NUM}{_SEP}\b(?:column|col)\.?\s*[=:#]?\s*{_NUM})\s*[)\]}}]?",
    re.I,
)
_BARE_COORDS = re.compile(r"^[\s\d.,;:\-()\[\]{}]+$")
_NUMBER_WORD_HINT = re.compile(rf"\b{NUMBER_WORDS}\b", re.I)
_AXIS_HINT = re.compile(r"\b[xy]\b|row|col", re.I)


def _coordinate_mentions(norm: str) -> list[Mention]:
    out: list[Mention] = []
    for m in _NAMED.finditer(norm) if _AXIS_HINT.search(norm) else ():
        g = m.groups()
        if g[0] is not None:
            x, y = g[0], g[1]
        elif g[2] is not None:
            x, y = g[3], g[2]
        elif g[4] is not None:
            x, y = g[4], g[5]
        else:
            x, y = g[7], g[6]
        out.append(Mention(m.start(), m.end(), (Fraction(x), Fraction(y))))
    for m in _PAIR.finditer(norm):
        if not any(o.start <= m.start() < o.end for o in out):
            out.append(Mention(m.start(), m.end(), (Fraction(m.group(1)), Fraction(m.group(2)))))
    return sorted(out, key=lambda x: x.start)


def _coord_text(text: str) -> str:
    text = text.replace("−", "-")
    return words_to_digits(text) if _NUMBER_WORD_HINT.search(text) else text


def parse_coordinates(text: str) -> Parsed:
    norm = _coord_text(text)
    ms = _coordinate_mentions(norm)
    if not ms and _BARE_COORDS.match(norm):
        # "1,2; 3,4" without brackets: numbers taken two at a time.
        nums = [Fraction(x) for x in re.findall(r"-?\d+(?:\.\d+)?", norm)]
        if nums and len(nums) % 2 == 0:
            return Parsed(tuple(zip(nums[::2], nums[1::2], strict=True)))
    if not ms:
        return _fail("hedged", HEDGED) if HEDGE.search(text) else _fail("no coordinates")
    return _listy(resolve(norm, ms, listy=True, fmt=_fmt), tuple)


def _listy(r: Reading, build: Callable[[list[Hashable]], Hashable]) -> Parsed:
    rejected = tuple(distinct_keys(r.rejected))
    if r.problem:
        return Parsed(None, r.why, r.problem, rejected, r.notes)
    if not r.kept:
        if rejected:
            return Parsed(None, "commits to no answer", "", rejected, r.notes)
        return _fail("nothing committed")
    both = [k for k in distinct_keys(r.kept) if k in rejected]
    if both:
        return Parsed(None, f"both gives and rejects {', '.join(map(_fmt, both))}", AMBIGUOUS, rejected, r.notes)
    return Parsed(build([m.value for m in r.kept]), notes=r.notes, rejected=rejected)


# ---------------------------------------------------------------------------------------------- sets

_SET_FILLER = frozenset(
    {
        "and",
        "pieces",
        "piece",
        "the",
        "set",
        "are",
        "is",
        "answer",
        "options",
        "option",
        "shapes",
        "shape",
        "parts",
        "part",
        "with",
        "together",
        "plus",
        "needed",
        "used",
        "letters",
        "labels",
    }
)
_SET_SPLIT = re.compile(r"\s*(?:,|;|\band\b|&|\+|\n)\s*", re.I)
_TOKEN = re.compile(r"[A-Za-z0-9]+")


@lru_cache(maxsize=4096)
def _gold_set(gold: str) -> tuple[str, frozenset]:
    pairs = _coordinate_mentions(_coord_text(gold))
    if pairs:
        return "pairs", frozenset(m.value for m in pairs)
    items = [x for x in _SET_SPLIT.split(gold.strip().strip("{}[]()")) if x.strip()]
    if items and all(len(x.strip()) == 1 and x.strip().isalpha() for x in items):
        return "letters", frozenset(x.strip().upper() for x in items)
    if items and all(re.fullmatch(r"-?\d+(?:\.\d+)?", x.strip()) for x in items):
        return "numbers", frozenset(Fraction(x.strip()) for x in items)
    return "text", frozenset(simple(x) for x in items)


def _letter_mentions(text: str) -> list[Mention]:
    tokens = [t for t in _TOKEN.finditer(text) if t.group(0).lower() not in _SET_FILLER]
    if tokens and all(len(t.group(0)) == 1 and t.group(0).isalpha() for t in tokens):
        return [Mention(t.start(), t.end(), t.group(0).upper()) for t in tokens]
    out = []
    first = tokens[0] if tokens else None
    if (
        first is not None
        and first.group(0).isupper()
        and first.group(0).isalpha()
        and 2 <= len(first.group(0)) <= 12
        and len(set(first.group(0))) == len(first.group(0))
    ):
        out += [Mention(first.start() + i, first.start() + i + 1, c) for i, c in enumerate(first.group(0))]  # "ACD"
    out += [Mention(m.start(), m.end(), m.group(1)) for m in _UPPER_LETTER.finditer(text) if m.group(1) != "I"]
    return sorted(out, key=lambda x: x.start)


def parse_set(text: str, kind: str) -> Parsed:
    if kind == "text":
        if HEDGE.search(text):
            return _fail("hedged", HEDGED)
        if _NEGATION.search(text):
            return _fail("negation inside a free-text set", AMBIGUOUS)
        items = [simple(x) for x in _SET_SPLIT.split(text) if simple(x)]
        return Parsed(frozenset(items)) if items else _fail("empty set")
    if kind == "numbers":
        norm = normalize_numbers(text)
        ms = number_mentions(norm)
    elif kind == "pairs":
        norm = _coord_text(text)
        ms = _coordinate_mentions(norm)
    else:
        norm = text
        ms = _letter_mentions(text)
    if not ms:
        return _fail("hedged", HEDGED) if HEDGE.search(text) else _fail(f"no {kind}")
    return _listy(resolve(norm, ms, listy=True, fmt=_fmt), frozenset)


# ---------------------------------------------------------------------------------------------- vocabularies

# Word groups whose members exclude each other: naming two members is a contradiction, not an answer.
_ROTATION = re.compile(
    r"\b(?P<ccw>(?:counter|anti)[\s-]?clock[\s-]?wise|ccw)\b|\b(?P<cw>clock[\s-]?wise|cw)\b|"
    r"\b(?P<jam>jam(?:med|s|ming)?|lock(?:ed|s)?|stuck|seized|blocked|(?:(?:can|does|do|will|would|is|are)\s+not|"
    r"cannot|can['’]t|won['’]t|(?:does|do|would|is|are)n['’]t|unable\s+to)\s+(?:be\s+able\s+to\s+)?"
    r"(?:rotate|turn|move|spin)"
    r"(?:\s+at\s+all)?(?:\s+(?:in\s+)?(?:either|any)\s+(?:direction|way))?)\b",
    re.I,
)
# "doesn't turn clockwise" rejects clockwise; it does not say "jammed".
_DIRECTION_NEXT = re.compile(
    r"\s+(?:(?:in\s+)?(?:a|the|any)\s+)?(?:(?:counter|anti)[\s-]?)?clock[\s-]?wise|\s+cc?w\b", re.I
)
_JAM_WORD = re.compile(r"jam|lock|stuck|seized|blocked", re.I)
_COLOUR_SAME = re.compile(r"\b(?:(?:the\s+)?same|equal|equally|tie|tied|draw|neither|even|level)\b", re.I)
_COLOURS = ("red", "black", "blue", "green", "yellow", "white", "orange", "purple")
_COLOUR = re.compile(r"\b(" + "|".join(_COLOURS) + r")\b", re.I)
_COLOUR_NEXT = re.compile(r"\s+(?:path\s+)?(?:" + "|".join(_COLOURS) + r")\b", re.I)
_YESNO = re.compile(r"\b(?P<yes>yes|true)\b|\b(?P<no>no|false)\b", re.I)
_NEGATION = re.compile(
    r"\b(?:not|never|no|none|neither|nor|n['’]t|cannot|without|except|rather\s+than|"
    r"instead\s+of)\b|n['’]t\b",
    re.I,
)


def _vocab_mentions(text: str, vocab: str) -> list[Mention]:
    out: list[Mention] = []
    if vocab == "rotation":
        for m in _ROTATION.finditer(text):
            if m.group("ccw"):
                v = "counterclockwise"
            elif m.group("cw"):
                v = "clockwise"
            else:
                if not _JAM_WORD.match(m.group(0)) and _DIRECTION_NEXT.match(text, m.end()):
                    continue
                v = "jammed"
            out.append(Mention(m.start(), m.end(), v))
    elif vocab == "colour":
        for m in _COLOUR.finditer(text):
            out.append(Mention(m.start(), m.end(), m.group(1).lower()))
        for m in _COLOUR_SAME.finditer(text):
            if m.group(0).lower() == "neither" and _COLOUR_NEXT.match(text, m.end()):
                continue  # "neither red nor black" rejects both colours
            out.append(Mention(m.start(), m.end(), "same"))
    else:
        for m in _YESNO.finditer(text):
            out.append(Mention(m.start(), m.end(), "yes" if m.group("yes") else "no"))
    return sorted(out, key=lambda x: x.start)


@lru_cache(maxsize=4096)
def _vocabulary(gold: str) -> str | None:
    g = gold.strip().lower()
    g = re.sub(r"^the\s+", "", g)
    if len(g) > 30:
        return None
    rot = {m.value for m in _vocab_mentions(g, "rotation")}
    if len(rot) == 1:
        # A gold that negates its own word ("not jammed") is free text, not that word.
        sk = skeleton(g, _vocab_mentions(g, "rotation"))
        return None if _NEGATION.search(sk) else "rotation"
    if g in _COLOURS or g == "same":
        return "colour"
    if g in {"yes", "no", "true", "false"}:
        return "yesno"
    return None


def _vocab_value(text: str, vocab: str) -> Parsed:
    ms = _vocab_mentions(text, vocab)
    if not ms:
        return _fail("hedged", HEDGED) if HEDGE.search(text) else _fail(f"no {vocab} word")
    return _single(resolve(text, ms))


# ---------------------------------------------------------------------------------------------- directions

_DIR_TOKEN = re.compile(
    r"(?P<comp>(?:north|south)[\s-]*(?:east|west))|\b(?P<word>north|south|east|west|up|upwards?|down|downwards?|"
    r"left|leftwards?|right|rightwards?|top|bottom|upper|lower|above|below)\b|(?P<arrow>[↑↓←→↖↗↘↙])",
    re.I,
)
_ABBREV_TOKEN = re.compile(r"(?<![\w'’-])(NE|NW|SE|SW|N|S|E|W)(?![\w'’])")
# Components of one direction: "up and to the left", "upper-left", "north west", "top / left".
_DIR_JOIN = re.compile(
    r"(?:\s*[-/]\s*|\s+|\s+and\s+(?:to\s+|towards?\s+)?(?:the\s+)?|\s+(?:to|towards?)\s+the\s+)", re.I
)
_RIGHT_MEANS_CORRECT = re.compile(r"(?:\b(?:is|are|was|'s|’s|be|seems?|looks?|sounds?)\s+|,\s*)$", re.I)
_VEC = {
    "north": (0, 1),
    "up": (0, 1),
    "upward": (0, 1),
    "upwards": (0, 1),
    "top": (0, 1),
    "upper": (0, 1),
    "above": (0, 1),
    "↑": (0, 1),
    "south": (0, -1),
    "down": (0, -1),
    "downward": (0, -1),
    "downwards": (0, -1),
    "bottom": (0, -1),
    "lower": (0, -1),
    "below": (0, -1),
    "↓": (0, -1),
    "east": (1, 0),
    "right": (1, 0),
    "rightward": (1, 0),
    "rightwards": (1, 0),
    "→": (1, 0),
    "west": (-1, 0),
    "left": (-1, 0),
    "leftward": (-1, 0),
    "leftwards": (-1, 0),
    "←": (-1, 0),
    "↖": (-1, 1),
    "↗": (1, 1),
    "↘": (1, -1),
    "↙": (-1, -1),
}
_ABBREV = {
    "n": (0, 1),
    "s": (0, -1),
    "e": (1, 0),
    "w": (-1, 0),
    "ne": (1, 1),
    "nw": (-1, 1),
    "se": (1, -1),
    "sw": (-1, -1),
}
_NAMES = {
    (0, 1): "north",
    (1, 1): "northeast",
    (1, 0): "east",
    (1, -1): "southeast",
    (0, -1): "south",
    (-1, -1): "southwest",
    (-1, 0): "west",
    (-1, 1): "northwest",
}
_CONTRADICTORY = "contradictory"


def _direction_tokens(text: str) -> list[tuple[int, int, tuple[int, int]]]:
    out = []
    for m in _DIR_TOKEN.finditer(text):
        word = m.group(0).lower()
        if m.group("comp"):
            a, b = re.split(r"[\s-]*(?=east|west)", word, maxsplit=1)
            vec = (_VEC[b][0], _VEC[a.strip()][1])
        else:
            if word == "right" and _RIGHT_MEANS_CORRECT.search(text, 0, m.start()):
                continue  # "that is right" judges, it does not point
            vec = _VEC[word]
        out.append((m.start(), m.end(), vec))
    for m in _ABBREV_TOKEN.finditer(text):
        if not any(s <= m.start() < e for s, e, _ in out):
            out.append((m.start(), m.end(), _ABBREV[m.group(1).lower()]))
    return sorted(out)


def _direction_mentions(text: str) -> list[Mention]:
    groups: list[list[tuple[int, int, tuple[int, int]]]] = []
    for tok in _direction_tokens(text):
        if groups and _DIR_JOIN.fullmatch(text, groups[-1][-1][1], tok[0]):
            groups[-1].append(tok)
        else:
            groups.append([tok])
    out = []
    for g in groups:
        xs = {v[0] for _, _, v in g if v[0]}
        ys = {v[1] for _, _, v in g if v[1]}
        if len(xs) > 1 or len(ys) > 1:
            value = _CONTRADICTORY
        else:
            vec = (xs.pop() if xs else 0, ys.pop() if ys else 0)
            value = _NAMES[vec]
        out.append(Mention(g[0][0], g[-1][1], value))
    return out


def parse_direction(text: str) -> Parsed:
    t = text.strip().strip(".!()").lower()
    if t in _ABBREV:
        return Parsed(_NAMES[_ABBREV[t]])
    ms = _direction_mentions(text)
    if not ms:
        return _fail("hedged", HEDGED) if HEDGE.search(text) else _fail("no direction")
    p = _single(resolve(text, ms))
    if p.value == _CONTRADICTORY:
        return _fail("contradictory directions", AMBIGUOUS, p.rejected)
    return p


# ---------------------------------------------------------------------------------------------- pairs


@lru_cache(maxsize=4096)
def _gold_pair(gold: str) -> tuple[tuple[str, ...], tuple[Fraction, ...]]:
    parts = [p.strip() for p in re.split(r"[,;]", gold) if p.strip()]
    words = tuple(simple(p) for p in parts if not re.fullmatch(r"-?\d+(?:\.\d+)?", p))
    nums = tuple(Fraction(p) for p in parts if re.fullmatch(r"-?\d+(?:\.\d+)?", p))
    return words, nums


def parse_pair(text: str, gold: str) -> Parsed:
    """Both parts must match (MIRA's rolling_dice_two rule): the word part by vocabulary, the numbers in order."""
    words, nums = _gold_pair(gold)
    vocabs = [_vocabulary(w) for w in words]
    norm = normalize_numbers(text)
    ms = [Mention(m.start, m.end, ("n", m.value)) for m in number_mentions(norm)]
    taken = [(m.start, m.end) for m in ms]
    for vocab in distinct([v for v in vocabs if v]):
        for m in _vocab_mentions(norm, vocab):
            if not any(s <= m.start < e for s, e in taken):
                ms.append(Mention(m.start, m.end, (vocab, m.value)))
    ms.sort(key=lambda m: m.start)
    need = {v for v in vocabs if v}

    def complete(found: Sequence[Mention]) -> bool:
        kinds = {m.value[0] for m in found}  # type: ignore[index]
        return need <= kinds and sum(1 for m in found if m.value[0] == "n") >= len(nums)  # type: ignore[index]

    r = resolve(norm, ms, listy=True, complete=complete, fmt=lambda v: _fmt(v[1]))  # type: ignore[index]
    if r.problem:
        return Parsed(None, r.why, r.problem, tuple(distinct_keys(r.rejected)), r.notes)
    got_words: list[str] = []
    for w, vocab in zip(words, vocabs, strict=True):
        if vocab:
            found = distinct([m.value[1] for m in r.kept if m.value[0] == vocab])  # type: ignore[index]
            if len(found) > 1:
                return _fail(f"contradictory {sorted(found)}", AMBIGUOUS)
            if not found:
                return _fail(f"no {vocab} word")
            got_words.append(str(found[0]))
        else:
            got_words.append(w if f" {w} " in f" {simple(text)} " else "")
    got_nums = tuple(distinct([m.value[1] for m in r.kept if m.value[0] == "n"]))  # type: ignore[index]
    if len(got_nums) != len(nums):
        return _fail(
            f"expected {len(nums)} number(s), found {len(got_nums)}", AMBIGUOUS if len(got_nums) > len(nums) else ""
        )
    return Parsed((tuple(got_words), got_nums), notes=r.notes)


@lru_cache(maxsize=4096)
def _gold_pair_value(gold: str) -> tuple:
    words, nums = _gold_pair(gold)
    canon = []
    for w in words:
        vocab = _vocabulary(w)
        canon.append(str(_vocab_value(w, vocab).value) if vocab else w)
    return tuple(canon), nums


# ---------------------------------------------------------------------------------------------- free text

_DETERMINERS = frozenset("the a an it is it's its this that which one ones answer my final".split())
# Head nouns that may stand around a one-word answer without changing it: "the upper one", "the left gear".
_HEAD_NOUNS = frozenset(
    (
        "one ones side part piece option choice gear wheel shape figure object item image picture path way end "
        "position cell box panel region area edge face line arrow direction case version variant pattern kind type"
    ).split()
)


def _grade_free_text(cand: str, gold: str) -> Verdict:
    words = simple(gold).split()
    if not words:
        raise ValueError("empty gold")
    pat = re.compile(r"(?<![\w])" + r"[^0-9A-Za-z]+".join(map(re.escape, words)) + r"(?![\w])", re.I)
    ms = [Mention(m.start(), m.end(), simple(gold)) for m in pat.finditer(cand)]
    if not ms or _NEGATION.search(gold) or len(words) > 3:
        return Verdict(None, "free text outside known vocabularies", UNDECIDABLE)
    r = resolve(cand, ms)
    p = _single(r)
    if not p.ok:
        if p.rejected:
            return Verdict(False, f"rejects the gold '{gold}'", WRONG)
        return Verdict(None if p.kind == AMBIGUOUS else False, p.why, AMBIGUOUS if p.kind == AMBIGUOUS else WRONG)
    # Outside the gold phrase only articles and a generic head noun may remain ("the upper one"); a
    # negated tail that names no candidate ("..., not the lower one") is working.
    sk = skeleton(cand, r.kept)
    sk = re.sub(r"(?:,\s*|\s+)(?:not|rather\s+than|instead\s+of)\b[^.;,]*$", " ", sk, flags=re.I)
    rest = [w for w in simple(sk.replace("\x00", " ")).split() if w not in _DETERMINERS]
    if len(rest) <= 1 and all(w in _HEAD_NOUNS for w in rest):
        return Verdict(True, f"match: '{gold}' in a short noun phrase", CORRECT)
    return Verdict(None, "free text outside known vocabularies", UNDECIDABLE)


# ---------------------------------------------------------------------------------------------- dispatch


def _as_type(answer_type: AnswerType | str) -> AnswerType:
    return answer_type if isinstance(answer_type, AnswerType) else AnswerType(str(answer_type))


def grade_detail(
    extracted: str | None, gold: str, answer_type: AnswerType | str, options: Sequence[str] | None = None
) -> Verdict:
    """Verdict with a reason; `correct` is None when no rule can decide (free text, or an answer whose
    commitment is ambiguous): ask a judge then."""
    if extracted is None:
        return Verdict(False, "no answer extracted", NO_ANSWER)
    cand = clean_answer(str(extracted))
    if not cand:
        return Verdict(False, "empty answer", NO_ANSWER)
    gold = str(gold).strip()
    try:
        return _GRADERS[_as_type(answer_type)](cand, gold, options)
    except (ValueError, ZeroDivisionError, OverflowError) as exc:  # odd gold data must not stop a run
        return Verdict(False, f"ungradable: {exc}", WRONG)


def grade(
    extracted: str | None, gold: str, answer_type: AnswerType | str, options: Sequence[str] | None = None
) -> bool:
    """True only when a rule proves the answer right; undecidable or ambiguous answers count as wrong here."""
    return grade_detail(extracted, gold, answer_type, options).correct is True


def _with_notes(reason: str, p: Parsed) -> str:
    notes = [n for n in p.notes if n not in reason]
    return f"{reason} ({'; '.join(notes)})" if notes else reason


def _compare(
    c: Parsed,
    g: Parsed,
    equal: Callable[[Hashable, Hashable], bool] | None = None,
    fmt: Callable[[Hashable], str] = _fmt,
) -> Verdict:
    if not g.ok:
        raise ValueError(f"gold unreadable ({g.why})")
    eq = equal or (lambda a, b: a == b)
    if not c.ok:
        if any(eq(r, g.value) for r in c.rejected):
            return Verdict(False, _with_notes(f"rejects {fmt(g.value)} (the gold) and {c.why}", c), WRONG)
        if c.kind == AMBIGUOUS:
            return Verdict(None, _with_notes(f"ambiguous: {c.why}", c), AMBIGUOUS)
        return Verdict(False, _with_notes(c.why, c), WRONG)
    if eq(c.value, g.value):
        return Verdict(True, _with_notes("match", c), CORRECT)
    return Verdict(False, _with_notes(f"{fmt(c.value)} != {fmt(g.value)}", c), WRONG)


# Golds repeat across a results table; their parses are cached.
_gold_number = lru_cache(maxsize=4096)(parse_number)
_gold_time = lru_cache(maxsize=4096)(parse_time)
_gold_coordinates = lru_cache(maxsize=4096)(parse_coordinates)
_gold_direction = lru_cache(maxsize=4096)(parse_direction)
_gold_vocab = lru_cache(maxsize=4096)(
    lambda gold, vocab: _vocab_value(re.sub(r"^\s*the\s+", "", gold, flags=re.I), vocab)
)


def _grade_integer(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    c = parse_number(cand, integer=True)
    return _compare(c, _gold_number(gold, True), lambda a, b: _number_equal(a, b, gold, exact=c.approx))


def _grade_number(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    c = parse_number(cand)
    return _compare(c, _gold_number(gold, False), lambda a, b: _number_equal(a, b, gold, exact=c.approx))


@lru_cache(maxsize=4096)
def _gold_choice(gold: str, options: tuple[str, ...] | None) -> Parsed:
    return parse_choice(gold, options)


def _grade_choice(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    opts = tuple(options) if options else None
    return _compare(parse_choice(cand, opts), _gold_choice(gold, opts))


def _grade_time(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    def eq(c: Hashable, g: Hashable) -> bool:
        # Rejected values are dial readings; committed ones carry the 24-hour reading too.
        return _time_equal(c if isinstance(c, tuple) else (c, None), g)  # type: ignore[arg-type]

    return _compare(parse_time(cand), _gold_time(gold), eq, _fmt_dial)


def _grade_coordinates(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    c = parse_coordinates(cand)
    g = _gold_coordinates(gold)
    if not c.ok and c.rejected and g.ok and len(g.value) == 1:  # type: ignore[arg-type]
        # A single point rejected: compare it with the gold's single point.
        c = Parsed(None, c.why, c.kind, tuple((r,) for r in c.rejected), c.notes)  # type: ignore[misc]
    return _compare(c, g)


def _grade_set(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    kind, gset = _gold_set(gold)
    c = parse_set(cand, kind)
    if not c.ok and c.rejected and set(c.rejected) >= gset:
        return Verdict(False, _with_notes(f"rejects {_fmt(gset)} (the gold) and {c.why}", c), WRONG)
    return _compare(c, Parsed(gset))


def _grade_pair(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    return _compare(parse_pair(cand, gold), Parsed(_gold_pair_value(gold)))


def _grade_direction(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    # Rotation answers ("clockwise") are stored under `direction` by some task sets.
    if _vocabulary(gold) == "rotation":
        return _compare(_vocab_value(cand, "rotation"), _gold_vocab(gold, "rotation"))
    return _compare(parse_direction(cand), _gold_direction(gold))


def _grade_text(cand: str, gold: str, options: Sequence[str] | None) -> Verdict:
    if re.fullmatch(r"\s*-?\d+(?:\.\d+)?\s*", gold):
        return _grade_number(cand, gold, options)
    vocab = _vocabulary(gold)
    if vocab:
        return _compare(_vocab_value(cand, vocab), _gold_vocab(gold, vocab))
    if simple(cand) == simple(gold):
        return Verdict(True, "match", CORRECT)
    return _grade_free_text(cand, gold)


_GRADERS: dict[AnswerType, Callable[[str, str, Sequence[str] | None], Verdict]] = {
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


def parse_answer(
    extracted: str, answer_type: AnswerType | str, options: Sequence[str] | None = None, gold: str | None = None
) -> Parsed:
    """The committed value of an extracted answer as its type reads it (what `canonical` returns)."""
    cand = clean_answer(str(extracted))
    at = _as_type(answer_type)
    if at == AnswerType.INTEGER:
        return parse_number(cand, integer=True)
    if at == AnswerType.NUMBER:
        return parse_number(cand)
    if at == AnswerType.CHOICE:
        return parse_choice(cand, tuple(options) if options else None)
    if at == AnswerType.TIME:
        return parse_time(cand)
    if at == AnswerType.COORDINATES:
        return parse_coordinates(cand)
    if at == AnswerType.SET:
        return parse_set(cand, _gold_set(gold)[0] if gold else "letters")
    if at == AnswerType.PAIR:
        return parse_pair(cand, gold) if gold else _fail("no gold to read a pair against")
    if at == AnswerType.DIRECTION:
        if gold and _vocabulary(gold) == "rotation":
            return _vocab_value(cand, "rotation")
        return parse_direction(cand)
    vocab = _vocabulary(gold) if gold else None
    return _vocab_value(cand, vocab) if vocab else Parsed(simple(cand) or None)


def format_value(value: Hashable, answer_type: AnswerType | str) -> str:
    """A parsed value as people write it: 5/8, {A, C, D}, ((1, 2), (3, 4)), 3:15."""
    if _as_type(answer_type) == AnswerType.TIME and isinstance(value, tuple):
        return _fmt_dial(value)
    return _fmt(value)


def canonical(
    extracted: str | None, answer_type: AnswerType | str, options: Sequence[str] | None = None, gold: str | None = None
) -> Hashable | None:
    """The value majority voting counts; None when the answer has no definite value (hedged, ambiguous,
    only a rejection, missing)."""
    if extracted is None or not clean_answer(str(extracted)):
        return None
    try:
        p = parse_answer(extracted, answer_type, options, gold)
    except (ValueError, ZeroDivisionError):
        return None
    if not p.ok:
        return None
    if _as_type(answer_type) == AnswerType.TIME:
        return p.value[0]  # type: ignore[index]  # the dial reading; 24-hour detail would split votes
    return p.value
