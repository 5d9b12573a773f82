"""puzzle shortcuts: pick the piece from how the candidates relate to each other, or from one shallow comparison
with the visible picture, without continuing the pattern into the gap.

Candidates-only rules exploit a distractor set built from the right piece (turned, mirrored, recoloured
copies share its symbols; the per-cell majority and the candidate closest to all others are then the right
piece). Context rules stand for a reader who checks that a piece's symbols, or its neighbouring pairs of
symbols, occur somewhere in the picture, instead of where they must occur, or who takes the piece that
blends in with the cells around the gap.

Left out on purpose: the opposite rule, "the piece whose edge cells repeat the cells across the gap's edge least
often". It names the right piece in nearly every stripes picture and often in motif pictures, because there it
*is* the check the question asks for: stripes never repeat a neighbour, and a window one phase off repeats the
row or column beside the gap. Applying the picture's own local rule at the gap's edge is solving, not a
shortcut (docs/tasks/puzzle.md, "Distractors").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

Piece = list[list[tuple[Any, ...]]]


def _pieces(inst: Instance) -> tuple[list[Piece], list[str]] | None:
    sc = scene(inst)
    cands, letters = sc.get("candidates"), sc.get("options")
    if not cands or not letters or len(cands) != len(letters):
        return None
    return [[[tuple(cell) for cell in row] for row in c] for c in cands], list(letters)


def _cells(piece: Piece) -> list[tuple[Any, ...]]:
    return [cell for row in piece for cell in row]


def _pick(letters: list[str], keep: list[bool]) -> str | None:
    """The first kept letter (ties fall to the earliest slot, which the balanced slots make a guess)."""
    return next((letter for letter, k in zip(letters, keep, strict=True) if k), None)


def _best(letters: list[str], scores: list[float]) -> str | None:
    return _pick(letters, [s == max(scores) for s in scores]) if scores else None


def _agreement(a: Piece, b: Piece) -> int:
    """Channel values (shape, colour, shade) two pieces share cell by cell."""
    return sum(x == y for ca, cb in zip(_cells(a), _cells(b), strict=True) for x, y in zip(ca, cb, strict=True))


def per_cell_majority(inst: Instance) -> str | None:
    """The candidate that agrees most, channel by channel and cell by cell, with the majority of the four."""
    got = _pieces(inst)
    if got is None:
        return None
    cands, letters = got
    n = len(_cells(cands[0]))
    majority = []
    for pos in range(n):
        majority.append(
            tuple(
                Counter(_cells(c)[pos][ch] for c in cands).most_common(1)[0][0]
                for ch in range(len(_cells(cands[0])[pos]))
            )
        )
    return _best(
        letters,
        [
            sum(x == y for cell, m in zip(_cells(c), majority, strict=True) for x, y in zip(cell, m, strict=True))
            for c in cands
        ],
    )


def centre_of_candidates(inst: Instance) -> str | None:
    """The candidate that shares the most with all the others (the one the distractors were made from)."""
    got = _pieces(inst)
    if got is None:
        return None
    cands, letters = got
    return _best(letters, [sum(_agreement(c, d) for d in cands if d is not c) for c in cands])


def shared_symbol_set(inst: Instance) -> str | None:
    """The candidate whose multiset of symbols the most other candidates also hold (turned and mirrored copies
    of the right piece hold exactly its symbols)."""
    got = _pieces(inst)
    if got is None:
        return None
    cands, letters = got
    bags = [Counter(_cells(c)) for c in cands]
    return _best(letters, [sum(b == o for o in bags) for b in bags])


def odd_one_out_reversed(inst: Instance) -> str | None:
    """The candidate whose symbols occur most often across the other candidates (the 'odd one out' is a
    distractor; its opposite is the piece the others vary)."""
    got = _pieces(inst)
    if got is None:
        return None
    cands, letters = got
    pool = [Counter(_cells(c)) for c in cands]
    return _best(letters, [sum(sum(p[s] for p in pool) - pool[i][s] for s in _cells(c)) for i, c in enumerate(cands)])


def _visible(sc: dict[str, Any]) -> list[list[tuple[Any, ...] | None]] | None:
    grid, hole = sc.get("grid"), sc.get("hole")
    if not grid or not hole:
        return None
    r0, c0, k = hole
    return [
        [None if (r0 <= i < r0 + k and c0 <= j < c0 + k) or cell is None else tuple(cell) for j, cell in enumerate(row)]
        for i, row in enumerate(grid)
    ]


def _dominoes(grid: list[list[Any]]) -> Iterator[tuple[str, Any, Any]]:
    """Horizontal and vertical neighbour pairs of cells (both present)."""
    for i, row in enumerate(grid):
        for j, cell in enumerate(row):
            if cell is None:
                continue
            if j + 1 < len(row) and row[j + 1] is not None:
                yield ("h", cell, row[j + 1])
            if i + 1 < len(grid) and grid[i + 1][j] is not None:
                yield ("v", cell, grid[i + 1][j])


def symbols_seen_in_picture(inst: Instance) -> str | None:
    """The first candidate all of whose cells occur somewhere in the visible picture."""
    got, vis = _pieces(inst), _visible(scene(inst))
    if got is None or vis is None:
        return None
    cands, letters = got
    seen = {cell for row in vis for cell in row if cell is not None}
    return _pick(letters, [all(cell in seen for cell in _cells(c)) for c in cands])


def neighbour_pairs_seen_in_picture(inst: Instance) -> str | None:
    """The candidate with the most horizontal and vertical neighbour pairs that also occur in the visible
    picture (a texture match, blind to where the pairs occur)."""
    got, vis = _pieces(inst), _visible(scene(inst))
    if got is None or vis is None:
        return None
    cands, letters = got
    seen = set(_dominoes(vis))
    return _best(letters, [sum(d in seen for d in _dominoes(c)) / max(1, len(list(_dominoes(c)))) for c in cands])


def _edge_matches(inst: Instance) -> tuple[list[int], list[str]] | None:
    """Per candidate: channel values its edge cells share with the visible cells just across the gap's edge."""
    sc = scene(inst)
    got, vis = _pieces(inst), _visible(sc)
    if got is None or vis is None:
        return None
    cands, letters = got
    r0, c0, k = sc["hole"]
    pairs = []  # (piece row, piece column, visible row, visible column) across each edge of the gap
    for t in range(k):
        pairs += [
            (0, t, r0 - 1, c0 + t),
            (k - 1, t, r0 + k, c0 + t),
            (t, 0, r0 + t, c0 - 1),
            (t, k - 1, r0 + t, c0 + k),
        ]
    rows, cols = len(vis), len(vis[0])
    score = []
    for c in cands:
        score.append(
            sum(
                x == y
                for pi, pj, vi, vj in pairs
                if 0 <= vi < rows and 0 <= vj < cols and vis[vi][vj]
                for x, y in zip(c[pi][pj], vis[vi][vj], strict=True)
            )
        )
    return score, letters


def blends_with_gap_edge(inst: Instance) -> str | None:
    """The candidate that 'blends in': its edge cells most often equal to the visible cells across the edge."""
    got = _edge_matches(inst)
    return _best(got[1], got[0]) if got else None


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("per-cell majority of the candidates", per_cell_majority),
    ("centre of the candidates", centre_of_candidates),
    ("symbols shared with most candidates", shared_symbol_set),
    ("opposite of the odd one out", odd_one_out_reversed),
    ("all symbols seen in the picture", symbols_seen_in_picture),
    ("neighbour pairs seen in the picture", neighbour_pairs_seen_in_picture),
    ("blends with the gap's edge", blends_with_gap_edge),
]
