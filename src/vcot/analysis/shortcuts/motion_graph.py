"""motion_graph shortcuts: one reading of the graph stretched over the whole interval, or a single trapezoid
through the interval's end points (ignoring every corner in between)."""

from __future__ import annotations

from fractions import Fraction

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance


def _velocity(times: list[int], vels: list[int], t: int) -> Fraction:
    for k in range(len(times) - 1):
        if times[k] <= t <= times[k + 1]:
            return vels[k] + Fraction((vels[k + 1] - vels[k]) * (t - times[k]), times[k + 1] - times[k])
    raise ValueError(t)


def _whole(x: Fraction) -> str:
    return str(round(x))


def _parts(inst: Instance) -> tuple[list[int], list[int], int, int] | None:
    sc = scene(inst)
    if not sc.get("times"):
        return None
    return sc["times"], sc["velocities"], sc["start"], sc["end"]


def end_velocity_times_duration(inst: Instance) -> str | None:
    """The velocity at the interval's end, as if it had held all along."""
    p = _parts(inst)
    return None if p is None else _whole(_velocity(p[0], p[1], p[3]) * (p[3] - p[2]))


def peak_velocity_times_duration(inst: Instance) -> str | None:
    """The highest corner velocity in the interval times its length."""
    p = _parts(inst)
    if p is None:
        return None
    times, vels, a, b = p
    peak = max(
        [_velocity(times, vels, a), _velocity(times, vels, b)]
        + [Fraction(v) for t, v in zip(times, vels, strict=True) if a < t < b]
    )
    return _whole(peak * (b - a))


def end_points_trapezoid(inst: Instance) -> str | None:
    """One trapezoid from the velocities at the interval's two ends."""
    p = _parts(inst)
    if p is None:
        return None
    times, vels, a, b = p
    return _whole((_velocity(times, vels, a) + _velocity(times, vels, b)) / 2 * (b - a))


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("end velocity × duration", end_velocity_times_duration),
    ("peak velocity × duration", peak_velocity_times_duration),
    ("trapezoid through the end points", end_points_trapezoid),
]
