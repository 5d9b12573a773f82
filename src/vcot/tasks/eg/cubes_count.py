"""cubes_count: how many unit cubes make up a structure drawn in an isometric-style picture."""

from __future__ import annotations

import random
from typing import Any

from vcot.draw.canvas import hstack
from vcot.tasks import register
from vcot.tasks.base import Corruption, GenContext, Rendering, Solution, Task
from vcot.tasks.catalog import MIRA_TASKS
from vcot.tasks.eg.cubes import (
    CubesConfig,
    Heights,
    camera_of,
    describe_rows,
    render_height_grid,
    render_iso,
    rows_back_to_front,
    sample_cube_scene,
    total,
)

NAME = "cubes_count"


def count_text(heights: Heights) -> str:
    sums = [sum(r) for r in rows_back_to_front(heights)]
    return (f"Height of every column, written on its top (left) and in the top-down height map (right, front "
            f"row at the bottom): {describe_rows(heights)}. Row sums from back to front: "
            f"{', '.join(map(str, sums))}. Total: {' + '.join(map(str, sums))} = {sum(sums)} cubes.")


def step_picture(scene: dict[str, Any], shown: Heights):
    """The drawing with the (possibly misread) column heights written on the tops, plus the height map."""
    numbers = {(x, y): h for y, row in enumerate(shown) for x, h in enumerate(row) if h}
    iso = render_iso(scene["heights"], camera_of(scene), 560, 480, scene["palette"], numbers=numbers,
                     title="Column heights")
    grid = render_height_grid(shown, "Height map (top view)")
    return hstack([iso, grid], gap=10)


@register
class CubesCount(Task):
    name = NAME
    domain, answer_type = MIRA_TASKS[NAME]
    config_cls = CubesConfig
    presets = {
        "easy": CubesConfig(min_width=2, max_width=3, min_depth=2, max_depth=3, max_height=3,
                            answer_min=4, answer_max=15, azimuth_spread=0),
        "medium": CubesConfig(min_width=3, max_width=4, min_depth=3, max_depth=4, max_height=4,
                              answer_min=10, answer_max=40, azimuth_spread=10),
        "hard": CubesConfig(min_width=4, max_width=5, min_depth=4, max_depth=5, max_height=5,
                            answer_min=25, answer_max=70, azimuth_spread=12),
    }
    version = "1"
    description = "Count the unit cubes of a stacked structure drawn in an isometric-style picture."

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        return sample_cube_scene(ctx, self.config, total, rising=True)

    def solve(self, scene: dict[str, Any]) -> Solution:
        heights = scene["heights"]
        n = total(heights)
        return Solution(answer=str(n), states=[heights],
                        details={"row_sums_back_to_front": [sum(r) for r in rows_back_to_front(heights)],
                                 "total": n})

    def question(self, scene: dict[str, Any]) -> str:
        return ("The picture shows a structure of identical unit cubes standing on a grey floor grid. Every "
                "column of cubes is filled from the floor up (no gaps under any cube), and at least part of "
                "the top of every column is visible in the picture; floor squares without cubes are empty. How many cubes does "
                "the structure contain in total? Answer with a single integer.")

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        image = render_iso(scene["heights"], camera_of(scene), palette=scene["palette"])
        heights = scene["heights"]
        return Rendering(image=image, steps=[(step_picture(scene, heights), count_text(heights))])

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        heights = scene["heights"]
        cells = [(x, y) for y, row in enumerate(heights) for x, h in enumerate(row) if h]
        x, y = rng.choice(cells)
        wrong = [list(r) for r in heights]
        h = heights[y][x]
        wrong[y][x] = h + 1 if h == 1 or rng.random() < 0.5 else h - 1
        return Corruption(steps=[(step_picture(scene, wrong), count_text(wrong))],
                          description=f"column ({x}, {y}) read as {wrong[y][x]} cubes tall instead of {h}")
