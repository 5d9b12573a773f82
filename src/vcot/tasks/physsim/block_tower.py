"""block_tower (Intuitive Physics): how many blocks of a released tower stay where they were placed.

A single column of rectangular blocks (uniform density, one material) stands on a floor; each rests on the one
below with a sideways offset. The tower is released from rest and simulated with pymunk (Chipmunk2D,
`_engine.simulate_tower`); the answer is the number of blocks whose pose at 2.5 s is still the placed one.
The steps are key frames of the run — when blocks start to tip, when the first falling block reaches the floor,
and the end — with the paths of the moving blocks' centres drawn.

Sampling draws offsets until the statics of the stack (the centre of mass of every block group over the contact
face below it) puts the lowest tipping face where the balanced answer wants it, every face up to that one by a
clear margin; then the simulated run must agree, no block may end half-moved, and jittered re-runs (every block
shifted sideways a little) must leave the same blocks standing. docs/tasks/block_tower.md has the details.
"""

from __future__ import annotations

import functools
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
from vcot.tasks.physsim._draw import Frame, names
from vcot.tasks.physsim._engine import (
    TOWER_DT,
    TOWER_STEPS,
    TowerRun,
    corners,
    simulate_tower,
    stacked_centres,
)

LETTERS = "ABCDEFGHI"
STILL = 0.1  # a block that moved less than this (centre shift plus corner arc, world units) stayed
GONE = 0.5  # one that moved more than this fell; anything between is a half-moved, fragile scene
# What an accepted scene's own run must show: blocks that stay barely stir, blocks that fall are clearly gone.
# Runs where the tipping group drags the block under it, or comes apart and leaves a block behind, fall
# between and change under jitter.
STILL_CLEAR = 0.05
GONE_CLEAR = 1.5
MIN_CONTACT = 0.3  # shortest contact face between neighbouring blocks (world units)
TIP_SPREAD = 0.4  # how much further than the margin the tipping group's centre of mass may overhang
CANVAS_W = 720
# Mistaken weights the corrupted trajectories try (a block taken as this many times heavier than its size says).
WRONG_WEIGHTS = (0.1, 0.25, 4.0, 10.0)


@dataclass(frozen=True)
class BlockTowerConfig:
    blocks: int = 5
    min_width: float = 1.2
    max_width: float = 2.6
    min_height: float = 0.7
    max_height: float = 1.0
    margin: float = 0.15  # distance of each group's centre of mass from the edges of its contact face
    jitter: float = 0.05  # sideways shift of each block in the jitter re-runs
    jitter_runs: int = 5


def contact_face(lower: dict[str, Any], upper: dict[str, Any]) -> tuple[float, float]:
    return (
        max(lower["x"] - lower["w"] / 2, upper["x"] - upper["w"] / 2),
        min(lower["x"] + lower["w"] / 2, upper["x"] + upper["w"] / 2),
    )


def statics(blocks: list[dict[str, Any]]) -> list[float]:
    """For each contact face j (between block j and j+1): how far the centre of mass of blocks j+1.. lies inside
    the face (negative: outside, so that group tips over the face's edge)."""
    out = []
    for j in range(len(blocks) - 1):
        group = blocks[j + 1 :]
        mass = sum(b["w"] * b["h"] for b in group)
        com = sum(b["w"] * b["h"] * b["x"] for b in group) / mass
        lo, hi = contact_face(blocks[j], blocks[j + 1])
        out.append(min(com - lo, hi - com))
    return out


def build_tower(rng: random.Random, cfg: BlockTowerConfig, standing: int) -> list[dict[str, Any]]:
    """Blocks placed from the top down so that every contact face but the one under block `standing` holds its
    group by at least `cfg.margin`, and that face (when there is one) misses its group's centre of mass by at
    least as much: the group above it then tips as one piece, rather than racing a block above that would fall
    on its own. Raises Reject when a block cannot be placed."""
    n = cfg.blocks
    sizes = [
        (round(rng.uniform(cfg.min_width, cfg.max_width), 2), round(rng.uniform(cfg.min_height, cfg.max_height), 2))
        for _ in range(n)
    ]
    xs = [0.0] * n
    for j in range(n - 2, -1, -1):
        w, wu = sizes[j][0], sizes[j + 1][0]
        reach = (w + wu) / 2 - MIN_CONTACT
        lo, hi = xs[j + 1] - reach, xs[j + 1] + reach  # keeps a contact face of MIN_CONTACT
        mass = sum(a * b for a, b in sizes[j + 1 :])
        com = sum(a * b * x for (a, b), x in zip(sizes[j + 1 :], xs[j + 1 :], strict=True)) / mass
        if j == standing - 1:  # the tipping face: its group overhangs it
            # Only just: the faces below must still hold this block with the overhanging group on it, which
            # takes a block that outweighs the overhang's torque.
            if rng.random() < 0.5:
                hi = min(hi, com - cfg.margin - w / 2)
                lo = max(lo, hi - TIP_SPREAD)
            else:
                lo = max(lo, com + cfg.margin + w / 2)
                hi = min(hi, lo + TIP_SPREAD)
        else:  # a holding face: the group's centre inside it
            left_edge, right_edge = xs[j + 1] - wu / 2, xs[j + 1] + wu / 2
            if not (left_edge <= com - cfg.margin and com + cfg.margin <= right_edge):
                raise Reject("the group above a holding face overhangs its own bottom block")
            lo = max(lo, com + cfg.margin - w / 2)
            hi = min(hi, com - cfg.margin + w / 2)
        if lo > hi:
            raise Reject("no place for a block that gives the wanted statics")
        xs[j] = rng.uniform(lo, hi)
    return [{"label": LETTERS[i], "x": round(xs[i] - xs[0], 2), "w": w, "h": h} for i, (w, h) in enumerate(sizes)]


@functools.lru_cache(maxsize=64)
def _balanced_slot(task: str, setting: str, seed: int, index: int, n: int, salt: str) -> int:
    return GenContext(rng=random.Random(0), task=task, seed=seed, index=index, setting=setting).balanced(n, salt)


def _balanced(ctx: GenContext, n: int, salt: str) -> int:
    """`ctx.balanced`, computed once per instance: it depends on the instance alone, and a scene here takes
    hundreds of draws (the statics checks reject most in microseconds, and the balancing costs as much)."""
    return _balanced_slot(ctx.task, ctx.setting, ctx.seed, ctx.index, n, salt)


def local_overhang_count(blocks: list[dict[str, Any]]) -> int:
    """The shortcut that looks at one block at a time: the blocks below the lowest one whose own centre lies
    beyond the block under it."""
    for j in range(1, len(blocks)):
        if abs(blocks[j]["x"] - blocks[j - 1]["x"]) > blocks[j - 1]["w"] / 2:
            return j
    return len(blocks)


def widest_offset(blocks: list[dict[str, Any]]) -> int:
    """The index of the block with the widest sideways offset from the block below it (a shortcut's answer)."""
    return max(range(1, len(blocks)), key=lambda i: abs(blocks[i]["x"] - blocks[i - 1]["x"]))


def outcome(run: TowerRun) -> list[bool] | None:
    """Which blocks fell by the end of the run; None when one is half-moved (neither still nor gone) or the run
    was stopped early (`simulate_tower(watch=...)`: a block that had to stand had clearly moved)."""
    if run.stopped:
        return None
    fell = []
    for i in range(len(run.widths)):
        m = run.motion(-1, i)
        if STILL <= m <= GONE:
            return None
        fell.append(m > GONE)
    return fell


def key_steps(run: TowerRun, fell: list[bool]) -> list[int]:
    """Three step indices: tipping visible, first fallen block on the floor, end (evenly spaced if none falls)."""
    if not any(fell):
        return [TOWER_STEPS // 5, TOWER_STEPS * 3 // 5, TOWER_STEPS]
    n = len(fell)
    tip = next(
        (s for s in range(1, TOWER_STEPS + 1) if any(run.motion(s, i) > 0.4 for i in range(n))), TOWER_STEPS // 3
    )
    floor = next(
        (s for s in range(tip + 1, TOWER_STEPS) for i in range(1, n) if fell[i] and run.lowest_corner(s, i) < 0.04),
        (tip + TOWER_STEPS) // 2,
    )
    return [tip, max(floor, tip + 1), TOWER_STEPS]


@register
class BlockTower(Task):
    name = "block_tower"
    domain = "Intuitive Physics"
    answer_type = AnswerType.INTEGER
    config_cls = BlockTowerConfig
    presets = {
        "easy": BlockTowerConfig(blocks=3, margin=0.25),
        "medium": BlockTowerConfig(),
        "hard": BlockTowerConfig(blocks=6, min_width=1.0, max_width=2.8, min_height=0.6, max_height=0.9, margin=0.12),
    }
    version = "1"
    max_attempts = 40000  # most attempts fail the cheap statics checks (tens of microseconds) before any simulation
    final_state_shows = "the blocks still standing in the last key frame"
    description = (
        "A released tower of offset blocks simulated with pymunk; how many blocks stay where they were placed."
    )
    limits = {
        "blocks": Limit(
            3,
            9,
            "blocks in the tower, lettered A to I: with 2 the one-block-at-a-time shortcut is "
            "always right, above 9 the tower is too thin to label",
        ),
        "min_width": Limit(0.8, 3.0, "world units (a block's height is about 1): narrower blocks are hard to label"),
        "max_width": Limit(0.8, 3.0, "world units: wider blocks make the picture too wide for its height"),
        "min_height": Limit(0.5, 1.2, "world units: the letter must fit inside the block"),
        "max_height": Limit(0.5, 1.2, "world units: taller towers leave too little room for the fallen blocks"),
        "margin": Limit(
            0.05,
            0.5,
            "world units between a group's centre of mass and its face's edges: below 0.05 "
            "the tower's fate is not visible by eye, above 0.5 few scenes qualify",
        ),
        "jitter": Limit(0.0, 0.1, "world units each block is shifted in the jitter re-runs"),
        "jitter_runs": Limit(0, 8, "jittered re-runs each accepted scene must survive (each costs a simulation)"),
    }
    colour_pools = ()

    # -- sampling -------------------------------------------------------------------------------------------

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        cfg, rng = self.config, ctx.rng
        n = cfg.blocks
        want = _balanced(ctx, n, "standing") + 1
        # The one-block-at-a-time shortcut agrees with the answer as often as a guess would (vcot audit): it must
        # when only the top block falls (a lone block falls by its own overhang), so it must not otherwise.
        cue = want == n - 1
        blocks = build_tower(rng, cfg, want)
        slack = statics(blocks)
        unstable = [j for j, s in enumerate(slack) if s < 0]
        standing = unstable[0] + 1 if unstable else n
        if standing != want:
            raise Reject("the statics give another number of standing blocks than the balanced answer")
        if any(abs(s) < cfg.margin for s in slack) or any(s < 0 for s in slack[standing:]):
            raise Reject("a block group's centre of mass lies too near the edge of its contact face")
        if (local_overhang_count(blocks) == want) != cue:
            raise Reject("the one-block-at-a-time shortcut would give the answer away (or must)")
        # Likewise the block with the widest offset from the one below: the tipping face must not be the
        # widest, except when only the top block falls (then a lone overhang is the widest as a rule).
        if want < n - 1 and widest_offset(blocks) == want:
            raise Reject("the widest offset would give the tipping face away")
        scene = {"blocks": blocks}
        # The blocks below the tipping face must stay still: a run where one has moved as far as a fallen block
        # stops there and is rejected (docs/tasks/block_tower.md).
        watch = (want, GONE)
        run = simulate_tower(blocks, trace=False, watch=watch)
        fell = outcome(run)
        if fell is None or fell != [i >= want for i in range(n)]:
            raise Reject("the simulated run does not leave the blocks below the tipping face standing")
        moves = [run.motion(-1, i) for i in range(n)]
        if any(STILL_CLEAR <= m <= GONE_CLEAR for m in moves):
            raise Reject("a block stirs or falls only a little in the simulated run")
        final = run.poses[-1]
        half = self._frame(scene).x1
        if any(abs(x) > half - 0.5 for x, _, _ in final):
            raise Reject("a fallen block ends outside the picture")
        # The mirror image is the same physics; Chipmunk's solver visits contacts in another order there, so a
        # run that hangs on that order (a tipping group dragging the block under it) shows up.
        if outcome(simulate_tower([{**b, "x": -b["x"]} for b in blocks], trace=False, watch=watch)) != fell:
            raise Reject("the mirror-image run leaves other blocks standing")
        for _ in range(cfg.jitter_runs):
            shifts = [rng.uniform(-cfg.jitter, cfg.jitter) for _ in blocks]
            if outcome(simulate_tower(blocks, shifts=shifts, trace=False, watch=watch)) != fell:
                raise Reject("a jittered re-run leaves other blocks standing")
        return scene

    def solve(self, scene: dict[str, Any]) -> Solution:
        run = simulate_tower(scene["blocks"])
        fell = outcome(run)
        if fell is None:
            raise Reject("a block ends half-moved")
        return self._solution(scene, run, fell)

    def _solution(self, scene: dict[str, Any], run: TowerRun, fell: list[bool]) -> Solution:
        labels = [b["label"] for b in scene["blocks"]]
        steps = key_steps(run, fell)
        states = []
        for s in steps:
            moved = [labels[i] for i in range(len(labels)) if run.motion(s, i) >= STILL]
            floor = [labels[i] for i in range(1, len(labels)) if fell[i] and run.lowest_corner(s, i) < 0.04]
            states.append({"t": round(s * TOWER_DT, 2), "moved": moved, "on_floor": floor})
        fallen = [labels[i] for i in range(len(labels)) if fell[i]]
        side = 0.0
        if fallen:
            side = sum(run.poses[-1][i][0] - run.poses[0][i][0] for i in range(len(labels)) if fell[i])
        return Solution(
            answer=str(fell.count(False)),
            states=states,
            details={"fallen": fallen, "side": ("right" if side > 0 else "left") if fallen else "", "key_steps": steps},
        )

    def question(self, scene: dict[str, Any]) -> str:
        n = len(scene["blocks"])
        return (
            f"The picture shows a tower of {n} rectangular blocks, lettered from A at the bottom to "
            f"{LETTERS[n - 1]} at the top, standing on a flat floor; gravity points down the picture. Every block "
            "is a solid of the same uniform material, so its weight is proportional to its drawn area, and each "
            "rests flat on the block below it. Friction is high, so blocks tip rather than slide. The tower is "
            "released from rest. How many of the blocks stay where they were placed? Answer with a single "
            "integer."
        )

    def answer_space(self, instance: Instance) -> AnswerSpace:
        """From 1 (only the bottom block, which rests on the floor itself) to every block."""
        n = self.config.blocks  # the configuration's, so an instance without its scene still has its space
        return integers(1, n, f"1 to {n} blocks staying in place")

    # -- drawing --------------------------------------------------------------------------------------------

    def _frame(self, scene: dict[str, Any]) -> Frame:
        blocks = scene["blocks"]
        height = sum(b["h"] for b in blocks)
        half = max(6.0, height + 3.0)
        scale = (CANVAS_W - 40) / (2 * half)
        return Frame(-half, -0.35, half, height + 0.5, scale, pad=20, top=30)

    def _draw(self, scene: dict[str, Any], run: TowerRun | None, step: int, title: str) -> Image.Image:
        fr = self._frame(scene)
        c = Canvas(fr.width, fr.height)
        x0, y0 = fr.px(fr.x0, 0.0)
        x1, _ = fr.px(fr.x1, 0.0)
        c.rect((x0, y0, x1, fr.height - 4), fill="lightgray", outline=None)
        for k in range(int((x1 - x0) / 18) + 1):
            hx = x0 + 18 * k
            c.line([(hx, y0 + 14), (hx + 12, y0 + 2)], "gray", 1.5)
        c.line([(x0, y0), (x1, y0)], "black", 3)
        if title:
            c.text((12, 8), title, size=18, bold=True)
        blocks = scene["blocks"]
        placed = [(b["x"], yc, 0.0) for b, yc in zip(blocks, stacked_centres(blocks), strict=True)]
        poses = run.poses[step] if run is not None else placed
        if run is not None:
            for i, b in enumerate(blocks):
                if run.motion(step, i) < STILL:
                    continue
                # Where the block stood (dashed), and the path of its centre since.
                self._block(c, fr, b, placed[i], fill=None, dashed=True)
                path = [fr.px(p[i][0], p[i][1]) for p in run.poses[: step + 1 : 2]]
                path.append(fr.px(*poses[i][:2]))
                c.line(path, "blue", 2.5, dash=(7, 5))
        for i, b in enumerate(blocks):
            self._block(c, fr, b, poses[i], fill="lightyellow")
        return c.image()

    @staticmethod
    def _block(
        c: Canvas,
        fr: Frame,
        b: dict[str, Any],
        pose: tuple[float, float, float],
        fill: str | None,
        dashed: bool = False,
    ) -> None:
        x, y, a = pose
        ca, sa = math.cos(a), math.sin(a)
        pts = [fr.px(x + dx * ca - dy * sa, y + dx * sa + dy * ca) for dx, dy in corners(b["w"], b["h"])]
        if dashed:
            c.line([*pts, pts[0]], "gray", 2, dash=(6, 4))
            return
        c.polygon(pts, fill=fill, outline="black", width=2.5)
        size = int(min(26, b["h"] * fr.scale * 0.62))
        c.text(fr.px(x, y), b["label"], size=size, bold=True, anchor="mm")

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return self._draw(scene, None, 0, "")

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        run = simulate_tower(scene["blocks"])
        return Rendering(image=self.render_input(scene, solution), steps=self._steps(scene, run, solution))

    def _steps(self, scene: dict[str, Any], run: TowerRun, solution: Solution) -> list[tuple[Image.Image, str]]:
        out = []
        labels = [b["label"] for b in scene["blocks"]]
        side = solution.details["side"]
        fallen = solution.details["fallen"]
        for k, (s, st) in enumerate(zip(solution.details["key_steps"], solution.states, strict=True)):
            title = f"t = {st['t']:.2f} s"
            still = [x for x in labels if x not in st["moved"]]
            if not fallen:
                text = f"{title}: no block has moved; every block stands where it was placed."
            elif k == 0:
                text = (
                    f"{title}: {_blocks(st['moved'])} {'has' if len(st['moved']) == 1 else 'have'} begun to "
                    f"tip to the {side}; {_blocks(still)} {_be(still)} not moved."
                )
            elif k == 1:
                floor = st["on_floor"] or st["moved"][-1:]
                text = (
                    f"{title}: {_blocks(floor)} {'reaches' if len(floor) == 1 else 'reach'} the floor to the "
                    f"{side} of the tower; {_blocks(still)} {_be(still)} not moved."
                )
            else:
                text = (
                    f"{title}: {_blocks(fallen)} {'has' if len(fallen) == 1 else 'have'} toppled to the "
                    f"{side} (dashed: where {'it' if len(fallen) == 1 else 'they'} stood and the path of "
                    f"{'its centre' if len(fallen) == 1 else 'their centres'}); {_blocks(still)} "
                    f"{'stands' if len(still) == 1 else 'stand'} where {'it was' if len(still) == 1 else 'they were'}"
                    " placed."
                )
            out.append((self._draw(scene, run, s, title), text))
        return out

    # -- corruption -----------------------------------------------------------------------------------------

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption | None:
        """The run of a reader who misjudged one block's weight (the same tower simulated with that block
        heavier or lighter than its size says), or, when no such run differs, of one who took the blocks above
        A, or the whole tower, for one rigid piece; each leaves another number of blocks standing."""
        blocks = scene["blocks"]
        tries: list[tuple[int, float]] = [(i, f) for i in range(1, len(blocks)) for f in WRONG_WEIGHTS]
        rng.shuffle(tries)
        for i, factor in [*tries, (1, 0.0), (0, 0.0)]:
            if factor:
                mistake: dict[str, Any] = {"densities": [factor if j == i else 1.0 for j in range(len(blocks))]}
                desc = f"block {blocks[i]['label']} weighed as {factor:g} times its size"
            else:
                mistake = {"glued_from": i}
                desc = f"the blocks from {blocks[i]['label']} up taken for one rigid piece"
            fell = outcome(simulate_tower(blocks, trace=False, **mistake))
            if fell is None or fell[0] or str(fell.count(False)) == solution.answer:
                continue
            # A block the run leaves standing must never be said to have moved on the way (a block dragged past
            # STILL that settles back would read "has begun to tip", then "has not moved"): the true run is held
            # to the same by the sampler's steadiness checks.
            run = simulate_tower(blocks, **mistake)
            if any(
                not fell[j] and max(run.motion(s, j) for s in range(len(run.poses))) >= STILL
                for j in range(len(blocks))
            ):
                continue
            desc += f": {fell.count(False)} staying instead of {solution.answer}"
            # The answer is what the drawn run's last key frame shows standing (`_wrong_steps` draws this same
            # deterministic run), not a new simulation. No scene is set: a misjudged weight is no scene the
            # oracle reads (its blocks have uniform density).
            drawn = outcome(run)
            standing = drawn.count(False) if drawn is not None else 0
            answer = str(standing) if 1 <= standing <= len(blocks) else None
            return Corruption(
                steps=lambda mistake=mistake: self._wrong_steps(scene, mistake), description=desc, answer=answer
            )
        return None

    def _wrong_steps(self, scene: dict[str, Any], mistake: dict[str, Any]) -> list[tuple[Image.Image, str]]:
        run = simulate_tower(scene["blocks"], **mistake)
        fell = outcome(run)
        assert fell is not None  # the same run `corrupt` accepted
        return self._steps(scene, run, self._solution(scene, run, fell))


def _blocks(items: list[str]) -> str:
    if not items:  # only in runs the generator rejects (the bottom block moved); kept readable
        return "none of the blocks"
    return ("block " if len(items) == 1 else "blocks ") + names(items)


def _be(items: list[str]) -> str:
    return "has" if len(items) == 1 else "have"
