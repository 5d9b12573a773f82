"""State probes: questions about the solver's intermediate states, one per visual chain-of-thought step.

Each MIRA task has a builder `probes/<task>.py` reading the stored solver output of an Instance (`meta`:
scene, solution states and details) — derived data only, generators are never touched. Every probe is
answerable from the input image and the question alone (the model is asked to reason up to that step), has
an exact answer and an answer type the rule-based grader knows. What each task asks is listed in
`docs/tasks/<task>.md`, "State probes"; the conditions that use probes in `docs/evaluation.md`.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

from vcot.probes.base import Probe, final_probe
from vcot.schema import Instance

__all__ = ["PROBE_TASKS", "Probe", "build_probes", "final_probe", "probe_reason"]

Builder = Callable[[Instance], list[Probe]]

# Every module here but the shared ones (base, private helpers) is one task's builder: adding a task's probes
# is adding its module (tests/test_task_completeness.py asks it of every registered task).
PROBE_TASKS = tuple(
    sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_") and m.name != "base")
)


def _builder(task: str) -> Builder:
    return importlib.import_module(f"vcot.probes.{task}").build


def probe_reason(instance: Instance) -> str | None:
    """Why `instance` has no probes (None when it has)."""
    if instance.task not in PROBE_TASKS:
        return f"there are no state probes for task {instance.task!r}"
    if not instance.steps:
        return "it has no visual chain-of-thought steps"
    if not isinstance(instance.meta.get("solution"), dict) or not isinstance(instance.meta.get("scene"), dict):
        return "its meta lacks the solver's scene and solution"
    return None


def build_probes(instance: Instance) -> list[Probe]:
    """One probe per step of `instance`, in step order (raises ValueError when there are none)."""
    reason = probe_reason(instance)
    if reason is not None:
        raise ValueError(f"{instance.uid}: {reason}")
    probes = _builder(instance.task)(instance)
    if [p.step for p in probes] != list(range(1, len(instance.steps) + 1)):
        raise ValueError(
            f"{instance.uid}: probe steps {[p.step for p in probes]} do not match {len(instance.steps)} steps"
        )
    return probes
