"""Drawing a gear_rotation picture: toothed wheels, belts, hubs and labels, rotation arrows placed where they
have the most room, the legend, and the red marks of a jammed system's contradiction.
"""

from __future__ import annotations

import math
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.tasks.ct._gear_geometry import TOOTH, H, W, belt_path, centre_of, dist, shaft_family
from vcot.tasks.ct._gear_labels import HUB_R, LEGEND, Disc, label_layout

GEAR_FILL = (196, 206, 222)
INNER_FILL = (236, 206, 150)
CW_COLOR = (31, 90, 200)
CCW_COLOR = (214, 110, 0)
TENTATIVE_DASH = (9.0, 7.0)  # on, off (px): the arcs of directions that only "would" hold in a jammed system


def _gear_polygon(g: dict[str, Any]) -> list[tuple[float, float]]:
    n, r = g["teeth"], g["r"]
    p = 360 / n
    pts = []
    for k in range(n):
        a = g["phase"] + k * p
        for off, rad in ((-0.30, r - TOOTH), (-0.15, r + TOOTH), (0.15, r + TOOTH), (0.30, r - TOOTH)):
            t = math.radians(a + off * p)
            pts.append((g["x"] + rad * math.cos(t), g["y"] - rad * math.sin(t)))
    return pts


def _arrow_centre(scene: dict[str, Any], i: int, radius: float) -> float:
    """The direction (degrees, counter-clockwise from +x) around gear i with the most free room for an arrow."""
    g = scene["gears"][i]
    others = [h for k, h in enumerate(scene["gears"]) if h.get("host") is None and k not in shaft_family(scene, i)]
    best, best_room = 90.0, -1e9
    for k in range(16):
        centre = 90.0 + k * 22.5
        room = 1e9
        for off in (-55, -27, 0, 27, 55):
            t = math.radians(centre + off)
            px, py = g["x"] + radius * math.cos(t), g["y"] - radius * math.sin(t)
            room = min(room, px, py, W - px, H - py)
            for h in others:
                room = min(room, dist((px, py), centre_of(h)) - h["r"] - TOOTH)
        if room > best_room + 0.5:
            best, best_room = centre, room
    return best


def _rot_arrow(
    c: Canvas, scene: dict[str, Any], i: int, direction: str, color: Any, radius: float, dashed: bool = False
) -> None:
    g = scene["gears"][i]
    cx, cy = g["x"], g["y"]
    centre = _arrow_centre(scene, i, radius) if g.get("host") is None else 90.0
    sgn = 1 if direction == "clockwise" else -1
    start, end = centre + 60 * sgn, centre - 60 * sgn
    if dashed:
        # A tentative direction (a wheel of a jammed system): the same arc, dashed, with the same head.
        arc = [math.radians(start + (end + 8 * sgn - start) * k / 48) for k in range(49)]
        c.line(
            [(cx + radius * math.cos(t), cy - radius * math.sin(t)) for t in arc],
            color=color,
            width=4,
            dash=TENTATIVE_DASH,
        )
    else:
        c.arc((cx, cy), radius, start, end + 8 * sgn, color=color, width=4)
    back = math.radians(end + 14 * sgn)
    tip = math.radians(end)
    c.arrow(
        (cx + radius * math.cos(back), cy - radius * math.sin(back)),
        (cx + radius * math.cos(tip), cy - radius * math.sin(tip)),
        color=color,
        width=4,
        head=16,
    )


def draw_system(
    scene: dict[str, Any],
    known: dict[int, str],
    highlight: set[int],
    bad_link: int | None = None,
    layout: list[Disc] | None = None,
    tentative: bool = False,
) -> Image.Image:
    """The system with its labels; the driver's red arrow when no direction is `known` yet (the question's
    picture), else the `known` wheels' arrows and the legend. `highlight`ed wheels are outlined in red,
    `bad_link` is drawn or ringed in red. `tentative`: every arrow but the driver's is dashed (a jammed
    system's wheels only would turn so)."""
    c = Canvas(W, H)
    gears = scene["gears"]
    order = [i for i, g in enumerate(gears) if g.get("host") is None] + [
        i for i, g in enumerate(gears) if g.get("host") is not None
    ]
    belts = [k for k, lk in enumerate(scene["links"]) if lk["type"] in ("open_belt", "crossed_belt")]
    outer_belts = [
        k
        for k in belts
        if gears[scene["links"][k]["a"]].get("host") is None and gears[scene["links"][k]["b"]].get("host") is None
    ]
    for k in outer_belts:
        _draw_belt(c, scene, k, k == bad_link)
    for i in order:
        g = gears[i]
        fill = INNER_FILL if g.get("host") is not None else GEAR_FILL
        width = 4 if i in highlight else 2
        outline = "black" if i not in highlight else (200, 0, 0)
        c.polygon(_gear_polygon(g), fill=fill, outline=outline, width=width)
        if g.get("host") is None:
            c.circle((g["x"], g["y"]), g["r"] - TOOTH - 6, fill=None, outline="darkgray", width=1)
        c.circle((g["x"], g["y"]), 15, fill="white", outline="black", width=2)
    for k in belts:
        if k not in outer_belts:
            _draw_belt(c, scene, k, k == bad_link)
    if bad_link is not None and scene["links"][bad_link]["type"] in ("mesh", "shaft"):
        _ring_conflict(c, scene, bad_link)
    layout = layout if layout is not None else label_layout(scene)
    for i in order:
        x, y, radius = layout[i]
        if radius == HUB_R:
            c.text((x, y), gears[i]["label"], size=20, bold=True, anchor="mm")
        else:
            c.circle((x, y), radius, fill="white", outline="black", width=1)
            c.text((x, y), gears[i]["label"], size=16, bold=True, anchor="mm")
    for i, g in enumerate(gears):
        if i == scene["driver"] and not known:
            _rot_arrow(c, scene, i, scene["driver_dir"], "red", g["r"] + TOOTH + 10)
        elif i in known:
            color = CW_COLOR if known[i] == "clockwise" else CCW_COLOR
            radius = g["r"] + TOOTH + 10 if g.get("host") is None else g["r"] + TOOTH + 6
            _rot_arrow(c, scene, i, known[i], color, radius, dashed=tentative and i != scene["driver"])
    if known:
        c.text((W - 12, H - 10), LEGEND, size=16, anchor="rb", color="darkgray")
    return c.image()


def _ring_conflict(c: Canvas, scene: dict[str, Any], k: int) -> None:
    """A red ring where a mesh's teeth meet, or around a shaft's hub: without it, a jammed system's last step
    could repeat the picture before it (the conflicting wheels are often the ones just outlined)."""
    link = scene["links"][k]
    a, b = scene["gears"][link["a"]], scene["gears"][link["b"]]
    if link["type"] == "shaft":
        c.circle((a["x"], a["y"]), 24, fill=None, outline=(200, 0, 0), width=5)
        return
    t = a["r"] / (a["r"] + b["r"])
    c.circle(
        (a["x"] + t * (b["x"] - a["x"]), a["y"] + t * (b["y"] - a["y"])), 16, fill=None, outline=(200, 0, 0), width=5
    )


def _draw_belt(c: Canvas, scene: dict[str, Any], k: int, bad: bool) -> None:
    color = (200, 0, 0) if bad else (60, 60, 60)
    for pl in belt_path(scene, scene["links"][k]):
        c.line(pl, color=color, width=4)
