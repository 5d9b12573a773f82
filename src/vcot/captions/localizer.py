"""localizer: the target region as rows of cells and each numbered piece with its circles.

Rows are written as pictures ('#' cell, 'o' cell with a circle, '.' empty), top row first, so the caption
never spells a cell in the "(x, y)" form the answer uses.
"""

from __future__ import annotations

from typing import Any

from vcot.captions._common import bbox_rows, grid_rows


def caption(scene: dict[str, Any]) -> str:
    w, h = scene["width"], scene["height"]
    target = grid_rows(scene["target"], w, h, x0=1, y0=1)
    parts = [
        f"Left: a grid of {w} columns (numbered 1 to {w} from the left) and {h} rows (numbered 1 to {h} from "
        f"the bottom). The grey target cells, written row by row from the top row y={h} down to y=1 "
        f"('#' grey, '.' white): {target}."
    ]
    pieces = []
    for p in scene["pieces"]:
        shape = bbox_rows(p["cells"], p["circles"])
        pieces.append(
            f"piece {p['number']} ({p['color']}), top row first, 'o' marking a cell with a black circle: {shape}"
        )
    parts.append("Right: " + "; ".join(pieces) + ".")
    return " ".join(parts)
