"""rolling_dice_sum shortcut: the expected sum of a random walk's bottoms, from the path length alone.

A reader who counts the moves but never turns the die can still guess 3.5 per roll: the bottom faces of a long
walk average 3.5, so the guess lands near the answer without tracking a single face.
"""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance


def moves_times_average(inst: Instance) -> str | None:
    """3.5 per move of the drawn path, rounded (a die's average face)."""
    path = scene(inst).get("path")
    if not isinstance(path, list) or len(path) < 2:
        return None
    return str(round(3.5 * (len(path) - 1)))


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("3.5 per move", moves_times_average),
]
