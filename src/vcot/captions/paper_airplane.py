"""paper_airplane: the sheet, each numbered fold line with the side its arrow starts on, and the candidates."""

from __future__ import annotations

from typing import Any

from vcot.captions._common import letters

# Line a*x + b*y = c and the side where a*x + b*y > c, as the task draws them (tasks/ct/paper_airplane.py).
_SIDES = {
    (1, 0): ("right", "left"),
    (0, 1): ("upper", "lower"),
    (1, -1): ("lower-right", "upper-left"),
    (1, 1): ("upper-right", "lower-left"),
}


def _num(v: float) -> str:
    return f"{float(v):g}"


def _line(a: int, b: int, c: float) -> str:
    lhs = {(1, 0): "x", (0, 1): "y", (1, -1): "x - y", (1, 1): "x + y"}.get((a, b), f"{a}x + {b}y")
    return f"{lhs} = {_num(c)}"


def caption(scene: dict[str, Any]) -> str:
    size = scene["size"]
    parts = [
        f"A square sheet {size} x {size} units on a table, with a unit grid; coordinates run from 0 to {size} "
        "with x to the right and y upward from the sheet's bottom-left corner."
    ]
    for k, f in enumerate(scene["folds"], start=1):
        a, b, c = f["line"]
        pos, neg = _SIDES.get((a, b), ("positive", "negative"))
        side = pos if f["moving"] > 0 else neg
        parts.append(
            f"Dashed fold line {k}: {_line(a, b, c)}, its arrow starting on the {side} side and "
            "pointing across the line."
        )
    for letter, poly in zip(letters(len(scene["candidates"])), scene["candidates"], strict=True):
        corners = ", ".join(f"({_num(x)}, {_num(y)})" for x, y in poly)
        parts.append(
            f"Candidate {letter}: an outline with corners {corners}, over the dashed square of the flat sheet."
        )
    return " ".join(parts)
