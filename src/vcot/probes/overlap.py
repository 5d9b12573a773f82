"""overlap: the step draws every pair moved to the origin with its intersection area; the probe asks for the
area of pair A."""

from __future__ import annotations

from vcot.probes.base import Probe, meta, number_text
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    q = (
        "After sliding both shapes of pair A so that their black dots lie at the origin, what is the area of "
        "their intersection, in square units? Answer with a number."
    )
    return [
        Probe(k, q, number_text(states[0]), AnswerType.NUMBER, "pair_a_area") for k in range(1, len(inst.steps) + 1)
    ]
