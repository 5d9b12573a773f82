"""paper_airplane: fold a square sheet along a sequence of lines; which outline results.

Each fold reflects the paper on one side of its line (the arrow's side) onto the other side; the outline of
the folded paper is the union of the part that stays and the reflected part. Fold lines are vertical,
horizontal or diagonal through grid points, so every vertex lies on the half-unit grid: polygons are snapped
to that grid (shapely.set_precision) and compared exactly.
"""

from __future__ import annotations

import itertools
import random
from dataclasses import dataclass
from typing import Any, ClassVar

import shapely
from PIL import Image
from shapely.affinity import affine_transform
from shapely.geometry import Polygon
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union

from vcot.draw.canvas import Canvas
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import (
    Choices,
    Corruption,
    GenContext,
    Limit,
    ParameterError,
    Reject,
    Rendering,
    Solution,
    Task,
)
from vcot.tasks.common.options import cue_rank_holds, only_match, place_correct_option

LETTERS = option_letters(4)
GRID = 0.5  # every vertex is a multiple of this
MATCH_IOU = 0.999  # a candidate equals the result
MARGIN_IOU = 0.9  # any two candidates must overlap less than this (intersection over union)
FOLD_COLORS = ["red", "blue", "green", "purple"]
AXIS_KINDS = [(1, 0), (0, 1)]
DIAGONAL_KINDS = [(1, -1), (1, 1)]


@dataclass(frozen=True)
class PaperAirplaneConfig:
    n_folds: int = 3
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
    return Polygon(
        [
            (px - reach * tx, py - reach * ty),
            (px + reach * tx, py + reach * ty),
            (px + reach * tx + reach * sx, py + reach * ty + reach * sy),
            (px - reach * tx + reach * sx, py - reach * ty + reach * sy),
        ]
    )


def reflect(geom: BaseGeometry, line: Line) -> BaseGeometry:
    """Mirror image across a*x + b*y = c (an exact map on the half-unit grid for these lines)."""
    a, b, c = line
    nn = a * a + b * b
    # p' = p - 2 (a x + b y - c) / nn * (a, b)
    return affine_transform(
        geom, [1 - 2 * a * a / nn, -2 * a * b / nn, -2 * a * b / nn, 1 - 2 * b * b / nn, 2 * a * c / nn, 2 * b * c / nn]
    )


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


FoldShapes = tuple[Polygon, Polygon, list[Polygon]]  # the paper before a fold, after it, the flap's pieces


def fold_shapes(size: int, folds: list[dict[str, Any]]) -> list[FoldShapes]:
    """What each step picture of `folds` draws: the paper before and after the fold, and the pieces of the
    reflected flap snapped to the grid (a piece that snaps to nothing or to several rejects the scene)."""
    paper = sheet(size)
    shapes = []
    for f in folds:
        result, _, flap = fold(paper, tuple(f["line"]), f["moving"])  # type: ignore[arg-type]
        parts = [snap(part) for part in getattr(flap, "geoms", [flap]) if part.geom_type == "Polygon" and part.area > 0]
        shapes.append((paper, result, parts))
        paper = result
    return shapes


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
    names = {
        (1, 0): ("right", "left"),
        (0, 1): ("upper", "lower"),
        (1, -1): ("lower-right", "upper-left"),
        (1, 1): ("upper-right", "lower-left"),
    }[(a, b)]
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
    version = "5"
    description = "A square sheet folded along a sequence of lines; which outline results."
    colour_pools = (FOLD_COLORS,)
    limits: ClassVar[dict[str, Limit | Choices]] = {
        "n_folds": Limit(
            2,
            4,
            "folds in the sequence: distractors come from slips in the folds before the last, "
            "so at least 2; each fold has its own colour, and there are 4 (FOLD_COLORS)",
        ),
        "size": Limit(
            6,
            10,
            "sheet side in units: the sheet is drawn 320 px wide, and parallel fold lines one "
            "unit apart need room for an arrow between them",
        ),
        "min_flap": Limit(0.0, 0.2, "share of the paper that must move: higher, few fold sequences qualify"),
        "min_shrink": Limit(0.0, 0.2, "share of the area a fold must remove: higher, few fold sequences qualify"),
    }

    def check_config(self, config: PaperAirplaneConfig) -> None:
        super().check_config(config)
        if config.n_folds == 2 and not config.diagonals and config.size < 8:
            # Measured: at size 6 some indices find no distractor set at the drawn ranks in 2000 attempts.
            raise ParameterError(
                f"task {self.name}: two folds along grid lines only need a sheet of size 8 or "
                f"more (too few fold sequences and distractor sets below), got {config.size}"
            )

    # -- sampling -----------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg: PaperAirplaneConfig = self.config
        rng = ctx.rng
        slot = ctx.balanced(4)
        # Distractors are slips of the answer's own folds, so the answer tends to be the outline most like the
        # others, and one of the smallest (a slip folds less paper away). Where it ranks by likeness and by area
        # is drawn balanced (OPTION_RANKS), so that those cues name the answer about as often as a guess
        # (vcot audit, analysis/shortcuts/paper_airplane.py).
        rank = ctx.balanced(4, "option ranks")
        folds = self._sample_folds(rng)
        final = run_folds(cfg.size, folds)[-1]
        ranks = (EXACT_OPTION_RANKS if cfg.diagonals or cfg.n_folds >= 3 else OPTION_RANKS)[rank]
        picked = pick_distractors(distractor_pool(cfg.size, folds), final, cfg.size, ranks, rng)
        placed = place_correct_option(
            ("correct", final), picked, slot, lambda kp: iou(final, kp[1]) >= MATCH_IOU, "match the folded outline"
        )
        scene = {"size": cfg.size, "folds": folds, "candidates": [polygon_coords(p) for _, p in placed]}
        check_layouts(scene)
        return scene

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

    # -- solving ------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        states = run_folds(scene["size"], scene["folds"])
        final = states[-1]
        polys = [Polygon(c) for c in scene["candidates"]]
        scores = [iou(final, p) for p in polys]
        hit = only_match(scores, lambda score: score >= MATCH_IOU, "match the folded outline")
        for i, p in enumerate(polys):
            for q in polys[i + 1 :]:
                if iou(p, q) > MARGIN_IOU:
                    raise Reject("two candidates are too alike")
        return Solution(
            answer=LETTERS[hit],
            states=[polygon_coords(s) for s in states],
            details={
                "iou": [round(s, 4) for s in scores],
                "candidate_kinds": candidate_kinds(scene["size"], scene["folds"], polys),
            },
        )

    def question(self, scene: dict[str, Any]) -> str:
        n = len(scene["folds"])
        size = scene["size"]
        order = ", ".join(str(i + 1) for i in range(n))
        return (
            f"A square sheet of paper, {size} x {size} units (grid lines 1 unit apart), lies on a table. It is "
            f"folded along the numbered dashed lines in the order {order}. At each fold, all the paper on the "
            "side of the line where the arrow starts (including layers folded earlier) is folded over onto "
            "the other side, i.e. reflected across the line; the paper on the other side stays in place. The "
            "lines and arrows are drawn in the fixed frame of the table, so later lines apply to the already "
            "folded paper. Each fold has its own colour (line and arrow); its number is written at the end of "
            "its line. Which of the candidates A, B, C and D shows the outline of the folded paper after "
            "the last fold? The candidates are drawn at the same scale and in the same position as on the "
            "table; the dashed square marks where the flat sheet was. Answer with the letter (A, B, C or D)."
        )

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(LETTERS)

    # -- rendering ----------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(image=self.render_input(scene, solution), steps=self._fold_steps(scene, scene["folds"]))

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
            if any(m is None for m in step_layouts(scene["size"], folds)):
                continue
            # Snapping a flap piece to the grid can reject the scene, so the shapes are made before the
            # trajectory is accepted; only the pictures wait until they are read.
            shapes = fold_shapes(scene["size"], folds)
            answer = _matching_letter(states[-1], scene["candidates"])
            # The misread arrow is part of the scene: with it, the oracle folds to the same option. A flipped
            # last fold (or an outline no distractor was made from) matches no option: no answer, no scene.
            wrong = {**scene, "folds": folds} if answer is not None else None
            return Corruption(
                steps=lambda folds=folds, shapes=shapes: self._fold_steps(scene, folds, shapes),
                description=f"fold {k + 1} is made in the wrong direction (the other side moves)",
                answer=answer,
                scene=wrong,
            )
        return None

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        size = scene["size"]
        marks = input_layout(scene)
        if marks is None:  # sample_scene rejects such scenes (check_layouts)
            raise ValueError("the fold marks of this scene cannot be laid out apart")
        frame = input_frame(size)
        c = Canvas(*frame.canvas)
        view = _View(c, frame)
        view.sheet_grid()
        view.fold_marks(marks)
        top = frame.canvas[1] - 210
        c.line([(20, top), (frame.canvas[0] - 20, top)], "gray", 1)
        for pos, coords in enumerate(scene["candidates"]):
            ox = 12 + 189 * pos
            c.text((ox + 4, top + 10), LETTERS[pos], size=22, bold=True)
            pv = _View(c, Frame((ox + 30, top + 30), PANEL_PX / size, size, frame.canvas))
            pv.dashed_square()
            pv.polygon(coords, fill="lightblue", outline="blue")
        return c.image()

    def _fold_steps(
        self, scene: dict[str, Any], folds: list[dict[str, Any]], shapes: list[FoldShapes] | None = None
    ) -> list[tuple[Image.Image, str]]:
        """One picture per fold; `shapes` is `fold_shapes(scene["size"], folds)` when already computed."""
        size = scene["size"]
        steps = []
        if shapes is None:
            shapes = fold_shapes(size, folds)
        layouts = step_layouts(size, folds)
        frame = step_frame(size)
        for k, (f, (paper, result, flap_parts)) in enumerate(zip(folds, shapes, strict=True)):
            line = tuple(f["line"])
            marks = layouts[k]
            if marks is None:  # sample_scene and corrupt refuse such fold sequences
                raise ValueError(f"the mark of fold {k + 1} cannot be laid out apart")
            c = Canvas(*frame.canvas)
            view = _View(c, frame)
            view.dashed_square()
            view.polygon(polygon_coords(paper), fill=None, outline="gray", dash=True)
            view.polygon(polygon_coords(result), fill="lightyellow", outline="black")
            for part in flap_parts:
                view.polygon(polygon_coords(part), fill="orange", outline="brown", opacity=120)
            # A faint unit grid over the paper, with its numbers, makes the outline's vertices readable, as the
            # text lists them.
            view.grid_lines(color="gray", opacity=70)
            view.fold_marks(marks)
            coords = polygon_coords(result)
            c.text(
                (frame.px(size / 2, 0)[0], frame.canvas[1] - 15), f"after fold {k + 1}", size=18, anchor="mb", bold=True
            )
            # The outline's vertices, not its area: the picture shows the former, not the latter.
            where, side = line_words(line), side_words(line, f["moving"])  # type: ignore[arg-type]
            text = (
                f"Fold {k + 1} along the line {where} (coordinates in units, origin at the sheet's "
                f"bottom-left corner): the {side} part of the paper is folded over "
                f"(orange, the reflected flap). The outline of the folded paper is now the polygon "
                f"{_fmt_poly(coords)}."
            )
            steps.append((c.image(), text))
        return steps


def distractor_pool(size: int, folds: list[dict[str, Any]]) -> list[tuple[str, Polygon]]:
    """Outlines from the classic slips, each made in a fold before the last: that fold made the other way
    (`direction k`), left out (`skip k`), swapped with the next one (`order k-(k+1)`) or made along a line one
    to three units off (`position k`). The last fold is never changed, so every candidate lies on the staying
    side of the last line and touches it, as the answer does: the last fold alone tells them apart no better
    than a guess. A mirrored final outline is no longer offered; it pointed at the answer (its mirror image)."""
    # Every slip keeps the folds before fold k, so each variant starts from the true outline after k folds
    # (computed once) and runs only its own folds from there: the same outlines, a fraction of the folding.
    try:
        before = run_folds(size, folds[: max(0, len(folds) - 2)])  # the outlines after 0 .. n-2 folds
    except Reject:  # every variant shares the first fold's outline, so none would fold either
        return []
    variants: list[tuple[str, int, list[dict[str, Any]]]] = []
    for k in range(len(folds) - 1):
        flipped = [dict(f) for f in folds[k:]]
        flipped[0]["moving"] = -flipped[0]["moving"]
        variants.append((f"direction {k + 1}", k, flipped))
        variants.append((f"skip {k + 1}", k, folds[k + 1 :]))
        if k + 2 < len(folds):
            swapped = [folds[k + 1], folds[k], *folds[k + 2 :]]
            variants.append((f"order {k + 1}-{k + 2}", k, swapped))
        a, b, c = folds[k]["line"]
        for shift in (-3, -2, -1, 1, 2, 3):
            moved = [dict(f) for f in folds[k:]]
            moved[0]["line"] = [a, b, c + shift]
            variants.append((f"position {k + 1}", k, moved))
    out = []
    for kind, k, rest in variants:
        paper = before[k]
        try:
            for f in rest:
                paper = fold(paper, tuple(f["line"]), f["moving"])[0]  # type: ignore[arg-type]
        except Reject:
            continue
        out.append((kind, paper))
    return out


def _matching_letter(outline: Polygon, candidates: list[list[list[float]]]) -> str | None:
    """The letter of the one candidate equal to `outline` (by `solve`'s IoU test), None when none is: the
    answer a trajectory that folds to `outline` concludes. Candidates differ pairwise by the IoU margin, so
    at most one matches; a second match is still refused rather than guessed."""
    hits = [i for i, c in enumerate(candidates) if iou(outline, Polygon(c)) >= MATCH_IOU]
    return LETTERS[hits[0]] if len(hits) == 1 else None


def candidate_kinds(size: int, folds: list[dict[str, Any]], candidates: list[Polygon]) -> list[str]:
    """For each candidate, "correct" or the first slip of `distractor_pool` whose outline it is ("other" for
    none): the solver's account of where each option comes from, kept in the solution, not in the scene."""
    final = run_folds(size, folds)[-1]
    pool = distractor_pool(size, folds)
    kinds = []
    for p in candidates:
        if iou(final, p) >= MATCH_IOU:
            kinds.append("correct")
            continue
        kinds.append(next((kind for kind, q in pool if iou(p, q) >= MATCH_IOU), "other"))
    return kinds


# The answer's place among the options, for each value of ctx.balanced(4, "option ranks"): its likeness rank
# (`cue_rank_holds`: 0 the unique most alike, 1 the unique least alike, 2 neither) and how many other options
# may have a smaller area (never the same area). So the answer is the unique most alike, the unique least
# alike and the smallest option exactly once in four. The other area ranks are spread rather than fixed: the
# answer tends to be the second smallest (a slip folds less paper away), rarely the largest, and the easy
# preset admits only 228 fold sequences, too few for a suite of 200 without repeats if every area rank were
# also fixed per index; the sets below keep each area rank near a quarter (docs/tasks/paper_airplane.md).
OPTION_RANKS: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, (1, 2)), 1: (1, (0,)), 2: (2, (2, 3)), 3: (2, (1, 2, 3))}
# Where the scene space is large (diagonal folds, or three folds and more) every area rank is fixed per index
# too, so each is exactly a quarter: with the spread sets above, "the third smallest outline" named the answer
# on 34.5% of 200 medium instances (chance 25%). Measured: 3-4 attempts per instance, 0.1-0.2 s.
EXACT_OPTION_RANKS: dict[int, tuple[int, tuple[int, ...]]] = {0: (0, (1,)), 1: (1, (0,)), 2: (2, (2,)), 3: (2, (3,))}


def smaller_than_answer(areas: list[float]) -> int | None:
    """How many options have a smaller area than the answer (`areas[0]`); None when one has the same area."""
    if any(abs(a - areas[0]) < 1e-9 for a in areas[1:]):
        return None
    return sum(a < areas[0] for a in areas[1:])


def pick_distractors(
    pool: list[tuple[str, Polygon]], final: Polygon, size: int, ranks: tuple[int, tuple[int, ...]], rng: random.Random
) -> list[tuple[str, Polygon]]:
    """Three outlines that differ from the answer and from each other by the IoU margin, with the answer at the
    likeness and area ranks that `ranks` (a value of OPTION_RANKS or EXACT_OPTION_RANKS) allows. One of the sets that
    qualify is drawn, uniformly:
    the easy preset admits few fold sequences, so every set counts towards a suite without repeats. Reject
    when none qualifies."""
    like_rank, smaller = ranks
    eligible = [(kind, p) for kind, p in pool if _within(p, size) and iou(p, final) <= MARGIN_IOU]
    polys = [final] + [p for _, p in eligible]
    n = len(polys)
    sim = [[1.0] * n for _ in range(n)]
    for i, j in itertools.combinations(range(n), 2):  # IoU is symmetric: each pair once
        sim[i][j] = sim[j][i] = iou(polys[i], polys[j])
    subsets = [
        s
        for s in itertools.combinations(range(1, n), 3)
        if all(sim[i][j] <= MARGIN_IOU for i, j in itertools.combinations(s, 2))
    ]
    qualifying = [
        s
        for s in subsets
        if smaller_than_answer([polys[i].area for i in (0, *s)]) in smaller
        and cue_rank_holds([sum(sim[i][j] for j in (0, *s) if j != i) for i in (0, *s)], like_rank)
    ]
    if not qualifying:
        raise Reject("no distractor set puts the answer at the drawn likeness and area ranks")
    return [eligible[i - 1] for i in rng.choice(qualifying)]


def _within(p: Polygon, size: int, slack: float = 0.0) -> bool:
    x0, y0, x1, y1 = p.bounds
    return x0 >= -slack and y0 >= -slack and x1 <= size + slack and y1 <= size + slack


# -- layout of the fold marks -------------------------------------------------------------------------------

Point = tuple[float, float]
Box = tuple[float, float, float, float]

SHEET_PX = 320.0  # the sheet's side in the input and step pictures, whatever its size in units
PANEL_PX = 144.0  # the sheet's side in a candidate panel
INPUT_CANVAS = (768, 680)
STEP_CANVAS = (560, 520)
LABEL_R = 12.0  # radius of a fold number's circle
ARROW_WIDTH = 3.0
ARROW_HALF = 6.0  # half the width of an arrow's head (Canvas.arrow: 3.5 x its width), rounded up
CLEAR = 4.0  # the least gap in pixels between two marks
# Arrow shaft lengths in pixels (moving side, staying side), longest first: between parallel lines one unit
# apart (diagonals 0.7 units) only the shorter ones fit.
ARROW_LENGTHS = ((40.0, 32.0), (30.0, 24.0), (22.0, 18.0))
ALONG = (0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9)  # where on the line's stretch over the paper an arrow may sit
LABEL_GAPS = (20.0, 34.0)  # how far beyond a line's end its number may sit
OVERHANG = 0.4  # fold lines reach this far (in units) beyond the sheet


@dataclass(frozen=True)
class Frame:
    """Sheet coordinates (y up) to the pixels of one picture of `canvas` size."""

    origin: Point
    unit: float
    size: int
    canvas: tuple[int, int]

    def px(self, x: float, y: float) -> Point:
        return (self.origin[0] + x * self.unit, self.origin[1] + (self.size - y) * self.unit)

    def number_boxes(self) -> list[Box]:
        """Where the grid's numbers go (see `_View.grid_lines`), a little generously: marks keep out."""
        boxes = []
        for i in range(0, self.size + 1, 2):
            w = 10.0 * len(str(i)) + 2
            x, y = self.px(i, 0)
            boxes.append((x - w / 2, y + 18, x + w / 2, y + 38))
            x, y = self.px(0, i)
            boxes.append((x - 24 - w, y - 10, x - 20, y + 10))
        return boxes


def input_frame(size: int) -> Frame:
    w, _ = INPUT_CANVAS
    return Frame((w / 2 - SHEET_PX / 2, 70.0), SHEET_PX / size, size, INPUT_CANVAS)


def step_frame(size: int) -> Frame:
    return Frame((80.0, 60.0), SHEET_PX / size, size, STEP_CANVAS)


@dataclass(frozen=True)
class FoldMark:
    """One fold as drawn: its dashed line, its arrow (tail on the moving side, tip on the staying side) and the
    centre of its number's circle, all in pixels."""

    number: int
    color: str
    line: tuple[Point, Point]
    arrow: tuple[Point, Point]
    label: Point


def _line_segment(frame: Frame, line: Line) -> tuple[Point, Point]:
    """The fold line across the sheet and its overhang, ends in pixels: the right (or upper) end second."""
    full = shapely.geometry.LineString(_line_ends(line, frame.size))
    seg = full.intersection(sheet(frame.size).buffer(OVERHANG, join_style=2))
    (x0, y0), (x1, y1) = sorted([seg.coords[0], seg.coords[-1]])
    return frame.px(x0, y0), frame.px(x1, y1)


def _arrow_options(frame: Frame, f: dict[str, Any], paper: Polygon) -> list[tuple[Point, Point]]:
    """Arrows across the line where it cuts the paper being folded, longest first, middle first."""
    line: Line = tuple(f["line"])  # type: ignore[assignment]
    a, b, _ = line
    inside = shapely.geometry.LineString(_line_ends(line, frame.size)).intersection(paper)
    pieces = [g for g in getattr(inside, "geoms", [inside]) if g.geom_type == "LineString" and g.length > 0]
    if not pieces:
        return []
    nn = (a * a + b * b) ** 0.5
    dx, dy = a / nn * f["moving"], -b / nn * f["moving"]  # the moving side's direction on the page (y down)
    out = []
    for tail, head in ARROW_LENGTHS:
        for t in ALONG:
            for piece in pieces:
                p = piece.interpolate(t, normalized=True)
                x, y = frame.px(p.x, p.y)
                out.append(((x + tail * dx, y + tail * dy), (x - head * dx, y - head * dy)))
    return out


def _label_options(frame: Frame, seg: tuple[Point, Point]) -> list[Point]:
    """Number positions beyond the line's ends: first the end that leaves the sheet at its top or right side,
    away from the grid's numbers (bottom and left), then the other end."""
    (x0, y0), (x1, y1) = seg
    length = ((x1 - x0) ** 2 + (y1 - y0) ** 2) ** 0.5
    ux, uy = (x1 - x0) / length, (y1 - y0) / length
    top, right = frame.px(0, frame.size)[1], frame.px(frame.size, 0)[0]
    ends = [((x1, y1), (ux, uy)), ((x0, y0), (-ux, -uy))]
    ends.sort(key=lambda e: not (e[0][1] < top or e[0][0] > right))  # stable: the right (or upper) end first
    return [(x + gap * dx, y + gap * dy) for (x, y), (dx, dy) in ends for gap in LABEL_GAPS]


def _box_geom(box: Box) -> BaseGeometry:
    return shapely.geometry.box(*box)


def layout_folds(
    frame: Frame, folds: list[dict[str, Any]], papers: list[Polygon], numbers: list[int] | None = None
) -> list[FoldMark] | None:
    """Place each fold's arrow and number so that no arrow touches another arrow or another fold's line, and
    no number circle leaves the picture or touches another circle, any arrow, another fold's line or the grid
    numbers; `papers[k]` is the paper fold k cuts. Greedy in fold order; None when some mark finds no place."""
    numbers = numbers or list(range(1, len(folds) + 1))
    segs = [_line_segment(frame, tuple(f["line"])) for f in folds]  # type: ignore[arg-type]
    lines = [shapely.geometry.LineString(s) for s in segs]
    boxes = [_box_geom(b) for b in frame.number_boxes()]
    w, h = frame.canvas
    arrows: list[shapely.geometry.LineString] = []
    for k, f in enumerate(folds):
        others = [ln for j, ln in enumerate(lines) if j != k]
        for start, end in _arrow_options(frame, f, papers[k]):
            shaft = shapely.geometry.LineString([start, end])
            if (
                all(shaft.distance(ln) >= ARROW_HALF + CLEAR for ln in others)
                and all(shaft.distance(a) >= 2 * ARROW_HALF + CLEAR for a in arrows)
                and all(shaft.distance(bx) >= ARROW_HALF + CLEAR for bx in boxes)
            ):
                arrows.append(shaft)
                break
        else:
            return None
    labels: list[shapely.geometry.Point] = []
    for k, seg in enumerate(segs):
        others = [ln for j, ln in enumerate(lines) if j != k]
        for x, y in _label_options(frame, seg):
            centre = shapely.geometry.Point(x, y)
            if (
                LABEL_R + CLEAR <= x <= w - LABEL_R - CLEAR
                and LABEL_R + CLEAR <= y <= h - LABEL_R - CLEAR
                and all(centre.distance(q) >= 2 * LABEL_R + CLEAR for q in labels)
                and all(centre.distance(a) >= LABEL_R + ARROW_HALF + CLEAR for a in arrows)
                and all(centre.distance(ln) >= LABEL_R + CLEAR for ln in others)
                and all(centre.distance(bx) >= LABEL_R + CLEAR for bx in boxes)
            ):
                labels.append(centre)
                break
        else:
            return None
    return [
        FoldMark(n, FOLD_COLORS[(n - 1) % len(FOLD_COLORS)], seg, (a.coords[0], a.coords[1]), (p.x, p.y))
        for n, seg, a, p in zip(numbers, segs, arrows, labels, strict=True)
    ]


def input_layout(scene: dict[str, Any]) -> list[FoldMark] | None:
    states = run_folds(scene["size"], scene["folds"])
    return layout_folds(input_frame(scene["size"]), scene["folds"], states[:-1])


def step_layouts(size: int, folds: list[dict[str, Any]]) -> list[list[FoldMark] | None]:
    """The one fold mark of each step picture (each shows a single fold, on the paper it cuts)."""
    states = run_folds(size, folds)
    return [layout_folds(step_frame(size), [f], [states[k]], [k + 1]) for k, f in enumerate(folds)]


def check_layouts(scene: dict[str, Any]) -> None:
    """Reject a scene whose input or step pictures cannot place every fold mark apart."""
    if input_layout(scene) is None:
        raise Reject("the fold marks of the input picture cannot be laid out apart")
    if any(m is None for m in step_layouts(scene["size"], scene["folds"])):
        raise Reject("a step picture's fold mark cannot be laid out apart")


class _View:
    """Draws in one picture through its Frame."""

    def __init__(self, c: Canvas, frame: Frame) -> None:
        self.c, self.frame, self.size = c, frame, frame.size

    def px(self, x: float, y: float) -> Point:
        return self.frame.px(x, y)

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
                # Outside the overhang of the fold lines, so numbers and lines do not touch (Frame.number_boxes).
                self.c.text((self.px(i, 0)[0], self.px(i, 0)[1] + 20), str(i), size=16, anchor="mt", color="gray")
                self.c.text((self.px(0, i)[0] - 22, self.px(0, i)[1]), str(i), size=16, anchor="rm", color="gray")

    def polygon(
        self, coords: list[list[float]], fill: str | None, outline: str, dash: bool = False, opacity: int = 255
    ) -> None:
        pts = [self.px(x, y) for x, y in coords]
        if dash:
            self.c.line(pts + [pts[0]], outline, 2, dash=(8, 5))
            return
        self.c.polygon(pts, fill=fill, outline=outline, width=2, fill_opacity=opacity)

    def fold_marks(self, marks: list[FoldMark]) -> None:
        """Dashed lines first, then arrows, then the numbered circles on top."""
        for m in marks:
            self.c.line(list(m.line), m.color, 2.5, dash=(9, 6))
        for m in marks:
            self.c.arrow(m.arrow[0], m.arrow[1], m.color, ARROW_WIDTH)
        for m in marks:
            self.c.circle(m.label, LABEL_R, fill="white", outline=m.color, width=2)
            self.c.text(m.label, str(m.number), size=16, anchor="mm", color=m.color, bold=True)


def _line_ends(line: Line, size: int) -> list[tuple[float, float]]:
    a, b, c = line
    reach = 3 * size
    nn = a * a + b * b
    px, py = a * c / nn, b * c / nn
    return [(px + b * reach, py - a * reach), (px - b * reach, py + a * reach)]
