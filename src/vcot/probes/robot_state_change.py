"""robot_state_change: step 1 rings the blocks that moved (how many?); each later step is one action's result
(in which cell is the block it moved?); the question itself is the last step's probe."""

from __future__ import annotations

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance


def build(inst: Instance) -> list[Probe]:
    scene, states, _ = meta(inst)
    before = scene["before"]
    moved = [k for k in before if list(scene["after"][k]) != list(before[k])]
    q = (
        f"{inst.question} Before answering that: how many blocks are in a different place in the After panel "
        "than in the Before panel? Answer with a single integer."
    )
    out = [Probe(1, q, str(len(moved)), AnswerType.INTEGER, "moved_blocks")]
    prev = before
    for k, state in enumerate(states, start=2):
        if k == len(inst.steps):
            out.append(final_probe(inst, k))
            break
        name = next(n for n in state if list(state[n]) != list(prev[n]))
        col, row, _ = state[name]
        q = (
            f"{inst.question} Before answering that: the robot's action {k - 1} moved the {name} block; in which "
            "cell is it after that action? Answer with the cell's name: its column letter, then its row number."
        )
        out.append(Probe(k, q, f"{'abcdefgh'[col]}{row + 1}", AnswerType.TEXT, "moved_block_cell"))
        prev = state
    return out
