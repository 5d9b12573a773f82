"""gear_rotation shortcut: a wheel on the driver's own shaft turns as the driver does."""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance


def same_shaft_as_driver(inst: Instance) -> str | None:
    """The stated direction, when the asked wheel shares the driver's shaft."""
    sc = scene(inst)
    target, driver = sc.get("target"), sc.get("driver")
    for link in sc.get("links", []):
        if link.get("type") == "shaft" and {link.get("a"), link.get("b")} == {target, driver}:
            return sc.get("driver_dir")
    return None


HEURISTICS: list[tuple[str, Heuristic]] = [("same shaft as the driver", same_shaft_as_driver)]
