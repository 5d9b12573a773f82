"""robot_program shortcuts: the asked block's starting cell (the program ignored), and the asked block's own
actions carried out from the starting picture (the other blocks' moves ignored)."""

from __future__ import annotations

from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

_OFFSET = {"left": (-1, 0), "right": (1, 0), "away": (0, 1), "towards": (0, -1)}


def _name(cell: tuple[int, int]) -> str:
    return f"{'abcdefgh'[cell[0]]}{cell[1] + 1}"


def start_cell(inst: Instance) -> str | None:
    """Where the asked block stands in the picture."""
    sc = scene(inst)
    blocks: dict[str, Any] = sc.get("blocks") or {}
    if sc.get("asked") not in blocks:
        return None
    c, r, _ = blocks[sc["asked"]]
    return _name((c, r))


def last_own_move(inst: Instance) -> str | None:
    """The asked block's last action, read against the starting picture: on its partner's starting cell,
    beside it, or one cell on from where the block started."""
    sc = scene(inst)
    blocks: dict[str, Any] = sc.get("blocks") or {}
    own = [a for a in sc.get("program") or [] if a.get("block") == sc.get("asked")]
    if not own or sc.get("asked") not in blocks:
        return None
    a = own[-1]
    base = blocks[a["onto"]] if "onto" in a else blocks[sc["asked"]]
    dc, dr = _OFFSET.get(a.get("dir", ""), (0, 0)) if a.get("op") != "put_on" else (0, 0)
    return _name((base[0] + dc, base[1] + dr))


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("the asked block's starting cell", start_cell),
    ("its last action read on the starting picture", last_own_move),
]
