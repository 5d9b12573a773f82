"""Shared polyomino toolkit: transforms, symmetry group sizes, exact cover counts on hand-checked boards."""

from __future__ import annotations

import random

import pytest

from vcot.tasks.base import Reject
from vcot.tasks.common.polyomino import (
    RULE_TRANSFORMS,
    RULES,
    Placement,
    cell_box,
    cell_sides,
    congruent,
    exact_cover,
    has_hole,
    is_connected,
    mutate_piece,
    normalize,
    orientations,
    random_partition,
    random_region,
    sample_cut_target,
    shape_tilings,
    shown_turned,
    target_frame,
    tiling_map,
    tilings,
    transform,
)
from vcot.tasks.eg.localizer import LocalizerConfig

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


@pytest.mark.parametrize(
    "name,expected",
    [
        ("I3", [1, 2, 2]),
        ("L3", [1, 4, 4]),
        ("O4", [1, 1, 1]),
        ("T4", [1, 4, 4]),
        ("S4", [1, 2, 4]),
        ("L4", [1, 4, 8]),
        ("F5", [1, 4, 8]),
    ],
)
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


def test_cell_sides_are_the_box_edges_keyed_by_the_neighbour_across() -> None:
    x0, y0, x1, y1 = cell_box((2, 3), (5.0, 100.0), 10.0)
    assert cell_sides((2, 3), (5.0, 100.0), 10.0) == {
        (2, 4): [(x0, y0), (x1, y0)],  # y points up, so the cell above is across the top (screen y0) edge
        (2, 2): [(x0, y1), (x1, y1)],
        (1, 3): [(x0, y0), (x0, y1)],
        (3, 3): [(x1, y0), (x1, y1)],
    }


def test_sample_cut_target_cuts_the_target_into_distinct_pieces() -> None:
    cfg = LocalizerConfig(irregular=True, min_cells=12, max_cells=14)
    cut = 0
    for seed in range(30):
        rng = random.Random(seed)
        try:
            region, parts = sample_cut_target(rng, cfg, 3)
        except Reject:
            continue
        cut += 1
        assert sorted(c for p in parts for c in p) == sorted(region)
        assert cfg.min_cells <= len(region) <= cfg.max_cells and len(parts) == 3
        assert all(cfg.min_piece <= len(p) <= cfg.max_piece and is_connected(p) for p in parts)
        assert not any(congruent(a, b) for i, a in enumerate(parts) for b in parts[i + 1 :])
        frame = target_frame(region)
        assert sorted(map(tuple, frame["target"])) == sorted((x + 1, y + 1) for x, y in region)
        assert frame["width"] == max(x for x, _ in region) + 1 and frame["height"] == max(y for _, y in region) + 1
    assert cut >= 20
    with pytest.raises(Reject):
        sample_cut_target(random.Random(0), cfg, 3, accept=lambda region, parts: False)


@pytest.mark.parametrize("rule", RULES)
def test_shown_turned_never_shows_a_piece_in_place_when_the_rule_allows_a_turn(rule: str) -> None:
    rng = random.Random(3)
    in_place = transform(L4, 0, [(0, 2)])  # L4 has no symmetry: every other transform moves it
    for _ in range(20):
        cells, marks = shown_turned(rng, L4, rule, [(0, 2)])
        assert (cells, marks) in [transform(L4, k, [(0, 2)]) for k in RULE_TRANSFORMS[rule]]
        assert ((cells, marks) == in_place) == (rule == "translate")


def test_tiling_map_draws_cells_overlaps_gaps_and_overhangs() -> None:
    # Target: the L of cells (1, 1), (2, 1), (1, 2) in a 2 x 2 frame. Piece 1 (circled at (1, 1)) lies on
    # (1, 1), (2, 1); piece 2 on (2, 1), (2, 2): it overlaps piece 1 at (2, 1), sticks out at (2, 2), and
    # (1, 2) stays uncovered.
    one = Placement(0, 0, (1, 1), ((1, 1), (2, 1)), ((1, 1),))
    two = Placement(1, 1, (2, 1), ((2, 1), (2, 2)), ())
    legend, rows = tiling_map(2, 2, [(1, 1), (2, 1), (1, 2)], [("1", one), ("2", two)])
    assert rows == "y = 2: _ [2]; y = 1: 1* 1+2"
    assert legend == (
        "* marks a circle, + joins pieces overlapping on one cell, _ is a target cell left "
        "uncovered, brackets mark piece cells outside the target"
    )
    # A clean tiling names only what occurs.
    legend, rows = tiling_map(2, 1, [(1, 1)], [("3", Placement(0, 0, (1, 1), ((1, 1),), ()))])
    assert (legend, rows) == (". is an empty cell outside the target", "y = 1: 3 .")
