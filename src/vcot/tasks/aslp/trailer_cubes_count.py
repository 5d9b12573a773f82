"""trailer_cubes_count: the largest number of unit cubes a structure can hold while matching its top, front and
side views (the maximal structure; the views, pictures and sampling are in `common/three_views.py`)."""

from __future__ import annotations

from typing import Any

from PIL import Image

from vcot.schema import Instance
from vcot.tasks import register
from vcot.tasks.answer_space import AnswerSpace
from vcot.tasks.base import Limit, Solution, answer_range_presets
from vcot.tasks.common.cube_stacks import Heights, balanced_answers, total
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

_ANSWER_WHY = f"cubes in a block of at most {MAX_SIDE} x {MAX_SIDE} x {MAX_SIDE}"


@register
class TrailerCubesCount(ThreeViewsTask):
    name = "trailer_cubes_count"
    presets = answer_range_presets(VIEWS_LEVELS, easy=(5, 16), medium=(8, 35), hard=(15, 60))
    version = "3"
    description = "Largest number of unit cubes consistent with a structure's top, front and side views."
    ask = (
        "What is the maximum number of cubes the structure can contain while matching all three views? "
        "Answer with a single integer."
    )
    rising = True
    limits = {
        **VIEWS_LIMITS,
        "answer_min": Limit(1, MAX_SIDE**3, _ANSWER_WHY),
        "answer_max": Limit(1, MAX_SIDE**3, _ANSWER_WHY),
    }

    def check_config(self, config: TrailerConfig) -> None:
        super().check_config(config)
        # Every row and column of the top view holds a cube, so the smallest block holds max(W, D) of them.
        check_views_config(
            self.name,
            config,
            max(config.min_width, config.min_depth),
            config.max_width * config.max_depth * config.max_height,
        )

    def answer_of(self, solid: Heights, front: list[int]) -> int:
        return total(solid)

    def answer_space(self, instance: Instance) -> AnswerSpace:
        cfg = self.config
        return balanced_answers(
            cfg.answer_min, cfg.answer_max, 1, cfg.max_width * cfg.max_depth * cfg.max_height, "the cube counts"
        )

    def solve(self, scene: dict[str, Any]) -> Solution:
        solid = solid_of(scene)
        n = total(solid)
        return Solution(answer=str(n), states=[solid], details={"max_solid": solid, "total": n})

    def structure_picture(self, scene: dict[str, Any], solid: Heights) -> Image.Image:
        return draw_structure(solid, "Maximal structure")

    def working_text(self, scene: dict[str, Any], solid: Heights) -> str:
        return "On the right, the maximal structure is drawn in 3-D."
