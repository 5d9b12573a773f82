"""Oracle for cubes_count: read the structure back from a ray-cast picture, then count voxels.

Method. The scene's column heights are turned into solid boxes (a grounded column is one box), and an
orthographic picture is ray-cast pixel by pixel with numpy from the scene's camera (azimuth, elevation):
every pixel's ray is intersected with every column box by the slab method, and the nearest hit (and the axis
of the face it enters through) is kept; rays that hit nothing land on the floor plane. The structure is then
*read from that picture only*: a column's height is the height of the top-face hits seen in that cell (a top
face counts as seen when at least `MIN_SEEN` of its unoccluded pixels survive), an empty cell must show its
floor square, and a cell showing neither makes the oracle raise `Unreadable` (the picture would not determine
the answer). The answer is the number of unit voxels of the read structure.

Why it is independent. The generator sums `heights` and decides legibility with exact shapely polygon
clipping in painter's order (`cube_stacks.visibility`); this module uses none of that: its own camera basis,
per-pixel ray casting with a depth test instead of painter's order, and a voxel count of what the pixels show.
A hidden column top, a misread height or a wrong total all make the two disagree.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

MIN_SEEN = 0.25  # share of a top face (or empty floor square) that must be seen to read the cell
STEP = 0.04  # pixel size in cube units


class Unreadable(ValueError):
    """The ray-cast picture does not show a column's top or an empty cell's floor."""


def _basis(scene: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Orthonormal screen-right, screen-up and towards-the-camera vectors (x right, y away, z up)."""
    az = math.radians(scene["camera"]["azimuth"])
    el = math.radians(scene["camera"]["elevation"])
    right = np.array([math.cos(az), math.sin(az), 0.0])
    up = np.array([-math.sin(el) * math.sin(az), math.sin(el) * math.cos(az), math.cos(el)])
    toward = np.cross(right, up)  # = (sin az cos el, -cos az cos el, sin el): front-right, above
    return right, up, toward


def read_structure(scene: dict[str, Any]) -> list[list[int]]:
    """Column heights (rows front first) as read from the ray-cast picture of the scene."""
    cols = [(x, y, int(h)) for y, row in enumerate(scene["heights"]) for x, h in enumerate(row)]
    w = len(scene["heights"][0])
    d = len(scene["heights"])
    top = max([h for _, _, h in cols] + [1])
    right, up, toward = _basis(scene)
    corners = np.array([(x, y, z) for x in (0, w) for y in (0, d) for z in (0, top)], float)
    sx, sy = corners @ right, corners @ up
    gx = np.arange(sx.min() - 0.5, sx.max() + 0.5, STEP)
    gy = np.arange(sy.min() - 0.5, sy.max() + 0.5, STEP)
    px, py = np.meshgrid(gx, gy)
    far = 4.0 * (w + d + top)
    base = px[..., None] * right + py[..., None] * up + far * toward  # ray origins, shape (H, W, 3)
    direc = -toward
    inv = 1.0 / direc

    best_t = np.full(px.shape, np.inf)
    best_col = np.full(px.shape, -1)
    best_axis = np.full(px.shape, -1)
    for k, (x, y, h) in enumerate(cols):
        if h <= 0:
            continue
        lo, hi = np.array([x, y, 0.0]), np.array([x + 1, y + 1, float(h)])
        t1, t2 = (lo - base) * inv, (hi - base) * inv
        tmin, tmax = np.minimum(t1, t2), np.maximum(t1, t2)
        tnear, tfar = tmin.max(axis=-1), tmax.min(axis=-1)
        hit = (tnear <= tfar) & (tnear < best_t)
        best_t = np.where(hit, tnear, best_t)
        best_col = np.where(hit, k, best_col)
        best_axis = np.where(hit, tmin.argmax(axis=-1), best_axis)

    def plane_hits(z: float) -> tuple[np.ndarray, np.ndarray]:
        t = (z - base[..., 2]) * inv[2]
        return base[..., 0] + t * direc[0], base[..., 1] + t * direc[1]

    floor_x, floor_y = plane_hits(0.0)
    read = [[-1] * w for _ in range(d)]
    for k, (x, y, h) in enumerate(cols):
        if h > 0:
            hx, hy = plane_hits(float(h))
            alone = (hx > x) & (hx < x + 1) & (hy > y) & (hy < y + 1)
            seen = (best_col == k) & (best_axis == 2)
            if alone.sum() and seen.sum() >= MIN_SEEN * alone.sum():
                # The height is read off the hit points of the seen top face, not from the scene.
                zs = (base[..., 2] + best_t * direc[2])[seen]
                read[y][x] = int(round(float(np.median(zs))))
        else:
            alone = (floor_x > x) & (floor_x < x + 1) & (floor_y > y) & (floor_y < y + 1)
            seen = alone & (best_col < 0)
            if alone.sum() and seen.sum() >= MIN_SEEN * alone.sum():
                read[y][x] = 0
        if read[y][x] < 0:
            raise Unreadable(f"cell ({x}, {y}) shows neither a column top nor its floor")
    return read


def voxels(heights: list[list[int]]) -> set[tuple[int, int, int]]:
    return {(x, y, z) for y, row in enumerate(heights) for x, h in enumerate(row) for z in range(h)}


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    return str(len(voxels(read_structure(scene))))
