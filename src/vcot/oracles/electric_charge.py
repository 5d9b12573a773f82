"""Oracle for electric_charge: Coulomb superposition with complex numbers and a nearest-direction vote.

Method. Each charge sits at z = x + iy (grid units, y north). The force of source s on the target T is
q_T q_s (z_T - z_s) / |z_T - z_s|^3; the net force is their sum (a complex number, evaluated with Python's
decimal module at 50 digits). The answer is the compass direction whose unit vector has the largest dot
product with the net force (the nearest of the eight directions), found by comparison, not by an angle
formula or sector arithmetic.

Independence. The generator sums float (Fx, Fy) tuples and bins atan2 of the net into 45-degree sectors;
this oracle shares neither code nor the binning method, and imports nothing from `vcot.tasks`. The scene stores
positions and charges (and the rejection margins, unused); no force or direction.
"""

from __future__ import annotations

from decimal import Decimal, getcontext
from typing import Any

getcontext().prec = 50
_H = Decimal(2).sqrt() / 2
# (name, unit vector) — north is +y.
COMPASS = [
    ("east", (Decimal(1), Decimal(0))),
    ("northeast", (_H, _H)),
    ("north", (Decimal(0), Decimal(1))),
    ("northwest", (-_H, _H)),
    ("west", (Decimal(-1), Decimal(0))),
    ("southwest", (-_H, -_H)),
    ("south", (Decimal(0), Decimal(-1))),
    ("southeast", (_H, -_H)),
]


def net_force(scene: dict[str, Any]) -> tuple[Decimal, Decimal]:
    tx, ty = (Decimal(v) for v in scene["target"]["pos"])
    qt = Decimal(scene["target"]["q"])
    fx = fy = Decimal(0)
    for s in scene["sources"]:
        dx, dy = tx - Decimal(s["pos"][0]), ty - Decimal(s["pos"][1])
        r2 = dx * dx + dy * dy
        if r2 == 0:
            raise ValueError("two charges on one point")
        k = qt * Decimal(s["q"]) / (r2 * r2.sqrt())
        fx += k * dx
        fy += k * dy
    return fx, fy


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    fx, fy = net_force(scene)
    if fx == 0 and fy == 0:
        raise ValueError("no net force")
    return max(COMPASS, key=lambda c: fx * c[1][0] + fy * c[1][1])[0]
