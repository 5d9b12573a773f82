"""What every command shares: the consoles, error exits, progress bars and option parsing helpers."""

from __future__ import annotations

import importlib
import json
import math
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer
from rich.console import Console

if TYPE_CHECKING:
    from rich.progress import Progress

NOT_A_TERMINAL_WIDTH = 100


def _width(stream) -> int | None:
    """$COLUMNS when set, as the shell's own tools honour it in a pipe too; else a terminal keeps its own
    width and a log or a pipe gets 100 columns (rich would assume 80)."""
    columns = os.environ.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    try:
        return None if stream.isatty() else NOT_A_TERMINAL_WIDTH
    except (AttributeError, ValueError):
        return NOT_A_TERMINAL_WIDTH


console = Console(width=_width(sys.stdout))
err = Console(stderr=True, width=_width(sys.stderr))


def help_width() -> int:
    """The width of --help text: the console's, at most 120 columns (longer lines are hard to read)."""
    return min(console.width, 120)


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


PROGRESS_EVERY_ENV = "VCOT_PROGRESS_EVERY"  # seconds between progress lines in a log (default 30)


def progress_bar(
    enabled: bool = True, columns: Callable[[], Sequence[Any]] | None = None, **options: Any
) -> Progress | LogProgress:
    """Every command's progress display: a live bar on a terminal (the columns `columns()` makes instead of
    the default ones); in a log or a pipe, where a live bar shows nothing until it ends, plain lines
    (`LogProgress`). rich's progress module is loaded only for a live bar (8 ms of every command's start-up)."""
    if not err.is_terminal:
        return LogProgress(enabled)
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    shown = (
        columns()
        if columns is not None
        else (
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            TimeRemainingColumn(),
        )
    )
    return Progress(*shown, console=err, transient=False, disable=not enabled, **options)


def counter(shown: Progress | LogProgress, description: str) -> Callable[..., None]:
    """A (done, total, **counts) callback driving a task of `shown` (a `progress_bar`), added at its first
    call, for library code that reports its progress that way (thumbnails, embedded gallery, curation)."""
    task: list[Any] = []

    def update(done: int, total: int, **counts: Any) -> None:
        if not task:
            task.append(shown.add_task(description, total=total, **counts))
        shown.update(task[0], completed=done, total=total, **counts)

    return update


def progress_every() -> float:
    try:
        every = float(os.environ.get(PROGRESS_EVERY_ENV, "30"))
    except ValueError:
        return 30.0
    return every if every > 0 and math.isfinite(every) else 30.0


class LogProgress:
    """The calls of a rich Progress a command makes (add_task, update, advance, start, stop, `with`) as plain
    lines on stderr: one at every tenth of a task, and at least every $VCOT_PROGRESS_EVERY seconds (30 by
    default) while it runs, so that a log shows a run that is slow or stuck. A line gives the done and total
    counts, the task's fields (errors, retries, ...), the time elapsed and the estimated time left."""

    def __init__(self, enabled: bool = True, every: float | None = None) -> None:
        self.enabled = enabled
        self.every = every if every is not None else progress_every()
        self._tasks: dict[int, dict[str, Any]] = {}
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None
        self._last = 0.0

    def add_task(self, description: str, total: float | None = None, completed: float = 0, **fields: Any) -> int:
        task_id = len(self._tasks)
        self._tasks[task_id] = {
            "description": description,
            "total": total,
            "completed": completed,
            "fields": fields,
            "t0": time.monotonic() if self._thread else None,
            "base": None,
            "tenth": -1,
        }
        with self._lock:
            self._milestone(self._tasks[task_id])
        return task_id

    def update(
        self,
        task_id: int,
        *,
        total: float | None = None,
        completed: float | None = None,
        advance: float | None = None,
        description: str | None = None,
        **fields: Any,
    ) -> None:
        with self._lock:
            task = self._tasks[task_id]
            if description is not None:
                task["description"] = description
            if total is not None:
                task["total"] = total
            if completed is not None:
                task["completed"] = completed
            if advance is not None:
                task["completed"] += advance
            task["fields"].update(fields)
            if task["base"] is None:
                # Work done before the first update (a resumed run) does not count towards the rate.
                task["base"] = task["completed"] - (advance or 0)
            self._milestone(task)

    def advance(self, task_id: int, advance: float = 1) -> None:
        self.update(task_id, advance=advance)

    def start(self) -> None:
        if self.enabled and self._thread is None:
            self._last = time.monotonic()
            self._thread = threading.Thread(target=self._tick, name="vcot-progress", daemon=True)
            with self._lock:
                for task in self._tasks.values():
                    task["t0"] = task["t0"] or self._last
                    self._milestone(task)
            self._thread.start()

    def stop(self) -> None:
        self._stopped.set()
        if self._thread is not None:
            self._thread.join()

    def __enter__(self) -> LogProgress:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _milestone(self, task: dict[str, Any]) -> None:
        """A line when a started task first has a total (its 0 %) and at each tenth it reaches."""
        total, done = task["total"], task["completed"]
        if self._thread is not None and total:
            tenth = int(10 * min(done, total) // total)
            if tenth > task["tenth"]:
                task["tenth"] = tenth
                self._print(task)

    def _tick(self) -> None:
        while not self._stopped.wait(max(0.05, self._last + self.every - time.monotonic())):
            with self._lock:
                if time.monotonic() - self._last < self.every:
                    continue
                # The task under way; a finished one said so at its 100 % line.
                running = [t for t in self._tasks.values() if not t["total"] or t["completed"] < t["total"]]
                for task in running[-1:]:
                    self._print(task)
                self._last = time.monotonic()

    def _print(self, task: dict[str, Any]) -> None:
        now = time.monotonic()
        total, done = task["total"], task["completed"]
        parts = [
            f"{task['description']}: {_count(done)}/{_count(total)} ({100 * done / total:.0f}%)"
            if total
            else f"{task['description']}: {_count(done)} done"
        ]
        parts += [f"{name} {value}" for name, value in task["fields"].items()]
        elapsed = now - task["t0"] if task["t0"] is not None else 0.0
        parts.append(f"{_clock(elapsed)} elapsed")
        if total and done < total:
            rate = (done - (task["base"] or 0)) / elapsed if elapsed > 0 else 0.0
            parts.append(f"ETA {_clock((total - done) / rate)}" if rate > 0 else "ETA unknown")
        err.print(", ".join(parts), markup=False, highlight=False)
        self._last = now


def _count(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.1f}"


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


# -- option checks: every option a command takes is checked here before anything is opened or created ----

MAX_PORT = 65535


def check_port(port: int, option: str = "--port") -> int:
    """`port` when it is one a socket can bind (0 asks the system for a free one)."""
    if not 0 <= port <= MAX_PORT:
        # Python's bind raises OverflowError past 65535 (a traceback) and binds -1 nowhere useful.
        fail(f"{option} {port}: a port is a whole number from 0 to {MAX_PORT} (0 picks a free one)")
    return port


def check_number(
    value: float | None,
    option: str,
    *,
    low: float | None = 0.0,
    strict: bool = False,
    high: float | None = None,
    what: str = "a number",
) -> float | None:
    """`value` (None passes: the option was not given) when it is finite and within [low, high]
    (`strict`: above `low`). NaN compares false with every bound, so it is named before any of them."""
    if value is None:
        return None
    below = low is not None and (value <= low if strict else value < low)
    if not math.isfinite(value) or below or (high is not None and value > high):
        span = (f"above {low:g}" if strict else f"at least {low:g}") if low is not None else ""
        if high is not None:
            span = f"{span} and at most {high:g}" if span else f"at most {high:g}"
        fail(
            f"{option} {value:g}: must be {what}{' ' + span if span else ''} (a finite value)"
            if not math.isfinite(value)
            else f"{option} {value:g}: must be {what}{' ' + span if span else ''}"
        )
    return value
