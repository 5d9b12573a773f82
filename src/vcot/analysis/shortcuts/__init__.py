"""Single-cue heuristics for `vcot audit`, one module per task (`<task>.py` with a `HEURISTICS` list).

A heuristic reads one surface feature of an instance — a scene field, the option texts, the question — and
returns an answer (or None where it does not apply). It must never call the task's solver or read the gold
answer, the solution or the steps: it stands for what a model could get right without reasoning.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from vcot.schema import Instance

Heuristic = Callable[[Instance], str | None]


def heuristics_for(task: str) -> list[tuple[str, Heuristic]]:
    """The named heuristics of `task` (none when it has no module here)."""
    if not task.isidentifier() or task.startswith("_"):  # private modules here are shared helpers
        return []
    try:
        module = importlib.import_module(f"{__name__}.{task}")
    except ModuleNotFoundError as exc:
        if exc.name != f"{__name__}.{task}":
            raise
        return []
    return list(module.HEURISTICS)


def scene(inst: Instance) -> dict:
    """The instance's scene graph (empty when the suite carries none, e.g. an imported one)."""
    meta = inst.meta if isinstance(inst.meta, dict) else {}
    value = meta.get("scene")
    return value if isinstance(value, dict) else {}
