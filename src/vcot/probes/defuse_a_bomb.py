"""defuse_a_bomb: the one step traces the wire that reaches the detonator (solution details "trace": visible
runs and, for each panel it passes under, a hidden run). The probe asks how many times that wire passes under
a grey panel, which needs the trace but does not name the answer's letter."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    _, _, details = meta(inst)
    hidden = sum(1 for part in details["trace"] if "hidden" in part)
    q = (
        "Follow the wire that ends at the detonator (the red bomb terminal) back to its start. How many times does "
        "it pass under a grey panel? Answer with a single integer."
    )
    return [Probe(k, q, str(hidden), AnswerType.INTEGER, "panels_passed") for k in range(1, len(inst.steps) + 1)]
