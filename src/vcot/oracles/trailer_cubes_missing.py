"""Oracle for trailer_cubes_missing: space carving (the visual hull), then the empty voxels of its block.

Method. The maximal structure is carved voxel by voxel out of the full block and checked by re-projection
against the three views (`vcot.oracles.trailer_cubes_count.carve`). The block is as wide as the front view,
as deep as the top view and as tall as the highest carved voxel; every block voxel missing from the carved
set is counted one by one.

Why it is independent. The generator computes W * D * max(front) - sum(min(front[x], side[y])) from the
views with its own max-solid rule; this oracle carves and counts voxels, takes the block height from the
carved structure rather than from the front view, and imports nothing from `vcot.tasks`.
"""

from __future__ import annotations

from typing import Any

from vcot.oracles.trailer_cubes_count import carve


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    solid, w, d, _ = carve(scene)
    top = 1 + max(z for _, _, z in solid)
    return str(sum(1 for x in range(w) for y in range(d) for z in range(top) if (x, y, z) not in solid))
