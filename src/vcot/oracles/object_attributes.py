"""object_attributes oracle: answer the question program from the picture's buffers, not the scene's 3D
coordinates.

The scene's objects are rendered again (`vcot.draw3d`, id buffer only); left and right are read from the
centre of each object's outline in the picture (its silhouette box), in front and behind from how low in the
picture the point below its centre lies on the floor (lower = nearer the camera; with no camera roll that
order is the order of distance along the camera's ground direction). The program is then executed by this
module's own set operations. The generator instead decides relations from 3D coordinates and projections
with margins, so the two agree only when the picture bears the relations out.
"""

from __future__ import annotations

from typing import Any

from vcot.draw.colors import PALETTE
from vcot.draw3d import Primitive
from vcot.oracles import _scene3d
from vcot.oracles._scene3d import Unreadable, beyond

_RADIUS = {"small": 0.35, "large": 0.7}
_CUBE = 0.85


def _primitives(objects: list[dict[str, Any]]) -> list[Primitive]:
    out = []
    for k, o in enumerate(objects):
        r = _RADIUS[o["size"]]
        col = PALETTE[o["colour"]]
        if o["shape"] == "cube":
            h = r * _CUBE
            out.append(Primitive("box", (o["x"], o["y"], h), (h, h, h), col, o["material"], k, yaw=o["yaw"]))
        elif o["shape"] == "sphere":
            out.append(Primitive("sphere", (o["x"], o["y"], r), (r,), col, o["material"], k))
        else:
            out.append(Primitive("cylinder", (o["x"], o["y"], r), (r, r), col, o["material"], k))
    return out


def picture_positions(scene: dict[str, Any]) -> dict[int, tuple[float, float]]:
    """Per object: (x of its outline's centre, y of its floor point) in picture pixels."""
    return _scene3d.picture_positions(scene, _primitives(scene["objects"]))


def _select(
    objects: list[dict[str, Any]], pos: dict[int, tuple[float, float]], chain: list[dict[str, Any]]
) -> set[int]:
    current = set(range(len(objects)))
    for i, step in enumerate(chain):
        if i > 0:
            if len(current) != 1:
                raise Unreadable(f"step {i} of a chain follows {len(current)} objects, not one")
            current = beyond(pos, next(iter(current)), step["relate"])
        current = {k for k in current if all(objects[k][a] == v for a, v in step["filter"].items())}
    return current


def _one(objects: list[dict[str, Any]], pos: dict[int, tuple[float, float]], chain: list[dict[str, Any]]) -> int:
    found = _select(objects, pos, chain)
    if len(found) != 1:
        raise Unreadable(f"a reference picks {len(found)} objects")
    return next(iter(found))


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    objects = scene["objects"]
    pos = picture_positions(scene)
    prog = scene["program"]
    fam = prog["family"]
    if fam.startswith("query_"):
        return str(objects[_one(objects, pos, prog["ref"])][prog["attr"]])
    if fam == "count":
        return str(len(_select(objects, pos, prog["set"])))
    if fam == "exist":
        return "yes" if _select(objects, pos, prog["set"]) else "no"
    if fam == "compare_count":
        return "yes" if len(_select(objects, pos, prog["a"])) > len(_select(objects, pos, prog["b"])) else "no"
    if fam == "same_attribute":
        a, b = _one(objects, pos, prog["a"]), _one(objects, pos, prog["b"])
        return "yes" if objects[a][prog["attr"]] == objects[b][prog["attr"]] else "no"
    raise ValueError(f"unknown question family {fam!r}")
