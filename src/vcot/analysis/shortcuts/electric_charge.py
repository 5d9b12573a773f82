"""electric_charge shortcut: the direction of the single strongest force, ignoring the others."""

from __future__ import annotations

import math

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

_COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def _sector(dx: float, dy: float) -> str:
    """The compass sector of a vector with y pointing north."""
    return _COMPASS[round(math.degrees(math.atan2(dy, dx)) / 45.0) % 8]


def strongest_force_direction(inst: Instance) -> str | None:
    """The direction of the single strongest Coulomb force on the target."""
    sc = scene(inst)
    target, sources = sc.get("target"), sc.get("sources")
    if not target or not sources:
        return None
    tx, ty = target["pos"]
    best = None
    for s in sources:
        dx, dy = tx - s["pos"][0], ty - s["pos"][1]
        r2 = dx * dx + dy * dy
        if not r2:
            continue
        mag = s["q"] * target["q"] / r2  # > 0: repulsion (away from the source)
        if best is None or abs(mag) > abs(best[0]):
            best = (mag, dx, dy)
    if best is None:
        return None
    mag, dx, dy = best
    return _sector(dx if mag > 0 else -dx, dy if mag > 0 else -dy)


HEURISTICS: list[tuple[str, Heuristic]] = [("strongest single force", strongest_force_direction)]
