"""Unit-cube structures shared by the cube tasks (cubes_count, cubes_missing, trailer_cubes_*): height maps,
orthographic views, the camera and the pictures.

World coordinates: x to the right, y away from the viewer (row 0 is the front row), z up; cube (x, y, z)
occupies [x, x+1] x [y, y+1] x [z, z+1]. A structure is a height map `heights[y][x]` of grounded columns
(every column filled from the floor up), stored row by row from the front row to the back row.

The pictures are orthographic axonometric projections (isometric for azimuth 45 deg / elevation 35.26 deg)
seen from the front-right and above, drawn with the painter's algorithm. Because the camera looks from the
(+x, -y, +z) octant, a cube can only be hidden by cubes whose cells dominate it (x' >= x, y' <= y, z' >= z),
so drawing in increasing x - y + z is a valid back-to-front order, and the same dominance cone limits the
occluders considered by the visibility checks.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import shapely
from PIL import Image
from shapely.geometry import MultiPoint, Polygon

from vcot.draw.canvas import Canvas
from vcot.tasks.answer_space import AnswerSpace, integers
from vcot.tasks.base import GenContext

Heights = list[list[int]]
Vec3 = tuple[float, float, float]
Point = tuple[float, float]

# Shades per palette: top (lit), front (half shade), right (shade).
SHADES: dict[str, tuple[tuple[int, int, int], tuple[int, int, int], tuple[int, int, int]]] = {
    "blue": ((176, 204, 242), (98, 146, 214), (58, 100, 168)),
    "orange": ((252, 214, 160), (236, 158, 70), (186, 112, 36)),
    "green": ((186, 228, 176), (104, 180, 104), (56, 126, 66)),
    "purple": ((214, 192, 236), (160, 122, 204), (112, 78, 160)),
}
GHOST = ((255, 255, 255), 150)  # colour and fill opacity of the cubes that complete a box
GHOST_EDGE = (215, 30, 30)
EDGE = (35, 35, 35)
FLOOR_FILL = (222, 222, 222)
FLOOR_LINE = (150, 150, 150)


# -- height maps ------------------------------------------------------------------------------------


def dims(heights: Heights) -> tuple[int, int]:
    """(width, depth) of a height map."""
    return len(heights[0]), len(heights)


def total(heights: Heights) -> int:
    return sum(sum(row) for row in heights)


def max_height(heights: Heights) -> int:
    return max(max(row) for row in heights)


def trim(heights: Heights) -> Heights:
    """Drop empty front/back rows and left/right columns so the map is the structure's footprint."""
    rows = [y for y, row in enumerate(heights) if any(row)]
    cols = [x for x in range(len(heights[0])) if any(row[x] for row in heights)]
    if not rows:
        return [[0]]
    return [[heights[y][x] for x in range(cols[0], cols[-1] + 1)] for y in range(rows[0], rows[-1] + 1)]


def connected(heights: Heights) -> bool:
    """True when the non-empty columns form one edge-connected piece."""
    cells = {(x, y) for y, row in enumerate(heights) for x, h in enumerate(row) if h}
    if not cells:
        return False
    seen, todo = set(), [next(iter(cells))]
    while todo:
        x, y = todo.pop()
        if (x, y) in seen:
            continue
        seen.add((x, y))
        todo += [c for c in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)) if c in cells]
    return seen == cells


def cubes_of(heights: Heights) -> list[tuple[int, int, int]]:
    return [(x, y, z) for y, row in enumerate(heights) for x, h in enumerate(row) for z in range(h)]


def describe_rows(values: Heights, what: str = "heights") -> str:
    """'back row: 3, 2, 1; ...; front row: 1, 0, 0' — the order of the top-down grid pictures."""
    d = len(values)
    parts = []
    for k, row in enumerate(reversed(values)):
        y = d - 1 - k
        label = "back row" if y == d - 1 else "front row" if y == 0 else f"row {y + 1} from the front"
        if d == 1:
            label = "the only row"
        parts.append(f"{label}: {', '.join(str(v) for v in row)}")
    return f"{what} (columns left to right) — " + "; ".join(parts)


# -- orthographic views (trailer tasks) -------------------------------------------------------------


def views_of(heights: Heights) -> tuple[list[list[int]], list[int], list[int]]:
    """(top, front, side): top[y][x] is 1 when the column holds a cube; front[x] = max over depth;
    side[y] = max over width (listed front to back)."""
    top = [[1 if h > 0 else 0 for h in row] for row in heights]
    w, d = dims(heights)
    front = [max(heights[y][x] for y in range(d)) for x in range(w)]
    side = [max(row) for row in heights]
    return top, front, side


def max_solid(top: list[list[int]], front: Sequence[int], side: Sequence[int]) -> Heights:
    """The largest grounded structure compatible with the views: min(front[x], side[y]) on top cells."""
    return [[min(front[x], side[y]) if top[y][x] else 0 for x in range(len(front))] for y in range(len(side))]


def views_consistent(top: list[list[int]], front: Sequence[int], side: Sequence[int]) -> bool:
    """True when the maximal solid reproduces all three views exactly (otherwise no structure does)."""
    if len(top) != len(side) or any(len(r) != len(front) for r in top):
        return False
    return views_of(max_solid(top, front, side)) == (top, list(front), list(side))


# -- projection -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Camera:
    """Orthographic camera looking from the front-right and above.

    azimuth: degrees from the front direction (-y) towards +x, in (0, 90); elevation: degrees above the
    horizon, in (0, 90). Screen coordinates are in cube units with y pointing down.
    """

    azimuth: float
    elevation: float

    def __post_init__(self) -> None:
        if not (0 < self.azimuth < 90 and 0 < self.elevation < 90):
            raise ValueError("camera must look from the front-right octant above the floor")

    @property
    def _axes(self) -> tuple[Vec3, Vec3]:
        a, e = math.radians(self.azimuth), math.radians(self.elevation)
        right = (math.cos(a), math.sin(a), 0.0)
        up = (-math.sin(e) * math.sin(a), math.sin(e) * math.cos(a), math.cos(e))
        return right, up

    def project(self, p: Vec3) -> Point:
        (rx, ry, rz), (ux, uy, uz) = self._axes
        x, y, z = p
        return (x * rx + y * ry + z * rz, -(x * ux + y * uy + z * uz))

    def project_all(self, pts: Sequence[Vec3]) -> list[Point]:
        return [self.project(p) for p in pts]


def face_quads(x: int, y: int, z: int) -> dict[str, list[Vec3]]:
    """The three faces of cube (x, y, z) that can face the camera."""
    return {
        "top": [(x, y, z + 1), (x + 1, y, z + 1), (x + 1, y + 1, z + 1), (x, y + 1, z + 1)],
        "front": [(x, y, z), (x + 1, y, z), (x + 1, y, z + 1), (x, y, z + 1)],
        "right": [(x + 1, y, z), (x + 1, y + 1, z), (x + 1, y + 1, z + 1), (x + 1, y, z + 1)],
    }


def _box_hull(cam: Camera, x: int, y: int, z0: int, z1: int) -> Polygon:
    corners = [(x + i, y + j, z) for i in (0, 1) for j in (0, 1) for z in (z0, z1)]
    return MultiPoint(cam.project_all(corners)).convex_hull


def _visible_part(cam: Camera, heights: Heights, x: int, y: int, level: int) -> tuple[Polygon, Polygon]:
    """(square at height `level` over cell (x, y), its part not covered by other columns' cubes above
    `level`) in screen units. Only columns in the camera's dominance cone can cover it."""
    w, d = dims(heights)
    square = Polygon(cam.project_all([(x, y, level), (x + 1, y, level), (x + 1, y + 1, level), (x, y + 1, level)]))
    blockers = []
    for yy in range(0, y + 1):
        for xx in range(x, w):
            hh = heights[yy][xx]
            if (xx, yy) != (x, y) and hh > level:
                blockers.append(_box_hull(cam, xx, yy, level, hh))
    if not blockers:
        return square, square
    return square, square.difference(shapely.union_all(blockers))


def visibility(heights: Heights, cam: Camera) -> dict[tuple[int, int], float]:
    """Visible fraction of each cell's key square: the top face of a non-empty column, the floor square
    of an empty cell (a hidden floor square could conceal a whole column)."""
    out = {}
    for y, row in enumerate(heights):
        for x, h in enumerate(row):
            square, part = _visible_part(cam, heights, x, y, h)
            out[(x, y)] = part.area / square.area
    return out


def visibility_problems(heights: Heights, cam: Camera, min_visible: float) -> list[str]:
    """Reasons the picture could leave a cube's existence in doubt (empty list = the picture is fine)."""
    problems = []
    for (x, y), frac in sorted(visibility(heights, cam).items()):
        if frac < min_visible - 1e-9:
            what = "top of column" if heights[y][x] else "floor of empty cell"
            problems.append(f"{what} ({x}, {y}) only {frac:.0%} visible")
    return problems


def label_points(heights: Heights, cam: Camera) -> dict[tuple[int, int], Point]:
    """A point inside the visible part of every column's top (screen units), for writing numbers."""
    out = {}
    for y, row in enumerate(heights):
        for x, h in enumerate(row):
            if h:
                _, part = _visible_part(cam, heights, x, y, h)
                if not part.is_empty:
                    p = part.centroid if part.contains(part.centroid) else part.representative_point()
                    out[(x, y)] = (p.x, p.y)
    return out


# -- isometric drawing ------------------------------------------------------------------------------


@dataclass
class _Frame:
    scale: float
    ox: float
    oy: float

    def map(self, p: Point) -> Point:
        return (self.ox + p[0] * self.scale, self.oy + p[1] * self.scale)


def _fit(cam: Camera, w: int, d: int, h: int, width: int, height: int, margin: float, max_scale: float) -> _Frame:
    corners = [(x, y, z) for x in (0, w) for y in (0, d) for z in (0, max(h, 1))]
    pts = cam.project_all(corners)
    x0, x1 = min(p[0] for p in pts), max(p[0] for p in pts)
    y0, y1 = min(p[1] for p in pts), max(p[1] for p in pts)
    scale = min((width - 2 * margin) / (x1 - x0), (height - 2 * margin) / (y1 - y0), max_scale)
    ox = (width - (x1 - x0) * scale) / 2 - x0 * scale
    oy = (height - (y1 - y0) * scale) / 2 - y0 * scale
    return _Frame(scale, ox, oy)


def _occupied(heights: Heights, x: int, y: int, z: int) -> bool:
    w, d = dims(heights)
    return 0 <= x < w and 0 <= y < d and 0 <= z < heights[y][x]


def render_iso(
    heights: Heights,
    cam: Camera,
    width: int = 768,
    height: int = 576,
    palette: str = "blue",
    box_height: int | None = None,
    numbers: dict[tuple[int, int], int] | None = None,
    title: str | None = None,
    max_scale: float = 110.0,
) -> Image.Image:
    """Painter's-algorithm drawing of the structure on its floor grid.

    box_height: when given, ghost cubes (translucent, dashed edges) fill the W x D x box_height block.
    numbers: per-cell numbers written on the visible part of the column tops.
    """
    w, d = dims(heights)
    top_h = max(max_height(heights), box_height or 0)
    canvas = Canvas(width, height)
    margin = 40.0 if title else 24.0
    frame = _fit(cam, w, d, top_h, width, height - (30 if title else 0), margin, max_scale)
    if title:
        frame.oy += 30
        canvas.text((width / 2, 10), title, size=20, anchor="mt", bold=True)
    for y in range(d):
        for x in range(w):
            quad = [(x, y, 0), (x + 1, y, 0), (x + 1, y + 1, 0), (x, y + 1, 0)]
            canvas.polygon(
                [frame.map(p) for p in cam.project_all(quad)], fill=FLOOR_FILL, outline=FLOOR_LINE, width=1.5
            )
    full = [[box_height or 0] * w for _ in range(d)]
    items: list[tuple[int, int, int, bool]] = [(x, y, z, False) for x, y, z in cubes_of(heights)]
    if box_height:
        items += [(x, y, z, True) for y in range(d) for x in range(w) for z in range(heights[y][x], box_height)]
    items.sort(key=lambda c: (c[0] - c[1] + c[2], c[2], -c[1], c[0], c[3]))
    shades = SHADES[palette]
    neighbour = {"top": (0, 0, 1), "front": (0, -1, 0), "right": (1, 0, 0)}
    for x, y, z, ghost in items:
        occ = full if ghost else heights
        for k, (face, quad) in enumerate(face_quads(x, y, z).items()):
            dx, dy, dz = neighbour[face]
            if _occupied(occ, x + dx, y + dy, z + dz):
                continue
            pts = [frame.map(p) for p in cam.project_all(quad)]
            if ghost:
                canvas.polygon(pts, fill=GHOST[0], outline=None, fill_opacity=GHOST[1])
                canvas.line(pts + [pts[0]], color=GHOST_EDGE, width=2.0, dash=(6, 4))
            else:
                canvas.polygon(pts, fill=shades[k], outline=EDGE, width=2.0)
    if numbers:
        size = int(max(16, min(26, frame.scale * 0.3)))
        for (x, y), p in label_points(heights, cam).items():
            if (x, y) in numbers:
                canvas.text(
                    frame.map(p), str(numbers[(x, y)]), size=size, anchor="mm", bold=True, background="white", padding=2
                )
    return canvas.image()


# -- flat grid pictures -----------------------------------------------------------------------------

# Pip styles of `render_height_grid`: fill and outline of the pips drawn for a count of cubes, of ghost cubes
# (pale, edged in the ghost cubes' red) and of the front- and side-view notes (in their note colours).
PIP_STYLES: dict[str, tuple[tuple[int, int, int], tuple[int, int, int]]] = {
    "cubes": ((40, 70, 140), (40, 70, 140)),
    "ghosts": ((255, 232, 232), GHOST_EDGE),
    "front": ((30, 60, 220), (30, 60, 220)),
    "side": ((215, 30, 30), (215, 30, 30)),
}
# Dice layouts on a 3 x 3 lattice (column, row) for 1..9 pips.
_DICE = {
    1: ((1, 1),),
    2: ((0, 0), (2, 2)),
    3: ((0, 0), (1, 1), (2, 2)),
    4: ((0, 0), (2, 0), (0, 2), (2, 2)),
    5: ((0, 0), (2, 0), (1, 1), (0, 2), (2, 2)),
    6: ((0, 0), (0, 1), (0, 2), (2, 0), (2, 1), (2, 2)),
    7: ((0, 0), (0, 1), (0, 2), (1, 1), (2, 0), (2, 1), (2, 2)),
    8: ((0, 0), (0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1), (2, 2)),
    9: tuple((c, r) for r in range(3) for c in range(3)),
}


def draw_pips(canvas: Canvas, center: Point, n: int, size: float, style: str, framed: bool = False) -> None:
    """n pips laid out like a die face (a square lattice beyond 9) in a size x size box around center: a
    count shown, not written. `framed` draws the box as a die, so that neighbouring counts stay apart."""
    fill, edge = PIP_STYLES[style]
    x0, y0 = center[0] - size / 2, center[1] - size / 2
    if framed:
        canvas.rect((x0, y0, x0 + size, y0 + size), fill="white", outline=edge, width=1.5)
    if n <= 0:
        return
    if n in _DICE:
        side, spots = 3, _DICE[n]
    else:
        side = math.ceil(math.sqrt(n))
        spots = tuple((k % side, k // side) for k in range(n))
    step = size / side
    radius = min(step * 0.34, 7.0)
    for c, r in spots:
        canvas.circle((x0 + (c + 0.5) * step, y0 + (r + 0.5) * step), radius, fill=fill, outline=edge, width=2.5)


def render_height_grid(
    values: Heights,
    title: str,
    cell: int = 56,
    col_notes: Sequence[int] | None = None,
    row_notes: Sequence[int] | None = None,
    legend: str | None = None,
    pips: str | None = None,
) -> Image.Image:
    """Top-down grid (back row at the top, 'FRONT' under the bottom edge) with a number in each non-zero
    cell.

    col_notes / row_notes: extra numbers under each column (blue) / right of each row (red, listed front to
    back), e.g. the front- and side-view heights; `legend` explains them under the grid.
    pips: draw every number as that many pips instead of digits, in this `PIP_STYLES` style for the cells
    (the notes in the front / side styles) — for pictures whose numbers are as small as the answer, where a
    digit could write the answer (a lone column holding every cube to add) instead of showing it.
    """
    w, d = dims(values)
    probe = Canvas(8, 8)
    note = 44 if pips else 34
    grid_w = w * cell + (60 if row_notes is not None else 0)
    texts = [probe.text_size(title, 18, True)[0]] + ([probe.text_size(legend, 16)[0]] if legend else [])
    width = int(max(grid_w, *texts) + 40)
    left, top = (width - grid_w) / 2, 44
    height = top + d * cell + 50 + (note if col_notes is not None else 0) + (28 if legend else 0)
    canvas = Canvas(width, height)
    canvas.text((width / 2, 8), title, size=18, anchor="mt", bold=True)
    for y in range(d):
        for x in range(w):
            x0, y0 = left + x * cell, top + (d - 1 - y) * cell
            v = values[y][x]
            fill = (236, 236, 236) if v == 0 else (205, 222, 246)
            canvas.rect((x0, y0, x0 + cell, y0 + cell), fill=fill, outline=(60, 60, 60), width=2)
            if v and pips:
                draw_pips(canvas, (x0 + cell / 2, y0 + cell / 2), v, cell * 0.78, pips)
            elif v:
                canvas.text((x0 + cell / 2, y0 + cell / 2), str(v), size=22, anchor="mm", bold=True)
    y_base = top + d * cell
    if col_notes is not None:
        for x, v in enumerate(col_notes):
            at = (left + x * cell + cell / 2, y_base + note / 2)
            if pips:
                draw_pips(canvas, at, v, note * 0.8, "front", framed=True)
            else:
                canvas.text(at, str(v), size=18, anchor="mm", color="blue", bold=True)
        y_base += note
    if row_notes is not None:
        for y, v in enumerate(row_notes):
            at = (left + w * cell + 30, top + (d - 1 - y) * cell + cell / 2)
            if pips:
                draw_pips(canvas, at, v, note * 0.8, "side", framed=True)
            else:
                canvas.text(at, str(v), size=18, anchor="mm", color="red", bold=True)
    canvas.text((left + w * cell / 2, y_base + 10), "FRONT", size=16, anchor="mt", bold=True)
    if legend:
        canvas.text((width / 2, y_base + 38), legend, size=16, anchor="mt")
    return canvas.image()


def _square_grid(
    canvas: Canvas, x0: float, y0: float, cols: int, rows: int, cell: float, filled: Sequence[Sequence[bool]]
) -> None:
    """rows x cols squares with the top-left corner at (x0, y0); filled[r][c] with r counted from the top."""
    for r in range(rows):
        for c in range(cols):
            box = (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell)
            if filled[r][c]:
                canvas.rect(box, fill=(98, 146, 214), outline=(30, 30, 30), width=2)
            else:
                canvas.rect(box, fill=(246, 246, 246), outline=(190, 190, 190), width=1)


def render_views(
    top: list[list[int]], front: Sequence[int], side: Sequence[int], side_name: str = "right", max_size: int = 768
) -> Image.Image:
    """Third-angle layout: top view above the front view, side view beside it (right of the front view
    for the right side, left of it for the left side). Filled squares are the silhouettes."""
    w, d, h = len(front), len(side), max(max(front), max(side))
    cell = float(min(72, (max_size - 140) / (w + d), (max_size - 170) / (d + h)))
    gap, pad, title = 60.0, 30.0, 30.0
    width = int(pad * 2 + (w + d) * cell + gap)
    height = int(pad + title + d * cell + gap + title + h * cell + 44)
    canvas = Canvas(width, height)
    side_left = side_name == "left"
    fx = pad + (d * cell + gap if side_left else 0)
    sx = pad if side_left else pad + w * cell + gap
    ty = pad + title
    fy = ty + d * cell + gap + title
    # Top view: back row on top.
    _square_grid(canvas, fx, ty, w, d, cell, [[bool(top[d - 1 - r][c]) for c in range(w)] for r in range(d)])
    canvas.text((fx + w * cell / 2, ty - 8), "Top view", size=18, anchor="mb", bold=True)
    canvas.text((fx + w * cell / 2, ty + d * cell + 4), "front", size=16, anchor="mt")
    # Front view: columns left to right, ground at the bottom.
    _square_grid(canvas, fx, fy, w, h, cell, [[front[c] >= h - r for c in range(w)] for r in range(h)])
    canvas.text((fx + w * cell / 2, fy - 8), "Front view", size=18, anchor="mb", bold=True)
    # Side view: from the right the front of the structure is on the viewer's left, from the left on the right.
    order = list(range(d)) if not side_left else list(reversed(range(d)))
    _square_grid(canvas, sx, fy, d, h, cell, [[side[order[c]] >= h - r for c in range(d)] for r in range(h)])
    canvas.text((sx + d * cell / 2, fy - 8), f"{side_name.capitalize()} view", size=18, anchor="mb", bold=True)
    ground = fy + h * cell
    for xx in (fx, sx):
        length = (w if xx == fx else d) * cell
        canvas.line([(xx - 8, ground), (xx + length + 8, ground)], color=(30, 30, 30), width=3)
    lab_front, lab_back = (sx, sx + d * cell) if not side_left else (sx + d * cell, sx)
    canvas.text((lab_front, ground + 6), "front", size=16, anchor="mt")
    canvas.text((lab_back, ground + 6), "back", size=16, anchor="mt")
    return canvas.image()


# -- balanced answer bins ---------------------------------------------------------------------------


def bucket_bounds(lo: int, hi: int, buckets: int, k: int) -> tuple[int, int]:
    """Inclusive bounds of equal-width bin k of lo..hi."""
    span = hi - lo + 1
    return lo + span * k // buckets, lo + span * (k + 1) // buckets - 1


def balanced_bin(ctx: GenContext, lo: int, hi: int, buckets: int) -> tuple[int, int, float]:
    """The instance's answer bin, one of `buckets` equal bins of lo..hi chosen with ctx.balanced (so the bins
    are equally common over a suite), and a random level inside that bin as a fraction 0..1 of lo..hi (one
    draw from ctx.rng), to set the size of the structure to draw before it is nudged into the bin."""
    k = ctx.balanced(buckets, salt="answer-bin")
    bin_lo, bin_hi = bucket_bounds(lo, hi, buckets, k)
    return bin_lo, bin_hi, (k + ctx.rng.random()) / buckets


def balanced_answers(answer_min: int, answer_max: int, floor: int, cap: int, what: str) -> AnswerSpace:
    """The integers a cube task can answer: its balanced range answer_min..answer_max (scenes outside it are
    rejected), clipped to floor..cap, what the configured sizes allow at all (binding only for custom
    configurations; every preset's range lies inside)."""
    lo, hi = max(answer_min, floor), min(answer_max, cap)
    clipped = (lo, hi) != (answer_min, answer_max)
    return integers(
        lo, hi, f"{what} {lo} to {hi} (answer_min..answer_max{', clipped to the sizes' if clipped else ''})"
    )
