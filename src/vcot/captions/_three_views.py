"""Shared by trailer_cubes_count and trailer_cubes_missing: the three drawn views, square by square.

In the scene, row y = 0 of the top view and entry 0 of the side view are the front (tasks/common/cube_stacks.py,
`render_views` draws the back row on top), so the top view is written back row first, as it is drawn.
"""

from __future__ import annotations

from typing import Any


def _column(heights: list[int]) -> str:
    return " ".join(str(v) for v in heights)


def caption(scene: dict[str, Any]) -> str:
    top = " / ".join("".join("#" if v else "." for v in row) for row in scene["top"][::-1])
    side = scene["side_name"]
    return (
        "Three views of a structure of unit cubes. Top view (seen from above, front at the bottom), rows from "
        f"the back row down to the front row, '#' filled and '.' empty: {top}. Front view: columns from left to "
        f"right are {_column(scene['front'])} squares tall, matching the top view's columns. {side.capitalize()} "
        f"side view (ends labelled 'front' and 'back'): from the front end to the back end, "
        f"{_column(scene['side'])} squares tall, matching the top view's rows from the front row to the back row."
    )
