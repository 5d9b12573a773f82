"""convex_hull (EG): count the points of one colour strictly inside the convex hull of another colour, or
inside the overlap of two hulls.

All geometry is exact: integer lattice coordinates, integer cross products for hulls and point-in-polygon
tests, and Fractions for the vertices of a hull intersection and for point-to-edge distances. Scenes where a
counted point comes within `margin_px` pixels (at the rendered scale) of the counted region's boundary are
rejected, so no answer depends on a point that looks like it is on an edge.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, integers
from vcot.tasks.base import (
    Corruption,
    GenContext,
    Limit,
    ParameterError,
    Reject,
    Rendering,
    Solution,
    Task,
)

Pt = tuple[int, int]
QPt = tuple[Fraction, Fraction]

# Colour name -> marker shape; shapes keep the sets apart for readers who confuse colours.
MARKERS: dict[str, str] = {"red": "circle", "blue": "square", "green": "triangle", "orange": "diamond"}
CANVAS = 768
PLOT_LO = 60  # pixel of lattice coordinate 0 (left, and bottom measured from the bottom edge)
PLOT_SPAN = 660  # pixels available for the lattice
MARKER_R = 8.0
MARKER_OUTLINE = 1.2
# The farthest any marker's drawing reaches from its centre: the triangle's lower corners at
# sqrt(1 + 0.75^2) * MARKER_R (the square's corners reach 1.2 r, the diamond's 1.15 r), plus half its outline.
MARKER_REACH = 1.25 * MARKER_R + MARKER_OUTLINE / 2
EDGE_WIDTH = 3.0  # hull outlines in the step pictures
MIN_GAP_PX = 3.0  # white space left between a counted marker and the region's drawn boundary
# The smallest margin that keeps every counted marker visibly clear of the boundary (16 px).
MIN_MARGIN_PX = math.ceil(MARKER_REACH + EDGE_WIDTH / 2 + MIN_GAP_PX)


@dataclass(frozen=True)
class ConvexHullConfig:
    grid: int = 14  # lattice coordinates run 0..grid on both axes
    n_colours: int = 3  # point sets: the counted one, one or two hull colours, the rest idle
    # Ranges are separate min/max ints (not tuples) so that params() survives the JSON round trip.
    min_hull_points: int = 6  # points per hull colour
    max_hull_points: int = 9
    min_answer: int = 0  # answers are balanced over min_answer..max_answer
    max_answer: int = 6
    # The counted points strictly inside the hull colours' bounding box number max_answer + 0..box_extra, and
    # min_far..max_far more lie outside that box, whatever the count: neither the number of counted points nor
    # the number inside the box says anything about the answer (`vcot audit`, analysis/shortcuts/convex_hull).
    box_extra: int = 3
    min_far: int = 2
    max_far: int = 4
    overlap_prob: float = 0.5  # share of overlap questions (needs 3 colours), rounded to 1 %
    near_frac: float = 0.5  # share of the in-box distractors placed close to the region
    min_other: int = 3  # points of each uninvolved colour (single-hull form, 3+ colours)
    max_other: int = 6
    margin_px: int = 16  # counted points keep this distance from the region's boundary


# -- exact geometry ---------------------------------------------------------------------------------------


def cross(o: Any, a: Any, b: Any) -> Any:
    """z of (a-o) x (b-o): > 0 when o, a, b turn counter-clockwise (y up)."""
    return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])


def convex_hull(points: list[Pt]) -> list[Pt]:
    """Andrew's monotone chain; counter-clockwise, starting at the lowest-leftmost point, no collinear vertices."""
    pts = sorted(set(map(tuple, points)))
    if len(pts) < 3:
        return pts

    def chain(seq: list[Pt]) -> list[Pt]:
        out: list[Pt] = []
        for p in seq:
            while len(out) >= 2 and cross(out[-2], out[-1], p) <= 0:
                out.pop()
            out.append(p)
        return out

    lower, upper = chain(pts), chain(pts[::-1])
    return lower[:-1] + upper[:-1]


def area2(poly: list[Any]) -> Any:
    """Twice the signed area (positive for counter-clockwise)."""
    n = len(poly)
    return sum(poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1] for i in range(n))


def clip_convex(subject: list[Any], clip: list[Any]) -> list[QPt]:
    """Sutherland-Hodgman intersection of two counter-clockwise convex polygons, in Fractions."""
    out: list[QPt] = [(Fraction(x), Fraction(y)) for x, y in subject]
    m = len(clip)
    for i in range(m):
        a, b = clip[i], clip[(i + 1) % m]
        inp, out = out, []
        if not inp:
            break
        for j in range(len(inp)):
            p, q = inp[j - 1], inp[j]
            cp, cq = cross(a, b, p), cross(a, b, q)
            if cq >= 0:
                if cp < 0:
                    out.append(_meet(p, q, cp, cq))
                out.append(q)
            elif cp >= 0:
                out.append(_meet(p, q, cp, cq))
    return _clean(out)


def _meet(p: QPt, q: QPt, cp: Fraction, cq: Fraction) -> QPt:
    t = Fraction(cp) / (cp - cq)
    return (p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1]))


def _clean(poly: list[QPt]) -> list[QPt]:
    """Drop repeated and collinear vertices left by clipping."""
    pts: list[QPt] = []
    for p in poly:
        if not pts or pts[-1] != p:
            pts.append(p)
    while len(pts) > 1 and pts[0] == pts[-1]:
        pts.pop()
    changed = True
    while changed and len(pts) >= 3:
        changed = False
        for i in range(len(pts)):
            if cross(pts[i - 1], pts[i], pts[(i + 1) % len(pts)]) == 0:
                pts.pop(i)
                changed = True
                break
    return pts if len(pts) >= 3 else []


def strictly_inside(p: Any, poly: list[Any]) -> bool:
    n = len(poly)
    return n >= 3 and all(cross(poly[i], poly[(i + 1) % n], p) > 0 for i in range(n))


def seg_dist2(p: Any, a: Any, b: Any) -> Fraction:
    """Squared distance from p to segment ab, exact."""
    ax, ay = Fraction(a[0]), Fraction(a[1])
    dx, dy = Fraction(b[0]) - ax, Fraction(b[1]) - ay
    px, py = Fraction(p[0]) - ax, Fraction(p[1]) - ay
    len2 = dx * dx + dy * dy
    t = Fraction(0) if len2 == 0 else min(Fraction(1), max(Fraction(0), (px * dx + py * dy) / len2))
    ex, ey = px - t * dx, py - t * dy
    return ex * ex + ey * ey


def boundary_dist2(p: Any, poly: list[Any]) -> Fraction:
    n = len(poly)
    return min(seg_dist2(p, poly[i], poly[(i + 1) % n]) for i in range(n))


def _fdist2(p: Any, a: tuple[float, float], b: tuple[float, float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    px, py = p[0] - a[0], p[1] - a[1]
    len2 = dx * dx + dy * dy
    t = 0.0 if len2 == 0 else min(1.0, max(0.0, (px * dx + py * dy) / len2))
    ex, ey = px - t * dx, py - t * dy
    return ex * ex + ey * ey


def within_margin(p: Any, poly: list[Any], limit: Fraction) -> bool:
    """boundary_dist2(p, poly) < limit, decided in floats and re-checked exactly only when too close to call.

    Exact Fraction distances for every lattice point would dominate the generation time.
    """
    fpoly = [(float(x), float(y)) for x, y in poly]
    n = len(fpoly)
    d = min(_fdist2(p, fpoly[i], fpoly[(i + 1) % n]) for i in range(n))
    lim = float(limit)
    if abs(d - lim) > 1e-9 * max(1.0, lim):
        return d < lim
    return boundary_dist2(p, poly) < limit


# -- scene helpers ----------------------------------------------------------------------------------------


def points_of(scene: dict[str, Any], colour: str) -> list[Pt]:
    for s in scene["sets"]:
        if s["colour"] == colour:
            return [(int(x), int(y)) for x, y in s["points"]]
    raise KeyError(colour)


def region_of(hulls: list[list[Any]]) -> list[Any]:
    """The counted region: the single hull, or the intersection of the two hulls."""
    if len(hulls) == 1:
        return list(hulls[0])
    return clip_convex(hulls[0], hulls[1])


def scene_scale(grid: int) -> int:
    return PLOT_SPAN // grid


def legible_limit(scale: int) -> Fraction:
    """Squared lattice distance below which a hull-colour point reads as lying on its hull's edge: the smallest
    counting margin, so that its marker, too, stays visibly clear of the drawn edge or sits on a vertex."""
    return Fraction(MIN_MARGIN_PX, scale) ** 2


def check_hull_legible(pts: list[Pt], hull: list[Pt], limit: Fraction) -> None:
    """Reject hulls whose vertices are hard to tell: a point (almost) on an edge, or an (almost) straight vertex."""
    n = len(hull)
    for p in pts:
        if p in hull:
            continue
        if any(cross(hull[i], hull[(i + 1) % n], p) == 0 for i in range(n)):
            raise Reject("a hull-colour point is collinear with a hull edge")
        if within_margin(p, hull, limit):
            raise Reject("a hull-colour point lies within the margin of its hull boundary")
    for i in range(n):
        if seg_dist2(hull[i], hull[i - 1], hull[(i + 1) % n]) < limit:
            raise Reject("a hull vertex is nearly collinear with its neighbours")


def tidy_hull_set(rng: random.Random, pts: list[Pt], free: list[Pt], limit: Fraction) -> list[Pt]:
    """The same number of points with a legible hull: vertices that barely bend the outline are dropped, points
    blurring into an edge are dropped, and the shortfall is refilled with free points well inside the hull.

    Random sets of many points almost always have some point close to an edge, so rejecting them outright
    would make large hulls ever rarer; repairing keeps the hull-point range usable up to its limit.
    """
    n = len(pts)
    pts = list(pts)
    for _ in range(n):
        hull = convex_hull(pts)
        if len(hull) < 3:
            raise Reject("degenerate hull")
        m = len(hull)
        bent = [v for i, v in enumerate(hull) if seg_dist2(v, hull[i - 1], hull[(i + 1) % m]) < limit]
        if bent:
            pts.remove(bent[0])
            continue
        blurred = {p for p in pts if p not in hull and within_margin(p, hull, limit)}
        if not blurred:
            break
        pts = [p for p in pts if p not in blurred]
    hull = convex_hull(pts)
    if len(hull) < 3:
        raise Reject("degenerate hull")
    room = [p for p in free if p not in pts and strictly_inside(p, hull) and not within_margin(p, hull, limit)]
    if len(room) < n - len(pts):
        raise Reject("no room to refill the hull's interior")
    return pts + rng.sample(room, n - len(pts))


def check_scene(scene: dict[str, Any]) -> None:
    """Raise Reject when the scene is degenerate or its count is fragile."""
    all_pts = [tuple(p) for s in scene["sets"] for p in s["points"]]
    if len(set(all_pts)) != len(all_pts):
        raise Reject("two markers on the same lattice point")
    scale = scene["scale_px"]
    if scale < 2 * MARKER_R + 4:
        raise Reject("markers would overlap at this scale")
    limit = Fraction(scene["margin_px"], scale) ** 2
    grid = scene["grid"]
    if any(not (0 <= x <= grid and 0 <= y <= grid) for x, y in all_pts):
        raise Reject("point off the lattice")
    hulls = []
    for colour in scene["hull_colours"]:
        pts = points_of(scene, colour)
        hull = convex_hull(pts)
        if len(hull) < 3 or area2(hull) <= 0:
            raise Reject(f"degenerate hull of {colour}")
        check_hull_legible(pts, hull, legible_limit(scale))
        hulls.append(hull)
    region = region_of(hulls)
    if len(region) < 3 or area2(region) < 2 * scene["min_region_area"]:
        raise Reject("counted region empty or too small")
    for p in points_of(scene, scene["count_colour"]):
        if within_margin(p, region, limit):
            raise Reject("a counted point lies within the margin of the region boundary")


def bounding_box(point_sets: list[list[Pt]]) -> tuple[int, int, int, int]:
    """(x0, y0, x1, y1): the overlap of the point sets' bounding boxes, which holds the counted region."""
    boxes = [
        (min(x for x, _ in ps), min(y for _, y in ps), max(x for x, _ in ps), max(y for _, y in ps))
        for ps in point_sets
    ]
    return (max(b[0] for b in boxes), max(b[1] for b in boxes), min(b[2] for b in boxes), min(b[3] for b in boxes))


def classify_lattice(
    grid: int, hulls: list[list[Pt]], region: list[Any], box: tuple[int, int, int, int], taken: set[Pt], limit: Fraction
) -> tuple[list[Pt], list[Pt], list[Pt], list[Pt]]:
    """Free lattice points clear of the region's margin band, as (inside the region, near it but outside, in the
    bounding box but not near, outside the box). Near: inside one hull of an overlap pair or within 2 units."""
    inside: list[Pt] = []
    near: list[Pt] = []
    boxed: list[Pt] = []
    far: list[Pt] = []
    fregion = [(float(x), float(y)) for x, y in region]
    n_reg = len(fregion)
    x0, y0, x1, y1 = box
    for x in range(grid + 1):
        for y in range(grid + 1):
            p = (x, y)
            if p in taken or within_margin(p, fregion, limit):
                continue
            # Points outside the margin band are far from every edge, so float signs are reliable here;
            # check_scene and solve redo everything exactly.
            if all(cross(fregion[i], fregion[(i + 1) % n_reg], p) > 0 for i in range(n_reg)):
                inside.append(p)
            elif not (x0 < x < x1 and y0 < y < y1):
                far.append(p)
            elif any(strictly_inside(p, h) for h in hulls) or within_margin(p, fregion, Fraction(4)):
                near.append(p)
            else:
                boxed.append(p)
    return inside, near, boxed, far


# -- formatting -------------------------------------------------------------------------------------------


def fmt_num(v: Any) -> str:
    v = Fraction(v)
    if v.denominator == 1:
        return str(v.numerator)
    return f"{float(v):.2f}".rstrip("0").rstrip(".")


def fmt_pt(p: Any) -> str:
    return f"({fmt_num(p[0])}, {fmt_num(p[1])})"


def fmt_pts(ps: list[Any]) -> str:
    return ", ".join(fmt_pt(p) for p in ps)


@register
class ConvexHull(Task):
    name = "convex_hull"
    config_cls = ConvexHullConfig
    presets = {
        "easy": ConvexHullConfig(
            grid=10,
            n_colours=2,
            min_hull_points=5,
            max_hull_points=7,
            min_answer=0,
            max_answer=4,
            box_extra=2,
            min_far=1,
            max_far=3,
            overlap_prob=0.0,
            near_frac=0.3,
            min_other=0,
            max_other=0,
        ),
        "medium": ConvexHullConfig(),
        "hard": ConvexHullConfig(
            grid=18,
            n_colours=3,
            min_hull_points=8,
            max_hull_points=12,
            min_answer=1,
            max_answer=8,
            box_extra=3,
            min_far=3,
            max_far=5,
            overlap_prob=0.7,
            near_frac=0.75,
            min_other=5,
            max_other=8,
        ),
    }
    colour_pools = (MARKERS,)
    limits = {
        "grid": Limit(
            8,
            33,
            "lattice size: markers need 20 px per unit (660 px // grid), and the lattice scan grows with its square",
        ),
        "n_colours": Limit(
            2, len(MARKERS), "one counted colour, one or two hull colours, the rest idle; one marker shape per colour"
        ),
        "min_hull_points": Limit(
            5,
            16,
            "fewer points span hulls too small to hold the counted points; more fill "
            "the hull's bounding box and leave no room for distractors",
        ),
        "max_hull_points": Limit(
            5,
            16,
            "fewer points span hulls too small to hold the counted points; more fill "
            "the hull's bounding box and leave no room for distractors",
        ),
        "min_answer": Limit(0, 12, "counted points strictly inside the region, which must hold max_answer"),
        "max_answer": Limit(0, 12, "counted points strictly inside the region, which must hold max_answer"),
        "box_extra": Limit(0, 8, "distractors inside the hull colours' bounding box beyond max_answer"),
        "min_far": Limit(0, 12, "counted points outside the bounding box"),
        "max_far": Limit(0, 12, "counted points outside the bounding box"),
        "overlap_prob": Limit(0, 1, "a share"),
        "near_frac": Limit(0, 1, "a share"),
        "min_other": Limit(0, 12, "points of each uninvolved colour"),
        "max_other": Limit(0, 12, "points of each uninvolved colour"),
        "margin_px": Limit(
            MIN_MARGIN_PX,
            30,
            f"a counted marker reaches {MARKER_REACH:.1f} px from its point, the "
            f"drawn edge {EDGE_WIDTH / 2:g} px from its line, and "
            f"{MIN_GAP_PX:g} px of white must stay between them; wider margins "
            "leave too few lattice points",
        ),
    }
    version = "5"
    description = (
        "Coloured lattice point sets; count the points of one colour strictly inside the convex hull "
        "of another colour or inside the overlap of two hulls."
    )

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        if config.overlap_prob > 0 and config.n_colours < 3:
            raise ParameterError(
                f"parameters of task {self.name}: overlap_prob {config.overlap_prob} needs "
                f"n_colours >= 3 (the overlap form intersects the hulls of two colours)"
            )
        demand = 2 * config.max_answer - config.min_answer + config.box_extra
        if demand > 4 * config.grid - 30:
            raise ParameterError(
                f"parameters of task {self.name}: a {config.grid} x {config.grid} lattice cannot reliably hold "
                f"max_answer counted points inside the region plus max_answer - min_answer + box_extra distractors "
                f"in its bounding box: 2 * max_answer - min_answer + box_extra = {demand} must not exceed "
                f"4 * grid - 30 = {4 * config.grid - 30} (measured: below that, even the most crowded settings "
                f"accept one scene in 70 attempts)"
            )

    # -- sampling ---------------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        lo, hi = cfg.min_answer, cfg.max_answer
        target = lo + ctx.balanced(hi - lo + 1, "count")
        # The form is fixed per index, not redrawn per attempt: hull scenes are accepted more often than overlap
        # scenes, so a form redrawn on every rejection would fall short of overlap_prob. Over every block of 100
        # consecutive indices the overlap share is exactly overlap_prob rounded to a whole percent.
        overlap = cfg.n_colours >= 3 and ctx.balanced(100, "form") < round(100 * cfg.overlap_prob)
        colours = rng.sample(sorted(MARKERS), cfg.n_colours)
        count_colour = colours[0]
        hull_colours = colours[1:3] if overlap else colours[1:2]
        grid = cfg.grid
        sets: dict[str, list[Pt]] = {}
        taken: set[Pt] = set()
        for colour in hull_colours:
            pts = self._hull_set(rng, grid, (cfg.min_hull_points, cfg.max_hull_points), taken, overlap)
            sets[colour] = pts
            taken.update(pts)
        hulls = [convex_hull(sets[c]) for c in hull_colours]
        if any(len(h) < 3 for h in hulls):
            raise Reject("degenerate hull")
        scale = scene_scale(grid)
        limit = Fraction(cfg.margin_px, scale) ** 2
        for colour, hull in zip(hull_colours, hulls, strict=True):
            check_hull_legible(sets[colour], hull, legible_limit(scale))
        region = region_of(hulls)
        if len(region) < 3:
            raise Reject("hulls do not overlap")
        sets[count_colour] = self._counted(
            rng, target, hulls, region, bounding_box([sets[c] for c in hull_colours]), taken, limit
        )
        taken.update(sets[count_colour])
        for colour in colours:
            if colour not in sets:
                free = [(x, y) for x in range(grid + 1) for y in range(grid + 1) if (x, y) not in taken]
                sets[colour] = rng.sample(free, rng.randint(cfg.min_other, cfg.max_other))
                taken.update(sets[colour])
        scene = {
            "grid": grid,
            "scale_px": scale,
            "margin_px": cfg.margin_px,
            "min_region_area": 2,
            "form": "overlap" if overlap else "hull",
            "count_colour": count_colour,
            "hull_colours": hull_colours,
            "sets": [
                {"colour": c, "marker": MARKERS[c], "points": [list(p) for p in sets[c]]} for c in colours if sets[c]
            ],
        }
        check_scene(scene)
        return scene

    def _counted(
        self,
        rng: random.Random,
        target: int,
        hulls: list[list[Pt]],
        region: list[Any],
        box: tuple[int, int, int, int],
        taken: set[Pt],
        limit: Fraction,
    ) -> list[Pt]:
        """The counted colour's points: `target` inside the region, in-box distractors up to a total in the box
        drawn independently of `target`, and a few points outside the box.

        Room is checked against the largest demand of any count, never this scene's own, so that which hulls
        are kept does not depend on the count (a region's size must not hint at it)."""
        cfg = self.config
        inside, near, boxed, far = classify_lattice(self.config.grid, hulls, region, box, taken, limit)
        most_distractors = cfg.max_answer - cfg.min_answer + cfg.box_extra
        if len(inside) < cfg.max_answer:
            raise Reject("not enough room for the counted points inside the region")
        if len(near) + len(boxed) < most_distractors:
            raise Reject("not enough room for the distractors in the bounding box")
        if len(far) < cfg.max_far:
            raise Reject("not enough room for the counted points outside the bounding box")
        n_box = cfg.max_answer + rng.randint(0, cfg.box_extra) - target
        n_near = min(len(near), round(n_box * cfg.near_frac))
        n_near = max(n_near, n_box - len(boxed))
        n_far = rng.randint(cfg.min_far, cfg.max_far)
        counted = (
            rng.sample(inside, target)
            + rng.sample(near, n_near)
            + rng.sample(boxed, n_box - n_near)
            + rng.sample(far, n_far)
        )
        rng.shuffle(counted)
        return counted

    @staticmethod
    def _hull_set(rng: random.Random, grid: int, n_range: tuple[int, int], taken: set[Pt], overlap: bool) -> list[Pt]:
        """Points in a random box; boxes for the overlap form are large enough that two hulls usually meet."""
        frac = 0.65 if overlap else 0.8
        w = max(3, round(grid * rng.uniform(frac, 1.0)))
        h = max(3, round(grid * rng.uniform(frac, 1.0)))
        x0, y0 = rng.randint(0, grid - w), rng.randint(0, grid - h)
        free = [(x, y) for x in range(x0, x0 + w + 1) for y in range(y0, y0 + h + 1) if (x, y) not in taken]
        n = rng.randint(*n_range)
        if len(free) < n:
            raise Reject("box too crowded")
        return tidy_hull_set(rng, rng.sample(free, n), free, legible_limit(scene_scale(grid)))

    # -- solving ----------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        hulls = [convex_hull(points_of(scene, c)) for c in scene["hull_colours"]]
        region = region_of(hulls)
        counted = sorted(p for p in points_of(scene, scene["count_colour"]) if strictly_inside(p, region))
        details = {
            "hulls": {c: [list(v) for v in h] for c, h in zip(scene["hull_colours"], hulls, strict=True)},
            "region": [[str(Fraction(x)), str(Fraction(y))] for x, y in region],
            "inside_points": [list(p) for p in counted],
        }
        return Solution(answer=str(len(counted)), states=[details["hulls"], details["inside_points"]], details=details)

    def question(self, scene: dict[str, Any]) -> str:
        x = scene["count_colour"]
        desc = {s["colour"]: f"{s['colour']} ({s['marker']}s)" for s in scene["sets"]}
        hc = scene["hull_colours"]
        kinds = ", ".join(desc[s["colour"]] for s in scene["sets"])
        intro = (
            f"The picture shows points of {len(scene['sets'])} colours on an integer lattice: {kinds}. "
            "The convex hull of a set of points is the smallest convex polygon containing all of them. "
        )
        if scene["form"] == "hull":
            what = f"the convex hull of the {hc[0]} points"
        else:
            what = (
                f"the overlap (intersection) of the convex hull of the {hc[0]} points and the convex hull "
                f"of the {hc[1]} points"
            )
        return (
            intro + f"How many {x} points lie strictly inside {what}? No {x} point lies on or near the "
            "boundary of that region. Answer with a single integer."
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        # The generator balances its counts over the configured range, so that range is every count the
        # question can have under this configuration (and a guesser knowing the suite's design gets 1/size).
        lo, hi = self.config.min_answer, self.config.max_answer
        return integers(lo, hi, f"the counts {lo} to {hi} (min_answer..max_answer)")

    # -- rendering --------------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        hulls = [[tuple(v) for v in solution.details["hulls"][c]] for c in scene["hull_colours"]]
        inside = [tuple(p) for p in solution.details["inside_points"]]
        image = self.render_input(scene, solution)
        step1 = self._draw(scene, hulls=hulls)
        step2 = self._draw(scene, hulls=hulls, highlight=inside, examined=points_of(scene, scene["count_colour"]))
        return Rendering(
            image=image,
            steps=[(step1.image(), self._hull_text(scene, hulls)), (step2.image(), self._count_text(scene, inside))],
        )

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._draw(scene).image()

    def _hull_text(self, scene: dict[str, Any], hulls: list[list[Any]], wrong: str = "") -> str:
        parts = [
            f"The convex hull of the {c} points has {len(h)} vertices (counter-clockwise): {fmt_pts(h)}."
            for c, h in zip(scene["hull_colours"], hulls, strict=True)
        ]
        if scene["form"] == "overlap":
            region = region_of(hulls)
            parts.append(
                f"Their overlap (shaded) has {len(region)} vertices (rounded to 2 decimals): {fmt_pts(region)}."
            )
        else:
            parts.append("The hull is shaded.")
        return wrong + " ".join(parts)

    def _count_text(self, scene: dict[str, Any], inside: list[Any]) -> str:
        # The rings are the state; their number is the answer, so the text lists the ringed points (what the
        # picture shows) and leaves the counting to the reader.
        x = scene["count_colour"]
        where = "the overlap" if scene["form"] == "overlap" else f"the {scene['hull_colours'][0]} hull"
        if not inside:
            return (
                f"Every {x} point is ringed in thin grey: none lies strictly inside {where} (a point strictly "
                "inside would be ringed in thick black)."
            )
        return (
            f"The {x} points strictly inside {where} are ringed in thick black: {fmt_pts(inside)}; the other "
            f"{x} points are ringed in thin grey."
        )

    def _draw(
        self,
        scene: dict[str, Any],
        hulls: list[list[Any]] | None = None,
        highlight: list[Pt] | None = None,
        examined: list[Any] | None = None,
    ) -> Canvas:
        """`highlight`: points ringed in thick black (strictly inside); `examined`: the counted points, the
        others of which are ringed in thin grey, so the counting step differs from the hull step even when
        no point is inside."""
        grid, scale = scene["grid"], scene["scale_px"]
        c = Canvas(CANVAS, CANVAS)
        origin_y = CANVAS - PLOT_LO

        def px(p: Any) -> tuple[float, float]:
            return (PLOT_LO + float(p[0]) * scale, origin_y - float(p[1]) * scale)

        top = origin_y - grid * scale
        right = PLOT_LO + grid * scale
        for k in range(grid + 1):
            x, y = PLOT_LO + k * scale, origin_y - k * scale
            c.line([(x, top), (x, origin_y)], "lightgray", 1)
            c.line([(PLOT_LO, y), (right, y)], "lightgray", 1)
            if k % 2 == 0 or grid <= 10:
                c.text((x, origin_y + 8), str(k), size=16, color="darkgray", anchor="mt")
                c.text((PLOT_LO - 8, y), str(k), size=16, color="darkgray", anchor="rm")
        if hulls:
            fills = {"red": "lightred", "blue": "lightblue", "green": "lightgreen", "orange": "lightyellow"}
            if scene["form"] == "hull":
                c.polygon(
                    [px(v) for v in hulls[0]], fill=fills[scene["hull_colours"][0]], outline=None, fill_opacity=150
                )
            else:
                region = region_of(hulls)
                c.polygon([px(v) for v in region], fill="yellow", outline=None, fill_opacity=140)
            for colour, hull in zip(scene["hull_colours"], hulls, strict=True):
                c.polygon([px(v) for v in hull], fill=None, outline=colour, width=EDGE_WIDTH)
        for s in scene["sets"]:
            for p in s["points"]:
                _marker(c, px(p), s["colour"], s["marker"])
        ringed = {tuple(float(v) for v in p) for p in highlight or []}
        for p in examined or []:
            if tuple(float(v) for v in p) not in ringed:
                c.circle(px(p), MARKER_R + 6, fill=None, outline="gray", width=1)
        for p in highlight or []:
            c.circle(px(p), MARKER_R + 6, fill=None, outline="black", width=3)
        return c

    # -- corruption -------------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One hull vertex misread: the point taken a few lattice steps off (onto a free lattice point), and
        the hull, the overlap and the ringed points worked out from the misread points, chosen so that the
        count changes.

        The corrupted steps are the true steps of the misread scene (the point is drawn where it was misread),
        so every stated hull is the convex hull of the points of its colour as drawn and every ringed point lies
        strictly inside the stated region, as a right step's are; only the point read off the picture is
        wrong."""
        hull_colours = scene["hull_colours"]
        true_count = int(solution.answer)
        taken = {tuple(p) for st in scene["sets"] for p in st["points"]}
        offsets = [(dx, dy) for dx in range(-3, 4) for dy in range(-3, 4) if (dx, dy) != (0, 0)]
        variants: list[tuple[str, Pt, Pt]] = []
        for colour in hull_colours:
            for v in convex_hull(points_of(scene, colour)):
                for dx, dy in offsets:
                    moved = (v[0] + dx, v[1] + dy)
                    if moved not in taken and 0 <= moved[0] <= scene["grid"] and 0 <= moved[1] <= scene["grid"]:
                        variants.append((colour, v, moved))
        rng.shuffle(variants)
        for colour, v, moved in variants:
            wrong = copy.deepcopy(scene)
            for st in wrong["sets"]:
                if st["colour"] == colour:
                    st["points"] = [list(moved) if tuple(p) == v else p for p in st["points"]]
            wrong_hulls = [convex_hull(points_of(wrong, c)) for c in hull_colours]
            if any(len(h) < 3 for h in wrong_hulls):
                continue
            region = region_of(wrong_hulls)
            if len(region) < 3:
                continue
            inside = sorted(p for p in points_of(wrong, wrong["count_colour"]) if strictly_inside(p, region))
            if len(inside) == true_count:
                continue

            def draw(
                wrong: dict[str, Any] = wrong, wrong_hulls: list[list[Pt]] = wrong_hulls, inside: list[Pt] = inside
            ) -> list[tuple[Image.Image, str]]:
                step1 = self._draw(wrong, hulls=wrong_hulls)
                step2 = self._draw(
                    wrong, hulls=wrong_hulls, highlight=inside, examined=points_of(wrong, wrong["count_colour"])
                )
                return [
                    (step1.image(), self._hull_text(wrong, wrong_hulls)),
                    (step2.image(), self._count_text(wrong, inside)),
                ]

            desc = f"{colour} point {fmt_pt(v)} misread at {fmt_pt(moved)}; count {len(inside)} instead of {true_count}"
            # The ringed points of the misread scene are what the corrupted count step leaves to be counted.
            return Corruption(steps=draw, description=desc, answer=str(len(inside)), scene=wrong)
        return None


def _marker(c: Canvas, at: tuple[float, float], colour: str, shape: str) -> None:
    x, y = at
    r = MARKER_R
    if shape == "circle":
        c.circle(at, r, fill=colour, outline="black", width=1.2)
    elif shape == "square":
        c.rect((x - r * 0.85, y - r * 0.85, x + r * 0.85, y + r * 0.85), fill=colour, outline="black", width=1.2)
    elif shape == "triangle":
        c.polygon(
            [(x, y - r * 1.1), (x + r, y + r * 0.75), (x - r, y + r * 0.75)], fill=colour, outline="black", width=1.2
        )
    else:
        c.polygon(
            [(x, y - r * 1.15), (x + r * 1.15, y), (x, y + r * 1.15), (x - r * 1.15, y)],
            fill=colour,
            outline="black",
            width=1.2,
        )
