"""Oracle for food_web: survival as reachability from the plants that remain.

Method. An animal survives exactly when some chain of food reaches it from a plant that is still there: it
eats a survivor, which eats a survivor, ... down to a plant. So the oracle deletes the removed species, runs a
breadth-first search along the arrows (food → eater) from every remaining plant (a species nothing in the web
feeds), and counts the species the search never reaches.

Independence. The generator repeats rounds ("every animal whose food is all gone dies out") until nothing
changes; this oracle never simulates rounds, it searches forward from the food sources. It imports nothing from
`vcot.tasks`; the scene stores the species, the arrows and the removed species' name.
"""

from __future__ import annotations

from collections import deque
from typing import Any


def answer(scene: dict[str, Any], params: dict[str, Any]) -> str:
    names = [s["name"] for s in scene["species"]]
    if len(set(names)) != len(names):
        raise ValueError("species names must be unique")
    removed = scene["removed"]
    if removed not in names:
        raise ValueError(f"removed species {removed!r} is not in the web")
    feeds: dict[str, list[str]] = {n: [] for n in names}
    fed = set()
    for food, eater in scene["eats"]:
        feeds[food].append(eater)
        fed.add(eater)
    sources = [n for n in names if n not in fed and n != removed]
    reached = set(sources)
    queue = deque(sources)
    while queue:
        for eater in feeds[queue.popleft()]:
            if eater != removed and eater not in reached:
                reached.add(eater)
                queue.append(eater)
    return str(len(names) - 1 - len(reached))
