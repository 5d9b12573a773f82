"""trailer_cubes_count: the step gives the maximal height of every top-view cell; the probe asks how many of
those columns hold exactly one cube."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    ones = sum(1 for row in states[0] for h in row if h == 1)
    q = (
        "Take the structure with as many cubes as the three views allow. How many of its columns hold exactly one "
        "cube? Answer with a single integer."
    )
    return [Probe(k, q, str(ones), AnswerType.INTEGER, "one_cube_columns") for k in range(1, len(inst.steps) + 1)]
