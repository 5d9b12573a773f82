"""defuse_a_bomb: the ends, terminals, panels and every *visible* piece of wire.

Under a panel nothing is visible, so a wire is described as its visible pieces: runs of grid points outside
every panel, with the heading at which a piece disappears under or comes out of a panel. Wires of one colour
(`same_color`) cannot be told apart across a panel, so their pieces carry no wire label beyond the end they
start at; coloured pieces carry their colour, which is what a viewer sees.
"""

from __future__ import annotations

from typing import Any

_HEADING = {-1: "rising one row per column", 0: "level", 1: "falling one row per column"}


def _hidden(x: float, y: float, panels: list[dict[str, float]]) -> bool:
    return any(p["x0"] < x < p["x1"] and p["y0"] < y < p["y1"] for p in panels)


def _pieces(rows: list[int], panels: list[dict[str, float]]) -> list[tuple[int, list[int]]]:
    """(first column, rows) of each run of grid points outside every panel."""
    out: list[tuple[int, list[int]]] = []
    run: list[int] = []
    start = 0
    for x, r in enumerate(rows):
        if _hidden(x, r, panels):
            if run:
                out.append((start, run))
                run = []
        else:
            if not run:
                start = x
            run.append(r)
    if run:
        out.append((start, run))
    return out


def _piece_text(start: int, run: list[int], rows: list[int]) -> str:
    end = start + len(run) - 1
    text = f"columns {start} to {end} through rows {' '.join(str(r) for r in run)}"
    if start > 0:
        text += f" (coming out of a panel {_HEADING[rows[start] - rows[start - 1]]})"
    if end + 1 < len(rows):  # the run stopped because the next grid point is under a panel
        text += f" (going under a panel {_HEADING[rows[end + 1] - rows[end]]})"
    return text


def caption(scene: dict[str, Any]) -> str:
    w, h = scene["width"], scene["height"]
    panels = scene["panels"]
    parts = [f"A wiring diagram on a grid of columns 0 to {w} (left to right) and rows 0 to {h} (top to bottom)."]
    ends = sorted(scene["wires"], key=lambda wire: wire["rows"][0])
    parts.append(
        "Labelled wire ends on the left (column 0): "
        + ", ".join(f"{wire['label']} at row {wire['rows'][0]}" for wire in ends)
        + "."
    )
    parts.append(
        "Numbered terminals on the right (column "
        + str(w)
        + "): "
        + ", ".join(f"{t['number']} at row {t['row']}" for t in scene["terminals"])
        + f"; terminal {scene['detonator']} is "
        "drawn as a red bomb."
    )
    parts.append(
        "Grey opaque panels cover "
        + "; ".join(f"columns {p['x0']:g} to {p['x1']:g} and rows {p['y0']:g} to {p['y1']:g}" for p in panels)
        + "."
    )
    pieces = []
    for wire in scene["wires"]:
        colour = "black" if scene["same_color"] else wire["color"]
        for start, run in _pieces(wire["rows"], panels):
            who = f"from end {wire['label']}, " if start == 0 else ""
            pieces.append(f"a {colour} piece {who}{_piece_text(start, run, wire['rows'])}")
    pieces.sort(key=lambda s: (" from end " not in s, s))
    parts.append(
        "Visible wire pieces (a wire runs straight or diagonally from column to column): " + "; ".join(pieces) + "."
    )
    return " ".join(parts)
