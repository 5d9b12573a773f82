"""Extraction time is linear in the reply, and the linear extraction reads replies exactly as the regexes it
replaced did.

Model output is untrusted: a reply of unclosed tags, a flood of one phrasing, or a long run of stars or blank
lines once took minutes (the lazy tag regexes retried the rest of the text from every opening tag; the "X is
the answer" regex backtracked over every split of a run). The old regex logic is kept below, in the test
only, as the reference for a differential check on many short random replies.
"""

from __future__ import annotations

import random
import re
import time

import pytest

from vcot.scoring import extract as ex
from vcot.scoring import score_fields

MB = 1_000_000
LIMIT_S = (
    10.0  # the regressions this guards against took minutes; a case takes 0.3-2.5 s of CPU on these shared machines
)


def _fill(unit: str, size: int = MB) -> str:
    return unit * (size // len(unit))


# (reply, verdict, reason) scored against gold 7 (integer), without a judge.
HOSTILE = {
    "unclosed answer tags": (_fill("<answer>"), "no answer", "no answer found"),
    "unclosed think tags": (_fill("<think>"), "no answer", "no answer found"),
    "alternating open tags": (_fill("<answer><think>"), "no answer", "no answer found"),
    "alternating open tags, think first": (_fill("<think><answer>"), "no answer", "no answer found"),
    "open tags of every reasoning name": (_fill("<thinking><reasoning><scratchpad>"), "no answer", "no answer found"),
    "opening tag that never ends": (_fill("<think "), "no answer", "no answer found"),
    "huge answer inside one tag": ("<answer>" + "7" * (MB - 17) + "</answer>", "wrong", "no number"),
    "huge prose answer inside one tag": (
        "<answer>" + _fill("the cube is near the left edge. ") + "So 7.</answer>",
        "correct",
        "match",
    ),
    "nested answer tags": ("<answer>" * 58_000 + "7" + "</answer>" * 58_000, "wrong", "a bound, not a value (7)"),
    "nested think tags": ("<think>" * 66_000 + "x" + "</think>" * 66_000 + "<answer>7</answer>", "correct", "match"),
    "'final answer' flood": (_fill("final answer "), "wrong", "no number"),
    "'answer is' flood": (_fill("the answer is 7. "), "correct", "match"),
    "'therefore' flood": (_fill("therefore it is "), "wrong", "no number"),
    "blank lines": ("x" + "\n" * MB + "7", "correct", "match"),
    "stars": (_fill("**"), "no answer", "no answer found"),
    "stars before 'is the answer'": (_fill("**") + " is the answer", "wrong", "no number"),
    "bangs then spaces": ("!" * 40 + " " * MB + "x", "no answer", "no answer found"),
    "trailing punctuation in a tag": ("<answer>7" + _fill(". ") + "x</answer>", "correct", "match"),
    "fence of spaces": ("<answer>```{" + " " * MB + "x```</answer>", "wrong", "no number"),
    "small JSON objects": (_fill("{'a': 1} "), "no answer", "no answer found"),
    "empty answer tag pairs": (_fill("<answer></answer>"), "no answer", "no answer found"),
    "answer tag pairs": (_fill("<answer>7</answer>"), "correct", "match"),
    "unclosed step tags": (_fill("<step1>"), "no answer", "no answer found"),
    "unclosed escaped answer tags": (_fill("&lt;answer&gt;"), "no answer", "no answer found"),
    "escaped answer tag pairs": (_fill("&lt;answer&gt;7&lt;/answer&gt;"), "correct", "match"),
    "escaped example tags": (_fill("e.g. `&lt;answer&gt;7&lt;/answer&gt;` "), "no answer", "no answer found"),
    "'correct choice' flood": (_fill("so the correct choice is C "), "no answer", "no answer found"),
    "'maybe' before a phrase, flooded": (_fill("maybe ") + "the answer is 7", "wrong", "hedged"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_hostile_replies_are_scored_quickly(name):
    reply, verdict, reason = HOSTILE[name]
    t0 = time.process_time()
    s = score_fields(reply, "7", "integer")
    elapsed = time.process_time() - t0
    assert (s.verdict, s.reason) == (verdict, reason)
    assert elapsed < LIMIT_S, f"{name}: {elapsed:.2f} s"


def test_step_tags_are_read_quickly_and_as_the_regex_reads_them():
    from vcot.scoring.probes import step_answers

    t0 = time.process_time()
    assert step_answers("<step1>" * 100_000) == {}
    assert step_answers("<step1>a</step1>" * 60_000 + "<step2>" * 60_000) == {1: "a"}
    assert time.process_time() - t0 < LIMIT_S
    ref = re.compile(r"<step\s*(\d+)\s*>(.*?)</step\s*\1\s*>", re.S | re.I)
    rng = random.Random(3)
    frags = [
        "<step1>",
        "<step2>",
        "</step1>",
        "</step2>",
        "<STEP 1 >",
        "</step 01>",
        "<step01>",
        "</step12>",
        "<step12>",
        "x",
        " ",
        "\n",
        "<",
        "/",
        "7",
        "<step\u0661>",
        "</step\u0661>",
    ]
    for _ in range(3000):
        text = "".join(rng.choice(frags) for _ in range(rng.randint(1, 14)))
        expected = {int(m.group(1)): m.group(2).strip() for m in ref.finditer(text)}
        assert step_answers(text) == expected, text


def test_extraction_grows_linearly():
    # Ten times the unclosed tags take about ten times as long (a hundred times, before).
    def cpu(n: int) -> float:
        reply = "<answer>" * n
        t0 = time.process_time()
        ex.extract_detail(reply)
        return time.process_time() - t0

    small, large = min(cpu(12_500) for _ in range(3)), min(cpu(125_000) for _ in range(3))
    assert large < 30 * max(small, 1e-3)


# ---------------------------------------------------------------------------------------------- reference
# The regex logic extraction used before it was made linear, verbatim (names prefixed with R).

R_THINK_BLOCK = re.compile(rf"<\s*({ex._THINK_NAMES})\b[^>]*>.*?<\s*/\s*\1\s*>", re.I | re.S)
R_THINK_OPEN = re.compile(rf"<\s*(?:{ex._THINK_NAMES})\b[^>]*>", re.I)
R_THINK_CLOSE = re.compile(rf"<\s*/\s*(?:{ex._THINK_NAMES})\s*>", re.I)
R_ANSWER_TAG = re.compile(r"<\s*answer\s*>(.*?)<\s*/\s*answer\s*>", re.I | re.S)
R_ANSWER_OPEN = re.compile(r"<\s*answer\s*>", re.I)
R_ANSWER_CLOSE = re.compile(r"<\s*/\s*answer\s*>", re.I)
R_TRAIL = re.compile(r"[\s.。!！;；,，:：]+$")
R_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*(.*?)\s*```\s*$", re.S)
R_PHRASES = (
    re.compile(r"final\s+answer\s*(?:is|:|：|=)?\s*(?:[:：])?\s*([^\n]*)", re.I),
    re.compile(r"\banswer\s*(?:is|:|：|=)\s*(?:[:：])?\s*([^\n]*)", re.I),
    re.compile(r"(?:^|[\n.!]\s*)\**([^\n.]{1,40}?)\**\s+is\s+(?:the|my)\s+(?:final\s+|correct\s+)?answer\b", re.I),
    re.compile(r"\b(?:therefore|thus|hence)\b[,:]?\s+(?:[\w'-]+\s+){0,8}?(?:is|are|equals|=)\s+([^\n]{1,60})", re.I),
)


def r_strip_think(text):
    if "<" not in text:
        return text
    text = R_THINK_BLOCK.sub(" ", text)
    closes = list(R_THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]
    m = R_THINK_OPEN.search(text)
    if m:
        text = text[: m.start()]
    return text


def r_unbox(s):
    i = s.rfind(ex._BOXED)
    if i < 0:
        return s
    j = i + len(ex._BOXED)
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


def r_from_json(s, require_key=False):
    s = s.strip()
    fence = R_FENCE.match(s)
    if fence:
        s = fence.group(1)
    if len(s) > 2000 or not ((s[:1] == "{" and s[-1:] == "}") or (s[:1] == "[" and s[-1:] == "]")):
        return None
    v = ex._load(s)
    if v is None or isinstance(v, str | int | float):
        return None
    named = isinstance(v, dict) and any(ex._key(k) in ex._ANSWER_KEYS or "answer" in ex._key(k) for k in v)
    if require_key and not named:
        return None
    return ex._flatten(v)


def r_clean(s):
    if "{" in s or "[" in s:
        flat = r_from_json(s)
        if flat is not None:
            s = flat
    if ex._BOXED in s:
        s = r_unbox(s)
    if "\\" in s:
        s = ex._TEXT_CMD.sub(r"\1", s)
    s = ex._MARKUP.sub("", s)
    s = ex._NL.sub("\n", ex._WS.sub(" ", s)).strip()
    s = ex._LEAD.sub("", s, count=1)
    s = s.strip().strip(ex._QUOTES).strip()
    s = R_TRAIL.sub("", s)
    return s.strip().strip(ex._QUOTES).strip()


def r_from_tags(text, allow_open=True):
    for raw in reversed(R_ANSWER_TAG.findall(text)):
        cand = r_clean(raw)
        if ex._usable(cand):
            return ex.Extraction(cand, ex.TAG, ex.RULE_TAG)
    if not allow_open:
        return None
    opens = list(R_ANSWER_OPEN.finditer(text))
    if opens:
        tail = text[opens[-1].end() :]
        if not R_ANSWER_CLOSE.search(tail):
            cand = r_clean(tail[:200])
            if ex._usable(cand) and "\n" not in tail.strip()[:200]:
                return ex.Extraction(cand, ex.TAG, ex.RULE_OPEN_TAG)
    return None


def r_from_json_text(text):
    if not ex._JSON_HINT.search(text):
        return None
    whole = r_from_json(text)
    if whole is not None:
        return r_clean(whole)
    for m in reversed(list(ex._JSON_OBJECT.finditer(text))):
        cand = r_from_json(m.group(0), require_key=True)
        if cand is not None:
            return r_clean(cand)
    return None


def r_overlapping(pat, text):
    out = []
    pos = 0
    while True:
        m = pat.search(text, pos)
        if m is None:
            return out
        out.append(m)
        pos = m.start() + 1


R_ESCAPED_TAG = re.compile(
    rf"{ex._ESC_LT}\s*answer\s*{ex._ESC_GT}(.*?){ex._ESC_LT}\s*/\s*answer\s*{ex._ESC_GT}", re.I | re.S
)


def r_from_phrases(text):
    if "<" in text:
        text = R_ANSWER_TAG.sub(" ", text)
    if "&" in text:
        text = R_ESCAPED_TAG.sub(" ", text)
    if ex._BOXED in text:
        cand = r_clean(r_unbox(text))
        if ex._usable(cand):
            return ex.Extraction(cand, ex.REGEX, ex.RULE_BOXED)
    if "{" in text:
        cand = r_from_json_text(text)
        if cand is not None and ex._usable(cand):
            return ex.Extraction(cand, ex.REGEX, ex.RULE_JSON)
    for pat, rule in zip(R_PHRASES, ex._PHRASE_RULES, strict=True):
        for m in reversed(r_overlapping(pat, text)):
            cand = r_clean(m.group(1))
            if not cand:
                rest = text[m.end() :].lstrip().split("\n", 1)[0]
                cand = r_clean(rest)
            if ex._usable(cand) and len(cand) <= 200 and not ex._INSTRUCTION.match(cand):
                # The hedge widening is newer than the regexes and shared with the new code.
                return ex.Extraction(ex._with_hedge(text, m.start(1), m.end(1), cand), ex.REGEX, rule)
    line = ex._final_line(text)
    if line is not None:
        return ex.Extraction(line, ex.REGEX, ex.RULE_LAST_LINE)
    sentence = ex._final_sentence(text)
    if sentence is not None:
        return ex.Extraction(sentence, ex.REGEX, ex.RULE_SENTENCE)
    choice = ex._choice_sentence(text)  # newer than the regexes, shared
    if choice is not None:
        return ex.Extraction(choice, ex.REGEX, ex.RULE_CHOICE_SENTENCE)
    return None


def r_extract(response, truncated=False):
    if not response or not response.strip():
        return ex.Extraction(None, ex.NONE, "empty response")
    text = r_strip_think(response)
    if "<" in text:
        found = r_from_tags(text, allow_open=not truncated)
        if found is not None:
            return found
    escaped = ex._unescaped(response)  # newer than the regexes, shared (its tag pairing is the old regex's)
    if escaped is not None:
        found = r_from_tags(r_strip_think(escaped), allow_open=False)
        if found is not None:
            return ex.Extraction(found.text, ex.TAG, ex.RULE_ESCAPED_TAG)
    if truncated:
        return ex.Extraction(None, ex.NONE, "truncated before a complete <answer> tag")
    found = r_from_phrases(text)
    if found is not None:
        return found
    return ex.Extraction(None, ex.NONE, "no answer found")


# ------------------------------------------------------------------------------------------- differential

# Tag fragments (with the case-folding oddities a backreference treats its own way: Kelvin sign, long s,
# dotted and dotless i), answer words and phrasings, markup, JSON and the runs the old regexes choked on.
FRAGMENTS = [
    "<answer>",
    "</answer>",
    "< answer >",
    "</ANSWER>",
    "<Answer>",
    "<think>",
    "</think>",
    "<thinking>",
    "</thinking>",
    "<THINK x>",
    "<think/>",
    "<reasoning>",
    "</reasoning >",
    "</REASONING>",
    "<scratchpad>",
    "</scratchpad>",
    "<reflection>",
    "</reflection>",
    "<thin\u212a>",
    "</think\u0131ng>",
    "<rea\u017foning>",
    "</rea\u017foning>",
    "<th\u0130nk>",
    "</th\u0130nk>",
    "<",
    ">",
    "/",
    "7",
    "B",
    "(C)",
    "3:05",
    "north",
    "x",
    "ab",
    "answer",
    "Answer",
    "final ",
    "correct ",
    "the",
    "my",
    "is",
    "IS",
    "answer is ",
    "final answer",
    "Final Answer:",
    " is the answer",
    " is my final answer",
    " is the correct answer",
    "**7** is the answer",
    "a is the answer",
    "therefore",
    " thus ",
    "hence ",
    "So it is 7.",
    "your answer",
    "placed in",
    "option",
    "…",
    "?",
    "*",
    "**",
    " ",
    "  ",
    "\t",
    "\n",
    "\n\n",
    ".",
    "!",
    ",",
    ";",
    ":",
    "：",
    "=",
    "'",
    '"',
    "-",
    "\u3000",
    "\r",
    "\x0b",
    "$",
    "`",
    "```",
    "```json\n",
    "{",
    "}",
    "[",
    "]",
    "\\boxed{",
    "\\text{",
    '{"answer": 7}',
    "{'final': 'B'}",
]
SUBJECT_FRAGMENTS = [
    "*",
    "*",
    " ",
    " ",
    "\n",
    ".",
    "!",
    "x",
    "y",
    "is the answer",
    " is the answer",
    "is my final answer",
    "\t",
    "IS THE ANSWER",
    "'",
    "is",
    "the answer",
]


def _reply(rng: random.Random, fragments: list[str]) -> str:
    parts = []
    for _ in range(rng.choice([1, 2, 3, 5, 8, 12, 20, 30])):
        f = rng.choice(fragments)
        if rng.random() < 0.2:  # runs, long enough to cross the 40-character subject window
            f *= rng.randint(1, 50 // len(f) + 1)
        parts.append(f)
    return "".join(parts)


def _dedupe(spans):
    return [s for i, s in enumerate(spans) if i == 0 or spans[i - 1] != s]


REGRESSIONS = [
    # The answer on the first line, then a long line repeating a phrasing: every later match is too long
    # to be an answer, and must be skipped without using up the phrasing's budget.
    "final answer: 7\n" + ("final answer is long " + "word " * 200) * 20,
    "x" + "\n " * 30 + "is the answer",
    "!\n\n *** is the answer",
    # "!" at the start matches through `^`; the blank line after it starts a match of its own.
    "! \n  is the answer",
    # Long before cleaning, short after: the lead-in, markup and \text{} commands go.
    "Final answer: the correct answer is $$$$$$$$$$" + "7" * 192,
    "Final answer: " + "\\text{}" * 60 + "7",
    # Many answers that must be cleaned to be rejected, then the real one: within the phrasing's budget.
    "final answer: 7\n" + ("final answer: " + "." * 1000 + "\n") * 100,
]


def test_new_extraction_agrees_with_the_regexes_it_replaced():
    rng = random.Random(20240611)
    replies = REGRESSIONS + [_reply(rng, FRAGMENTS) for _ in range(3000)]
    replies += [_reply(rng, SUBJECT_FRAGMENTS) for _ in range(1500)]
    for text in replies:
        assert ex.extract_detail(text) == r_extract(text), text
        assert ex.extract_detail(text, truncated=True) == r_extract(text, truncated=True), text
        assert ex.strip_think(text) == r_strip_think(text), text
        assert ex.clean_answer(text) == r_clean(text), text
        assert ex.from_json(text.strip()) == r_from_json(text.strip()), text
        # The phrasings' matches; the new lists drop a match that only repeats the one before it (a later
        # start in the same run of spaces), which cannot change which match is read.
        finders = (ex._final_phrases, ex._answer_phrases, ex._subject_phrases, ex._therefore_phrases)
        for find, pat in zip(finders, R_PHRASES, strict=True):
            old = [(m.start(1), m.end(1), m.end()) for m in r_overlapping(pat, text)]
            assert _dedupe(find(text)) == _dedupe(old), (pat.pattern, text)


KEY_FRAGMENTS = [
    "{",
    "}",
    ":",
    ",",
    " ",
    "'",
    '"',
    "answer",
    "ans",
    "wer",
    "final",
    "Final_Answer",
    "r'",
    "u'",
    "b'",
    "(",
    ")",
    "1e16",
    "True",
    "None",
    "1",
    "'a'",
    "[",
    "]",
    "\\x61",
    "\t",
    "'''",
    "result",
    "'answ'",
    "'r'",
    "'fin' 'al'",
    "u'fin' r'al'",
]


def test_json_answer_keys_agree():
    # Objects that cannot hold an answer key are skipped unparsed; the rest must parse as before, keys spelt
    # by concatenation, escapes or a tuple's str() included.
    rng = random.Random(7)
    tuple_key = "{('answ', 10000000000000000.0, 'r'): 7}"  # str() spells the number 1e+16
    objects = [
        tuple_key,
        "{('answ', 1e16, 'r'): 7}",
        "{'ans' 'wer': 7}",
        "{u'fin' r'al': 7}",
        "{'\\x61nswer': 7}",
        "{b'''a\nswer''': 7}",
        '{"final_answer": "B"}',
        '{"answer": "A; B"}',
        "{'a': 1}",
        "{'answer'}",
        "{}",
    ]
    objects += ["{" + "".join(rng.choice(KEY_FRAGMENTS) for _ in range(rng.randint(1, 12))) + "}" for _ in range(5000)]
    for s in objects:
        assert ex.from_json(s, require_key=True) == r_from_json(s, require_key=True), s
    assert ex.from_json(tuple_key, require_key=True) == "7"


def test_cleaning_keeps_letters_and_digits():
    # The bound that lets long phrase answers go uncleaned assumes no character cleaning strips on its own
    # (whitespace, markup, quotes, end punctuation, list bullets) is a letter or digit.
    stripped = set(ex._QUOTES) | set(".。!！;；,，:：") | set("*_`$\\()[]-•#>")
    stripped |= {chr(i) for i in range(0x3001) if chr(i).isspace()}
    assert not any(c.isalnum() for c in stripped)
