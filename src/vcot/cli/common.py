"""What every command shares: the consoles, error exits, progress bars and option parsing helpers."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


def _width(stream) -> int | None:
    """Rich assumes 80 columns when output is not a terminal, which folds every wide table in a log or a
    pipe; use a generous fixed width there instead (a terminal keeps its own width)."""
    try:
        return None if stream.isatty() else 160
    except (AttributeError, ValueError):
        return 160


console = Console(width=_width(sys.stdout))
err = Console(stderr=True, width=_width(sys.stderr))


def fail(message: object, code: int = 2) -> NoReturn:
    # Messages can quote file names or server text: printed verbatim, never parsed as markup.
    err.print("[bold red]error:[/] ", end="")
    err.print(str(message), markup=False, highlight=False, soft_wrap=True)
    raise typer.Exit(code)


def require(module: str, extra: str) -> None:
    """Exit with the install hint when an optional dependency of a command is missing."""
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name is None or not module.startswith(exc.name):
            raise
        fail(f"this command needs the optional package {module!r}: pip install 'vcot[{extra}]'")


def split_list(values: list[str] | None) -> list[str] | None:
    """Comma-separated and repeated options as one list (None when empty)."""
    if not values:
        return None
    items = [v.strip() for value in values for v in value.split(",") if v.strip()]
    return items or None


def one_suite(positional: Path | None, option: Path | None, required: bool) -> Path | None:
    """The suite folder given as the SUITE argument or (as older command lines do) with --suite."""
    if positional is not None and option is not None and positional != option:
        fail(f"two suites given: {positional} and --suite {option}; give one")
    suite = positional if positional is not None else option
    if suite is None and required:
        fail("missing the SUITE folder argument")
    return suite


def parse_value(raw: str, what: str = "--param") -> Any:
    """A parameter value as typed: JSON if it parses (5, true, ["a"]), else the text itself."""
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw
    except (ValueError, RecursionError):  # an integer past Python's digit limit, absurd nesting
        fail(f"{what}: value {raw[:40]!r}{'…' if len(raw) > 40 else ''} is not usable")


def parse_params(items: list[str]) -> dict:
    params = {}
    for item in items:
        if "=" not in item:
            fail(f"--param expects key=value, got {item!r}")
        key, raw = item.split("=", 1)
        params[key] = parse_value(raw, f"--param {key}")
    return params


def progress_bar(enabled: bool = True) -> Progress:
    return Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                    TimeElapsedColumn(), TimeRemainingColumn(), console=err, transient=False, disable=not enabled)
