"""mirror_clock: the mirrored clock face as drawn: where each hand points on the picture.

Angles are measured clockwise from the 12 at the top of the picture, as seen (mirrored); the real time is
left to the reader.
"""

from __future__ import annotations

from typing import Any


def _numeral_at(shown_angle: float) -> str:
    """The mirrored numeral drawn at a shown angle: mirroring sends the numeral at real angle a to 360 - a."""
    real = (360 - shown_angle) % 360
    k, rest = divmod(real, 30)
    lo = int(k) % 12 or 12
    if rest == 0:
        return f"at the mirrored numeral {lo}"
    hi = (lo % 12) + 1
    return f"between the mirrored numerals {lo} and {hi}"


def _angle(a: float) -> str:
    return f"{a:g}"


def caption(scene: dict[str, Any]) -> str:
    h, m = scene["shown_hour_angle"], scene["shown_minute_angle"]
    face = "mirrored numerals 1 to 12" if scene["numerals"] else "tick marks but no numerals"
    where_h = f" ({_numeral_at(h)})" if scene["numerals"] else ""
    where_m = f" ({_numeral_at(m)})" if scene["numerals"] else ""
    return (
        f"An analogue clock face seen in a mirror, with {face} and a ring of 60 minute ticks; the 12 position is "
        f"at the top. Measured clockwise from the top as drawn, the short wide hour hand points at "
        f"{_angle(h)} degrees{where_h} and the long thin minute hand at {_angle(m)} degrees{where_m}."
    )
