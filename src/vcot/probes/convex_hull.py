"""convex_hull: step 1 draws the hull(s), the probe asks for the vertex count of the first one; step 2 is the
count the question asks for (final)."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, states, _ = meta(inst)
    colour = scene["hull_colours"][0]
    out = []
    for k in range(1, len(inst.steps) + 1):
        if k == 1 and len(inst.steps) > 1:
            n = len(states[0][colour])
            q = (
                f"How many vertices does the convex hull of the {colour} points have (corners of the hull "
                f"polygon, not counting points that lie on its edges)? Answer with a single integer."
            )
            out.append(Probe(k, q, str(n), AnswerType.INTEGER, "hull_vertices"))
        else:
            out.append(final_probe(inst, k))
    return out
