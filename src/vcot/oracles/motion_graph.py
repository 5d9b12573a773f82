"""Oracle for motion_graph: kinematics by integration, not by areas of shapes.

Method. On each straight piece of the velocity graph the acceleration is constant, so the position is
x(t) = x(t0) + v(t0)(t - t0) + a(t - t0)²/2 (the antiderivative of the velocity). The oracle tabulates x at
the start, the end, every corner between them and every instant where v = 0 (where the object turns round),
all with `fractions.Fraction`; the displacement is x(end) - x(start), the distance the sum of |Δx| between
consecutive tabulated instants (the object moves one way between turning points).

Independence. The generator cuts the region under the graph into trapezoids and triangles and adds their
areas; this oracle evaluates positions from the equations of motion and finds turning points by solving
v(t) = 0. It imports nothing from `vcot.tasks`; the scene stores the corners, the interval and the quantity.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


def _segment(times: list[int], t: Fraction) -> int:
    """Index k of the piece [times[k], times[k+1]] holding t (the earlier piece at a corner)."""
    for k in range(len(times) - 1):
        if t <= times[k + 1]:
            return k
    raise ValueError(f"time {t} after the graph's end")


def position(times: list[int], vels: list[int], t: Fraction) -> Fraction:
    """x(t) with x(0) = 0, by integrating the velocity piece by piece."""
    x = Fraction(0)
    for k in range(len(times) - 1):
        t0, t1 = Fraction(times[k]), Fraction(times[k + 1])
        if t <= t0:
            break
        acc = Fraction(vels[k + 1] - vels[k], times[k + 1] - times[k])
        dt = min(t, t1) - t0
        x += vels[k] * dt + acc * dt * dt / 2
    return x


def turning_points(times: list[int], vels: list[int], a: Fraction, b: Fraction) -> list[Fraction]:
    """Instants strictly inside (a, b) where v = 0 on a piece whose velocity is not constant."""
    out = []
    for k in range(len(times) - 1):
        v0, v1 = vels[k], vels[k + 1]
        if v0 == v1:
            continue
        root = times[k] + Fraction(-v0 * (times[k + 1] - times[k]), v1 - v0)
        if times[k] <= root <= times[k + 1] and a < root < b:
            out.append(root)
    return out


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    times, vels = scene["times"], scene["velocities"]
    if len(times) != len(vels) or any(t1 <= t0 for t0, t1 in zip(times, times[1:], strict=False)):
        raise ValueError("corners must have increasing times, one velocity each")
    a, b = Fraction(scene["start"]), Fraction(scene["end"])
    if not 0 <= a < b <= times[-1]:
        raise ValueError("the interval must lie inside the graph")
    _segment(times, b)
    if scene["quantity"] == "displacement":
        value = position(times, vels, b) - position(times, vels, a)
    elif scene["quantity"] == "distance":
        marks = sorted({a, b, *(Fraction(t) for t in times if a < t < b), *turning_points(times, vels, a, b)})
        xs = [position(times, vels, t) for t in marks]
        value = sum((abs(x1 - x0) for x0, x1 in zip(xs, xs[1:], strict=False)), Fraction(0))
    else:
        raise ValueError(f"unknown quantity {scene['quantity']!r}")
    return str(value.numerator) if value.denominator == 1 else str(value)
