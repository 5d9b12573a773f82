"""Oracle for billiards: the unfolded table, where the bouncing ball runs in a straight line.

Method. Reflecting the table in its cushions tiles the plane with mirror copies; the ball's bouncing path is
the straight ray start + t * direction (t >= 0) through the copies. The pockets' images are exactly the
points (k * W/2, l * H) for integers k, l (corners at even k, side pockets at odd k). The oracle enumerates
these images in a box the ray can reach within the bounce budget, keeps those whose perpendicular distance to
the ray is within the capture radius (integer arithmetic: 25 * cross^2 <= 4 * |d|^2 for capture 2/5), takes
the one reached first (smallest projection on the ray), folds it back onto the table (x mod 2W reflected into
[0, W], likewise y) and reports the letter of that pocket. Pockets are listed counter-clockwise from the
bottom-left corner, the order of `pocket_labels`.

Independence. The generator simulates bounce by bounce with Fraction arithmetic, flipping direction
components at the cushions; this oracle never simulates a bounce, and imports nothing from `vcot.tasks`.
The scene stores the table, the start, the direction, the labels and the capture radius; not the pocket.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


def _fold(v: int, side: int) -> int:
    m = v % (2 * side)
    return m if m <= side else 2 * side - m


def pocket_reached(scene: dict[str, Any]) -> tuple[int, int]:
    w, h = int(scene["width"]), int(scene["height"])
    sx, sy = (int(v) for v in scene["start"])
    dx, dy = (int(v) for v in scene["direction"])
    cap = Fraction(scene.get("capture", "2/5"))
    d2 = dx * dx + dy * dy
    half = w // 2
    # Each segment between cushions is at most the diagonal long; bound the travel generously.
    span = (int(scene["max_bounces"]) + 2) * (w + h)
    t_max = Fraction(span, 1) / Fraction(max(abs(dx), abs(dy)))
    xs = sorted((sx, sx + dx * t_max))
    ys = sorted((sy, sy + dy * t_max))
    best = None
    for k in range(int(xs[0] // half) - 1, int(xs[1] // half) + 2):
        px = k * half
        for l_ in range(int(ys[0] // h) - 1, int(ys[1] // h) + 2):
            py = l_ * h
            rx, ry = px - sx, py - sy
            dot = rx * dx + ry * dy
            if dot <= 0:
                continue
            cross = rx * dy - ry * dx
            if Fraction(cross * cross, d2) <= cap * cap:
                if best is None or dot < best[0]:
                    best = (dot, px, py)
    if best is None:
        raise ValueError("the ball reaches no pocket")
    return _fold(best[1], w), _fold(best[2], h)


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    w, h = int(scene["width"]), int(scene["height"])
    order = [(0, 0), (w // 2, 0), (w, 0), (w, h), (w // 2, h), (0, h)]
    return scene["pocket_labels"][order.index(pocket_reached(scene))]
