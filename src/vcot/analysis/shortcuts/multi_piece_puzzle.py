"""multi_piece_puzzle shortcuts: candidates-only cues that never fit a piece into the target.

Cell counts are the obvious one: only k-sets whose cells add up to the target's are possible. The generator
rejects scenes where that leaves a single set, so `only set with the target's area` sits at its fallback; the
cues that guess among the remaining sets show how much counting (and a glance at piece sizes) still narrows
the choice.
"""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

Cells = list[tuple[int, int]]


def _pieces(sc: dict[str, Any]) -> list[tuple[str, Cells]]:
    return [(str(p.get("label")), [(int(x), int(y)) for x, y in p.get("cells", [])]) for p in sc.get("pieces", [])]


def _answer(pieces: list[tuple[str, Cells]], combo: tuple[int, ...]) -> str:
    return ", ".join(sorted(pieces[i][0] for i in combo))


def _area_sets(sc: dict[str, Any], usable: list[int] | None = None) -> list[tuple[int, ...]]:
    """The k-sets of candidates (among `usable`) whose cell counts add up to the target's."""
    pieces, k, area = _pieces(sc), sc.get("k"), len(sc.get("target", []))
    if not isinstance(k, int) or not pieces:
        return []
    idx = list(range(len(pieces))) if usable is None else usable
    return [c for c in itertools.combinations(idx, k) if sum(len(pieces[i][1]) for i in c) == area]


def _guess(inst: Instance, combos: list[tuple[int, ...]]) -> str | None:
    """One of `combos`, picked by the instance's uid: a guess among them, reproducible."""
    if not combos:
        return None
    pick = int(hashlib.sha256(str(inst.uid).encode()).hexdigest(), 16) % len(combos)
    return _answer(_pieces(scene(inst)), combos[pick])


def only_area_match(inst: Instance) -> str | None:
    """The set whose cell counts add up to the target's, when exactly one does."""
    sc = scene(inst)
    combos = _area_sets(sc)
    return _answer(_pieces(sc), combos[0]) if len(combos) == 1 else None


def guess_among_area_matches(inst: Instance) -> str | None:
    """A guess among the sets with the target's total area."""
    return _guess(inst, _area_sets(scene(inst)))


def _fits_box(cells: Cells, width: int, height: int, may_turn: bool) -> bool:
    w = max(x for x, _ in cells) + 1
    h = max(y for _, y in cells) + 1
    return (w <= width and h <= height) or (may_turn and h <= width and w <= height)


def guess_among_fitting_area_matches(inst: Instance) -> str | None:
    """A guess among the sets with the target's area made of pieces that fit the target's bounding box."""
    sc = scene(inst)
    width, height = sc.get("width"), sc.get("height")
    if not isinstance(width, int) or not isinstance(height, int):
        return None
    may_turn = sc.get("rule") != "translate"
    usable = [i for i, (_, cells) in enumerate(_pieces(sc)) if cells and _fits_box(cells, width, height, may_turn)]
    return _guess(inst, _area_sets(sc, usable))


def largest_pieces(inst: Instance) -> str | None:
    """The k pieces with the most cells (ties to the earlier label)."""
    sc = scene(inst)
    pieces, k = _pieces(sc), sc.get("k")
    if not isinstance(k, int) or len(pieces) < k:
        return None
    order = sorted(range(len(pieces)), key=lambda i: (-len(pieces[i][1]), i))
    return _answer(pieces, tuple(order[:k]))


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("only set with the target's area", only_area_match),
    ("guess among sets with the target's area", guess_among_area_matches),
    ("guess among fitting sets with the target's area", guess_among_fitting_area_matches),
    ("largest pieces", largest_pieces),
]
