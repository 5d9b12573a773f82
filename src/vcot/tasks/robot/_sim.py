"""The Bullet (pybullet) side of the robot tasks: a Franka Panda at a table of 5 cm blocks, the reach check of
every pick and place pose by the arm's inverse kinematics, and the physical replay of an action program with
the blocks settling under gravity — once as planned and again from jittered initial states (the gold-holds
test, docs/tasks/robot_program.md "The engine").

One Bullet world per process, in p.DIRECT (no window, no GPU), built from `pybullet_data`'s bundled Panda and
from boxes created here; nothing is downloaded. Bullet is deterministic for one install and one sequence of
calls, so every replay starts from one saved state of the whole world (every body, velocity and contact), never
from what the replay before left behind.
"""

from __future__ import annotations

import math
import random

from vcot.tasks.robot._bullet import modules, p
from vcot.tasks.robot._world import CELL, COLOURS, CUBE, DIRS, Action, Blocks, apply, cell_xy, nearest_cell

_HOME = (0.0, -0.6, 0.0, -2.4, 0.0, 1.9, 0.785)
_EE = 11  # panda_grasptarget: the point between the fingertips
# The hand pointing down: Bullet's quaternion (x, y, z, w) of the Euler angles (pi, 0, 0), as
# p.getQuaternionFromEuler gives it (kept out of import time, which must not load Bullet).
_DOWN = (math.sin(math.pi / 2), 0.0, 0.0, math.cos(math.pi / 2))
REACH_TOL = 0.01  # metres the fingertips may miss a pose by and still count as reaching it
SETTLE_STEPS = 24  # simulation steps (1/240 s) after each action; a 2 mm drop settles within them
FINAL_STEPS = 48  # more steps after the last action, so a slowly toppling stack shows
POS_TOL = 0.018  # metres a settled block may lie off its cell's centre and still read as in that cell
Z_TOL = 0.006
TILT_TOL = 0.09  # radians: a settled block must stay upright
CLEARANCE = 0.06  # the carried block travels this far above the highest stack


class Unstable(Exception):
    """The physical replay ended in a state other than the planned one (a block slid, toppled, missed)."""


class _World:
    """Two Bullet clients: the table (ground and one box per block colour, reused across replays) and the
    Panda alone, for inverse kinematics — the arm never touches the blocks, and the table steps faster without
    its links."""

    def __init__(self) -> None:
        self.cid = p.connect(p.DIRECT)
        c = self.cid
        p.setGravity(0, 0, -9.81, physicsClientId=c)
        p.setPhysicsEngineParameter(
            fixedTimeStep=1 / 240, numSolverIterations=20, deterministicOverlappingPairs=1, physicsClientId=c
        )
        plane = p.createCollisionShape(p.GEOM_PLANE, physicsClientId=c)
        self.ground = p.createMultiBody(0, plane, physicsClientId=c)
        p.changeDynamics(self.ground, -1, lateralFriction=0.6, physicsClientId=c)
        box = p.createCollisionShape(p.GEOM_BOX, halfExtents=[CUBE / 2] * 3, physicsClientId=c)
        # Every block's body exists from the start, in one order, parked off the table: body ids and the saved
        # state are then the same in every process whatever it replayed before.
        self.boxes: dict[str, int] = {}
        for k, name in enumerate(COLOURS):
            b = p.createMultiBody(0.1, box, basePosition=[5 + k, 5, CUBE / 2], physicsClientId=c)
            p.changeDynamics(b, -1, lateralFriction=0.6, spinningFriction=0.001, physicsClientId=c)
            self.boxes[name] = b
        self.parked = p.saveState(physicsClientId=c)
        self.arm_cid = p.connect(p.DIRECT)
        urdf = f"{modules()[1].getDataPath()}/franka_panda/panda.urdf"
        self.arm = p.loadURDF(urdf, useFixedBase=True, physicsClientId=self.arm_cid)
        self._reach: dict[tuple[int, int, int], float] = {}

    def park_all(self) -> None:
        """Back to the saved state: every block parked, nothing moving, no contact remembered."""
        p.restoreState(self.parked, physicsClientId=self.cid)

    def _links(self) -> list[tuple[float, float, float]]:
        return [
            tuple(p.getLinkState(self.arm, k, computeForwardKinematics=True, physicsClientId=self.arm_cid)[4])
            for k in range(_EE + 1)
        ]

    def home(self) -> list[tuple[float, float, float]]:
        for j, q in enumerate(_HOME):
            p.resetJointState(self.arm, j, q, physicsClientId=self.arm_cid)
        return self._links()

    def ik(self, target: tuple[float, float, float]) -> list[tuple[float, float, float]]:
        """Joint angles reaching `target` with the hand pointing down, from the home pose each time (so the
        answer depends on the target alone); returns every link's position."""
        c = self.arm_cid
        self.home()
        q = p.calculateInverseKinematics(
            self.arm, _EE, target, _DOWN, maxNumIterations=200, residualThreshold=1e-5, physicsClientId=c
        )
        for j in range(7):
            p.resetJointState(self.arm, j, q[j], physicsClientId=c)
        return self._links()

    def reach_error(self, target: tuple[float, float, float]) -> float:
        # Poses repeat (cell centres at stack heights): keep each one's answer, keyed to the millimetre.
        key = (round(target[0] * 1000), round(target[1] * 1000), round(target[2] * 1000))
        if key not in self._reach:
            self._reach[key] = math.dist(self.ik(tuple(k / 1000 for k in key))[-1], [k / 1000 for k in key])
        return self._reach[key]


_WORLD: _World | None = None


def world() -> _World:
    global _WORLD
    if _WORLD is None:
        _WORLD = _World()
    return _WORLD


def arm_points(target: tuple[float, float, float] | None) -> list[tuple[float, float, float]]:
    """The arm's joint positions (base first) at the home pose (`target` None) or reaching `target`."""
    w = world()
    return [(0.0, 0.0, 0.0), *(w.home() if target is None else w.ik(target))]


def reach_error(target: tuple[float, float, float]) -> float:
    return world().reach_error(target)


def _place(w: _World, name: str, xyz: tuple[float, float, float], yaw: float) -> None:
    b = w.boxes[name]
    p.resetBasePositionAndOrientation(b, xyz, p.getQuaternionFromEuler((0, 0, yaw)), physicsClientId=w.cid)
    p.resetBaseVelocity(b, [0, 0, 0], [0, 0, 0], physicsClientId=w.cid)


def _pose(w: _World, name: str) -> tuple[tuple[float, float, float], float, float]:
    pos, orn = p.getBasePositionAndOrientation(w.boxes[name], physicsClientId=w.cid)
    roll, pitch, yaw = p.getEulerFromQuaternion(orn)
    return pos, yaw, max(abs(roll), abs(pitch))


def _read(w: _World, names: list[str], size: tuple[int, int]) -> Blocks:
    out: Blocks = {}
    for name in names:
        (x, y, z), _, tilt = _pose(w, name)
        cell, off = nearest_cell(x, y, size)
        level = round((z - CUBE / 2) / CUBE)
        if off > POS_TOL or abs(z - (CUBE / 2 + level * CUBE)) > Z_TOL or tilt > TILT_TOL or cell is None:
            raise Unstable(f"the {name} block settled off its cell ({off * 1000:.0f} mm, tilt {tilt:.2f} rad)")
        out[name] = (cell[0], cell[1], level)
    return out


def replay(
    blocks: Blocks,
    program: list[Action],
    size: tuple[int, int],
    rng: random.Random | None = None,
    jitter: float = 0.004,
    yaw_jitter: float = 0.1,
) -> list[Blocks]:
    """Run the program in Bullet from the initial `blocks`; the settled, read-back state after each action.

    Each action is a checked kinematic move: the block is lifted out, set down 2 mm above its target (on the
    block below as that block actually lies, or one cell pitch from where a pushed block actually lies) and
    left to settle under gravity. With `rng`, every initial position, every placement and every push lands
    off its nominal point by up to `jitter` metres and `yaw_jitter` radians (a perturbed start and an
    imprecise gripper). Raises `Unstable` when a settled block leaves its cell or topples.
    """
    w = world()
    w.park_all()
    names = sorted(blocks)

    def noise() -> tuple[float, float, float]:
        if rng is None:
            return 0.0, 0.0, 0.0
        return rng.uniform(-jitter, jitter), rng.uniform(-jitter, jitter), rng.uniform(-yaw_jitter, yaw_jitter)

    # Lowest blocks first, so a stack is built bottom up.
    for name in sorted(names, key=lambda n: (blocks[n][2], n)):
        col, row, level = blocks[name]
        x, y = cell_xy(col, row, size)
        dx, dy, dyaw = noise()
        _place(w, name, (x + dx, y + dy, CUBE / 2 + level * CUBE + 0.001), dyaw)
    _settle(w)
    _read(w, names, size)
    out = []
    for act in program:
        (x0, y0, z0), yaw, _ = _pose(w, act["block"])
        if act["op"] == "push":
            ddx, ddy = _dir_xy(act["dir"])
            tx, ty, tz = x0 + ddx, y0 + ddy, z0
        elif act["op"] == "put_on":
            (tx, ty, sz), yaw, _ = _pose(w, act["onto"])
            tz = sz + CUBE + 0.002
        else:
            (sx, sy, _), _, _ = _pose(w, act["onto"])
            ddx, ddy = _dir_xy(act["dir"])
            tx, ty, tz = sx + ddx, sy + ddy, CUBE / 2 + 0.002
        dx, dy, dyaw = noise()
        _place(w, act["block"], (tx + dx, ty + dy, tz), yaw + dyaw)
        _settle(w, SETTLE_STEPS + (FINAL_STEPS if len(out) == len(program) - 1 else 0))
        out.append(_read(w, names, size))
    return out


def _dir_xy(d: str) -> tuple[float, float]:
    col, row = DIRS[d]
    # A column step to the right (as the picture shows it) is -y; a row step away from the robot is +x.
    return row * CELL, -col * CELL


def _settle(w: _World, steps: int = SETTLE_STEPS) -> None:
    for _ in range(steps):
        p.stepSimulation(physicsClientId=w.cid)


def _pose_xyz(state: Blocks, name: str, size: tuple[int, int], above: float = 0.0) -> tuple[float, float, float]:
    c, r, lv = state[name]
    x, y = cell_xy(c, r, size)
    return x, y, CUBE * (lv + 1) + above


def reach_check(blocks: Blocks, program: list[Action], size: tuple[int, int]) -> None:
    """Every pose the arm takes reaches within REACH_TOL: grasping a block's top, lifting it to the carrying
    height (CLEARANCE above the highest stack), over the target and down onto it; a push from behind the block.
    Raises `Unstable` naming the miss."""
    state = dict(blocks)
    for act in program:
        new = apply(state, act)
        carry = CUBE * (1 + max(lv for _, _, lv in state.values())) + CLEARANCE
        if act["op"] == "push":
            x, y, z = _pose_xyz(state, act["block"], size, -CUBE / 2)
            ddx, ddy = _dir_xy(act["dir"])
            poses = [(x - ddx * 0.6, y - ddy * 0.6, z), _pose_xyz(new, act["block"], size, -CUBE / 2)]
        else:
            a, b = _pose_xyz(state, act["block"], size), _pose_xyz(new, act["block"], size)
            poses = [a, (a[0], a[1], carry), (b[0], b[1], carry), b]
        for pose in poses:
            err = reach_error(pose)
            if err > REACH_TOL:
                raise Unstable(f"the arm misses a pose by {err * 1000:.0f} mm")
        state = new


def check(blocks: Blocks, program: list[Action], size: tuple[int, int], seed: int, jitters: int) -> None:
    """The program's plan holds: the arm reaches every pose, and the plain replay and `jitters` jittered replays
    in Bullet all settle into the states the symbolic replay predicts after every action. Raises `Unstable`
    otherwise."""
    reach_check(blocks, program, size)
    planned = []
    state = dict(blocks)
    for act in program:
        state = apply(state, act)
        planned.append(state)
    for k in range(jitters + 1):
        got = replay(blocks, program, size, random.Random(f"{seed}:{k}") if k else None)
        if got != planned:
            raise Unstable("a replay ended in another state" + (" under jitter" if k else ""))
