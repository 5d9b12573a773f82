"""Captions of the scene3d tasks: every object with all its attributes, where its centre is in the picture
(left to right, as the questions read "left of"), and the order from nearest the camera to farthest (as they
read "in front of": along the camera's forward direction on the floor, docs/tasks/object_attributes.md).
Objects are numbered in left-to-right order, so two objects alike in every attribute stay apart."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any


def article(word: str) -> str:
    return f"{'an' if word[:1] in 'aeiou' else 'a'} {word}"


def _forward(scene: dict[str, Any], obj: dict[str, Any]) -> float:
    az = math.radians(float(scene["camera"]["azimuth"]))
    return float(obj["x"]) * math.sin(az) + float(obj["y"]) * math.cos(az)


def caption(scene: dict[str, Any], opening: str, describe: Callable[[dict[str, Any]], str]) -> str:
    objects = scene["objects"]
    centres = scene["picture"]["object_centres"]
    order = sorted(range(len(objects)), key=lambda k: (float(centres[k][0]), k))
    number = {k: n for n, k in enumerate(order, start=1)}
    items = [
        f"object {number[k]}, {describe(objects[k])}, its centre {round(float(centres[k][0]))} px from the "
        f"left edge and {round(float(centres[k][1]))} px from the top"
        for k in order
    ]
    near = sorted(range(len(objects)), key=lambda k: (_forward(scene, objects[k]), k))
    return (
        f"{opening} There are {len(objects)} objects; from left to right in the picture: "
        + "; ".join(items)
        + ". From nearest the camera to farthest: "
        + ", ".join(f"object {number[k]}" for k in near)
        + "."
    )
