"""electric_charge: the grid and every labelled charge.

Positions are given as (column, row) counts without naming a direction of the compass or of the page that
an answer could be (docs/tasks/README.md: no text may state the answer).
"""

from __future__ import annotations

from typing import Any


def _charge(q: float) -> str:
    sign = "+" if q > 0 else "-"
    mag = abs(q)
    return f"{sign}{int(mag) if float(mag).is_integer() else mag}q"


def caption(scene: dict[str, Any]) -> str:
    n = scene["grid"]
    t = scene["target"]
    parts = [
        f"A square grid of {n} by {n} points, equally spaced. Positions below are column and row numbers "
        f"counted from 0 at the lower-left corner point: columns grow eastward, rows grow northward.",
        f"The target charge T, ringed in black, is {_charge(t['q'])} at column {t['pos'][0]}, row {t['pos'][1]}.",
    ]
    others = [f"{_charge(s['q'])} at column {s['pos'][0]}, row {s['pos'][1]}" for s in scene["sources"]]
    parts.append("The other charges: " + "; ".join(others) + ".")
    return " ".join(parts)
