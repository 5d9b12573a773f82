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

from vcot.suite import Suite, compute_content_hash, read_suite
from vcot.tasks import get_task_class, task_names


@dataclass
class ValidationReport:
    suite: Suite
    problems: list[str] = field(default_factory=list)
    resolved: int = 0  # gold answers re-solved from meta
    content_hash: str | None = None  # recomputed from the files, when asked

    @property
    def ok(self) -> bool:
        return not self.problems


def resolve_answers(suite: Suite, report: ValidationReport) -> None:
    """Re-solve every instance whose generator is registered; mismatches and failures become problems."""
    registered = set(task_names())
    tasks: dict[tuple[str, str], Any] = {}
    for inst in suite.instances:
        gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
        if not gen or inst.task not in registered:
            continue
        key = (inst.task, json.dumps(gen.get("params"), sort_keys=True))
        try:
            if key not in tasks:
                cls = get_task_class(inst.task)
                tasks[key] = cls(config=cls.config_cls(**gen.get("params", {})))
            answer = tasks[key].resolve(inst)
        except Exception as exc:  # noqa: BLE001 - a broken scene is a validation failure, not a crash
            report.problems.append(f"{inst.uid}: re-solve failed: {exc}")
            continue
        report.resolved += 1
        if answer != inst.answer:
            report.problems.append(f"{inst.uid}: gold answer {inst.answer!r} but re-solve gives {answer!r}")


def validate_suite(path: str | Path, resolve: bool = True, check_hash: bool = True) -> ValidationReport:
    """Read and check a suite. Raises SuiteError when it cannot be read at all; everything else found is
    listed in the report's `problems`."""
    # Recomputing the hash decodes every image anyway, so reading need not decode them first.
    suite = read_suite(path, check_images="header" if check_hash else "full")
    report = ValidationReport(suite)
    if check_hash:
        report.content_hash = compute_content_hash(suite)
        if report.content_hash != suite.content_hash:
            report.problems.append(f"content hash mismatch: manifest {suite.content_hash}, "
                                   f"files {report.content_hash}")
    if resolve:
        resolve_answers(suite, report)
    return report
