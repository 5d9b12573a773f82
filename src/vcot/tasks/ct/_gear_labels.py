"""Where each wheel's label goes in a gear_rotation picture, and the check that no label touches a belt,
another wheel or label, the legend of the step pictures or the border (docs/tasks/gear_rotation.md, "Labels").
"""

from __future__ import annotations

import math
from typing import Any

from vcot.tasks.base import Reject
from vcot.tasks.ct._gear_geometry import (
    TOOTH,
    H,
    W,
    belt_path,
    centre_of,
    dist,
    polyline_segments,
    seg_point_dist,
)

HUB_R = 15  # white hub disc at every wheel's centre: a wheel without a shaft wheel carries its label there
RING_LABEL_R = 12  # a host's label disc, in the ring between its shaft wheel's teeth and its own tooth tips
LABEL_GAP = 2  # min free pixels around a label disc
BELT_HALF = 2  # half the drawn belt width
LEGEND = "blue = clockwise, orange = counterclockwise"
LEGEND_BOX = (W - 12 - 365, H - 10 - 23, W - 10, H - 8)  # where draw_system's legend text falls (step pictures)

Disc = tuple[float, float, float]  # centre x, centre y, radius


def _inner_of(scene: dict[str, Any], i: int) -> int | None:
    return next((k for k, h in enumerate(scene["gears"]) if h.get("host") == i), None)


def _box_dist(p: tuple[float, float], box: tuple[float, float, float, float]) -> float:
    dx = max(box[0] - p[0], 0.0, p[0] - box[2])
    dy = max(box[1] - p[1], 0.0, p[1] - box[3])
    return math.hypot(dx, dy)


def _belts_near(
    scene: dict[str, Any], i: int, segs: list[tuple[tuple[float, float], ...]]
) -> list[tuple[tuple[float, float], ...]]:
    """The belt segments that can reach a label disc lying inside wheel i (the others need not be checked)."""
    g = scene["gears"][i]
    reach = g["r"] + TOOTH + BELT_HALF + LABEL_GAP
    return [seg for seg in segs if seg_point_dist(centre_of(g), seg[0], seg[1]) <= reach]


def _label_room(
    scene: dict[str, Any], i: int, disc: Disc, others: list[Disc], belt_segs: list[tuple[tuple[float, float], ...]]
) -> tuple[float, str]:
    """Free pixels around wheel i's label disc and what is nearest: negative when the disc leaves its own
    wheel or overlaps a belt, another wheel, another label, the legend or the picture's border. `belt_segs`
    must hold every belt segment near wheel i (`_belts_near`)."""
    x, y, rad = disc
    g = scene["gears"][i]
    rooms = [
        (g["r"] + TOOTH - dist((x, y), centre_of(g)) - rad, "its own wheel's edge"),
        (min(x, y, W - x, H - y) - rad - LABEL_GAP, "the border"),
        (_box_dist((x, y), LEGEND_BOX) - rad - LABEL_GAP, "the legend"),
    ]
    for k, h in enumerate(scene["gears"]):
        # A shaft wheel is drawn over its host, so its label may lie on the host; every other wheel, the
        # host's own shaft wheel included, must stay clear of the label.
        if k != i and k != g.get("host"):
            room = dist((x, y), centre_of(h)) - h["r"] - TOOTH - rad - LABEL_GAP
            rooms.append((room, f"gear {h['label']}"))
    rooms += [(seg_point_dist((x, y), p, q) - rad - BELT_HALF - LABEL_GAP, "a belt") for p, q in belt_segs]
    rooms += [(dist((x, y), o[:2]) - rad - o[2] - LABEL_GAP, "another label") for o in others]
    return min(rooms)


def _belt_segments(scene: dict[str, Any]) -> list[tuple[tuple[float, float], ...]]:
    return [
        seg
        for link in scene["links"]
        if link["type"] in ("open_belt", "crossed_belt")
        for seg in polyline_segments(belt_path(scene, link))
    ]


def label_layout(scene: dict[str, Any]) -> list[Disc]:
    """Each wheel's label disc. A wheel without a shaft wheel on it has its label on its hub. A host's hub is
    covered by its shaft wheel, so its label goes in the ring between the shaft wheel's teeth and its own tooth
    tips, at the first of 32 angles with the most free room (the shaft wheel's belt crosses that ring)."""
    gears = scene["gears"]
    discs: list[Disc] = [(g["x"], g["y"], HUB_R) for g in gears]
    segs = _belt_segments(scene)
    for i, g in enumerate(gears):
        inner = _inner_of(scene, i)
        if inner is None:
            continue
        rr = gears[inner]["r"] + TOOTH + RING_LABEL_R + LABEL_GAP + 0.5
        others = [d for k, d in enumerate(discs) if k != i]
        near = _belts_near(scene, i, segs)
        best: tuple[float, Disc] | None = None
        for k in range(32):
            t = 2 * math.pi * k / 32
            disc = (round(g["x"] + rr * math.cos(t), 2), round(g["y"] - rr * math.sin(t), 2), RING_LABEL_R)
            room = _label_room(scene, i, disc, others, near)[0]
            if best is None or room > best[0] + 1e-9:
                best = (room, disc)
        assert best is not None
        discs[i] = best[1]
    return discs


def check_labels(scene: dict[str, Any]) -> None:
    """Reject a picture where a label would overlap a belt, another wheel, another label, the legend or the
    border, and one where a wheel reaches into the legend's corner of the step pictures."""
    discs = label_layout(scene)
    segs = _belt_segments(scene)
    for i, disc in enumerate(discs):
        others = [d for k, d in enumerate(discs) if k != i]
        room, what = _label_room(scene, i, disc, others, _belts_near(scene, i, segs))
        if room < 0:
            raise Reject(f"label {scene['gears'][i]['label']} would touch {what}")
    for g in scene["gears"]:
        if _box_dist(centre_of(g), LEGEND_BOX) < g["r"] + TOOTH:
            raise Reject(f"gear {g['label']} reaches into the legend")
