"""ChemTask: what the chemistry tasks share — an integer answer balanced over the configured range, its answer
space, the input picture (the molecule with numbered atoms) and the domain."""

from __future__ import annotations

from typing import Any, ClassVar

from PIL import Image

from vcot.schema import AnswerType, Instance
from vcot.tasks.answer_space import AnswerSpace, integers
from vcot.tasks.base import GenContext, Solution, Task
from vcot.tasks.chem._draw import draw

INTRO = (
    "The picture shows a molecule as a skeletal formula: every corner and every free end of the bond lines "
    "is a carbon atom, other atoms are written with their element symbol and the hydrogens they carry "
    "(OH, NH2), and hydrogens on carbon are not drawn. A double line is a double bond, a triple line a "
    "triple bond. The small grey number beside each atom is its atom number. "
)


class ChemTask(Task):
    domain: ClassVar[str] = "Chemistry"
    answer_type: ClassVar[AnswerType] = AnswerType.INTEGER
    # No information colours: each step picture highlights one set of atoms in one light colour (which set,
    # the step text says), so no two colours must be told apart (tasks/colour_roles.py).
    colour_pools: ClassVar[tuple[Any, ...]] = ()

    def target(self, ctx: GenContext) -> int:
        """The answer this instance is built for: balanced over answer_min..answer_max within each block."""
        lo, hi = self.config.answer_min, self.config.answer_max
        return lo + ctx.balanced(hi - lo + 1)

    def answer_space(self, instance: Instance) -> AnswerSpace:
        # The generator balances its answers over the configured range, so that range is every answer the
        # question can have under this configuration.
        lo, hi = self.config.answer_min, self.config.answer_max
        return integers(lo, hi, f"the integers {lo} to {hi} (answer_min..answer_max)")

    def render_input(self, scene: dict[str, Any], solution: Solution) -> Image.Image:
        return draw(scene)
