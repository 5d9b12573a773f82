"""ball_bins: the box, the ball's start, every lettered ramp by its two ends, and the bins.

Coordinates are world units with x growing to the right and y upwards from the floor; nothing is said about
where the ball goes.
"""

from __future__ import annotations

from typing import Any


def _pt(p: list[float]) -> str:
    return f"({p[0]:.2f}, {p[1]:.2f})"


def caption(scene: dict[str, Any]) -> str:
    k, w = scene["bins"], scene["width"]
    parts = [
        f"A box {w:g} units wide with a floor divided into {k} equal bins, numbered in order from left to right, "
        f"by dividers {scene['divider_h']:g} units tall. Coordinates: x to the right, y up from the floor.",
        f"A ball of radius {scene['ball']['r']:g} is held at rest at {_pt([scene['ball']['x'], scene['ball']['y']])}.",
    ]
    ramps = [f"ramp {r['label']} from {_pt(r['a'])} to {_pt(r['b'])}" for r in scene["ramps"]]
    if ramps:
        parts.append("Fixed smooth ramps: " + "; ".join(ramps) + ".")
    return " ".join(parts)
