"""billiards (PBR): which pocket does a ball fall into after perfect bounces on a six-pocket table.

The table is the rectangle [0, W] x [0, H] in grid units (the region the ball's centre can reach; the ball is
a point). Pockets sit at the four corners and the centres of the two long sides. The ball starts at a grid
point and moves along a direction (dx, dy) of small integers, so every bounce point is rational and the
simulation is exact (fractions.Fraction). At a cushion the direction component normal to it flips and the
tangential one is kept. The ball falls into a pocket when its path passes within `capture` of the pocket's
centre; paths that come within `near_miss` of another pocket, or that fall in only by grazing the capture
circle (distance above `graze`), are rejected as fragile.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Limit, ParameterError, Reject, Rendering, Solution, Task

QPt = tuple[Fraction, Fraction]
LETTERS = "ABCDEF"
CANVAS = 768
MAX_SCALE = 80  # pixels per grid unit at most, so small tables do not get giant pockets
MARGIN = 78  # pixels around the playing area (cushion, pocket labels, tick labels)
CAPTURE = Fraction(2, 5)
NEAR_MISS = Fraction(3, 4)
GRAZE = Fraction(1, 5)
_WIDTH_WHY = (
    "table width in grid units, drawn even: one grid line and tick label per unit, and 24 keeps the labels "
    "apart; tables narrower than 8 crowd the six pockets"
)
_HEIGHT_WHY = "table height in grid units, below the width; below 4 few paths pass the pockets cleanly"
_BOUNCES_WHY = (
    "bounces before the pocket, one step picture each; at least one, so that the path is more than a "
    "straight shot along the arrow"
)


@dataclass(frozen=True)
class BilliardsConfig:
    # Plain ints (no tuples) so that params() survives the JSON round trip.
    min_width: int = 10  # table width W: an even number in [min_width, max_width]
    max_width: int = 12
    min_height: int = 6  # table height H in [min_height, max_height], always < W
    max_height: int = 8
    min_bounces: int = 2  # accepted bounce counts before the pocket
    max_bounces: int = 4
    max_component: int = 2  # |dx|, |dy| <= this


def pockets(width: int, height: int) -> list[tuple[int, int]]:
    """Pocket centres in counter-clockwise order from the bottom-left corner."""
    half = width // 2
    return [(0, 0), (half, 0), (width, 0), (width, height), (half, height), (0, height)]


def pocket_labels(scene: dict[str, Any]) -> dict[str, tuple[int, int]]:
    return {
        lab: tuple(p) for lab, p in zip(scene["pocket_labels"], pockets(scene["width"], scene["height"]), strict=True)
    }


def seg_closest(a: QPt, b: QPt, c: tuple[int, int]) -> tuple[Fraction, Fraction]:
    """(t, squared distance) of the point of segment ab closest to c; t in [0, 1]."""
    dx, dy = b[0] - a[0], b[1] - a[1]
    len2 = dx * dx + dy * dy
    t = min(Fraction(1), max(Fraction(0), ((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / len2))
    ex, ey = a[0] + t * dx - c[0], a[1] + t * dy - c[1]
    return t, ex * ex + ey * ey


@dataclass
class Path:
    points: list[QPt]  # start, bounce points..., final point (closest approach to the pocket)
    walls: list[str]  # cushion of each bounce
    directions: list[tuple[int, int]]  # direction of each segment
    pocket: tuple[int, int] | None


def simulate(width: int, height: int, start: QPt, d: tuple[int, int], max_bounces: int, strict: bool = True) -> Path:
    """Follow the ball until it falls into a pocket; strict mode raises Reject on fragile paths."""
    pos = (Fraction(start[0]), Fraction(start[1]))
    dx, dy = d
    path = Path(points=[pos], walls=[], directions=[], pocket=None)
    centres = pockets(width, height)
    for _ in range(max_bounces + 1):
        tx = (Fraction(width if dx > 0 else 0) - pos[0]) / dx if dx else None
        ty = (Fraction(height if dy > 0 else 0) - pos[1]) / dy if dy else None
        t = min(v for v in (tx, ty) if v is not None)
        end = (pos[0] + t * dx, pos[1] + t * dy)
        path.directions.append((dx, dy))
        hits = []
        for c in centres:
            tc, dist2 = seg_closest(pos, end, c)
            if dist2 <= CAPTURE**2:
                hits.append((tc, dist2, c))
            elif strict and dist2 < NEAR_MISS**2:
                raise Reject("path passes near a pocket it does not enter")
        if hits:
            if strict and len(hits) > 1:
                raise Reject("segment passes over two pockets")
            tc, dist2, c = min(hits)
            if strict and dist2 > GRAZE**2:
                raise Reject("ball only grazes the pocket")
            path.points.append((pos[0] + tc * (end[0] - pos[0]), pos[1] + tc * (end[1] - pos[1])))
            path.pocket = c
            return path
        if tx is not None and ty is not None and tx == ty:
            raise Reject("ball hits a corner without a pocket")  # unreachable: corners hold pockets
        if ty is None or (tx is not None and tx < ty):
            path.walls.append("right" if dx > 0 else "left")
            dx = -dx
        else:
            path.walls.append("top" if dy > 0 else "bottom")
            dy = -dy
        path.points.append(end)
        pos = end
    if strict:
        raise Reject("no pocket within the bounce budget")
    return path


def backtrack(
    width: int, height: int, pocket: tuple[int, int], e: tuple[int, int], bounces: int, rng: random.Random
) -> tuple[tuple[int, int], tuple[int, int]]:
    """A lattice start point and direction whose path reaches `pocket` after exactly `bounces` bounces.

    Runs the reflection rule backwards from the pocket along e. Integer pocket, integer direction and integer
    table sides keep the points at integer path parameter on the lattice, so the start is drawn among those
    strictly between the `bounces`-th and the next cushion contact.
    """
    pos = (Fraction(pocket[0]), Fraction(pocket[1]))
    ex, ey = e
    travelled = Fraction(0)
    for k in range(bounces + 1):
        tx = (Fraction(width if ex > 0 else 0) - pos[0]) / ex
        ty = (Fraction(height if ey > 0 else 0) - pos[1]) / ey
        t = min(tx, ty)
        if k == bounces:
            first, last = math.floor(travelled) + 1, math.ceil(travelled + t) - 1
            if first > last:
                raise Reject("no lattice point on the chosen segment")
            u = rng.randint(first, last) - travelled
            return (int(pos[0] + u * ex), int(pos[1] + u * ey)), (-ex, -ey)
        if tx == ty:
            raise Reject("backward path runs into a corner")
        pos = (pos[0] + t * ex, pos[1] + t * ey)
        travelled += t
        if tx < ty:
            ex = -ex
        else:
            ey = -ey
    raise AssertionError("unreachable")


def fmt_q(v: Fraction) -> str:
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


def fmt_pt(p: QPt) -> str:
    return f"({fmt_q(p[0])}, {fmt_q(p[1])})"


def label_pockets(answer_index: int, answer_letter: int, clockwise: bool) -> list[str]:
    """Letters A-F around the table in order, rotated so the answer pocket gets the wanted letter."""
    step = -1 if clockwise else 1
    return [LETTERS[(answer_letter + step * (i - answer_index)) % 6] for i in range(6)]


@register
class Billiards(Task):
    name = "billiards"
    config_cls = BilliardsConfig
    presets = {
        "easy": BilliardsConfig(
            min_width=6, max_width=8, min_height=4, max_height=6, min_bounces=1, max_bounces=2, max_component=2
        ),
        "medium": BilliardsConfig(),
        "hard": BilliardsConfig(
            min_width=12, max_width=14, min_height=8, max_height=10, min_bounces=3, max_bounces=6, max_component=3
        ),
    }
    version = "3"
    # The last step's path ends in the pocket, ringed in yellow: the picture shows where the ball drops, as
    # MIRA's do, while no text names that pocket's letter.
    final_state_shows = "the yellow-ringed pocket where the drawn path ends"
    description = (
        "A six-pocket table with a ball and its initial direction; perfect bounces; which pocket "
        "does the ball fall into."
    )
    limits = {
        "min_width": Limit(6, 24, _WIDTH_WHY),
        "max_width": Limit(8, 24, _WIDTH_WHY),
        "min_height": Limit(4, 23, _HEIGHT_WHY),
        "max_height": Limit(4, 23, _HEIGHT_WHY),
        "min_bounces": Limit(1, 12, _BOUNCES_WHY),
        "max_bounces": Limit(1, 12, _BOUNCES_WHY),
        "max_component": Limit(
            1,
            4,
            "largest |dx|, |dy| of the direction: the arrow from the ball to the grid point "
            "(x + dx, y + dy) must stay on the table",
        ),
    }

    def check_config(self, config: BilliardsConfig) -> None:
        super().check_config(config)
        narrowest = 2 * ((config.min_width + 1) // 2)
        if narrowest > config.max_width:
            raise ParameterError(
                f"parameters of task {self.name}: min_width..max_width ({config.min_width}.."
                f"{config.max_width}) holds no even width (the side pockets sit at the middle)"
            )
        if config.min_height >= narrowest:
            raise ParameterError(
                f"parameters of task {self.name}: min_height ({config.min_height}) must be below the "
                f"narrowest even width ({narrowest}): the table is wider than tall"
            )
        if config.min_bounces > config.max_width // 2:
            # Measured: paths of more bounces on a narrower table almost all pass near another pocket.
            raise ParameterError(
                f"parameters of task {self.name}: min_bounces ({config.min_bounces}) must be at most "
                f"max_width / 2 = {config.max_width // 2} (longer paths on a narrower table pass "
                "near another pocket)"
            )

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        """Trace a path backwards out of a balanced pocket, then verify it forwards.

        Sampling forwards lets side pockets win about two thirds of the time; starting from the pocket
        balances the six physical pockets (and, separately, the six letters) exactly.
        """
        cfg, rng = self.config, ctx.rng
        letter = ctx.balanced(6, "letter")
        target = ctx.balanced(6, "pocket")
        width = 2 * rng.randint((cfg.min_width + 1) // 2, cfg.max_width // 2)
        height = rng.randint(cfg.min_height, min(cfg.max_height, width - 1))
        pocket = pockets(width, height)[target]
        comps = range(1, cfg.max_component + 1)
        a, b = rng.choice([(a, b) for a in comps for b in comps if gcd(a, b) == 1])
        # Leaving the pocket into the table: away from the walls the pocket sits on.
        ex = a if pocket[0] == 0 else -a if pocket[0] == width else a * rng.choice((1, -1))
        ey = b if pocket[1] == 0 else -b
        bounces = rng.randint(cfg.min_bounces, cfg.max_bounces)
        start, d = backtrack(width, height, pocket, (ex, ey), bounces, rng)
        if not (0 < start[0] + d[0] < width and 0 < start[1] + d[1] < height):
            raise Reject("direction arrow would leave the table")
        path = simulate(width, height, start, d, cfg.max_bounces)
        if path.pocket != pocket or len(path.walls) != bounces:
            raise Reject("forward path meets another pocket first")
        return {
            "width": width,
            "height": height,
            "start": list(start),
            "direction": list(d),
            "pocket_labels": label_pockets(target, letter, rng.random() < 0.5),
            "max_bounces": cfg.max_bounces,
            "capture": str(CAPTURE),
            "near_miss": str(NEAR_MISS),
        }

    def solve(self, scene: dict[str, Any]) -> Solution:
        path = simulate(
            scene["width"], scene["height"], tuple(scene["start"]), tuple(scene["direction"]), scene["max_bounces"]
        )
        letter = {p: lab for lab, p in pocket_labels(scene).items()}[path.pocket]
        details = {
            "points": [[str(x), str(y)] for x, y in path.points],
            "walls": path.walls,
            "directions": [list(d) for d in path.directions],
            "pocket": letter,
            "pocket_centre": list(path.pocket),
        }
        return Solution(answer=letter, states=details["points"], details=details)

    def options(self, scene: dict[str, Any]) -> list[str]:
        return list(LETTERS)

    def question(self, scene: dict[str, Any]) -> str:
        return (
            "The picture shows a billiard table seen from above, with a unit grid, six pockets labelled A-F "
            "(four corners and the middle of each long side), a ball and an arrow giving the ball's initial "
            "direction (the arrow starts at the ball and ends at a grid point). Treat the ball as a point. "
            "It rolls in a straight line without friction, bounces off the cushions (the table edges) "
            "perfectly, with the angle of incidence equal to the angle of reflection, and keeps going until "
            "it passes over a pocket and falls in. Which pocket does it fall into? Answer with the pocket's "
            "letter (one of A, B, C, D, E, F)."
        )

    # -- rendering --------------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        points = [(Fraction(x), Fraction(y)) for x, y in solution.details["points"]]
        return Rendering(
            image=self.render_input(scene, solution),
            steps=self._steps(
                scene, points, solution.details["walls"], [tuple(d) for d in solution.details["directions"]]
            ),
        )

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._draw(scene, []).image()

    def _steps(
        self, scene: dict[str, Any], points: list[QPt], walls: list[str], directions: list[tuple[int, int]]
    ) -> list[tuple[Any, str]]:
        """Step k draws the path up to bounce k; the last step reaches the pocket (states only: no letter)."""
        steps = []
        for k in range(1, len(points)):
            img = self._draw(scene, points[: k + 1], final=k == len(points) - 1)
            a, b = points[k - 1], points[k]
            d = directions[k - 1]
            where = "the start" if k == 1 else f"bounce {k - 1} at {fmt_pt(a)}"
            if k < len(points) - 1:
                wall = walls[k - 1]
                nd = directions[k]
                comp = "x" if wall in ("left", "right") else "y"
                text = (
                    f"Segment {k}: from {where} moving ({d[0]}, {d[1]}), the ball hits the "
                    f"{wall_name(wall, scene)} at {fmt_pt(b)} (bounce {k}). The {comp} component of the direction "
                    f"flips and the other is kept, so it now moves ({nd[0]}, {nd[1]})."
                )
            else:
                # The pocket by its position only: its letter would be the answer (the picture rings it).
                pocket = _nearest_pocket(scene, b)
                text = (
                    f"Segment {k}: from {where} moving ({d[0]}, {d[1]}), the ball reaches the pocket at "
                    f"({pocket[0]}, {pocket[1]}) after {k - 1} bounce{'s' if k - 1 != 1 else ''} and "
                    "falls in."
                )
            steps.append((img.image(), text))
        return steps

    def _geometry(self, scene: dict[str, Any]) -> tuple[float, int, int]:
        w, h = scene["width"], scene["height"]
        scale = min((CANVAS - 2 * MARGIN) / w, (CANVAS - 2 * MARGIN) / h, MAX_SCALE)
        return scale, int(round(w * scale + 2 * MARGIN)), int(round(h * scale + 2 * MARGIN))

    def _draw(self, scene: dict[str, Any], path: list[QPt], final: bool = False) -> Canvas:
        w, h = scene["width"], scene["height"]
        scale, cw, ch = self._geometry(scene)

        def px(p: Any) -> tuple[float, float]:
            return (MARGIN + float(p[0]) * scale, ch - MARGIN - float(p[1]) * scale)

        c = Canvas(cw, ch)
        rail = 0.45 * scale
        x0, y0 = px((0, h))
        x1, y1 = px((w, 0))
        c.rect((x0 - rail, y0 - rail, x1 + rail, y1 + rail), fill="brown", outline=None)
        c.rect((x0, y0, x1, y1), fill=(40, 130, 70), outline=None)
        for i in range(1, w):
            c.line([px((i, 0)), px((i, h))], (75, 160, 100), 1.2)
            if i != w // 2:
                c.text((px((i, 0))[0], y1 + rail + 4), str(i), size=16, color="darkgray", anchor="mt")
        for j in range(1, h):
            c.line([px((0, j)), px((w, j))], (75, 160, 100), 1.2)
            c.text((x0 - rail - 6, px((0, j))[1]), str(j), size=16, color="darkgray", anchor="rm")
        labels = pocket_labels(scene)
        target = path[-1] if final and path else None
        sink = _nearest_pocket(scene, target) if target is not None else None
        for lab, p in labels.items():
            cx, cy = px(p)
            c.circle((cx, cy), float(CAPTURE) * scale, fill="black", outline="yellow" if p == sink else None, width=4)
            ox = -1 if p[0] == 0 else (1 if p[0] == w else 0)
            oy = -1 if p[1] == 0 else 1
            lx = cx + ox * (rail + 16)
            ly = cy - oy * (rail + 16) if ox == 0 else cy - oy * (rail + 10)
            c.text((lx, ly), lab, size=24, bold=True, anchor="mm", color="black")
        sx, sy = scene["start"]
        dx, dy = scene["direction"]
        c.arrow(px((sx, sy)), px((sx + dx, sy + dy)), "white", width=4, head=16)
        if len(path) >= 2:
            c.line([px(p) for p in path], "yellow", 3.5)
            for p in path[1:-1] if final else path[1:]:
                c.circle(px(p), 6, fill="orange", outline="black", width=1.5)
        c.circle(px((sx, sy)), 0.22 * scale, fill="white", outline="black", width=2)
        return c

    # -- corruption -------------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """The arrow misread: its tip taken one grid point off, so the ball is followed along a neighbouring
        direction from the true start. Every step then applies the reflection rule exactly as a right step does
        (the stated flipped component turns the stated direction into the next one); only the direction read
        off the picture is wrong. Neighbouring directions that send the ball to the true pocket are passed over,
        and one needing as many bounces as the true path is preferred (the trajectories then have the same
        steps); without any the scene has no corruption."""
        w, h = scene["width"], scene["height"]
        start = (Fraction(scene["start"][0]), Fraction(scene["start"][1]))
        d = tuple(scene["direction"])
        true_pocket = tuple(solution.details["pocket_centre"])
        bounces = len(solution.details["walls"])
        tips = {(d[0] + ox, d[1] + oy) for ox in (-1, 0, 1) for oy in (-1, 0, 1)}
        options = sorted(t for t in tips if t != d and t[0] and t[1] and gcd(abs(t[0]), abs(t[1])) == 1)
        rng.shuffle(options)
        paths = []
        for nd in options:
            try:
                path = simulate(w, h, start, nd, scene["max_bounces"] + 2, strict=False)
            except Reject:
                continue
            if path.pocket is not None and path.pocket != true_pocket:
                paths.append((len(path.walls) != bounces, nd, path))
        if not paths:
            return None
        _, nd, path = min(paths, key=lambda c: c[0])  # min keeps the shuffled order among equals
        letters = {p: lab for lab, p in pocket_labels(scene).items()}
        desc = (
            f"initial direction read as ({nd[0]}, {nd[1]}) instead of ({d[0]}, {d[1]}); ends in pocket "
            f"{letters[path.pocket]} instead of {solution.answer}"
        )
        # The misread arrow as a scene: the ball followed along `nd` with the bounce budget the corrupted path
        # was simulated with, so the oracle unfolds the same ray to the same pocket.
        wrong = {**scene, "direction": list(nd), "max_bounces": scene["max_bounces"] + 2}
        return Corruption(
            steps=lambda: self._steps(scene, path.points, path.walls, path.directions),
            description=desc,
            answer=letters[path.pocket],
            scene=wrong,
        )


def wall_name(wall: str, scene: dict[str, Any]) -> str:
    """E.g. 'top cushion (y = 6)'."""
    line = {"left": "x = 0", "right": f"x = {scene['width']}", "bottom": "y = 0", "top": f"y = {scene['height']}"}
    return f"{wall} cushion ({line[wall]})"


def _nearest_pocket(scene: dict[str, Any], p: QPt) -> tuple[int, int]:
    return min(pockets(scene["width"], scene["height"]), key=lambda c: (p[0] - c[0]) ** 2 + (p[1] - c[1]) ** 2)
