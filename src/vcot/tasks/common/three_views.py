"""Three-view cube problems shared by trailer_cubes_count and trailer_cubes_missing: the views, their sampling,
the question preamble, the step texts, the difficulty levels and `ThreeViewsTask`, the part of both tasks
that does not depend on the question (the input picture, the step's grid and the corrupted step).

Both questions are about the maximal structure consistent with the three views: every cell shown in the
top view holds a grounded column of height min(front[x], side[y]). Any consistent structure is bounded by
those two silhouettes cell by cell, and the maximal one reproduces the views whenever any structure does,
so "as many cubes as the views allow" is well defined.
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from PIL import Image

from vcot.draw.canvas import hstack
from vcot.tasks.base import Corruption, GenContext, Limit, ParameterError, Reject, Rendering, Solution, Task
from vcot.tasks.common.cube_stacks import (
    Camera,
    Heights,
    balanced_bin,
    describe_rows,
    max_solid,
    render_height_grid,
    render_iso,
    render_views,
    views_consistent,
)

STEP_CAMERA = Camera(40, 30)

Views = tuple[list[list[int]], list[int], list[int]]  # (top, front, side)
# The answer of a structure given its front view (the missing task needs the block height).
AnswerOf = Callable[[Heights, list[int]], int]


@dataclass(frozen=True)
class TrailerConfig:
    """Difficulty of the three-view problems.

    The bounding block is width x depth cells (every row and column of the top view holds a cube) and up to
    max_height tall; fill_prob is the chance that a cell of the generating structure holds a column.
    answer_min..answer_max is split into `buckets` equal bins, one chosen per instance with ctx.balanced.
    left_side_prob: chance that the side view is taken from the left instead of the right.
    min_unequal_cells: at least this many filled top cells lie under unequal front/side heights (so the
    min rule matters there).
    """

    min_width: int = 3
    max_width: int = 4
    min_depth: int = 3
    max_depth: int = 4
    max_height: int = 4
    fill_prob: float = 0.7
    answer_min: int = 8
    answer_max: int = 35
    buckets: int = 4
    left_side_prob: float = 0.3
    min_unequal_cells: int = 2


# The sizes of each difficulty level, the same for both questions; each task adds its own answer range
# (`answer_range_presets`): a count and the cubes missing from a block span different numbers.
VIEWS_LEVELS = {
    "easy": TrailerConfig(
        min_width=2,
        max_width=3,
        min_depth=2,
        max_depth=3,
        max_height=3,
        fill_prob=0.75,
        left_side_prob=0.0,
        min_unequal_cells=1,
    ),
    "medium": TrailerConfig(
        min_width=3, max_width=4, min_depth=3, max_depth=4, max_height=4, fill_prob=0.7, left_side_prob=0.3
    ),
    "hard": TrailerConfig(
        min_width=4, max_width=5, min_depth=4, max_depth=5, max_height=5, fill_prob=0.65, left_side_prob=0.5
    ),
}


# The largest block side and column height a configuration may ask for (docs/tasks/README.md, "Parameter
# limits"): one instance at 8 x 8 x 8 takes about 0.2 CPU seconds, and every cube is still drawn large enough
# to count.
MAX_SIDE = 8
_SIDE_WHY = (
    f"block side in cells: the top view and the step's height grid grow a cell per unit, and at {MAX_SIDE} "
    "the 3-D step drawing still shows every cube; one cell makes a single wall"
)
# The parameters both three-view tasks share; each adds the limits of its own answer range.
VIEWS_LIMITS: dict[str, Limit] = {
    "min_width": Limit(2, MAX_SIDE, _SIDE_WHY),
    "max_width": Limit(2, MAX_SIDE, _SIDE_WHY),
    "min_depth": Limit(2, MAX_SIDE, _SIDE_WHY),
    "max_depth": Limit(2, MAX_SIDE, _SIDE_WHY),
    "max_height": Limit(
        2,
        MAX_SIDE,
        "tallest column: the front and side views grow a cell per cube; with 1 the two silhouettes always agree",
    ),
    "fill_prob": Limit(0.2, 1, "share of top-view cells holding a column (each scene draws it within 0.2 of this)"),
    "buckets": Limit(1, 12, "equal answer bins balanced over a suite; each must hold a value"),
    "left_side_prob": Limit(0, 1, "a probability"),
    "min_unequal_cells": Limit(
        1,
        MAX_SIDE * MAX_SIDE // 2,
        "top cells under unequal front and side heights, where "
        "the min rule matters: at least 1, the cell the corrupted "
        "trajectory gets wrong, at most half the block's cells",
    ),
}


def check_views_config(task: str, cfg: TrailerConfig, floor: int, cap: int) -> None:
    """Refuse an answer range the configured sizes cannot reach (floor..cap: the answers they allow at all), bins
    without a value, and more unequal cells than the smallest block can be expected to hold."""
    if cfg.answer_min < floor or cfg.answer_max > cap:
        raise ParameterError(
            f"parameters of task {task}: answer_min..answer_max ({cfg.answer_min}..{cfg.answer_max}) "
            f"must lie within {floor}..{cap}, the answers the configured block sizes allow"
        )
    if cfg.buckets > cfg.answer_max - cfg.answer_min + 1:
        raise ParameterError(
            f"parameters of task {task}: buckets ({cfg.buckets}) must not exceed the "
            f"{cfg.answer_max - cfg.answer_min + 1} values of answer_min..answer_max (each bin "
            "holds a value)"
        )
    # Every block drawn must be able to hold them; measured: beyond half its cells hardly any scene qualifies.
    most = cfg.min_width * cfg.min_depth // 2
    if cfg.min_unequal_cells > most:
        raise ParameterError(
            f"parameters of task {task}: min_unequal_cells ({cfg.min_unequal_cells}) must be at most "
            f"half the cells of the smallest block, min_width x min_depth / 2 = {most} (scenes with "
            "more cells under unequal heights are rare)"
        )


def solid_of(scene: dict[str, Any]) -> Heights:
    """The maximal structure; Reject when the views admit no structure at all."""
    top, front, side = scene["top"], scene["front"], scene["side"]
    if not views_consistent(top, front, side):
        raise Reject("the three views are inconsistent: the maximal solid does not reproduce them")
    return max_solid(top, front, side)


def sample_views(rng: random.Random, w: int, d: int, hmax: int, fill: float, level: float) -> Views:
    """Random silhouettes and top view, then every column/row of the silhouettes gets a supporting top
    cell (a cell whose other silhouette is at least as tall), which makes the three views consistent."""

    def profile(n: int) -> list[int]:
        return [max(1, min(hmax, round(rng.triangular(1, hmax, 1 + level * (hmax - 1))))) for _ in range(n)]

    front, side = profile(w), profile(d)
    tallest = max(max(front), max(side))
    if max(front) < tallest:
        front[rng.randrange(w)] = tallest
    if max(side) < tallest:
        side[rng.randrange(d)] = tallest
    top = [[1 if rng.random() < fill else 0 for _ in range(w)] for _ in range(d)]
    for x in range(w):
        if not any(top[y][x] and side[y] >= front[x] for y in range(d)):
            top[rng.choice([y for y in range(d) if side[y] >= front[x]])][x] = 1
    for y in range(d):
        if not any(top[y][x] and front[x] >= side[y] for x in range(w)):
            top[y][rng.choice([x for x in range(w) if front[x] >= side[y]])] = 1
    return top, front, side


def nudge_views(
    rng: random.Random, views: Views, hmax: int, target: int, answer_of: AnswerOf, steps: int = 60
) -> Views:
    """Greedy single edits (toggle a top cell, raise or lower one silhouette column) that keep the views
    consistent and bring the answer closer to `target`; stops when it is reached or no edit helps."""
    top, front, side = ([list(r) for r in views[0]], list(views[1]), list(views[2]))
    w, d = len(front), len(side)
    moves = [("t", x, y) for y in range(d) for x in range(w)]
    moves += [(k, i, s) for k, n in (("f", w), ("s", d)) for i in range(n) for s in (-1, 1)]

    def value(t: list[list[int]], f: list[int], s: list[int]) -> int:
        return answer_of(max_solid(t, f, s), f)

    gap = abs(value(top, front, side) - target)
    for _ in range(steps):
        if gap == 0:
            break
        rng.shuffle(moves)
        for kind, i, j in moves:
            t, f, s = [list(r) for r in top], list(front), list(side)
            if kind == "t":
                t[j][i] = 1 - t[j][i]
            elif kind == "f":
                f[i] += j
            else:
                s[i] += j
            if not (1 <= min(f + s) and max(f + s) <= hmax and views_consistent(t, f, s)):
                continue
            new_gap = abs(value(t, f, s) - target)
            if new_gap < gap:
                top, front, side, gap = t, f, s, new_gap
                break
        else:
            break
    return top, front, side


def sample_views_scene(ctx: GenContext, cfg: TrailerConfig, answer_of: AnswerOf, rising: bool) -> dict[str, Any]:
    """Draw consistent views whose answer lands in the balanced bin; `rising`: the answer grows with the
    silhouette heights (count) rather than falling with them (missing)."""
    rng = ctx.rng
    lo, hi, frac = balanced_bin(ctx, cfg.answer_min, cfg.answer_max, cfg.buckets)
    level = frac if rising else 1 - frac
    w, d = rng.randint(cfg.min_width, cfg.max_width), rng.randint(cfg.min_depth, cfg.max_depth)
    views = sample_views(rng, w, d, cfg.max_height, rng.uniform(cfg.fill_prob - 0.2, cfg.fill_prob + 0.2), level)
    # Nudging to one value drawn inside the bin keeps the answers flat within the bin too.
    top, front, side = nudge_views(rng, views, cfg.max_height, rng.randint(lo, hi), answer_of)
    scene = {"top": top, "front": front, "side": side}
    value = answer_of(solid_of(scene), front)
    if not lo <= value <= hi:
        raise Reject(f"answer {value} outside the balanced bin {lo}..{hi}")
    unequal = sum(1 for y in range(d) for x in range(w) if top[y][x] and front[x] != side[y])
    if unequal < cfg.min_unequal_cells:
        raise Reject(f"only {unequal} top cells where the min of the two silhouettes matters")
    scene["side_name"] = "left" if rng.random() < cfg.left_side_prob else "right"
    scene["answer_bin"] = [lo, hi]
    return scene


def views_rules(scene: dict[str, Any]) -> str:
    side = scene["side_name"]
    where = "left" if side == "right" else "right"
    return (
        f"The drawing shows three views of a structure built from identical unit cubes: the top view (seen "
        f"from above, the front of the structure at the bottom), the front view and the {side} side view "
        f"(seen from the {side}, so the front of the structure is on the {where} of that view; the ends "
        f"are labelled 'front' and 'back'). A filled square in the top view means that position holds at "
        f"least one cube; the filled squares of the front and side views are the structure's silhouettes "
        f"seen from those directions. Every cube rests on the floor or on another cube (each column is "
        f"filled from the floor up)."
    )


def heights_text(scene: dict[str, Any], solid: Heights) -> str:
    side = scene["side_name"]
    return (
        f"Front view heights by column (left to right): {', '.join(map(str, scene['front']))}; {side} view "
        f"heights by row (front to back): {', '.join(map(str, scene['side']))}. Each top-view cell holds "
        f"the lower of the front height of its column and the {side} height of its row: "
        f"{describe_rows(solid, 'maximal heights')}."
    )


def draw_structure(solid: Heights, title: str, box_height: int | None = None) -> Image.Image:
    """A structure in 3-D beside the step's height grid; box_height: ghost cubes fill the block that tall."""
    return render_iso(solid, STEP_CAMERA, 520, 460, "blue", box_height=box_height, title=title)


def solid_panel(scene: dict[str, Any], solid: Heights, title: str, pips: str | None = None) -> Image.Image:
    """The heights grid with the front-view heights under the columns and the side-view heights beside the
    rows; the legend states how each cell follows from them, as the step text does."""
    what = "pips" if pips else "numbers"
    return render_height_grid(
        solid,
        title,
        col_notes=scene["front"],
        row_notes=scene["side"],
        legend=f"blue {what}: front view, red {what}: {scene['side_name']} view; "
        f"each cell: the lower of its blue and red",
        pips=pips,
    )


class ThreeViewsTask(Task):
    """A three-view task but for its question: the sampling, the question's preamble, the input picture, the
    step's height grid and the corrupted step. A task adds the question (`ask`, `rising`), its answer
    (`answer_of`, `solve`) and what its step shows beside the grid (`structure_picture`, `working_text`)."""

    config_cls = TrailerConfig
    ask: ClassVar[str]  # the question, after the shared description of the views
    # How the step's grid shows its numbers: digits (None) or pips in this `cube_stacks.PIP_STYLES` style.
    grid_pips: ClassVar[str | None] = None
    # Whether the answer grows with the silhouette heights (the count) or falls with them (the cubes missing).
    rising: ClassVar[bool]

    @abstractmethod
    def answer_of(self, solid: Heights, front: list[int]) -> int:
        """The answer for a structure, given its front view (the block height is the tallest front column)."""

    @abstractmethod
    def structure_picture(self, scene: dict[str, Any], solid: Heights) -> Image.Image:
        """The structure in 3-D beside the step's height grid (drawn with `draw_structure`)."""

    @abstractmethod
    def working_text(self, scene: dict[str, Any], solid: Heights) -> str:
        """The step text after the per-cell heights: what `structure_picture` shows."""

    def step(self, scene: dict[str, Any], solid: Heights) -> tuple[Image.Image, str]:
        """The per-cell heights of a (maximal or corrupted) structure, as a grid and in 3-D, with texts that
        say what the pictures show; the answer is left to the reader."""
        grid = solid_panel(scene, solid, "Heights of the maximal structure", pips=self.grid_pips)
        text = heights_text(scene, solid) + " " + self.working_text(scene, solid)
        return hstack([grid, self.structure_picture(scene, solid)], gap=10), text

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        return sample_views_scene(ctx, self.config, self.answer_of, rising=self.rising)

    def question(self, scene: dict[str, Any]) -> str:
        return views_rules(scene) + " " + self.ask

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        """The three views as the input picture and one step for the maximal structure."""
        return Rendering(image=self.render_input(scene, solution), steps=[self.step(scene, solid_of(scene))])

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return render_views(scene["top"], scene["front"], scene["side"], scene["side_name"])

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """The step redone from views with one silhouette misread: at a top cell where the two silhouettes
        differ, the lower one (the front view's column or the side view's row) is read as tall as the other.

        Every cell then holds the lower of its two (misread) silhouette heights, as the step text says, so the
        corrupted step states a wrong state the way a right step does; only a view read off the picture is
        wrong, and the step's grid writes the misread height under its column or beside its row. A misreading
        that leaves the answer unchanged is passed over; without any the scene has no corruption."""
        top, front, side = scene["top"], scene["front"], scene["side"]
        cells = [(x, y) for y in range(len(side)) for x in range(len(front)) if top[y][x] and front[x] != side[y]]
        rng.shuffle(cells)
        for x, y in cells:
            wrong = {**scene, "front": list(front), "side": list(side)}
            if front[x] < side[y]:
                wrong["front"][x] = side[y]
                what = f"front view column {x + 1} read as {side[y]} tall instead of {front[x]}"
            else:
                wrong["side"][y] = front[x]
                what = f"{scene['side_name']} view row {y + 1} read as {front[x]} tall instead of {side[y]}"
            solid = max_solid(top, wrong["front"], wrong["side"])
            implied = str(self.answer_of(solid, wrong["front"]))
            if implied != solution.answer:
                # The answer of the maximal structure of the misread views, which the corrupted step draws.
                return Corruption(
                    steps=lambda wrong=wrong, solid=solid: [self.step(wrong, solid)],
                    description=what,
                    answer=implied,
                    scene=wrong,
                )
        return None
