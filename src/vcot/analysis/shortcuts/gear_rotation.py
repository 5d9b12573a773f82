"""gear_rotation shortcuts: single cues a model could answer from without propagating the directions.

Each reads one surface feature of the scene (a shaft shared with the driver, the stated direction, the labels,
the number of wheels or of flipping links, a closed loop, the distance in the drawing) and answers as if that
feature decided the question. None follows the links from the driver; none reads the solution.
"""

from __future__ import annotations

import math
from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

_DIRS = ("clockwise", "counterclockwise")


def _turn(sc: dict[str, Any], flips: int) -> str | None:
    """The driver's stated direction, reversed `flips` times."""
    driver_dir = sc.get("driver_dir")
    if driver_dir not in _DIRS:
        return None
    return driver_dir if flips % 2 == 0 else _DIRS[1 - _DIRS.index(driver_dir)]


def _asked(sc: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """The driver's and the asked wheel's scene entries."""
    gears, driver, target = sc.get("gears"), sc.get("driver"), sc.get("target")
    if not isinstance(gears, list) or not isinstance(driver, int) or not isinstance(target, int):
        return None
    if not (0 <= driver < len(gears) and 0 <= target < len(gears)):
        return None
    return gears[driver], gears[target]


def same_shaft_as_driver(inst: Instance) -> str | None:
    """The stated direction, when the asked wheel shares the driver's shaft."""
    sc = scene(inst)
    target, driver = sc.get("target"), sc.get("driver")
    for link in sc.get("links", []):
        if link.get("type") == "shaft" and {link.get("a"), link.get("b")} == {target, driver}:
            return sc.get("driver_dir")
    return None


def stated_direction(inst: Instance) -> str | None:
    """Always the direction the question states for gear A."""
    return _turn(scene(inst), 0)


def label_parity(inst: Instance) -> str | None:
    """As if the wheels formed one meshing chain in label order: letters an even number after A turn as A."""
    sc = scene(inst)
    pair = _asked(sc)
    if pair is None:
        return None
    driver, target = pair
    return _turn(sc, ord(str(target.get("label", "A"))[:1]) - ord(str(driver.get("label", "A"))[:1]))


def wheel_count_parity(inst: Instance) -> str | None:
    """As if the asked wheel were the last of one meshing chain of every wheel: an odd count turns as A."""
    sc = scene(inst)
    gears = sc.get("gears")
    return _turn(sc, len(gears) - 1) if isinstance(gears, list) and gears else None


def flip_link_parity(inst: Instance) -> str | None:
    """Count every reversing link in the picture (meshes and crossed belts) and flip A's direction that often."""
    sc = scene(inst)
    links = sc.get("links")
    if not isinstance(links, list):
        return None
    return _turn(sc, sum(lk.get("type") in ("mesh", "crossed_belt") for lk in links))


def closed_loop_jams(inst: Instance) -> str | None:
    """ "jammed" whenever the wheels and links form a closed loop (more links than a tree of the wheels has)."""
    sc = scene(inst)
    gears, links = sc.get("gears"), sc.get("links")
    if not isinstance(gears, list) or not isinstance(links, list):
        return None
    return "jammed" if len(links) >= len(gears) else None


def odd_wheel_count_jams(inst: Instance) -> str | None:
    """ "jammed" whenever the number of wheels is odd (an odd ring of meshing gears cannot turn)."""
    gears = scene(inst).get("gears")
    return "jammed" if isinstance(gears, list) and len(gears) % 2 == 1 else None


def distance_parity(inst: Instance) -> str | None:
    """Estimate the links between A and the asked wheel from their distance in the drawing (one link per mean
    wheel diameter) and flip A's direction that often."""
    sc = scene(inst)
    pair = _asked(sc)
    outer = [g for g in sc.get("gears", []) if g.get("host") is None]
    if pair is None or not outer:
        return None
    driver, target = pair
    try:
        d = math.hypot(target["x"] - driver["x"], target["y"] - driver["y"])
        step = 2 * sum(g["r"] for g in outer) / len(outer)
    except (KeyError, TypeError):
        return None
    return _turn(sc, max(1, round(d / step)) if d > 0 else 0)


def nearest_meshes(inst: Instance) -> str | None:
    """Opposite to A when the asked wheel is the outer wheel nearest to A (as if it meshed with A), else A's
    direction."""
    sc = scene(inst)
    pair = _asked(sc)
    if pair is None:
        return None
    driver, target = pair
    others = [
        g
        for g in sc.get("gears", [])
        if g.get("host") is None and g is not driver and (g.get("x"), g.get("y")) != (driver.get("x"), driver.get("y"))
    ]
    if not others:
        return None
    nearest = min(others, key=lambda g: math.hypot(g["x"] - driver["x"], g["y"] - driver["y"]))
    return _turn(sc, 1 if nearest is target else 0)


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("same shaft as the driver", same_shaft_as_driver),
    ("stated direction", stated_direction),
    ("label-order parity", label_parity),
    ("wheel-count parity", wheel_count_parity),
    ("flipping-link count parity", flip_link_parity),
    ("closed loop means jammed", closed_loop_jams),
    ("odd wheel count means jammed", odd_wheel_count_jams),
    ("distance parity", distance_parity),
    ("nearest wheel meshes with A", nearest_meshes),
]
