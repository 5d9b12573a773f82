"""Checks of untrusted curation input (configs, source files, review edits): every failure is one line naming the
file, key or row at fault, raised as the caller's error type so that the command exits with code 2 and no
traceback (docs/curation.md, "Refused input")."""

from __future__ import annotations

import math
import os
import re
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from vcot.suggest import did_you_mean

# A config is a few kilobytes; the cap keeps a hostile one (a YAML alias bomb, megabytes of nesting) from being
# parsed at all.
MAX_CONFIG_BYTES = 1024 * 1024
# A source file read whole (CLEVR questions JSON): real ones are tens of megabytes.
MAX_JSON_BYTES = 512 * 1024 * 1024
# Reviewed text: a question is a paragraph, an answer a word, a number or a short phrase; a longer answer is a
# paste gone wrong, and graders compare answers as short strings.
MAX_QUESTION_CHARS = 4000
MAX_ANSWER_CHARS = 200
MAX_NOTE_CHARS = 4000

# Control characters other than newline and tab (and DEL, C1): invisible in the page, they would reach every
# prompt built from the frozen item. ESC starts terminal escape sequences.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_LINE_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")  # an answer is one line: no newline or tab either
# The answer tag graders extract from (`<answer>…</answer>`), also escaped or spaced: inside a question or an
# answer it would make a model's reply, or the item itself, grade as something else.
_ANSWER_TAG = re.compile(r"(<|&lt;|&#0*60;|&#x0*3c;)\s*/?\s*answer\s*(>|&gt;|&#0*62;|&#x0*3e;)", re.IGNORECASE)


def where_key(where: str, key: str) -> str:
    return f"{where}: '{key}'" if where else f"'{key}'"


def unknown_keys(value: Mapping[str, Any], known: Iterable[str], where: str, error: type[Exception]) -> None:
    """Refuse keys outside `known`, with a did-you-mean: a misspelt key silently ignored is a setting lost."""
    known = sorted(known)
    bad = sorted(str(k) for k in value if k not in known)
    if bad:
        raise error(f"{where}: unknown key(s) {bad}{did_you_mean(bad, known) or ';'} known: {', '.join(known)}")


def mapping(value: Any, where: str, error: type[Exception]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise error(f"{where} must be a mapping, got {kind(value)}")
    if any(not isinstance(k, str) for k in value):
        raise error(f"{where}: every key must be text")
    return value


def text(value: Any, where: str, error: type[Exception], empty: bool = False) -> str:
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise error(f"{where} must be {'text' if empty else 'non-empty text'}, got {kind(value)}")
    if "\x00" in value:
        raise error(f"{where} holds a NUL character")
    return value


def integer(value: Any, where: str, error: type[Exception], lo: int, hi: int) -> int:
    """A whole number in lo..hi; a bool, a float (NaN, 2.5) or a numeric string is refused, not coerced."""
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, float) and math.isfinite(value) and value.is_integer():
            value = int(value)
        else:
            raise error(f"{where} must be a whole number in {lo}..{hi}, got {kind(value)}")
    if not lo <= value <= hi:
        raise error(f"{where} must lie in {lo}..{hi}, got {value}")
    return value


def number(value: Any, where: str, error: type[Exception], lo: float, hi: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise error(f"{where} must be a finite number in {lo}..{hi}, got {kind(value)}")
    if not lo <= value <= hi:
        raise error(f"{where} must lie in {lo}..{hi}, got {value}")
    return float(value)


def boolean(value: Any, where: str, error: type[Exception]) -> bool:
    if not isinstance(value, bool):
        raise error(f"{where} must be true or false, got {kind(value)}")
    return value


def text_list(value: Any, where: str, error: type[Exception]) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise error(f"{where} must be a list of text, got {kind(value)}")
    return value


def kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"{str(value).lower()} (a boolean)"
    if isinstance(value, int | float):
        return f"{value!r} (a number)" if math.isfinite(value) else f"{value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:40] + "…"
        return f"{shown!r} (text)"
    return {"list": "a list", "dict": "a mapping"}.get(type(value).__name__, f"a {type(value).__name__}")


def regular_file(path: Path, what: str, error: type[Exception]) -> os.stat_result:
    """The stat of a file about to be opened. A FIFO or a device would block `open` or stream for ever, a
    folder fails later with a confusing message: only regular files are read. A symlink is followed, as
    `vcot.suite` follows one that stays inside its folder (callers check containment where it matters)."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except (OSError, ValueError) as exc:  # ValueError: a NUL in the path
        raise error(f"{what} {path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{what} {path} is a folder, not a file")
    if not stat.S_ISREG(st.st_mode):
        raise error(f"{what} {path} is not a regular file (a FIFO, socket or device is refused)")
    return st


def directory(path: Path, what: str, error: type[Exception]) -> None:
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise error(f"{what} not found: {path}") from None
    except (OSError, ValueError) as exc:
        raise error(f"{what} {path}: cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    if not stat.S_ISDIR(st.st_mode):
        raise error(f"{what} {path} is not a folder")


def read_text(path: Path, what: str, error: type[Exception], limit: int) -> str:
    """A whole small file as UTF-8 text, refused (not truncated) past `limit` bytes."""
    st = regular_file(path, what, error)
    if st.st_size > limit:
        raise error(f"{what} {path} is {st.st_size} bytes, over the {limit}-byte limit")
    try:
        with open(path, "rb") as fh:
            data = fh.read(limit + 1)
    except OSError as exc:
        raise error(f"{what} {path}: cannot be read ({exc.strerror or exc})") from None
    if len(data) > limit:
        raise error(f"{what} {path} is over the {limit}-byte limit")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None


def edit_problem(question: str, answer: str, note: str = "") -> str | None:
    """Why a reviewer's edit cannot be frozen, or None. The same rule holds when the edit is made (review) and
    when it is used (freeze), so a store edited by other means cannot smuggle one in."""
    for name, value, limit in (
        ("question", question, MAX_QUESTION_CHARS),
        ("answer", answer, MAX_ANSWER_CHARS),
        ("note", note, MAX_NOTE_CHARS),
    ):
        if len(value) > limit:
            return f"the {name} is {len(value)} characters long, over the {limit}-character limit"
        bad = (_LINE_CONTROL if name == "answer" else _CONTROL).search(value)
        if bad:
            return f"the {name} holds a control character ({bad.group()!r}); {name}s are plain text" + (
                " on one line" if name == "answer" else ""
            )
        tag = _ANSWER_TAG.search(value) if name != "note" else None
        if tag:
            return f"the {name} holds an answer tag ({tag.group()!r}), which graders read as the model's answer"
    if not question.strip() or not answer.strip():
        return "an edit needs both a question and an answer"
    return None
