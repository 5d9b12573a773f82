"""The robot tasks' pictures, drawn with vcot's own layer (`vcot.draw`): the table seen from above, its cells
labelled (columns a.. left to right, rows 1.. from the robot), each block a square of its colour with its
colour's initial, a stacked block drawn shifted up over the block below so that every block of a stack shows,
and the Franka Panda's links as Bullet's kinematics place them, projected onto the table.

The engine's own renderer (ER_TINY_RENDERER) draws the same scene in perspective, but at the suite's picture
size its blocks are a few pixels wide and stacks hide the blocks below; this flat view reads better.
"""

from __future__ import annotations

from functools import lru_cache

from PIL import Image

from vcot.draw import Canvas
from vcot.draw.canvas import hstack
from vcot.draw.marks import contrast_colour
from vcot.tasks.robot._sim import arm_points
from vcot.tasks.robot._world import CELL, CUBE, ROW0_X, Blocks, cell_xy

SCALE = 800.0  # pixels per metre over the table
NEAR = 0.4  # the stretch between the arm's base and the table is drawn at this share of SCALE
TOP = 50  # title and column letters
SIDE = 40  # row numbers
BLOCK = 30  # pixels: a block's square (drawn smaller than to scale, so that a stack fits in its cell)
LIFT = 12  # pixels a block is drawn above the one it stands on
REST = (0.15, 0.0, 0.3)  # where the arm waits, clear of the table's cells


def _geometry(size: tuple[int, int]) -> tuple[int, int, float, float]:
    """Width, height, the picture x of the table's centre line and the picture y of the table's near edge."""
    cols, rows = size
    width = int(max(340, cols * CELL * SCALE + 2 * SIDE))
    near_y = TOP + rows * CELL * SCALE + 8
    height = int(near_y + (ROW0_X - CELL / 2) * SCALE * NEAR + 24)
    return width, height, width / 2, near_y


def to_px(x: float, y: float, size: tuple[int, int]) -> tuple[float, float]:
    """Picture pixel of a world point on the table (the picture's up is away from the robot); the stretch
    nearer the robot than the table is drawn compressed."""
    _, _, cx, near_y = _geometry(size)
    edge = ROW0_X - CELL / 2
    py = near_y - 8 - (x - edge) * SCALE if x >= edge else near_y - 8 + (edge - x) * SCALE * NEAR
    return cx - y * SCALE, py


def block_px(state: Blocks, name: str, size: tuple[int, int]) -> tuple[float, float]:
    """Centre of a block's square as drawn: its stack centred in its cell, each level LIFT higher."""
    c, r, lv = state[name]
    height = 1 + max(v[2] for v in state.values() if v[:2] == (c, r))
    x, y = to_px(*cell_xy(c, r, size), size)
    return x, y + ((height - 1) / 2 - lv) * LIFT


@lru_cache(maxsize=512)
def _arm(target: tuple[float, float, float] | None) -> tuple[tuple[float, float, float], ...]:
    return tuple(arm_points(target))


def draw_table(
    state: Blocks,
    size: tuple[int, int],
    title: str,
    reach: str | None = None,
    marked: tuple[str, ...] = (),
    was: dict[str, tuple[float, float]] | None = None,
) -> Image.Image:
    """One view: `reach` names a block the arm's fingertips are over (else it waits at REST); `marked` blocks get
    a thick ring; `was` maps a block to the picture point it moved from (a dashed outline and an arrow)."""
    width, height, _, _ = _geometry(size)
    cv = Canvas(width, height)
    cv.text((width / 2, 6), title, size=17, bold=True, anchor="mt")
    cols, rows = size
    half = CELL * SCALE / 2
    x0, y0 = to_px(*cell_xy(0, rows - 1, size), size)
    x1, y1 = to_px(*cell_xy(cols - 1, 0, size), size)
    cv.rect((x0 - half - 6, y0 - half - 6, x1 + half + 6, y1 + half + 6), fill="lightyellow", outline="darkgray")
    for c in range(cols):
        for r in range(rows):
            px, py = to_px(*cell_xy(c, r, size), size)
            cv.rect((px - half, py - half, px + half, py + half), outline="gray", width=1)
    for c in range(cols):
        px, _ = to_px(*cell_xy(c, 0, size), size)
        cv.text((px, y0 - half - 10), "abcdefgh"[c], size=15, bold=True, anchor="mb")
    for r in range(rows):
        _, py = to_px(*cell_xy(0, r, size), size)
        cv.text((x0 - half - 10, py), str(r + 1), size=15, bold=True, anchor="rm")
    if reach is None:
        target = REST
    else:
        c, r, lv = state[reach]
        target = (*cell_xy(c, r, size), CUBE * (lv + 1) + 0.1)
    pts = [to_px(x, y, size) for x, y, _ in _arm(target)]
    # The arm is drawn under the blocks, see-through, so that it never hides one; its fingers on top.
    cv.line(pts, "darkgray", width=9, opacity=140)
    cv.circle(pts[0], 18, fill="darkgray", outline="black")
    cv.text(pts[0], "robot", size=11, color="white", anchor="mm")
    b = BLOCK / 2
    for fx, fy in (was or {}).values():
        cv.rect((fx - b, fy - b, fx + b, fy + b), outline="black", width=1)
        cv.line(
            [(fx - b, fy - b), (fx + b, fy - b), (fx + b, fy + b), (fx - b, fy + b), (fx - b, fy - b)],
            "white",
            1,
            dash=(3, 3),
        )
    for name in sorted(state, key=lambda n: (state[n][2], n)):
        px, py = block_px(state, name, size)
        cv.rect((px - b, py - b, px + b, py + b), fill=name, outline="black", width=2)
        covered = any(v == (state[name][0], state[name][1], state[name][2] + 1) for v in state.values())
        if covered:  # only its lower strip shows: a small initial there
            cv.text((px, py + b - 6), name[0].upper(), size=9, bold=True, anchor="mm", color=contrast_colour(name))
        else:
            cv.text((px, py), name[0].upper(), size=16, bold=True, anchor="mm", color=contrast_colour(name))
    for name in marked:
        px, py = block_px(state, name, size)
        cv.rect((px - b - 5, py - b - 5, px + b + 5, py + b + 5), outline="black", width=4)
    for name, (fx, fy) in (was or {}).items():
        tx, ty = block_px(state, name, size)
        if (fx, fy) != (tx, ty):
            cv.arrow((fx, fy), _towards((fx, fy), (tx, ty), b + 6), "black", width=3)
    if reach is not None:
        px, py = block_px(state, reach, size)
        for side in (-1, 1):
            cv.line([(px + side * (b + 10), py - 8), (px + side * (b + 10), py + 8)], "darkgray", 5)
    return cv.image()


def _towards(a: tuple[float, float], b: tuple[float, float], stop: float) -> tuple[float, float]:
    """The point `stop` pixels before b on the way from a (an arrow ending at a marked block's ring)."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    d = max((dx * dx + dy * dy) ** 0.5, 1e-9)
    k = max(d - stop, d * 0.5) / d
    return a[0] + dx * k, a[1] + dy * k


def panels(left: Image.Image, right: Image.Image) -> Image.Image:
    return hstack([left, right], gap=16)
