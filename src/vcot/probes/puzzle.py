"""puzzle: the step fills in the missing 2x2 block; the probe asks for the colour of its top-left cell."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    colour = states[0][0][0][1]
    q = (
        "Continue the pattern into the missing 2x2 block. What colour is the shape in the block's top-left cell? "
        "Answer with one colour word."
    )
    return [Probe(k, q, colour, AnswerType.TEXT, "gap_cell_colour") for k in range(1, len(inst.steps) + 1)]
