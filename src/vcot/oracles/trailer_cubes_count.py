"""Oracle for trailer_cubes_count: space carving (the visual hull), checked against all three views.

Method. Start from the full block of unit voxels (footprint of the top view x the tallest silhouette) and
carve away every voxel whose projection falls outside any of the three views: outside the top view's filled
squares, above the front silhouette over its column, or above the side silhouette over its row. What is left
is the largest voxel set whose projections stay inside the views (any cube outside it would show where a view
is empty). The carved set is then re-projected onto the top, front and side planes and compared with the
given views; a mismatch (views that no structure can produce) raises `Inconsistent`. It is also checked to be
grounded (every voxel rests on the floor or another voxel). The answer is its number of voxels.

Why it is independent. The generator applies the per-column rule min(front[x], side[y]) over filled top cells
(`cube_stacks.max_solid`) and its own consistency test; this oracle works voxel by voxel on the block, by
carving and re-projection, and imports nothing from `vcot.tasks`. The side view is taken as listed in the
scene (front to back whichever side is drawn, per the scene schema), so `side_name` does not change the
answer.
"""

from __future__ import annotations

from typing import Any

Voxel = tuple[int, int, int]


class Inconsistent(ValueError):
    """No structure has these three views."""


def carve(scene: dict[str, Any]) -> tuple[set[Voxel], int, int, int]:
    """The carved voxel set and the block's width, depth and height."""
    top, front, side = scene["top"], scene["front"], scene["side"]
    w, d = len(front), len(side)
    if len(top) != d or any(len(r) != w for r in top):
        raise Inconsistent("top view size does not match the silhouettes")
    h = max(list(front) + list(side))
    solid = {
        (x, y, z) for x in range(w) for y in range(d) for z in range(h) if top[y][x] and z < front[x] and z < side[y]
    }
    # Re-project: the carved set must reproduce every view exactly.
    if [[int(any((x, y, z) in solid for z in range(h))) for x in range(w)] for y in range(d)] != [
        [int(bool(v)) for v in r] for r in top
    ]:
        raise Inconsistent("top view not reproduced")
    if [sum(1 for z in range(h) if any((x, y, z) in solid for y in range(d))) for x in range(w)] != list(front):
        raise Inconsistent("front view not reproduced")
    if [sum(1 for z in range(h) if any((x, y, z) in solid for x in range(w))) for y in range(d)] != list(side):
        raise Inconsistent("side view not reproduced")
    if any(z > 0 and (x, y, z - 1) not in solid for x, y, z in solid):
        raise Inconsistent("a floating cube")
    return solid, w, d, h


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    solid, _, _, _ = carve(scene)
    return str(len(solid))
