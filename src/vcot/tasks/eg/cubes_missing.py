"""cubes_missing: how many unit cubes must be added to complete the smallest cuboid enclosing a structure (the
sampling and the picture are in `common/cube_scenes.py`)."""

from __future__ import annotations

import random
from typing import Any

from PIL import Image

from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace
from vcot.tasks.base import Corruption, Solution, answer_range_presets
from vcot.tasks.common.cube_scenes import CUBE_LEVELS, CubePictureTask, drawing_beside
from vcot.tasks.common.cube_stacks import (
    Heights,
    balanced_answers,
    describe_rows,
    dims,
    max_height,
    render_height_grid,
    total,
)


def box_missing(heights: Heights, box_height: int | None = None) -> int:
    """Cubes needed to fill the W x D x box_height block (default: the tallest column)."""
    w, d = dims(heights)
    h = max_height(heights) if box_height is None else box_height
    return w * d * h - total(heights)


def missing_per_cell(heights: Heights, box_height: int) -> Heights:
    return [[max(0, box_height - h) for h in row] for row in heights]


def missing_text(heights: Heights, box_height: int) -> str:
    """What the step picture shows: the box and its ghost cubes, column by column. Their number is the
    answer, so counting them is left to the reader."""
    w, d = dims(heights)
    return (f"Completing box: {w} wide x {d} deep x {box_height} tall (the floor grid times the tallest "
            f"column). Ghost cubes (translucent white, red dashed edges) fill the box above the structure's "
            f"columns; {describe_rows(missing_per_cell(heights, box_height), 'ghost cubes per column')}.")


def step_picture(scene: dict[str, Any], box_height: int) -> Image.Image:
    heights = scene["heights"]
    # Pips, not digits: when one column holds every ghost cube, its digit would write the answer.
    grid = render_height_grid(missing_per_cell(heights, box_height), "Ghost cubes per column", pips="ghosts")
    return drawing_beside(scene, grid, f"Box {len(heights[0])} x {len(heights)} x {box_height} with ghost cubes",
                          box_height=box_height)


@register
class CubesMissing(CubePictureTask):
    name = "cubes_missing"
    presets = answer_range_presets(CUBE_LEVELS, easy=(2, 11), medium=(5, 28), hard=(12, 47))
    version = "2"
    description = "Count the unit cubes needed to complete the smallest cuboid enclosing a stacked structure."
    ask = ("What is the smallest number of cubes that must be added (none removed) to turn the structure into a "
           "solid rectangular box? The box is the smallest cuboid enclosing the structure: its base is the whole "
           "floor grid and its height is that of the tallest column. Answer with a single integer.")
    rising = False

    def answer_of(self, heights: Heights) -> int:
        return box_missing(heights)

    def answer_space(self, instance: Instance) -> AnswerSpace:
        # The tallest column is part of the box, so at most W * D * H - H cubes can be missing.
        cfg = self.config
        cap = (cfg.max_width * cfg.max_depth - 1) * cfg.max_height
        return balanced_answers(cfg.answer_min, cfg.answer_max, 0, cap, "the numbers of cubes to add")

    def solve(self, scene: dict[str, Any]) -> Solution:
        heights = scene["heights"]
        w, d = dims(heights)
        h = max_height(heights)
        n = box_missing(heights)
        return Solution(answer=str(n), states=[missing_per_cell(heights, h)],
                        details={"box": [w, d, h], "box_volume": w * d * h, "cubes": total(heights),
                                 "missing": n})

    def step(self, scene: dict[str, Any]) -> tuple[Image.Image, str]:
        heights = scene["heights"]
        h = max_height(heights)
        return step_picture(scene, h), missing_text(heights, h)

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        heights = scene["heights"]
        h = max_height(heights)
        # One level too tall: the ghosts then also cap the tallest columns (a box one level too low would
        # leave cubes outside it, which no completion can explain).
        wrong = h + 1
        return Corruption(steps=[(step_picture(scene, wrong), missing_text(heights, wrong))],
                          description=f"ghost cubes complete a box {wrong} tall instead of {h}")
