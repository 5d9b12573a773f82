"""Reading JSON Lines files with errors that name the file and line (untrusted input everywhere)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

# The longest line read. Real instance lines are kilobytes; the limit exists so that a hostile or broken
# file (one 500 MB line) is refused after reading this much rather than after loading all of it.
MAX_LINE_BYTES = 16 * 1024 * 1024


def loads_checked(text: str | bytes, where: str, error: type[Exception] = ValueError) -> Any:
    """`json.loads` whose every failure on hostile text is `error` naming `where`.

    Besides malformed JSON this covers what the standard parser raises outside JSONDecodeError: integers
    longer than Python's digit limit (ValueError) and nesting deep enough to exhaust the stack
    (RecursionError).
    """
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise error(f"{where}: malformed JSON (column {exc.colno}: {exc.msg})") from None
    except RecursionError:
        raise error(f"{where}: JSON nested too deeply") from None
    except ValueError as exc:
        raise error(f"{where}: unreadable JSON value ({exc})") from None


def iter_jsonl(
    path: str | Path, error: type[Exception] = ValueError, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, str, Any]]:
    """Yield (line number, "file:line", parsed value) for each non-blank line.

    Raises `error` naming the file and line for text that is not UTF-8 or not JSON, and for a line longer
    than `max_line_bytes` (refused before the rest of it is read).
    """
    for lineno, where, line in iter_jsonl_text(path, error, max_line_bytes):
        yield lineno, where, loads_checked(line, where, error)


def iter_jsonl_text(
    path: str | Path, error: type[Exception] = ValueError, max_line_bytes: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, str, str]]:
    """Yield (line number, "file:line", text) for each non-blank line, unparsed: for readers that parse a line
    straight into a model (and call `loads_checked` for its error message when that fails). Raises `error`
    as `iter_jsonl` does for text that is not UTF-8 and for overlong lines."""
    prefix = f"{path}:"
    with open(path, "rb") as fh:
        lineno = 0
        while True:
            raw = fh.readline(max_line_bytes + 1)
            if not raw:
                return
            lineno += 1
            where = f"{prefix}{lineno}"
            if len(raw) > max_line_bytes:
                raise error(f"{where}: line longer than {max_line_bytes} bytes (the limit for one JSON line)")
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise error(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
            if not line.strip():
                continue
            yield lineno, where, line
