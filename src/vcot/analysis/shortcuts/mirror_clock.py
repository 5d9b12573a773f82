"""mirror_clock shortcuts: reading the mirror picture as if it were the clock, and forgetting the shift.

The scene stores the hands as the mirror picture draws them (`shown_*_angle`, degrees clockwise from 12), which
is what a reader sees; the heuristics read times off those angles the naive ways.
"""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance


def _minutes(hour_angle: float, minute_angle: float) -> int:
    """Minutes after 12:00 (0..719) of the time a face with these hand angles shows: the hour the hour hand has
    passed and the minute the minute hand points at."""
    return (int(hour_angle // 30) % 12) * 60 + round(minute_angle / 6) % 60


def _fmt(minutes: int) -> str:
    hour, minute = divmod(minutes % 720, 60)
    return f"{hour or 12}:{minute:02d}"


def _shown(inst: Instance) -> tuple[int, dict | None] | None:
    """The time the picture seems to show (minutes after 12:00) and the stated shift, if the scene has them."""
    sc = scene(inst)
    try:
        shown = _minutes(float(sc["shown_hour_angle"]), float(sc["shown_minute_angle"]))
    except (KeyError, TypeError, ValueError):
        return None
    return shown, sc.get("shift") if sc.get("form") == "shift" else None


def apparent_time(inst: Instance) -> str | None:
    """The time read straight off the mirror picture: no un-mirroring, any shift ignored."""
    got = _shown(inst)
    return None if got is None else _fmt(got[0])


def apparent_time_plus_shift(inst: Instance) -> str | None:
    """Shift form only: the apparent time moved on by the shift (the shift applied, the mirror forgotten)."""
    got = _shown(inst)
    if got is None or not got[1]:
        return None
    shown, shift = got
    return _fmt(shown + 60 * int(shift.get("hours", 0)) + int(shift.get("minutes", 0)))


def real_time_ignoring_shift(inst: Instance) -> str | None:
    """Shift form only: the real time (12:00 minus the apparent time), the stated shift forgotten. On the read
    form this would be the solution itself, not a shortcut, so it abstains there."""
    got = _shown(inst)
    if got is None or not got[1]:
        return None
    return _fmt(720 - got[0])


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("apparent time (not un-mirrored)", apparent_time),
    ("apparent time plus the shift", apparent_time_plus_shift),
    ("real time, shift ignored", real_time_ignoring_shift),
]
