"""Geometry of a gear_rotation picture: its size, the wheels' tooth and clearance sizes, the belts' paths, and
the check that rejects a system whose picture could be misread (docs/tasks/gear_rotation.md, "Rejection rules").
"""

from __future__ import annotations

import math
from typing import Any

from vcot.tasks.base import Reject

W, H = 960, 640
MARGIN = 24
TOOTH = 6  # teeth reach TOOTH px beyond the pitch circle and TOOTH px inside it
CLEAR = 18  # min gap between the tooth tips of gears that do not mesh
BELT_GAP = 70  # min gap between the pitch circles of belt-linked wheels (room to see the belt's form)
BELT_CLEAR = 12  # min distance of a belt from any wheel it does not wrap
BELT_SEP = 10  # min distance between two different belts


def dist(a: tuple[float, float], b: tuple[float, float]) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])


def centre_of(g: dict[str, Any]) -> tuple[float, float]:
    return (g["x"], g["y"])


def belt_radius(g: dict[str, Any]) -> float:
    return g["r"] + TOOTH + 2


def belt_path(scene: dict[str, Any], link: dict[str, Any]) -> tuple[list[tuple[float, float]], ...]:
    """The belt as polylines: two straight runs and the two wraps around the far sides of the wheels."""
    g1, g2 = scene["gears"][link["a"]], scene["gears"][link["b"]]
    c1, c2 = centre_of(g1), centre_of(g2)
    r1, r2 = belt_radius(g1), belt_radius(g2)
    d = dist(c1, c2)
    ux, uy = (c2[0] - c1[0]) / d, (c2[1] - c1[1]) / d
    nx, ny = -uy, ux
    crossed = link["type"] == "crossed_belt"
    k = (r1 + r2) / d if crossed else (r1 - r2) / d
    if abs(k) >= 1:
        raise Reject("belt wheels too close for tangents")
    h = math.sqrt(1 - k * k)
    runs, ends1, ends2 = [], [], []
    for s in (1, -1):
        vx, vy = k * ux + s * h * nx, k * uy + s * h * ny
        p1 = (c1[0] + r1 * vx, c1[1] + r1 * vy)
        p2 = (c2[0] - r2 * vx, c2[1] - r2 * vy) if crossed else (c2[0] + r2 * vx, c2[1] + r2 * vy)
        runs.append([p1, p2])
        ends1.append(p1)
        ends2.append(p2)
    wrap1 = _wrap(c1, r1, ends1, (-ux, -uy))
    wrap2 = _wrap(c2, r2, ends2, (ux, uy))
    return runs[0], runs[1], wrap1, wrap2


def _wrap(
    c: tuple[float, float], r: float, ends: list[tuple[float, float]], away: tuple[float, float]
) -> list[tuple[float, float]]:
    """Arc of radius r around c between the two tangent points, through the side facing `away`."""
    a0 = math.atan2(ends[0][1] - c[1], ends[0][0] - c[0])
    a1 = math.atan2(ends[1][1] - c[1], ends[1][0] - c[0])
    mid = math.atan2(away[1], away[0])
    span = (a1 - a0) % (2 * math.pi)
    if (mid - a0) % (2 * math.pi) > span:
        span -= 2 * math.pi
    steps = 12
    return [
        (c[0] + r * math.cos(a0 + span * i / steps), c[1] + r * math.sin(a0 + span * i / steps))
        for i in range(steps + 1)
    ]


def seg_point_dist(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    ax, ay = b[0] - a[0], b[1] - a[1]
    L2 = ax * ax + ay * ay
    t = 0.0 if L2 == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * ax + (p[1] - a[1]) * ay) / L2))
    return dist(p, (a[0] + t * ax, a[1] + t * ay))


def _seg_seg_dist(
    a: tuple[float, float], b: tuple[float, float], c: tuple[float, float], d: tuple[float, float]
) -> float:
    def orient(p, q, r):  # noqa: ANN001, ANN202
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])

    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    if (o1 > 0) != (o2 > 0) and (o3 > 0) != (o4 > 0):
        return 0.0
    return min(seg_point_dist(c, a, b), seg_point_dist(d, a, b), seg_point_dist(a, c, d), seg_point_dist(b, c, d))


def polyline_segments(path: tuple[list[tuple[float, float]], ...]) -> list[tuple[tuple[float, float], ...]]:
    return [(pl[i], pl[i + 1]) for pl in path for i in range(len(pl) - 1)]


def shaft_family(scene: dict[str, Any], i: int) -> set[int]:
    """A gear and the gear it shares a shaft with (drawn on the same centre)."""
    fam = {i}
    for link in scene["links"]:
        if link["type"] == "shaft" and i in (link["a"], link["b"]):
            fam |= {link["a"], link["b"]}
    return fam


def check_geometry(scene: dict[str, Any]) -> None:
    """Reject pictures that could be misread: overlapping gears, meshing gears that do not touch, gears that
    touch without a mesh link, belts that are short, graze a wheel, or cross or touch another belt."""
    gears = scene["gears"]
    linked: dict[tuple[int, int], str] = {}
    for link in scene["links"]:
        linked[(min(link["a"], link["b"]), max(link["a"], link["b"]))] = link["type"]
    for g in gears:
        x, y, r = g["x"], g["y"], g["r"] + TOOTH
        if x - r < MARGIN or y - r < MARGIN or x + r > W - MARGIN or y + r > H - MARGIN:
            raise Reject(f"gear {g['label']} leaves the picture")
    for i in range(len(gears)):
        for j in range(i + 1, len(gears)):
            gi, gj = gears[i], gears[j]
            d = dist(centre_of(gi), centre_of(gj))
            kind = linked.get((i, j))
            if kind == "shaft" or j in shaft_family(scene, i):
                if d > 0.5:
                    raise Reject("shaft-linked gears must share a centre")
                continue
            if gi.get("host") is not None or gj.get("host") is not None:
                # An inner (shaft) gear lies on its host; compare against the host's outline instead.
                continue
            if kind == "mesh":
                if abs(d - (gi["r"] + gj["r"])) > 0.5:
                    raise Reject(f"meshing gears {gi['label']} and {gj['label']} do not touch")
            elif d < gi["r"] + gj["r"] + 2 * TOOTH + CLEAR:
                raise Reject(f"gears {gi['label']} and {gj['label']} overlap or nearly touch")
    for link in scene["links"]:
        if link["type"] == "mesh":
            a, b = gears[link["a"]], gears[link["b"]]
            if a.get("host") is not None or b.get("host") is not None:
                raise Reject("only outer gears mesh")
    belts = [link for link in scene["links"] if link["type"] in ("open_belt", "crossed_belt")]
    paths = []
    for link in belts:
        a, b = gears[link["a"]], gears[link["b"]]
        if dist(centre_of(a), centre_of(b)) < a["r"] + b["r"] + BELT_GAP:
            raise Reject(f"belt {a['label']}-{b['label']} is too short to read")
        path = belt_path(scene, link)
        segs = polyline_segments(path)
        if link["type"] == "crossed_belt":
            # The crossing must be visible, not hidden on top of a wheel.
            ra, rb = belt_radius(a), belt_radius(b)
            t = ra / (ra + rb)
            cross = (a["x"] + t * (b["x"] - a["x"]), a["y"] + t * (b["y"] - a["y"]))
            if any(dist(cross, centre_of(g)) < g["r"] + TOOTH + BELT_CLEAR for g in gears):
                raise Reject(f"crossing of belt {a['label']}-{b['label']} lies on a wheel")
        skip = shaft_family(scene, link["a"]) | shaft_family(scene, link["b"])
        for k, g in enumerate(gears):
            if k in skip:
                continue
            rr = g["r"] + TOOTH + BELT_CLEAR
            if any(seg_point_dist(centre_of(g), p, q) < rr for p, q in segs):
                raise Reject(f"belt {a['label']}-{b['label']} passes over gear {g['label']}")
        paths.append(segs)
    for m in range(len(paths)):
        for n in range(m + 1, len(paths)):
            if any(_seg_seg_dist(p, q, s, t) < BELT_SEP for p, q in paths[m] for s, t in paths[n]):
                raise Reject("two belts cross or touch")
