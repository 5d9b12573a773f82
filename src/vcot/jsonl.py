"""Reading JSON Lines files with errors that name the file and line (untrusted input everywhere)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def iter_jsonl(path: str | Path, error: type[Exception] = ValueError) -> Iterator[tuple[int, str, Any]]:
    """Yield (line number, "file:line", parsed value) for each non-blank line.

    Raises `error` naming the file and line for text that is not UTF-8 or not JSON.
    """
    with open(path, "rb") as fh:
        for lineno, raw in enumerate(fh, start=1):
            where = f"{path}:{lineno}"
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise error(f"{where}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(f"{where}: malformed JSON (column {exc.colno}: {exc.msg})") from None
            yield lineno, where, value
