"""convex_hull: the lattice and every coloured point (the hull itself is not drawn)."""

from __future__ import annotations

from typing import Any


def caption(scene: dict[str, Any]) -> str:
    n = scene["grid"]
    parts = [
        f"A square integer lattice with coordinates 0 to {n} on both axes (x grows to the right, y grows "
        f"upward, the origin at the bottom-left)."
    ]
    for s in scene["sets"]:
        pts = ", ".join(f"({x}, {y})" for x, y in s["points"])
        parts.append(f"{s['colour'].capitalize()} {s['marker']}s are drawn at {pts}.")
    return " ".join(parts)
