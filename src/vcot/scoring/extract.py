"""Answer extraction, tiers 1-2 of SPEC §7: answer tags first, then common phrasings.

Extraction is type-agnostic: it finds the span the model meant as its final answer and lightly cleans it.
Deciding what that span *means* (letters, numbers, synonyms) is grade.py's job, so a tag holding
"Option (B)." is returned as "Option (B)" and read as B by the grader.

Tier 3 (the LLM judge) lives in judge.py; it is reached only when this module returns no answer.
"""

from __future__ import annotations

import re

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
    r"^\s*(?:[-*•#>]+\s*)?(?:(?:the\s+)?(?:final|correct)\s+answer|(?:the\s+)?answer)\s*(?:is\s*)?[:：]?\s*",
    re.I,
)
_TRAIL = re.compile(r"[\s.。!！;；,，:：]+$")
_QUOTES = "\"'“”‘’«»"
_WS = re.compile(r"\s+")

# Tier 2 phrasings, strongest first; within one pattern the last match in the text wins.
_PHRASES = (
    re.compile(r"final\s+answer\s*(?:is|:|：|=)?\s*(?:[:：])?\s*([^\n]*)", re.I),
    re.compile(r"\banswer\s*(?:is|:|：|=)\s*(?:[:：])?\s*([^\n]*)", re.I),
    re.compile(r"(?:^|[\n.!]\s*)\**([^\n.]{1,40}?)\**\s+is\s+(?:the|my)\s+(?:final\s+|correct\s+)?answer\b", re.I),
    re.compile(
        r"\b(?:therefore|thus|hence)\b[,:]?\s+(?:[\w'-]+\s+){0,8}?(?:is|are|equals|=)\s+([^\n]{1,60})", re.I
    ),
)
# Lead-ins of echoed instructions ("the final answer is placed in ..."), never answers themselves.
_INSTRUCTION = re.compile(r"(?:placed|put|given|written|enclosed|wrapped|formatted)\b|(?:should|must|will|goes)\b", re.I)
# A last line counts as an answer only if it is short and shaped like one: digits, a letter, letters in
# capitals ("ACD", "A, C and D", "NW"), or a word of the answer vocabularies.
_LINE_LEAD = re.compile(r"^\s*(?:[-*•#>]+\s*)+")
_ANSWERISH = re.compile(
    r"\d|^\(?[A-Za-z]\)?$|(?-i:^[A-Z]{1,4}$|^[A-Z](?:\s*(?:,|&|\band\b)\s*[A-Z])+$)|\b(?:north|south|east|west|up|down|left|right|clockwise|counterclockwise|"
    r"anticlockwise|jammed|red|black|same)\b",
    re.I,
)


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


def clean_answer(s: str) -> str:
    """Remove wrapping that never changes meaning: markup, boxes, 'Answer:' lead-ins, quotes, end punctuation."""
    if _BOXED in s:
        s = _unbox(s)
    if "\\" in s:
        s = _TEXT_CMD.sub(r"\1", s)
    s = _MARKUP.sub("", s)
    s = _WS.sub(" ", s).strip()
    s = _LEAD.sub("", s, count=1)
    s = s.strip().strip(_QUOTES).strip()
    s = _TRAIL.sub("", s)
    return s.strip().strip(_QUOTES).strip()


def _usable(s: str) -> bool:
    return s.lower() not in _PLACEHOLDERS


def _from_tags(text: str) -> str | None:
    matches = _ANSWER_TAG.findall(text)
    for raw in reversed(matches):
        cand = clean_answer(raw)
        if _usable(cand):
            return cand
    # A response cut off after its last opening tag still states an answer.
    opens = list(_ANSWER_OPEN.finditer(text))
    if opens:
        tail = text[opens[-1].end():]
        if not _ANSWER_CLOSE.search(tail):
            cand = clean_answer(tail[:200])
            if _usable(cand) and "\n" not in tail.strip()[:200]:
                return cand
    return None


def _from_phrases(text: str) -> str | None:
    if "<" in text:
        # Only unusable tags reach this tier; their echoed template text must not be read as a phrase.
        text = _ANSWER_TAG.sub(" ", text)
    if _BOXED in text:
        cand = clean_answer(_unbox(text))
        if _usable(cand):
            return cand
    for pat in _PHRASES:
        for m in reversed(_overlapping(pat, text)):
            cand = clean_answer(m.group(1))
            if not cand:
                # "Answer:" followed by the answer on the next line.
                rest = text[m.end():].lstrip().split("\n", 1)[0]
                cand = clean_answer(rest)
            if _usable(cand) and len(cand) <= 200 and not _INSTRUCTION.match(cand):
                return cand
    return _final_line(text)


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
    if not line or len(line) > 40 or len(line.split()) > 5 or line.endswith("?"):
        return None
    if not _ANSWERISH.search(line):
        return None
    return line


def extract_answer(response: str | None) -> tuple[str | None, str]:
    """(answer text, tier) with tier "tag", "regex" or "none" (the judge tier is decided by the caller)."""
    if not response or not response.strip():
        return None, NONE
    text = strip_think(response)
    if "<" in text:
        cand = _from_tags(text)
        if cand is not None:
            return cand, TAG
    cand = _from_phrases(text)
    if cand is not None:
        return cand, REGEX
    return None, NONE
