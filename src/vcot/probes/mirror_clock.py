"""mirror_clock: the real time after step k (states[k-1]: the un-mirrored face, then the shifted face)."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, states, _ = meta(inst)
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k == 1:
            q = (
                "What time does the real (un-mirrored) clock show? Answer in 12-hour format H:MM without a "
                "leading zero."
            )
            kind = "real_time"
        else:
            q = (
                "What time does the real clock show after the change the question describes? Answer in 12-hour "
                "format H:MM without a leading zero."
            )
            kind = "shifted_time"
        out.append(Probe(k, q, states[k - 1]["time"], AnswerType.TIME, kind))
    return out
