"""Oracle for cubes_missing: read the structure back from a ray-cast picture, then count the empty voxels of
its bounding box.

Method. The structure is read from an orthographic picture ray-cast pixel by pixel from the scene's camera
(`vcot.oracles.cubes_count.read_structure`: nearest column box per pixel by the slab method, heights read
off the seen top faces, empty cells must show their floor, otherwise `Unreadable`). The read structure is
turned into a voxel set; the box is the axis-aligned bounding box of the footprint grid (W x D, the whole
floor grid) and of the voxels' highest level; the answer is the number of box voxels not in the set, counted
one by one.

Why it is independent. The generator computes W * D * max(heights) - sum(heights) from the stored heights
and checks legibility with shapely polygon clipping in painter's order; this oracle reads the heights from
its own per-pixel ray casting with a depth test and counts empty voxels explicitly. It imports nothing from
`vcot.tasks`.
"""

from __future__ import annotations

from typing import Any

from vcot.oracles.cubes_count import read_structure, voxels


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    heights = read_structure(scene)
    solid = voxels(heights)
    w, d = len(heights[0]), len(heights)
    top = 1 + max(z for _, _, z in solid)
    empty = sum(1 for x in range(w) for y in range(d) for z in range(top) if (x, y, z) not in solid)
    return str(empty)
