"""Composite objects for compositional_3d (Super-CLEVR-like): toy vehicles — car, truck, tractor — each built
from three parts, a body, a cabin and the wheels, every part with its own colour (docs/tasks/compositional_3d.md).

Every type has every part, so naming a part never gives the type away. The geometry is the drawing layer's
(`vcot.draw3d.composites`), shared with the task's oracle; this module samples scenes and words filters.
"""

from __future__ import annotations

import math
import random
from typing import Any

from vcot.draw.colors import PALETTE
from vcot.draw3d import Primitive
from vcot.draw3d.composites import PARTS, SCALE, TYPES, vehicle_primitives
from vcot.tasks.base import Reject
from vcot.tasks.scene3d._scene import COLOURS, MATERIALS, SIZES, VOCABS, Vocab

KIND = "vehicles"
FOOTPRINT = 1.0  # radius holding every type's footprint, in scale units
ARENA = 3.4


def primitives(objects: list[dict[str, Any]]) -> list[Primitive]:
    return vehicle_primitives(objects, PALETTE)


def centre(o: dict[str, Any]) -> tuple[float, float, float]:
    return o["x"], o["y"], 0.45 * SCALE[o["size"]]


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def noun(flt: dict[str, str], plural: bool = False) -> str:
    """ "large metal truck with a red cabin and blue wheels"; plural "trucks with a red cabin"."""
    words = [flt[a] for a in ("size", "material") if a in flt]
    head = flt.get("type", "vehicle") + ("s" if plural else "")
    parts = [f"{flt[p]} wheels" if p == "wheels" else f"{_article(flt[p])} {flt[p]} {p}" for p in PARTS if p in flt]
    tail = f" with {' and '.join(parts)}" if parts else ""
    return " ".join([*words, head]) + tail


# Where the tasks' camera stands on the floor before its seeded jitter (`_scene.sample_camera`: azimuth 0,
# elevation about 36 degrees, distance about 10.4): the line of sight to a vehicle is read from here when sampling.
NOMINAL_EYE = (0.0, -10.4 * math.cos(math.radians(36.0)))


def end_on_to_eye(x: float, y: float, heading: float) -> float:
    """Degrees between a vehicle's long axis and the line of sight from NOMINAL_EYE to it (0 = end-on)."""
    dx, dy = x - NOMINAL_EYE[0], y - NOMINAL_EYE[1]
    h = math.radians(heading)
    c = abs(math.cos(h) * dx + math.sin(h) * dy) / math.hypot(dx, dy)
    return math.degrees(math.acos(min(1.0, c)))


def sample_vehicles(rng: random.Random, n: int, avoid_end_on: float = 0.0) -> list[dict[str, Any]]:
    """n vehicles at random positions and headings, footprints at least 0.2 apart; with `avoid_end_on`, a
    heading within that many degrees of end-on to the nominal camera is drawn again."""
    objects: list[dict[str, Any]] = []
    for _ in range(n):
        for _try in range(60):
            size = rng.choice(SIZES)
            x, y = rng.uniform(-ARENA, ARENA), rng.uniform(-ARENA, ARENA)
            if all(
                math.hypot(x - o["x"], y - o["y"]) >= FOOTPRINT * (SCALE[size] + SCALE[o["size"]]) + 0.2
                for o in objects
            ):
                heading = round(rng.uniform(0, 360), 1)
                while avoid_end_on and end_on_to_eye(x, y, heading) < avoid_end_on:
                    heading = round(rng.uniform(0, 360), 1)
                objects.append(
                    {
                        "type": rng.choice(TYPES),
                        "size": size,
                        "material": rng.choice(MATERIALS),
                        **{p: rng.choice(COLOURS) for p in PARTS},
                        "x": round(x, 3),
                        "y": round(y, 3),
                        "heading": heading,
                    }
                )
                break
        else:
            raise Reject("no room for another vehicle")
    return objects


VEHICLES = Vocab(
    attrs=("size", "material", "type", "body", "cabin", "wheels"),
    values={"size": SIZES, "material": MATERIALS, "type": TYPES, "body": COLOURS, "cabin": COLOURS, "wheels": COLOURS},
    noun=noun,
    primitives=primitives,
    centre=centre,
    head="type",
)
VOCABS[KIND] = VEHICLES
