"""cubes_missing: step k fills one layer of the completing box (solution details "ghost_layers"); the probe
asks how many cubes that layer lacks."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, _, details = meta(inst)
    heights = scene["heights"]
    out = []
    for k, layer in enumerate(details["ghost_layers"][: len(inst.steps)], start=1):
        n = sum(1 for row in heights for h in row if h < layer)
        q = (
            f"Consider the smallest rectangular box that contains the structure (as tall as its tallest column). "
            f"How many cubes are missing from layer {layer} of that box, counting layers from the floor (layer 1 "
            f"lies on the floor)? Answer with a single integer."
        )
        out.append(Probe(k, q, str(n), AnswerType.INTEGER, "layer_missing"))
    return out
