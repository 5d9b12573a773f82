"""motion_graph: step 1 reads the graph at the interval's end; step 2's pieces hold the final answer."""

from __future__ import annotations

from fractions import Fraction

from vcot.probes.base import Probe, final_probe, meta, number_text
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, _, details = meta(inst)
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k == len(inst.steps):
            out.append(final_probe(inst, k))
            continue
        t, v = details["read_offs"][-1]
        q = (
            f"What velocity, in m/s, does the graph show at t = {number_text(Fraction(t))} s? Answer with a "
            "single number."
        )
        out.append(Probe(k, q, number_text(Fraction(v)), AnswerType.NUMBER, "velocity_read_off"))
    return out
