"""Helpers of the chemistry shortcut heuristics: the scene's element counts and the configured answer range."""

from __future__ import annotations

from collections import Counter
from typing import Any

from vcot.analysis.shortcuts import scene
from vcot.schema import Instance


def elements(inst: Instance) -> Counter[str] | None:
    """How many atoms of each element the drawn molecule has (None when the scene has no atom list)."""
    atoms = scene(inst).get("atoms")
    if not isinstance(atoms, list) or not atoms:
        return None
    return Counter(a.get("el") for a in atoms if isinstance(a, dict))


def _params(inst: Instance) -> dict[str, Any]:
    gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
    params = gen.get("params") if isinstance(gen, dict) else None
    return params if isinstance(params, dict) else {}


def clamped(inst: Instance, value: float) -> str | None:
    """`value` rounded into the configured answer range (the suite's design, which a guesser may know)."""
    p = _params(inst)
    lo, hi = p.get("answer_min"), p.get("answer_max")
    if not isinstance(lo, int) or not isinstance(hi, int):
        return None
    return str(min(hi, max(lo, round(value))))
