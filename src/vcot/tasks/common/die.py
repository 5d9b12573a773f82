"""A standard six-sided die on a grid board: orientation, rolls, and drawing.

Conventions (used by every rolling-dice task and stated in their questions):

- The board is seen from above with north at the top of the picture; rows grow southwards, columns eastwards.
- A die orientation is the number on each of its six faces: top, bottom, north, south, east, west.
- Standard die: opposite faces sum to 7.
- Handedness: Western ("right-handed") dice — with 1 on top and 2 facing south (towards the viewer), 3 faces
  east (to the viewer's right). Equivalently the faces 1, 2, 3 run counter-clockwise around their shared corner
  when that corner is seen from outside the die. `ORIENTATIONS` holds the 24 orientations of this die.
- Rolling `d` (north/south/east/west) tips the die over its bottom edge on side `d`: the old top ends up facing
  `d`, the face that faced `d` ends up at the bottom, the bottom faces the opposite side, and that side's old face
  comes to the top. The two faces perpendicular to the roll keep their places.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from vcot.draw.canvas import Canvas, Point

FACES = ("top", "bottom", "north", "south", "east", "west")
DIRECTIONS = ("north", "south", "east", "west")
OPPOSITE = {"top": "bottom", "bottom": "top", "north": "south", "south": "north", "east": "west", "west": "east"}
# Row/column change of one move on the board (row grows southwards).
STEP = {"north": (-1, 0), "south": (1, 0), "east": (0, 1), "west": (0, -1)}


@dataclass(frozen=True)
class Die:
    top: int
    bottom: int
    north: int
    south: int
    east: int
    west: int

    def face(self, name: str) -> int:
        return getattr(self, name)

    def as_dict(self) -> dict[str, int]:
        return {f: self.face(f) for f in FACES}

    def roll(self, direction: str) -> Die:
        """The die after tipping over one edge towards `direction` (see the module docstring)."""
        if direction not in DIRECTIONS:
            raise ValueError(f"unknown roll direction {direction!r}")
        back = OPPOSITE[direction]
        faces = self.as_dict()
        faces[direction], faces["bottom"], faces[back], faces["top"] = (
            self.top,
            self.face(direction),
            self.bottom,
            self.face(back),
        )
        return Die(**faces)

    def visible(self) -> dict[str, int]:
        """The three faces the oblique picture shows (top, south = front, east = right)."""
        return {"top": self.top, "south": self.south, "east": self.east}


REFERENCE = Die(top=1, bottom=6, north=5, south=2, east=3, west=4)


def _all_orientations() -> dict[tuple[int, int], Die]:
    """Every orientation reachable by rolling the reference die, keyed by (top, south); rolls generate all 24."""
    seen = {(REFERENCE.top, REFERENCE.south): REFERENCE}
    frontier = [REFERENCE]
    while frontier:
        nxt = []
        for die in frontier:
            for d in DIRECTIONS:
                r = die.roll(d)
                key = (r.top, r.south)
                if key not in seen:
                    seen[key] = r
                    nxt.append(r)
        frontier = nxt
    return seen


ORIENTATIONS: dict[tuple[int, int], Die] = _all_orientations()


def die_from(top: int, south: int) -> Die:
    """The standard right-handed die with the given top and south faces (they must be adjacent)."""
    try:
        return ORIENTATIONS[(top, south)]
    except KeyError:
        raise ValueError(f"no standard die has top {top} and south {south}") from None


def die_from_visible(faces: dict[str, int]) -> Die:
    """The die from its three visible faces; raises ValueError if they do not fit a standard right-handed die."""
    die = die_from(int(faces["top"]), int(faces["south"]))
    if die.east != int(faces["east"]):
        raise ValueError(f"faces {faces} do not fit a standard right-handed die")
    return die


def move_direction(a: tuple[int, int] | list[int], b: tuple[int, int] | list[int]) -> str:
    """Compass direction of the move between two 4-neighbouring cells (row, col)."""
    delta = (b[0] - a[0], b[1] - a[1])
    for d, step in STEP.items():
        if step == delta:
            return d
    raise ValueError(f"cells {a} and {b} are not 4-neighbours")


def roll_path(die: Die, path: list[list[int]]) -> list[Die]:
    """Die states along a path of cells: the start state and the state after each move."""
    states = [die]
    for a, b in zip(path[:-1], path[1:], strict=True):
        states.append(states[-1].roll(move_direction(a, b)))
    return states


# -- drawing --------------------------------------------------------------------------------------------

# Pip centres on a unit face (u right, v down), for a face drawn in its canonical upright orientation.
PIPS: dict[int, list[tuple[float, float]]] = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.25), (0.75, 0.75)],
    3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
    4: [(0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
    6: [(0.25, 0.22), (0.25, 0.5), (0.25, 0.78), (0.75, 0.22), (0.75, 0.5), (0.75, 0.78)],
}


def draw_face(
    canvas: Canvas,
    origin: Point,
    u: Point,
    v: Point,
    value: int,
    fill: str = "white",
    pip_color: str = "black",
    outline_width: float = 2.0,
) -> None:
    """A face as the parallelogram origin + s*u + t*v (0 <= s, t <= 1) with `value` pips mapped onto it."""
    ox, oy = origin

    def at(s: float, t: float) -> Point:
        return (ox + s * u[0] + t * v[0], oy + s * u[1] + t * v[1])

    canvas.polygon([at(0, 0), at(1, 0), at(1, 1), at(0, 1)], fill=fill, outline="black", width=outline_width)
    r = 0.095
    for s, t in PIPS[value]:
        pts = [at(s + r * math.cos(2 * math.pi * k / 20), t + r * math.sin(2 * math.pi * k / 20)) for k in range(20)]
        canvas.polygon(pts, fill=pip_color, outline=None)


def draw_cube(
    canvas: Canvas,
    front_top_left: Point,
    size: float,
    die: Die,
    depth: float = 0.55,
    fill: str = "white",
    label_faces: bool = True,
) -> None:
    """Oblique (cabinet) view from above, south and east: the south face square-on, the top and east faces
    receding up-right at 45 degrees with depth `depth` * size."""
    x, y = front_top_left
    dx = dy = size * depth / math.sqrt(2)
    draw_face(canvas, (x, y), (size, 0), (0, size), die.south, fill)  # south face, upright
    draw_face(canvas, (x + dx, y - dy), (size, 0), (-dx, dy), die.top, fill)  # top: far edge first, v to viewer
    draw_face(canvas, (x + size, y), (dx, -dy), (0, size), die.east, fill)  # east face
    if label_faces:
        canvas.text((x + size / 2, y + size + 8), "south", size=16, anchor="mt", color="darkgray")
        canvas.text((x + size + dx + 8, y - dy + size / 2 + dy / 2), "east", size=16, anchor="lm", color="darkgray")
        canvas.text((x + size / 2 + dx / 2, y - dy - 8), "top", size=16, anchor="mb", color="darkgray")


def draw_top_face(
    canvas: Canvas, center: Point, size: float, value: int, fill: str = "white", outline_width: float = 2.0
) -> None:
    """The die's top face seen from above, as a square of side `size` centred on `center`."""
    cx, cy = center
    h = size / 2
    draw_face(canvas, (cx - h, cy - h), (size, 0), (0, size), value, fill, outline_width=outline_width)
