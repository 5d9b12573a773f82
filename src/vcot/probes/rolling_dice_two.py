"""rolling_dice_two: the top face after roll k along the red path (the black path once the red one has ended)."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, states, _ = meta(inst)
    paths = states[0]
    out = []
    for k in range(1, len(inst.steps) + 1):
        colour = "red" if len(paths["red"]) > k else "black"
        value = paths[colour][k]["die"]["top"]
        q = (
            f"Consider the die rolling along the {colour} path only, one cell per roll. After roll {k} of that "
            f"path, which number is on the top face of the die? Answer with a single integer."
        )
        out.append(Probe(k, q, str(value), AnswerType.INTEGER, f"top_face_{colour}"))
    return out
