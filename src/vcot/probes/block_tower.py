"""block_tower: each key frame but the last asks how many blocks have left their place by then; the last
key frame is the final answer."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k == len(inst.steps):
            out.append(final_probe(inst, k))
            continue
        t = states[k - 1]["t"]
        q = (
            f"{t:.2f} s after the tower is released, how many blocks have moved away from where they were placed? "
            "Answer with a single integer."
        )
        out.append(Probe(k, q, str(len(states[k - 1]["moved"])), AnswerType.INTEGER, "moved_blocks"))
    return out
