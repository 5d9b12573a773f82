"""Oracle for rolling_dice_two: which of two paths gives the higher bottom-face sum, and that sum.

Method. Each path is rolled with the 3-D rotation model of `vcot.oracles.rolling_dice_top` (face normals
turned by the quarter-turn matrix about z x d, pips read off the normal pointing down after each roll, the
start bottom not counted); the two sums are compared and the answer written as 'colour, sum' ('same, sum'
on a tie).

Independence. Nothing from `vcot.tasks`: no face-permutation table, no shared trajectory code; the scene
stores only the two paths and the three visible start faces.
"""

from __future__ import annotations

from typing import Any

from vcot.oracles.rolling_dice_top import bottom_sum


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    red = bottom_sum(scene, scene["paths"]["red"])
    black = bottom_sum(scene, scene["paths"]["black"])
    winner = "red" if red > black else "black" if black > red else "same"
    return f"{winner}, {max(red, black)}"
