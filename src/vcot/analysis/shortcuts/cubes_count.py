"""cubes_count shortcuts: guessing the count from the structure's outline, or counting only what shows.

Each reads the scene's height map (what the picture shows) the shallow way a reader might: the size of the
bounding box, the column tops, or the cubes that have a face towards the camera.
"""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

Heights = list[list[int]]


def heights_of(inst: Instance) -> Heights | None:
    """The scene's height map (rows front first), or None when the scene has none."""
    heights = scene(inst).get("heights")
    if not isinstance(heights, list) or not heights or not all(isinstance(r, list) and r for r in heights):
        return None
    return heights


def box_of(heights: Heights) -> tuple[int, int, int]:
    """(width, depth, tallest column) of the structure's bounding box."""
    return len(heights[0]), len(heights), max(max(row) for row in heights)


def column_tops(heights: Heights) -> int:
    """How many column tops the picture shows (one per non-empty column)."""
    return sum(1 for row in heights for h in row if h)


def exposed_cubes(heights: Heights) -> int:
    """Cubes with at least one face towards the camera (top, front or right) not covered by a neighbour: a count
    of the cubes one sees, which misses the cubes walled in behind and below others."""
    w, d = len(heights[0]), len(heights)

    def filled(x: int, y: int, z: int) -> bool:
        return 0 <= x < w and 0 <= y < d and z < heights[y][x]

    return sum(
        1
        for y in range(d)
        for x in range(w)
        for z in range(heights[y][x])
        if not (filled(x, y, z + 1) and filled(x, y - 1, z) and filled(x + 1, y, z))
    )


def half_the_box(inst: Instance) -> str | None:
    """Half the bounding box (width x depth x tallest column), rounded: a structure 'about half full'."""
    heights = heights_of(inst)
    if heights is None:
        return None
    w, d, h = box_of(heights)
    return str(round(w * d * h / 2))


def visible_tops(inst: Instance) -> str | None:
    """The number of column tops, as if every column were one cube tall."""
    heights = heights_of(inst)
    return None if heights is None else str(column_tops(heights))


def visible_cubes(inst: Instance) -> str | None:
    """Only the cubes that show a face, hidden ones forgotten."""
    heights = heights_of(inst)
    return None if heights is None else str(exposed_cubes(heights))


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("half the bounding box", half_the_box),
    ("column tops only", visible_tops),
    ("cubes showing a face", visible_cubes),
]
