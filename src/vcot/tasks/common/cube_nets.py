"""Exact cube geometry (used by unfolded_cube): the 11 nets, folding a net into a cube, cube rotations.

A cube state maps each outward face normal (an integer 3-vector) to a Face: the mark drawn on it
(glyph + colour) and the 3D direction in which the glyph's top points, seen from outside the cube.
Because the glyph is always viewed from outside, (normal, up) fixes its appearance even for chiral glyphs.

A net is a set of grid cells (col, row), rows growing downward on screen, printed side facing the viewer.
Each cell carries a mark and `rot`, the number of counter-clockwise quarter turns of its glyph on screen.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, lru_cache

Vec = tuple[int, int, int]
Cell = tuple[int, int]
Matrix = tuple[Vec, Vec, Vec]

# Screen directions of a net cell's neighbours: (dcol, drow); drow = -1 is up on screen.
RIGHT, LEFT, UP, DOWN = (1, 0), (-1, 0), (0, -1), (0, 1)
NEIGHBOURS = (RIGHT, LEFT, UP, DOWN)


def neg(v: Vec) -> Vec:
    return (-v[0], -v[1], -v[2])


def cross(a: Vec, b: Vec) -> Vec:
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


def apply(m: Matrix, v: Vec) -> Vec:
    return tuple(sum(m[i][j] * v[j] for j in range(3)) for i in range(3))  # type: ignore[return-value]


def _det(m: Matrix) -> int:
    return (
        m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1])
        - m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0])
        + m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0])
    )


def _signed_permutations() -> list[Matrix]:
    out = []
    for perm in itertools.permutations(range(3)):
        for signs in itertools.product((1, -1), repeat=3):
            rows = []
            for i in range(3):
                row = [0, 0, 0]
                row[perm[i]] = signs[i]
                rows.append(tuple(row))
            out.append(tuple(rows))
    return out  # type: ignore[return-value]


ROTATIONS: list[Matrix] = [m for m in _signed_permutations() if _det(m) == 1]
MIRROR_X: Matrix = ((-1, 0, 0), (0, 1, 0), (0, 0, 1))
# The view frame: +y is the top face, +z the left-front face, +x the right-front face of the drawing.
VIEW_NORMALS: dict[str, Vec] = {"top": (0, 1, 0), "left": (0, 0, 1), "right": (1, 0, 0)}
# Rotations about the viewing diagonal permute the three visible faces; views equal under them show one cube
# pose turned on the page, so distractor views must differ beyond them.
DIAGONAL_TURNS: list[Matrix] = [
    ((1, 0, 0), (0, 1, 0), (0, 0, 1)),
    ((0, 0, 1), (1, 0, 0), (0, 1, 0)),
    ((0, 1, 0), (0, 0, 1), (1, 0, 0)),
]


@dataclass(frozen=True)
class Face:
    glyph: str
    color: str
    up: Vec

    @property
    def mark(self) -> tuple[str, str]:
        return (self.glyph, self.color)


Cube = dict[Vec, Face]


@dataclass(frozen=True)
class Frame:
    """Where a net cell ends up: its outward normal and the 3D directions of the cell's screen right/up."""

    n: Vec
    ex: Vec
    ey: Vec

    def step(self, d: Cell) -> Frame:
        """Frame of the neighbouring cell in screen direction d after folding it away from the viewer."""
        n, ex, ey = self.n, self.ex, self.ey
        if d == RIGHT:
            return Frame(ex, neg(n), ey)
        if d == LEFT:
            return Frame(neg(ex), n, ey)
        if d == UP:
            return Frame(ey, ex, neg(n))
        if d == DOWN:
            return Frame(neg(ey), ex, n)
        raise ValueError(f"not a neighbour direction: {d}")

    def edge_normal(self, d: Cell) -> Vec:
        """Normal of the cube face that meets this cell along its edge in screen direction d."""
        return {RIGHT: self.ex, LEFT: neg(self.ex), UP: self.ey, DOWN: neg(self.ey)}[d]

    def up_for_rot(self, rot: int) -> Vec:
        return (self.ey, neg(self.ex), neg(self.ey), self.ex)[rot % 4]

    def rot_for_up(self, up: Vec) -> int:
        for r in range(4):
            if self.up_for_rot(r) == up:
                return r
        raise ValueError(f"up {up} does not lie in the face with normal {self.n}")


ROOT = Frame((0, 0, 1), (1, 0, 0), (0, 1, 0))


class NotACubeNet(ValueError):
    pass


def fold_frames(cells: list[Cell] | tuple[Cell, ...]) -> dict[Cell, Frame]:
    """Fold a hexomino by walking its adjacency from the first cell; raises NotACubeNet when faces collide."""
    cells = [tuple(c) for c in cells]
    if len(cells) != 6 or len(set(cells)) != 6:
        raise NotACubeNet("a cube net has six distinct cells")
    cellset = set(cells)
    frames: dict[Cell, Frame] = {cells[0]: ROOT}
    queue = [cells[0]]
    while queue:
        c = queue.pop(0)
        for d in NEIGHBOURS:
            nb = (c[0] + d[0], c[1] + d[1])
            if nb in cellset and nb not in frames:
                frames[nb] = frames[c].step(d)
                queue.append(nb)
    if len(frames) != 6:
        raise NotACubeNet("cells are not edge-connected")
    if len({f.n for f in frames.values()}) != 6:
        raise NotACubeNet("two cells fold onto the same cube face")
    for c, f in frames.items():
        for d in NEIGHBOURS:
            nb = (c[0] + d[0], c[1] + d[1])
            if nb in frames and frames[nb].n != f.edge_normal(d):
                raise NotACubeNet("adjacent cells do not meet along their shared edge")
    return frames


# -- the 11 nets -------------------------------------------------------------------------------------------


def _normalise(cells: Sequence[Cell]) -> tuple[Cell, ...]:
    mc = min(c for c, _ in cells)
    mr = min(r for _, r in cells)
    return tuple(sorted((c - mc, r - mr) for c, r in cells))


def symmetries(cells: Sequence[Cell]) -> list[tuple[Cell, ...]]:
    """The 8 rotations/reflections of a polyomino, each normalised to the origin (duplicates kept)."""
    out = []
    for flip in (False, True):
        pts = [(-c, r) if flip else (c, r) for c, r in cells]
        for _ in range(4):
            pts = [(-r, c) for c, r in pts]
            out.append(_normalise(pts))
    return out


def _canonical(cells: Sequence[Cell]) -> tuple[Cell, ...]:
    return min(symmetries(cells))


@lru_cache(maxsize=1)
def free_hexominoes() -> list[tuple[Cell, ...]]:
    shapes = {((0, 0),)}
    for _ in range(5):
        grown = set()
        for s in shapes:
            cs = set(s)
            for c, r in s:
                for dc, dr in NEIGHBOURS:
                    nb = (c + dc, r + dr)
                    if nb not in cs:
                        grown.add(_canonical(cs | {nb}))
        shapes = grown
    return sorted(shapes)


@lru_cache(maxsize=1)
def cube_nets() -> list[tuple[Cell, ...]]:
    """The 11 distinct cube nets (up to rotation and reflection), each in a canonical placement."""
    out = []
    for shape in free_hexominoes():
        try:
            fold_frames(shape)
        except NotACubeNet:
            continue
        out.append(shape)
    return out


# -- cube operations ---------------------------------------------------------------------------------------


def rotate_cube(cube: Cube, m: Matrix) -> Cube:
    # Normals and ups are unit axis vectors, so a rotation's action on the six of them is a table; the
    # distractor checks turn cubes tens of thousands of times per instance (docs/tasks/README.md).
    act = _axis_action(m)
    return {act[n]: Face(f.glyph, f.color, act[f.up]) for n, f in cube.items()}


_AXES: tuple[Vec, ...] = ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))


@cache
def _axis_action(m: Matrix) -> dict[Vec, Vec]:
    return {v: apply(m, v) for v in _AXES}


def mirror_cube(cube: Cube) -> Cube:
    """Reflect the arrangement of the faces (the glyph shapes themselves stay as drawn)."""
    return rotate_cube(cube, MIRROR_X)


def turn_face(cube: Cube, normal: Vec, quarter_turns: int) -> Cube:
    """Turn the glyph on one face by quarter turns counter-clockwise as seen from outside."""
    out = dict(cube)
    f = cube[normal]
    up = f.up
    for _ in range(quarter_turns % 4):
        up = cross(normal, up)
    out[normal] = Face(f.glyph, f.color, up)
    return out


def swap_marks(cube: Cube, a: Vec, b: Vec) -> Cube:
    out = dict(cube)
    out[a] = Face(cube[b].glyph, cube[b].color, cube[a].up)
    out[b] = Face(cube[a].glyph, cube[a].color, cube[b].up)
    return out


def view_of(cube: Cube) -> dict[str, Face]:
    return {name: cube[n] for name, n in VIEW_NORMALS.items()}


def view_matches(cube: Cube, view: dict[str, Face]) -> Matrix | None:
    """A rotation that turns the cube so that it shows exactly this view, or None."""
    for m in ROTATIONS:
        turned = rotate_cube(cube, m)
        if all(turned[VIEW_NORMALS[k]] == f for k, f in view.items()):
            return m
    return None


def best_alignment(a: Cube, b: Cube) -> tuple[int, Matrix]:
    """The most faces (mark and orientation) that `a`, turned, shares with `b`, and the first rotation that
    achieves it; either may hold only some faces (a view is three faces of a cube)."""
    best, best_m = -1, ROTATIONS[0]
    for m in ROTATIONS:
        turned = rotate_cube(a, m)
        same = sum(1 for n, f in turned.items() if b.get(n) == f)
        if same > best:
            best, best_m = same, m
    return best, best_m


def view_faces(view: dict[str, Face]) -> Cube:
    """A view as the three faces of a cube it shows, keyed by their normals in the view frame."""
    return {VIEW_NORMALS[k]: f for k, f in view.items()}


def transpose(m: Matrix) -> Matrix:
    """The inverse of a rotation."""
    return tuple(tuple(m[j][i] for j in range(3)) for i in range(3))  # type: ignore[return-value]


def cubes_equivalent(a: Cube, b: Cube) -> bool:
    return any(rotate_cube(a, m) == b for m in ROTATIONS)


def views_equivalent(a: dict[str, Face], b: dict[str, Face]) -> bool:
    ca = {VIEW_NORMALS[k]: f for k, f in a.items()}
    cb = {VIEW_NORMALS[k]: f for k, f in b.items()}
    return any(rotate_cube(ca, m) == cb for m in DIAGONAL_TURNS)


def net_to_cube(net: list[dict]) -> Cube:
    """Fold a net (cells with col, row, glyph, color, rot) into a cube state."""
    frames = fold_frames([(c["col"], c["row"]) for c in net])
    return {
        frames[(c["col"], c["row"])].n: Face(c["glyph"], c["color"], frames[(c["col"], c["row"])].up_for_rot(c["rot"]))
        for c in net
    }


def unfold(cube: Cube, shape: tuple[Cell, ...], m: Matrix) -> list[dict]:
    """Cut the cube (first turned by m) along the net `shape`; the inverse of net_to_cube."""
    turned = rotate_cube(cube, m)
    frames = fold_frames(shape)
    net = []
    for cell in shape:
        fr = frames[cell]
        face = turned[fr.n]
        net.append(
            {"col": cell[0], "row": cell[1], "glyph": face.glyph, "color": face.color, "rot": fr.rot_for_up(face.up)}
        )
    return net


def face_to_json(f: Face) -> dict:
    return {"glyph": f.glyph, "color": f.color, "up": list(f.up)}


def face_from_json(d: dict) -> Face:
    return Face(d["glyph"], d["color"], tuple(d["up"]))  # type: ignore[arg-type]


def view_from_json(d: dict) -> dict[str, Face]:
    return {k: face_from_json(v) for k, v in d.items()}


def view_to_json(v: dict[str, Face]) -> dict:
    return {k: face_to_json(f) for k, f in v.items()}
