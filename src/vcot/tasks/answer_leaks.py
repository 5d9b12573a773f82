"""Does a step text, or a label drawn in a step picture, state the answer?

Steps are intermediate states. A final state may make the answer *visible* (the ball in its pocket, the
die's top face, the arrow on the asked gear), as MIRA's pictures do, but no step may *state* the
conclusion: no "Answer: 3", no option letter of the right candidate, no final count or total, no time read
off the clock (`docs/tasks/README.md`, "Steps are states, not conclusions"). These rules are mechanical on
purpose, so that the generator contract test can apply them to every step of every task.

A task whose final state inherently shows the answer (`Task.final_state_shows`) may name the answer's
value while describing that state (the die "shows 3 on top"), never in a concluding phrase.
"""

from __future__ import annotations

import re

from vcot.schema import AnswerType, Instance

# Words that announce a conclusion rather than describe a state.
_CONCLUSION = re.compile(
    r"\b(answers?|therefore|thus|hence|so the|correct|conclusion|solution|result|final|"
    r"finally|ends here|in the end|at the end)\b",
    re.I,
)
# Phrases that turn a number into a count, total or requirement (the conclusion of counting tasks).
_COUNT_WORDS = (
    r"total|sums?|count|altogether|in all|overall|missing|needed|needs?|to add|must be added|"
    r"maximum|minimum|at most|at least|equals?|makes?"
)
_DIRECTION_ALIASES = {
    "north": ("north", "n", "up"),
    "south": ("south", "s", "down"),
    "east": ("east", "e", "right"),
    "west": ("west", "w", "left"),
    "north-east": ("north-east", "northeast", "ne", "up-right"),
    "north-west": ("north-west", "northwest", "nw", "up-left"),
    "south-east": ("south-east", "southeast", "se", "down-right"),
    "south-west": ("south-west", "southwest", "sw", "down-left"),
}


def _word(value: str, flags: int = re.I) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(value) + r"(?![\w-])", flags)


def _number(value: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w.:-])" + re.escape(value) + r"(?!\w|[.:,]\d)")


def _count_statement(text: str, number: str) -> bool:
    n = re.escape(number)
    before = re.compile(rf"(?:\b(?:{_COUNT_WORDS})\b|=)\W*(?:\w+\W+){{0,3}}?{n}(?!\w|[.:,]\d)", re.I)
    after = re.compile(
        rf"(?<![\w.:-]){n}\s+(?:\w+\s+){{0,2}}?(?:in total|in all|altogether|overall|missing|"
        rf"needed|more|to add|total)\b",
        re.I,
    )
    return bool(before.search(text) or after.search(text))


def _list_variants(items: list[str]) -> list[str]:
    if len(items) < 2:
        return items
    return [
        ", ".join(items),
        " ".join(items),
        ", ".join(items[:-1]) + " and " + items[-1],
        ", ".join(items[:-1]) + ", and " + items[-1],
    ]


def answer_statements(text: str, instance: Instance, final_state_shows: bool = False) -> list[str]:
    """Why `text` states `instance`'s answer (empty when it does not)."""
    reasons: list[str] = []
    if not text or not text.strip():
        return reasons
    if m := _CONCLUSION.search(text):
        reasons.append(f"announces a conclusion ({m.group(0)!r})")
    gold = instance.answer.strip()
    t = instance.answer_type
    if t == AnswerType.CHOICE:
        if re.fullmatch(r"[A-Z]", gold) and re.search(r"(?<![A-Za-z])" + gold + r"(?![A-Za-z])", text):
            reasons.append(f"names the right option letter {gold!r}")
        letters = [chr(ord("A") + i) for i in range(len(instance.options or []))]
        if gold in letters and instance.options:
            opt = instance.options[letters.index(gold)].strip()
            if len(opt) > 1 and opt != gold and _word(opt).search(text) and not final_state_shows:
                reasons.append(f"names the right option's text {opt!r}")
    elif t == AnswerType.TIME:
        h, _, mm = gold.partition(":")
        if re.search(rf"(?<!\d)0?{re.escape(h)}\s*[:.h]\s*{re.escape(mm)}(?!\d)", text):
            reasons.append(f"states the time {gold!r}")
    elif t == AnswerType.DIRECTION:
        key = gold.lower().replace(" ", "-")
        for alias in _DIRECTION_ALIASES.get(key, (key,)):
            if len(alias) > 2 and _word(alias).search(text) and not final_state_shows:
                reasons.append(f"names the direction {alias!r}")
                break
    elif t in (AnswerType.INTEGER, AnswerType.NUMBER):
        if _count_statement(text, gold):
            reasons.append(f"states {gold} as a count, total or requirement")
        elif not final_state_shows and _number(gold).search(text) and len(text.split()) <= 3:
            reasons.append(f"is a bare label of the answer {gold}")
    elif t == AnswerType.PAIR:
        first, _, second = (
            (p.strip() for p in re.split(r"([,;/])", gold, maxsplit=1)) if re.search(r"[,;/]", gold) else (gold, "", "")
        )
        if second and _count_statement(text, second):
            reasons.append(f"states the sum {second}")
        if first and re.search(
            rf"\b{re.escape(first)}\b\W+(?:\w+\W+){{0,3}}?(higher|larger|greater|wins|more|"
            rf"bigger)\b",
            text,
            re.I,
        ):
            reasons.append(f"states which is higher ({first!r})")
        if _word(gold).search(text):
            reasons.append(f"states the pair {gold!r}")
    elif t in (AnswerType.SET, AnswerType.COORDINATES):
        items = [x.strip() for x in re.split(r",(?![^()\[\]]*[)\]])", gold) if x.strip()]
        if len(items) >= 2 and any(v in text for v in _list_variants(items)):
            reasons.append(f"lists the answer {gold!r}")
        elif len(items) == 1 and not final_state_shows and _word(gold).search(text):
            reasons.append(f"states the answer {gold!r}")
    elif t == AnswerType.TEXT:
        if not final_state_shows and _word(gold).search(text):
            reasons.append(f"states the answer {gold!r}")
    return reasons
