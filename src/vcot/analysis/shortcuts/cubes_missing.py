"""cubes_missing shortcuts: the bounding box less what one sees, or less one cube per column top.

They read the scene's height map as `cubes_count`'s shortcuts do and subtract a shallow count from the box
(width x depth x tallest column).
"""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic
from vcot.analysis.shortcuts.cubes_count import box_of, column_tops, exposed_cubes, heights_of
from vcot.schema import Instance


def box_less_tops(inst: Instance) -> str | None:
    """Box volume minus the number of column tops (each column taken as one cube)."""
    heights = heights_of(inst)
    if heights is None:
        return None
    w, d, h = box_of(heights)
    return str(w * d * h - column_tops(heights))


def box_less_visible(inst: Instance) -> str | None:
    """Box volume minus the cubes that show a face (the hidden ones counted as missing)."""
    heights = heights_of(inst)
    if heights is None:
        return None
    w, d, h = box_of(heights)
    return str(w * d * h - exposed_cubes(heights))


def empty_floor_squares(inst: Instance) -> str | None:
    """The empty floor squares times the box height: only whole empty columns counted as missing."""
    heights = heights_of(inst)
    if heights is None:
        return None
    w, d, h = box_of(heights)
    return str((w * d - column_tops(heights)) * h)


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("box less column tops", box_less_tops),
    ("box less cubes showing a face", box_less_visible),
    ("empty columns x box height", empty_floor_squares),
]
