"""cubes_missing: how many unit cubes must be added to complete the smallest cuboid enclosing a structure."""

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
    box_missing,
    camera_of,
    describe_rows,
    dims,
    max_height,
    render_height_grid,
    render_iso,
    sample_cube_scene,
    total,
)

NAME = "cubes_missing"


def missing_per_cell(heights: Heights, box_height: int) -> Heights:
    return [[max(0, box_height - h) for h in row] for row in heights]


def missing_text(heights: Heights, box_height: int) -> str:
    w, d = dims(heights)
    vol = w * d * box_height
    per = missing_per_cell(heights, box_height)
    n = sum(map(sum, per))
    return (f"Completing box: {w} wide x {d} deep x {box_height} tall = {vol} cubes (the floor grid times the "
            f"tallest column). The structure has {total(heights)} cubes. Ghost cubes (translucent white, red dashed edges) fill "
            f"the rest; {describe_rows(per, 'missing cubes per column')}. Cubes to add: {vol} - "
            f"{total(heights)} = {n}.")


def step_picture(scene: dict[str, Any], box_height: int):
    heights = scene["heights"]
    iso = render_iso(heights, camera_of(scene), 560, 480, scene["palette"], box_height=box_height,
                     title=f"Box {len(heights[0])} x {len(heights)} x {box_height} with ghost cubes")
    grid = render_height_grid(missing_per_cell(heights, box_height), "Missing per column")
    return hstack([iso, grid], gap=10)


@register
class CubesMissing(Task):
    name = NAME
    domain, answer_type = MIRA_TASKS[NAME]
    config_cls = CubesConfig
    presets = {
        "easy": CubesConfig(min_width=2, max_width=3, min_depth=2, max_depth=3, max_height=3,
                            answer_min=2, answer_max=11, azimuth_spread=0),
        "medium": CubesConfig(min_width=3, max_width=4, min_depth=3, max_depth=4, max_height=4,
                              answer_min=5, answer_max=28, azimuth_spread=10),
        "hard": CubesConfig(min_width=4, max_width=5, min_depth=4, max_depth=5, max_height=5,
                            answer_min=12, answer_max=47, azimuth_spread=12),
    }
    version = "1"
    description = "Count the unit cubes needed to complete the smallest cuboid enclosing a stacked structure."

    def sample_scene(self, ctx: GenContext) -> dict[str, Any]:
        return sample_cube_scene(ctx, self.config, box_missing, rising=False)

    def solve(self, scene: dict[str, Any]) -> Solution:
        heights = scene["heights"]
        w, d = dims(heights)
        h = max_height(heights)
        n = box_missing(heights)
        return Solution(answer=str(n), states=[missing_per_cell(heights, h)],
                        details={"box": [w, d, h], "box_volume": w * d * h, "cubes": total(heights),
                                 "missing": n})

    def question(self, scene: dict[str, Any]) -> str:
        return ("The picture shows a structure of identical unit cubes standing on a grey floor grid. Every "
                "column of cubes is filled from the floor up (no gaps under any cube), and at least part of "
                "the top of every column is visible in the picture; floor squares without cubes are empty. What is the smallest "
                "number of cubes that must be added (none removed) to turn the structure into a solid "
                "rectangular box? The box is the smallest cuboid enclosing the structure: its base is the "
                "whole floor grid and its height is that of the tallest column. Answer with a single integer.")

    def render(self, scene: dict[str, Any], solution: Solution) -> Rendering:
        heights = scene["heights"]
        image = render_iso(heights, camera_of(scene), palette=scene["palette"])
        h = max_height(heights)
        return Rendering(image=image, steps=[(step_picture(scene, h), missing_text(heights, h))])

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        heights = scene["heights"]
        h = max_height(heights)
        # One level too tall: the ghosts then also cap the tallest columns (a box one level too low would
        # leave cubes outside it, which no completion can explain).
        wrong = h + 1
        return Corruption(steps=[(step_picture(scene, wrong), missing_text(heights, wrong))],
                          description=f"ghost cubes complete a box {wrong} tall instead of {h}")
