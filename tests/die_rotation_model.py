"""An independent die model for the dice tests: face numbers attached to outward normals, each roll a
3×3 rotation matrix. Axes: x = east, y = north, z = up."""

from __future__ import annotations

NORMALS = {
    "top": (0, 0, 1),
    "bottom": (0, 0, -1),
    "north": (0, 1, 0),
    "south": (0, -1, 0),
    "east": (1, 0, 0),
    "west": (-1, 0, 0),
}
DOWN = (0, 0, -1)


def _cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def roll_matrix(direction: str):
    """Quarter turn about k = up × travel, so the top normal goes to the travel direction: R = I + K + K²."""
    k = _cross(NORMALS["top"], NORMALS[direction])
    kmat = [[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]]
    k2 = [[sum(kmat[i][m] * kmat[m][j] for m in range(3)) for j in range(3)] for i in range(3)]
    return [[(1 if i == j else 0) + kmat[i][j] + k2[i][j] for j in range(3)] for i in range(3)]


def apply(mat, v):
    return tuple(sum(mat[i][j] * v[j] for j in range(3)) for i in range(3))


def full_faces(top: int, south: int, east: int) -> dict[str, int]:
    return {"top": top, "bottom": 7 - top, "south": south, "north": 7 - south, "east": east, "west": 7 - east}


def roll_normals(faces: dict[str, int], moves: list[str]) -> list[dict[int, tuple]]:
    """Number → outward normal after each roll."""
    normal_of = {faces[f]: NORMALS[f] for f in NORMALS}
    out = []
    for d in moves:
        mat = roll_matrix(d)
        normal_of = {num: apply(mat, n) for num, n in normal_of.items()}
        out.append(normal_of)
    return out


def bottoms(faces: dict[str, int], moves: list[str]) -> list[int]:
    """Bottom number after each roll."""
    return [next(num for num, n in state.items() if n == DOWN) for state in roll_normals(faces, moves)]
