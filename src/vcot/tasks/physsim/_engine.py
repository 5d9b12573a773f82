"""The pymunk (Chipmunk2D) simulations behind the Intuitive Physics tasks: a tower of blocks released on a floor,
and a ball dropped onto ramps. Each returns the whole sampled trajectory, from which the tasks take their
answers, key frames and drawn paths.

Determinism (docs/tasks/block_tower.md, "Determinism"): a run is a pure function of its inputs on one install.
A fresh `pymunk.Space` is built for every run, bodies are added in a fixed order, the step size and the solver
iterations are fixed, nothing is randomised inside the engine and no wall clock is read; Chipmunk's solver is
sequential C code, so the same inputs give the same floats on one machine and build. Across builds or CPUs
the last bits may differ, which is why every accepted scene must keep its answer under jittered re-runs: a
change in the last bits cannot flip it. No window is opened and nothing is downloaded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import pymunk

# The runs step Chipmunk directly: `Space.step` and `Body.position` wrap the same C calls in Python bookkeeping
# (locking for callbacks, deferred adds, Vec2d objects) that these runs never need and that cost more than the
# stepping itself. The C calls, their arguments and their order are the same, so the floats are too.
# The C pointers are borrowed (`_raw`): pymunk's own cdata objects free the Chipmunk space and bodies when they go,
# in the order pymunk needs (space before bodies), and an extra owning reference held here would upset that order.
# These are pymunk's private modules (checked on pymunk 7.3): where they are laid out otherwise, the public API
# does the same calls, more slowly, with the same floats.
try:
    from pymunk._chipmunk_cffi import ffi as _ffi
    from pymunk._chipmunk_cffi import lib as _cp

    _space_step = _cp.cpSpaceStep
    _body_position = _cp.cpBodyGetPosition
    _body_angle = _cp.cpBodyGetAngle
    _body_velocity = _cp.cpBodyGetVelocity

    def _raw(space: pymunk.Space, body: pymunk.Body) -> tuple[Any, Any]:
        """Non-owning C pointers to a space and one of its bodies (valid while the pymunk objects live)."""
        return _ffi.cast("cpSpace *", space._space), _ffi.cast("cpBody *", body._body)
except (ImportError, AttributeError):  # another pymunk layout: its public API

    def _space_step(space: Any, dt: float) -> None:
        space.step(dt)

    def _body_position(body: Any) -> Any:
        return body.position

    def _body_angle(body: Any) -> float:
        return body.angle

    def _body_velocity(body: Any) -> Any:
        return body.velocity

    def _raw(space: pymunk.Space, body: pymunk.Body) -> tuple[Any, Any]:
        return space, body


GRAVITY = 10.0  # world units per second squared; block heights are about 1 unit
# Tower: 150 steps of 1/60 s. A tipping stack of up to 9 blocks has hit the floor and nearly stopped by 2.5 s.
TOWER_DT = 1.0 / 60.0
TOWER_STEPS = 150
TOWER_ITERATIONS = 30  # solver iterations: resting stacks of 9 blocks stay still at this count
FRICTION = 0.7
WATCH_EVERY = 10  # steps between the checks of `simulate_tower(watch=...)`
# Ball: 1/120 s steps keep the ball (radius 0.25, at most about 12 units/s) from sinking into a ramp.
BALL_DT = 1.0 / 120.0
BALL_MAX_STEPS = 900
RAMP_RADIUS = 0.06  # half the drawn thickness of a ramp
CONTACT_SLACK = 0.03  # a ball within this of a ramp's surface touches it


@dataclass
class TowerRun:
    """Poses (x, y, angle) of every block (bottom first) after each step, starting with the initial pose (or
    only the initial and the last pose: `poses[-1]` is the end either way); `stopped` when a watched run was
    given up before its end (`simulate_tower`)."""

    poses: list[list[tuple[float, float, float]]]
    heights: list[float]
    widths: list[float]
    stopped: bool = False

    def motion(self, step: int, i: int) -> float:
        """How far block i has moved from its start by `step`: centre shift plus the arc of its far corner."""
        x0, y0, a0 = self.poses[0][i]
        x, y, a = self.poses[step][i]
        return math.hypot(x - x0, y - y0) + abs(a - a0) * math.hypot(self.widths[i], self.heights[i]) / 2

    def lowest_corner(self, step: int, i: int) -> float:
        x, y, a = self.poses[step][i]
        return min(y + dx * math.sin(a) + dy * math.cos(a) for dx, dy in corners(self.widths[i], self.heights[i]))


def corners(w: float, h: float) -> list[tuple[float, float]]:
    return [(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)]


def stacked_centres(blocks: Sequence[dict[str, Any]]) -> list[float]:
    """Centre heights of blocks resting one on another from the floor (y = 0) up."""
    out, y = [], 0.0
    for b in blocks:
        out.append(y + b["h"] / 2)
        y += b["h"]
    return out


def simulate_tower(
    blocks: Sequence[dict[str, Any]],
    shifts: Sequence[float] | None = None,
    densities: Sequence[float] | None = None,
    glued_from: int | None = None,
    trace: bool = True,
    watch: tuple[int, float] | None = None,
) -> TowerRun:
    """Release the blocks (dicts with centre x, width w, height h; bottom first) from rest on the floor.

    `shifts` moves each block sideways (the jitter test); `densities` replaces the uniform density and
    `glued_from` makes the blocks from that index up one rigid body (the corrupted trajectories' mistakes).
    Without `trace` only the first and the last poses are kept (the checks need no more; recording every step
    costs more than the stepping).

    `watch` = (k, limit) stops the run early (`stopped` set, the last pose the one at the stop) when one of
    the k lowest blocks has moved (`TowerRun.motion`) more than `limit` at a check every WATCH_EVERY steps:
    the sampler rejects a run unless those blocks end still, so a run they have clearly left need not be
    stepped to its end (blocks that end still rarely come near such a limit on the way). Watching only reads
    the poses; it changes nothing in the run."""
    space = pymunk.Space()
    space.gravity = (0.0, -GRAVITY)
    space.iterations = TOWER_ITERATIONS
    floor = pymunk.Segment(space.static_body, (-200.0, 0.0), (200.0, 0.0), 0.0)
    floor.friction = FRICTION
    floor.elasticity = 0.0
    space.add(floor)
    centres = [
        (b["x"] + (shifts[i] if shifts else 0.0), yc)
        for i, (b, yc) in enumerate(zip(blocks, stacked_centres(blocks), strict=True))
    ]
    masses = [b["w"] * b["h"] * (densities[i] if densities else 1.0) for i, b in enumerate(blocks)]
    n = len(blocks)
    g = n if glued_from is None else glued_from
    groups = [[i] for i in range(min(g, n))] + ([list(range(g, n))] if g < n else [])
    # Each block rides on one body, at a fixed offset from that body's centre of mass.
    owner: list[tuple[pymunk.Body, float, float]] = [None] * n  # type: ignore[list-item]
    for group in groups:
        mass = sum(masses[i] for i in group)
        cx = sum(masses[i] * centres[i][0] for i in group) / mass
        cy = sum(masses[i] * centres[i][1] for i in group) / mass
        moment = sum(
            pymunk.moment_for_box(masses[i], (blocks[i]["w"], blocks[i]["h"]))
            + masses[i] * ((centres[i][0] - cx) ** 2 + (centres[i][1] - cy) ** 2)
            for i in group
        )
        body = pymunk.Body(mass, moment)
        body.position = (cx, cy)
        space.add(body)
        for i in group:
            ox, oy = centres[i][0] - cx, centres[i][1] - cy
            verts = [(ox + dx, oy + dy) for dx, dy in corners(blocks[i]["w"], blocks[i]["h"])]
            shape = pymunk.Poly(body, verts, radius=0.0)
            shape.friction = FRICTION
            shape.elasticity = 0.0
            space.add(shape)
            owner[i] = (body, ox, oy)

    cbodies = [(_raw(space, body)[1], ox, oy) for body, ox, oy in owner]
    get_angle = _body_angle

    def pose() -> list[tuple[float, float, float]]:
        out = []
        for cb, ox, oy in cbodies:
            a = get_angle(cb)
            ca, sa = math.cos(a), math.sin(a)
            p = _body_position(cb)
            out.append((p.x + ox * ca - oy * sa, p.y + ox * sa + oy * ca, a))
        return out

    poses = [pose()]
    space.step(TOWER_DT)  # the first step through pymunk (it checks the bodies' masses), the rest directly
    if trace:
        poses.append(pose())
    cspace = _raw(space, owner[0][0])[0]
    k, limit = watch if watch is not None else (0, 0.0)
    start = poses[0][:k]
    diag = [math.hypot(b["w"], b["h"]) / 2 for b in blocks[:k]]
    heights, widths = [b["h"] for b in blocks], [b["w"] for b in blocks]
    for s in range(2, TOWER_STEPS + 1):
        _space_step(cspace, TOWER_DT)
        if trace:
            poses.append(pose())
        if k and s % WATCH_EVERY == 0 and s < TOWER_STEPS:
            now = pose()
            if any(
                math.hypot(x - x0, y - y0) + abs(a - a0) * d > limit
                for (x0, y0, a0), (x, y, a), d in zip(start, now[:k], diag, strict=True)
            ):
                if not trace:
                    poses.append(now)
                return TowerRun(poses=poses, heights=heights, widths=widths, stopped=True)
    if not trace:
        poses.append(pose())
    return TowerRun(poses=poses, heights=heights, widths=widths)


@dataclass
class BallRun:
    """The ball centre after each step, the ramps it touched in order (ramp index, first step, last step), and
    where it crossed the bins' rim (None when it left the box or never came down)."""

    trace: list[tuple[float, float]]
    touches: list[tuple[int, int, int]] = field(default_factory=list)
    landing_x: float | None = None
    left_box: bool = False


def _distance_to_segment(p: tuple[float, float], a: Sequence[float], b: Sequence[float]) -> float:
    ax, ay = a
    bx, by = b
    dx, dy = bx - ax, by - ay
    t = max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / (dx * dx + dy * dy)))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


class BallSim:
    """A ball released from rest among static ramps, stepped on demand: `simulate_ball` runs it to the end, and
    the ball_bins sampler adds each ramp of its chain while the ball is still in the air above it."""

    def __init__(self, ball: dict[str, Any], dx: float = 0.0, dy: float = 0.0, damping: float = 1.0) -> None:
        self.space = pymunk.Space()
        self.space.gravity = (0.0, -GRAVITY)
        self.space.damping = damping
        self.r = ball["r"]
        self.reach = self.r + RAMP_RADIUS + CONTACT_SLACK
        self.ramps: list[dict[str, Any]] = []
        self.boxes: list[tuple[float, float, float, float]] = []
        self.body = pymunk.Body(1.0, pymunk.moment_for_circle(1.0, 0.0, self.r))
        self.body.position = (ball["x"] + dx, ball["y"] + dy)
        shape = pymunk.Circle(self.body, self.r)
        shape.friction = 0.0
        shape.elasticity = 0.0
        self.space.add(self.body, shape)
        self.run = BallRun(trace=[(self.body.position.x, self.body.position.y)])
        self.steps = 0
        self._cspace, self._cbody = _raw(self.space, self.body)

    def add_ramp(self, ramp: dict[str, Any]) -> None:
        seg = pymunk.Segment(self.space.static_body, tuple(ramp["a"]), tuple(ramp["b"]), RAMP_RADIUS)
        seg.friction = 0.0
        seg.elasticity = 0.0
        self.space.add(seg)
        self.ramps.append(ramp)
        a, b, e = ramp["a"], ramp["b"], self.reach
        self.boxes.append((min(a[0], b[0]) - e, max(a[0], b[0]) + e, min(a[1], b[1]) - e, max(a[1], b[1]) + e))

    def velocity(self) -> tuple[float, float]:
        v = _body_velocity(self._cbody)
        return (v.x, v.y)

    def step(self) -> tuple[float, float]:
        """One step; records the position and any ramp touched."""
        if self.steps:
            _space_step(self._cspace, BALL_DT)
        else:
            self.space.step(BALL_DT)  # the first step through pymunk (it checks the body's mass)
        self.steps += 1
        v = _body_position(self._cbody)
        x, y = v.x, v.y
        p = (x, y)
        self.run.trace.append(p)
        touches = self.run.touches
        for k, (x0, x1, y0, y1) in enumerate(self.boxes):
            if (
                x0 <= x <= x1
                and y0 <= y <= y1
                and _distance_to_segment(p, self.ramps[k]["a"], self.ramps[k]["b"]) <= self.reach
            ):
                if touches and touches[-1][0] == k and touches[-1][2] >= self.steps - 3:
                    touches[-1] = (k, touches[-1][1], self.steps)
                else:
                    touches.append((k, self.steps, self.steps))
        return p

    def finish(self, width: float, rim: float) -> BallRun:
        """Step until the centre passes `rim` (landing), leaves [r, width - r] or the step budget ends."""
        run = self.run
        while self.steps < BALL_MAX_STEPS:
            prev = run.trace[-1]
            p = self.step()
            if not self.r <= p[0] <= width - self.r:
                run.left_box = True
                return run
            if p[1] < rim:
                f = (prev[1] - rim) / (prev[1] - p[1])
                run.landing_x = prev[0] + f * (p[0] - prev[0])
                return run
        return run


def simulate_ball(scene: dict[str, Any], dx: float = 0.0, dy: float = 0.0, damping: float = 1.0) -> BallRun:
    """Drop the ball from rest (its start moved by dx, dy for the jitter test) onto the frictionless, perfectly
    inelastic ramps, until its centre passes the bins' rim (its bottom level with the dividers' tops).

    `damping` below 1 slows the ball (pymunk's velocity damping per second): the corrupted trajectories'
    mistaken drag."""
    sim = BallSim(scene["ball"], dx, dy, damping)
    for ramp in scene["ramps"]:
        sim.add_ramp(ramp)
    return sim.finish(scene["width"], scene["divider_h"] + scene["ball"]["r"])
