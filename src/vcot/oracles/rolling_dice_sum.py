"""Oracle for rolling_dice_sum: the sum of the bottom faces after each roll, by the 3-D rotation model.

Method. The die is rolled as a rigid body: face normals are rotated by the quarter-turn matrix about
z x d for each move d read from the path's row/column deltas (see `vcot.oracles.rolling_dice_top`); after
each roll the pips whose normal points down (-z) are added. The start bottom is not counted.

Independence. No face-permutation table and nothing from `vcot.tasks`: the roll is derived from rotation
geometry, not from the generator's die model; the scene stores only the path and three start faces.
"""

from __future__ import annotations

from typing import Any

from vcot.oracles.rolling_dice_top import bottom_sum


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    return str(bottom_sum(scene, scene["path"]))
