"""Oracle for rolling_dice_top: the die as a rigid body in 3-D, rolled by rotation matrices.

Method. The die is a map from outward face normals (unit vectors of the board frame x = east, y = north,
z = up) to pip counts, built from the three faces the scene gives (top, south, east) and the rule that
opposite faces sum to 7. Tipping the die towards a horizontal unit direction d is the quarter turn about
the axis a = z x d (Rodrigues with a 90 degree angle: v -> (a.v) a + a x v), which carries the top normal to
d and d to the bottom; every face normal is rotated with the integer matrix. The answer is the pip count
whose normal ends at +z.

Independence. The generator tracks six named faces and permutes them with a hand-written table per
direction (`common/die.py`); this oracle never names faces after the start, derives each roll from the
geometry of a rotation, and reads moves from the row/column deltas itself. Handedness is not used: the three
given faces fix the die. Nothing from `vcot.tasks` is imported; the scene stores no answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

UP = (0, 0, 1)
DOWN = (0, 0, -1)
# Board frame: rows grow southwards (-y), columns eastwards (+x).
SOUTH = (0, -1, 0)
EAST = (1, 0, 0)


def _quarter_turn(d: np.ndarray) -> np.ndarray:
    """Rotation matrix of the roll towards horizontal unit vector d: +90 degrees about z x d."""
    a = np.cross(np.array(UP), d)
    cross = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.outer(a, a) + cross


def start_faces(scene: dict[str, Any]) -> dict[tuple[int, int, int], int]:
    """Normal -> pips of the start die from its top, south and east faces (opposites sum to 7)."""
    given = {
        UP: int(scene["start_die"]["top"]),
        SOUTH: int(scene["start_die"]["south"]),
        EAST: int(scene["start_die"]["east"]),
    }
    faces = dict(given)
    for n, v in given.items():
        faces[tuple(-c for c in n)] = 7 - v
    if sorted(faces.values()) != [1, 2, 3, 4, 5, 6]:
        raise ValueError(f"start die {scene['start_die']} is not a standard die")
    return faces


def roll_along(faces: dict[tuple[int, int, int], int], path: list[list[int]]) -> list[dict[tuple[int, int, int], int]]:
    """Face maps after each move of the path (the start not included)."""
    out = []
    for (r0, c0), (r1, c1) in zip(path[:-1], path[1:], strict=True):
        dr, dc = r1 - r0, c1 - c0
        if abs(dr) + abs(dc) != 1:
            raise ValueError(f"cells {(r0, c0)} and {(r1, c1)} are not neighbours")
        d = np.array([dc, -dr, 0])  # east = +x, south = -y
        rot = _quarter_turn(d)
        faces = {tuple(int(x) for x in rot @ np.array(n)): v for n, v in faces.items()}
        out.append(faces)
    return out


def top_after(scene: dict[str, Any], path: list[list[int]]) -> int:
    states = roll_along(start_faces(scene), path)
    return states[-1][UP]


def bottom_sum(scene: dict[str, Any], path: list[list[int]]) -> int:
    return sum(f[DOWN] for f in roll_along(start_faces(scene), path))


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    return str(top_after(scene, scene["path"]))
