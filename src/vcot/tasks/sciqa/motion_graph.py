"""motion_graph (Science QA): displacement or distance travelled, read from a velocity–time graph.

The graph is piecewise linear with its corners on grid points (whole seconds, whole metres per second). The
displacement between two times is the signed area between the graph and the time axis; the distance travelled
is the area with every part below the axis counted as positive. The solver cuts the region into trapezoids
and triangles (splitting a piece where the graph crosses the axis) and adds their areas with
`fractions.Fraction`, so every value is exact. Only scenes whose asked value is a whole number are kept, and
the asked value is balanced over the configured answer range (`ctx.balanced`).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import AnswerType, Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, integers
from vcot.tasks.base import Choices, Corruption, GenContext, Limit, Reject, Rendering, Solution, Task
from vcot.tasks.sciqa._plot import frac_text, over_table, signed_text

W, H = 768, 560  # the plot picture
LEFT, RIGHT, TOP, BOTTOM = 92, 36, 44, 70
POSITIVE_FILL, NEGATIVE_FILL, NEGATIVE_HATCH = "lightblue", "lightyellow", "orange"
MARK = "purple"  # interval lines and read-off dots in the steps
QUANTITIES = ("displacement", "distance")
INTERVALS = ("whole", "corners", "any")


@dataclass(frozen=True)
class MotionGraphConfig:
    min_segments: int = 3
    max_segments: int = 4
    max_duration: int = 3  # seconds per straight piece, 1..max
    min_velocity: int = -3  # m/s, corners' velocities are whole numbers in [min, max]
    max_velocity: int = 6
    interval: str = "corners"  # whole graph, between two corners, or between any two whole seconds
    quantities: tuple[str, ...] = ("displacement",)
    answer_min: int = -6
    answer_max: int = 18


def velocity_at(times: list[int], vels: list[int], t: Fraction) -> Fraction:
    """The graph's velocity at time t by linear interpolation between its corners."""
    for k in range(len(times) - 1):
        if times[k] <= t <= times[k + 1]:
            t0, t1 = times[k], times[k + 1]
            return vels[k] + (vels[k + 1] - vels[k]) * (t - t0) / Fraction(t1 - t0)
    raise ValueError(f"time {t} is outside the graph (0 to {times[-1]} s)")


def pieces(scene: dict[str, Any], vels: list[int] | None = None) -> list[dict[str, Fraction]]:
    """The region between the graph and the time axis over [start, end], cut at every corner and at every
    crossing of the axis into trapezoids (triangles where one side is zero), with signed areas."""
    times = scene["times"]
    vels = scene["velocities"] if vels is None else vels
    a, b = Fraction(scene["start"]), Fraction(scene["end"])
    cuts = [a] + [Fraction(t) for t in times if a < t < b] + [b]
    out = []
    for t0, t1 in zip(cuts, cuts[1:], strict=False):
        v0, v1 = velocity_at(times, vels, t0), velocity_at(times, vels, t1)
        spans = [(t0, v0, t1, v1)]
        if v0 * v1 < 0:  # crosses the axis: two triangles
            tc = t0 + v0 * (t1 - t0) / (v0 - v1)
            spans = [(t0, v0, tc, Fraction(0)), (tc, Fraction(0), t1, v1)]
        for s0, w0, s1, w1 in spans:
            if w0 == 0 and w1 == 0:
                continue
            out.append({"t0": s0, "t1": s1, "v0": w0, "v1": w1, "area": (w0 + w1) / 2 * (s1 - s0)})
    return out


def asked_value(scene: dict[str, Any], ps: list[dict[str, Fraction]]) -> Fraction:
    if scene["quantity"] == "displacement":
        return sum((p["area"] for p in ps), Fraction(0))
    return sum((abs(p["area"]) for p in ps), Fraction(0))


def _json_piece(p: dict[str, Fraction]) -> dict[str, str]:
    return {k: str(v) for k, v in p.items()}


@register
class MotionGraph(Task):
    name = "motion_graph"
    domain = "Science QA"
    answer_type = AnswerType.INTEGER
    config_cls = MotionGraphConfig
    presets = {
        "easy": MotionGraphConfig(
            min_segments=2,
            max_segments=3,
            min_velocity=0,
            max_velocity=6,
            interval="whole",
            answer_min=4,
            answer_max=20,
        ),
        "medium": MotionGraphConfig(),
        "hard": MotionGraphConfig(
            min_segments=4,
            max_segments=6,
            max_duration=2,
            min_velocity=-5,
            max_velocity=6,
            interval="any",
            quantities=("displacement", "distance"),
            answer_min=-6,
            answer_max=18,
        ),
    }
    version = "1"
    description = (
        "A velocity–time graph made of straight pieces; the displacement (signed area) or the "
        "distance travelled (unsigned area) between two times, a whole number of metres."
    )
    colour_pools = ((POSITIVE_FILL, NEGATIVE_FILL),)
    limits = {
        "min_segments": Limit(
            1,
            8,
            "straight pieces of the graph; above 8 pieces of at least 1 s no longer fit "
            "the 12 s time axis with readable ticks",
        ),
        "max_segments": Limit(1, 8, "straight pieces of the graph (see min_segments)"),
        "max_duration": Limit(
            1,
            4,
            "seconds per piece: with 8 pieces of up to 4 s the time axis would pass "
            "the 24 s whose ticks stay 25 px apart",
        ),
        "min_velocity": Limit(
            -8,
            0,
            "m/s at the lowest corner; the velocity axis holds at most 17 one-unit grid rows with readable tick labels",
        ),
        "max_velocity": Limit(1, 8, "m/s at the highest corner (see min_velocity)"),
        "interval": Choices(
            INTERVALS,
            "whole: from 0 to the graph's end; corners: between two corners of the "
            "graph; any: between two whole seconds, read-offs between grid points",
        ),
        "quantities": Choices(QUANTITIES, "displacement (signed area) or distance travelled (unsigned area)"),
        "answer_min": Limit(-60, 100, "metres; the balanced answer range"),
        "answer_max": Limit(-60, 100, "metres; the balanced answer range"),
    }

    def check_config(self, config: Any) -> None:
        super().check_config(config)
        if config.max_segments * config.max_duration > 24:
            raise ValueError(
                f"task {self.name}: max_segments × max_duration must be at most 24 s "
                f"(the time axis), got {config.max_segments * config.max_duration}"
            )

    # -- scene ----------------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        target = cfg.answer_min + ctx.balanced(cfg.answer_max - cfg.answer_min + 1, "answer")
        n = rng.randint(cfg.min_segments, cfg.max_segments)
        times = [0]
        for _ in range(n):
            times.append(times[-1] + rng.randint(1, cfg.max_duration))
        vels = [rng.randint(cfg.min_velocity, cfg.max_velocity) for _ in range(n + 1)]
        if all(v == 0 for v in vels):
            raise Reject("the object never moves")
        quantities = list(cfg.quantities)
        rng.shuffle(quantities)
        spans = self._spans(times, rng)
        if len(spans) == 1:
            (a, b), quantity = spans[0], quantities[0]
            scene = {"times": times, "velocities": vels, "start": a, "end": b, "quantity": quantity}
            ps = pieces(scene)
            if asked_value(scene, ps) != target or (quantity == "distance" and all(p["area"] > 0 for p in ps)):
                raise Reject(f"the graph's interval does not have the balanced answer {target}")
            return scene
        # Areas are additive over time, so the value of every span comes from running sums over whole seconds
        # (signed, unsigned, and the area below the axis) instead of cutting each span anew.
        signed, unsigned, below = [Fraction(0)], [Fraction(0)], [Fraction(0)]
        for t in range(times[-1]):
            unit = pieces({"times": times, "velocities": vels, "start": t, "end": t + 1})
            signed.append(signed[-1] + sum((p["area"] for p in unit), Fraction(0)))
            unsigned.append(unsigned[-1] + sum((abs(p["area"]) for p in unit), Fraction(0)))
            below.append(below[-1] + sum((-p["area"] for p in unit if p["area"] < 0), Fraction(0)))
        for quantity in quantities:
            sums = signed if quantity == "displacement" else unsigned
            # A distance question is only a different question when part of the interval runs backwards.
            hits = [
                (a, b)
                for a, b in spans
                if sums[b] - sums[a] == target and (quantity == "displacement" or below[b] > below[a])
            ]
            if hits:
                a, b = rng.choice(hits)
                return {"times": times, "velocities": vels, "start": a, "end": b, "quantity": quantity}
        raise Reject(f"no interval of this graph has the balanced answer {target}")

    def _spans(self, times: list[int], rng: random.Random) -> list[tuple[int, int]]:
        """The (start, end) pairs the configured interval kind allows; every one keeps a corner inside or on
        its ends, so the reader always has a corner to read off."""
        kind = self.config.interval
        if kind == "whole":
            return [(0, times[-1])]
        if kind == "corners":
            # At least one corner strictly inside: over a single straight piece the answer is one trapezoid
            # through the end points, a cue that needs no reading of the graph's shape (vcot audit).
            return [(a, b) for i, a in enumerate(times) for b in times[i + 2 :] if (a, b) != (0, times[-1])]
        return [
            (a, b)
            for a in range(times[-1])
            for b in range(a + 2, times[-1] + 1)
            if any(a < t < b for t in times) and (a not in times or b not in times)
        ]

    # -- solving --------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        ps = pieces(scene)
        value = asked_value(scene, ps)
        times, vels = scene["times"], scene["velocities"]
        reads = [[str(Fraction(t)), str(velocity_at(times, vels, Fraction(t)))] for t in self._read_times(scene)]
        details = {"read_offs": reads, "pieces": [_json_piece(p) for p in ps], "value": str(value)}
        answer = str(value.numerator) if value.denominator == 1 else str(value)
        return Solution(answer=answer, states=[reads, details["pieces"]], details=details)

    @staticmethod
    def _read_times(scene: dict[str, Any]) -> list[int]:
        a, b = scene["start"], scene["end"]
        return [a] + [t for t in scene["times"] if a < t < b] + [b]

    def question(self, scene: dict[str, Any]) -> str:
        a, b = scene["start"], scene["end"]
        if scene["quantity"] == "displacement":
            ask = (
                f"What is the object's displacement from t = {a} s to t = {b} s, in metres? Motion in the "
                "negative direction (velocity below zero) counts as negative displacement."
            )
        else:
            ask = (
                f"What distance does the object travel from t = {a} s to t = {b} s, in metres? Every metre "
                "travelled counts as positive, whichever way the object moves."
            )
        return (
            "The graph shows the velocity v (in m/s) of an object moving along a straight line against "
            "time t (in s); between its corners the graph is straight. " + ask + " Answer with a single integer."
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        cfg = self.config
        return integers(
            cfg.answer_min,
            cfg.answer_max,
            f"the whole numbers of metres {cfg.answer_min} to {cfg.answer_max} the generator balances over",
        )

    # -- rendering ------------------------------------------------------------------------------------

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(image=self.render_input(scene, solution), steps=self._steps(scene, scene["velocities"]))

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._plot(scene, scene["velocities"]).image()

    def _steps(self, scene: dict[str, Any], vels: list[int]) -> list[tuple[Image.Image, str]]:
        """(1) the interval marked and the graph's values read off at its ends and corners; (2) the region
        cut into lettered pieces, shaded by sign, with each piece's area. No total is written anywhere."""
        times = scene["times"]
        a, b = scene["start"], scene["end"]
        reads = [(t, velocity_at(times, vels, Fraction(t))) for t in self._read_times(scene)]
        read_rows = [f"at {t} s the velocity reads {frac_text(v)} m/s" for t, v in reads]
        c1 = self._plot(scene, vels)
        self._mark_interval(c1, scene, vels, reads)
        step1 = over_table(c1.image(), f"Read-offs from {a} s to {b} s", read_rows)
        text1 = (
            f"The interval from {a} s to {b} s is marked by the dashed lines, with a dot where the graph is "
            "read at its ends and at each corner inside it: " + "; ".join(read_rows) + "."
        )
        ps = pieces(scene, vels)
        c2 = self._plot(scene, vels, shaded=ps)
        rows = [self._piece_row(chr(ord("A") + k), p, scene["quantity"]) for k, p in enumerate(ps)]
        self._mark_interval(c2, scene, vels, reads)
        title = (
            "Pieces (area above the axis +, below it −)"
            if scene["quantity"] == "displacement"
            else "Pieces (distance: every piece counts as positive)"
        )
        step2 = over_table(c2.image(), title, rows)
        rule = (
            "areas above the axis positive and below it negative"
            if scene["quantity"] == "displacement"
            else "each piece's distance its area taken as positive, above or below the axis"
        )
        text2 = (
            f"The region between the graph and the time axis is cut at the corners and where the graph "
            f"crosses the axis into lettered pieces, blue above the axis and hatched orange below, with "
            f"{rule}: " + "; ".join(rows) + "."
        )
        return [(step1, text1), (step2, text2)]

    @staticmethod
    def _piece_row(letter: str, p: dict[str, Fraction], quantity: str) -> str:
        where = "above" if p["area"] > 0 else "below"
        width = p["t1"] - p["t0"]
        if p["v0"] == p["v1"]:
            how = f"rectangle {frac_text(p['v0'])} m/s by {frac_text(width)} s"
        elif p["v0"] == 0 or p["v1"] == 0:
            how = f"triangle, height {frac_text(p['v0'] or p['v1'])} m/s, base {frac_text(width)} s"
        else:
            how = f"trapezoid, sides {frac_text(p['v0'])} and {frac_text(p['v1'])} m/s, width {frac_text(width)} s"
        amount = signed_text(p["area"]) if quantity == "displacement" else frac_text(abs(p["area"]))
        return f"{letter}: {frac_text(p['t0'])} s to {frac_text(p['t1'])} s, {where} the axis, {how}, gives {amount} m"

    def _frame(self, scene: dict[str, Any]) -> tuple[int, int, int]:
        """(duration, lowest and highest velocity on the axis): a unit of headroom above the graph, zero always
        on the axis."""
        vels = scene["velocities"]
        return scene["times"][-1], min(0, min(vels) - 1), max(vels) + 1

    def _px(self, scene: dict[str, Any], t: float, v: float) -> tuple[float, float]:
        dur, lo, hi = self._frame(scene)
        x = LEFT + (W - LEFT - RIGHT) * float(t) / dur
        y = TOP + (H - TOP - BOTTOM) * (hi - float(v)) / (hi - lo)
        return x, y

    def _plot(self, scene: dict[str, Any], vels: list[int], shaded: list[dict[str, Fraction]] | None = None) -> Canvas:
        """The graph on its grid; `shaded` pieces are drawn under the graph's line (lettered A, B, ...)."""
        c = Canvas(W, H)
        dur, lo, hi = self._frame(scene)
        for t in range(dur + 1):
            x, _ = self._px(scene, t, 0)
            c.line([(x, TOP), (x, H - BOTTOM)], "lightgray", 1.5)
            c.text((x, H - BOTTOM + 8), str(t), size=17, color="darkgray", anchor="mt")
        for v in range(lo, hi + 1):
            _, y = self._px(scene, 0, v)
            c.line([(LEFT, y), (W - RIGHT, y)], "lightgray", 1.5)
            c.text((LEFT - 10, y), frac_text(v), size=17, color="darkgray", anchor="rm")
        # The time axis (v = 0) and the velocity axis are drawn over the grid.
        _, y0 = self._px(scene, 0, 0)
        c.line([(LEFT, y0), (W - RIGHT + 18, y0)], "black", 2.5)
        c.line([(LEFT, H - BOTTOM), (LEFT, TOP - 14)], "black", 2.5)
        c.text((W / 2 + 20, H - 22), "time t (s)", size=18, bold=True, anchor="mm")
        c.text((LEFT - 10, TOP - 22), "v (m/s)", size=18, bold=True, anchor="rm")
        for p in shaded or []:
            self._shade(c, scene, p)
        pts = [self._px(scene, t, v) for t, v in zip(scene["times"], vels, strict=True)]
        c.line(pts, "black", 4)
        for p in pts:
            c.circle(p, 5, fill="black", outline=None)
        for k, p in enumerate(shaded or []):
            # Letters last, so the graph's line never runs through one.
            corners = {(p["t0"], Fraction(0)), (p["t0"], p["v0"]), (p["t1"], p["v1"]), (p["t1"], Fraction(0))}
            x, y = self._px(scene, sum(q[0] for q in corners) / len(corners), sum(q[1] for q in corners) / len(corners))
            c.text((x, y), chr(ord("A") + k), size=18, bold=True, anchor="mm", background="white", padding=2)
        return c

    def _mark_interval(
        self, c: Canvas, scene: dict[str, Any], vels: list[int], reads: list[tuple[int, Fraction]]
    ) -> None:
        for t in (scene["start"], scene["end"]):
            x, _ = self._px(scene, t, 0)
            c.line([(x, TOP - 6), (x, H - BOTTOM + 2)], MARK, 2.5, dash=(9, 6))
        for t, v in reads:
            c.circle(self._px(scene, t, v), 8, fill=MARK, outline="white", width=2)

    def _shade(self, c: Canvas, scene: dict[str, Any], p: dict[str, Fraction]) -> None:
        corners = [
            self._px(scene, p["t0"], 0),
            self._px(scene, p["t0"], p["v0"]),
            self._px(scene, p["t1"], p["v1"]),
            self._px(scene, p["t1"], 0),
        ]
        above = p["area"] > 0
        c.polygon(
            corners, fill=POSITIVE_FILL if above else NEGATIVE_FILL, outline="darkgray", width=1.5, fill_opacity=200
        )
        if not above:
            self._hatch(c, corners)

    @staticmethod
    def _hatch(c: Canvas, corners: list[tuple[float, float]]) -> None:
        """Diagonal hatching inside a piece below the axis: a second cue besides the fill colour. The piece is
        convex with vertical left and right sides, so each hatch line is clipped to its top and bottom edges."""
        x0, x1 = corners[0][0], corners[3][0]
        top = (corners[0][1], corners[3][1])  # the axis side
        bot = (corners[1][1], corners[2][1])  # the graph side (below the axis on screen)
        step = 12.0
        k = x0 - (H - TOP)
        while k < x1:
            seg = []
            for i in range(0, 41):
                x = x0 + (x1 - x0) * i / 40
                y = x - k + TOP
                f = (x - x0) / (x1 - x0) if x1 > x0 else 0
                ya = top[0] + (top[1] - top[0]) * f
                yb = bot[0] + (bot[1] - bot[0]) * f
                if min(ya, yb) <= y <= max(ya, yb):
                    seg.append((x, y))
            if len(seg) >= 2:
                c.line([seg[0], seg[-1]], NEGATIVE_HATCH, 2)
            k += step

    # -- corruption -----------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """One corner of the graph inside the interval misread by one grid line (a plausible slip of the
        eye), carried through the read-offs and the pieces."""
        cfg = self.config
        times, vels = scene["times"], scene["velocities"]
        a, b = scene["start"], scene["end"]
        choices = [
            (i, d)
            for i, t in enumerate(times)
            if a <= t <= b
            for d in (-1, 1)
            if cfg.min_velocity <= vels[i] + d <= cfg.max_velocity
        ]
        rng.shuffle(choices)
        right = Fraction(solution.details["value"])
        for i, d in choices:
            wrong = list(vels)
            wrong[i] += d
            if all(v == 0 for v in wrong):
                continue
            got = asked_value(scene, pieces(scene, wrong))
            if got != right:
                desc = (
                    f"corner at {times[i]} s read as {wrong[i]} m/s instead of {vels[i]} m/s; the "
                    f"{scene['quantity']} becomes {frac_text(got)} m instead of {solution.answer} m"
                )
                # The misread graph carried through gives `got`. The question asks for a whole number, but a
                # corner one grid line off changes each piece beside it by half the piece's width (or by a
                # fraction where the graph now crosses the axis elsewhere), so `got` is often no whole number:
                # then it is no answer in the task's format and is left None.
                implied = str(got.numerator) if got.denominator == 1 else None
                return Corruption(
                    steps=lambda wrong=wrong: self._steps(scene, wrong),
                    description=desc,
                    answer=implied,
                    scene={**scene, "velocities": wrong},
                )
        return None
