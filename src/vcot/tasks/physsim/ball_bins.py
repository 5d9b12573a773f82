"""ball_bins (Intuitive Physics): which bin a ball dropped onto smooth ramps falls into.

A ball is released from rest above a set of lettered ramps; the ramps are smooth (frictionless) and nothing
bounces, so the ball slides down a ramp, leaves it at an end, flies in a parabola onto the next ramp and finally
drops into one of the numbered bins at the bottom. The run is simulated with pymunk (Chipmunk2D,
`_engine.simulate_ball`); the steps are key frames at every ramp the ball lands on and at the bins, with the path
drawn so far.

Sampling builds a chain of ramps each placed under where the ball leaves the one above, adds distractor ramps,
simulates, and shifts the whole scene sideways so the ball lands inside the balanced bin (sideways shifts leave
the physics unchanged); the shifted scene is simulated again and must land in that bin away from the dividers,
and jittered re-runs (the start moved a little) must touch the same ramps and land in the same bin.
docs/tasks/ball_bins.md has the details.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from typing import Any

from PIL import Image

from vcot.draw.canvas import Canvas
from vcot.schema import AnswerType, Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace, integers
from vcot.tasks.base import Corruption, GenContext, Limit, Reject, Rendering, Solution, Task
from vcot.tasks.physsim._draw import Frame
from vcot.tasks.physsim._engine import BALL_DT, BALL_MAX_STEPS, RAMP_RADIUS, BallRun, BallSim, simulate_ball

WIDTH = 16.0
HEIGHT = 12.0
BALL_R = 0.25
DIVIDER_H = 0.8
SCALE = 44.0
EDGE = 0.4  # ramps and the ball's path keep this far from the box's sides
CLEARANCE = 0.9  # least distance between two ramps: the ball (0.5 across) passes between them
# Velocity damping per second the corrupted trajectories try: the run of a reader who lets the ball lose speed
# (below 1) or gain it (above 1, pymunk then scales the velocity up by that factor a second).
WRONG_DAMPING = (0.6, 1.6, 0.45, 2.2, 0.3, 0.15)
# A ball sliding up a ramp must turn back this far (world units) below its upper end: nearer, whether it goes
# over the end depends on the last bits of the run.
TURN_CLEARANCE = 0.6
LAYOUT_WIDTH = 100.0
LAYOUT_OFFSET = 45.0  # the first layout sits in the middle of a wide box, then moves into the picture's


@dataclass(frozen=True)
class BallBinsConfig:
    ramps: int = 3  # ramps in the chain the ball is built to touch
    distractors: int = 1  # further ramps placed anywhere
    bins: int = 4
    min_length: float = 2.4
    max_length: float = 3.6
    min_angle: float = 14.0  # degrees from the horizontal
    max_angle: float = 30.0
    margin: float = 0.2  # the ball's edge passes this far inside a bin's dividers
    jitter: float = 0.06  # start moved this far in each direction in the jitter re-runs
    jitter_runs: int = 5


def segment_distance(p: list[float], q: list[float], a: list[float], b: list[float]) -> float:
    """Least distance between segments pq and ab (0 when they cross)."""

    def cross(o: list[float], s: list[float], t: list[float]) -> float:
        return (s[0] - o[0]) * (t[1] - o[1]) - (s[1] - o[1]) * (t[0] - o[0])

    if cross(p, q, a) * cross(p, q, b) < 0 and cross(a, b, p) * cross(a, b, q) < 0:
        return 0.0

    def point(c: list[float], s: list[float], t: list[float]) -> float:
        dx, dy = t[0] - s[0], t[1] - s[1]
        k = max(0.0, min(1.0, ((c[0] - s[0]) * dx + (c[1] - s[1]) * dy) / (dx * dx + dy * dy)))
        return math.hypot(c[0] - s[0] - k * dx, c[1] - s[1] - k * dy)

    return min(point(p, a, b), point(q, a, b), point(a, p, q), point(b, p, q))


def _ramp(cx: float, cy: float, length: float, angle_deg: float, side: int) -> dict[str, Any]:
    """A ramp centred at (cx, cy) whose lower end lies on `side` (+1 right, -1 left); a = upper end."""
    dx = side * length / 2 * math.cos(math.radians(angle_deg))
    dy = length / 2 * math.sin(math.radians(angle_deg))
    return {"a": [cx - dx, cy + dy], "b": [cx + dx, cy - dy]}


def _point_on(ramp: dict[str, Any], f: float) -> tuple[float, float]:
    (ax, ay), (bx, by) = ramp["a"], ramp["b"]
    return ax + f * (bx - ax), ay + f * (by - ay)


def bin_of(scene: dict[str, Any], x: float) -> int:
    """0-based bin under x."""
    return min(scene["bins"] - 1, max(0, int(x // (scene["width"] / scene["bins"]))))


def ramp_sequence(run: BallRun) -> list[int]:
    return [k for k, _, _ in run.touches]


@register
class BallBins(Task):
    name = "ball_bins"
    domain = "Intuitive Physics"
    answer_type = AnswerType.INTEGER
    config_cls = BallBinsConfig
    presets = {
        "easy": BallBinsConfig(ramps=2, distractors=0, bins=3, margin=0.3),
        "medium": BallBinsConfig(),
        "hard": BallBinsConfig(ramps=4, distractors=2, bins=5, margin=0.15, min_length=2.0),
    }
    version = "1"
    final_state_shows = "the ball in its bin in the last key frame"
    description = "A ball dropped onto smooth ramps, simulated with pymunk; which numbered bin it falls into."
    limits = {
        "ramps": Limit(1, 5, "ramps in the chain; five fill the 12-unit height"),
        "distractors": Limit(0, 3, "extra ramps; more crowd the box so that no clear path is left"),
        "bins": Limit(2, 6, "bins across the 10-unit floor; with more the ball (0.5 across) barely fits inside one"),
        "min_length": Limit(1.5, 4.5, "ramp length in world units (the box is 10 wide)"),
        "max_length": Limit(1.5, 4.5, "ramp length in world units (the box is 10 wide)"),
        "min_angle": Limit(8, 40, "degrees: flatter ramps look level, steeper ones throw the ball too far"),
        "max_angle": Limit(8, 40, "degrees: flatter ramps look level, steeper ones throw the ball too far"),
        "margin": Limit(0.05, 0.5, "world units between the ball's edge and a divider as it drops into its bin"),
        "jitter": Limit(0.0, 0.15, "world units the start is moved in the jitter re-runs"),
        "jitter_runs": Limit(0, 8, "jittered re-runs each accepted scene must survive (each costs a simulation)"),
    }
    colour_pools = ()

    # -- sampling -------------------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        if cfg.bins * (2 * BALL_R + 2 * cfg.margin) > WIDTH:
            raise ValueError(f"{cfg.bins} bins leave no room for the ball inside a margin of {cfg.margin}")
        want = ctx.balanced(cfg.bins, "bin")
        cue = ctx.balanced(cfg.bins, "start over the bin") == 0
        # Laid out in a box far wider than the picture, so that only the shift below decides what fits.
        scene, base = self._layout(rng)
        if base.landing_x is None or base.left_box:
            raise Reject("the ball does not come down inside the box")
        bw = WIDTH / cfg.bins
        inner = BALL_R + cfg.margin
        # The scene as laid out or mirrored (both are the same physics), moved sideways so that the ball lands
        # inside the balanced bin, with its start over that bin only as often as a guess would hit it.
        choices = []
        for mirrored in (False, True):
            sc = _mirrored(scene) if mirrored else scene
            landing = LAYOUT_WIDTH - base.landing_x if mirrored else base.landing_x
            xs = [p[0] for rp in sc["ramps"] for p in (rp["a"], rp["b"])] + [
                LAYOUT_WIDTH - p[0] if mirrored else p[0] for p in base.trace
            ]
            lo, hi = EDGE - min(xs), WIDTH - EDGE - max(xs)
            for _ in range(12):
                s = want * bw + rng.uniform(inner, bw - inner) - landing
                if lo <= s <= hi and (bin_of({**sc, "width": WIDTH}, sc["ball"]["x"] + s) == want) == cue:
                    choices.append(self._shifted(sc, s))
                    break
        if not choices:
            raise Reject("no sideways shift puts the ball into the balanced bin")
        scene = rng.choice(choices)
        run = simulate_ball(scene)
        if run.landing_x is None or run.left_box or ramp_sequence(run) != ramp_sequence(base):
            raise Reject("the shifted scene runs differently")
        for k, first, last in run.touches:
            ramp = scene["ramps"][k]
            along = [_fraction(ramp, p) * _length(ramp) for p in run.trace[first : last + 1]]
            if min(along) < TURN_CLEARANCE or _end(ramp, run.trace[last]).startswith("upper"):
                raise Reject("the ball turns back near a ramp's upper end (or leaves over it)")
        x = run.landing_x - want * bw
        if bin_of(scene, run.landing_x) != want or not inner <= x <= bw - inner:
            raise Reject("the ball drops too near a divider")
        for _ in range(cfg.jitter_runs):
            j = simulate_ball(scene, dx=rng.uniform(-cfg.jitter, cfg.jitter), dy=rng.uniform(-cfg.jitter, cfg.jitter))
            if (
                j.landing_x is None
                or j.left_box
                or ramp_sequence(j) != ramp_sequence(run)
                or bin_of(scene, j.landing_x) != want
            ):
                raise Reject("a jittered re-run takes another path")
        return scene

    def _layout(self, rng: random.Random) -> tuple[dict[str, Any], BallRun]:
        """The ramp chain, built during one run: each next ramp is placed where the ball, in flight from the
        ramp above, will cross its level; then distractor ramps away from the path, and the run of the whole
        scene (the same, since the distractors stay clear of the path). Coordinates are those of a wide box."""
        cfg = self.config
        m = cfg.ramps
        top = HEIGHT - 2.6 + rng.uniform(-0.3, 0.3)
        drop = min(2.8, (top - DIVIDER_H - 2.2) / max(1, m - 1))
        side = rng.choice((-1, 1))
        ramps = [
            _ramp(
                rng.uniform(3.0, WIDTH - 3.0) + LAYOUT_OFFSET,
                top,
                rng.uniform(cfg.min_length, cfg.max_length),
                rng.uniform(cfg.min_angle, cfg.max_angle),
                side,
            )
        ]
        sx, sy = _point_on(ramps[0], rng.uniform(0.1, 0.4))
        ball = {"x": sx, "y": min(HEIGHT - 0.5, sy + rng.uniform(1.0, 1.6)), "r": BALL_R}
        sim = BallSim(ball)
        sim.add_ramp(ramps[0])
        touch_r = BALL_R + RAMP_RADIUS
        for i in range(1, m):
            # Run until the ball has left ramp i-1 (touched it, then free for a few steps).
            while not (sim.run.touches and sim.run.touches[-1][0] == i - 1 and sim.steps - sim.run.touches[-1][2] >= 3):
                if sim.steps >= BALL_MAX_STEPS or (sim.run.touches and sim.run.touches[-1][0] not in (i - 2, i - 1)):
                    raise Reject("the ball does not leave the chain's ramp cleanly")
                sim.step()
            (px, py), (vx, vy) = sim.run.trace[-1], sim.velocity()
            length, angle = rng.uniform(cfg.min_length, cfg.max_length), rng.uniform(cfg.min_angle, cfg.max_angle)
            level = (
                ramps[-1]["b"][1] - rng.uniform(0.6, 1.0) * drop
                if ramps[-1]["b"][1] < ramps[-1]["a"][1]
                else ramps[-1]["a"][1] - drop
            )
            level = max(level, DIVIDER_H + 1.6 + length / 2 * math.sin(math.radians(angle)))
            h = py - level - touch_r
            if h <= 0:
                raise Reject("the ball leaves its ramp below the next ramp's level")
            t = (vy + math.sqrt(vy * vy + 2 * 10.0 * h)) / 10.0  # free fall to the level (g = 10)
            vt = vy - 10.0 * t  # vertical speed on arrival
            f = rng.uniform(0.15, 0.6)
            if rng.random() < 0.85:
                # Zig-zags keep the path within the box. The ball then arrives sliding uphill: land it far enough
                # down the ramp to turn back well below the upper end.
                cos, sin = math.cos(math.radians(angle)), math.sin(math.radians(angle))
                along = side * vx * cos + vt * sin  # speed along the new ramp, uphill positive
                rise = max(0.0, along) ** 2 / (2 * 10.0 * sin)
                lo_f = (rise + TURN_CLEARANCE + 0.3) / length
                if lo_f <= 0.85:
                    side, f = -side, rng.uniform(max(0.2, lo_f), 0.85)
            nxt = _ramp(0.0, 0.0, length, angle, side)
            ex, ey = nxt["b"][0] - nxt["a"][0], nxt["b"][1] - nxt["a"][1]
            cx, cy = px + vx * t - (f - 0.5) * ex, level - (f - 0.5) * ey
            nxt = {"a": [nxt["a"][0] + cx, nxt["a"][1] + cy], "b": [nxt["b"][0] + cx, nxt["b"][1] + cy]}
            if any(segment_distance(nxt["a"], nxt["b"], r["a"], r["b"]) < CLEARANCE for r in ramps):
                raise Reject("two ramps too close for the ball to pass between them")
            ramps.append(nxt)
            sim.add_ramp(nxt)
        run = sim.finish(LAYOUT_WIDTH, DIVIDER_H + BALL_R)
        if run.landing_x is None or run.left_box or ramp_sequence(run) != list(range(m)):
            raise Reject("the ball does not run down the chain ramp by ramp")
        path = run.trace[::3]
        clear = BALL_R + 0.5
        lo_x, hi_x = min(p[0] for p in run.trace), max(p[0] for p in run.trace)
        for _ in range(cfg.distractors):
            for _attempt in range(20):
                cand = _ramp(
                    rng.uniform(lo_x, hi_x),
                    rng.uniform(2.2, HEIGHT - 3.0),
                    rng.uniform(cfg.min_length, cfg.max_length),
                    rng.uniform(cfg.min_angle, cfg.max_angle),
                    rng.choice((-1, 1)),
                )
                if all(segment_distance(cand["a"], cand["b"], r["a"], r["b"]) >= CLEARANCE for r in ramps) and all(
                    _seg_point(cand, p) >= clear for p in path
                ):
                    ramps.append(cand)
                    break
            else:
                raise Reject("no room for a distractor ramp")
        if min(min(r["a"][1], r["b"][1]) for r in ramps) < DIVIDER_H + 0.8:
            raise Reject("a ramp reaches down among the bins")
        # Letters from the top down, so that they say nothing about which ramps belong to the chain.
        order = sorted(range(len(ramps)), key=lambda k: (-(ramps[k]["a"][1] + ramps[k]["b"][1]), ramps[k]["a"][0]))
        lettered = [{"label": chr(ord("A") + n), **ramps[k]} for n, k in enumerate(order)]
        scene = {
            "width": LAYOUT_WIDTH,
            "height": HEIGHT,
            "bins": cfg.bins,
            "divider_h": DIVIDER_H,
            "ramp_r": RAMP_RADIUS,
            "ball": ball,
            "ramps": lettered,
        }
        new_index = {k: n for n, k in enumerate(order)}
        run.touches = [(new_index[k], a, b) for k, a, b in run.touches]
        return scene, run

    @staticmethod
    def _shifted(scene: dict[str, Any], s: float) -> dict[str, Any]:
        out = {**scene, "width": WIDTH}
        out["ball"] = {**scene["ball"], "x": round(scene["ball"]["x"] + s, 3), "y": round(scene["ball"]["y"], 3)}
        out["ramps"] = [
            {
                "label": r["label"],
                "a": [round(r["a"][0] + s, 3), round(r["a"][1], 3)],
                "b": [round(r["b"][0] + s, 3), round(r["b"][1], 3)],
            }
            for r in scene["ramps"]
        ]
        return out

    # -- solving --------------------------------------------------------------------------------------------

    def solve(self, scene: dict[str, Any]) -> Solution:
        run = simulate_ball(scene)
        if run.landing_x is None or run.left_box:
            raise Reject("the ball does not come down inside the box")
        return self._solution(scene, run)

    def _solution(self, scene: dict[str, Any], run: BallRun) -> Solution:
        assert run.landing_x is not None
        states = []
        for k, first, last in run.touches:
            ramp = scene["ramps"][k]
            states.append(
                {
                    "ramp": ramp["label"],
                    "step": first,
                    "lands": _where(ramp, run.trace[first]),
                    "leaves": _end(ramp, run.trace[last]),
                }
            )
        b = bin_of(scene, run.landing_x) + 1
        states.append({"bin": b, "step": len(run.trace) - 1})
        return Solution(
            answer=str(b),
            states=states,
            details={"landing_x": round(run.landing_x, 3), "t": round((len(run.trace) - 1) * BALL_DT, 3)},
        )

    def question(self, scene: dict[str, Any]) -> str:
        return (
            "The picture shows a ball held at rest above lettered ramps, with numbered bins along the floor; "
            "gravity points down the picture. The ramps are fixed and perfectly smooth, and the ball does not "
            "bounce: on landing it keeps only its speed along the ramp it meets and slides on it, and it leaves "
            "a ramp at one of its ends, flying on until it meets another ramp or drops between the dividers. "
            f"The ball is released. Into which bin does it fall? Answer with the bin's number, 1 to "
            f"{scene['bins']}."
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        # The configuration's bin count: the question names the same number (an instance without its scene,
        # as a run's rows give, still has its space).
        k = self.config.bins
        return integers(1, k, f"the {k} bin numbers")

    # -- drawing --------------------------------------------------------------------------------------------

    @staticmethod
    def _frame(scene: dict[str, Any]) -> Frame:
        return Frame(0.0, 0.0, scene["width"], scene["height"], SCALE, pad=20, top=0)

    def _draw(self, scene: dict[str, Any], run: BallRun | None, step: int) -> Image.Image:
        fr = self._frame(scene)
        c = Canvas(fr.width, fr.height + 34)
        x0, y0 = fr.px(0.0, 0.0)
        x1, _ = fr.px(scene["width"], 0.0)
        c.rect((x0, y0, x1, y0 + 8), fill="lightgray", outline=None)
        c.line([(x0, y0), (x1, y0)], "black", 3)
        k = scene["bins"]
        bw = scene["width"] / k
        for i in range(k + 1):
            c.line([fr.px(i * bw, 0.0), fr.px(i * bw, scene["divider_h"])], "black", 4)
        for i in range(k):
            c.text(fr.px((i + 0.5) * bw, 0.0)[0:1] + (y0 + 22,), str(i + 1), size=22, bold=True, anchor="mm")
        for ramp in scene["ramps"]:
            c.line([fr.px(*ramp["a"]), fr.px(*ramp["b"])], "darkgray", 2 * scene["ramp_r"] * SCALE)
            mx, my = _point_on(ramp, 0.5)
            ax, ay = ramp["b"][0] - ramp["a"][0], ramp["b"][1] - ramp["a"][1]
            norm = math.hypot(ax, ay)
            nx, ny = -ay / norm, ax / norm
            if ny > 0:  # the label goes under the ramp, off the ball's side
                nx, ny = -nx, -ny
            px, py = fr.px(mx + 0.45 * nx, my + 0.45 * ny)
            c.text((px, py), ramp["label"], size=20, bold=True, anchor="mm", background="white", padding=1)
        r_px = scene["ball"]["r"] * SCALE
        start = fr.px(scene["ball"]["x"], scene["ball"]["y"])
        if run is None:
            c.circle(start, r_px, fill="orange", outline="black", width=2.5)
            return c.image()
        c.circle(start, r_px, fill=None, outline="gray", width=2)
        path = [fr.px(*p) for p in run.trace[: step + 1 : 2]] + [fr.px(*run.trace[step])]
        if len(path) >= 2:
            c.line(path, "blue", 3)
        c.circle(fr.px(*run.trace[step]), r_px, fill="orange", outline="black", width=2.5)
        return c.image()

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._draw(scene, None, 0)

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(
            image=self.render_input(scene, solution), steps=self._steps(scene, simulate_ball(scene), solution)
        )

    def _steps(self, scene: dict[str, Any], run: BallRun, solution: Solution) -> list[tuple[Image.Image, str]]:
        out = []
        before = "The ball falls from its start (grey circle)"
        for st in solution.states:
            if "bin" in st:
                text = f"{before} and drops between the dividers into bin {st['bin']}."
            else:
                text = f"{before} and lands on ramp {st['ramp']} {st['lands']}."
                before = f"The ball slides along ramp {st['ramp']}, leaves it over its {st['leaves']},"
            out.append((self._draw(scene, run, st["step"]), text))
        return out

    # -- corruption -----------------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """The run of a reader who misjudges the ball's speed (losing it as if air drag were strong, or gaining
        more than gravity gives): the same ramps simulated with velocity damping, sending the ball into another
        bin."""
        bw = scene["width"] / scene["bins"]
        for damping in WRONG_DAMPING:
            run = simulate_ball(scene, damping=damping)
            if run.landing_x is None or run.left_box:
                continue
            off = run.landing_x - bin_of(scene, run.landing_x) * bw
            if not BALL_R <= off <= bw - BALL_R:
                continue  # would show the ball landing on a divider: an obviously broken picture
            wrong = self._solution(scene, run)
            if wrong.answer == solution.answer:
                continue
            desc = (
                f"ball speed scaled by damping {damping:g} per second: bin {wrong.answer} instead of {solution.answer}"
            )
            # The answer is the bin the drawn run's last key frame shows (its last state), from this very run.
            # No scene is set: misjudged speed is no scene the oracle reads.
            return Corruption(
                steps=lambda run=run, wrong=wrong: self._steps(scene, run, wrong),
                description=desc,
                answer=str(wrong.states[-1]["bin"]),
            )
        return None


def _mirrored(scene: dict[str, Any]) -> dict[str, Any]:
    """The scene mirrored left to right in its box (the upper end of a ramp stays its first point)."""
    w = scene["width"]
    return {
        **scene,
        "ball": {**scene["ball"], "x": w - scene["ball"]["x"]},
        "ramps": [
            {"label": r["label"], "a": [w - r["a"][0], r["a"][1]], "b": [w - r["b"][0], r["b"][1]]}
            for r in scene["ramps"]
        ],
    }


def _seg_point(ramp: dict[str, Any], p: tuple[float, float]) -> float:
    (ax, ay), (bx, by) = ramp["a"], ramp["b"]
    dx, dy = bx - ax, by - ay
    k = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - ax - k * dx, p[1] - ay - k * dy)


def _fraction(ramp: dict[str, Any], p: tuple[float, float]) -> float:
    """How far along the ramp a point lies, from its upper end a (0) to its lower end b (1)."""
    (ax, ay), (bx, by) = ramp["a"], ramp["b"]
    return ((p[0] - ax) * (bx - ax) + (p[1] - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)


def _length(ramp: dict[str, Any]) -> float:
    return math.hypot(ramp["b"][0] - ramp["a"][0], ramp["b"][1] - ramp["a"][1])


def _where(ramp: dict[str, Any], p: tuple[float, float]) -> str:
    """Where along the ramp a point lies, from its upper end a."""
    f = _fraction(ramp, p)
    if f < 1 / 3:
        return "near its upper end"
    if f > 2 / 3:
        return "near its lower end"
    return "near its middle"


def _end(ramp: dict[str, Any], p: tuple[float, float]) -> str:
    """Which end of the ramp a point is nearer: 'lower (left) end' and the like."""
    a, b = ramp["a"], ramp["b"]
    lower = math.hypot(p[0] - b[0], p[1] - b[1]) <= math.hypot(p[0] - a[0], p[1] - a[1])
    end, other = (b, a) if lower else (a, b)
    return f"{'lower' if lower else 'upper'} ({'right' if end[0] > other[0] else 'left'}) end"
