"""longest_carbon_chain: step 1 highlights the carbon atoms, the probe asks how many there are; step 2 is the
longest chain the question asks about (final)."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k == 1 and len(inst.steps) > 1:
            q = (
                "How many carbon atoms does the molecule in the picture have (every corner and free end of the "
                "bond lines is a carbon)? Answer with a single integer."
            )
            out.append(Probe(k, q, str(len(states[0]["carbons"])), AnswerType.INTEGER, "carbon_atoms"))
        else:
            out.append(final_probe(inst, k))
    return out
