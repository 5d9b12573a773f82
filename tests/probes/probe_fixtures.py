"""One small suite with an instance of every probed task, built from the generators (fast presets)."""

from __future__ import annotations

from pathlib import Path

from vcot.probes import PROBE_TASKS


def write_probe_suite(out: Path, seed: int = 5, difficulty: str = "medium") -> Path:
    from vcot.suite import write_suite
    from vcot.tasks import get_task

    samples = [get_task(task, difficulty).make(0, seed, with_corruption=False) for task in PROBE_TASKS]
    write_suite(out, f"probe-test-{seed}", samples)
    return out
