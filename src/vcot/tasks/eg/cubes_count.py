"""cubes_count: how many unit cubes make up a structure drawn in an isometric-style picture (the sampling and
the picture are in `common/cube_scenes.py`)."""

from __future__ import annotations

import random
from typing import Any

from PIL import Image

from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace
from vcot.tasks.base import Corruption, Solution, answer_range_presets
from vcot.tasks.common.cube_scenes import CUBE_LEVELS, CubePictureTask, CubesConfig, drawing_beside
from vcot.tasks.common.cube_stacks import (
    Heights,
    balanced_answers,
    describe_rows,
    render_height_grid,
    total,
)


def rows_back_to_front(heights: Heights) -> list[list[int]]:
    """Rows as they appear in a top-down view (back row first)."""
    return [list(r) for r in reversed(heights)]


def count_text(heights: Heights) -> str:
    """What the step picture shows: every column's height. Adding them up is left to the reader."""
    return (
        f"Height of every column, written on its top (left) and in the top-down height map (right, front "
        f"row at the bottom): {describe_rows(heights)}."
    )


def step_picture(scene: dict[str, Any], shown: Heights) -> Image.Image:
    """The drawing with the (possibly misread) column heights written on the tops, plus the height map."""
    numbers = {(x, y): h for y, row in enumerate(shown) for x, h in enumerate(row) if h}
    return drawing_beside(scene, render_height_grid(shown, "Height map (top view)"), "Column heights", numbers=numbers)


@register
class CubesCount(CubePictureTask):
    name = "cubes_count"
    presets = answer_range_presets(CUBE_LEVELS, easy=(4, 15), medium=(10, 40), hard=(25, 70))
    version = "4"
    description = "Count the unit cubes of a stacked structure drawn in an isometric-style picture."
    ask = "How many cubes does the structure contain in total? Answer with a single integer."
    rising = True

    @staticmethod
    def answer_reach(config: CubesConfig) -> tuple[int, int]:
        # The footprint spans at least min_width x min_depth cells in one edge-connected piece: at least
        # min_width + min_depth - 1 columns (an L), each of one cube or more.
        return config.min_width + config.min_depth - 1, config.max_width * config.max_depth * config.max_height

    def answer_of(self, heights: Heights) -> int:
        return total(heights)

    def answer_space(self, instance: Instance) -> AnswerSpace:
        # The floor stays 1 (not answer_reach's bound) so that the space depends on the answer range and sizes
        # as documented; every preset's range lies inside either way.
        cfg = self.config
        return balanced_answers(cfg.answer_min, cfg.answer_max, 1, self.answer_reach(cfg)[1], "the cube counts")

    def solve(self, scene: dict[str, Any]) -> Solution:
        heights = scene["heights"]
        n = total(heights)
        return Solution(
            answer=str(n),
            states=[heights],
            details={"row_sums_back_to_front": [sum(r) for r in rows_back_to_front(heights)], "total": n},
        )

    def steps(self, scene: dict[str, Any]) -> list[tuple[Image.Image, str]]:
        heights = scene["heights"]
        return [(step_picture(scene, heights), count_text(heights))]

    def corrupt(self, scene: dict[str, Any], solution: Solution, rng: random.Random) -> Corruption:
        heights = scene["heights"]
        cells = [(x, y) for y, row in enumerate(heights) for x, h in enumerate(row) if h]
        x, y = rng.choice(cells)
        wrong = [list(r) for r in heights]
        h = heights[y][x]
        wrong[y][x] = h + 1 if h == 1 or rng.random() < 0.5 else h - 1
        n = wrong[y][x]
        # The misread structure counted by the task's own rule: the total the corrupted step's heights add up to.
        return Corruption(
            steps=lambda: [(step_picture(scene, wrong), count_text(wrong))],
            description=f"column ({x}, {y}) read as {n} cube{'' if n == 1 else 's'} tall instead of {h}",
            answer=str(self.answer_of(wrong)),
            scene={**scene, "heights": wrong},
        )
