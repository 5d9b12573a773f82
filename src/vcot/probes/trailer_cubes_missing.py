"""trailer_cubes_missing: the step builds the maximal structure; the probe asks how many cubes it has."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, _, details = meta(inst)
    q = (
        "Take the structure with as many cubes as the three views allow. How many cubes does it contain? Answer "
        "with a single integer."
    )
    return [Probe(k, q, str(details["cubes"]), AnswerType.INTEGER, "max_cubes") for k in range(1, len(inst.steps) + 1)]
