"""compositional_3d oracle: answer the question program from the picture's buffers.

The vehicles are rendered again with the drawing layer's composites (`vcot.draw3d.composites`, buffers only).
Left and right are read from the centre of each vehicle's outline in the picture, in front and behind from the
picture height of the floor point under it; the program (filters, relations, part colours, part matches) is
then run by this module's own set operations. The generator decides relations from 3D coordinates with margins
and shares no solving code with this module.
"""

from __future__ import annotations

from typing import Any

from vcot.draw.colors import PALETTE
from vcot.draw3d.composites import vehicle_primitives
from vcot.oracles import _scene3d
from vcot.oracles._scene3d import Unreadable, beyond


def picture_positions(scene: dict[str, Any]) -> dict[int, tuple[float, float]]:
    """Per vehicle: (x of its outline's centre, y of its floor point) in picture pixels."""
    return _scene3d.picture_positions(scene, vehicle_primitives(scene["objects"], PALETTE), "vehicle")


def _select(objs: list[dict[str, Any]], pos: dict[int, tuple[float, float]], chain: list[dict[str, Any]]) -> set[int]:
    found = set(range(len(objs)))
    for i, step in enumerate(chain):
        if i:
            if len(found) != 1:
                raise Unreadable("a relation follows more than one vehicle")
            found = beyond(pos, next(iter(found)), step["relate"])
        found = {k for k in found if all(objs[k][a] == v for a, v in step["filter"].items())}
    return found


def _one(objs: list[dict[str, Any]], pos: dict[int, tuple[float, float]], chain: list[dict[str, Any]]) -> int:
    found = _select(objs, pos, chain)
    if len(found) != 1:
        raise Unreadable(f"a reference picks {len(found)} vehicles")
    return found.pop()


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    objs = scene["objects"]
    pos = picture_positions(scene)
    prog = scene["program"]
    fam = prog["family"]
    if fam == "query_part_colour":
        return str(objs[_one(objs, pos, prog["ref"])][prog["part"]])
    if fam == "query_type":
        return str(objs[_one(objs, pos, prog["ref"])]["type"])
    if fam == "count":
        return str(len(_select(objs, pos, prog["set"])))
    if fam == "exist":
        return "yes" if _select(objs, pos, prog["set"]) else "no"
    if fam == "same_part_colour":
        a, b = _one(objs, pos, prog["a"]), _one(objs, pos, prog["b"])
        return "yes" if objs[a][prog["part_a"]] == objs[b][prog["part_b"]] else "no"
    if fam == "count_part_match":
        k = _one(objs, pos, prog["ref"])
        colour = objs[k][prog["ref_part"]]
        return str(sum(1 for j, o in enumerate(objs) if j != k and o[prog["part"]] == colour))
    raise ValueError(f"unknown question family {fam!r}")
