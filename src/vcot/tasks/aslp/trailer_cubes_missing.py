"""trailer_cubes_missing: how many unit cubes must be added to the largest structure consistent with its top,
front and side views to fill its bounding block (the maximal structure; the views, pictures and sampling are
in `common/three_views.py`)."""

from __future__ import annotations

from typing import Any

from PIL import Image

from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace
from vcot.tasks.base import Limit, Solution, answer_range_presets
from vcot.tasks.common.cube_stacks import Heights, balanced_answers, dims, total
from vcot.tasks.common.three_views import (
    MAX_SIDE,
    VIEWS_LEVELS,
    VIEWS_LIMITS,
    ThreeViewsTask,
    TrailerConfig,
    check_views_config,
    draw_structure,
    solid_of,
)


def block_of(scene: dict[str, Any], solid: Heights) -> tuple[int, int, int]:
    """Width, depth and height of the bounding block (as tall as the tallest front-view column)."""
    w, d = dims(solid)
    return w, d, max(scene["front"])


# A block of at most MAX_SIDE ** 3 cubes whose tallest column is full.
_MOST_MISSING = (MAX_SIDE * MAX_SIDE - 1) * MAX_SIDE
_ANSWER_WHY = f"cubes missing from a block of at most {MAX_SIDE} x {MAX_SIDE} x {MAX_SIDE} whose tallest column is full"


@register
class TrailerCubesMissing(ThreeViewsTask):
    name = "trailer_cubes_missing"
    presets = answer_range_presets(VIEWS_LEVELS, easy=(2, 13), medium=(5, 32), hard=(12, 59))
    version = "3"
    description = "Cubes to add to the largest structure consistent with three views to fill its bounding block."
    ask = (
        "Assume the structure contains as many cubes as the three views allow. What is the minimum number of "
        "cubes that must be added (none removed) to turn it into a full rectangular block whose size is the "
        "structure's bounding box: as wide as the front view, as deep as the top view and as tall as the "
        "tallest column? Answer with a single integer."
    )
    rising = False
    # Its answers are as small as the heights (easy: 2 to 13 cubes to add, columns up to 3 tall), so the
    # grid shows heights as pips: a digit there can coincide with the count of cubes to add.
    grid_pips = "cubes"
    limits = {
        **VIEWS_LIMITS,
        "answer_min": Limit(0, _MOST_MISSING, _ANSWER_WHY),
        "answer_max": Limit(0, _MOST_MISSING, _ANSWER_WHY),
    }

    def check_config(self, config: TrailerConfig) -> None:
        super().check_config(config)
        # The block is as tall as the tallest column, so at least that column's cubes are there.
        check_views_config(self.name, config, 0, (config.max_width * config.max_depth - 1) * config.max_height)

    def answer_of(self, solid: Heights, front: list[int]) -> int:
        w, d = dims(solid)
        return w * d * max(front) - total(solid)

    def answer_space(self, instance: Instance) -> AnswerSpace:
        # The block is as tall as the tallest column of the maximal structure, so at most W * D * H - H cubes
        # are missing.
        cfg = self.config
        cap = (cfg.max_width * cfg.max_depth - 1) * cfg.max_height
        return balanced_answers(cfg.answer_min, cfg.answer_max, 0, cap, "the numbers of cubes to add")

    def solve(self, scene: dict[str, Any]) -> Solution:
        solid = solid_of(scene)
        n = self.answer_of(solid, scene["front"])
        return Solution(
            answer=str(n),
            states=[solid],
            details={"max_solid": solid, "cubes": total(solid), "block": list(block_of(scene, solid)), "missing": n},
        )

    def structure_picture(self, scene: dict[str, Any], solid: Heights) -> Image.Image:
        w, d, h = block_of(scene, solid)
        return draw_structure(solid, f"Block {w} x {d} x {h} with ghost cubes", box_height=h)

    def working_text(self, scene: dict[str, Any], solid: Heights) -> str:
        """The block around the maximal structure; its ghost cubes are the cubes to add, so counting them is
        left to the reader."""
        w, d, h = block_of(scene, solid)
        return (
            f"On the right, the maximal structure stands in its block, {w} wide x {d} deep x {h} tall (as "
            f"tall as the tallest column); ghost cubes (translucent white, red dashed edges) fill the rest "
            f"of the block."
        )
