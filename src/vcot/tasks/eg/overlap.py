"""overlap (EG): four candidate shape pairs drawn on small axes; which pair overlaps most once both shapes of
a pair are translated so that their marked dots sit at the origin.

Shapes are polygons with integer vertices, so every intersection area is computed exactly enough by shapely
(areas of integer polygons are multiples of 1/2; intersections are rational and far from the 10 % margin).
"""

from __future__ import annotations

import copy
import random
from dataclasses import dataclass, field
from typing import Any

from PIL import Image
from shapely.geometry import Polygon
from shapely.geometry.polygon import orient

from vcot.draw.canvas import Canvas
from vcot.schema import option_letters
from vcot.tasks import register
from vcot.tasks.base import Choices, Corruption, GenContext, Limit, Reject, Rendering, Solution, Task
from vcot.tasks.common.options import place_correct_option

Pt = tuple[int, int]
SHAPE_COLORS = ("blue", "orange")
FILL_COLORS = ("lightblue", "lightyellow")
OVERLAP_COLOR = (150, 70, 170)
GRID_W, GRID_H = 12, 6


def _shoelace(vertices: list[list[float]]) -> float:
    """The area of a simple polygon from its vertices."""
    return (
        abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(vertices, vertices[1:] + vertices[:1], strict=True)))
        / 2
    )


@dataclass(frozen=True)
class OverlapConfig:
    # Lists, not tuples: Task.params() must survive the JSON round trip of meta unchanged.
    kinds: list[str] = field(default_factory=lambda: ["rect", "right_tri", "l_shape", "trapezoid"])
    max_size: int = 5
    ref_mode: str = "vertex"  # "corner": the lowest-leftmost vertex; "vertex": any vertex
    min_margin: float = 0.10  # the best overlap must beat the runner-up by this relative margin
    min_overlapping: int = 4  # at least this many pairs overlap at all, so distractors are not trivially empty


def _rect(rng: random.Random, m: int) -> list[Pt]:
    w, h = rng.randint(1, m), rng.randint(1, m)
    return [(0, 0), (w, 0), (w, h), (0, h)]


def _right_tri(rng: random.Random, m: int) -> list[Pt]:
    w, h = rng.randint(2, m), rng.randint(2, m)
    return [(0, 0), (w, 0), (0, h)]


def _triangle(rng: random.Random, m: int) -> list[Pt]:
    w, h = rng.randint(2, m), rng.randint(2, m)
    return [(0, 0), (w, 0), (rng.randint(0, w), h)]


def _l_shape(rng: random.Random, m: int) -> list[Pt]:
    w, h = rng.randint(2, m), rng.randint(2, m)
    a, b = rng.randint(1, w - 1), rng.randint(1, h - 1)
    return [(0, 0), (w, 0), (w, b), (a, b), (a, h), (0, h)]


def _t_shape(rng: random.Random, m: int) -> list[Pt]:
    w, h = rng.randint(3, max(3, m)), rng.randint(2, m)
    b = rng.randint(1, h - 1)
    s = rng.randint(1, w - 2)
    c = rng.randint(1, w - s - 1)
    return [(c, 0), (c + s, 0), (c + s, h - b), (w, h - b), (w, h), (0, h), (0, h - b), (c, h - b)]


def _trapezoid(rng: random.Random, m: int) -> list[Pt]:
    w, h = rng.randint(3, max(3, m)), rng.randint(1, m)
    a = rng.randint(0, w - 2)
    b = rng.randint(1, w - 1 - a)
    return [(0, 0), (w, 0), (w - b, h), (a, h)]


def _parallelogram(rng: random.Random, m: int) -> list[Pt]:
    w, h = rng.randint(3, max(3, m)), rng.randint(1, m)
    s = rng.randint(1, w - 2)
    return [(0, 0), (w - s, 0), (w, h), (s, h)]


SHAPE_MAKERS = {
    "rect": _rect,
    "right_tri": _right_tri,
    "triangle": _triangle,
    "l_shape": _l_shape,
    "t_shape": _t_shape,
    "trapezoid": _trapezoid,
    "parallelogram": _parallelogram,
}


def _normalise(pts: list[Pt]) -> list[Pt]:
    """Shift so the bounding box starts at (0, 0); keep counter-clockwise order and drop repeated points."""
    mx, my = min(p[0] for p in pts), min(p[1] for p in pts)
    out = [(x - mx, y - my) for x, y in pts]
    poly = orient(Polygon(out), 1.0)
    coords = [(int(round(x)), int(round(y))) for x, y in list(poly.exterior.coords)[:-1]]
    return coords


def random_shape(rng: random.Random, kind: str, max_size: int) -> list[Pt]:
    pts = SHAPE_MAKERS[kind](rng, max_size)
    for _ in range(rng.randrange(4)):  # a quarter turn: (x, y) -> (-y, x)
        pts = [(-y, x) for x, y in pts]
    if rng.random() < 0.5:
        pts = [(-x, y) for x, y in pts]
    return _normalise(pts)


def shape_polygon(shape: dict[str, Any], aligned: bool = True) -> Polygon:
    """The shape as placed on its axes, or translated so its marked dot is at the origin (aligned)."""
    ox, oy = shape["ref"] if aligned else (0, 0)
    return Polygon([(x - ox, y - oy) for x, y in shape["vertices"]])


def pair_overlap(pair: list[dict[str, Any]], shift: tuple[int, int] = (0, 0)) -> float:
    a = shape_polygon(pair[0])
    b = shape_polygon(pair[1])
    if shift != (0, 0):
        b = Polygon([(x + shift[0], y + shift[1]) for x, y in b.exterior.coords])
    return round(a.intersection(b).area, 4)


def check_margin(areas: list[float], min_margin: float, min_overlapping: int = 1) -> None:
    """Reject a scene whose best overlap does not clearly beat the runner-up, or with too few overlapping pairs."""
    ranked = sorted(areas, reverse=True)
    if sum(a > 0 for a in areas) < max(1, min_overlapping):
        raise Reject("too few pairs overlap at all")
    if ranked[0] < (1.0 + min_margin) * ranked[1]:
        raise Reject(f"best overlap {ranked[0]} within {min_margin:.0%} of runner-up {ranked[1]}")


def _fmt(a: float) -> str:
    return f"{a:.3f}".rstrip("0").rstrip(".")


@register
class OverlapTask(Task):
    name = "overlap"
    config_cls = OverlapConfig
    presets = {
        "easy": OverlapConfig(kinds=["rect", "right_tri"], max_size=4, ref_mode="corner", min_overlapping=3),
        "medium": OverlapConfig(kinds=["rect", "right_tri", "l_shape", "trapezoid"], max_size=5, ref_mode="vertex"),
        "hard": OverlapConfig(
            kinds=["right_tri", "triangle", "l_shape", "t_shape", "trapezoid", "parallelogram"],
            max_size=5,
            ref_mode="vertex",
            min_margin=0.10,
        ),
    }
    version = "4"
    description = "Which of four shape pairs overlaps most when each pair is aligned at its marked dots."
    colour_pools = (SHAPE_COLORS,)
    limits = {
        "kinds": Choices(tuple(SHAPE_MAKERS), "the shape families a pair's shapes are drawn from"),
        "max_size": Limit(
            2,
            5,
            f"largest side of a shape in grid units: two shapes side by side must fit the "
            f"{GRID_W} x {GRID_H} axes of a pair; right triangles need 2",
        ),
        "ref_mode": Choices(
            ("corner", "vertex"), "where the black dot sits: the lowest-leftmost vertex, or any vertex"
        ),
        "min_margin": Limit(
            0.05,
            1,
            "the largest overlap beats the runner-up by this share: at 0 a tie could pass; "
            "above 1 nearly every scene is rejected",
        ),
        "min_overlapping": Limit(1, 4, "how many of the four pairs overlap at all"),
    }

    # -- scene ---------------------------------------------------------------------------------------

    def _shape(self, rng: random.Random) -> dict[str, Any]:
        cfg = self.config
        verts = random_shape(rng, rng.choice(cfg.kinds), cfg.max_size)
        if cfg.ref_mode == "corner":
            ref = min(verts, key=lambda p: (p[1], p[0]))
        else:
            ref = rng.choice(verts)
        return {"vertices": [list(v) for v in verts], "ref": list(ref)}

    def _pair(self, rng: random.Random) -> list[dict[str, Any]]:
        s1, s2 = self._shape(rng), self._shape(rng)
        w1 = max(v[0] for v in s1["vertices"])
        w2 = max(v[0] for v in s2["vertices"])
        h1 = max(v[1] for v in s1["vertices"])
        h2 = max(v[1] for v in s2["vertices"])
        x1 = rng.randint(0, GRID_W - w1 - w2 - 1)
        x2 = rng.randint(x1 + w1 + 1, GRID_W - w2)
        y1, y2 = rng.randint(0, GRID_H - h1), rng.randint(0, GRID_H - h2)
        for s, (dx, dy) in ((s1, (x1, y1)), (s2, (x2, y2))):
            s["vertices"] = [[x + dx, y + dy] for x, y in s["vertices"]]
            s["ref"] = [s["ref"][0] + dx, s["ref"][1] + dy]
        return [s1, s2]

    def _overlapping_pair(self, rng: random.Random) -> list[dict[str, Any]]:
        # Redrawing a single pair is far cheaper than rejecting the whole scene for one empty overlap.
        for _ in range(100):
            pair = self._pair(rng)
            if pair_overlap(pair) > 0:
                return pair
        raise Reject("could not draw an overlapping pair")

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        rng = ctx.rng
        pairs = [self._overlapping_pair(rng) if k < self.config.min_overlapping else self._pair(rng) for k in range(4)]
        areas = [pair_overlap(p) for p in pairs]
        check_margin(areas, self.config.min_margin, self.config.min_overlapping)
        best = max(range(4), key=lambda i: areas[i])
        # A pair's overlap can be no larger than its smaller shape, so "the pair whose smaller shape is largest"
        # often names the answer without aligning anything (vcot audit). Balance that cue: it points at the
        # answer in exactly one instance of every four, as often as a guess would.
        smaller = [min(_shoelace(shape["vertices"]) for shape in pair) for pair in pairs]
        cue = max(range(4), key=lambda i: smaller[i])
        if (cue == best) != (ctx.balanced(4, "smaller-shape cue") == 0):
            raise Reject("the largest smaller shape would give the answer away (or must)")
        slot = ctx.balanced(4)
        others = [p for i, p in enumerate(pairs) if i != best]
        rng.shuffle(others)
        placed = place_correct_option(
            pairs[best], others, slot, lambda p: pair_overlap(p) == areas[best], "overlap the most"
        )
        return {
            "pairs": placed,
            "grid": [GRID_W, GRID_H],
            "min_margin": self.config.min_margin,
            "options": option_letters(4),
        }

    def solve(self, scene: dict[str, Any]) -> Solution:
        areas = [pair_overlap(p) for p in scene["pairs"]]
        check_margin(areas, scene["min_margin"])
        best = max(range(len(areas)), key=lambda i: areas[i])
        letters = option_letters(len(areas))
        return Solution(answer=letters[best], states=areas, details={"areas": dict(zip(letters, areas, strict=True))})

    def question(self, scene: dict[str, Any]) -> str:
        return (
            "The picture shows four pairs of shapes, A, B, C and D, each pair drawn on its own coordinate "
            "axes (grid lines are 1 unit apart). Each shape has a black dot. For every pair, slide both "
            "shapes (translation only, no rotation or flipping) so that each shape's black dot lies at the "
            "origin (0, 0). Which pair then overlaps the most, i.e. has the largest area of intersection? "
            "Answer with the letter of the pair (A, B, C or D)."
        )

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(scene["options"])

    # -- drawing -------------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        letters = option_letters(4)
        areas = solution.states
        step_panels = [_aligned_panel(p, f"Pair {letters[i]}", areas[i]) for i, p in enumerate(scene["pairs"])]
        return Rendering(
            image=self.render_input(scene, solution), steps=[(_grid_2x2(step_panels), _aligned_text(areas))]
        )

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        letters = option_letters(4)
        return _grid_2x2([_input_panel(p, f"Pair {letters[i]}") for i, p in enumerate(scene["pairs"])])

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One black dot misread one unit (or one diagonal unit) off, so that its pair is superposed with that
        dot, not the true one, at the origin, and another pair seems to overlap the most.

        The corrupted step is the true step of the misread scene: both drawn dots sit at the origin, as the text
        says and a right step shows, and the area written is that of the drawn superposition; only the dot read
        off the picture is wrong. The winning pair's dot is misread if that changes the largest overlap, else
        another pair's; without either the scene has no corruption."""
        letters = option_letters(4)
        target = letters.index(solution.answer)
        shifts = [(dx, dy) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if (dx, dy) != (0, 0)]
        options = []
        for i, pair in enumerate(scene["pairs"]):
            for shift in shifts:
                areas = list(solution.states)
                areas[i] = pair_overlap(pair, shift)
                if max(range(4), key=lambda k: areas[k]) != target and areas.count(max(areas)) == 1:
                    options.append((i != target, i, shift, areas))
        if not options:
            return None
        rng.shuffle(options)
        _, i, shift, areas = min(options, key=lambda o: o[0])
        wrong = copy.deepcopy(scene["pairs"])
        # Moving the second dot by -shift moves its shape by +shift once the dots are aligned (`pair_overlap`).
        wrong[i][1]["ref"] = [wrong[i][1]["ref"][0] - shift[0], wrong[i][1]["ref"][1] - shift[1]]

        def draw() -> list[tuple[Image.Image, str]]:
            panels = [_aligned_panel(p, f"Pair {letters[k]}", areas[k]) for k, p in enumerate(wrong)]
            return [(_grid_2x2(panels), _aligned_text(areas))]

        # The pair with the largest of the written areas (the options chosen above have a single largest one),
        # in the scene with the misread dot: its true step writes those areas.
        return Corruption(
            steps=draw,
            answer=letters[max(range(4), key=lambda k: areas[k])],
            scene={**scene, "pairs": wrong},
            description=f"pair {letters[i]}: the dot of the second shape misread at "
            f"{tuple(wrong[i][1]['ref'])} instead of {tuple(scene['pairs'][i][1]['ref'])}; "
            f"the largest overlap moves to pair {letters[max(range(4), key=lambda k: areas[k])]}",
        )


# Panels in option order, named by where they sit: the step text must not write the pairs' letters (one of
# them is the answer), and the panels keep the input picture's 2 x 2 layout.
PANEL_PLACES = ("top-left", "top-right", "bottom-left", "bottom-right")


def _aligned_text(areas: list[float]) -> str:
    """What the aligned step picture shows: the four superposed pairs and the area written on each panel."""
    listed = ", ".join(f"{place} {_fmt(a)}" for place, a in zip(PANEL_PLACES, areas, strict=True))
    return (
        "Each pair drawn again with both black dots moved to the origin, in the same 2 x 2 layout as the "
        f"question picture; the intersection is shaded purple and its area is written on each panel: {listed}."
    )


# -- drawing helpers ---------------------------------------------------------------------------------

PANEL_W, PANEL_H = 380, 300


def _grid_2x2(panels: list[Image.Image]) -> Image.Image:
    c = Canvas(2 * PANEL_W + 8, 2 * PANEL_H + 8)
    for i, p in enumerate(panels):
        c.paste(p, ((i % 2) * (PANEL_W + 8), (i // 2) * (PANEL_H + 8)))
    c.line([(PANEL_W + 4, 0), (PANEL_W + 4, c.height)], color="gray", width=2)
    c.line([(0, PANEL_H + 4), (c.width, PANEL_H + 4)], color="gray", width=2)
    return c.image()


class _Axes:
    def __init__(
        self,
        c: Canvas,
        x0: int,
        x1: int,
        y0: int,
        y1: int,
        cell: float,
        origin: tuple[float, float],
        label_every: int = 1,
    ) -> None:
        self.c, self.cell, self.ox, self.oy = c, cell, origin[0], origin[1]
        for x in range(x0, x1 + 1):
            c.line([self.p(x, y0), self.p(x, y1)], color="lightgray", width=1)
        for y in range(y0, y1 + 1):
            c.line([self.p(x0, y), self.p(x1, y)], color="lightgray", width=1)
        ax = 0 if x0 <= 0 <= x1 else x0
        ay = 0 if y0 <= 0 <= y1 else y0
        c.arrow(self.p(x0, ay), (self.p(x1, ay)[0] + 14, self.p(x1, ay)[1]), color="black", width=2, head=9)
        c.arrow(self.p(ax, y0), (self.p(ax, y1)[0], self.p(ax, y1)[1] - 14), color="black", width=2, head=9)
        for x in range(x0, x1 + 1):
            if x % label_every == 0 and x != ax:
                px, py = self.p(x, ay)
                c.text((px, py + 4), str(x), size=16, anchor="mt", color="darkgray")
        for y in range(y0, y1 + 1):
            if y % label_every == 0 and y != ay:
                px, py = self.p(ax, y)
                c.text((px - 5, py), str(y), size=16, anchor="rm", color="darkgray")
        if label_every == 1:
            px, py = self.p(ax, ay)
            c.text((px - 5, py + 4), "0", size=16, anchor="rt", color="darkgray")

    def p(self, x: float, y: float) -> tuple[float, float]:
        return (self.ox + x * self.cell, self.oy - y * self.cell)


def _draw_shape(
    ax: _Axes, pts: list[tuple[float, float]], k: int, ref: tuple[float, float], filled: bool = True
) -> None:
    ax.c.polygon(
        [ax.p(x, y) for x, y in pts],
        fill=FILL_COLORS[k] if filled else None,
        outline=SHAPE_COLORS[k],
        width=3,
        fill_opacity=150,
    )
    ax.c.circle(ax.p(*ref), 5, fill="black", outline=None)


def _input_panel(pair: list[dict[str, Any]], title: str) -> Image.Image:
    c = Canvas(PANEL_W, PANEL_H)
    c.text((PANEL_W / 2, 8), title, size=20, bold=True, anchor="mt")
    ax = _Axes(c, 0, GRID_W, 0, GRID_H, 26.0, (34, PANEL_H - 58))
    for k, s in enumerate(pair):
        _draw_shape(ax, [tuple(v) for v in s["vertices"]], k, tuple(s["ref"]))
    return c.image()


def _aligned_panel(pair: list[dict[str, Any]], title: str, area: float, shift: tuple[int, int] = (0, 0)) -> Image.Image:
    c = Canvas(PANEL_W, PANEL_H)
    c.text((12, 8), title, size=20, bold=True, anchor="lt")
    c.text((PANEL_W - 12, 8), f"overlap = {_fmt(area)}", size=18, bold=True, anchor="rt", color=OVERLAP_COLOR)
    ax = _Axes(c, -5, 5, -5, 5, 22.0, (PANEL_W / 2 + 10, PANEL_H / 2 + 22), label_every=5)
    polys = []
    for k, s in enumerate(pair):
        dx, dy = shift if k == 1 else (0, 0)
        pts = [(x - s["ref"][0] + dx, y - s["ref"][1] + dy) for x, y in s["vertices"]]
        polys.append(Polygon(pts))
        _draw_shape(ax, pts, k, (dx, dy))
    inter = polys[0].intersection(polys[1])
    for g in getattr(inter, "geoms", [inter]):
        if isinstance(g, Polygon) and g.area > 0:
            c.polygon(
                [ax.p(x, y) for x, y in list(g.exterior.coords)[:-1]],
                fill=OVERLAP_COLOR,
                outline=OVERLAP_COLOR,
                width=1,
                fill_opacity=200,
            )
    c.circle(ax.p(0, 0), 5, fill="black", outline=None)
    return c.image()
