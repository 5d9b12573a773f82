"""unfolded_cube: the steps show the fold that matches the answer; no intermediate quantity is stored
(`solution.states` is empty), so every step is probed with the final question."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe
from vcot.schema import Instance


def build(inst: Instance) -> list[Probe]:
    return [final_probe(inst, k) for k in range(1, len(inst.steps) + 1)]
