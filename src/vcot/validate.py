"""Suite validation beyond reading: the content hash recomputed from pixels and every generated gold
answer re-solved from the scene stored in `meta`.

Reading (`vcot.suite.read_suite`) already checks the schema, paths and images; this module adds the checks
that need the generators, so the CLI only prints what `validate_suite` finds.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from vcot.schema import JUDGE_META
from vcot.suite import Suite, compute_content_hash, read_suite
from vcot.tasks import get_task_class, task_names


@dataclass
class ValidationReport:
    suite: Suite
    problems: list[str] = field(default_factory=list)
    resolved: int = 0  # gold answers re-solved from meta
    content_hash: str | None = None  # recomputed from the files, when asked
    oracle_checked: int = 0  # gold answers re-derived by the task's independent oracle
    no_oracle: set[str] = field(default_factory=set)  # tasks without one

    @property
    def ok(self) -> bool:
        return not self.problems


def resolve_answers(suite: Suite, report: ValidationReport) -> None:
    """Re-solve every instance whose generator is registered; mismatches and failures become problems."""
    registered = set(task_names())
    tasks: dict[tuple[str, str], Any] = {}
    for inst in suite.instances:
        try:
            task = _generated_task(inst, registered, tasks)
            if task is None:
                continue
            answer = task.resolve(inst)
        except Exception as exc:  # noqa: BLE001 - a broken scene is a validation failure, not a crash
            report.problems.append(f"{inst.uid}: re-solve failed: {exc}")
            continue
        report.resolved += 1
        if answer != inst.answer:
            report.problems.append(f"{inst.uid}: gold answer {inst.answer!r} but re-solve gives {answer!r}")


def _generated_task(inst: Any, registered: set[str], tasks: dict[tuple[str, str], Any]) -> Any:
    """The generator that made `inst` (configured as it was), or None for imported instances."""
    gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
    if not gen or inst.task not in registered:
        return None
    key = (inst.task, json.dumps(gen.get("params"), sort_keys=True))
    if key not in tasks:
        cls = get_task_class(inst.task)
        tasks[key] = cls(config=cls.config_cls(**gen.get("params", {})))
    return tasks[key]


def scene_keys(suite: Suite) -> dict[tuple[str, str], list[str]]:
    """(task, scene key) → uids, for generated single-row instances (a paired problem's rows share a scene)."""
    registered = set(task_names())
    tasks: dict[tuple[str, str], Any] = {}
    out: dict[tuple[str, str], list[str]] = {}
    for inst in suite.instances:
        judged = inst.meta.get(JUDGE_META)
        if isinstance(judged, dict) and isinstance(judged.get("source"), dict) and judged["source"].get("scene_key"):
            # A step-judging instance stores the key of the problem its trajectory was drawn from.
            out.setdefault((inst.task, str(judged["source"]["scene_key"])), []).append(inst.uid)
            continue
        try:
            task = _generated_task(inst, registered, tasks)
        except (TypeError, ValueError):
            continue
        if task is None or task.rows_per_problem > 1 or "scene" not in inst.meta:
            continue
        out.setdefault((inst.task, task.scene_key(inst.meta["scene"])), []).append(inst.uid)
    return out


def duplicate_scenes(suite: Suite, report: ValidationReport) -> None:
    for (task, _), uids in scene_keys(suite).items():
        if len(uids) > 1:
            report.problems.append(f"{task}: the same scene appears {len(uids)} times ({', '.join(uids[:5])})")


def check_oracles(suite: Suite, report: ValidationReport) -> None:
    """Re-derive every generated answer with its task's independent oracle (no code shared with `solve`)."""
    from vcot.oracles import NoOracle, get_oracle

    for inst in suite.instances:
        gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
        if not gen or "scene" not in inst.meta:
            continue
        try:
            oracle = get_oracle(inst.task)
        except NoOracle:
            report.no_oracle.add(inst.task)
            continue
        try:
            answer = oracle(inst.meta["scene"], gen.get("params") or {})
        except Exception as exc:  # noqa: BLE001 - a scene the oracle cannot read is a finding, not a crash
            report.problems.append(f"{inst.uid}: oracle failed: {type(exc).__name__}: {exc}")
            continue
        report.oracle_checked += 1
        if answer != inst.answer:
            report.problems.append(
                f"{inst.uid}: gold answer {inst.answer!r} but the independent oracle gives {answer!r}"
            )


def validate_suite(
    path: str | Path, resolve: bool = True, check_hash: bool = True, oracle: bool = False
) -> ValidationReport:
    """Read and check a suite. Raises SuiteError when it cannot be read at all; everything else found is
    listed in the report's `problems`."""
    # Recomputing the hash decodes every image anyway, so reading need not decode them first.
    suite = read_suite(path, check_images="header" if check_hash else "full")
    report = ValidationReport(suite)
    if check_hash:
        report.content_hash = compute_content_hash(suite)
        if report.content_hash != suite.content_hash:
            report.problems.append(f"content hash mismatch: manifest {suite.content_hash}, files {report.content_hash}")
    if resolve:
        resolve_answers(suite, report)
    duplicate_scenes(suite, report)
    if oracle:
        check_oracles(suite, report)
    return report


def shared_scenes(a: Suite, b: Suite) -> list[tuple[str, list[str], list[str]]]:
    """Scenes that two suites both hold, as (task, uids in a, uids in b): public/private split hygiene."""
    keys_b = scene_keys(b)
    return [(task, uids, keys_b[(task, key)]) for (task, key), uids in scene_keys(a).items() if (task, key) in keys_b]
