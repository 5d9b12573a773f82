"""mirror_pattern: the top pattern and the four candidate grids, cell by cell."""

from __future__ import annotations

from typing import Any

from vcot.captions._common import letters


def _grid(colours: list[str], grid: list[list[int]]) -> str:
    return " / ".join(" ".join(colours[v] for v in row) for row in grid)


def caption(scene: dict[str, Any]) -> str:
    n = scene["size"]
    colours = scene["colors"]
    parts = [
        f"The top grid is {n} by {n} cells; its rows from top to bottom, each from left to right: "
        f"{_grid(colours, scene['pattern'])}."
    ]
    for letter, cand in zip(letters(len(scene["candidates"])), scene["candidates"], strict=True):
        parts.append(f"Candidate {letter}: {_grid(colours, cand)}.")
    return " ".join(parts)
