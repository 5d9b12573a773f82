"""mirror_pattern shortcuts: pick the right grid from how the candidates relate to each other (never looking at
the pattern), or from one shallow comparison with the pattern (colour counts, line counts, cell overlap).

Candidates-only rules exploit a distractor set built around the answer: rotations of the pattern are mirror
images of the answer and rotations of one another, near-misses sit one small change away from it. The
pattern-based rules stand for a reader who compares counts instead of reflecting the pattern.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import numpy as np

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance

Grid = np.ndarray

# The symmetries of the square as array operations; the first four keep handedness, the last four reverse it.
_PROPER: tuple[Callable[[Grid], Grid], ...] = (
    lambda a: a,
    lambda a: np.rot90(a, 1),
    lambda a: np.rot90(a, 2),
    lambda a: np.rot90(a, 3),
)
_IMPROPER: tuple[Callable[[Grid], Grid], ...] = (np.fliplr, np.flipud, lambda a: a.T, lambda a: np.rot90(a, 2).T)
_AXIS: dict[str, Callable[[Grid], Grid]] = {
    "vertical": np.fliplr,
    "horizontal": np.flipud,
    "diagonal": lambda a: a.T,
    "antidiagonal": lambda a: np.rot90(a, 2).T,
}
NEAR = 4  # a near-miss differs in at most this many cells (a recoloured cell, a swapped pair, a 2 x 2 switch)


def _grids(inst: Instance) -> tuple[list[Grid], list[str]] | None:
    sc = scene(inst)
    cands, letters = sc.get("candidates"), sc.get("options")
    if not cands or not letters or len(cands) != len(letters):
        return None
    return [np.array(c) for c in cands], list(letters)


def _is_proper_image(a: Grid, b: Grid) -> bool:
    """a is a rotation of b by a non-zero turn."""
    return any(np.array_equal(a, f(b)) for f in _PROPER[1:])


def _is_mirror_image(a: Grid, b: Grid) -> bool:
    return any(np.array_equal(a, f(b)) for f in _IMPROPER)


def _aligned_distance(a: Grid, b: Grid) -> int:
    """Cells in which a differs from b under the best symmetry of the square."""
    return min(int(np.sum(a != f(b))) for f in _PROPER + _IMPROPER)


def _pick(letters: list[str], keep: list[bool]) -> str | None:
    """The first kept letter (ties fall to the earliest slot, which the balanced slots make a guess)."""
    return next((letter for letter, k in zip(letters, keep, strict=True) if k), None)


def mirror_of_another_rotation_of_none(inst: Instance) -> str | None:
    """The candidate that is a mirror image of another candidate and a rotation of none (ties: the one with
    the most near-miss relatives)."""
    got = _grids(inst)
    if got is None:
        return None
    cands, letters = got
    keep = [
        any(_is_mirror_image(c, d) for j, d in enumerate(cands) if j != i)
        and not any(_is_proper_image(c, d) for j, d in enumerate(cands) if j != i)
        for i, c in enumerate(cands)
    ]
    # Ties go to the candidate with the most near-misses: the one the near-miss distractors were made from.
    near = [sum(0 < int(np.sum(c != d)) <= NEAR for d in cands) if k else -1 for c, k in zip(cands, keep, strict=True)]
    return _pick(letters, [k and n == max(near) for k, n in zip(keep, near, strict=True)])


def odd_handedness(inst: Instance) -> str | None:
    """Among candidates that are symmetries of one another, the one whose handedness differs from the rest."""
    got = _grids(inst)
    if got is None:
        return None
    cands, letters = got
    for i, c in enumerate(cands):
        others = [d for j, d in enumerate(cands) if j != i]
        if len(others) >= 2 and all(_is_mirror_image(c, d) for d in others):
            return letters[i]
    return None


def most_near_relatives(inst: Instance) -> str | None:
    """The candidate with the most others within a small change of it (after the best symmetry)."""
    got = _grids(inst)
    if got is None:
        return None
    cands, letters = got
    counts = [
        sum(0 < _aligned_distance(c, d) <= NEAR for j, d in enumerate(cands) if j != i) for i, c in enumerate(cands)
    ]
    best = max(counts)
    return _pick(letters, [k == best for k in counts]) if best > 0 else None


def centre_of_candidates(inst: Instance) -> str | None:
    """The candidate closest to all others (sum of cell differences under the best symmetry): the one the
    distractors were made from."""
    got = _grids(inst)
    if got is None:
        return None
    cands, letters = got
    total = [sum(_aligned_distance(c, d) for d in cands) for c in cands]
    return _pick(letters, [t == min(total) for t in total])


def stated_axis_partner(inst: Instance) -> str | None:
    """Axis form: a candidate whose reflection across the stated axis is another candidate."""
    got = _grids(inst)
    axis = scene(inst).get("axis")
    if got is None or axis not in _AXIS:
        return None
    cands, letters = got
    keep = [any(np.array_equal(_AXIS[axis](c), d) for j, d in enumerate(cands) if j != i) for i, c in enumerate(cands)]
    return _pick(letters, keep)


def _pattern(inst: Instance) -> Grid | None:
    p = scene(inst).get("pattern")
    return np.array(p) if p else None


def _line_profiles(a: Grid) -> Counter:
    """Colour counts of every row and column, as a multiset (unchanged by any symmetry of the square)."""
    lines = list(a) + list(a.T)
    return Counter(tuple(sorted(Counter(line.tolist()).items())) for line in lines)


def same_colour_counts(inst: Instance) -> str | None:
    """The first candidate with as many cells of each colour as the pattern."""
    got, p = _grids(inst), _pattern(inst)
    if got is None or p is None:
        return None
    cands, letters = got
    want = Counter(p.flatten().tolist())
    return _pick(letters, [Counter(c.flatten().tolist()) == want for c in cands])


def same_line_counts(inst: Instance) -> str | None:
    """The first candidate whose rows and columns hold the same colour counts as the pattern's."""
    got, p = _grids(inst), _pattern(inst)
    if got is None or p is None:
        return None
    cands, letters = got
    want = _line_profiles(p)
    return _pick(letters, [_line_profiles(c) == want for c in cands])


def most_like_pattern(inst: Instance) -> str | None:
    """The candidate that agrees with the pattern, as drawn, in the most cells."""
    got, p = _grids(inst), _pattern(inst)
    if got is None or p is None:
        return None
    cands, letters = got
    same = [int(np.sum(c == p)) if c.shape == p.shape else -1 for c in cands]
    return _pick(letters, [s == max(same) for s in same])


def least_like_pattern(inst: Instance) -> str | None:
    """The candidate that agrees with the pattern, as drawn, in the fewest cells."""
    got, p = _grids(inst), _pattern(inst)
    if got is None or p is None:
        return None
    cands, letters = got
    same = [int(np.sum(c == p)) if c.shape == p.shape else 10**6 for c in cands]
    return _pick(letters, [s == min(same) for s in same])


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("mirror of another, rotation of none", mirror_of_another_rotation_of_none),
    ("odd handedness", odd_handedness),
    ("most near-miss relatives", most_near_relatives),
    ("centre of the candidates", centre_of_candidates),
    ("stated-axis partner", stated_axis_partner),
    ("same colour counts as pattern", same_colour_counts),
    ("same line counts as pattern", same_line_counts),
    ("most cells like the pattern", most_like_pattern),
    ("fewest cells like the pattern", least_like_pattern),
]
