"""Analyses and reports (docs/scoring.md, "Statistics"): metrics, MIRA-style tables, plots, the HTML report, MIRA
interop.

The names below load their modules on first use: `vcot eval` imports a light submodule (`units`) before its
first request, and a package that imported the report and its plots up front would charge that to every run.
"""

from __future__ import annotations

import importlib
from typing import Any

_HOMES = {
    "majority_vote": "metrics",
    "mcnemar": "metrics",
    "paired_bootstrap": "metrics",
    "pass_at_k": "metrics",
    "relative_gain": "metrics",
    "wilson": "metrics",
    "analyse": "report",
    "write_report": "report",
    "Sample": "units",
    "to_samples": "units",
}

__all__ = [
    "Sample",
    "analyse",
    "majority_vote",
    "mcnemar",
    "paired_bootstrap",
    "pass_at_k",
    "relative_gain",
    "to_samples",
    "wilson",
    "write_report",
]


def __getattr__(name: str) -> Any:
    if name not in _HOMES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_HOMES[name]}"), name)
