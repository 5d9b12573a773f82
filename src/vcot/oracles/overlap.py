"""Oracle for overlap: exact intersection areas by vertical-slab integration in rational arithmetic.

Method: for each pair, translate both polygons so their black dots (`ref`) sit at the origin. The area of
the intersection is the integral over x of the length of the intersection of the two polygons' vertical
cross-sections. Between consecutive "critical" x values (every vertex x and every x where an edge of one
polygon crosses an edge of the other), that length is a linear function of x, so each slab's area is
exactly its width times the length at the slab's midpoint. Cross-sections are found by even-odd crossing
of the vertical line with every edge; everything is done in `fractions.Fraction`, so the areas are exact.

Independence: the generator computes areas with shapely's polygon intersection; this module uses neither
shapely nor any vcot.tasks code, only the scene's vertices and dots. The answer is the letter of the pair
with the largest area (options A, B, C, D in pair order).
"""

from __future__ import annotations

import itertools
from fractions import Fraction as F
from typing import Any

Pt = tuple[F, F]


def _edges(poly: list[Pt]) -> list[tuple[Pt, Pt]]:
    return [(poly[i], poly[(i + 1) % len(poly)]) for i in range(len(poly))]


def _cross_section(poly: list[Pt], x: F) -> list[tuple[F, F]]:
    """Intervals of y inside the polygon on the vertical line at x (x never a vertex abscissa)."""
    ys = []
    for (x1, y1), (x2, y2) in _edges(poly):
        if (x1 < x) != (x2 < x):
            ys.append(y1 + (y2 - y1) * (x - x1) / (x2 - x1))
    ys.sort()
    return [(ys[i], ys[i + 1]) for i in range(0, len(ys) - 1, 2)]


def _intersect_len(a: list[tuple[F, F]], b: list[tuple[F, F]]) -> F:
    total = F(0)
    for lo1, hi1 in a:
        for lo2, hi2 in b:
            lo, hi = max(lo1, lo2), min(hi1, hi2)
            if hi > lo:
                total += hi - lo
    return total


def _segment_crossing_xs(e: tuple[Pt, Pt], f: tuple[Pt, Pt]) -> list[F]:
    (x1, y1), (x2, y2) = e
    (x3, y3), (x4, y4) = f
    d = (x2 - x1) * (y4 - y3) - (y2 - y1) * (x4 - x3)
    if d == 0:
        return []  # parallel or collinear: overlaps end at vertices, which are critical already
    t = ((x3 - x1) * (y4 - y3) - (y3 - y1) * (x4 - x3)) / d
    u = ((x3 - x1) * (y2 - y1) - (y3 - y1) * (x2 - x1)) / d
    if 0 <= t <= 1 and 0 <= u <= 1:
        return [x1 + t * (x2 - x1)]
    return []


def intersection_area(p: list[Pt], q: list[Pt]) -> F:
    xs = {v[0] for v in p} | {v[0] for v in q}
    for e in _edges(p):
        for f in _edges(q):
            xs.update(_segment_crossing_xs(e, f))
    xs_sorted = sorted(xs)
    area = F(0)
    for xa, xb in itertools.pairwise(xs_sorted):
        mid = (xa + xb) / 2
        area += (xb - xa) * _intersect_len(_cross_section(p, mid), _cross_section(q, mid))
    return area


def pair_areas(scene: dict[str, Any]) -> list[F]:
    areas = []
    for pair in scene["pairs"]:
        polys = []
        for shape in pair:
            rx, ry = shape["ref"]
            polys.append([(F(x - rx), F(y - ry)) for x, y in shape["vertices"]])
        areas.append(intersection_area(polys[0], polys[1]))
    return areas


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    areas = pair_areas(scene)
    best = max(range(len(areas)), key=lambda i: areas[i])
    return "ABCDEFGH"[best]
