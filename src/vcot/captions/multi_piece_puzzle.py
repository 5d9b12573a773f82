"""multi_piece_puzzle: the target shape and each lettered candidate piece, drawn as rows of cells.

The letters are never listed together (a list such as "A, C" could read as an answer); each piece is its own
sentence.
"""

from __future__ import annotations

from typing import Any

from vcot.captions._common import bbox_rows, grid_rows


def caption(scene: dict[str, Any]) -> str:
    w, h = scene["width"], scene["height"]
    pieces = scene["pieces"]
    parts = [
        f"Left: a grid of {w} columns and {h} rows; the grey target cells, top row first ('#' grey, "
        f"'.' white): {grid_rows(scene['target'], w, h, x0=1, y0=1)}.",
        f"Right: {len(pieces)} candidate pieces, each drawn as rows of cells with the top row first.",
    ]
    for p in pieces:
        parts.append(f"Piece {p['label']} ({p['color']}): {bbox_rows(p['cells'])}.")
    return " ".join(parts)
