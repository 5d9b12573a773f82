"""billiards: the cushion hit at bounce k (solution details "walls"); the last step, the pocket, is the
final answer."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, _, details = meta(inst)
    walls = details["walls"]
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k > len(walls):
            out.append(final_probe(inst, k))
            continue
        q = (
            f"Which cushion of the table does the ball hit at its bounce number {k}? Answer with one word: top, "
            f"bottom, left or right (as the table is drawn)."
        )
        out.append(Probe(k, q, walls[k - 1], AnswerType.DIRECTION, "cushion"))
    return out
