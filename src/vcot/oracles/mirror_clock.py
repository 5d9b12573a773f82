"""Oracle for mirror_clock: brute force over the 720 times of a 12-hour face, compared in the mirror.

Method. For every whole-minute time h:mm the oracle computes where its hands point as unit vectors
(minute hand at 6 degrees a minute, hour hand at 0.5 degrees a minute, clockwise from 12), reflects them
left to right (x -> -x, as a mirror does) and measures how far they are from the hands the picture shows
(the stored shown angles, turned into vectors the same way). The time whose mirrored hands fit best is the
real time; it must fit (within a hundredth of a degree) and be unique. A stated shift is then applied by
counting minutes forward on the face, and the result is written H:MM.

Independence. The generator inverts the reflection exactly (angle -> 360 - angle, Fraction arithmetic) and
reads the time off the angles; this oracle searches all times, works with reflected vectors and never inverts
anything, and imports nothing from `vcot.tasks`. The scene stores only the shown hands, the face style,
the question form and the shift; not the real time.
"""

from __future__ import annotations

import math
from typing import Any


def _vec(deg: float) -> tuple[float, float]:
    """Unit vector of a hand at `deg` clockwise from 12 (x right, y up)."""
    a = math.radians(deg)
    return math.sin(a), math.cos(a)


def real_minutes(scene: dict[str, Any]) -> int:
    """Minutes after 12:00 (0..719) of the real time, by brute force."""
    shown_h, shown_m = _vec(float(scene["shown_hour_angle"])), _vec(float(scene["shown_minute_angle"]))
    scored = []
    for t in range(720):
        hx, hy = _vec(0.5 * t)
        mx, my = _vec(6.0 * (t % 60))
        # Mirror left-right: x -> -x.
        err = math.hypot(-hx - shown_h[0], hy - shown_h[1]) + math.hypot(-mx - shown_m[0], my - shown_m[1])
        scored.append((err, t))
    scored.sort()
    tol = 2 * math.radians(0.01)
    if scored[0][0] > tol or scored[1][0] <= tol:
        raise ValueError("the shown hands fit no single whole-minute time")
    return scored[0][1]


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    t = real_minutes(scene)
    if scene["form"] == "shift":
        for _ in range(60 * scene["shift"]["hours"] + scene["shift"]["minutes"]):
            t = (t + 1) % 720
    hour, minute = divmod(t, 60)
    return f"{hour or 12}:{minute:02d}"
