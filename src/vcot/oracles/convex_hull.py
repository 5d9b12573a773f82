"""Oracle for convex_hull: angular-gap test, without ever building a hull polygon.

Method. A point p lies strictly inside the convex hull of a finite set S exactly when no closed half-plane
bounded by a line through p contains all of S, i.e. when the directions from p to the points of S leave no
angular gap of pi or more. The directions are sorted exactly by angle (half-plane, then the sign of an
integer cross product) and every consecutive pair (cyclically) must turn by strictly less than pi: integer
cross > 0, or the same direction (cross = 0, dot > 0). A gap of exactly pi (p on a hull edge) or more (p
outside) means "not strictly inside". For the overlap form, the interior of the intersection of two convex
sets is the intersection of their interiors, so a point counts when it is strictly inside both hulls; no
clipped polygon is computed.

Why it is independent. The generator builds hulls with Andrew's monotone chain, clips them with
Sutherland-Hodgman in Fractions and tests edge signs; this oracle builds no hull, clips nothing and uses only
integer arithmetic on the raw point sets. It imports nothing from `vcot.tasks`.
"""

from __future__ import annotations

from functools import cmp_to_key
from typing import Any

Pt = tuple[int, int]


def _half(v: Pt) -> int:
    """0 for angles in [0, pi), 1 for [pi, 2 pi)."""
    return 0 if v[1] > 0 or (v[1] == 0 and v[0] > 0) else 1


def _angle_cmp(a: Pt, b: Pt) -> int:
    ha, hb = _half(a), _half(b)
    if ha != hb:
        return ha - hb
    c = a[0] * b[1] - a[1] * b[0]
    return -1 if c > 0 else (1 if c < 0 else 0)


def strictly_inside_hull(p: Pt, pts: list[Pt]) -> bool:
    dirs = [(q[0] - p[0], q[1] - p[1]) for q in pts if q != p]
    if len(dirs) < 3:
        return False
    dirs.sort(key=cmp_to_key(_angle_cmp))
    for i, a in enumerate(dirs):
        b = dirs[(i + 1) % len(dirs)]
        cross = a[0] * b[1] - a[1] * b[0]
        dot = a[0] * b[0] + a[1] * b[1]
        if cross < 0 or (cross == 0 and dot < 0):
            return False  # gap of more than pi, or exactly pi (p on an edge)
        if (
            cross == 0
            and dot > 0
            and i == len(dirs) - 1
            and all(d[0] * a[1] - d[1] * a[0] == 0 and d[0] * a[0] + d[1] * a[1] > 0 for d in dirs)
        ):
            return False  # every direction the same: a full 2 pi gap
    return True


def _points(scene: dict[str, Any], colour: str) -> list[Pt]:
    return [(int(x), int(y)) for s in scene["sets"] if s["colour"] == colour for x, y in s["points"]]


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    hull_sets = [_points(scene, c) for c in scene["hull_colours"]]
    counted = _points(scene, scene["count_colour"])
    return str(sum(all(strictly_inside_hull(p, s) for s in hull_sets) for p in counted))
