"""robot_state_change shortcuts: the option most like the others or the odd one out (the options alone),
the first option that names a block which moved (the destinations unread), and the first option whose last
action is of the kind the change shows (onto a block or onto the table)."""

from __future__ import annotations

from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance


def _moved(sc: dict[str, Any]) -> set[str]:
    before, after = sc.get("before") or {}, sc.get("after") or {}
    return {k for k in before if list(after.get(k, [])) != list(before[k])}


def names_a_moved_block(inst: Instance) -> str | None:
    """The first option whose every action moves a block that is in another place in the After panel."""
    sc = scene(inst)
    moved = _moved(sc)
    for i, program in enumerate(sc.get("options") or []):
        if all(a.get("block") in moved for a in program):
            return "ABCDEFGH"[i]
    return None


def same_kind_as_change(inst: Instance) -> str | None:
    """The first option whose last action is a stacking one when a moved block ended on another block, else
    the first whose last action sets a block on the table."""
    sc = scene(inst)
    after = sc.get("after") or {}
    stacked = any(after[k][2] > 0 for k in _moved(sc) if k in after)
    for i, program in enumerate(sc.get("options") or []):
        if program and (program[-1].get("op") == "put_on") == stacked:
            return "ABCDEFGH"[i]
    return None


def _shared(options: list[list[dict[str, Any]]]) -> list[int]:
    """Per option: how many of its actions another option has at the same position."""
    return [
        sum(
            1
            for j, other in enumerate(options)
            if j != i
            for k, a in enumerate(prog)
            if k < len(other) and other[k] == a
        )
        for i, prog in enumerate(options)
    ]


def most_shared(inst: Instance) -> str | None:
    """The option with the most actions in common with the others (the one the others vary), first on ties."""
    options = scene(inst).get("options") or []
    if not options:
        return None
    counts = _shared(options)
    return "ABCDEFGH"[counts.index(max(counts))]


def least_shared(inst: Instance) -> str | None:
    """The odd one out: the option with the fewest actions in common with the others, first on ties."""
    options = scene(inst).get("options") or []
    if not options:
        return None
    counts = _shared(options)
    return "ABCDEFGH"[counts.index(min(counts))]


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("first option naming a block that moved", names_a_moved_block),
    ("first option of the change's kind", same_kind_as_change),
    ("the option most like the others", most_shared),
    ("the odd one out", least_shared),
]
