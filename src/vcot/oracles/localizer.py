"""Oracle for localizer: plain depth-first tiling search over the target's cells, circles carried along.

Method: every allowed orientation of every piece is generated here from the rule named in the scene
(`translate`: the drawn shape only; `rotate`: its four quarter turns; `rotate_flip`: those and their mirror
images), each as a rigid map of the piece's cells *and* circles. The search walks the target cells in
(x, y) order; the first uncovered cell must be covered by the smallest cell of some unused piece in some
orientation, so each candidate is anchored there and checked against the target and the covered cells.
Every complete tiling's circle cells are collected; the answer is the one set of circle cells all tilings
agree on, written "(x1, y1), (x2, y2)" sorted by x then y (as the question asks). A scene whose tilings give
different circle sets is ambiguous and raises ValueError.

Independence: the generator counts tilings with Knuth's Algorithm X over the exact-cover matrix built by
`tasks/common/polyomino.py`; this module builds its own orientations and uses a cell-first backtracking
search, importing nothing from vcot.tasks. It never reads a stored placement (the scene stores none; the
placements are in `meta["solution"]`, which the oracle is not given).
"""

from __future__ import annotations

from typing import Any

Cell = tuple[int, int]


def _orientations(cells: list[Cell], circles: list[Cell], rule: str) -> list[tuple[list[Cell], frozenset[Cell]]]:
    """Distinct (cells, circles) images of the piece under the rule, each shifted so min cell is (0, 0)."""
    maps = [lambda x, y: (x, y)]
    if rule in ("rotate", "rotate_flip"):
        maps += [lambda x, y: (-y, x), lambda x, y: (-x, -y), lambda x, y: (y, -x)]
    if rule == "rotate_flip":
        maps += [lambda x, y, m=m: m(-x, y) for m in list(maps)]
    if rule not in ("translate", "rotate", "rotate_flip"):
        raise ValueError(f"unknown rule {rule!r}")
    seen = set()
    out = []
    for m in maps:
        cs = [m(x, y) for x, y in cells]
        ms = [m(x, y) for x, y in circles]
        anchor = min(cs)  # lexicographic (x, y): the cell that will cover the first uncovered target cell
        cs = sorted((x - anchor[0], y - anchor[1]) for x, y in cs)
        key = (tuple(cs), frozenset((x - anchor[0], y - anchor[1]) for x, y in ms))
        if key not in seen:
            seen.add(key)
            out.append((cs, key[1]))
    return out


def circle_sets(scene: dict[str, Any]) -> list[frozenset[Cell]]:
    """The circle cells of every tiling of the target (one entry per tiling)."""
    target = {tuple(c) for c in scene["target"]}
    order = sorted(target)
    pieces = [
        _orientations([tuple(c) for c in p["cells"]], [tuple(c) for c in p["circles"]], scene["rule"])
        for p in scene["pieces"]
    ]
    if sum(len(p["cells"]) for p in scene["pieces"]) != len(target):
        return []
    covered: set[Cell] = set()
    marks: list[Cell] = []
    used = [False] * len(pieces)
    found: list[frozenset[Cell]] = []

    def search(pos: int) -> None:
        while pos < len(order) and order[pos] in covered:
            pos += 1
        if pos == len(order):
            found.append(frozenset(marks))
            return
        ax, ay = order[pos]
        for i, orients in enumerate(pieces):
            if used[i]:
                continue
            for cs, ms in orients:
                placed = [(ax + x, ay + y) for x, y in cs]
                if all(c in target and c not in covered for c in placed):
                    used[i] = True
                    covered.update(placed)
                    n = len(marks)
                    marks.extend((ax + x, ay + y) for x, y in ms)
                    search(pos + 1)
                    del marks[n:]
                    covered.difference_update(placed)
                    used[i] = False

    search(0)
    return found


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    sets = set(circle_sets(scene))
    if len(sets) != 1:
        raise ValueError(f"{len(sets)} different circle sets over the tilings")
    return ", ".join(f"({x}, {y})" for x, y in sorted(sets.pop()))
