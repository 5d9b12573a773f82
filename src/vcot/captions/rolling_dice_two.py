"""rolling_dice_two: the board, the red and the black path cell by cell and the start die (see `_dice.py`)."""

from __future__ import annotations

from typing import Any

from vcot.captions._dice import board, cells, die


def caption(scene: dict[str, Any]) -> str:
    paths = scene["paths"]
    drawn = " ".join(
        f"The {colour} path runs through the cells {cells(p)}, with an arrow head on its last cell."
        for colour, p in sorted(paths.items(), key=lambda kv: kv[0] != "red")
    )
    start = next(iter(paths.values()))[0]
    return f"{board(scene)} {drawn} {die(scene, start)}"
