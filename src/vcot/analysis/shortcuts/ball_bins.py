"""ball_bins shortcuts: the bin under the start, and the bins under the lower ends of the first and the lowest
ramps."""

from __future__ import annotations

from vcot.analysis.shortcuts import scene
from vcot.schema import Instance


def _bin(sc: dict, x: float) -> str:
    k = sc["bins"]
    return str(min(k, max(1, int(x // (sc["width"] / k)) + 1)))


def _lower_end(ramp: dict) -> list[float]:
    return ramp["a"] if ramp["a"][1] < ramp["b"][1] else ramp["b"]


def bin_under_start(inst: Instance) -> str | None:
    sc = scene(inst)
    return _bin(sc, sc["ball"]["x"]) if sc.get("ball") else None


def bin_under_first_ramp_end(inst: Instance) -> str | None:
    """The ramp straight below the start, followed to its lower end, then straight down."""
    sc = scene(inst)
    if not sc.get("ball"):
        return None
    x, y = sc["ball"]["x"], sc["ball"]["y"]
    below = [
        r
        for r in sc["ramps"]
        if min(r["a"][0], r["b"][0]) <= x <= max(r["a"][0], r["b"][0]) and min(r["a"][1], r["b"][1]) < y
    ]
    if not below:
        return _bin(sc, x)
    top = max(below, key=lambda r: max(r["a"][1], r["b"][1]))
    return _bin(sc, _lower_end(top)[0])


def bin_under_lowest_ramp_end(inst: Instance) -> str | None:
    sc = scene(inst)
    if not sc.get("ramps"):
        return None
    low = min(sc["ramps"], key=lambda r: min(r["a"][1], r["b"][1]))
    return _bin(sc, _lower_end(low)[0])


HEURISTICS = [
    ("bin under the start", bin_under_start),
    ("first ramp's lower end", bin_under_first_ramp_end),
    ("lowest ramp's lower end", bin_under_lowest_ramp_end),
]
