"""Shared by cubes_count and cubes_missing: the structure's column heights as a perfect viewer reads them."""

from __future__ import annotations

from typing import Any

from vcot.captions._common import matrix_rows


def caption(scene: dict[str, Any]) -> str:
    heights = scene["heights"]
    cam = scene["camera"]
    rows, cols = len(heights), len(heights[0])
    # heights[y][x]: y = 0 is the front row (the camera looks from -y, tasks/common/cube_stacks.py), so the rows
    # are written back to front, like a plan with the front at the bottom.
    return (
        f"A structure of {scene['palette']} unit cubes on a floor of {cols} by {rows} squares, seen from the "
        f"front-right and above (camera azimuth {cam['azimuth']} degrees, elevation {cam['elevation']} "
        f"degrees). The height of the cube column on each floor square, as a plan seen from above with the "
        f"back row first and the front row last, each row from left to right (0 is an empty grey square): "
        f"{matrix_rows(heights[::-1])}."
    )
