"""overlap: each pair's two polygons and their black dots, in each panel's own axes."""

from __future__ import annotations

from typing import Any

from vcot.captions._common import letters

_COLOURS = ("blue", "orange")


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def caption(scene: dict[str, Any]) -> str:
    w, h = scene["grid"]
    parts = [
        f"Four panels, each with its own axes from 0 to {w} in x (to the right) and 0 to {h} in y (upward), "
        "grid lines 1 unit apart."
    ]
    for letter, pair in zip(letters(len(scene["pairs"])), scene["pairs"], strict=True):
        shapes = []
        for colour, shape in zip(_COLOURS, pair, strict=True):
            verts = ", ".join(f"({x}, {y})" for x, y in shape["vertices"])
            rx, ry = shape["ref"]
            shapes.append(
                f"{_article(colour)} {colour} polygon with corners {verts} and a black dot at its corner ({rx}, {ry})"
            )
        parts.append(f"Panel {letter}: " + "; ".join(shapes) + ".")
    return " ".join(parts)
