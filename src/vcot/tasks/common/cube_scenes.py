"""Scene sampling shared by cubes_count and cubes_missing: a cube structure drawn from one camera, with every
column top and every empty floor square in view and the answer in a balanced bin; and `CubePictureTask`, the
part of both tasks that does not depend on the question (sampling, difficulty levels, the question's
description of the picture, the input picture and the layout of the step pictures).
"""

from __future__ import annotations

import random
from abc import abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

from PIL import Image

from vcot.draw.canvas import hstack
from vcot.tasks.base import GenContext, Reject, Rendering, Solution, Task
from vcot.tasks.common.cube_stacks import (
    SHADES,
    Camera,
    Heights,
    balanced_bin,
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

# What the question says about the picture, before it asks.
PICTURE_RULES = ("The picture shows a structure of identical unit cubes standing on a grey floor grid. Every "
                 "column of cubes is filled from the floor up (no gaps under any cube), and at least part of "
                 "the top of every column is visible in the picture; floor squares without cubes are empty.")


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


def nudge_into_bin(rng: random.Random, heights: Heights, hmax: int, lo: int, hi: int,
                   answer_of: Callable[[Heights], int], steps: int = 80) -> Heights:
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
        cone = [(heights[yy][xx], rng.random(), xx, yy) for yy in range(y + 1) for xx in range(x, w)
                if (xx, yy) != (x, y) and heights[yy][xx] > max(heights[y][x], 1)]
        if cone:
            _, _, xx, yy = max(cone)
            heights[yy][xx] -= 1
    return heights


def sample_cube_scene(ctx: GenContext, cfg: CubesConfig, answer_of: Callable[[Heights], int],
                      rising: bool) -> dict[str, Any]:
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
    return {"heights": heights, "camera": {"azimuth": cam.azimuth, "elevation": cam.elevation},
            "palette": rng.choice(PALETTES), "min_visible": cfg.min_visible, "answer_bin": [lo, hi]}


def camera_of(scene: dict[str, Any]) -> Camera:
    return Camera(scene["camera"]["azimuth"], scene["camera"]["elevation"])


def drawing_beside(scene: dict[str, Any], grid: Image.Image, title: str,
                   numbers: dict[tuple[int, int], int] | None = None, box_height: int | None = None) -> Image.Image:
    """A step picture: the scene's structure as the question shows it (numbers on the column tops or ghost
    cubes filling a box of box_height, when given) beside a top-view grid."""
    iso = render_iso(scene["heights"], camera_of(scene), 560, 480, scene["palette"], box_height=box_height,
                     numbers=numbers, title=title)
    return hstack([iso, grid], gap=10)


class CubePictureTask(Task):
    """A cube-picture task but for its question: the sampling, the question's description of the picture and
    the input picture. A task adds the question (`ask`, `rising`), its answer (`answer_of`, `solve`), its one
    step and its corrupted step."""

    config_cls = CubesConfig
    ask: ClassVar[str]  # the question, after PICTURE_RULES
    # Whether the answer grows with the structure's fill level (the count) or falls with it (the cubes missing).
    rising: ClassVar[bool]

    @abstractmethod
    def answer_of(self, heights: Heights) -> int:
        """The answer for a structure."""

    @abstractmethod
    def step(self, scene: dict[str, Any]) -> tuple[Image.Image, str]:
        """The one step picture (see `drawing_beside`) and its text, which says what the picture shows and
        leaves the answer to the reader (`docs/tasks/README.md`, "Steps are states, not conclusions")."""

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        return sample_cube_scene(ctx, self.config, self.answer_of, rising=self.rising)

    def question(self, scene: dict[str, Any]) -> str:
        return PICTURE_RULES + " " + self.ask

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        image = render_iso(scene["heights"], camera_of(scene), palette=scene["palette"])
        return Rendering(image=image, steps=[self.step(scene)])
