"""Which way each wheel of a gear_rotation system turns: a parity constraint graph. Meshing gears and crossed
belts flip the direction, open belts and shared shafts keep it. A BFS 2-colouring from the driver gives every
connected wheel's direction; a contradiction (an odd cycle of flips) means the wheels cannot turn at all:
"jammed".
"""

from __future__ import annotations

from collections import deque
from typing import Any

from vcot.tasks.base import Reject

FLIP = {"mesh": 1, "crossed_belt": 1, "open_belt": 0, "shaft": 0}
DIRS = ("clockwise", "counterclockwise")


def propagate(scene: dict[str, Any]) -> dict[str, Any]:
    """BFS from the driver. Returns per-gear sign (0 = same as driver, 1 = opposite), layer, the link that
    set it, and the first contradiction found (None when consistent). The corrupted trajectory runs it on a
    misread system (`_gear_corruption`)."""
    n = len(scene["gears"])
    adj: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for k, link in enumerate(scene["links"]):
        adj[link["a"]].append((link["b"], k))
        adj[link["b"]].append((link["a"], k))
    driver = scene["driver"]
    sign: list[int | None] = [None] * n
    layer: list[int | None] = [None] * n
    via: list[tuple[int, int] | None] = [None] * n
    sign[driver], layer[driver] = 0, 0
    conflict = None
    queue = deque([driver])
    while queue:
        u = queue.popleft()
        for v, k in adj[u]:
            s = sign[u] ^ FLIP[scene["links"][k]["type"]]  # type: ignore[operator]
            if sign[v] is None:
                sign[v], layer[v], via[v] = s, layer[u] + 1, (u, k)  # type: ignore[operator]
                queue.append(v)
            elif sign[v] != s and conflict is None:
                conflict = {"gear": v, "from": u, "link": k, "layer": max(layer[u], layer[v])}  # type: ignore[type-var]
    return {"sign": sign, "layer": layer, "via": via, "conflict": conflict}


def direction_of(driver_dir: str, s: int) -> str:
    return driver_dir if s == 0 else DIRS[1 - DIRS.index(driver_dir)]


def gear_answer(scene: dict[str, Any], prop: dict[str, Any], gear: int) -> str:
    if prop["sign"][gear] is None:
        raise Reject("the asked gear is not connected to gear A")
    if prop["conflict"] is not None:
        return "jammed"
    return direction_of(scene["driver_dir"], prop["sign"][gear])
