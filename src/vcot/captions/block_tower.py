"""block_tower: every block's letter, size and placement, bottom first.

Sizes and centres are in the picture's world units (a block is about one unit tall); x grows to the right, and
each block rests on the one listed before it. Nothing is said about balance or falling.
"""

from __future__ import annotations

from typing import Any


def caption(scene: dict[str, Any]) -> str:
    blocks = scene["blocks"]
    parts = [
        f"A tower of {len(blocks)} rectangular blocks of one uniform material stands on a flat floor, each "
        "resting on the block below it. Sizes and horizontal centres are in units about one block tall, with x "
        "growing to the right:"
    ]
    parts.append(
        "; ".join(f"block {b['label']} (width {b['w']:g}, height {b['h']:g}) centred at x = {b['x']:g}" for b in blocks)
        + ", listed from the bottom up."
    )
    return " ".join(parts)
