"""Oracle for multi_piece_puzzle: one depth-first tiling search over all candidates at once.

Method: every allowed orientation of every candidate is generated here from the scene's rule (`translate`:
the drawn shape; `rotate`: its quarter turns; `rotate_flip`: those and their mirror images). A single
backtracking search walks the target cells in (x, y) order and covers the first uncovered cell with the
smallest cell of any unused candidate in any orientation; it does not pre-select subsets and does not filter
by area. Every complete cover records the set of candidates it used. The answer is the one set of exactly k
candidates (k is stated in the question) that covers the target, its labels in alphabetical order joined by
", ". More than one such set, or none, raises ValueError.

Independence: the generator loops over k-subsets with an area prefilter and runs Algorithm X from
`tasks/common/polyomino.py` on each; this module shares none of that code (it imports nothing from
vcot.tasks) and reads only the target, the candidates' drawn cells, the rule and k.
"""

from __future__ import annotations

from typing import Any

Cell = tuple[int, int]


def _orientations(cells: list[Cell], rule: str) -> list[list[Cell]]:
    if rule not in ("translate", "rotate", "rotate_flip"):
        raise ValueError(f"unknown rule {rule!r}")
    shapes = [cells]
    if rule != "translate":
        for _ in range(3):
            shapes.append([(-y, x) for x, y in shapes[-1]])  # a quarter turn counter-clockwise
    if rule == "rotate_flip":
        shapes += [[(-x, y) for x, y in s] for s in shapes]
    out: list[list[Cell]] = []
    for s in shapes:
        ax, ay = min(s)
        norm = sorted((x - ax, y - ay) for x, y in s)
        if norm not in out:
            out.append(norm)
    return out


def covering_sets(scene: dict[str, Any]) -> set[tuple[int, ...]]:
    """Every set of candidate indices (any size) that tiles the target exactly."""
    target = {tuple(c) for c in scene["target"]}
    order = sorted(target)
    orients = [_orientations([tuple(c) for c in p["cells"]], scene["rule"]) for p in scene["pieces"]]
    covered: set[Cell] = set()
    used: list[int] = []
    found: set[tuple[int, ...]] = set()

    def search(pos: int) -> None:
        while pos < len(order) and order[pos] in covered:
            pos += 1
        if pos == len(order):
            found.add(tuple(sorted(used)))
            return
        ax, ay = order[pos]
        for i, shapes in enumerate(orients):
            if i in used:
                continue
            for s in shapes:
                placed = [(ax + x, ay + y) for x, y in s]
                if all(c in target and c not in covered for c in placed):
                    used.append(i)
                    covered.update(placed)
                    search(pos + 1)
                    covered.difference_update(placed)
                    used.pop()

    search(0)
    return found


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    sets = [s for s in covering_sets(scene) if len(s) == scene["k"]]
    if len(sets) != 1:
        raise ValueError(f"{len(sets)} sets of {scene['k']} candidates tile the target")
    return ", ".join(scene["pieces"][i]["label"] for i in sets[0])
