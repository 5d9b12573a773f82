"""Shared model and pictures for the unit-cube tasks (cubes_count, cubes_missing, trailer_cubes_*).

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


def box_missing(heights: Heights, box_height: int | None = None) -> int:
    """Cubes needed to fill the W x D x box_height block (default: the tallest column)."""
    w, d = dims(heights)
    h = max_height(heights) if box_height is None else box_height
    return w * d * h - total(heights)


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


def rows_back_to_front(heights: Heights) -> list[list[int]]:
    """Rows as they appear in a top-down view (back row first)."""
    return [list(r) for r in reversed(heights)]


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
    square = Polygon(cam.project_all([(x, y, level), (x + 1, y, level), (x + 1, y + 1, level),
                                      (x, y + 1, level)]))
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


def _fit(cam: Camera, w: int, d: int, h: int, width: int, height: int, margin: float,
         max_scale: float) -> _Frame:
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


def render_iso(heights: Heights, cam: Camera, width: int = 768, height: int = 576, palette: str = "blue",
               box_height: int | None = None, numbers: dict[tuple[int, int], int] | None = None,
               title: str | None = None, max_scale: float = 110.0) -> Image.Image:
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
            canvas.polygon([frame.map(p) for p in cam.project_all(quad)], fill=FLOOR_FILL, outline=FLOOR_LINE,
                           width=1.5)
    full = [[box_height or 0] * w for _ in range(d)]
    items: list[tuple[int, int, int, bool]] = [(x, y, z, False) for x, y, z in cubes_of(heights)]
    if box_height:
        items += [(x, y, z, True) for y in range(d) for x in range(w)
                  for z in range(heights[y][x], box_height)]
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
                canvas.text(frame.map(p), str(numbers[(x, y)]), size=size, anchor="mm", bold=True,
                            background="white", padding=2)
    return canvas.image()


# -- flat grid pictures -----------------------------------------------------------------------------

def render_height_grid(values: Heights, title: str, cell: int = 56,
                       col_notes: Sequence[int] | None = None, row_notes: Sequence[int] | None = None,
                       legend: str | None = None) -> Image.Image:
    """Top-down grid (back row at the top, 'FRONT' under the bottom edge) with a number in each non-zero
    cell.

    col_notes / row_notes: extra numbers under each column (blue) / right of each row (red, listed front to
    back), e.g. the front- and side-view heights; `legend` explains them under the grid.
    """
    w, d = dims(values)
    probe = Canvas(8, 8)
    grid_w = w * cell + (60 if row_notes is not None else 0)
    texts = [probe.text_size(title, 18, True)[0]] + ([probe.text_size(legend, 16)[0]] if legend else [])
    width = int(max(grid_w, *texts) + 40)
    left, top = (width - grid_w) / 2, 44
    height = top + d * cell + 50 + (34 if col_notes is not None else 0) + (28 if legend else 0)
    canvas = Canvas(width, height)
    canvas.text((width / 2, 8), title, size=18, anchor="mt", bold=True)
    for y in range(d):
        for x in range(w):
            x0, y0 = left + x * cell, top + (d - 1 - y) * cell
            v = values[y][x]
            fill = (236, 236, 236) if v == 0 else (205, 222, 246)
            canvas.rect((x0, y0, x0 + cell, y0 + cell), fill=fill, outline=(60, 60, 60), width=2)
            if v:
                canvas.text((x0 + cell / 2, y0 + cell / 2), str(v), size=22, anchor="mm", bold=True)
    y_base = top + d * cell
    if col_notes is not None:
        for x, v in enumerate(col_notes):
            canvas.text((left + x * cell + cell / 2, y_base + 17), str(v), size=18, anchor="mm", color="blue",
                        bold=True)
        y_base += 34
    if row_notes is not None:
        for y, v in enumerate(row_notes):
            canvas.text((left + w * cell + 30, top + (d - 1 - y) * cell + cell / 2), str(v), size=18,
                        anchor="mm", color="red", bold=True)
    canvas.text((left + w * cell / 2, y_base + 10), "FRONT", size=16, anchor="mt", bold=True)
    if legend:
        canvas.text((width / 2, y_base + 38), legend, size=16, anchor="mt")
    return canvas.image()


def _square_grid(canvas: Canvas, x0: float, y0: float, cols: int, rows: int, cell: float,
                 filled: Sequence[Sequence[bool]]) -> None:
    """rows x cols squares with the top-left corner at (x0, y0); filled[r][c] with r counted from the top."""
    for r in range(rows):
        for c in range(cols):
            box = (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell, y0 + (r + 1) * cell)
            if filled[r][c]:
                canvas.rect(box, fill=(98, 146, 214), outline=(30, 30, 30), width=2)
            else:
                canvas.rect(box, fill=(246, 246, 246), outline=(190, 190, 190), width=1)


def render_views(top: list[list[int]], front: Sequence[int], side: Sequence[int], side_name: str = "right",
                 max_size: int = 768) -> Image.Image:
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


# -- scene sampling shared by cubes_count and cubes_missing -----------------------------------------

@dataclass(frozen=True)
class CubesConfig:
    """Difficulty of the isometric cube pictures.

    The footprint is width x depth cells (after trimming empty border rows/columns), columns are 0..max_height
    tall. answer_min..answer_max is the balanced answer range: it is split into `buckets` equal-width bins,
    the bin is chosen with ctx.balanced and scenes whose answer misses it are rejected.
    azimuth_spread: the camera azimuth is 45 deg +- up to this many degrees (0 = exact isometric azimuth).
    min_visible: the fraction of every column top (and every empty cell's floor square) that must be seen.
    """

    min_width: int = 3
    max_width: int = 4
    min_depth: int = 3
    max_depth: int = 4
    max_height: int = 4
    answer_min: int = 10
    answer_max: int = 40
    buckets: int = 4
    azimuth_spread: int = 10
    min_visible: float = 0.5


PALETTES = tuple(SHADES)


def bucket_bounds(lo: int, hi: int, buckets: int, k: int) -> tuple[int, int]:
    """Inclusive bounds of equal-width bin k of lo..hi."""
    span = hi - lo + 1
    return lo + span * k // buckets, lo + span * (k + 1) // buckets - 1


def sample_trend_heights(rng, w: int, d: int, hmax: int, level: float) -> Heights:
    """Columns tend to be taller at the back-left (away from the camera) so tops stay in view; `level`
    (0..1) scales the mean height. The mix of the two trends and the noise vary the shapes."""
    a = rng.uniform(0.2, 0.8)
    out = []
    for y in range(d):
        row = []
        for x in range(w):
            g = _trend(w, d, x, y, a)
            mean = hmax * level * (0.3 + 1.4 * g)
            row.append(max(0, min(hmax, round(mean + rng.uniform(-1.0, 1.0)))))
        out.append(row)
    return out


def _trend(w: int, d: int, x: int, y: int, a: float) -> float:
    """0 at the front-right corner, 1 at the back-left corner."""
    return a * (y / (d - 1) if d > 1 else 0.5) + (1 - a) * ((w - 1 - x) / (w - 1) if w > 1 else 0.5)


def nudge_into_bin(rng, heights: Heights, hmax: int, lo: int, hi: int, answer_of, steps: int = 80) -> Heights:
    """Move the answer into lo..hi one cube at a time, adding cubes preferably at the back-left and
    removing them preferably at the front-right (where they hide least). Columns never become empty, so
    the footprint stays the same; the caller re-checks visibility afterwards."""
    heights = [list(r) for r in heights]
    w, d = dims(heights)
    a = rng.uniform(0.2, 0.8)
    cells = [(x, y) for y in range(d) for x in range(w)]
    for _ in range(steps):
        value = answer_of(heights)
        if lo <= value <= hi:
            break
        gap = lo - value if value < lo else value - hi
        moves = [(x, y, +1) for x, y in cells if heights[y][x] < hmax]
        moves += [(x, y, -1) for x, y in cells if heights[y][x] >= 2]
        weights = [0.15 + (_trend(w, d, x, y, a) if s > 0 else 1 - _trend(w, d, x, y, a)) for x, y, s in moves]
        order = sorted(range(len(moves)), key=lambda i: rng.random() ** (1 / weights[i]), reverse=True)
        for i in order:
            x, y, s = moves[i]
            heights[y][x] += s
            new = answer_of(heights)
            new_gap = lo - new if new < lo else new - hi if new > hi else 0
            if new_gap < gap:
                break
            heights[y][x] -= s
        else:
            break
    return heights


def repair_visibility(rng, heights: Heights, cam: Camera, min_visible: float, hmax: int) -> Heights:
    """One repair pass: raise each column whose top is too hidden (or lower its tallest occluder when it is
    already at hmax); lower the tallest occluder of each hidden empty floor square."""
    heights = [list(r) for r in heights]
    w, d = dims(heights)
    for (x, y), frac in sorted(visibility(heights, cam).items()):
        if frac >= min_visible - 1e-9:
            continue
        if 0 < heights[y][x] < hmax:
            heights[y][x] += 1
            continue
        cone = [(heights[yy][xx], rng.random(), xx, yy) for yy in range(y + 1) for xx in range(x, w)
                if (xx, yy) != (x, y) and heights[yy][xx] > max(heights[y][x], 1)]
        if cone:
            _, _, xx, yy = max(cone)
            heights[yy][xx] -= 1
    return heights


def sample_cube_scene(ctx, cfg: CubesConfig, answer_of, rising: bool) -> dict:
    """A scene whose picture shows every column top and every empty floor square, with its answer in the
    balanced bin. `rising`: the answer grows with the fill level (count) or falls with it (missing)."""
    from vcot.tasks.base import Reject

    rng = ctx.rng
    k = ctx.balanced(cfg.buckets, salt="answer-bin")
    lo, hi = bucket_bounds(cfg.answer_min, cfg.answer_max, cfg.buckets, k)
    frac = (k + rng.random()) / cfg.buckets
    level = 0.15 + 0.85 * (frac if rising else 1 - frac)
    w, d = rng.randint(cfg.min_width, cfg.max_width), rng.randint(cfg.min_depth, cfg.max_depth)
    heights = trim(sample_trend_heights(rng, w, d, cfg.max_height, level))
    tw, td = dims(heights)
    if tw < cfg.min_width or td < cfg.min_depth:
        raise Reject("footprint shrank below the minimum after trimming")
    az = 45 + rng.randint(-cfg.azimuth_spread, cfg.azimuth_spread)
    cam = Camera(az, rng.choice([30, 35]))
    target = rng.randint(lo, hi)  # nudging to one value, not into the bin, keeps values off the bin edges
    for _ in range(4):
        heights = nudge_into_bin(rng, heights, cfg.max_height, target, target, answer_of)
        problems = visibility_problems(heights, cam, cfg.min_visible)
        if not problems:
            break
        heights = repair_visibility(rng, heights, cam, cfg.min_visible, cfg.max_height)
    answer = answer_of(heights)
    if not lo <= answer <= hi:
        raise Reject(f"answer {answer} outside the balanced bin {lo}..{hi}")
    if not connected(heights):
        raise Reject("the columns form more than one piece")
    if problems:
        raise Reject("picture hides part of the structure: " + problems[0])
    return {"heights": heights, "camera": {"azimuth": cam.azimuth, "elevation": cam.elevation},
            "palette": rng.choice(PALETTES), "min_visible": cfg.min_visible, "answer_bin": [lo, hi]}


def camera_of(scene: dict) -> Camera:
    return Camera(scene["camera"]["azimuth"], scene["camera"]["elevation"])
