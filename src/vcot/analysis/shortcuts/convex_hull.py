"""convex_hull shortcuts: counts read off the counted colour's points without building any hull.

Each cue answers with a count clamped to the configured answer range (`min_answer..max_answer`, the suite's
design, which a guesser may know), so it competes with chance on the same answers.
"""

from __future__ import annotations

from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance


def _params(inst: Instance) -> dict[str, Any]:
    gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
    params = gen.get("params") if isinstance(gen, dict) else None
    return params if isinstance(params, dict) else {}


def _points(sc: dict[str, Any], colour: Any) -> list[tuple[int, int]]:
    for s in sc.get("sets", []):
        if s.get("colour") == colour:
            return [(int(x), int(y)) for x, y in s.get("points", [])]
    return []


def _clamped(inst: Instance, value: float) -> str | None:
    p = _params(inst)
    lo, hi = p.get("min_answer"), p.get("max_answer")
    if not isinstance(lo, int) or not isinstance(hi, int):
        return None
    return str(min(hi, max(lo, round(value))))


def _typical_outside(p: dict[str, Any]) -> float | None:
    """The mean number of counted-colour points outside the region under the configuration: given directly by
    version 2 (min_outside..max_outside), or, from version 3 on, the mean total less the mean count."""
    if "min_outside" in p and "max_outside" in p:
        return (p["min_outside"] + p["max_outside"]) / 2
    keys = ("min_answer", "max_answer", "box_extra", "min_far", "max_far")
    if all(isinstance(p.get(k), int) for k in keys):
        total = p["max_answer"] + p["box_extra"] / 2 + (p["min_far"] + p["max_far"]) / 2
        return total - (p["min_answer"] + p["max_answer"]) / 2
    return None


def points_minus_outside(inst: Instance) -> str | None:
    """How many points of the counted colour there are, less the number a scene typically puts outside."""
    sc = scene(inst)
    out = _typical_outside(_params(inst))
    pts = _points(sc, sc.get("count_colour"))
    if out is None or not pts:
        return None
    return _clamped(inst, len(pts) - out)


def half_the_points(inst: Instance) -> str | None:
    """Half the points of the counted colour (no knowledge of the configuration beyond the answer range)."""
    sc = scene(inst)
    pts = _points(sc, sc.get("count_colour"))
    return _clamped(inst, len(pts) / 2) if pts else None


def in_bounding_box(inst: Instance) -> str | None:
    """Counted points strictly inside the bounding box of the hull colour's points (the boxes' overlap for the
    overlap form): a glance at the extent of the other set instead of its hull."""
    sc = scene(inst)
    boxes = []
    for colour in sc.get("hull_colours", []):
        pts = _points(sc, colour)
        if not pts:
            return None
        xs, ys = [x for x, _ in pts], [y for _, y in pts]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
    if not boxes:
        return None
    x0, y0 = max(b[0] for b in boxes), max(b[1] for b in boxes)
    x1, y1 = min(b[2] for b in boxes), min(b[3] for b in boxes)
    inside = [p for p in _points(sc, sc.get("count_colour")) if x0 < p[0] < x1 and y0 < p[1] < y1]
    return _clamped(inst, len(inside))


def near_the_centre(inst: Instance) -> str | None:
    """Counted points in the middle half of the lattice (hulls tend to cover the centre)."""
    sc = scene(inst)
    grid = sc.get("grid")
    if not isinstance(grid, int):
        return None
    lo, hi = grid / 4, 3 * grid / 4
    inside = [p for p in _points(sc, sc.get("count_colour")) if lo <= p[0] <= hi and lo <= p[1] <= hi]
    return _clamped(inst, len(inside))


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("counted points minus typical outside", points_minus_outside),
    ("half the counted points", half_the_points),
    ("counted points in the hull colours' bounding box", in_bounding_box),
    ("counted points in the middle half", near_the_centre),
]
