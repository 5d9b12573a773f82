"""block_tower shortcuts: judging each block only against the one under it, the widest single offset, and
'the tower stands'."""

from __future__ import annotations

from vcot.analysis.shortcuts import scene
from vcot.schema import Instance


def _blocks(inst: Instance) -> list[dict]:
    return list(scene(inst).get("blocks") or [])


def own_centre_over_block_below(inst: Instance) -> str | None:
    """The blocks under the lowest block whose own centre lies beyond the block below it (ignoring the load
    of the blocks above)."""
    bs = _blocks(inst)
    if not bs:
        return None
    for j in range(1, len(bs)):
        if abs(bs[j]["x"] - bs[j - 1]["x"]) > bs[j - 1]["w"] / 2:
            return str(j)
    return str(len(bs))


def widest_offset_breaks(inst: Instance) -> str | None:
    """The tower breaks under the block with the largest sideways offset from the block below it."""
    bs = _blocks(inst)
    if len(bs) < 2:
        return None
    j = max(range(1, len(bs)), key=lambda i: abs(bs[i]["x"] - bs[i - 1]["x"]))
    return str(j)


def everything_stands(inst: Instance) -> str | None:
    bs = _blocks(inst)
    return str(len(bs)) if bs else None


HEURISTICS = [
    ("own centre over the block below", own_centre_over_block_below),
    ("widest offset breaks", widest_offset_breaks),
    ("the tower stands", everything_stands),
]
