"""gear_rotation: step k settles the gears k-1 meshes away from the driver (solution details "layers");
the probe asks for one of them. A step beyond the last layer (the contradiction of a jammed system) is the
final answer."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, states, details = meta(inst)
    layers = details["layers"]
    conflict = details.get("conflict") or {}
    gears = scene["gears"]
    driver = gears[scene["driver"]]["label"]
    out = []
    for k in range(1, len(inst.steps) + 1):
        cands = [g for g, layer in enumerate(layers) if layer == k - 1 and g != conflict.get("gear")]
        if not cands or (conflict and k - 1 > conflict.get("layer", 0)):
            out.append(final_probe(inst, k))
            continue
        g = min(cands, key=lambda i: gears[i]["label"])
        q = (
            f"Follow the connections outward from gear {driver}, one gear at a time, giving each gear the "
            f"direction its neighbour forces on it (ignore any contradiction found later). Which direction does "
            f"gear {gears[g]['label']} get? Answer with one word: clockwise or counterclockwise."
        )
        out.append(Probe(k, q, states[g], AnswerType.TEXT, "gear_direction"))
    return out
