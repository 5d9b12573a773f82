"""Marks drawn on a coloured shape so that its colour is never the only cue (docs/tasks/README.md, "Colour")."""

from __future__ import annotations

from vcot.draw.canvas import Canvas
from vcot.draw.colors import Color, rgb

MARKS = ("blank", "cross", "plus", "ring", "dot")


def contrast_colour(under: str | Color) -> str:
    """Black marks on light colours, white marks on dark ones (from the palette's current values)."""
    r, g, b = rgb(under)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 150 else "white"


def draw_mark(c: Canvas, mark: str, center: tuple[float, float], half: float, color: str, stroke: float = 0.32) -> None:
    """A mark centred at `center`; `half` is half its width, `stroke` its line width as a share of `half`."""
    x, y = center
    width = max(2.0, half * stroke)
    if mark == "cross":
        c.line([(x - half, y - half), (x + half, y + half)], color=color, width=width)
        c.line([(x - half, y + half), (x + half, y - half)], color=color, width=width)
    elif mark == "plus":
        c.line([(x - half, y), (x + half, y)], color=color, width=width)
        c.line([(x, y - half), (x, y + half)], color=color, width=width)
    elif mark == "ring":
        c.circle((x, y), half * 0.85, fill=None, outline=color, width=width)
    elif mark == "dot":
        c.circle((x, y), half * 0.6, fill=color, outline=None)
    elif mark != "blank":
        raise ValueError(f"unknown mark {mark!r}; known: {', '.join(MARKS)}")
