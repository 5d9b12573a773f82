"""hbond_donors: step 1 highlights the nitrogen and oxygen atoms, the probe asks how many there are; step 2 marks
those carrying hydrogen, the donors the question counts (final)."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k == 1 and len(inst.steps) > 1:
            q = (
                "How many nitrogen and oxygen atoms (with or without hydrogens) does the molecule in the picture "
                "have? Answer with a single integer."
            )
            out.append(Probe(k, q, str(len(states[0]["polar"])), AnswerType.INTEGER, "n_and_o_atoms"))
        else:
            out.append(final_probe(inst, k))
    return out
