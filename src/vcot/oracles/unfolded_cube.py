"""Oracle for unfolded_cube: fold each net physically in 3D (floating-point hinge rotations) and match views.

Method: every net cell becomes a unit square in space (screen x right, screen y up, the printed side facing
the viewer along +z; rows grow downward, so y = -row). Each cell carries three points: its centre, the tip of
its printed-side normal and the tip of its glyph's "up" arrow (a glyph with `rot` counter-clockwise quarter
turns points up, left, down or right on screen). A spanning tree of the net is folded hinge by hinge in
breadth-first order: the child's whole subtree is rotated by ±90 degrees about the shared edge (Rodrigues'
formula with numpy), the sign chosen so that the child swings behind the parent's printed side (printed side
outward). Afterwards the six centres must be the six faces of a unit cube and each printed normal must point
away from the cube's centre; each face is then (outward normal, glyph up) rounded to integer vectors.
A view (top = +y, front-left = +z, front-right = +x) is shown by the cube when one of the 24 proper
rotations (the octahedral group, taken from scipy's `Rotation.create_group("O")`) carries three faces onto
the view's directions with equal glyph, colour and up vector. The answer is the letter of the one candidate
(net in the "net" form, view in the "view" form) that is consistent; anything else raises ValueError.

Independence: the generator folds by stepping combinatorial frames (`tasks/common/cube_nets.py`) and
enumerates rotations as signed permutation matrices; this module imports nothing from vcot.tasks. It reads
only `form`, `views`/`nets` or `net`/`candidate_views`; the scene carries no label of the options (the
generator's account of which mistake made each option, `candidate_kinds`, lives in `meta["solution"]`, which
this module is never given).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from scipy.spatial.transform import Rotation

LETTERS = "ABCD"
VIEW_DIRS = {"top": (0, 1, 0), "left": (0, 0, 1), "right": (1, 0, 0)}
SCREEN_UP = [(0, 1), (-1, 0), (0, -1), (1, 0)]  # glyph top on screen after rot counter-clockwise quarter turns

Face = tuple[str, str, tuple[int, int, int]]  # glyph, colour, up


@lru_cache(maxsize=1)
def _rotations() -> list[np.ndarray]:
    mats = np.rint(Rotation.create_group("O").as_matrix()).astype(int)
    assert len({m.tobytes() for m in mats}) == 24
    return list(mats)


def _rotate_about(points: np.ndarray, origin: np.ndarray, axis: np.ndarray, angle: float) -> np.ndarray:
    k = axis / np.linalg.norm(axis)
    p = points - origin
    c, s = np.cos(angle), np.sin(angle)
    return origin + p * c + np.cross(k, p) * s + np.outer(p @ k, k) * (1 - c)


def fold(net: list[dict]) -> dict[tuple[int, int, int], Face]:
    """The folded cube: outward normal -> (glyph, colour, up), by rigid 3D folding of the flat net."""
    cells = {(c["col"], c["row"]): c for c in net}
    keys = list(cells)
    idx = {k: i for i, k in enumerate(keys)}
    # points per cell: centre, centre + normal (printed side), centre + glyph up
    pts = np.zeros((len(keys), 3, 3))
    for k, c in cells.items():
        centre = np.array([k[0], -k[1], 0.0])
        ux, uy = SCREEN_UP[c["rot"] % 4]
        pts[idx[k]] = [centre, centre + [0, 0, 1], centre + [ux, uy, 0]]
    # breadth-first spanning tree from the first cell
    parent: dict[tuple[int, int], tuple[int, int] | None] = {keys[0]: None}
    order = [keys[0]]
    for k in order:
        for d in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            nb = (k[0] + d[0], k[1] + d[1])
            if nb in cells and nb not in parent:
                parent[nb] = k
                order.append(nb)
    if len(order) != 6 or len(cells) != 6:
        raise ValueError("not a connected six-cell net")

    def subtree(root: tuple[int, int]) -> list[int]:
        out, stack = [], [root]
        while stack:
            k = stack.pop()
            out.append(idx[k])
            stack.extend(c for c, p in parent.items() if p == k)
        return out

    for child in order[1:]:
        p = idx[parent[child]]
        pc, pn = pts[p, 0], pts[p, 1] - pts[p, 0]
        cc = pts[idx[child], 0]
        mid = (pc + cc) / 2  # midpoint of the shared edge
        axis = np.cross(pn, cc - pc)  # along the hinge
        want = mid - 0.5 * pn  # where the child's centre must end up: behind the parent's printed side
        sub = subtree(child)
        block = pts[sub].reshape(-1, 3)
        best = None
        for angle in (np.pi / 2, -np.pi / 2):
            moved = _rotate_about(block, mid, axis, angle)
            err = np.linalg.norm(moved[0] - want)
            if best is None or err < best[0]:
                best = (err, moved)
        assert best is not None and best[0] < 1e-6
        pts[sub] = best[1].reshape(-1, 3, 3)

    centre = pts[:, 0].mean(axis=0)
    cube: dict[tuple[int, int, int], Face] = {}
    for k in keys:
        c, n_tip, u_tip = pts[idx[k]]
        out = c - centre
        normal = tuple(int(v) for v in np.rint(n_tip - c))
        if not np.allclose(out * 2, normal, atol=1e-6):
            raise ValueError("the net does not fold into a cube with its printed side outward")
        up = tuple(int(v) for v in np.rint(u_tip - c))
        cube[normal] = (cells[k]["glyph"], cells[k]["color"], up)  # type: ignore[index]
    if len(cube) != 6:
        raise ValueError("two cells fold onto the same face")
    return cube


def shows(cube: dict[tuple[int, int, int], Face], view: dict[str, dict]) -> bool:
    """Whether some rotation of the cube shows exactly this view."""
    for r in _rotations():
        turned = {
            tuple(int(v) for v in r @ n): (g, col, tuple(int(v) for v in r @ np.array(up)))
            for n, (g, col, up) in cube.items()
        }
        if all(turned[VIEW_DIRS[name]] == (f["glyph"], f["color"], tuple(f["up"])) for name, f in view.items()):
            return True
    return False


def consistent(scene: dict[str, Any]) -> list[bool]:
    if scene["form"] == "net":
        return [all(shows(fold(net), v) for v in scene["views"]) for net in scene["nets"]]
    cube = fold(scene["net"])
    return [shows(cube, v) for v in scene["candidate_views"]]


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    flags = consistent(scene)
    if sum(flags) != 1:
        raise ValueError(f"{sum(flags)} consistent candidates")
    return LETTERS[flags.index(True)]
