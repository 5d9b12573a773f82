"""Small wording helpers shared by the per-task scene-graph captioners (grids as text, lists, points)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any


def grid_rows(
    cells: Iterable[Sequence[int]],
    width: int,
    height: int,
    *,
    marks: Iterable[Sequence[int]] = (),
    x0: int = 0,
    y0: int = 0,
) -> str:
    """A y-up cell set as text rows from the top row down: '#' filled, 'o' filled with a circle, '.' empty.

    Rows are written as pictures, not coordinates, so a caption never spells an answer in the "(x, y)" form.
    """
    filled = {(int(c[0]), int(c[1])) for c in cells}
    marked = {(int(c[0]), int(c[1])) for c in marks}
    rows = []
    for y in range(y0 + height - 1, y0 - 1, -1):
        rows.append(
            "".join("o" if (x, y) in marked else "#" if (x, y) in filled else "." for x in range(x0, x0 + width))
        )
    return " / ".join(rows)


def bbox_rows(cells: Sequence[Sequence[int]], marks: Iterable[Sequence[int]] = ()) -> str:
    """`grid_rows` over the cells' own bounding box (a loose piece drawn beside a board)."""
    xs = [int(c[0]) for c in cells]
    ys = [int(c[1]) for c in cells]
    return grid_rows(cells, max(xs) - min(xs) + 1, max(ys) - min(ys) + 1, marks=marks, x0=min(xs), y0=min(ys))


def matrix_rows(rows: Sequence[Sequence[Any]], fmt: Any = str) -> str:
    """A top-to-bottom matrix as 'a b c / d e f'."""
    return " / ".join(" ".join(fmt(v) for v in row) for row in rows)


def words_list(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def point(p: Sequence[Any]) -> str:
    """A point as 'x=a, y=b' (never the '(a, b)' answer form of coordinate questions)."""
    return f"x={_num(p[0])}, y={_num(p[1])}"


def _num(v: Any) -> str:
    f = float(v)
    return str(int(f)) if f.is_integer() else f"{f:g}"


def letters(n: int) -> list[str]:
    return [chr(ord("A") + i) for i in range(n)]
