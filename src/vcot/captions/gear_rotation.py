"""gear_rotation: every wheel (label, centre, size, teeth), what connects them, and the red arrow.

The caption names which wheels touch, share a shaft or carry a belt (what a viewer sees), never a turning
sense beyond the driver's arrow, which the question states anyway.
"""

from __future__ import annotations

from typing import Any

_LINKS = {
    "mesh": "{a} and {b} are gears whose teeth touch",
    "shaft": "{a} and {b} share one centre, the smaller drawn on top of the larger",
    "open_belt": "an open belt (its two straight runs do not cross) joins {a} and {b}",
    "crossed_belt": "a crossed belt (its runs cross between the wheels) joins {a} and {b}",
}


def caption(scene: dict[str, Any]) -> str:
    gears = scene["gears"]
    wheels = []
    for g in gears:
        kind = f"a gear with {g['teeth']} teeth" if g.get("teeth") else "a smooth wheel"
        wheels.append(
            f"{g['label']}: {kind}, radius {g['r']:g}, centre at x={g['x']:g}, y={g['y']:g} (pixels, y downward)"
        )
    links = [
        _LINKS.get(lk["type"], "{a} and {b} are connected").format(a=gears[lk["a"]]["label"], b=gears[lk["b"]]["label"])
        for lk in scene["links"]
    ]
    driver = gears[scene["driver"]]["label"]
    return (
        f"{len(gears)} labelled wheels. "
        + "; ".join(wheels)
        + ". Connections: "
        + "; ".join(links)
        + f"; no other wheels touch. A red arrow is drawn on wheel {driver}."
    )
