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

# Tasks without a heuristics module, and why: the one place that says so (tests/test_task_completeness.py
# holds every registered task to a module here or a reason here, never both). The question-only and
# first-option baselines of `vcot audit` still run on them.
NO_SHORTCUTS: dict[str, str] = {
    "billiards": "the pocket letters are assigned to the six pockets afresh for every table, so no feature of "
    "the start, the direction or the table's size points at a letter without tracing the path",
    "defuse_a_bomb": "no single-cue heuristic written yet (a candidate: the wire whose end row is nearest the "
    "detonator's terminal row); only the generic baselines run",
    "rolling_dice_top": "no single-cue heuristic written yet (a candidate: the start's top face when the path has "
    "an even number of moves); only the generic baselines run",
    "rolling_dice_two": "both paths have the same number of moves, so the path length (the one cheap cue of "
    "rolling_dice_sum) says nothing about which sum is higher",
    "trailer_cubes_count": "no single-cue heuristic written yet (a candidate: the top view's filled cells times "
    "the smaller of the tallest front and side heights); only the generic baselines run",
    "trailer_cubes_missing": "no single-cue heuristic written yet (a candidate: the bounding block minus the "
    "top view's filled cells); only the generic baselines run",
}


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
