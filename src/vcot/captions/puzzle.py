"""puzzle: every visible cell of the picture (shape, colour, shade), the gap and the four candidate pieces."""

from __future__ import annotations

from typing import Any

from vcot.captions._common import letters


def _cell(c: list[Any] | None) -> str:
    if c is None:
        return "?"
    shape, colour, shade = c
    return f"{colour} {shape}" + (f" (paler, shade {shade})" if shade else "")


def _rows(grid: list[list[Any]]) -> str:
    return " / ".join(", ".join(_cell(c) for c in row) for row in grid)


def caption(scene: dict[str, Any]) -> str:
    r, c, size = scene["hole"]
    parts = [
        f"A grid of {scene['rows']} rows and {scene['cols']} columns of shapes (shade 0 is the full colour, "
        f"higher shades paler, up to {scene['shade_levels'] - 1}). A {size}x{size} block is missing: the grey "
        f"square with a question mark covering rows {r + 1} to {r + size} and columns {c + 1} to {c + size} "
        f"(counted from the top-left). The rows from the top, each from left to right ('?' = missing): "
        f"{_rows(scene['grid'])}."
    ]
    for letter, piece in zip(letters(len(scene["candidates"])), scene["candidates"], strict=True):
        parts.append(f"Piece {letter}: {_rows(piece)}.")
    return " ".join(parts)
