"""Oracle for defuse_a_bomb: a particle walks each wire from its labelled end over what is visible.

Method. The board is cut into half-segments in doubled grid units (a grid point to the midpoint of its
segment and on to the next grid point). A half-segment is *visible* when its midpoint is outside every panel;
wire identities are then dropped: the oracle keeps only the set of visible half-segments (start, end). A
particle starts at each labelled end (column 0) and steps along visible half-segments: at a grid point it
takes the single visible half-segment leaving it (no two wires share a grid point, so a bend is unambiguous);
between grid points it must keep its direction (an X crossing offers two ways, only one straight). When no
visible half-segment leaves its position, it is at a panel edge and coasts straight on in its current
direction, as the question's rule says, until it reaches a point from which a visible half-segment leaves in
that same direction (leaving the panels without meeting one raises `Untraceable`). The label whose particle arrives
at the detonator terminal (column `width`, row of the
terminal numbered `detonator`) is the answer; no arrival, or several, raises `Untraceable`.

Why it is independent. The generator cuts whole wires into visible polyline pieces and pairs each panel entry
with the piece starting where a straight line leaves the panel (with its own Panel geometry); this oracle
uses step-by-step simulation over an anonymous set of half-segments, ignoring the stored hidden parts of the
wires except through what is visible, and imports nothing from `vcot.tasks`.
"""

from __future__ import annotations

from typing import Any

P = tuple[int, int]  # doubled-and-doubled units: grid unit = 4, so half-segment midpoints are integers


class Untraceable(ValueError):
    """The visible evidence does not lead exactly one labelled end to the detonator."""


def _covered(panels: list[tuple[float, float, float, float]], p: tuple[float, float]) -> bool:
    return any(x0 < p[0] < x1 and y0 < p[1] < y1 for x0, y0, x1, y1 in panels)


def visible_half_segments(scene: dict[str, Any]) -> dict[P, list[P]]:
    """Start point -> end points of the visible half-segments (units of a quarter grid unit)."""
    panels = [(4 * p["x0"], 4 * p["y0"], 4 * p["x1"], 4 * p["y1"]) for p in scene["panels"]]
    out: dict[P, list[P]] = {}
    for wire in scene["wires"]:
        rows = wire["rows"]
        for x in range(len(rows) - 1):
            a = (4 * x, 4 * rows[x])
            m = (4 * x + 2, 2 * (rows[x] + rows[x + 1]))
            b = (4 * x + 4, 4 * rows[x + 1])
            for s, e in ((a, m), (m, b)):
                if not _covered(panels, ((s[0] + e[0]) / 2, (s[1] + e[1]) / 2)):
                    out.setdefault(s, []).append(e)
    return out


def walk(scene: dict[str, Any], segs: dict[P, list[P]], start: P) -> P:
    """Where the particle leaving `start` ends up."""
    end_x = 4 * scene["width"]
    pos, d = start, None
    for _ in range(8 * (scene["width"] + 1)):
        if pos[0] == end_x:
            return pos
        nxt = segs.get(pos, [])
        if d is not None:
            straight = [e for e in nxt if (e[0] - pos[0], e[1] - pos[1]) == d]
            if pos[0] % 4 == 2 or not nxt:
                nxt = straight
        if len(nxt) == 1:
            e = nxt[0]
            d = (e[0] - pos[0], e[1] - pos[1])
            pos = e
            continue
        if len(nxt) > 1:
            raise Untraceable(f"ambiguous continuation at {pos}")
        if d is None:
            raise Untraceable(f"wire end at {start} is not visible")
        pos = (pos[0] + d[0], pos[1] + d[1])  # hidden: coast straight on
        if not any(
            4 * p["x0"] <= pos[0] <= 4 * p["x1"] and 4 * p["y0"] <= pos[1] <= 4 * p["y1"] for p in scene["panels"]
        ):
            raise Untraceable(f"a coasting particle leaves the panels at {pos} without meeting a visible wire")
    raise Untraceable("the walk does not end")


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    segs = visible_half_segments(scene)
    det_row = [t["row"] for t in scene["terminals"] if t["number"] == scene["detonator"]]
    if len(det_row) != 1:
        raise Untraceable("no unique detonator terminal")
    target = (4 * scene["width"], 4 * det_row[0])
    hits = [w["label"] for w in scene["wires"] if walk(scene, segs, (0, 4 * w["rows"][0])) == target]
    if len(hits) != 1:
        raise Untraceable(f"{len(hits)} wires reach the detonator")
    return hits[0]
