"""electric_charge (PBR): the compass direction of the net Coulomb force on a target charge.

Charges sit on the points of a square grid. The force of source i on the target T is
F_i = q_T q_i (p_T - p_i) / |p_T - p_i|^3 (Coulomb's constant dropped, it does not change the direction).
Scenes whose net-force angle lies within `boundary_margin_deg` of a boundary between compass sectors, or whose
net force is small next to its largest component, are rejected. The eight answers are balanced by mapping an
accepted configuration with a symmetry of the square grid (rotation / reflection) onto the wanted direction.
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas, hstack
from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, finite
from vcot.tasks.base import Corruption, GenContext, Limit, Reject, Rendering, Solution, Task

# Index k means the sector centred on k*45 degrees counter-clockwise from east (north is up).
DIRECTIONS = ["east", "northeast", "north", "northwest", "west", "southwest", "south", "southeast"]
# The eight symmetries of a square grid as integer matrices (x', y') = (a x + b y, c x + d y) about the centre.
SYMMETRIES: list[tuple[int, int, int, int]] = [
    (1, 0, 0, 1),
    (0, -1, 1, 0),
    (-1, 0, 0, -1),
    (0, 1, -1, 0),  # rotations by 0, 90, 180, 270
    (-1, 0, 0, 1),
    (1, 0, 0, -1),
    (0, 1, 1, 0),
    (0, -1, -1, 0),  # mirrors: vertical, horizontal, diagonals
]
CANVAS = 768  # input picture side
STEP_GRID = 620  # side of the grid panel in step pictures; the force diagram sits to its right
FBD_W = 384
GRID_MARGIN = 0.11  # share of the panel side left around the grid for axis labels
CHARGE_R = 22
FORCE_MAX = 150  # pixels of the largest single force in the force diagram
FORCE_MIN = 22
NET_MAX = 170  # the resultant is drawn on the same scale, capped at this length
TABLE_FONT = 16  # the force table under the step pictures
TABLE_ROW = 24
# A corrupted net force closer than this (degrees) to a sector boundary implies no answer: float rounding could
# put it in either sector (the true scenes keep boundary_margin_deg away; misread ones are not checked).
BOUNDARY_EPS_DEG = 1e-6
UNITS = "units k·q²/spacing², (Fx, Fy) along the grid's x and y axes"
_SOURCES_WHY = (
    "charges besides the target, one row each in the step pictures' force table; with a single one, "
    "its force would be the answer, which the strongest-force balancing allows in one instance of eight"
)
_MAGNITUDE_WHY = "magnitude in units of q, written in the charge's disc as one digit"


@dataclass(frozen=True)
class ElectricChargeConfig:
    grid: int = 7  # grid points 0..grid-1 on each axis
    min_sources: int = 3  # charges other than the target
    max_sources: int = 4
    max_magnitude: int = 3  # source magnitudes 1..max (in units of q)
    target_magnitude: int = 1  # target magnitudes 1..max
    boundary_margin_deg: float = 10.0  # net angle must be this far from every sector boundary
    min_net_ratio: float = 0.15  # |net| must be at least this share of the largest component


def forces(scene: dict[str, Any]) -> list[tuple[float, float]]:
    """Force of each source on the target, in units of k q^2 / (grid spacing)^2."""
    tx, ty = scene["target"]["pos"]
    qt = scene["target"]["q"]
    out = []
    for s in scene["sources"]:
        dx, dy = tx - s["pos"][0], ty - s["pos"][1]
        r2 = dx * dx + dy * dy
        f = qt * s["q"] / (r2 * math.sqrt(r2))
        out.append((f * dx, f * dy))
    return out


def angle_deg(v: tuple[float, float]) -> float:
    """Angle counter-clockwise from east in [0, 360)."""
    return math.degrees(math.atan2(v[1], v[0])) % 360.0


def sector(angle: float) -> int:
    return int(math.floor((angle + 22.5) / 45.0)) % 8


def boundary_distance(angle: float) -> float:
    """Degrees from the angle to the nearest sector boundary (22.5 + 45k)."""
    off = (angle - 22.5) % 45.0
    return min(off, 45.0 - off)


def check_scene(scene: dict[str, Any], margin_deg: float, min_ratio: float) -> None:
    """Reject coinciding charges, near-boundary directions and nearly cancelling forces."""
    spots = [tuple(scene["target"]["pos"])] + [tuple(s["pos"]) for s in scene["sources"]]
    if len(set(spots)) != len(spots):
        raise Reject("two charges on the same grid point")
    n = scene["grid"]
    if any(not (0 <= x < n and 0 <= y < n) for x, y in spots):
        raise Reject("charge off the grid")
    if any(s["q"] == 0 for s in scene["sources"]) or scene["target"]["q"] == 0:
        raise Reject("zero charge")
    fs = forces(scene)
    net = (sum(f[0] for f in fs), sum(f[1] for f in fs))
    biggest = max(math.hypot(*f) for f in fs)
    if math.hypot(*net) < min_ratio * biggest:
        raise Reject("net force too small next to its components")
    if boundary_distance(angle_deg(net)) < margin_deg:
        raise Reject("net force direction too close to a sector boundary")


def transform(scene: dict[str, Any], sym: tuple[int, int, int, int]) -> dict[str, Any]:
    """The scene mapped by a grid symmetry about the grid centre (forces map by the same matrix)."""
    a, b, c, d = sym
    m = scene["grid"] - 1  # twice the centre coordinate; keeps the arithmetic in integers

    def move(p: list[int]) -> list[int]:
        x2, y2 = 2 * p[0] - m, 2 * p[1] - m
        return [(a * x2 + b * y2 + m) // 2, (c * x2 + d * y2 + m) // 2]

    out = dict(scene)
    out["target"] = {**scene["target"], "pos": move(scene["target"]["pos"])}
    out["sources"] = [{**s, "pos": move(s["pos"])} for s in scene["sources"]]
    return out


def charge_label(q: int) -> str:
    return f"{'+' if q > 0 else '−'}{abs(q)}q"


def fmt(v: float) -> str:
    """Signed to 3 decimals; values that round to zero print as 0.000 (no '-0.000')."""
    return "0.000" if abs(v) < 0.0005 else f"{v:+.3f}"


@register
class ElectricCharge(Task):
    name = "electric_charge"
    config_cls = ElectricChargeConfig
    presets = {
        "easy": ElectricChargeConfig(grid=5, min_sources=2, max_sources=2, max_magnitude=2),
        "medium": ElectricChargeConfig(),
        "hard": ElectricChargeConfig(grid=9, min_sources=4, max_sources=6, max_magnitude=4, target_magnitude=2),
    }
    version = "4"
    # The resultant arrow of the last step points the way the question asks about, as a drawn vector on the
    # diagram's axes; no text or label writes the direction word (tests/tasks/test_electric_charge.py).
    final_state_shows = "the thick black net-force arrow in the force diagram"
    description = (
        "Point charges with signs and magnitudes on a grid; the compass direction of the net "
        "Coulomb force on a target charge."
    )
    limits = {
        "grid": Limit(
            3,
            11,
            "grid points per axis: charges are 44 px discs, and above 11 neighbouring ones overlap in "
            "the 620-px grid of the step pictures",
        ),
        "min_sources": Limit(2, 8, _SOURCES_WHY),
        "max_sources": Limit(2, 8, _SOURCES_WHY),  # with the target, 9 charges: they fit the smallest grid
        "max_magnitude": Limit(1, 9, _MAGNITUDE_WHY),
        "target_magnitude": Limit(1, 9, _MAGNITUDE_WHY),
        "boundary_margin_deg": Limit(
            5,
            18,
            "degrees between the net force and the nearest boundary of its 45-degree "
            "sector: below 5 the direction is hard to judge by eye, above 18 most "
            "directions are refused (all at 22.5)",
        ),
        "min_net_ratio": Limit(
            0.05,
            1,
            "|net force| over the largest single force: below 0.05 the forces nearly "
            "cancel and the direction is fragile; above 1 only scenes whose forces "
            "mostly agree are kept",
        ),
    }

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        want = ctx.balanced(8, "direction")
        n = cfg.grid
        spots = rng.sample(
            [(x, y) for x in range(n) for y in range(n)], 1 + rng.randint(cfg.min_sources, cfg.max_sources)
        )
        scene = {
            "grid": n,
            "target": {"pos": list(spots[0]), "q": rng.choice((1, -1)) * rng.randint(1, cfg.target_magnitude)},
            "sources": [
                {"pos": list(p), "q": rng.choice((1, -1)) * rng.randint(1, cfg.max_magnitude)} for p in spots[1:]
            ],
        }
        check_scene(scene, cfg.boundary_margin_deg, cfg.min_net_ratio)
        got = sector(angle_deg(self._net(scene)))
        # Grid symmetries keep cardinal and diagonal directions apart, so the parity must already match.
        if got % 2 != want % 2:
            raise Reject("direction class differs from the balanced target")
        matches = [s for s in SYMMETRIES if sector(angle_deg(self._net(transform(scene, s)))) == want]
        scene = transform(scene, rng.choice(matches))
        check_scene(scene, cfg.boundary_margin_deg, cfg.min_net_ratio)
        # The single strongest force points the net force's way in most random scenes, so reading that one
        # arrow would beat chance by far (vcot audit). Balance it: it agrees with the answer in exactly one
        # instance of every eight, as often as a guess would.
        fs = forces(scene)
        strongest = max(fs, key=lambda f: f[0] * f[0] + f[1] * f[1])
        if (sector(angle_deg(strongest)) == want) != (ctx.balanced(8, "strongest-force cue") == 0):
            raise Reject("the strongest single force's direction would give the answer away (or must)")
        scene["boundary_margin_deg"] = cfg.boundary_margin_deg
        scene["min_net_ratio"] = cfg.min_net_ratio
        return scene

    @staticmethod
    def _net(scene: dict[str, Any]) -> tuple[float, float]:
        fs = forces(scene)
        return (sum(f[0] for f in fs), sum(f[1] for f in fs))

    def solve(self, scene: dict[str, Any]) -> Solution:
        fs = forces(scene)
        net = (sum(f[0] for f in fs), sum(f[1] for f in fs))
        ang = angle_deg(net)
        answer = DIRECTIONS[sector(ang)]
        details = {
            "forces": [[round(fx, 6), round(fy, 6)] for fx, fy in fs],
            "net": [round(net[0], 6), round(net[1], 6)],
            "angle_deg": round(ang, 3),
            "boundary_distance_deg": round(boundary_distance(ang), 3),
        }
        return Solution(answer=answer, states=[details["forces"], details["net"]], details=details)

    def question(self, scene: dict[str, Any]) -> str:
        return (
            "The picture shows point charges fixed at points of a square grid (equal spacing in both "
            "directions); each is labelled with its sign and magnitude in units of q. The target charge is "
            "marked T and has a thick black ring. Only the Coulomb forces between the drawn charges act: "
            "like charges repel, unlike charges attract, and the force between two charges is proportional "
            "to the product of their magnitudes divided by the square of their distance. North is up in the "
            "picture. In which direction does the net force on T point? Give the nearest of the eight "
            "compass directions, as one lowercase word: north, northeast, east, southeast, south, "
            "southwest, west or northwest."
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        """The eight one-word compass directions the question offers, whatever the configuration."""
        return finite(
            DIRECTIONS,
            "the 8 compass directions the question offers",
            lambda a: a.strip().lower().replace("-", "").replace(" ", ""),
        )

    # -- rendering --------------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        fs = [tuple(f) for f in solution.details["forces"]]
        return Rendering(image=self.render_input(scene, solution), steps=self._steps(scene, fs))

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._draw_grid(scene, CANVAS).image()

    def _steps(self, scene: dict[str, Any], fs: list[tuple[float, float]]) -> list[tuple[Image.Image, str]]:
        """The grid (sources numbered, lines of action dashed) beside a force diagram, over a table of the
        forces. The table prints what the text states, so step pictures and step texts carry the same numbers;
        the net force is a vector, and its compass direction (the conclusion) is written nowhere."""
        net = (sum(f[0] for f in fs), sum(f[1] for f in fs))
        left = self._draw_grid(scene, STEP_GRID, numbered=True).image()
        lines = []
        tq = scene["target"]["q"]
        tx, ty = scene["target"]["pos"]
        for i, (s, f) in enumerate(zip(scene["sources"], fs, strict=True)):
            dx, dy = tx - s["pos"][0], ty - s["pos"][1]
            repel = tq * s["q"] > 0
            lines.append(
                f"{i + 1}: {charge_label(s['q'])} at ({s['pos'][0]}, {s['pos'][1]}), r² = "
                f"{dx * dx + dy * dy}, {'repulsive' if repel else 'attractive'}, "
                f"|F| = {abs(tq * s['q'])}/{dx * dx + dy * dy} = {math.hypot(*f):.3f}, "
                f"(Fx, Fy) = ({fmt(f[0])}, {fmt(f[1])})"
            )
        net_line = f"net: (Fx, Fy) = ({fmt(net[0])}, {fmt(net[1])})"
        title = f"Forces on T ({charge_label(tq)} at ({tx}, {ty})), {UNITS}"
        step1 = _over_table(hstack([left, self._draw_forces(fs, None).image()]), title, lines)
        step2 = _over_table(hstack([left, self._draw_forces(fs, net).image()]), title, [*lines, net_line])
        text1 = (
            f"Forces on T ({charge_label(tq)} at ({tx}, {ty})) from each numbered charge, drawn in the "
            "force diagram beside the grid with length proportional to magnitude (very short ones lengthened) "
            f"and listed in the table below; {UNITS}: " + "; ".join(lines) + "."
        )
        text2 = (
            f"The force diagram adds the net force, the sum of the numbered forces, as the thick black "
            f"arrow, and the table adds its components: (Fx, Fy) = ({fmt(net[0])}, {fmt(net[1])})."
        )
        return [(step1, text1), (step2, text2)]

    @staticmethod
    def _px(scene: dict[str, Any], p: Any, size: int) -> tuple[float, float]:
        lo = size * GRID_MARGIN
        sp = (size - 2 * lo) / (scene["grid"] - 1)
        return (lo + p[0] * sp, size - lo - p[1] * sp)

    def _draw_grid(self, scene: dict[str, Any], size: int, numbered: bool = False) -> Canvas:
        c = Canvas(size, size)
        n = scene["grid"]
        lo, hi = size * GRID_MARGIN, size * (1 - GRID_MARGIN)
        for k in range(n):
            x, y = self._px(scene, (k, k), size)
            c.line([(x, lo), (x, hi)], "lightgray", 2)
            c.line([(lo, y), (hi, y)], "lightgray", 2)
            c.text((x, hi + CHARGE_R + 8), str(k), size=16, color="darkgray", anchor="mt")
            c.text((lo - CHARGE_R - 8, y), str(k), size=16, color="darkgray", anchor="rm")
        # Compass: north is up.
        c.arrow((size - 30, 62), (size - 30, 16), "black", width=3, head=14)
        c.text((size - 30, 66), "N", size=18, bold=True, anchor="mt")
        t = scene["target"]
        if numbered:
            for s in scene["sources"]:
                c.line([self._px(scene, t["pos"], size), self._px(scene, s["pos"], size)], "gray", 1.5, dash=(6, 5))
        for i, s in enumerate(scene["sources"]):
            self._charge(c, self._px(scene, s["pos"], size), s["q"])
            if numbered:
                x, y = self._px(scene, s["pos"], size)
                c.text(
                    (x - CHARGE_R - 6, y - CHARGE_R - 6),
                    str(i + 1),
                    size=17,
                    bold=True,
                    anchor="mm",
                    color="purple",
                    background="white",
                    padding=1,
                )
        self._charge(c, self._px(scene, t["pos"], size), t["q"], target=True)
        return c

    @staticmethod
    def _charge(c: Canvas, at: tuple[float, float], q: int, target: bool = False) -> None:
        x, y = at
        fill = "lightred" if q > 0 else "lightblue"
        edge = "red" if q > 0 else "blue"
        c.circle((x, y), CHARGE_R, fill=fill, outline="black" if target else edge, width=5 if target else 2.5)
        c.text((x, y), charge_label(q), size=16, bold=True, anchor="mm", color="black")
        if target:
            c.text(
                (x + CHARGE_R - 2, y + CHARGE_R - 2),
                "T",
                size=20,
                bold=True,
                anchor="lt",
                background="white",
                padding=1,
            )

    @staticmethod
    def _draw_forces(fs: list[tuple[float, float]], net: tuple[float, float] | None) -> Canvas:
        """A force diagram: every force drawn from one point (T), optionally with the resultant."""
        c = Canvas(FBD_W, STEP_GRID)
        c.text((FBD_W / 2, 14), "forces on T", size=18, bold=True, anchor="mt")
        cx, cy = FBD_W / 2, STEP_GRID / 2
        c.line([(cx - 170, cy), (cx + 170, cy)], "lightgray", 1.5)
        c.line([(cx, cy - 250), (cx, cy + 250)], "lightgray", 1.5)
        c.text((cx + 172, cy), "E", size=16, color="gray", anchor="lm")
        c.text((cx, cy - 252), "N", size=16, color="gray", anchor="mb")
        unit = FORCE_MAX / max(math.hypot(*f) for f in fs)
        placed: list[tuple[float, float]] = []
        for i, f in enumerate(fs):
            colour = "gray" if net is not None else "purple"
            _arrow(c, (cx, cy), f, unit, colour, str(i + 1), placed, width=4, cap=FORCE_MAX)
        if net is not None:
            _arrow(c, (cx, cy), net, unit, "black", "net", placed, width=6, cap=NET_MAX)
        c.circle((cx, cy), 7, fill="black", outline=None)
        c.text((cx - 10, cy + 10), "T", size=18, bold=True, anchor="rt")
        return c

    # -- corruption -------------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One source's sign misread (+ for − or back), so its force is the wrong kind and the resultant moves.

        The corrupted steps are the true steps of the misread scene: the charge is drawn and listed with the
        misread sign, and its force is repulsive or attractive as that sign makes it, so no line breaks "like
        charges repel, unlike charges attract"; only the sign read off the picture is wrong."""
        order = list(range(len(scene["sources"])))
        rng.shuffle(order)
        for i in order:
            wrong = copy.deepcopy(scene)
            wrong["sources"][i]["q"] = -scene["sources"][i]["q"]
            fs = forces(wrong)
            net = (sum(f[0] for f in fs), sum(f[1] for f in fs))
            if math.hypot(*net) > 1e-9 and DIRECTIONS[sector(angle_deg(net))] != solution.answer:
                s = scene["sources"][i]
                desc = (
                    f"source {i + 1} ({charge_label(s['q'])} at {tuple(s['pos'])}) read as "
                    f"{charge_label(-s['q'])}; net points {DIRECTIONS[sector(angle_deg(net))]} instead of "
                    f"{solution.answer}"
                )
                # The misread scene's net force gives the corrupted answer; a net within rounding of a sector
                # boundary has no well-defined nearest direction (float and exact sums may differ), so none.
                ang = angle_deg(net)
                answer = DIRECTIONS[sector(ang)] if boundary_distance(ang) > BOUNDARY_EPS_DEG else None
                # Bound now: the loop rebinds `wrong` and `fs` (none of its passes follows a return, but the
                # callable must not depend on that).
                return Corruption(
                    steps=lambda wrong=wrong, fs=fs: self._steps(wrong, fs),
                    description=desc,
                    answer=answer,
                    scene=wrong if answer is not None else None,
                )
        return None


def _over_table(picture: Image.Image, title: str, rows: list[str]) -> Image.Image:
    """The step picture above a table: a title line and one line per row."""
    height = picture.height + 16 + TABLE_ROW * (len(rows) + 1) + 10
    c = Canvas(picture.width, height)
    c.paste(picture, (0, 0))
    y = picture.height + 12
    c.text((16, y), title, size=TABLE_FONT, bold=True)
    for row in rows:
        y += TABLE_ROW
        c.text((16, y), row, size=TABLE_FONT, bold=row.startswith("net"))
    return c.image()


def _arrow(
    c: Canvas,
    origin: tuple[float, float],
    f: tuple[float, float],
    unit: float,
    colour: str,
    label: str,
    placed: list[tuple[float, float]],
    width: float,
    cap: float,
) -> None:
    """An arrow from origin along f (y up), with its label beyond the tip, nudged off earlier labels."""
    mag = math.hypot(*f)
    length = min(max(mag * unit, FORCE_MIN), cap)
    ux, uy = f[0] / mag, -f[1] / mag
    end = (origin[0] + ux * length, origin[1] + uy * length)
    c.arrow(origin, end, colour, width=width, head=16)
    for k in range(8):
        # Step sideways (alternating) and outwards until the label is clear of earlier ones.
        side = (k + 1) // 2 * (1 if k % 2 else -1) * 18
        pos = (end[0] + ux * 18 - uy * side, end[1] + uy * 18 + ux * side)
        if all(math.hypot(pos[0] - p[0], pos[1] - p[1]) > 24 for p in placed):
            break
    placed.append(pos)
    c.text(pos, label, size=17, bold=True, anchor="mm", color=colour, background="white", padding=1)
