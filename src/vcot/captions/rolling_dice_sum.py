"""rolling_dice_sum: the board, the blue path cell by cell and the start die (see `_dice.py`)."""

from __future__ import annotations

from typing import Any

from vcot.captions._dice import board, cells, die


def caption(scene: dict[str, Any]) -> str:
    path = scene["path"]
    return (
        f"{board(scene)} A blue path runs through the cells {cells(path)}, with an arrow head on the last "
        f"cell. {die(scene, path[0])}"
    )
