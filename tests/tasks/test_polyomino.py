"""Shared polyomino toolkit: transforms, symmetry group sizes, exact cover counts on hand-checked boards."""

from __future__ import annotations

import random

import pytest

from vcot.tasks.eg.polyomino import (
    RULES,
    congruent,
    exact_cover,
    has_hole,
    is_connected,
    mutate_piece,
    normalize,
    orientations,
    random_partition,
    random_region,
    shape_tilings,
    tilings,
    transform,
)

DOMINO = [(0, 0), (1, 0)]
L4 = [(0, 0), (0, 1), (0, 2), (1, 0)]
SHAPES = {
    "I3": [(0, 0), (1, 0), (2, 0)],
    "L3": [(0, 0), (1, 0), (0, 1)],
    "O4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "T4": [(0, 0), (1, 0), (2, 0), (1, 1)],
    "S4": [(0, 0), (1, 0), (1, 1), (2, 1)],
    "L4": L4,
    "F5": [(1, 0), (1, 1), (0, 1), (1, 2), (2, 2)],
}


def rect(w: int, h: int) -> list[tuple[int, int]]:
    return [(x, y) for x in range(w) for y in range(h)]


def brute_count(target: list[tuple[int, int]], shape: list[tuple[int, int]], rule: str) -> int:
    """Independent tiling counter: fill the lowest empty cell with every orientation, recursively."""
    forms = [o.cells for o in orientations(shape, rule)]
    empty = set(target)

    def rec() -> int:
        if not empty:
            return 1
        first = min(empty)
        total = 0
        for cells in forms:
            ax, ay = cells[0]  # cells are sorted, so cells[0] is the form's lowest cell in the same order
            placed = [(x - ax + first[0], y - ay + first[1]) for x, y in cells]
            if all(c in empty for c in placed):
                empty.difference_update(placed)
                total += rec()
                empty.update(placed)
        return total

    return rec()


def test_transforms_compose_and_keep_marks() -> None:
    cells = SHAPES["F5"]
    # Four quarter turns are the identity; a flip twice is the identity.
    c = list(cells)
    for _ in range(4):
        c = list(transform(c, 1)[0])
    assert tuple(c) == normalize(cells)
    assert transform(transform(cells, 4)[0], 4)[0] == normalize(cells)
    # Marks move with the piece: the L4 foot cell (1, 0) after a 180-degree turn sits at the top-left.
    moved, marks = transform(L4, 2, [(1, 0)])
    assert moved == ((0, 2), (1, 0), (1, 1), (1, 2)) and marks == ((0, 2),)


@pytest.mark.parametrize("name,expected", [
    ("I3", [1, 2, 2]), ("L3", [1, 4, 4]), ("O4", [1, 1, 1]), ("T4", [1, 4, 4]),
    ("S4", [1, 2, 4]), ("L4", [1, 4, 8]), ("F5", [1, 4, 8]),
])
def test_orientation_group_sizes(name: str, expected: list[int]) -> None:
    assert [len(orientations(SHAPES[name], r)) for r in RULES] == expected


def test_marks_split_symmetric_orientations() -> None:
    # A domino with a circle on one end: turning it by 180 degrees keeps the cells but moves the circle.
    assert len(orientations(DOMINO, "rotate")) == 2
    assert len(orientations(DOMINO, "rotate", [(0, 0)])) == 4
    # Circles on both ends are symmetric again.
    assert len(orientations(DOMINO, "rotate", [(0, 0), (1, 0)])) == 2


def test_exact_cover_tiny_matrix() -> None:
    # Knuth's example: columns 0..6, the unique cover is rows 0, 3, 4.
    rows = [[2, 4, 5], [0, 3, 6], [1, 2, 5], [0, 3], [1, 6], [3, 4, 6]]
    assert exact_cover(7, rows, limit=5) == [[0, 3, 4]]
    assert exact_cover(3, [[0], [1]], limit=5) == []


def test_domino_tilings_of_2xn_are_fibonacci() -> None:
    fib = [1, 1]
    while len(fib) < 12:
        fib.append(fib[-1] + fib[-2])
    for n in range(1, 11):
        assert len(shape_tilings(rect(n, 2), [DOMINO], "rotate")) == fib[n]
    # Translation only: horizontal dominoes alone cannot tile a 2 x odd board, and tile 2 x even one way.
    assert len(shape_tilings(rect(3, 2), [DOMINO], "translate")) == 0
    assert len(shape_tilings(rect(4, 2), [DOMINO], "translate")) == 1


def test_l_tetromino_tilings_of_4x4() -> None:
    counts = {r: len(shape_tilings(rect(4, 4), [L4], r)) for r in RULES}
    # Translation only: no cell of the drawn L4 (a bar with a foot to the right) can sit in the top-right
    # corner (3, 3) without the bar poking out above or the foot poking out to the right, so 0.
    assert counts["translate"] == brute_count(rect(4, 4), L4, "translate") == 0
    assert counts["rotate"] == brute_count(rect(4, 4), L4, "rotate") == 3
    assert counts["rotate_flip"] == brute_count(rect(4, 4), L4, "rotate_flip") == 10


def test_labelled_pieces_on_2x4() -> None:
    # Two I-trominoes and a domino on a 4 x 2 board: each I3 must lie in one row (height 2), both at the same
    # end, leaving a vertical domino at the other end: 2 positions x 2 orders of the labelled trominoes = 4.
    pieces = [(SHAPES["I3"], ()), (SHAPES["I3"], ()), (DOMINO, ())]
    assert len(tilings(rect(4, 2), pieces, "rotate", limit=100)) == 4
    # Translation only: the horizontal domino can never stand upright.
    assert tilings(rect(4, 2), pieces, "translate", limit=100) == []
    upright = [(SHAPES["I3"], ()), (SHAPES["I3"], ()), ([(0, 0), (0, 1)], ())]
    assert len(tilings(rect(4, 2), upright, "translate", limit=100)) == 4
    # Area mismatch returns no tiling at once.
    assert tilings(rect(4, 2), pieces[:2], "rotate") == []


def test_shape_helpers() -> None:
    assert is_connected(L4) and not is_connected([(0, 0), (2, 0)])
    ring = [c for c in rect(3, 3) if c != (1, 1)]
    assert has_hole(ring) and not has_hole(rect(3, 3))
    assert congruent(SHAPES["S4"], [(1, 0), (2, 0), (0, 1), (1, 1)])  # Z is a flipped S
    assert not congruent(SHAPES["S4"], [(1, 0), (2, 0), (0, 1), (1, 1)], rule="rotate")
    assert not congruent(L4, SHAPES["T4"])


def test_random_shapes_are_valid() -> None:
    rng = random.Random(3)
    for _ in range(100):
        region = random_region(rng, 14, 5, 5)
        assert region is not None and len(region) == 14
        assert is_connected(region) and not has_hole(region)
        parts = random_partition(rng, region, [5, 5, 4])
        if parts is not None:
            assert sorted(c for p in parts for c in p) == sorted(region)
            assert all(is_connected(p) for p in parts)
        m = mutate_piece(rng, L4)
        if m is not None:
            assert len(m) == 4 and is_connected(m) and not congruent(m, L4)
