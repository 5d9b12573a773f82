"""motion_graph: the velocity–time graph's corners, in order of time."""

from __future__ import annotations

from typing import Any


def caption(scene: dict[str, Any]) -> str:
    # "(time, velocity)" pairs without "=": an equals sign before a number reads as a stated result.
    corners = "; ".join(f"({t} s, {v} m/s)" for t, v in zip(scene["times"], scene["velocities"], strict=True))
    return (
        "A velocity–time graph (time t in seconds across, velocity v in m/s up, a grid line every second "
        f"and every m/s) made of straight pieces joining these corners, as (time, velocity): {corners}."
    )
