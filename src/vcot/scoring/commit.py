"""Which candidate an answer span commits to when it also negates, revises or justifies (docs/scoring.md,
"Commitment: negation, revision, justification").

The graders find *mentions* of candidate values in an answer span: numbers, option letters, times, direction
and rotation words. Models seldom answer with a bare value: "not E", "D (A and C are ruled out)",
"7 (3 in front, 4 behind)", "not 9 — on a recount it is 11". Counting every mention as a vote credits E and A
in the first two and calls the last two ambiguous. `resolve` decides which mentions are committed:

1. revision: a self-correction ("actually", "on a recount", "no,", "or rather") supersedes what precedes it;
2. negation: a cue before a mention ("not", "rather than", "except") or after it ("is wrong", "are ruled
   out") rejects it, and a rejected value is never credited;
3. justification: a clause after a complete answer (in brackets, after "because"/"of which", or after a
   colon, dash or full stop when the head is bare) is working, unless it hedges or restates another answer;
4. conclusion: "so"/"therefore"/"=" before a value, or "in total" after it, picks it out of the working.

Everything runs on a skeleton of the span in which the mentions are blanked, so the text of a mention is
never read as a cue: the jammed-synonym "cannot rotate" is not a negation, and "neither" meaning a tie is not
one either. When the rules leave no single reading, `Reading.problem` says why; the grader then calls the
answer hedged or ambiguous, never a match.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass

BLANK = "\x00"

HEDGED = "hedged"
AMBIGUOUS = "ambiguous"


@dataclass(frozen=True, slots=True)
class Mention:
    start: int
    end: int
    value: Hashable
    key: Hashable = None  # what makes two mentions "the same answer" when it is not the value itself
    approx: bool = False  # the value follows "≈"
    bound: bool = False  # the value is a bound, not a value: "at least 8", "more than 8", "8+"

    @property
    def k(self) -> Hashable:
        return self.value if self.key is None else self.key


@dataclass(frozen=True, slots=True)
class Reading:
    kept: tuple[Mention, ...]
    rejected: tuple[Mention, ...]
    notes: tuple[str, ...] = ()
    problem: str = ""  # HEDGED or AMBIGUOUS when no commitment can be read
    why: str = ""


# --------------------------------------------------------------------------------------------- cue patterns

_NT = r"n['’]t"
_NEG_AUX = (
    r"(?:(?:does|do|did|would|will|should|could|can|is|are|was|were|has|have|must)\s+not|cannot|"
    r"(?:does|do|did|would|should|could|is|are|was|were|has|have|must)n['’]t|can['’]t|won['’]t)"
)
_COPULA = r"(?:is|are|was|were|be|being|seems?|looks?|appears?|['’]s)"
_ADVERB = r"(?:(?:definitely|clearly|certainly|obviously|also|both|all|therefore|thus|then)\s+)?"
_WRONG = (
    r"(?:wrong|incorrect|invalid|impossible|ruled\s+out|excluded|eliminated|rejected|discarded|unused|"
    r"(?:a\s+)?(?:distractors?|decoys?|miscount|mistake|typo|mismatch)|no\s+match|out\s+of\s+the\s+question|"
    r"not\s+an?\s+option|"
    r"not\s+(?:used|needed|part\s+of\s+(?:it|the\s+answer)))"
)
_NOT_RIGHT = (
    r"(?:not|" + _NT + r")\s+(?:quite\s+|really\s+)?(?:correct|right|valid|possible|it|true|"
    r"the\s+(?:answer|one|case|solution|right\s+one|correct\s+one)|an?\s+(?:option|answer|match|solution))"
)
_FAILS = rf"(?:{_NEG_AUX}|fails?\s+to)\s+(?:work|fit|match|apply|hold|qualify|be\s+(?:it|right|correct))|\bfails\b"
# A cue after the mentions it rejects; listed first so that "is not correct" is not read as "not" + "correct".
_POST = (
    rf"(?:{_COPULA}\s*{_ADVERB})?(?:{_WRONG}|{_NOT_RIGHT})|{_COPULA}\s+{_ADVERB}out\b(?!\s+of\b)|{_FAILS}"
    r"|\bcan\s+be\s+(?:ruled\s+out|excluded|eliminated)"
)
# A cue before the mentions it rejects. "doesn't turn" keeps its verb, so "doesn't turn clockwise" rejects
# clockwise (the rotation finder does not read it as "jammed" when a direction follows).
_VERB = r"(?:\s+(?:be|turn|rotate|spin|move|go|point|show|read|think|get|equal|give|make))?"
_PRE = (
    r"(?P<aux>" + _NEG_AUX + _VERB + r")|not|never|neither|nor|no\s+longer|ain['’]t|"
    r"(?:anything|everything|all|any\s+\w+)\s+(?:but|except|other\s+than)|"
    r"rather\s+than|instead\s+of|other\s+than|except(?:\s+for)?|excluding|exclude[sd]?|apart\s+from|"
    r"aside\s+from|as\s+opposed\s+to|unlike|without|away\s+from|rul(?:e|es|ed|ing)\s+out|eliminat(?:e|es|ed|ing)|"
    r"reject(?:s|ed|ing)?|discard(?:s|ed|ing)?"
)
_CUES = re.compile(rf"(?P<post>\b(?:{_POST}))(?![\w'’])|(?P<pre>\b(?:{_PRE}))(?![\w'’])", re.I)

# Self-corrections: what precedes the last one is superseded. Strong markers withdraw the earlier answer even
# when nothing follows ("11 — wait, no."); weak ones ("actually", "instead") only matter when a value follows.
_STRONG_REVISION = (
    r"no\s+wait|wait\s*,?\s*no|scratch\s+that|oops|sorry|i\s+was\s+wrong|my\s+mistake|"
    r"correction|let\s+me\s+correct(?:\s+(?:that|myself))?|correcting\s+(?:that|myself)|"
    r"(?<![\w'’])no(?=\s*[,.;:!—–-])"
)
_WEAK_REVISION = (
    r"actually|wait|on\s+(?:a\s+|the\s+)?(?:second\s+(?:thought|look|glance)|re-?count|re-?check|"
    r"closer\s+(?:look|inspection)|reflection|re-?examination|re-?inspection)|"
    r"after\s+re-?(?:counting|checking|examining|reading)|re-?counting|re-?checking|"
    r"make\s+that|i\s+mean|or\s+rather|instead(?!\s+of)|in\s+fact|on\s+recount"
)
_REVISION = re.compile(rf"(?P<strong>\b(?:{_STRONG_REVISION}))|(?P<weak>\b(?:{_WEAK_REVISION})\b|\?(?=\s+\S))", re.I)
# "I first counted 9 but it is 11": a "but" after a tentative claim revises it.
_TENTATIVE = re.compile(
    r"\b(?:first|initially|originally|earlier|previously|thought|seemed|seems|looked|"
    r"looks|appeared|appears|guess(?:ed)?|naively|expected|might|may)\b",
    re.I,
)
_BUT = re.compile(r"\bbut\b", re.I)

# Where a cue's reach ends. A cue after its mentions reaches back to the start of its clause (commas do not
# end it: "A, C are wrong" rejects both); a cue before them reaches forward over the clause.
_BACK_STOP = re.compile(
    r"[.;!?:()\[\]\n—–]| - |\b(?:but|so|because|since|as|while|whereas|therefore|thus|"
    r"hence|then|although|though|however|if|given)\b",
    re.I,
)
_FWD_STOP = re.compile(
    r"[.;!?:()\[\]\n—–]| - |\b(?:but|instead|rather|so|therefore|thus|hence|however|"
    r"actually)\b",
    re.I,
)
# A verdict before "is B" names B; a negated verb after one word names the mention before it ("E isn't").
_NAMED_NEXT = re.compile(
    r"\s*(?:(?:one|ones|option|options|choice|answer|letter|value|pocket|wire|piece|pieces|view|"
    r"candidate|gear|pair|time|direction)\s+)?(?:is|are|was|were|would\s+be|:)\s*"
    r"(?:the\s+|option\s+|choice\s+|pocket\s+|wire\s+|piece\s+|pieces\s+)?",
    re.I,
)
_PARTICIPLE = re.compile(r"(?:ruled\s+out|excluded|eliminated|rejected|discarded)", re.I)
_OBJECT_GAP = re.compile(r"\s*(?:the\s+)?(?:option|options|point|points|cell|cells|piece|pieces|letter|value)?\s*")
_SUBJECT_GAP = re.compile(r"\s*(?:[A-Za-z]+\s+)?")
# Mentions joined this way share a preceding negation: "not A or B", "neither A nor B", "B, C and D".
_COMMA = re.compile(r"\s*,\s*")
_JOINER = re.compile(r"\s*,?\s*(?:or|nor|and|&|/)\s*(?:the\s+|option\s+|choice\s+)?", re.I)

# Justification: a bracketed clause or a tail introduced by these words, after a complete answer.
_GROUP = re.compile(r"[(\[]([^()\[\]]*)[)\]]")
_CONNECTIVE = re.compile(
    r"\s*[,;:]?\s*\b(?:because|since|as(?!\s+well)|given(?:\s+that)?|counting|including|"
    r"of\s+which|where|whereas|which|i\.e\.|e\.g\.|namely|based\s+on|due\s+to|"
    r"according\s+to|consisting\s+of|made\s+up\s+of)\b",
    re.I,
)
_LEADING_CLAUSE = re.compile(r"\s*(?:because|since|as|given(?:\s+that)?)\b[^,:;]*[,:;]", re.I)
_SEPARATOR = re.compile(r"\s*(?:[:;—–]|\s-\s|[.!]\s|\n)")
_WORD = re.compile(r"[A-Za-z][A-Za-z'’]+")
_PRONOUN_I = re.compile(r"(?<![\w'’])I(?![\w'’])")
_ARITH = re.compile(rf"{BLANK}\s*[-+*×x·/÷=]\s*{BLANK}")
# Words that may stand around a bare committed value ("It is 7 cubes in total"). A head with any other word
# ("3 in front") is itself a clause, so what follows it is not working but another claim.
_LEAD_WORDS = frozenset(
    (
        "it is its it's that this there are the a an answer final my i choose pick select go with get count see "
        "total in all altogether overall of result sum number time clock shows reads direction option choice "
        "letter pair pocket wire piece pieces candidate view gear path colour color net force points point cubes "
        "cube blocks block circles circle cells cell squares dots units o'clock oclock hours minutes degrees "
        "exactly definitely clearly correct should be would will must rotates rotate turns turn spins moves "
        "toward towards to pointing so thus therefore hence value figure shape object side plane airplane pattern "
        "panel image face ring hand"
    ).split()
)
_HEDGE = re.compile(
    r"\b(?:or|either|maybe|perhaps|possibly|probably|unsure|not\s+sure|uncertain|cannot\s+be\s+determined|"
    r"can['’]t\s+be\s+determined|unclear|undetermined|indeterminate)\b|\?",
    re.I,
)
# Inside working, these still make the answer a hedge ("7 (maybe 8 if one is hidden)").
_STRONG_HEDGE = re.compile(
    r"\b(?:maybe|perhaps|possibly|probably|unsure|not\s+sure|uncertain|alternatively|"
    r"could\s+also|might\s+also|might\s+be|could\s+be|unless|otherwise|if|equally|"
    r"also\s+(?:works?|fits?|matches|possible|valid|correct|right|plausible)|"
    r"(?:works?|fits?|matches|possible|valid|correct|right|plausible)\s+(?:too|as\s+well))\b|\?",
    re.I,
)
# A different value after these in the working restates the answer: "9 — it is 11" is a contradiction.
_RESTATE = re.compile(
    r"(?:\b(?:is|are|were|['’]s|was|be|equals?|so|therefore|thus|hence|i\.e\.|really|actually)|=|→)\s*"
    r"(?:(?:the|a|an|about|exactly|just|only)\s+)?$",
    re.I,
)
# In a list answer, working that starts like this adds members rather than explaining: "A, C — plus D".
_ADDITION = re.compile(
    r"[\s(\[,;:—–.-]*(?:and|plus|also|with|too|as\s+well\s+as|additionally|together\s+with|"
    r"along\s+with)\b",
    re.I,
)
# A different value alone in its clause of working, after discourse words only, is a second answer:
# "7. Then again, 8." (but not "7 (3 in front, 4 behind)", where each number qualifies a phrase).
_BARE_BEFORE = re.compile(
    r"(?:^|[.;!?(\[,—–:])\s*(?:(?:then|again|well|hmm+|maybe|perhaps|actually|also|possibly|"
    r"but|so|i['’]d|i|say|guess|it['’]s|it|is|could|be|might|would|though|or|and|yes|ok|"
    r"okay|really)\b[\s,]*)*$",
    re.I,
)
_BARE_AFTER = re.compile(r"\s*(?:[.;!?)\],—–]|$)")
_OPERATOR_AFTER = re.compile(r"\s*[-+*×x·/÷]\s*\S")
_CONCLUSION = re.compile(
    r"\b(?:so|therefore|thus|hence|that\s+(?:makes|gives)|which\s+(?:makes|gives)|giving|"
    r"gives|makes|making|for\s+a\s+total\s+of|a\s+total\s+of|totals?|totall?ing|sums?\s+to|"
    r"adds?\s+up\s+to|comes?\s+to|in\s+total|altogether|the\s+(?:final\s+)?answer\s+is|"
    r"the\s+result\s+is|the\s+(?:real|actual|correct|true|final)\s+\w+\s+(?:is|are))\b|=|→|⇒|=>",
    re.I,
)
_COLON_ANSWER = re.compile(r":(?=[^:]*$)")
_TOTAL_AFTER = re.compile(r"\s*(?:\w+\s+)?(?:in\s+total|total|altogether|in\s+all|overall|all\s+together)\b", re.I)


# Words without which the patterns above cannot match (supersets, checked first because one set
# intersection is ten times cheaper than a search with a large alternation).
_WORD_TOKEN = re.compile(r"[a-z]+")
_CUE_WORDS = frozenset(
    (
        "not t cannot never neither nor longer but rather instead other except excluding exclude excludes excluded "
        "apart aside opposed unlike without away rule rules ruled ruling eliminate eliminates eliminated eliminating "
        "reject rejects rejected rejecting discard discards discarded discarding wrong incorrect invalid impossible "
        "unused distractor distractors decoy decoys miscount mistake mismatch match typo question out fails fail"
    ).split()
)
_REVISION_WORDS = frozenset(
    (
        "no wait scratch oops sorry wrong mistake correction correct correcting actually second recount re count "
        "recheck check closer reflection examination reexamination inspection reinspection counting checking "
        "examining reading recounting rechecking reexamining rereading make mean rather instead fact but"
    ).split()
)
_CONNECTIVE_WORDS = frozenset(
    (
        "because since as given counting including which where whereas i e g namely based due according consisting made"
    ).split()
)
_HEDGE_WORDS = frozenset(
    (
        "or either maybe perhaps possibly probably unsure sure uncertain determined unclear undetermined indeterminate"
    ).split()
)
_SPECIAL = frozenset("?([:;—–\n")


def _plain(sk: str) -> bool:
    """True when the span can hold no cue, revision, working or hedge: one value, said plainly."""
    if not _SPECIAL.isdisjoint(sk) or " - " in sk or ". " in sk or "! " in sk:
        return False
    words = _WORD_TOKEN.findall(sk.lower())
    return (
        _CUE_WORDS.isdisjoint(words)
        and _REVISION_WORDS.isdisjoint(words)
        and _CONNECTIVE_WORDS.isdisjoint(words)
        and _HEDGE_WORDS.isdisjoint(words)
    )


def skeleton(text: str, mentions: Sequence[Mention]) -> str:
    """The text with every mention blanked (same length, so positions carry over)."""
    if not mentions:
        return text
    parts = []
    pos = 0
    for m in mentions:
        parts.append(text[pos : m.start])
        parts.append(BLANK * (m.end - m.start))
        pos = m.end
    parts.append(text[pos:])
    return "".join(parts)


def show(values: Sequence[Hashable], fmt: Callable[[Hashable], str] = str) -> str:
    return ", ".join(fmt(v) for v in values)


def distinct_keys(mentions: Sequence[Mention]) -> list[Hashable]:
    seen: list[Hashable] = []
    for m in mentions:
        if m.k not in seen:
            seen.append(m.k)
    return seen


def _is_clause(text: str) -> bool:
    """A stretch of skeleton that says something beyond listing values: a word that is not a joiner."""
    return bool(_PRONOUN_I.search(text)) or any(
        w.lower() not in ("and", "or", "nor", "plus", "the", "a", "an") for w in _WORD.findall(text)
    )


def _bare_head(sk: str) -> bool:
    return all(w.lower() in _LEAD_WORDS for w in _WORD.findall(sk))


def _revision(sk: str, lo: int, mentions: Sequence[Mention]) -> tuple[int, int, bool] | None:
    """(start, end, strong) of the self-correction that governs the span, if any."""
    marks = [(m.start(), m.end(), m.lastgroup == "strong") for m in _REVISION.finditer(sk, lo)]
    for b in _BUT.finditer(sk, lo):
        if _TENTATIVE.search(sk, lo, b.start()):
            marks.append((b.start(), b.end(), False))
    for start, end, strong in sorted(marks, reverse=True):
        before = any(m.end <= start for m in mentions)
        if not before:
            break
        if any(m.start >= end for m in mentions) or strong:
            return start, end, strong
    return None


def resolve(
    text: str,
    mentions: Sequence[Mention],
    *,
    listy: bool = False,
    complete: Callable[[Sequence[Mention]], bool] | None = None,
    fmt: Callable[[Hashable], str] = str,
    extra_hedge: re.Pattern[str] | None = None,
) -> Reading:
    """Read which mentions `text` commits to. `listy` answers (sets, point lists, colour-and-sum pairs) keep
    every committed mention; `complete` says whether some mentions already make a whole answer of that kind."""
    mentions = sorted(mentions, key=lambda m: m.start)
    complete = complete or (lambda ms: bool(ms))
    sk = skeleton(text, mentions)
    notes: list[str] = []
    # Most answers name one value and nothing else ("7", "(B)", "3:05 PM"): nothing below can change them.
    if (listy or len({m.k for m in mentions}) == 1) and _plain(sk):
        if extra_hedge is not None and extra_hedge.search(sk):
            return Reading(tuple(mentions), (), (), HEDGED, "approximate")
        return Reading(tuple(mentions), ())

    # 1. revision
    lo = 0
    rev = _revision(sk, 0, mentions)
    if rev is not None:
        start, end, strong = rev
        earlier = [m for m in mentions if m.end <= start]
        if not any(m.start >= end for m in mentions):
            return Reading(
                (),
                tuple(earlier),
                tuple(notes),
                AMBIGUOUS,
                f"'{text[start:end].strip()}' withdraws {show(distinct_keys(earlier), fmt)} and gives no new answer",
            )
        lo = end
        notes.append(f"'{text[start:end].strip()}' supersedes {show(distinct_keys(earlier), fmt)}")
    active = [m for m in mentions if m.start >= lo]

    # 2. negation
    negated: set[int] = set()
    blanked: list[tuple[int, int]] = []  # stretches left out of the hedge check
    for cue in _CUES.finditer(sk, lo):
        post = cue.lastgroup == "post"
        if post and _PARTICIPLE.fullmatch(cue.group(0)):
            nxt = _ahead(sk, cue.end(), active)
            post = not (nxt and _OBJECT_GAP.fullmatch(sk, cue.end(), active[nxt[0]].start))
        if post:
            hit = _before(sk, lo, cue.start(), active)
            if hit:
                blanked.append((active[hit[0]].start, cue.end()))
            else:
                # "The option that doesn't work is B", "The wrong one is B": the verdict names what follows.
                nxt = _ahead(sk, cue.end(), active)
                if nxt and _NAMED_NEXT.fullmatch(sk, cue.end(), active[nxt[0]].start):
                    hit = nxt[: 1 + len(_coordinated(sk, [active[i] for i in nxt], listy))]
                    blanked.append((cue.start(), active[hit[-1]].end))
        else:
            nxt = _ahead(sk, cue.end(), active)
            hit = nxt[: 1 + len(_coordinated(sk, [active[i] for i in nxt], listy))] if nxt else []
            if hit:
                blanked.append((cue.start(), active[hit[-1]].end))
            elif cue.lastgroup == "pre" and cue.group("aux"):
                # A negated verb with nothing after it judges the mention right before it: "E isn't.".
                prev = [i for i, m in enumerate(active) if m.end <= cue.start()]
                if prev and _SUBJECT_GAP.fullmatch(sk, active[prev[-1]].end, cue.start()):
                    hit = [prev[-1]]
                    blanked.append((active[prev[-1]].start, cue.end()))
        negated.update(hit)
    rejected = tuple(active[i] for i in sorted(negated))
    if rejected:
        notes.append(f"rejects {show(distinct_keys(rejected), fmt)}")
    kept = [m for i, m in enumerate(active) if i not in negated]

    # 3. justification
    working: list[tuple[int, int]] = []
    if kept:
        lead = _LEADING_CLAUSE.match(sk, lo)
        if lead and any(m.start >= lead.end() for m in kept):
            working.append((lead.start(), lead.end()))
        for g in _GROUP.finditer(sk, kept[0].end):
            body = g.group(1)
            head = [m for m in kept if m.end <= g.start()]
            if (_is_clause(body) or _ARITH.search(body)) and complete(head):
                working.append((g.start(), g.end()))
        for c in _CONNECTIVE.finditer(sk, kept[0].end):
            head = [m for m in kept if m.end <= c.start() and not _inside(m, working)]
            if (
                complete(head)
                and not _inside_span(c.start(), working)
                and _bare_head(_outside(sk, lo, c.start(), working))
            ):
                working.append((c.start(), len(sk)))
                break
    main = [m for m in kept if not _inside(m, working)]

    # 4. conclusion: "3 in front and 4 behind, so 7 in total"
    if len(distinct_keys(main)) > 1 and not listy:
        marks = [c for c in _CONCLUSION.finditer(sk, lo) if not _inside_span(c.start(), working + blanked)]
        for c in reversed(marks):
            after = [m for m in main if m.start >= c.end()]
            if after and len(distinct_keys(after)) == 1:
                working.append((lo, c.start()))
                notes.append(f"the value after '{text[c.start() : c.end()].strip()}' is the conclusion")
                main = after
                break
    if len(distinct_keys(main)) > 1 and not listy:
        colon = _COLON_ANSWER.search(sk, lo)
        if colon and _is_clause(sk[lo : colon.start()]):
            after = [m for m in main if m.start >= colon.end()]
            if len(distinct_keys(after)) == 1 and _bare_head(sk[colon.end() :]):
                notes.append("the value after the colon is the answer")
                working.append((lo, colon.start()))
                main = after
    if len(distinct_keys(main)) > 1 and not listy:
        totals = [m for m in main if _TOTAL_AFTER.match(sk, m.end)]
        if len(distinct_keys(totals)) == 1:
            notes.append("the value marked as the total is the answer")
            main = totals
    # A bare head, then a colon, dash, semicolon, full stop or line break: what follows is working.
    if main and (len(distinct_keys(main)) > 1 or listy):
        sep = _SEPARATOR.search(sk, main[0].end)
        if sep is not None:
            head = [m for m in main if m.end <= sep.start()]
            if (
                head
                and complete(head)
                and (listy or len(distinct_keys(head)) == 1)
                and _bare_head(sk[lo : sep.start()])
                and (_is_clause(sk[sep.end() :]) or _ARITH.search(sk, sep.end()))
            ):
                working.append((sep.start(), len(sk)))
                main = head

    if any(m not in main for m in kept):
        notes.append("reads the rest as working")
    # Working may not hedge, nor restate a different answer.
    main_keys = distinct_keys(main)
    for ws, we in working:
        if _STRONG_HEDGE.search(sk, ws, we) or re.match(r"\s*[(\[]?\s*or\b", sk[ws:we], re.I):
            return Reading(tuple(main), rejected, tuple(notes), HEDGED, f"the working '{text[ws:we].strip()}' hedges")
        for m in kept:
            if (
                ws <= m.start < we
                and m.k not in main_keys
                and not _OPERATOR_AFTER.match(sk, m.end)
                and (
                    _RESTATE.search(sk, ws, m.start)
                    or (not listy and _BARE_BEFORE.search(sk, ws, m.start) and _BARE_AFTER.match(sk, m.end))
                )
            ):
                return Reading(
                    tuple(main),
                    rejected,
                    tuple(notes),
                    AMBIGUOUS,
                    f"commits to {show(main_keys, fmt)} but then states {fmt(m.k)}",
                )
        if listy and _ADDITION.match(sk, ws) and any(ws <= m.start < we for m in kept):
            return Reading(
                tuple(main), rejected, tuple(notes), AMBIGUOUS, f"'{text[ws:we].strip()}' adds to the answer"
            )
    # 5. hedges in what is left
    hole = blanked + working
    rest = "".join(ch for i, ch in enumerate(sk[lo:], lo) if not _inside_span(i, hole)) if hole else sk[lo:]
    if _HEDGE.search(rest):
        return Reading(tuple(main), rejected, tuple(notes), HEDGED, "hedged")
    if extra_hedge is not None and extra_hedge.search(rest):
        return Reading(tuple(main), rejected, tuple(notes), HEDGED, "approximate")
    return Reading(tuple(main), rejected, tuple(notes))


def _coordinated(sk: str, ms: Sequence[Mention], listy: bool) -> list[Mention]:
    """The mentions after ms[0] that share its negation: joined by "or"/"nor"/"and" ("not A or B"), or a
    comma list closed by one ("eliminating B, C and D"); in a list answer, all of them."""
    if listy:
        return list(ms[1:])
    out: list[Mention] = []
    commas: list[Mention] = []
    prev = ms[0]
    for m in ms[1:]:
        gap = sk[prev.end : m.start]
        if _JOINER.fullmatch(gap):
            out += commas + [m]
            commas = []
        elif _COMMA.fullmatch(gap):
            commas.append(m)
        else:
            break
        prev = m
    return out


def _ahead(sk: str, at: int, active: Sequence[Mention]) -> list[int]:
    """Indices of the mentions from `at` to the end of its clause."""
    stop = _FWD_STOP.search(sk, at)
    limit = stop.start() if stop else len(sk)
    return [i for i, m in enumerate(active) if m.start >= at and m.end <= limit]


def _before(sk: str, lo: int, at: int, active: Sequence[Mention]) -> list[int]:
    """Indices of the mentions in the clause that ends at `at`."""
    stops = list(_BACK_STOP.finditer(sk, lo, at))
    begin = stops[-1].end() if stops else lo
    if stops and not _is_clause(sk[begin:at]) and not any(begin <= m.start and m.end <= at for m in active):
        # "E — incorrect", "E (wrong)": a cue alone in its clause judges the clause before it.
        begin = stops[-2].end() if len(stops) > 1 else lo
    return [i for i, m in enumerate(active) if m.start >= begin and m.end <= at]


def _outside(sk: str, lo: int, hi: int, spans: Sequence[tuple[int, int]]) -> str:
    return "".join(ch for i, ch in enumerate(sk[lo:hi], lo) if not _inside_span(i, spans)) if spans else sk[lo:hi]


def _inside(m: Mention, spans: Sequence[tuple[int, int]]) -> bool:
    return any(s <= m.start and m.end <= e for s, e in spans)


def _inside_span(i: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(s <= i < e for s, e in spans)
