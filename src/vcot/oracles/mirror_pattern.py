"""Oracle for mirror_pattern: reflect cell centres geometrically and compare cell by cell.

Method: cell (r, c) of an n x n grid has its centre at doubled coordinates X = 2c - (n - 1), Y = (n - 1) - 2r
(x to the right, y up, origin at the grid's centre), so every symmetry of the square is an integer 2 x 2
matrix acting on (X, Y). A mirror line is given by its geometry: vertical (X -> -X), horizontal (Y -> -Y),
top-left to bottom-right (the line y = -x: (X, Y) -> (-Y, -X)) and top-right to bottom-left (y = x:
(X, Y) -> (Y, X)). In mode "any" the question allows a single reflection possibly followed by a rotation,
i.e. every orientation-reversing symmetry of the square: all signed permutation matrices of determinant -1,
enumerated here. A candidate is right when, for one allowed matrix M, every cell of the pattern appears in
the candidate at the image of its centre under M. The answer is the only such candidate (else ValueError).

Independence: the generator builds candidates and checks them with numpy array flips (fliplr, flipud,
transpose, rot90); this module maps coordinates through reflection matrices instead and imports nothing from
vcot.tasks. It reads only `pattern`, `mode`, `axis` and `candidates`: how each candidate was made (which names
the right one's reflection) is kept in the solution, never in the scene.
"""

from __future__ import annotations

import itertools
from typing import Any

Matrix = tuple[tuple[int, int], tuple[int, int]]

AXES: dict[str, Matrix] = {
    "vertical": ((-1, 0), (0, 1)),
    "horizontal": ((1, 0), (0, -1)),
    "diagonal": ((0, -1), (-1, 0)),
    "antidiagonal": ((0, 1), (1, 0)),
}


def improper_symmetries() -> list[Matrix]:
    """All symmetries of the square that reverse orientation (reflections, or reflection then rotation)."""
    out = []
    for perm in itertools.permutations(range(2)):
        for signs in itertools.product((1, -1), repeat=2):
            m = [[0, 0], [0, 0]]
            for i in range(2):
                m[i][perm[i]] = signs[i]
            if m[0][0] * m[1][1] - m[0][1] * m[1][0] == -1:
                out.append(((m[0][0], m[0][1]), (m[1][0], m[1][1])))
    return out


def image(grid: list[list[int]], m: Matrix) -> list[list[int]]:
    n = len(grid)
    out = [[-1] * n for _ in range(n)]
    for r in range(n):
        for c in range(n):
            x, y = 2 * c - (n - 1), (n - 1) - 2 * r
            x2, y2 = m[0][0] * x + m[0][1] * y, m[1][0] * x + m[1][1] * y
            out[((n - 1) - y2) // 2][(x2 + (n - 1)) // 2] = grid[r][c]
    return out


def matches(scene: dict[str, Any]) -> list[bool]:
    allowed = improper_symmetries() if scene["mode"] == "any" else [AXES[scene["axis"]]]
    images = [image(scene["pattern"], m) for m in allowed]
    return [any(cand == im for im in images) for cand in scene["candidates"]]


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    flags = matches(scene)
    if sum(flags) != 1:
        raise ValueError(f"{sum(flags)} candidates are allowed reflections")
    return "ABCD"[flags.index(True)]
