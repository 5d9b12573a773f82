"""ball_bins: each key frame but the last asks which ramp the ball has just landed on; the last is the final
answer."""

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
        nth = ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth")
        which = nth[k - 1] if k <= len(nth) else f"{k}th"
        q = f"Which ramp is the {which} ramp the ball lands on after it is released? Answer with the ramp's letter."
        out.append(Probe(k, q, states[k - 1]["ramp"], AnswerType.TEXT, "ramp_landed_on"))
    return out
