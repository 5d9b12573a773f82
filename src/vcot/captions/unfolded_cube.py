"""unfolded_cube: the shown cube view(s) and the nets, face by face with each mark's orientation.

Orientation words follow the task's own step texts (tasks/aslp/unfolded_cube.py): in a view, where the top of
a face's mark points (toward another visible face or one of the face's outer edges); in a net, where the top
of the mark points on the page.
"""

from __future__ import annotations

from typing import Any

from vcot.captions._common import letters

_NORMALS = {"top": (0, 1, 0), "left": (0, 0, 1), "right": (1, 0, 0)}
_LABELS = {"top": "top", "left": "front-left", "right": "front-right"}
_HIDDEN = {
    ("top", (-1, 0, 0)): "its back-left edge",
    ("top", (0, 0, -1)): "its back-right edge",
    ("left", (-1, 0, 0)): "its outer left edge",
    ("right", (0, 0, -1)): "its outer right edge",
}
_PAGE = ("up", "left", "down", "right")  # a net mark's top after `rot` counter-clockwise quarter turns
_GLYPHS = {"arrow": "arrow", "L": "letter L", "T": "letter T", "F": "letter F", "flag": "flag", "Y": "letter Y"}


def _mark(face: dict[str, Any], colored: bool) -> str:
    word = _GLYPHS.get(face["glyph"], str(face["glyph"]))
    return f"{face['color']} {word}" if colored else word


def _toward(name: str, up: tuple[int, ...]) -> str:
    for other, n in _NORMALS.items():
        if up == n:
            return f"the {_LABELS[other]} face"
    if up == (0, -1, 0):
        return "its bottom edge"
    return _HIDDEN.get((name, up), "an outer edge")


def _view(view: dict[str, Any], colored: bool) -> str:
    return "; ".join(
        f"{_LABELS[name]} face: {_mark(view[name], colored)}, its top pointing toward "
        f"{_toward(name, tuple(view[name]['up']))}"
        for name in ("top", "left", "right")
    )


def _net(net: list[dict[str, Any]], colored: bool) -> str:
    cells = sorted(net, key=lambda c: (c["row"], c["col"]))
    return "; ".join(
        f"row {c['row'] + 1}, column {c['col'] + 1}: {_mark(c, colored)}, its top pointing {_PAGE[c['rot'] % 4]}"
        for c in cells
    )


def caption(scene: dict[str, Any]) -> str:
    colored = scene["colored"]
    if scene["form"] == "net":
        views = scene["views"]
        head = [
            f"View {k}: {_view(v, colored)}." if len(views) > 1 else f"The cube: {_view(v, colored)}."
            for k, v in enumerate(views, start=1)
        ]
        nets = [
            f"Net {letter} (cells by row and column from the top-left of its panel): {_net(n, colored)}."
            for letter, n in zip(letters(len(scene["nets"])), scene["nets"], strict=True)
        ]
        return (
            "At the top, a cube drawn from above and the front. "
            + " ".join(head)
            + " Below, four nets. "
            + " ".join(nets)
        )
    views = [
        f"View {letter}: {_view(v, colored)}."
        for letter, v in zip(letters(len(scene["candidate_views"])), scene["candidate_views"], strict=True)
    ]
    return (
        f"At the top, the net of a cube (cells by row and column from its top-left): {_net(scene['net'], colored)}."
        " Below, four views of a cube drawn from above and the front. " + " ".join(views)
    )
