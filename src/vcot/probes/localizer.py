"""localizer: the step places every piece; the probe asks which piece covers the lowest cell of the leftmost
target column."""

from __future__ import annotations

from vcot.probes.base import Probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, states, _ = meta(inst)
    cell = min(tuple(c) for c in scene["target"])
    owner = next(p for p in states[0] if list(cell) in [list(c) for c in p["cells"]])
    number = scene["pieces"][owner["piece"]]["number"]
    q = (
        f"In the unique tiling, which numbered piece covers the cell at x = {cell[0]}, y = {cell[1]}? Answer with "
        f"the piece's number."
    )
    return [Probe(k, q, str(number), AnswerType.INTEGER, "piece_at_cell") for k in range(1, len(inst.steps) + 1)]
