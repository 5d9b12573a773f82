"""The robot tasks' table in words: the grid's size and every stack of blocks, cell by cell."""

from __future__ import annotations

from typing import Any


def table(blocks: dict[str, Any], size: list[int]) -> str:
    cells: dict[tuple[int, int], list[tuple[int, str]]] = {}
    for name, (c, r, level) in blocks.items():
        cells.setdefault((int(c), int(r)), []).append((int(level), name))
    parts = []
    for (c, r), stack in sorted(cells.items(), key=lambda kv: (kv[0][1], kv[0][0])):
        names = [n for _, n in sorted(stack)]
        what = f"the {names[0]} block" + "".join(f" with the {n} block on it" for n in names[1:])
        parts.append(f"{'abcdefgh'[c]}{r + 1}: {what}")
    return (
        f"A table with a grid of {size[0]} columns (a.. left to right) and {size[1]} rows (1 nearest the robot "
        f"arm); " + "; ".join(parts) + "."
    )
