"""paper_airplane shortcuts: cues in the four candidate outlines alone, and one that reads the last fold only.

The distractors are outlines of plausible slips in the folds (a fold made the other way, left out, swapped or
shifted; up to version 2 also the result mirrored), so a candidate set built around the answer leaks it: the
answer is the outline most like the others, one of the smaller outlines (folding only removes paper), one of
a mirror pair, or the only outline on the staying side of the last fold. Each cue below stands for such a
reading; none folds the paper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

LETTERS = "ABCD"


def _polygons(inst: Instance) -> list[Any] | None:
    from shapely.geometry import Polygon

    cands = scene(inst).get("candidates")
    if not isinstance(cands, list) or len(cands) != len(LETTERS):
        return None
    return [Polygon(c) for c in cands]


def _iou(p: Any, q: Any) -> float:
    union = p.union(q).area
    return p.intersection(q).area / union if union > 0 else 1.0


def _pick(score: Callable[[list[Any], int], float], best: Callable[..., int] = max) -> Heuristic:
    """The letter of the candidate with the best score (ties: the first)."""

    def heuristic(inst: Instance) -> str | None:
        polys = _polygons(inst)
        if polys is None:
            return None
        values = [score(polys, i) for i in range(len(polys))]
        return LETTERS[best(range(len(values)), key=values.__getitem__)]

    return heuristic


def _likeness(polys: list[Any], i: int) -> float:
    return sum(_iou(polys[i], q) for j, q in enumerate(polys) if j != i)


def _area(polys: list[Any], i: int) -> float:
    return float(polys[i].area)


def _vertices(polys: list[Any], i: int) -> float:
    return float(len(polys[i].exterior.coords) - 1)


def _nth_smallest(n: int) -> Heuristic:
    """The n-th smallest outline (0 the smallest): folding only removes paper and a slip tends to fold less
    away, so the answer tends to be among the smaller outlines, rarely the largest."""

    def heuristic(inst: Instance) -> str | None:
        polys = _polygons(inst)
        if polys is None:
            return None
        order = sorted(range(len(polys)), key=lambda i: polys[i].area)
        return LETTERS[order[n]]

    return heuristic


def _mirror_partner(inst: Instance) -> str | None:
    """When one candidate is the mirror image of another across the sheet's centre line, one of the pair
    (the first): a mirrored distractor is made from the answer (up to version 2)."""
    from shapely.affinity import scale

    polys = _polygons(inst)
    size = scene(inst).get("size")
    if polys is None or not isinstance(size, int | float):
        return None
    centre = (size / 2, size / 2)
    for i, p in enumerate(polys):
        for j in range(i + 1, len(polys)):
            for fx, fy in ((-1, 1), (1, -1)):
                if _iou(scale(p, fx, fy, origin=centre), polys[j]) > 0.999:
                    return LETTERS[i]
    return None


def _on_stay_side_of_last_fold(inst: Instance) -> str | None:
    """The first candidate lying on the staying side of the last fold line and touching it along an edge:
    the last fold alone, without the earlier ones."""
    from shapely.geometry import LineString

    polys = _polygons(inst)
    folds = scene(inst).get("folds")
    if polys is None or not folds:
        return None
    a, b, c = folds[-1]["line"]
    moving = folds[-1]["moving"]
    far = 1000.0
    nn = a * a + b * b
    px, py = a * c / nn, b * c / nn
    line = LineString([(px + b * far, py - a * far), (px - b * far, py + a * far)])
    for i, p in enumerate(polys):
        values = [a * x + b * y - c for x, y in p.exterior.coords]
        if all(moving * v <= 1e-9 for v in values) and p.boundary.intersection(line).length > 1e-9:
            return LETTERS[i]
    return None


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("outline most like the others", _pick(_likeness)),
    ("outline least like the others", _pick(_likeness, min)),
    ("smallest outline", _pick(_area, min)),
    ("largest outline", _pick(_area)),
    ("second smallest outline", _nth_smallest(1)),
    ("third smallest outline", _nth_smallest(2)),
    ("most vertices", _pick(_vertices)),
    ("fewest vertices", _pick(_vertices, min)),
    ("one of a mirror pair", _mirror_partner),
    ("staying side of the last fold", _on_stay_side_of_last_fold),
]
