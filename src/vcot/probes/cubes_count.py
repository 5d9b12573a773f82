"""cubes_count: the step writes every column's height; the probe asks how many columns are one cube tall."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    ones = sum(1 for row in states[0] for h in row if h == 1)
    q = "How many columns of the structure are exactly one cube tall? Answer with a single integer."
    return [Probe(k, q, str(ones), AnswerType.INTEGER, "one_cube_columns") for k in range(1, len(inst.steps) + 1)]
