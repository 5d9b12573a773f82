"""trailer_cubes_missing: how many unit cubes must be added to the largest structure consistent with its top,
front and side views to fill its bounding block (the maximal structure; the views, pictures and sampling are
in `common/three_views.py`)."""

from __future__ import annotations

from typing import Any

from PIL import Image

from vcot.tasks import register
from vcot.tasks.base import Solution, answer_range_presets
from vcot.tasks.common.cube_stacks import Heights, describe_rows, dims, total
from vcot.tasks.common.three_views import VIEWS_LEVELS, ThreeViewsTask, draw_structure, solid_of


def block_of(scene: dict[str, Any], solid: Heights) -> tuple[int, int, int]:
    """Width, depth and height of the bounding block (as tall as the tallest front-view column)."""
    w, d = dims(solid)
    return w, d, max(scene["front"])


@register
class TrailerCubesMissing(ThreeViewsTask):
    name = "trailer_cubes_missing"
    presets = answer_range_presets(VIEWS_LEVELS, easy=(2, 13), medium=(5, 32), hard=(12, 59))
    version = "1"
    description = "Cubes to add to the largest structure consistent with three views to fill its bounding block."
    ask = ("Assume the structure contains as many cubes as the three views allow. What is the minimum number of "
           "cubes that must be added (none removed) to turn it into a full rectangular block whose size is the "
           "structure's bounding box: as wide as the front view, as deep as the top view and as tall as the "
           "tallest column? Answer with a single integer.")
    rising = False

    def answer_of(self, solid: Heights, front: list[int]) -> int:
        w, d = dims(solid)
        return w * d * max(front) - total(solid)

    def solve(self, scene: dict[str, Any]) -> Solution:
        solid = solid_of(scene)
        n = self.answer_of(solid, scene["front"])
        return Solution(answer=str(n), states=[solid],
                        details={"max_solid": solid, "cubes": total(solid), "block": list(block_of(scene, solid)),
                                 "missing": n})

    def structure_picture(self, scene: dict[str, Any], solid: Heights) -> Image.Image:
        w, d, h = block_of(scene, solid)
        return draw_structure(solid, f"Block {w} x {d} x {h}, ghosts = cubes to add", box_height=h)

    def working_text(self, scene: dict[str, Any], solid: Heights) -> str:
        """The block's volume less the structure's cubes, with the ghost cubes counted per column."""
        w, d, h = block_of(scene, solid)
        per = [[h - v for v in row] for row in solid]
        vol, n = w * d * h, total(solid)
        return (f"The maximal structure has {n} cubes. The full block is {w} wide x {d} deep x {h} tall = {vol} "
                f"cubes; the ghost cubes fill the rest, {describe_rows(per, 'cubes to add per column')}. "
                f"Cubes to add: {vol} - {n} = {vol - n}.")
