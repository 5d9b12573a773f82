"""Scene sampling shared by cubes_count and cubes_missing: a cube structure drawn from one camera, with every
column top and every empty floor square in view and the answer in a balanced bin; and `CubePictureTask`, the
part of both tasks that does not depend on the question (sampling, difficulty levels, the question's
description of the picture, the input picture and the layout of the step pictures).
"""

from __future__ import annotations

import hashlib
import json
import random
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from PIL import Image

from vcot.draw.canvas import hstack
from vcot.tasks.base import GenContext, Limit, ParameterError, Reject, Rendering, Solution, Task
from vcot.tasks.common.cube_stacks import (
    SHADES,
    Camera,
    Heights,
    balanced_bin,
    bucket_bounds,
    connected,
    dims,
    render_iso,
    trim,
    visibility,
    visibility_problems,
)


@dataclass(frozen=True)
class CubesConfig:
    """Difficulty of the isometric cube pictures.

    The footprint is width x depth cells (after trimming empty border rows/columns), columns are 0..max_height
    tall. answer_min..answer_max is the balanced answer range: it is split into `buckets` equal-width bins,
    the bin is chosen with ctx.balanced and scenes whose answer misses it are rejected.
    azimuth_spread: the camera azimuth is 45 deg +- up to this many degrees (0 = exact isometric azimuth).
    min_visible: the fraction of every column top (and every empty cell's floor square) that must be seen.
    """

    min_width: int = 3
    max_width: int = 4
    min_depth: int = 3
    max_depth: int = 4
    max_height: int = 4
    answer_min: int = 10
    answer_max: int = 40
    buckets: int = 4
    azimuth_spread: int = 10
    min_visible: float = 0.5


# The sizes and camera spread of each difficulty level, the same for both questions; each task adds its own
# answer range (`answer_range_presets`): a count and the cubes missing from a box span different numbers.
CUBE_LEVELS = {
    "easy": CubesConfig(min_width=2, max_width=3, min_depth=2, max_depth=3, max_height=3, azimuth_spread=0),
    "medium": CubesConfig(min_width=3, max_width=4, min_depth=3, max_depth=4, max_height=4, azimuth_spread=10),
    "hard": CubesConfig(min_width=4, max_width=5, min_depth=4, max_depth=5, max_height=5, azimuth_spread=12),
}

PALETTES = tuple(SHADES)

# Largest footprint side and column height a configuration may ask for. The visibility checks clip polygons for
# every cell against its occlusion cone (cost grows with the fourth power of the side) and wide footprints are
# often rejected for hidden tops: at side 6 one instance took 1.1-1.6 s on average and up to 9 s, at side 5 with
# columns up to 6 tall 0.12 s on average and 0.3 s at most (docs/tasks/cubes_count.md, "Parameter limits").
MAX_SIDE = 5
MAX_COLUMN = 6
_SIDE_WHY = "footprint side: the visibility checks grow with its fourth power, and wider footprints hide tops"
_MAX_BOX = MAX_SIDE * MAX_SIDE * MAX_COLUMN
_BOX_WORDS = f"{MAX_SIDE} x {MAX_SIDE} x {MAX_COLUMN}"

# What the question says about the picture, before it asks. It must hold for every picture: the floor is drawn
# only under the structure's footprint, so when every square holds a column no floor is visible at all.
PICTURE_RULES = (
    "The picture shows a structure of identical unit cubes standing on a flat floor, seen from the "
    "front-right and above. Every column of cubes is filled from the floor up (no gaps under any "
    "cube), and at least part of the top of every column is visible in the picture; a floor square "
    "drawn grey, with no cube on it, is empty."
)


def sample_trend_heights(rng: random.Random, w: int, d: int, hmax: int, level: float) -> Heights:
    """Columns tend to be taller at the back-left (away from the camera) so tops stay in view; `level`
    (0..1) scales the mean height. The mix of the two trends and the noise vary the shapes."""
    a = rng.uniform(0.2, 0.8)
    out = []
    for y in range(d):
        row = []
        for x in range(w):
            g = _trend(w, d, x, y, a)
            mean = hmax * level * (0.3 + 1.4 * g)
            row.append(max(0, min(hmax, round(mean + rng.uniform(-1.0, 1.0)))))
        out.append(row)
    return out


def _trend(w: int, d: int, x: int, y: int, a: float) -> float:
    """0 at the front-right corner, 1 at the back-left corner."""
    return a * (y / (d - 1) if d > 1 else 0.5) + (1 - a) * ((w - 1 - x) / (w - 1) if w > 1 else 0.5)


def nudge_into_bin(
    rng: random.Random,
    heights: Heights,
    hmax: int,
    lo: int,
    hi: int,
    answer_of: Callable[[Heights], int],
    steps: int = 80,
) -> Heights:
    """Move the answer into lo..hi one cube at a time, adding cubes preferably at the back-left and
    removing them preferably at the front-right (where they hide least). Columns never become empty, so
    the footprint stays the same; the caller re-checks visibility afterwards."""
    heights = [list(r) for r in heights]
    w, d = dims(heights)
    a = rng.uniform(0.2, 0.8)
    cells = [(x, y) for y in range(d) for x in range(w)]
    for _ in range(steps):
        value = answer_of(heights)
        if lo <= value <= hi:
            break
        gap = lo - value if value < lo else value - hi
        moves = [(x, y, +1) for x, y in cells if heights[y][x] < hmax]
        moves += [(x, y, -1) for x, y in cells if heights[y][x] >= 2]
        weights = [0.15 + (_trend(w, d, x, y, a) if s > 0 else 1 - _trend(w, d, x, y, a)) for x, y, s in moves]
        order = sorted(range(len(moves)), key=lambda i: rng.random() ** (1 / weights[i]), reverse=True)
        for i in order:
            x, y, s = moves[i]
            heights[y][x] += s
            new = answer_of(heights)
            new_gap = lo - new if new < lo else new - hi if new > hi else 0
            if new_gap < gap:
                break
            heights[y][x] -= s
        else:
            break
    return heights


def repair_visibility(rng: random.Random, heights: Heights, cam: Camera, min_visible: float, hmax: int) -> Heights:
    """One repair pass: raise each column whose top is too hidden (or lower its tallest occluder when it is
    already at hmax); lower the tallest occluder of each hidden empty floor square."""
    heights = [list(r) for r in heights]
    w, d = dims(heights)
    for (x, y), frac in sorted(visibility(heights, cam).items()):
        if frac >= min_visible - 1e-9:
            continue
        if 0 < heights[y][x] < hmax:
            heights[y][x] += 1
            continue
        cone = [
            (heights[yy][xx], rng.random(), xx, yy)
            for yy in range(y + 1)
            for xx in range(x, w)
            if (xx, yy) != (x, y) and heights[yy][xx] > max(heights[y][x], 1)
        ]
        if cone:
            _, _, xx, yy = max(cone)
            heights[yy][xx] -= 1
    return heights


def sample_cube_scene(
    ctx: GenContext, cfg: CubesConfig, answer_of: Callable[[Heights], int], rising: bool
) -> dict[str, Any]:
    """A scene whose picture shows every column top and every empty floor square, with its answer in the
    balanced bin. `rising`: the answer grows with the fill level (count) or falls with it (missing)."""
    rng = ctx.rng
    lo, hi, frac = balanced_bin(ctx, cfg.answer_min, cfg.answer_max, cfg.buckets)
    level = 0.15 + 0.85 * (frac if rising else 1 - frac)
    w, d = rng.randint(cfg.min_width, cfg.max_width), rng.randint(cfg.min_depth, cfg.max_depth)
    heights = trim(sample_trend_heights(rng, w, d, cfg.max_height, level))
    tw, td = dims(heights)
    if tw < cfg.min_width or td < cfg.min_depth:
        raise Reject("footprint shrank below the minimum after trimming")
    az = 45 + rng.randint(-cfg.azimuth_spread, cfg.azimuth_spread)
    cam = Camera(az, rng.choice([30, 35]))
    target = rng.randint(lo, hi)  # nudging to one value, not into the bin, keeps values off the bin edges
    for _ in range(4):
        heights = nudge_into_bin(rng, heights, cfg.max_height, target, target, answer_of)
        problems = visibility_problems(heights, cam, cfg.min_visible)
        if not problems:
            break
        heights = repair_visibility(rng, heights, cam, cfg.min_visible, cfg.max_height)
    answer = answer_of(heights)
    if not lo <= answer <= hi:
        raise Reject(f"answer {answer} outside the balanced bin {lo}..{hi}")
    if not connected(heights):
        raise Reject("the columns form more than one piece")
    if problems:
        raise Reject("picture hides part of the structure: " + problems[0])
    return {
        "heights": heights,
        "camera": {"azimuth": cam.azimuth, "elevation": cam.elevation},
        "palette": rng.choice(PALETTES),
        "min_visible": cfg.min_visible,
        "answer_bin": [lo, hi],
    }


def camera_of(scene: dict[str, Any]) -> Camera:
    return Camera(scene["camera"]["azimuth"], scene["camera"]["elevation"])


def drawing_beside(
    scene: dict[str, Any],
    grid: Image.Image,
    title: str,
    numbers: dict[tuple[int, int], int] | None = None,
    box_height: int | None = None,
) -> Image.Image:
    """A step picture: the scene's structure as the question shows it (numbers on the column tops or ghost
    cubes filling a box of box_height, when given) beside a top-view grid."""
    iso = render_iso(
        scene["heights"],
        camera_of(scene),
        560,
        480,
        scene["palette"],
        box_height=box_height,
        numbers=numbers,
        title=title,
    )
    return hstack([iso, grid], gap=10)


class CubePictureTask(Task):
    """A cube-picture task but for its question: the sampling, the question's description of the picture and
    the input picture. A task adds the question (`ask`, `rising`), its answer (`answer_of`, `answer_reach`,
    `solve`), its steps and its corrupted steps."""

    config_cls = CubesConfig
    ask: ClassVar[str]  # the question, after PICTURE_RULES
    # Whether the answer grows with the structure's fill level (the count) or falls with it (the cubes missing).
    rising: ClassVar[bool]
    limits = {
        "min_width": Limit(1, MAX_SIDE, _SIDE_WHY),
        "max_width": Limit(1, MAX_SIDE, _SIDE_WHY),
        "min_depth": Limit(1, MAX_SIDE, _SIDE_WHY),
        "max_depth": Limit(1, MAX_SIDE, _SIDE_WHY),
        "max_height": Limit(
            1,
            MAX_COLUMN,
            "tallest column: the picture shrinks every cube to fit it, and tall "
            "columns hide more of the floor behind them",
        ),
        "answer_min": Limit(0, _MAX_BOX, f"an answer counts cubes of a box of at most {_BOX_WORDS}"),
        "answer_max": Limit(0, _MAX_BOX, f"an answer counts cubes of a box of at most {_BOX_WORDS}"),
        "buckets": Limit(1, 12, "equal answer bins balanced over a suite; each must hold a value"),
        "azimuth_spread": Limit(
            0,
            30,
            "the camera stays front-right (azimuth 15 to 75 deg); beyond, one side of every cube shrinks to a sliver",
        ),
        "min_visible": Limit(
            0.3,
            1.0,
            "share of every column top and empty floor square in view; the oracle "
            "reads a top from a quarter of it, so less would admit hidden tops",
        ),
    }

    def check_config(self, config: CubesConfig) -> None:
        """Every answer bin must hold an answer some structure of the configured sizes has, or every scene of
        that bin would be rejected."""
        super().check_config(config)
        lo, hi = self.answer_reach(config)
        for k in range(config.buckets):
            b_lo, b_hi = bucket_bounds(config.answer_min, config.answer_max, config.buckets, k)
            if b_lo > b_hi or b_hi < lo or b_lo > hi:
                raise ParameterError(
                    f"parameters of task {self.name}: answer bin {k + 1} of {config.buckets} "
                    f"({b_lo}..{b_hi}) of answer_min..answer_max = {config.answer_min}.."
                    f"{config.answer_max} is empty or outside {lo}..{hi}, the answers the "
                    "configured sizes allow"
                )

    @staticmethod
    @abstractmethod
    def answer_reach(config: CubesConfig) -> tuple[int, int]:
        """The smallest and largest answer a structure of the configured sizes can have."""

    def scene_key(self, scene: dict[str, Any]) -> str:
        """The structure is the problem: the same heights in another palette or from a slightly turned camera
        ask the same count, so a suite holds each structure once."""
        return hashlib.sha256(json.dumps(scene["heights"]).encode()).hexdigest()

    @abstractmethod
    def answer_of(self, heights: Heights) -> int:
        """The answer for a structure."""

    @abstractmethod
    def steps(self, scene: dict[str, Any]) -> list[tuple[Image.Image, str]]:
        """The step pictures and their texts, which say what the pictures show and leave the answer to the
        reader (`docs/tasks/README.md`, "Steps are states, not conclusions")."""

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        return sample_cube_scene(ctx, self.config, self.answer_of, rising=self.rising)

    def question(self, scene: dict[str, Any]) -> str:
        return PICTURE_RULES + " " + self.ask

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return render_iso(scene["heights"], camera_of(scene), palette=scene["palette"])

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        return Rendering(image=self.render_input(scene, solution), steps=self.steps(scene))
