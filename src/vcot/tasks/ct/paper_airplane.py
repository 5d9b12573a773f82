"""paper_airplane: fold a square sheet along a sequence of lines; which outline results.

Each fold reflects the paper on one side of its line (the arrow's side) onto the other side; the outline of
the folded paper is the union of the part that stays and the reflected part. Fold lines are vertical,
horizontal or diagonal through grid points, so every vertex lies on the half-unit grid: polygons are snapped
to that grid (shapely.set_precision) and compared exactly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

import shapely
from PIL import Image
from shapely.affinity import affine_transform
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from vcot.draw.canvas import Canvas
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Reject, Rendering, Solution, Task
from vcot.tasks.common.options import only_match, place_correct_option

LETTERS = option_letters(4)
GRID = 0.5  # every vertex is a multiple of this
MATCH_IOU = 0.999  # a candidate equals the result
MARGIN_IOU = 0.9  # any two candidates must overlap less than this (intersection over union)
FOLD_COLORS = ["red", "blue", "green", "purple"]
AXIS_KINDS = [(1, 0), (0, 1)]
DIAGONAL_KINDS = [(1, -1), (1, 1)]


@dataclass(frozen=True)
class PaperAirplaneConfig:
    n_folds: int = 3  # 2..4
    diagonals: bool = True  # allow 45-degree fold lines
    size: int = 8  # sheet side in grid units
    min_flap: float = 0.1  # the moving part is at least this share of the current paper
    min_shrink: float = 0.08  # each fold removes at least this share of the current area


Line = tuple[int, int, int]  # a*x + b*y = c


def half_plane(line: Line, side: int, reach: float = 200.0) -> Polygon:
    """The closed half-plane side*(a*x + b*y - c) >= 0 as a large polygon."""
    a, b, c = line
    nn = a * a + b * b
    px, py = a * c / nn, b * c / nn
    tx, ty = -b, a
    sx, sy = side * a, side * b
    return Polygon([(px - reach * tx, py - reach * ty), (px + reach * tx, py + reach * ty),
                    (px + reach * tx + reach * sx, py + reach * ty + reach * sy),
                    (px - reach * tx + reach * sx, py - reach * ty + reach * sy)])


def reflect(geom: BaseGeometry, line: Line) -> BaseGeometry:
    """Mirror image across a*x + b*y = c (an exact map on the half-unit grid for these lines)."""
    a, b, c = line
    nn = a * a + b * b
    # p' = p - 2 (a x + b y - c) / nn * (a, b)
    return affine_transform(geom, [1 - 2 * a * a / nn, -2 * a * b / nn, -2 * a * b / nn, 1 - 2 * b * b / nn,
                                   2 * a * c / nn, 2 * b * c / nn])


def snap(geom: BaseGeometry) -> Polygon:
    g = shapely.set_precision(geom, GRID)
    if g.geom_type != "Polygon" or g.is_empty:
        raise Reject(f"folded paper is not one piece ({g.geom_type})")
    if len(g.interiors) > 0:
        raise Reject("folded paper outline has a hole")
    return g.simplify(0)


def fold(poly: Polygon, line: Line, moving: int, min_flap: float = 0.0) -> tuple[Polygon, Polygon, Polygon]:
    """Fold the paper: the part on side `moving` of the line is reflected onto the other side.

    Returns (result, staying part, reflected flap). Rejects a line that does not cross the paper.
    """
    move = poly.intersection(half_plane(line, moving))
    stay = poly.intersection(half_plane(line, -moving))
    if move.area <= max(1e-9, min_flap * poly.area) or stay.area <= 1e-9:
        raise Reject("fold line does not cross the paper")
    flap = reflect(move, line)
    return snap(unary_union([stay, flap])), stay, flap


def sheet(size: int) -> Polygon:
    return Polygon([(0, 0), (size, 0), (size, size), (0, size)])


def run_folds(size: int, folds: list[dict[str, Any]]) -> list[Polygon]:
    """Paper outline after each fold (index 0 is the flat sheet)."""
    states = [sheet(size)]
    for f in folds:
        states.append(fold(states[-1], tuple(f["line"]), f["moving"])[0])  # type: ignore[arg-type]
    return states


def iou(p: Polygon, q: Polygon) -> float:
    union = p.union(q).area
    return p.intersection(q).area / union if union > 0 else 1.0


def polygon_coords(p: Polygon) -> list[list[float]]:
    """Exterior vertices, counter-clockwise, starting at the lowest then leftmost vertex; no repeat."""
    p = shapely.geometry.polygon.orient(p, 1.0)
    pts = [(float(x), float(y)) for x, y in p.exterior.coords[:-1]]
    # Drop vertices that lie on a straight edge (the ring's start point can survive simplify).
    changed = True
    while changed and len(pts) > 3:
        changed = False
        for i in range(len(pts)):
            (ax, ay), (bx, by), (cx, cy) = pts[i - 1], pts[i], pts[(i + 1) % len(pts)]
            if abs((bx - ax) * (cy - by) - (by - ay) * (cx - bx)) < 1e-12:
                del pts[i]
                changed = True
                break
    k = min(range(len(pts)), key=lambda i: (pts[i][1], pts[i][0]))
    pts = pts[k:] + pts[:k]
    return [[_num(x), _num(y)] for x, y in pts]


def _num(v: float) -> float:
    return int(v) if float(v).is_integer() else round(v, 1)  # type: ignore[return-value]


def line_words(line: Line) -> str:
    a, b, c = line
    if (a, b) == (1, 0):
        return f"x = {c}"
    if (a, b) == (0, 1):
        return f"y = {c}"
    if (a, b) == (1, -1):
        return f"x - y = {c}"
    return f"x + y = {c}"


def side_words(line: Line, moving: int) -> str:
    a, b, _ = line
    names = {(1, 0): ("right", "left"), (0, 1): ("upper", "lower"), (1, -1): ("lower-right", "upper-left"),
             (1, 1): ("upper-right", "lower-left")}[(a, b)]
    return names[0] if moving > 0 else names[1]


def _fmt_poly(coords: list[list[float]]) -> str:
    return ", ".join(f"({_fmt(x)}, {_fmt(y)})" for x, y in coords)


def _fmt(v: float) -> str:
    return f"{float(v):g}"


@register
class PaperAirplane(Task):
    name = "paper_airplane"
    config_cls = PaperAirplaneConfig
    presets = {
        "easy": PaperAirplaneConfig(n_folds=2, diagonals=False),
        "medium": PaperAirplaneConfig(n_folds=3, diagonals=True),
        "hard": PaperAirplaneConfig(n_folds=4, diagonals=True),
    }
    version = "2"
    description = "A square sheet folded along a sequence of lines; which outline results."

    # -- sampling -----------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg: PaperAirplaneConfig = self.config
        rng = ctx.rng
        slot = ctx.balanced(4)
        folds = self._sample_folds(rng)
        final = run_folds(cfg.size, folds)[-1]
        pool = self._distractors(cfg.size, folds, final)
        rng.shuffle(pool)
        picked = pick_distractors(pool, final, cfg.size)
        placed = place_correct_option(("correct", final), picked, slot,
                                      lambda kp: iou(final, kp[1]) >= MATCH_IOU, "match the folded outline")
        return {"size": cfg.size, "folds": folds, "candidates": [polygon_coords(p) for _, p in placed],
                "candidate_kinds": [k for k, _ in placed]}

    def _sample_folds(self, rng: random.Random) -> list[dict[str, Any]]:
        cfg: PaperAirplaneConfig = self.config
        kinds = AXIS_KINDS + (DIAGONAL_KINDS if cfg.diagonals else [])
        paper = sheet(cfg.size)
        folds: list[dict[str, Any]] = []
        for _ in range(cfg.n_folds):
            for _attempt in range(60):
                a, b = rng.choice(kinds)
                xs, ys = [p[0] for p in paper.exterior.coords], [p[1] for p in paper.exterior.coords]
                values = [a * x + b * y for x, y in zip(xs, ys, strict=True)]
                lo, hi = int(min(values)) + 1, int(max(values) + 0.999) - 1
                if lo > hi:
                    continue
                line = (a, b, rng.randint(lo, hi))
                moving = rng.choice((1, -1))
                try:
                    result, _, _ = fold(paper, line, moving, cfg.min_flap)
                except Reject:
                    continue
                if result.area > (1 - cfg.min_shrink) * paper.area or not _within(result, cfg.size):
                    continue
                folds.append({"line": list(line), "moving": moving})
                paper = result
                break
            else:
                raise Reject("no admissible fold")
        return folds

    @staticmethod
    def _distractors(size: int, folds: list[dict[str, Any]], final: Polygon) -> list[tuple[str, Polygon]]:
        """Outlines from the classic mistakes: one fold in the wrong direction, two folds swapped, a fold
        skipped, the result mirrored."""
        variants: list[tuple[str, list[dict[str, Any]]]] = []
        for k in range(len(folds)):
            flipped = [dict(f) for f in folds]
            flipped[k]["moving"] = -flipped[k]["moving"]
            variants.append((f"direction {k + 1}", flipped))
            variants.append((f"skip {k + 1}", folds[:k] + folds[k + 1:]))
            if k + 1 < len(folds):
                swapped = list(folds)
                swapped[k], swapped[k + 1] = swapped[k + 1], swapped[k]
                variants.append((f"order {k + 1}-{k + 2}", swapped))
        out = []
        for kind, fs in variants:
            try:
                out.append((kind, run_folds(size, fs)[-1]))
            except Reject:
                continue
        if size % 2 == 0:
            out.append(("mirror left-right", snap(reflect(final, (1, 0, size // 2)))))
            out.append(("mirror top-bottom", snap(reflect(final, (0, 1, size // 2)))))
        return out

    # -- solving ------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        states = run_folds(scene["size"], scene["folds"])
        final = states[-1]
        polys = [Polygon(c) for c in scene["candidates"]]
        scores = [iou(final, p) for p in polys]
        hit = only_match(scores, lambda score: score >= MATCH_IOU, "match the folded outline")
        for i, p in enumerate(polys):
            for q in polys[i + 1:]:
                if iou(p, q) > MARGIN_IOU:
                    raise Reject("two candidates are too alike")
        return Solution(answer=LETTERS[hit], states=[polygon_coords(s) for s in states],
                        details={"iou": [round(s, 4) for s in scores]})

    def question(self, scene: dict[str, Any]) -> str:
        n = len(scene["folds"])
        size = scene["size"]
        order = ", ".join(str(i + 1) for i in range(n))
        return (f"A square sheet of paper, {size} x {size} units (grid lines 1 unit apart), lies on a table. It is "
                f"folded along the numbered dashed lines in the order {order}. At each fold, all the paper on the "
                "side of the line where the arrow starts (including layers folded earlier) is folded over onto "
                "the other side, i.e. reflected across the line; the paper on the other side stays in place. The "
                "lines and arrows are drawn in the fixed frame of the table, so later lines apply to the already "
                "folded paper. Each fold has its own colour (line and arrow); its number is written at the end of its line. Which of the candidates A, B, C and D shows the outline of the folded paper after "
                "the last fold? The candidates are drawn at the same scale and in the same position as on the "
                "table; the dashed square marks where the flat sheet was. Answer with the letter (A, B, C or D).")

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(LETTERS)

    # -- rendering ----------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(image=self._render_input(scene), steps=self._fold_steps(scene, scene["folds"]))

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        ks = list(range(len(scene["folds"])))
        rng.shuffle(ks)
        for k in ks:
            folds = [dict(f) for f in scene["folds"]]
            folds[k]["moving"] = -folds[k]["moving"]
            try:
                states = run_folds(scene["size"], folds)
            except Reject:
                continue
            if not all(_within(s, scene["size"], slack=2) for s in states):
                continue
            return Corruption(steps=self._fold_steps(scene, folds),
                              description=f"fold {k + 1} is made in the wrong direction (the other side moves)")
        return None

    def _render_input(self, scene: dict[str, Any]) -> Image.Image:
        size = scene["size"]
        c = Canvas(768, 640)
        view = _View(c, (384 - 20 * size, 40), 40.0, size)
        view.sheet_grid()
        states = run_folds(size, scene["folds"])
        for k, f in enumerate(scene["folds"]):
            view.fold_line(tuple(f["line"]), f["moving"], k + 1, states[k])
        c.line([(20, 430), (748, 430)], "gray", 1)
        for pos, coords in enumerate(scene["candidates"]):
            ox = 12 + 189 * pos
            c.text((ox + 4, 440), LETTERS[pos], size=22, bold=True)
            pv = _View(c, (ox + 30, 460), 18.0, size)
            pv.dashed_square()
            pv.polygon(coords, fill="lightblue", outline="blue")
        return c.image()

    def _fold_steps(self, scene: dict[str, Any], folds: list[dict[str, Any]]) -> list[tuple[Image.Image, str]]:
        size = scene["size"]
        paper = sheet(size)
        steps = []
        for k, f in enumerate(folds):
            line = tuple(f["line"])
            result, stay, flap = fold(paper, line, f["moving"])  # type: ignore[arg-type]
            c = Canvas(560, 520)
            view = _View(c, (80, 60), 40.0, size)
            view.dashed_square()
            view.polygon(polygon_coords(paper), fill=None, outline="gray", dash=True)
            view.polygon(polygon_coords(result), fill="lightyellow", outline="black")
            for part in getattr(flap, "geoms", [flap]):
                if part.geom_type == "Polygon" and part.area > 0:
                    view.polygon(polygon_coords(snap(part)), fill="orange", outline="brown", opacity=120)
            # A faint unit grid over the paper, with its numbers, makes the outline's vertices readable, as the
            # text lists them.
            view.grid_lines(color="gray", opacity=70)
            view.fold_line(line, f["moving"], k + 1, paper)  # type: ignore[arg-type]
            coords = polygon_coords(result)
            c.text((240, 505), f"after fold {k + 1}", size=18, anchor="mb", bold=True)
            # The outline's vertices, not its area: the picture shows the former, not the latter.
            text = (f"Fold {k + 1} along the line {line_words(line)} (coordinates in units, origin at the sheet's "  # type: ignore[arg-type]
                    f"bottom-left corner): the {side_words(line, f['moving'])} part of the paper is folded over "  # type: ignore[arg-type]
                    f"(orange, the reflected flap). The outline of the folded paper is now the polygon "
                    f"{_fmt_poly(coords)}.")
            steps.append((c.image(), text))
            paper = result
        return steps


def pick_distractors(pool: list[tuple[str, Polygon]], final: Polygon, size: int) -> list[tuple[str, Polygon]]:
    """Three outlines that differ from the answer and from each other by the IoU margin, preferring one of
    each mistake family (direction, skip, order, mirror); Reject when three cannot be found."""
    picked: list[tuple[str, Polygon]] = []
    for prefer_new in (True, False):
        for kind, poly in pool:
            if len(picked) == 3:
                return picked
            families = {k.split()[0] for k, _ in picked}
            if (prefer_new and kind.split()[0] in families) or any(kind == k for k, _ in picked):
                continue
            if not _within(poly, size) or iou(poly, final) > MARGIN_IOU:
                continue
            if any(iou(poly, q) > MARGIN_IOU for _, q in picked):
                continue
            picked.append((kind, poly))
    if len(picked) < 3:
        raise Reject("not enough distinct distractors")
    return picked


def _within(p: Polygon, size: int, slack: float = 0.0) -> bool:
    x0, y0, x1, y1 = p.bounds
    return x0 >= -slack and y0 >= -slack and x1 <= size + slack and y1 <= size + slack


class _View:
    """Sheet coordinates (y up) to pixels."""

    def __init__(self, c: Canvas, origin: tuple[float, float], unit: float, size: int) -> None:
        self.c, self.ox, self.oy, self.u, self.size = c, origin[0], origin[1], unit, size

    def px(self, x: float, y: float) -> tuple[float, float]:
        return (self.ox + x * self.u, self.oy + (self.size - y) * self.u)

    def dashed_square(self) -> None:
        s = self.size
        pts = [self.px(0, 0), self.px(s, 0), self.px(s, s), self.px(0, s), self.px(0, 0)]
        self.c.line(pts, "gray", 1.5, dash=(6, 4))

    def sheet_grid(self) -> None:
        s = self.size
        self.c.rect((*self.px(0, s), *self.px(s, 0)), fill="lightyellow", outline=None)
        self.grid_lines()
        self.c.rect((*self.px(0, s), *self.px(s, 0)), fill=None, outline="black", width=2)

    def grid_lines(self, color: str = "lightgray", opacity: int = 255) -> None:
        """Unit grid over the sheet's square, numbered every two units."""
        s = self.size
        for i in range(s + 1):
            self.c.line([self.px(i, 0), self.px(i, s)], color, 1, opacity=opacity)
            self.c.line([self.px(0, i), self.px(s, i)], color, 1, opacity=opacity)
            if i % 2 == 0:
                # Outside the 0.4-unit overhang of the fold lines, so numbers and lines do not touch.
                self.c.text((self.px(i, 0)[0], self.px(i, 0)[1] + 20), str(i), size=16, anchor="mt", color="gray")
                self.c.text((self.px(0, i)[0] - 22, self.px(0, i)[1]), str(i), size=16, anchor="rm", color="gray")

    def polygon(self, coords: list[list[float]], fill: str | None, outline: str, dash: bool = False,
                opacity: int = 255) -> None:
        pts = [self.px(x, y) for x, y in coords]
        if dash:
            self.c.line(pts + [pts[0]], outline, 2, dash=(8, 5))
            return
        self.c.polygon(pts, fill=fill, outline=outline, width=2, fill_opacity=opacity)

    def fold_line(self, line: Line, moving: int, number: int, paper: Polygon) -> None:
        """The dashed fold line across the sheet area, numbered at its end, and an arrow from the moving
        side across the line at the middle of the paper it cuts; one colour per fold."""
        a, b, _ = line
        s = self.size
        color = FOLD_COLORS[(number - 1) % len(FOLD_COLORS)]
        full = shapely.geometry.LineString(_line_ends(line, s))
        seg = full.intersection(sheet(s).buffer(0.4, join_style=2))
        (x0, y0), (x1, y1) = sorted([seg.coords[0], seg.coords[-1]])  # number the right (or top) end
        self.c.line([self.px(x0, y0), self.px(x1, y1)], color, 2.5, dash=(9, 6))
        length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
        lx, ly = self.px(x1 + 0.45 * (x1 - x0) / length, y1 + 0.45 * (y1 - y0) / length)
        self.c.circle((lx, ly), 12, fill="white", outline=color, width=2)
        self.c.text((lx, ly), str(number), size=16, anchor="mm", color=color, bold=True)
        inside = full.intersection(paper)
        mid = inside.interpolate(0.5, normalized=True) if not inside.is_empty else seg.interpolate(0.5, normalized=True)
        nn = (a * a + b * b) ** 0.5
        nx, ny = a / nn * moving, b / nn * moving
        start = self.px(mid.x + 1.0 * nx, mid.y + 1.0 * ny)
        self.c.arrow(start, self.px(mid.x - 0.8 * nx, mid.y - 0.8 * ny), color, 3)


def _line_ends(line: Line, size: int) -> list[tuple[float, float]]:
    a, b, c = line
    reach = 3 * size
    nn = a * a + b * b
    px, py = a * c / nn, b * c / nn
    return [(px + b * reach, py - a * reach), (px - b * reach, py + a * reach)]
