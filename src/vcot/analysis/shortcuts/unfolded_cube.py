"""unfolded_cube shortcuts: cues in the four candidates alone (nets or views), never checked against the
given views or net.

Every distractor is one plausible mistake away from some candidate (a face's mark turned, two marks swapped,
the cube mirrored, an opposite face shown as adjacent). If they were all made from the answer, the answer
would be the candidate most like the others; the cues below look for that centre, its opposite (the odd one
out), and for the pairs of marks that several candidates agree on.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from functools import cache
from itertools import combinations
from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

LETTERS = "ABCD"
VIEW_NORMALS = {"top": (0, 1, 0), "left": (0, 0, 1), "right": (1, 0, 0)}

Vec = tuple[int, int, int]
Partial = dict[Vec, tuple[str, str, Vec]]  # normal -> (glyph, colour, up)


def _candidates(inst: Instance) -> list[Partial] | None:
    """Each candidate as faces of a cube: a folded net (six faces) or a view (its three faces)."""
    from vcot.tasks.common import cube_nets as cn

    sc = scene(inst)
    try:
        if sc.get("form") == "net":
            cubes = [cn.net_to_cube(net) for net in sc["nets"]]
            return [{n: (f.glyph, f.color, f.up) for n, f in c.items()} for c in cubes]
        if sc.get("form") == "view":
            return [
                {VIEW_NORMALS[k]: (f["glyph"], f["color"], tuple(f["up"])) for k, f in v.items()}
                for v in sc["candidate_views"]
            ]
    except (KeyError, TypeError, ValueError):
        return None
    return None


def _agreement(a: Partial, b: Partial) -> int:
    """Most faces (mark and orientation) two candidates share under one rotation of the cube."""
    best = 0
    for turn in _turns():
        turned = {turn(n): (g, c, turn(up)) for n, (g, c, up) in a.items()}
        best = max(best, sum(1 for n, f in turned.items() if b.get(n) == f))
    return best


@cache
def _turns() -> list[Callable[[Vec], Vec]]:
    """Each cube rotation as a memoised function of a vector: the audit turns the same few axis vectors
    hundreds of thousands of times, and the matrix product was most of its time."""
    from vcot.tasks.common import cube_nets as cn

    def turner(m: cn.Matrix) -> Callable[[Vec], Vec]:
        return cache(lambda v: cn.apply(m, v))

    return [turner(m) for m in cn.ROTATIONS]


def _mark_pairs(c: Partial, adjacent: bool) -> set[frozenset[tuple[str, str]]]:
    """Pairs of marks on adjacent faces (or on opposite faces) of a candidate."""
    out = set()
    for (n1, f1), (n2, f2) in combinations(c.items(), 2):
        dot = sum(x * y for x, y in zip(n1, n2, strict=True))
        if (dot == 0) == adjacent:
            out.add(frozenset({f1[:2], f2[:2]}))
    return out


def _pick(score: Callable[[list[Partial], int], float], best: Callable[..., int] = max) -> Heuristic:
    def heuristic(inst: Instance) -> str | None:
        cands = _candidates(inst)
        if cands is None or len(cands) != len(LETTERS):
            return None
        values = [score(cands, i) for i in range(len(cands))]
        return LETTERS[best(range(len(values)), key=values.__getitem__)]

    return heuristic


def _likeness(cands: list[Partial], i: int) -> float:
    return sum(_agreement(cands[i], c) for j, c in enumerate(cands) if j != i)


def _pair_support(adjacent: bool) -> Callable[[list[Partial], int], float]:
    """How many other candidates show each of this candidate's mark pairs, summed."""

    def score(cands: list[Partial], i: int) -> float:
        counts: Counter[Any] = Counter()
        for j, c in enumerate(cands):
            if j != i:
                counts.update(_mark_pairs(c, adjacent))
        return sum(counts[p] for p in _mark_pairs(cands[i], adjacent))

    return score


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("candidate most like the others", _pick(_likeness)),
    ("candidate least like the others", _pick(_likeness, min)),
    ("adjacent mark pairs most shared", _pick(_pair_support(True))),
    ("opposite mark pairs most shared", _pick(_pair_support(False))),
]
