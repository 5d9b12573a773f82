"""billiards: the table, the labelled pockets, the ball and its arrow."""

from __future__ import annotations

from typing import Any

from vcot.captions._common import point


def _pockets(w: int, h: int) -> list[tuple[tuple[int, int], str]]:
    # Counter-clockwise from the bottom-left corner, the order of scene["pocket_labels"] (tasks/pbr/billiards.py).
    half = w // 2
    return [
        ((0, 0), "bottom-left corner"),
        ((half, 0), "middle of the bottom side"),
        ((w, 0), "bottom-right corner"),
        ((w, h), "top-right corner"),
        ((half, h), "middle of the top side"),
        ((0, h), "top-left corner"),
    ]


def caption(scene: dict[str, Any]) -> str:
    w, h = scene["width"], scene["height"]
    pockets = "; ".join(
        f"{lab} at the {where} ({point(p)})"
        for lab, (p, where) in zip(scene["pocket_labels"], _pockets(w, h), strict=True)
    )
    dx, dy = scene["direction"]
    sx, sy = scene["start"]
    return (
        f"A billiard table seen from above, {w} units wide and {h} units high, with a unit grid (x grows to the "
        f"right from the bottom-left corner, y grows upward). Pockets: {pockets}. The ball is at "
        f"{point((sx, sy))}; its arrow ends at {point((sx + dx, sy + dy))}, a step of {dx:+d} in x and "
        f"{dy:+d} in y."
    )
