"""Oracle for block_tower: static equilibrium of the stack, by torques, in exact fractions.

Method. Blocks rest one on another from the floor up. The group of blocks above a contact face stays only if
the total torque of its weights about each edge of the face tips it back onto the face: about the right edge
e_r, the sum of m_i (x_i - e_r) must be negative, about the left edge e_l the sum of m_i (x_i - e_l) positive,
with m_i the block's area (uniform density). Starting from the bottom face, the first face whose group would
turn over an edge is where the tower breaks: every block above it leaves its place, the blocks below stay. The
answer is the number of blocks below that face (all of them when no face breaks). Scene numbers are read as
exact decimal fractions, so no rounding decides a case.

Independence. The generator simulates the released tower with a rigid-body engine (pymunk) and counts the
blocks whose pose is unchanged at the end; this oracle never simulates and imports nothing from `vcot.tasks`.
It holds where the generator's acceptance holds: scenes whose groups sit clearly inside or outside their faces.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any


def _f(v: Any) -> Fraction:
    return Fraction(str(v))


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    blocks = scene["blocks"]
    if not blocks:
        raise ValueError("a tower needs at least one block")
    xs = [_f(b["x"]) for b in blocks]
    ws = [_f(b["w"]) for b in blocks]
    ms = [_f(b["w"]) * _f(b["h"]) for b in blocks]
    for face in range(len(blocks) - 1):
        left = max(xs[face] - ws[face] / 2, xs[face + 1] - ws[face + 1] / 2)
        right = min(xs[face] + ws[face] / 2, xs[face + 1] + ws[face + 1] / 2)
        if left >= right:
            raise ValueError(f"block {face + 2} does not rest on the block below it")
        group = range(face + 1, len(blocks))
        about_right = sum(ms[i] * (xs[i] - right) for i in group)
        about_left = sum(ms[i] * (xs[i] - left) for i in group)
        if about_right > 0 or about_left < 0:
            return str(face + 1)
    return str(len(blocks))
