"""overlap shortcut: the pair whose smaller shape is largest (an overlap is no larger than it)."""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance


def largest_smaller_shape(inst: Instance) -> str | None:
    from shapely.geometry import Polygon

    sc = scene(inst)
    pairs, letters = sc.get("pairs"), sc.get("options")
    if not pairs or not letters:
        return None
    smaller = [min(Polygon(p["vertices"]).area for p in pair) for pair in pairs]
    return letters[max(range(len(smaller)), key=smaller.__getitem__)]


HEURISTICS: list[tuple[str, Heuristic]] = [("largest smaller shape", largest_smaller_shape)]
