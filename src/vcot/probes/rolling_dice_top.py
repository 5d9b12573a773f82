"""rolling_dice_top: the die's top face after roll k (states[k], one step per roll)."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def face_after_roll(inst: Instance, face: str, kind: str) -> list[Probe]:
    _, states, _ = meta(inst)
    out = []
    for k in range(1, len(inst.steps) + 1):
        value = states[k]["die"][face]
        q = (
            f"The die rolls along the path one cell per roll. After roll {k} of {len(inst.steps)}, which number "
            f"is on the {face} face of the die? Answer with a single integer."
        )
        out.append(Probe(k, q, str(value), AnswerType.INTEGER, kind))
    return out


def build(inst: Instance) -> list[Probe]:
    return face_after_roll(inst, "top", "top_face")
