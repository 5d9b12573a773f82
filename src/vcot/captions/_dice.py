"""Shared by the rolling-dice tasks: the board, the drawn path(s) and the start die's panel.

Cells are given as 1-based row (from the top) and column (from the left), the numbering the questions use;
the die's panel shows its top, south and east faces.
"""

from __future__ import annotations

from typing import Any


def cells(path: list[list[int]]) -> str:
    return ", ".join(f"row {r + 1} column {c + 1}" for r, c in path)


def board(scene: dict[str, Any]) -> str:
    return f"A board of {scene['rows']} rows and {scene['cols']} columns."


def die(scene: dict[str, Any], start: list[int]) -> str:
    d = scene["start_die"]
    return (
        f"The start cell S is row {start[0] + 1} column {start[1] + 1}, where the die's top face shows "
        f"{d['top']} pips; the panel on the right shows the die with top {d['top']}, south face {d['south']} "
        f"and east face {d['east']}."
    )
