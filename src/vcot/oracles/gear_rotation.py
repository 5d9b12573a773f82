"""Oracle for gear_rotation: brute force over every assignment of turning directions.

Method. Each wheel turns clockwise or counterclockwise; the oracle enumerates all 2^n assignments (n <= ~10
wheels) and keeps those that satisfy every connection the question states — meshing teeth and crossed belts:
opposite directions; open belts and shared shafts: the same direction — and give the driving gear its stated
direction. No surviving assignment means the wheels cannot turn: "jammed". Otherwise every surviving
assignment must agree on the asked gear (it is connected to the driver), and that direction is the answer.

Independence. The generator propagates a parity label by breadth-first search and stops at the first
contradiction; this oracle searches exhaustively and uses no traversal order, no parity table and nothing from
`vcot.tasks`. Relations are read from the scene's link list (an open and a crossed belt differ only there).
The scene stores `target` (the asked gear's index) and `targets` (both sub-questions' gears), never an
answer or a direction other than the driver's.
"""

from __future__ import annotations

import itertools
from typing import Any

CW, CCW = "clockwise", "counterclockwise"
OPPOSITE_KINDS = {"mesh", "crossed_belt"}
SAME_KINDS = {"open_belt", "shaft"}


def consistent_assignments(scene: dict[str, Any]) -> list[tuple[str, ...]]:
    n = len(scene["gears"])
    out = []
    for dirs in itertools.product((CW, CCW), repeat=n):
        if dirs[scene["driver"]] != scene["driver_dir"]:
            continue
        ok = True
        for link in scene["links"]:
            same = dirs[link["a"]] == dirs[link["b"]]
            if link["type"] in OPPOSITE_KINDS:
                ok = not same
            elif link["type"] in SAME_KINDS:
                ok = same
            else:
                raise ValueError(f"unknown link type {link['type']!r}")
            if not ok:
                break
        if ok:
            out.append(dirs)
    return out


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    sols = consistent_assignments(scene)
    if not sols:
        return "jammed"
    seen = {s[scene["target"]] for s in sols}
    if len(seen) != 1:
        raise ValueError("the asked gear is not driven by gear A")
    return seen.pop()
