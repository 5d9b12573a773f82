"""food_web: step 1 asks how many animals ate the removed species; each round's step how many have died out
so far; the last step's state is the final answer."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, _, details = meta(inst)
    x = scene["removed"]
    rounds = details["rounds"]
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k == len(inst.steps):
            out.append(final_probe(inst, k))
        elif k == 1:
            q = f"How many animals in the food web eat the {x}? Answer with a single integer."
            out.append(
                Probe(k, q, str(sum(1 for a, _ in scene["eats"] if a == x)), AnswerType.INTEGER, "eaters_of_removed")
            )
        else:
            gone = sum(len(r) for r in rounds[: k - 1])
            q = (
                f"After the {x} disappears, how many species have died out in the first {k - 1} round(s) of "
                "dying out (each round: every animal whose food is all gone dies out), not counting the "
                f"{x}? Answer with a single integer."
            )
            out.append(Probe(k, q, str(gone), AnswerType.INTEGER, "died_out_so_far"))
    return out
