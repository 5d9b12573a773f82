"""Answer extraction, tiers 1-2 of docs/scoring.md ("Extraction tiers"): answer tags first, then phrasings.

Extraction is type-agnostic: it finds the span the model meant as its final answer and lightly cleans it.
Deciding what that span *means* (letters, numbers, synonyms) is grade.py's job, so a tag holding
"Option (B)." is returned as "Option (B)" and read as B by the grader.

Tier 3 (the LLM judge) lives in judge.py; score.py calls it when this module finds no answer, or when the
grader cannot decide what the answer means (free text, an ambiguous commitment).
"""

from __future__ import annotations

import ast
import json
import re
from dataclasses import dataclass
from typing import Any

from vcot.scoring.normalize import NUMBER_WORDS

TAG = "tag"
REGEX = "regex"
JUDGE = "judge"
NONE = "none"

# Reasoning blocks of "thinking" models may hold earlier, abandoned answers; only text outside counts.
_THINK_NAMES = "think|thinking|reasoning|reflection|scratchpad"
_THINK_BLOCK = re.compile(rf"<\s*({_THINK_NAMES})\b[^>]*>.*?<\s*/\s*\1\s*>", re.I | re.S)
_THINK_OPEN = re.compile(rf"<\s*(?:{_THINK_NAMES})\b[^>]*>", re.I)
_THINK_CLOSE = re.compile(rf"<\s*/\s*(?:{_THINK_NAMES})\s*>", re.I)

_ANSWER_TAG = re.compile(r"<\s*answer\s*>(.*?)<\s*/\s*answer\s*>", re.I | re.S)
_ANSWER_OPEN = re.compile(r"<\s*answer\s*>", re.I)
_ANSWER_CLOSE = re.compile(r"<\s*/\s*answer\s*>", re.I)

# Echoed instructions ("...placed in <answer>your answer</answer>", "<answer>X</answer>") are not answers.
# "X" and "N" are also option letters in principle, but no task has 14 or 24 options.
_PLACEHOLDERS = frozenset({
    "", "...", "…", "answer", "your answer", "final answer", "your final answer", "the final answer",
    "{answer}", "[answer]", "<answer>", "answer here", "your answer here", "insert answer", "x", "letter",
    "your choice", "option", "number", "n",
})

_BOXED = "\\boxed{"
_TEXT_CMD = re.compile(r"\\(?:text|mathrm|textbf|mathbf)\s*\{([^{}]*)\}")
_MARKUP = re.compile(r"\*\*|__|`|\$|\\\(|\\\)|\\\[|\\\]")
_LEAD = re.compile(
    r"^\s*(?:[-*•#>]+\s*)?(?:(?:the\s+)?(?:final|correct)\s+answer|(?:the\s+)?answer)(?![\w'’-])\s*"
    r"(?:is(?![\w'’])\s*)?[:：]?\s*",
    re.I,
)
_TRAIL = re.compile(r"[\s.。!！;；,，:：]+$")
_QUOTES = "\"'“”‘’«»"
_WS = re.compile(r"[^\S\n]+")
_NL = re.compile(r"\s*\n\s*")
_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*(.*?)\s*```\s*$", re.S)

# Tier 2 phrasings, strongest first; within one pattern the last match in the text wins.
_PHRASES = (
    re.compile(r"final\s+answer\s*(?:is|:|：|=)?\s*(?:[:：])?\s*([^\n]*)", re.I),
    re.compile(r"\banswer\s*(?:is|:|：|=)\s*(?:[:：])?\s*([^\n]*)", re.I),
    re.compile(r"(?:^|[\n.!]\s*)\**([^\n.]{1,40}?)\**\s+is\s+(?:the|my)\s+(?:final\s+|correct\s+)?answer\b", re.I),
    re.compile(
        r"\b(?:therefore|thus|hence)\b[,:]?\s+(?:[\w'-]+\s+){0,8}?(?:is|are|equals|=)\s+([^\n]{1,60})", re.I
    ),
)
_PHRASE_RULES = ("'final answer' phrase", "'answer is' phrase", "'X is the answer' phrase",
                 "'therefore ... is X' phrase")
# Lead-ins of echoed instructions ("the final answer is placed in ..."), never answers themselves.
_INSTRUCTION = re.compile(r"(?:placed|put|given|written|enclosed|wrapped|formatted)\b|(?:should|must|will|goes)\b", re.I)
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
_ANSWER_KEYS = frozenset({"answer", "finalanswer", "final", "result", "prediction", "output", "choice", "option",
                          "selected", "selection", "conclusion", "response", "solution"})
_WORKING_KEYS = frozenset({"reasoning", "explanation", "thought", "thoughts", "rationale", "analysis", "steps",
                           "work", "justification", "thinking", "confidence", "notes", "comment"})
_JSON_OBJECT = re.compile(r"\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\}")
_JSON_HINT = re.compile(r"\{\s*[\"']\w")

# How the answer was found, for Score.reason and explain().
RULE_TAG = "last <answer> tag outside reasoning"
RULE_OPEN_TAG = "unclosed final <answer> tag"
RULE_BOXED = "\\boxed{}"
RULE_JSON = "JSON answer field"
RULE_LAST_LINE = "short last line"
RULE_SENTENCE = "concluding last sentence"


@dataclass(frozen=True, slots=True)
class Extraction:
    text: str | None
    tier: str  # TAG | REGEX | NONE
    rule: str  # which rule found it, or why nothing was found


def strip_think(text: str) -> str:
    """Text outside reasoning blocks. An unmatched closing tag means everything before it was reasoning
    (chat templates often open the block in the prompt); an unmatched opening tag runs to the end."""
    if "<" not in text:
        return text
    text = _THINK_BLOCK.sub(" ", text)
    closes = list(_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end():]
    m = _THINK_OPEN.search(text)
    if m:
        text = text[: m.start()]
    return text


def _unbox(s: str) -> str:
    """Content of the last \\boxed{...}, braces balanced; the input unchanged when there is none."""
    i = s.rfind(_BOXED)
    if i < 0:
        return s
    j = i + len(_BOXED)
    depth = 1
    k = j
    while k < len(s):
        c = s[k]
        if c == "{":
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                return s[j:k]
        k += 1
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


def from_json(s: str, require_key: bool = False) -> str | None:
    """The answer in a JSON object or list, or None when `s` is not one (or, with `require_key`, has no key
    naming the answer)."""
    s = s.strip()
    fence = _FENCE.match(s)
    if fence:
        s = fence.group(1)
    if len(s) > 2000 or not ((s[:1] == "{" and s[-1:] == "}") or (s[:1] == "[" and s[-1:] == "]")):
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
    s = _TRAIL.sub("", s)
    return s.strip().strip(_QUOTES).strip()


def _usable(s: str) -> bool:
    return s.lower() not in _PLACEHOLDERS


def _from_tags(text: str, allow_open: bool = True) -> Extraction | None:
    matches = _ANSWER_TAG.findall(text)
    for raw in reversed(matches):
        cand = clean_answer(raw)
        if _usable(cand):
            return Extraction(cand, TAG, RULE_TAG)
    if not allow_open:
        return None
    # A response cut off after its last opening tag still states an answer.
    opens = list(_ANSWER_OPEN.finditer(text))
    if opens:
        tail = text[opens[-1].end():]
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


def _from_phrases(text: str) -> Extraction | None:
    if "<" in text:
        # Only unusable tags reach this tier; their echoed template text must not be read as a phrase.
        text = _ANSWER_TAG.sub(" ", text)
    if _BOXED in text:
        cand = clean_answer(_unbox(text))
        if _usable(cand):
            return Extraction(cand, REGEX, RULE_BOXED)
    if "{" in text:
        cand = _from_json_text(text)
        if cand is not None and _usable(cand):
            return Extraction(cand, REGEX, RULE_JSON)
    for pat, rule in zip(_PHRASES, _PHRASE_RULES, strict=True):
        for m in reversed(_overlapping(pat, text)):
            cand = clean_answer(m.group(1))
            if not cand:
                # "Answer:" followed by the answer on the next line.
                rest = text[m.end():].lstrip().split("\n", 1)[0]
                cand = clean_answer(rest)
            if _usable(cand) and len(cand) <= 200 and not _INSTRUCTION.match(cand):
                return Extraction(cand, REGEX, rule)
    line = _final_line(text)
    if line is not None:
        return Extraction(line, REGEX, RULE_LAST_LINE)
    sentence = _final_sentence(text)
    if sentence is not None:
        return Extraction(sentence, REGEX, RULE_SENTENCE)
    return None


def _overlapping(pat: re.Pattern[str], text: str) -> list[re.Match[str]]:
    """All matches, including ones starting inside an earlier match: an echoed "answer is placed in ..."
    line must not swallow the "answer is 5" that follows it on the same line."""
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
    return cand


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
