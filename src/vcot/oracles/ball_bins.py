"""Oracle for ball_bins: the ball's run worked out in closed form, event by event.

Method. The ball's centre is a point; each ramp, thickened by its own half-thickness and the ball's radius,
becomes a line segment parallel to the ramp on its upper side. In flight the centre follows a parabola under
gravity (10 units/s², as the question's world): the next event is the earliest time the parabola meets a
thickened ramp from above (a quadratic in t) or falls through the bins' rim (the level where the ball's bottom
meets the dividers' tops). Meeting a smooth ramp without bouncing keeps only the velocity along it; on the ramp
the ball slides with constant acceleration g times the slope's sine towards the lower end, so the time to reach
an end is again a quadratic; it leaves the end with its velocity along the ramp. The bin is read off where the
centre falls through the rim. The ramp ends' rounded caps are not modelled: the generator rejects scenes whose
jittered runs differ, which excludes grazing an end.

Independence. The generator steps a rigid-body engine (pymunk) with a fixed time step and reads the bin from
the sampled path; this oracle steps no time and imports nothing from `vcot.tasks`.
"""

from __future__ import annotations

import math
from typing import Any

G = 10.0
EPS = 1e-9


def _roots(a: float, b: float, c: float) -> list[float]:
    """Real roots of a t^2 + b t + c = 0 (a may be 0)."""
    if abs(a) < 1e-12:
        return [] if abs(b) < 1e-12 else [-c / b]
    disc = b * b - 4 * a * c
    if disc < 0:
        return []
    q = math.sqrt(disc)
    return sorted(((-b - q) / (2 * a), (-b + q) / (2 * a)))


def _lines(scene: dict[str, Any]) -> list[tuple[tuple[float, float], tuple[float, float], float]]:
    """Each ramp as (start point, unit direction, length) of the line the ball's centre slides on."""
    out = []
    reach = scene["ball"]["r"] + scene["ramp_r"]
    for ramp in scene["ramps"]:
        (ax, ay), (bx, by) = ramp["a"], ramp["b"]
        length = math.hypot(bx - ax, by - ay)
        ux, uy = (bx - ax) / length, (by - ay) / length
        nx, ny = -uy, ux
        if ny < 0:
            nx, ny = -nx, -ny
        out.append(((ax + reach * nx, ay + reach * ny), (ux, uy), length))
    return out


def landing(scene: dict[str, Any], max_events: int = 60) -> float:
    """Where the ball's centre falls through the bins' rim."""
    lines = _lines(scene)
    rim = scene["divider_h"] + scene["ball"]["r"]
    x, y = scene["ball"]["x"], scene["ball"]["y"]
    vx = vy = 0.0
    for _ in range(max_events):
        # Flight: the earliest meeting with a line from above, else the rim.
        best: tuple[float, int, float] | None = None
        for k, ((px, py), (ux, uy), length) in enumerate(lines):
            nx, ny = -uy, ux
            if ny < 0:
                nx, ny = -nx, -ny
            # n . (p(t) - p0) = 0 with p(t) = (x + vx t, y + vy t - G t^2 / 2)
            for t in _roots(-0.5 * G * ny, vx * nx + vy * ny, (x - px) * nx + (y - py) * ny):
                if t <= EPS or (vx * nx + (vy - G * t) * ny) >= 0:
                    continue
                s = (x + vx * t - px) * ux + (y + vy * t - 0.5 * G * t * t - py) * uy
                if 0.0 <= s <= length and (best is None or t < best[0]):
                    best = (t, k, s)
        t_rim = max(_roots(-0.5 * G, vy, y - rim))
        if best is None or best[0] >= t_rim:
            return x + vx * t_rim
        t, k, s = best
        (px, py), (ux, uy), length = lines[k]
        v = vx * ux + (vy - G * t) * uy  # only the speed along the ramp survives the landing
        acc = -G * uy  # gravity's component along the ramp
        ends = [tt for tt in _roots(0.5 * acc, v, s - length) + _roots(0.5 * acc, v, s) if tt > EPS]
        if not ends:
            raise ValueError("the ball comes to rest on a ramp")
        tt = min(ends)
        s_end = s + v * tt + 0.5 * acc * tt * tt
        v_end = v + acc * tt
        x, y = px + s_end * ux, py + s_end * uy
        vx, vy = v_end * ux, v_end * uy
    raise ValueError("the ball does not come down within the event budget")


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    x = landing(scene)
    width = scene["width"]
    if not 0.0 <= x <= width:
        raise ValueError("the ball falls outside the bins")
    return str(min(scene["bins"], int(x // (width / scene["bins"])) + 1))
