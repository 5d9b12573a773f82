"""Composite objects built from parts: toy vehicles (car, truck, tractor), each a body, a cabin and wheels.

A composite is a list of primitives sharing one object id; `vehicle_primitives` places one vehicle on the floor
and `part_list` says which part each primitive belongs to, so a picture's part buffer maps back to (object,
part). Geometry is in units of the vehicle's scale, in its own frame: x forward, y to its left, z up; the heading
turns it about the vertical. Used by compositional_3d and by its oracle.
"""

from __future__ import annotations

import math
from typing import Any

from vcot.draw3d.raycast import Primitive

TYPES = ("car", "truck", "tractor")
PARTS = ("body", "cabin", "wheels")
SCALE = {"small": 0.7, "large": 1.0}

# (part, kind, local centre, size, tilt): boxes by half extents, wheels as cylinders (radius, half width) on
# their side.
Shape = tuple[str, str, tuple[float, float, float], tuple[float, ...], float]


def _wheels(xs: tuple[float, ...], y: float, r: float, hw: float) -> list[Shape]:
    return [("wheels", "cylinder", (x, s * y, r), (r, hw), 90.0) for x in xs for s in (1, -1)]


GEOMETRY: dict[str, list[Shape]] = {
    "car": [
        ("body", "box", (0.0, 0.0, 0.33), (0.85, 0.38, 0.16), 0.0),
        ("cabin", "box", (-0.08, 0.0, 0.63), (0.42, 0.33, 0.14), 0.0),
        *_wheels((0.52, -0.52), 0.4, 0.2, 0.08),
    ],
    "truck": [
        ("body", "box", (-0.25, 0.0, 0.6), (0.55, 0.4, 0.32), 0.0),
        ("cabin", "box", (0.6, 0.0, 0.52), (0.25, 0.38, 0.27), 0.0),
        *_wheels((0.6, -0.5), 0.42, 0.22, 0.08),
    ],
    "tractor": [
        ("body", "box", (0.35, 0.0, 0.42), (0.45, 0.24, 0.17), 0.0),
        ("cabin", "box", (-0.38, 0.0, 0.8), (0.28, 0.3, 0.34), 0.0),
        ("wheels", "cylinder", (-0.42, 0.42, 0.38), (0.38, 0.1), 90.0),
        ("wheels", "cylinder", (-0.42, -0.42, 0.38), (0.38, 0.1), 90.0),
        ("wheels", "cylinder", (0.55, 0.34, 0.2), (0.2, 0.07), 90.0),
        ("wheels", "cylinder", (0.55, -0.34, 0.2), (0.2, 0.07), 90.0),
    ],
}


def part_list(objects: list[dict[str, Any]]) -> list[tuple[int, str]]:
    """(object index, part name) of every primitive, in the order `vehicle_primitives` makes them."""
    return [(k, part) for k, o in enumerate(objects) for part, *_ in GEOMETRY[o["type"]]]


def vehicle_primitives(objects: list[dict[str, Any]], colours: dict[str, tuple[int, int, int]]) -> list[Primitive]:
    """The primitives of vehicles given as `{type, size, material, body, cabin, wheels, x, y, heading}` with
    part colours named in `colours`; object id = position in the list."""
    prims = []
    for k, o in enumerate(objects):
        s = SCALE[o["size"]]
        h = math.radians(o["heading"])
        ch, sh = math.cos(h), math.sin(h)
        for part, kind, (lx, ly, lz), size, tilt in GEOMETRY[o["type"]]:
            centre = (o["x"] + s * (lx * ch - ly * sh), o["y"] + s * (lx * sh + ly * ch), s * lz)
            prims.append(
                Primitive(
                    kind,
                    centre,
                    tuple(s * v for v in size),
                    colours[o[part]],
                    o["material"],
                    k,
                    yaw=o["heading"],
                    tilt=tilt,
                )
            )
    return prims
