"""robot_program: after each action, in which cell is the block that action moved (the last step's probe is the
question itself when that block is the asked one)."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, states, _ = meta(inst)
    out = []
    for k, (act, state) in enumerate(zip(scene["program"], states, strict=True), start=1):
        name = act["block"]
        if k == len(states) and name == scene["asked"]:
            out.append(final_probe(inst, k))
            continue
        col, row, _ = state[name]
        q = (
            f"{inst.question} Before answering that: after action {k} of the program, in which cell is the "
            f"{name} block? Answer with the cell's name: its column letter, then its row number."
        )
        out.append(Probe(k, q, f"{'abcdefgh'[col]}{row + 1}", AnswerType.TEXT, "moved_block_cell"))
    return out
