"""multi_piece_puzzle: the step places the chosen pieces; the probe asks which piece covers a target cell.

The task guarantees one subset of pieces, not one arrangement of it, so the probe uses the lowest cell of the
leftmost column among the cells every tiling by that subset gives to the same piece; when no cell is fixed
that way, the step is probed with the question itself."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance
from vcot.tasks.common.polyomino import tilings

_MAX_TILINGS = 200


def fixed_owner_cells(scene: dict, subset: list[int]) -> dict[tuple[int, int], int]:
    """Target cell -> candidate index, for the cells whose piece is the same in every tiling by `subset`."""
    pieces = [([tuple(c) for c in scene["pieces"][i]["cells"]], ()) for i in subset]
    owners: dict[tuple[int, int], set[int]] = {}
    for tiling in tilings([tuple(c) for c in scene["target"]], pieces, scene["rule"], limit=_MAX_TILINGS):
        for pl in tiling:
            for c in pl.cells:
                owners.setdefault(tuple(c), set()).add(subset[pl.piece])
    return {c: next(iter(s)) for c, s in owners.items() if len(s) == 1}


def build(inst: Instance) -> list[Probe]:
    scene, _, details = meta(inst)
    fixed = fixed_owner_cells(scene, list(details["subset"]))
    if not fixed:
        return [final_probe(inst, k) for k in range(1, len(inst.steps) + 1)]
    cell = min(fixed)
    labels = tuple(p["label"] for p in scene["pieces"])
    q = (
        f"Number the grid's columns x = 1, 2, ... from the left and its rows y = 1, 2, ... from the bottom. When "
        f"the pieces cover the target shape, which piece covers the cell at x = {cell[0]}, y = {cell[1]}? Answer "
        f"with the piece's letter."
    )
    return [
        Probe(k, q, labels[fixed[cell]], AnswerType.CHOICE, "piece_at_cell", labels)
        for k in range(1, len(inst.steps) + 1)
    ]
