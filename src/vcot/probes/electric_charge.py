"""electric_charge: step 1 lists the force of each charge (attractive or repulsive); step 2 is the net force,
the final answer."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, _, _ = meta(inst)
    tq = scene["target"]["q"]
    attract = sum(1 for s in scene["sources"] if s["q"] * tq < 0)
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k == len(inst.steps):
            out.append(final_probe(inst, k))
            continue
        q = (
            "How many of the other charges attract the target charge T (pull it towards themselves)? Answer with "
            "a single integer."
        )
        out.append(Probe(k, q, str(attract), AnswerType.INTEGER, "attracting_charges"))
    return out
