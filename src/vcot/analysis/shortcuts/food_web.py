"""food_web shortcuts: whether the removed species is a plant (what the question's name alone tells), or
counting its eaters, only those that eat nothing else, or everything above it in the web, instead of running
the die-out."""

from __future__ import annotations

from vcot.analysis.shortcuts import Heuristic, scene
from vcot.schema import Instance


def _web(inst: Instance) -> tuple[str, list[list[str]]] | None:
    sc = scene(inst)
    if not sc.get("eats") or not sc.get("removed"):
        return None
    return sc["removed"], sc["eats"]


def direct_eaters(inst: Instance) -> str | None:
    """Every animal with an arrow from the removed species."""
    w = _web(inst)
    return None if w is None else str(len({b for a, b in w[1] if a == w[0]}))


def sole_food_eaters(inst: Instance) -> str | None:
    """The animals that eat the removed species and nothing else (the first round only)."""
    w = _web(inst)
    if w is None:
        return None
    x, eats = w
    return str(sum(1 for b in {b for a, b in eats if a == x} if all(a == x for a, e in eats if e == b)))


def everything_above(inst: Instance) -> str | None:
    """Every species reachable along the arrows from the removed one."""
    w = _web(inst)
    if w is None:
        return None
    x, eats = w
    seen, todo = set(), [x]
    while todo:
        cur = todo.pop()
        for a, b in eats:
            if a == cur and b not in seen:
                seen.add(b)
                todo.append(b)
    return str(len(seen))


def plant_or_animal(inst: Instance) -> str | None:
    """Only what the question names: removing a plant (bottom row) starves more than removing an animal. Guesses
    3 for a plant and 1 for an animal, the commonest answers of each on the easy and medium presets."""
    sc = scene(inst)
    level = {s["name"]: s["level"] for s in sc.get("species", [])}
    if sc.get("removed") not in level:
        return None
    return "3" if level[sc["removed"]] == 0 else "1"


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("plant or animal removed", plant_or_animal),
    ("eaters of the removed species", direct_eaters),
    ("eaters with no other food", sole_food_eaters),
    ("everything above the removed species", everything_above),
]
