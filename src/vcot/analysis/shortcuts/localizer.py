"""localizer shortcuts: circle coordinates read off the pieces as drawn, without tiling anything.

Each cue keeps every piece in the orientation it is drawn in and puts it somewhere plausible on its own (no
exact cover, no interplay between pieces), then reports where the circles land, written like the answer.
"""

from __future__ import annotations

from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

Cell = tuple[int, int]


def _fmt(cells: set[Cell]) -> str | None:
    return ", ".join(f"({x}, {y})" for x, y in sorted(cells)) if cells else None


def _pieces(sc: dict[str, Any]) -> list[tuple[list[Cell], list[Cell]]]:
    return [
        ([(int(x), int(y)) for x, y in p.get("cells", [])], [(int(x), int(y)) for x, y in p.get("circles", [])])
        for p in sc.get("pieces", [])
    ]


def _first_fit(cells: list[Cell], target: set[Cell]) -> Cell | None:
    """The 1-based offset of the lowest, then leftmost, spot where the drawn shape lies inside the target."""
    if not cells or not target:
        return None
    for dy in range(1, max(y for _, y in target) + 1):
        for dx in range(1, max(x for x, _ in target) + 1):
            if all((x + dx, y + dy) in target for x, y in cells):
                return (dx, dy)
    return None


def as_drawn_at_origin(inst: Instance) -> str | None:
    """Every circle at its drawn cell, counted from the grid's bottom-left corner (1-based)."""
    return _fmt({(x + 1, y + 1) for _, circles in _pieces(scene(inst)) for x, y in circles})


def each_piece_first_fit(inst: Instance) -> str | None:
    """Each circled piece, unturned, at the lowest-leftmost spot where it fits in the target on its own."""
    sc = scene(inst)
    target = {(int(x), int(y)) for x, y in sc.get("target", [])}
    out: set[Cell] = set()
    for cells, circles in _pieces(sc):
        if not circles:
            continue
        at = _first_fit(cells, target)
        if at is None:
            return None
        out.update((x + at[0], y + at[1]) for x, y in circles)
    return _fmt(out)


def most_circled_piece_first_fit(inst: Instance) -> str | None:
    """The circles of the piece carrying the most (then the largest piece), unturned at its first fit; right
    only when that piece carries every circle and lands there."""
    sc = scene(inst)
    target = {(int(x), int(y)) for x, y in sc.get("target", [])}
    pieces = [p for p in _pieces(sc) if p[1]]
    if not pieces:
        return None
    cells, circles = max(pieces, key=lambda p: (len(p[1]), len(p[0])))
    at = _first_fit(cells, target)
    return _fmt({(x + at[0], y + at[1]) for x, y in circles}) if at else None


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("circles as drawn, from the grid's corner", as_drawn_at_origin),
    ("each circled piece unturned at its first fit", each_piece_first_fit),
    ("most-circled piece unturned at its first fit", most_circled_piece_first_fit),
]
