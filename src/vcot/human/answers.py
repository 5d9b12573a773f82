"""A participant's answer: checked against its answer type, then graded exactly as a model's answer is.

The check refuses what the grader could not read (a letter that is no option, a number that is no number),
so a slip of the finger is sent back to the participant instead of being stored as wrong. Grading wraps the
answer in the answer tag a model is asked for (`<answer>…</answer>`), so `vcot.scoring` reads it with its
first tier and humans and models are held to one rule (docs/scoring.md).
"""

from __future__ import annotations

import math
import re
import unicodedata

from vcot.schema import AnswerType, Instance, option_letters
from vcot.scoring import Score, score_fields

MAX_ANSWER = 200
_INTEGER = re.compile(r"[+-]?\d{1,12}")
_NUMBER = re.compile(r"[+-]?(\d{1,15}(\.\d{0,15})?|\.\d{1,15})([eE][+-]?\d{1,3})?")
# What a time field sends (HH:MM, or HH:MM:SS when seconds are shown), and what people type (3:40).
_TIME = re.compile(r"(\d{1,2}):(\d{2})(?::(\d{2}))?")


class AnswerError(ValueError):
    """The answer cannot be graded as given; the message tells the participant what to enter."""


def hint(answer_type: AnswerType) -> str:
    """A line under the answer field; the question itself states the expected form."""
    return {
        AnswerType.INTEGER: "A whole number.",
        AnswerType.NUMBER: "A number (use a point for decimals).",
        AnswerType.TIME: "The time shown; AM or PM does not matter.",
        AnswerType.COORDINATES: "Coordinates as the question asks, e.g. (3, 4).",
        AnswerType.SET: "Every item the question asks for, separated by commas.",
        AnswerType.PAIR: "Two values as the question asks, e.g. 3, 5.",
        AnswerType.DIRECTION: "A direction as the question asks, e.g. up, down-left.",
    }.get(answer_type, "Your answer, in the form the question asks for.")


def check_answer(inst: Instance, raw: str) -> str:
    """The answer as it will be stored and graded; AnswerError when it cannot be graded as given."""
    value = raw.strip()
    if not value:
        raise AnswerError("Please enter an answer before continuing.")
    if len(value) > MAX_ANSWER:
        raise AnswerError(f"The answer is longer than {MAX_ANSWER} characters.")
    if not value.isprintable():
        raise AnswerError("The answer contains control characters or line breaks; enter it on one line.")
    at = inst.answer_type
    if at in (AnswerType.INTEGER, AnswerType.NUMBER, AnswerType.TIME):
        value = ascii_digits(value)
    if at == AnswerType.CHOICE:
        letters = option_letters(len(inst.options or []))
        if value.upper() not in letters:
            raise AnswerError(f"Choose one of the options {', '.join(letters)}.")
        return value.upper()
    if at == AnswerType.INTEGER:
        if not _INTEGER.fullmatch(value):
            raise AnswerError("Enter a whole number, such as 7.")
        return value
    if at == AnswerType.NUMBER:
        if not _NUMBER.fullmatch(value) or not math.isfinite(float(value)):
            raise AnswerError("Enter a number, such as 2.5.")
        return value
    if at == AnswerType.TIME:
        m = _TIME.fullmatch(value)
        if not m or int(m.group(1)) > 23 or int(m.group(2)) > 59:
            raise AnswerError("Enter a time as hours and minutes, such as 3:40.")
        return f"{int(m.group(1))}:{m.group(2)}"
    # The answer tag is how the grader finds the answer; a participant's '<' or '>' could end it early.
    if "<" in value or ">" in value:
        raise AnswerError("The characters < and > cannot be used in an answer.")
    return value


def ascii_digits(value: str) -> str:
    """`value` with every decimal digit of another script ("٣", "３") as its ASCII digit. The grader reads
    such digits as their values (Python's int and float do), so a participant typing them is held to the same
    rule as a model, and the stored answer is one spelling whatever keyboard was used."""
    return "".join(str(unicodedata.decimal(c)) if not c.isascii() and c.isdecimal() else c for c in value)


def grade(inst: Instance, answer: str) -> Score:
    """Grade a checked answer with vcot's grader, as if a model had written `<answer>answer</answer>`."""
    return score_fields(response_of(answer), inst.answer, inst.answer_type, inst.options, inst.question)


def response_of(answer: str) -> str:
    return f"<answer>{answer}</answer>"
