"""Answer extraction, tiers 1-2 of docs/scoring.md ("Extraction tiers"): answer tags first, then phrasings.

Extraction is type-agnostic: it finds the span the model meant as its final answer and lightly cleans it.
Deciding what that span *means* (letters, numbers, synonyms) is grade.py's job, so a tag holding
"Option (B)." is returned as "Option (B)" and read as B by the grader.

Tier 3 (the LLM judge) lives in judge.py; score.py calls it when this module finds no answer, or when the
grader cannot decide what the answer means (free text, an ambiguous commitment).
"""

from __future__ import annotations

import ast
import html
import json
import re
from bisect import bisect_left, bisect_right
from collections import deque
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from vcot.scoring.normalize import NUMBER_WORDS

TAG = "tag"
REGEX = "regex"
JUDGE = "judge"
NONE = "none"

# Reasoning blocks of "thinking" models may hold earlier, abandoned answers; only text outside counts.
# A block runs from an opening tag (its name, then anything up to the first ">") to the first closing tag
# of the same name, as the regex `<\s*(NAME)\b[^>]*>.*?<\s*/\s*\1\s*>` (re.I | re.S) would find it. Blocks
# and <answer> tags are paired from one scan of the tag positions (_think_blocks, _answer_tags), not by
# such a regex: a lazy `.*?` retries the whole rest of the text from every opening tag that never
# closes, and model output is untrusted, so a reply of unclosed tags would take time quadratic in its length.
_THINK_NAMES = "think|thinking|reasoning|reflection|scratchpad"
_THINK_OPEN_NAME = re.compile(rf"<\s*({_THINK_NAMES})\b", re.I)
_THINK_CLOSE_NAME = re.compile(rf"<\s*/\s*({_THINK_NAMES})\s*>", re.I)
_THINK_CLOSE = re.compile(rf"<\s*/\s*(?:{_THINK_NAMES})\s*>", re.I)

_ANSWER_OPEN = re.compile(r"<\s*answer\s*>", re.I)
_ANSWER_CLOSE = re.compile(r"<\s*/\s*answer\s*>", re.I)

# Echoed instructions ("...placed in <answer>your answer</answer>", "<answer>X</answer>") are not answers.
# "X" and "N" are also option letters in principle, but no task has 14 or 24 options.
_PLACEHOLDERS = frozenset(
    {
        "",
        "...",
        "…",
        "answer",
        "your answer",
        "final answer",
        "your final answer",
        "the final answer",
        "{answer}",
        "[answer]",
        "<answer>",
        "answer here",
        "your answer here",
        "insert answer",
        "x",
        "letter",
        "your choice",
        "option",
        "number",
        "n",
    }
)

_BOXED = "\\boxed{"
_TEXT_CMD = re.compile(r"\\(?:text|mathrm|textbf|mathbf)\s*\{([^{}]*)\}")
_MARKUP = re.compile(r"\*\*|__|`|\$|\\\(|\\\)|\\\[|\\\]")
_LEAD = re.compile(
    r"^\s*(?:[-*•#>]+\s*)?(?:(?:the\s+)?(?:final|correct)\s+answer|(?:the\s+)?answer)(?![\w'’-])\s*"
    r"(?:is(?![\w'’])\s*)?[:：]?\s*",
    re.I,
)
# Everything up to the last character that is not end punctuation. `[\s.。!！;；,，:：]+$` would do, but a
# search for it restarts inside every run of such characters and rescans the run to its end.
_UNTRAILED = re.compile(r".*[^\s.。!！;；,，:：]", re.S)
_QUOTES = "\"'“”‘’«»"
_WS = re.compile(r"[^\S\n]+")
_NL = re.compile(r"\s*\n\s*")
# The opening of a fenced block; its body is found by _fence_body.
_FENCE_HEAD = re.compile(r"```[a-zA-Z]*\s*")
_BRACES = re.compile(r"[{}]")

# Tier 2 phrasings, strongest first; within one phrasing the last match in the text wins, and every match
# counts, including one starting inside an earlier match: an echoed "answer is placed in ..." line must not
# swallow the "answer is 5" that follows it on the same line. A phrasing is the regex in its comment, whose
# group is the answer; the _*_phrases functions list its matches in linear time.
#   final\s+answer\s*(?:is|:|：|=)?\s*(?:[:：])?\s*([^\n]*)
_FINAL_PHRASE = re.compile(r"final\s+answer\s*(?:is|:|：|=)?\s*(?:[:：])?\s*", re.I)
#   \banswer\s*(?:is|:|：|=)\s*(?:[:：])?\s*([^\n]*)
_ANSWER_PHRASE = re.compile(r"\banswer\s*(?:is|:|：|=)\s*(?:[:：])?\s*", re.I)
#   (?:^|[\n.!]\s*)\**([^\n.]{1,40}?)\**\s+is\s+(?:the|my)\s+(?:final\s+|correct\s+)?answer\b
_SUBJECT_TAIL = re.compile(r"(?=(is\s+(?:the|my)\s+(?:final\s+|correct\s+)?answer\b))", re.I)
_SUBJECT_START = re.compile(r"[\n.!]")
_SUBJECT_STOP = re.compile(r"[\n.]")
_SUBJECT_MAX = 40
_SPACES = re.compile(r"\s*")
_STARS = re.compile(r"\**")
#   this one as it is: a match spans at most nine words and 60 characters
_THEREFORE_PHRASE = re.compile(
    r"\b(?:therefore|thus|hence)\b[,:]?\s+(?:[\w'-]+\s+){0,8}?(?:is|are|equals|=)\s+([^\n]{1,60})", re.I
)
_NON_SPACE = re.compile(r"\S")
# For _CleanBound.
_ALNUM_RUN = re.compile(r"[^\W_]+")
_BOX_AT = re.compile(re.escape(_BOXED))
# Longest name first, so that a count never falls short of what _TEXT_CMD removes.
_COMMAND_NAME = re.compile(r"\\(textbf|mathbf|mathrm|text)")
_PHRASE_RULES = (
    "'final answer' phrase",
    "'answer is' phrase",
    "'X is the answer' phrase",
    "'therefore ... is X' phrase",
)
# Lead-ins of echoed instructions ("the final answer is placed in ..."), never answers themselves.
_INSTRUCTION = re.compile(
    r"(?:placed|put|given|written|enclosed|wrapped|formatted)\b|(?:should|must|will|goes)\b", re.I
)
# A last line counts as an answer only if it is short and shaped like one: digits, a letter, letters in
# capitals ("ACD", "A, C and D", "NW"), or a word of the answer vocabularies.
_LINE_LEAD = re.compile(r"^\s*(?:[-*•#>]+\s*)+")
_ANSWERISH = re.compile(
    r"\d|^\(?[A-Za-z]\)?$|(?-i:^[A-Z]{1,4}$|^[A-Z](?:\s*(?:,|&|\band\b)\s*[A-Z])+$|(?<![\w'’])[A-HJ-Z](?![\w'’]))|"
    r"\b(?:(?:north|south)(?:[\s-]?(?:east|west))?|east|west|up|down|left|right|upper|lower|top|bottom|"
    r"(?:counter|anti)?[\s-]?clock[\s-]?wise|cc?w|jammed|locked|stuck|cannot|can['’]t|won['’]t|red|black|same|"
    r"tie|noon|midnight|o['’]clock|quarter|half|past|" + NUMBER_WORDS + r")\b|[↑↓←→↖↗↘↙]",
    re.I,
)
# The last sentence of an untagged response, when it states a value: "So the clock reads half past ten."
_CONCLUDING = re.compile(
    r"^(?:(?:so|thus|therefore|hence|overall|finally|in\s+conclusion|in\s+summary|in\s+total|altogether)\b,?\s*)?"
    r"(?:\S+\s+){0,14}(?:is|are|was|['’]s|shows|reads|displays|indicates|equals|gives|points|comes\s+to|"
    r"turns|rotates|spins|moves|drops|falls|lands|ends\s+up|goes|rolls|enters|stops|leads|would\s+be|must\s+be|"
    r"should\s+be)\s+(?:(?:in|into|at|on|to|towards?)\s+)?(?P<ans>[^.!?\n]{1,60}?)\s*[.!]?\s*$",
    re.I,
)
_LINE_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*")
_HEAD_LINE = re.compile(
    r"(?:[A-Z](?:\s*,\s*[A-Z])*|-?\d+(?:[.:/]\d+)?(?:\s*,\s*-?\d+)*|(?:red|black|same)\s*,?\s*\d+|"
    r"(?:north|south)?[\s-]?(?:east|west)?|(?:counter|anti)?[\s-]?clockwise|jammed)"
    r"(?:\s*\([^()]{3,}\)$|\s*,?\s+(?:because|since|as)\s+\S.{2,}$)",
    re.I,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=\S)")

# JSON answers: {"answer": 9}, {"final": "D"}, ```json {...}```. Keys naming the answer, and keys of
# working that never are one.
_ANSWER_KEYS = frozenset(
    {
        "answer",
        "finalanswer",
        "final",
        "result",
        "prediction",
        "output",
        "choice",
        "option",
        "selected",
        "selection",
        "conclusion",
        "response",
        "solution",
    }
)
_WORKING_KEYS = frozenset(
    {
        "reasoning",
        "explanation",
        "thought",
        "thoughts",
        "rationale",
        "analysis",
        "steps",
        "work",
        "justification",
        "thinking",
        "confidence",
        "notes",
        "comment",
    }
)
_JSON_OBJECT = re.compile(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")
_JSON_HINT = re.compile(r"\{\s*[\"']\w")

# How the answer was found, for Score.reason and explain().
RULE_TAG = "last <answer> tag outside reasoning"
RULE_OPEN_TAG = "unclosed final <answer> tag"
RULE_BOXED = "\\boxed{}"
RULE_JSON = "JSON answer field"
RULE_LAST_LINE = "short last line"
RULE_SENTENCE = "concluding last sentence"
RULE_ESCAPED_TAG = "last HTML-escaped &lt;answer&gt; tag outside reasoning"
RULE_CHOICE_SENTENCE = "concluding 'the correct choice is X' sentence"

# Some serving stacks and proxies return the reply HTML-escaped: "&lt;answer&gt;C&lt;/answer&gt;". Such a tag
# is read as the tag, but only when the reply has no usable raw tag (then escaped ones are quotations), and
# never when it is quoted or introduced as an example ("for example, write `&lt;answer&gt;A&lt;/answer&gt;`"):
# a format instruction echoed by the model must not become its answer.
_ESC_LT = r"&(?:lt|#0*60|#x0*3c);"
_ESC_GT = r"&(?:gt|#0*62|#x0*3e);"
_ESCAPED_ANSWER_OPEN = re.compile(rf"{_ESC_LT}\s*answer\s*{_ESC_GT}", re.I)
_ESCAPED_ANSWER_CLOSE = re.compile(rf"{_ESC_LT}\s*/\s*answer\s*{_ESC_GT}", re.I)
_EXAMPLE_QUOTES = "`'\"“‘«"
_EXAMPLE_WINDOW = 80
_EXAMPLE_CUE = re.compile(
    r"\b(?:for\s+(?:example|instance)|such\s+as|example|format|formatted|template|like(?:\s+this)?|write|wrap|"
    r"enclose|use|using)\b|\b(?:e\.\s?g|i\.\s?e)\.",
    re.I,
)
# The end of a sentence, but not the dots of "e.g." / "i.e.".
_SENTENCE_END = re.compile(r"(?<!\.[A-Za-z])[.!?](?=\s)|\n")

# A choice committed in the last sentence without a tag: "..., so the correct choice is C." The sentence may
# be long (the general concluding-sentence rule stops at 160 characters and 14 words), but the value must be
# one bare option letter ending the sentence: "is not C", "is C or D" and "is C, unless ..." do not match.
_CHOICE_SENTENCE = re.compile(
    r"\b(?:the\s+)?(?:correct|right|best|final)\s+(?:choice|option|answer)\s+(?:is|would\s+be|must\s+be|will\s+be)"
    r"\s*:?\s*(?P<ans>(?:option\s+|choice\s+)?[(\[]?(?-i:[A-Z])[)\]]?)\s*[.!]?\s*$",
    re.I,
)
_CHOICE_SENTENCE_MAX = 400
# A hedge earlier in the sentence of an untagged answer ("Maybe the answer is C.") belongs to the answer:
# the span is widened back to it, so the grader sees the hedge and grades it hedged, as it would in a tag.
_PHRASE_HEDGE = re.compile(r"\b(?:maybe|perhaps|possibly|probably|unsure|not\s+sure)\b", re.I)
_HEDGE_WINDOW = 120


@dataclass(frozen=True, slots=True)
class Extraction:
    text: str | None
    tier: str  # TAG | REGEX | NONE
    rule: str  # which rule found it, or why nothing was found


def _name_key(name: str) -> str:
    """How a case-insensitive backreference compares a tag name: character by character, in simple lower
    case ("İ" is "i"; "ſ" and "ı", which the name patterns accept for "s" and "i", stay themselves)."""
    return "".join("i" if c == "\u0130" else c.lower() for c in name)


def _think_blocks(text: str) -> list[tuple[int, int]]:
    """The (start, end) of every reasoning block, left to right, as `re.sub` with the block regex finds
    them."""
    closes: dict[str, list[int]] = {}
    close_end: dict[int, int] = {}
    for m in _THINK_CLOSE_NAME.finditer(text):
        closes.setdefault(_name_key(m.group(1)), []).append(m.start())
        close_end[m.start()] = m.end()
    blocks: list[tuple[int, int]] = []
    if not closes:
        return blocks
    pos = 0
    for m in _THINK_OPEN_NAME.finditer(text):
        if m.start() < pos:
            continue
        gt = text.find(">", m.end())
        if gt < 0:
            break  # no later opening tag is complete either
        starts = closes.get(_name_key(m.group(1)), [])
        i = bisect_left(starts, gt + 1)
        if i < len(starts):
            pos = close_end[starts[i]]
            blocks.append((m.start(), pos))
    return blocks


def _answer_tags(
    text: str, opening: re.Pattern[str] = _ANSWER_OPEN, closing: re.Pattern[str] = _ANSWER_CLOSE
) -> list[tuple[int, int, int, int]]:
    """(tag start, content start, content end, tag end) of every <answer>...</answer>, left to right, as the
    lazy regex `<\\s*answer\\s*>(.*?)<\\s*/\\s*answer\\s*>` finds them (or pairs of other tag patterns)."""
    closes = [m.span() for m in closing.finditer(text)]
    tags: list[tuple[int, int, int, int]] = []
    if not closes:
        return tags
    starts = [c for c, _ in closes]
    pos = 0
    for m in opening.finditer(text):
        if m.start() < pos:
            continue
        i = bisect_left(starts, m.end())
        if i == len(starts):
            break  # a tag that never closes: neither does any later one
        pos = closes[i][1]
        tags.append((m.start(), m.end(), starts[i], pos))
    return tags


def _blank(text: str, spans: list[tuple[int, ...]]) -> str:
    """`text` with each (start, ..., end) span, left to right and disjoint, replaced by one space."""
    if not spans:
        return text
    parts = []
    pos = 0
    for span in spans:
        parts.append(text[pos : span[0]])
        pos = span[-1]
    parts.append(text[pos:])
    return " ".join(parts)


def _last_match(pat: re.Pattern[str], text: str) -> re.Match[str] | None:
    found = deque(pat.finditer(text), maxlen=1)
    return found[0] if found else None


def strip_think(text: str) -> str:
    """Text outside reasoning blocks. An unmatched closing tag means everything before it was reasoning
    (chat templates often open the block in the prompt); an unmatched opening tag runs to the end."""
    if "<" not in text:
        return text
    text = _blank(text, _think_blocks(text))
    last = _last_match(_THINK_CLOSE, text)
    if last is not None:
        text = text[last.end() :]
    # An opening tag ends at the first ">" after its name: if the first one has none, no later one has.
    m = _THINK_OPEN_NAME.search(text)
    if m and text.find(">", m.end()) >= 0:
        text = text[: m.start()]
    return text


def _unbox(s: str) -> str:
    """Content of the last \\boxed{...}, braces balanced; the input unchanged when there is none."""
    i = s.rfind(_BOXED)
    if i < 0:
        return s
    j = i + len(_BOXED)
    depth = 1
    for m in _BRACES.finditer(s, j):
        if m.group() == "{":
            depth += 1
        else:
            depth -= 1
            if depth == 0:
                return s[j : m.start()]
    return s[j:]


def _key(k: object) -> str:
    return re.sub(r"[^a-z]", "", str(k).lower())


def _flatten(v: Any) -> str:
    """A parsed JSON value as the plain answer text the graders read."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, int | float):
        return repr(v) if isinstance(v, float) else str(v)
    if isinstance(v, dict):
        for k, x in v.items():
            if _key(k) in _ANSWER_KEYS or "answer" in _key(k):
                return _flatten(x)
        return ", ".join(f"{k} = {_flatten(x)}" for k, x in v.items() if _key(k) not in _WORKING_KEYS)
    if isinstance(v, list | tuple | set | frozenset):
        items = list(v)
        if len(items) == 2 and all(isinstance(x, int | float) and not isinstance(x, bool) for x in items):
            return f"({_flatten(items[0])}, {_flatten(items[1])})"
        return ", ".join(_flatten(x) for x in items)
    return str(v)


def _load(s: str) -> Any:
    try:
        return json.loads(s)
    except ValueError:
        pass
    try:
        return ast.literal_eval(s)  # Python-style {'answer': 9}; literals only, nothing is executed
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _fence_body(s: str) -> str | None:
    """The body of a fenced block (```json ... ```) filling the stripped string `s`, or None: what group 1 of
    `^\\s*```[a-zA-Z]*\\s*(.*?)\\s*```\\s*$` (re.S) holds. That lazy group stops at every whitespace character
    to rescan the run it is in, quadratic in the length of a run, so the body is cut out directly: it ends
    where the whitespace before the closing fence begins."""
    if len(s) < 6 or not (s.startswith("```") and s.endswith("```")):
        return None
    start = _FENCE_HEAD.match(s).end()  # type: ignore[union-attr]  # s starts with ```
    return s[start : len(s[:-3].rstrip())]


def _may_name_answer(s: str) -> bool:
    """False only when `s` cannot parse to a dict with a key naming the answer; decided without parsing, as a
    reply may hold a hundred thousand small objects. Such a key is a string whose letters appear in `s` in
    order (implicit concatenation and string prefixes only add letters between them; numbers, True and None
    never spell a key), unless an escape, an unprintable character (repr() spells it in letters) or a tuple
    key (whose str() respells its numbers) is involved: those go to the parser."""
    if ":" not in s:
        return False  # not a dict, or an empty one
    if "\\" in s or "(" in s or not s.isprintable():
        return True
    letters = _key(s)
    return any(_in_order(word, letters) for word in _ANSWER_KEYS)  # "answer" among them


def _in_order(word: str, letters: str) -> bool:
    pos = 0
    for c in word:
        pos = letters.find(c, pos) + 1
        if not pos:
            return False
    return True


def from_json(s: str, require_key: bool = False) -> str | None:
    """The answer in a JSON object or list, or None when `s` is not one (or, with `require_key`, has no key
    naming the answer)."""
    s = s.strip()
    fenced = _fence_body(s)
    if fenced is not None:
        s = fenced
    if len(s) > 2000 or not ((s[:1] == "{" and s[-1:] == "}") or (s[:1] == "[" and s[-1:] == "]")):
        return None
    if require_key and not _may_name_answer(s):
        return None
    v = _load(s)
    if v is None or isinstance(v, str | int | float):
        return None
    if require_key and not (isinstance(v, dict) and any(_key(k) in _ANSWER_KEYS or "answer" in _key(k) for k in v)):
        return None
    return _flatten(v)


def clean_answer(s: str) -> str:
    """Remove wrapping that never changes meaning: JSON, markup, boxes, 'Answer:' lead-ins, quotes, end
    punctuation. Line breaks are kept (as single newlines): they separate an answer from its explanation."""
    if "{" in s or "[" in s:
        flat = from_json(s)
        if flat is not None:
            s = flat
    if _BOXED in s:
        s = _unbox(s)
    if "\\" in s:
        s = _TEXT_CMD.sub(r"\1", s)
    s = _MARKUP.sub("", s)
    s = _NL.sub("\n", _WS.sub(" ", s)).strip()
    s = _LEAD.sub("", s, count=1)
    s = s.strip().strip(_QUOTES).strip()
    m = _UNTRAILED.match(s)
    s = s[: m.end()] if m else ""
    return s.strip().strip(_QUOTES).strip()


def _usable(s: str) -> bool:
    return s.lower() not in _PLACEHOLDERS


def _from_tags(text: str, allow_open: bool = True) -> Extraction | None:
    for _, start, stop, _ in reversed(_answer_tags(text)):
        cand = clean_answer(text[start:stop])
        if _usable(cand):
            return Extraction(cand, TAG, RULE_TAG)
    if not allow_open:
        return None
    # A response cut off after its last opening tag still states an answer.
    last = _last_match(_ANSWER_OPEN, text)
    if last is not None:
        tail = text[last.end() :]
        if not _ANSWER_CLOSE.search(tail):
            cand = clean_answer(tail[:200])
            if _usable(cand) and "\n" not in tail.strip()[:200]:
                return Extraction(cand, TAG, RULE_OPEN_TAG)
    return None


def _from_json_text(text: str) -> str | None:
    if not _JSON_HINT.search(text):
        return None
    whole = from_json(text)  # a response that is nothing but a JSON object needs no answer key
    if whole is not None:
        return clean_answer(whole)
    for m in reversed(list(_JSON_OBJECT.finditer(text))):
        cand = from_json(m.group(0), require_key=True)
        if cand is not None:
            return clean_answer(cand)
    return None


_MAX_PHRASE_ANSWER = 200
# Cleaning removes at most this many letters and digits besides those of \text{}-style commands: the lead-in
# "the correct answer is".
_LEAD_ALNUM = 18
# Characters one phrasing may clean while looking back for its answer, per character of the text (plus a
# floor). Answers that cannot clean to _MAX_PHRASE_ANSWER characters are skipped uncleaned (_CleanBound),
# but a hostile line can repeat a phrasing before thousands of short answers: the answers of matches on one
# line overlap (each runs to the end of the line), so each would be cleaned again and again. A phrasing
# that spends this much gives up (the later rules still run); no ordinary response comes near it.
_PHRASE_BUDGET = 4
_PHRASE_BUDGET_FLOOR = 1 << 16


def _from_phrases(text: str) -> Extraction | None:
    if "<" in text:
        # Only unusable tags reach this tier; their echoed template text must not be read as a phrase.
        text = _blank(text, _answer_tags(text))
    if "&" in text:
        # Escaped tags that reach this tier are examples of the format ("for example, write
        # `&lt;answer&gt;A&lt;/answer&gt;`"): their contents are not the answer either.
        text = _blank(text, _answer_tags(text, _ESCAPED_ANSWER_OPEN, _ESCAPED_ANSWER_CLOSE))
    if _BOXED in text:
        cand = clean_answer(_unbox(text))
        if _usable(cand):
            return Extraction(cand, REGEX, RULE_BOXED)
    if "{" in text:
        cand = _from_json_text(text)
        if cand is not None and _usable(cand):
            return Extraction(cand, REGEX, RULE_JSON)
    bound = _CleanBound(text)
    rests: dict[int, str | None] = {}
    finders = (_final_phrases, _answer_phrases, _subject_phrases, _therefore_phrases)
    for find, rule in zip(finders, _PHRASE_RULES, strict=True):
        budget = _PHRASE_BUDGET * len(text) + _PHRASE_BUDGET_FLOOR
        for start, stop, end in reversed(find(text)):
            if budget < 0:
                break
            if bound.too_long(start, stop):
                continue
            budget -= stop - start
            cand: str | None = clean_answer(text[start:stop])
            if not cand:
                # "Answer:" followed by the answer on the next line.
                if end not in rests:
                    first, last = _rest_line(text, end)
                    budget -= last - first
                    rests[end] = None if bound.too_long(first, last) else clean_answer(text[first:last])
                cand = rests[end]
            if cand is not None and _usable(cand) and len(cand) <= _MAX_PHRASE_ANSWER and not _INSTRUCTION.match(cand):
                return Extraction(_with_hedge(text, start, stop, cand), REGEX, rule)
    line = _final_line(text)
    if line is not None:
        return Extraction(line, REGEX, RULE_LAST_LINE)
    sentence = _final_sentence(text)
    if sentence is not None:
        return Extraction(sentence, REGEX, RULE_SENTENCE)
    choice = _choice_sentence(text)
    if choice is not None:
        return Extraction(choice, REGEX, RULE_CHOICE_SENTENCE)
    return None


def _sentence_start(text: str, pos: int, window: int) -> int:
    """Where the sentence holding `pos` starts, looking back at most `window` characters (so the scan stays
    linear however many phrases a reply repeats)."""
    lo = max(0, pos - window)
    last = _last_match(_SENTENCE_END, text[lo:pos])
    return lo + last.end() if last is not None else lo


def _with_hedge(text: str, start: int, stop: int, cand: str) -> str:
    """`cand`, or the span from a hedge earlier in its sentence to its end when there is one."""
    lo = _sentence_start(text, start, _HEDGE_WINDOW)
    hedge = _PHRASE_HEDGE.search(text, lo, start)
    if hedge is None:
        return cand
    return clean_answer(text[hedge.start() : stop]) or cand


def _choice_sentence(text: str) -> str | None:
    """The option letter a long last sentence commits to ("..., so the correct choice is C."), or None."""
    line = text.rstrip().rsplit("\n", 1)[-1]
    sentence = _SENTENCE.split(_LINE_LEAD.sub("", line))[-1].strip()
    if not sentence or len(sentence) > _CHOICE_SENTENCE_MAX:
        return None
    plain = _MARKUP.sub("", sentence)
    m = _CHOICE_SENTENCE.search(plain)
    if m is None:
        return None
    hedge = _PHRASE_HEDGE.search(plain, 0, m.start())
    return clean_answer(plain[hedge.start() :] if hedge else m.group("ans"))


def _is_example(text: str, at: int) -> bool:
    """Whether the escaped tag at `at` is quoted or introduced as an example in its sentence."""
    if at and text[at - 1] in _EXAMPLE_QUOTES:
        return True
    lo = _sentence_start(text, at, _EXAMPLE_WINDOW)
    return _EXAMPLE_CUE.search(text, lo, at) is not None


def _unescaped(response: str) -> str | None:
    """The reply with its HTML escapes undone, when it holds an escaped <answer> tag that is not an example;
    the example tags stay escaped, so they stay text. None when there is nothing to read."""
    if "&" not in response:
        return None
    keep: list[tuple[int, int]] = []
    real = False
    closes = [m.span() for m in _ESCAPED_ANSWER_CLOSE.finditer(response)]
    if not closes:
        return None
    starts = [a for a, _ in closes]
    for m in _ESCAPED_ANSWER_OPEN.finditer(response):
        if not _is_example(response, m.start()):
            real = True
            continue
        # Keep the example's tags as text; its closing tag is the first one after it.
        keep.append(m.span())
        i = bisect_left(starts, m.end())
        if i < len(closes):
            keep.append(closes[i])
    if not real:
        return None
    if not keep:
        return html.unescape(response)
    parts = []
    pos = 0
    for a, b in sorted(set(keep)):
        if a < pos:
            continue
        parts.append(html.unescape(response[pos:a]))
        parts.append(response[a:b])  # left escaped: text, never a tag
        pos = b
    parts.append(html.unescape(response[pos:]))
    return "".join(parts)


class _CleanBound:
    """Proves, without cleaning it, that a span of `text` starting with a non-space cleans to more than
    _MAX_PHRASE_ANSWER characters. Unless the span may be JSON (it starts with "{", "[" or a fence) or holds
    a \\boxed{}, cleaning keeps every letter and digit except those of \\text{}-style command names and of one
    lead-in, so their count bounds the cleaned length from below."""

    _BLOCK = 512

    def __init__(self, text: str) -> None:
        self.text = text
        self.blocks: list[int] | None = None  # letters and digits before each multiple of _BLOCK
        self.boxes: list[int] = []
        self.commands: list[int] = []
        self.command_letters: list[int] = [0]  # before each command, cumulative

    def _prepare(self) -> None:
        text, size = self.text, self._BLOCK
        counts = [_alnum(text, k, k + size) for k in range(0, len(text), size)]
        self.blocks = [0, *accumulate(counts)]
        self.boxes = [m.start() for m in _BOX_AT.finditer(text)]
        for m in _COMMAND_NAME.finditer(text):
            self.commands.append(m.start())
            self.command_letters.append(self.command_letters[-1] + len(m.group(1)))

    def too_long(self, start: int, stop: int) -> bool:
        if stop - start <= _MAX_PHRASE_ANSWER + _LEAD_ALNUM or self.text[start] in "{[`":
            return False
        if self.blocks is None:
            self._prepare()
        i = bisect_left(self.boxes, start)
        if i < len(self.boxes) and self.boxes[i] + len(_BOXED) <= stop:
            return False
        lo, hi = bisect_left(self.commands, start), bisect_left(self.commands, stop)
        kept = self._count(start, stop) - (self.command_letters[hi] - self.command_letters[lo]) - _LEAD_ALNUM
        return kept > _MAX_PHRASE_ANSWER

    def _count(self, start: int, stop: int) -> int:
        size = self._BLOCK
        first, last = -(-start // size), stop // size
        if last <= first:
            return _alnum(self.text, start, stop)
        assert self.blocks is not None
        return (
            _alnum(self.text, start, first * size)
            + self.blocks[last]
            - self.blocks[first]
            + _alnum(self.text, last * size, stop)
        )


def _alnum(text: str, start: int, stop: int) -> int:
    """How many letters and digits (str.isalnum) text[start:stop] holds."""
    return sum(map(len, _ALNUM_RUN.findall(text, start, stop)))


def _rest_line(text: str, pos: int) -> tuple[int, int]:
    """Where `text[pos:].lstrip().split("\n", 1)[0]` lies, found without copying the rest of the text."""
    m = _NON_SPACE.search(text, pos)
    if m is None:
        return pos, pos
    end = text.find("\n", m.start())
    return m.start(), end if end >= 0 else len(text)


# A phrasing's matches, in the order of their starts, as (answer start, answer end, match end).
Spans = list[tuple[int, int, int]]


def _line_phrases(pat: re.Pattern[str], text: str) -> Spans:
    """Matches of a phrasing whose answer is the rest of the line after `pat`. `pat` ends in optional parts
    only, so it matches exactly where the phrasing does, and ends where the answer starts."""
    out = []
    pos = 0
    eol = -1
    while True:
        m = pat.search(text, pos)
        if m is None:
            return out
        if eol < m.end():  # matches on one line share its end: find it once
            eol = text.find("\n", m.end())
            if eol < 0:
                eol = len(text)
        out.append((m.end(), eol, eol))
        pos = m.start() + 1


def _final_phrases(text: str) -> Spans:
    return _line_phrases(_FINAL_PHRASE, text)


def _answer_phrases(text: str) -> Spans:
    return _line_phrases(_ANSWER_PHRASE, text)


def _therefore_phrases(text: str) -> Spans:
    return [(m.start(1), m.end(1), m.end()) for m in _overlapping(_THEREFORE_PHRASE, text)]


def _subject_phrases(text: str) -> Spans:
    """Matches of the "X is the answer" phrasing. As a regex it backtracks over every way of splitting runs of
    stars or whitespace between its start and the subject, and rescans those runs from each split: a reply of
    stars or blank lines takes minutes. The regex's choices are made here in closed form instead.

    The tail is `is\\s+(?:the|my)\\s+(?:final\\s+|correct\\s+)?answer\\b`. A subject of 1 to 40 characters
    without "\\n" or "." may end at e only when stars, then whitespace, then a tail follow e: the positions
    from the first of those stars up to the tail, one interval per tail. A match starts at 0 (`^`, then
    `\\**`) or at a "\\n", "." or "!" (then `\\s*\\**`); the greedy runs and the lazy subject make the regex
    take the last subject start c it can reach with any end in (c, c + 40] before a "\\n" or ".", and then the
    first such end. Starts whose runs overlap see the same c, so a start that shares its run with an
    earlier one repeats that match or has none; only the first start of each run is evaluated."""
    n = len(text)
    rev = ""
    ivals: list[tuple[int, int, int, int]] = []  # (first end, whitespace start, tail start, match end)

    def back(run: re.Pattern[str], i: int) -> int:
        """Where the run of `run` characters ending at i starts (read forwards in `rev`, from n - i)."""
        return i - (run.match(rev, n - i).end() - (n - i))  # type: ignore[union-attr]

    for m in _SUBJECT_TAIL.finditer(text):
        y = m.start()
        if y == 0 or not text[y - 1].isspace():
            continue
        rev = rev or text[::-1]
        x = back(_SPACES, y)
        ivals.append((back(_STARS, x), x, y, m.end(1)))
    if not ivals:
        return []
    firsts = [iv[0] for iv in ivals]
    tails = [iv[2] for iv in ivals]

    def first_end(lo: int, hi: int) -> tuple[int, int] | None:
        """The smallest possible subject end in [lo, hi], with its interval."""
        i = bisect_right(tails, lo)
        if i < len(ivals) and max(firsts[i], lo) <= hi:
            return max(firsts[i], lo), i
        return None

    def subject_end(c: int) -> tuple[int, int] | None:
        stop = _SUBJECT_STOP.search(text, c, c + _SUBJECT_MAX)
        return first_end(c + 1, stop.start() if stop else c + _SUBJECT_MAX)

    def last_subject(lo: int, hi: int) -> tuple[int, tuple[int, int]] | None:
        """The subject start the regex settles on when it tries hi, hi - 1, ..., lo."""
        found = subject_end(hi)
        if found is not None:
            return hi, found
        # Below hi, c is a subject start only if c + 1 is a possible end (a larger one would let c + 1 start
        # a subject too): the last such c not at a "\n" or ".".
        i = bisect_right(firsts, hi) - 1
        while i >= 0:
            bottom, top = max(firsts[i], lo + 1), min(tails[i] - 1, hi)
            if top < bottom:
                break
            k = len(text[bottom - 1 : top].rstrip("\n."))
            if k:
                c = bottom + k - 2
                return c, (c + 1, i)
            i -= 1
        return None

    def first_start(a: int, end: int) -> int | None:
        """The first start whose `\\s*` covers the maximal whitespace run text[a:end]."""
        if (a > 1 and text[a - 1] in ".!") or (a == 1 and text[0] == "."):
            return a - 1
        # A "!" at 0 may also have matched through `^`; then the newlines after it start matches of their own.
        nl = text.find("\n", a, end)
        return nl if nl >= 0 else None

    def start_of(q: int) -> int | None:
        return q if text[q] != "\n" else first_start(back(_SPACES, q), q + 1)

    def start_over(w: int) -> int | None:
        """The first start whose `\\s*\\**` runs over position w, if any."""
        if text[w] == "*":
            p = back(_STARS, w)
            return first_start(back(_SPACES, p), p)
        if text[w].isspace():
            return first_start(back(_SPACES, w), _SPACES.match(text, w).end())  # type: ignore[union-attr]
        return None

    def match_at(q: int) -> tuple[int, tuple[int, int]] | None:
        if q == 0:
            found = last_subject(0, _STARS.match(text).end())  # type: ignore[union-attr]
            if found is not None or text[0] not in "\n.!":
                return found
        r = _SPACES.match(text, q + 1).end()  # type: ignore[union-attr]
        return last_subject(q + 1, _STARS.match(text, r).end())  # type: ignore[union-attr]

    # A match's subject starts at most 40 characters before its end, so its start is in that window or its
    # runs cross the window's first position.
    starts: set[int | None] = {0}
    for first, x, y, _ in ivals:
        w = max(0, first - _SUBJECT_MAX - 1)
        starts.add(start_over(w))
        starts.update(start_of(m.start()) for m in _SUBJECT_START.finditer(text, w, first))
        nl = text.find("\n", x, y)
        if nl >= 0:
            starts.add(start_of(nl))
    out = []
    for q in sorted(s for s in starts if s is not None):
        found = match_at(q)
        if found is not None:
            c, (e, i) = found
            out.append((c, e, ivals[i][3]))
    return out


def _overlapping(pat: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """All matches, including ones starting inside an earlier match."""
    out = []
    pos = 0
    while True:
        m = pat.search(text, pos)
        if m is None:
            return out
        out.append(m)
        pos = m.start() + 1


def _final_line(text: str) -> str | None:
    stripped = text.rstrip()
    if not stripped:
        return None
    line = stripped.rsplit("\n", 1)[-1]
    line = clean_answer(_LINE_LEAD.sub("", line))
    if not line or line.endswith("?") or not _ANSWERISH.search(line):
        return None
    if len(line) <= 40 and len(_LINE_WORD.findall(line)) <= 5:
        return line
    # "D (A and C are ruled out)", "B because pair C overlaps less": a value, then its working.
    if len(line) <= 120 and _HEAD_LINE.match(line):
        return line
    return None


def _final_sentence(text: str) -> str | None:
    line = text.rstrip().rsplit("\n", 1)[-1]
    sentence = _SENTENCE.split(_LINE_LEAD.sub("", line))[-1].strip()
    if not sentence or len(sentence) > 160 or sentence.endswith("?"):
        return None
    m = _CONCLUDING.match(_MARKUP.sub("", sentence))
    if not m:
        return None
    cand = clean_answer(m.group("ans"))
    if not cand or len(cand.split()) > 8 or not _ANSWERISH.search(cand):
        return None
    hedge = _PHRASE_HEDGE.search(m.string, 0, m.start("ans"))
    return clean_answer(m.string[hedge.start() :]) if hedge else cand


def extract_detail(response: str | None, truncated: bool = False) -> Extraction:
    """The answer span, its tier and the rule that found it. A truncated response (the provider stopped it
    at its token limit) is read only from a complete <answer>...</answer> tag: anything else in it may be
    a half-written thought, not an answer."""
    if not response or not response.strip():
        return Extraction(None, NONE, "empty response")
    text = strip_think(response)
    if "<" in text:
        found = _from_tags(text, allow_open=not truncated)
        if found is not None:
            return found
    # Reached only without a usable raw tag: escaped tags are then the reply's own, unless quoted as examples.
    escaped = _unescaped(response)
    if escaped is not None:
        found = _from_tags(strip_think(escaped), allow_open=False)
        if found is not None:
            return Extraction(found.text, TAG, RULE_ESCAPED_TAG)
    if truncated:
        return Extraction(None, NONE, "truncated before a complete <answer> tag")
    found = _from_phrases(text)
    if found is not None:
        return found
    return Extraction(None, NONE, "no answer found")


def extract_answer(response: str | None, truncated: bool = False) -> tuple[str | None, str]:
    """(answer text, tier) with tier "tag", "regex" or "none" (the judge tier is decided by the caller)."""
    found = extract_detail(response, truncated)
    return found.text, found.tier
