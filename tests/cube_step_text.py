"""Reading the cube tasks' step texts back into height grids (shared by their tests)."""

from __future__ import annotations


def rows_in(text: str, what: str) -> list[list[int]]:
    """The grid a step text gives as `describe_rows(values, what)`, front row first (as scenes store it)."""
    rows = []
    for part in text.split(f"{what} (columns left to right) — ", 1)[1].split("; "):
        label, _, values = part.partition(": ")
        rows.append([int(v) for v in values.split(".")[0].split(", ")])
        if label in ("front row", "the only row"):
            break
    return rows[::-1]
