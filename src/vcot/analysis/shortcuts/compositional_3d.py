"""compositional_3d shortcuts: answering from what the scene holds overall, ignoring the relations, or reading
the wrong part.

Each reads the scene graph (what the picture shows) and the question program the shallow way a reader might,
never the trace or the answer.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from vcot.analysis.shortcuts import Heuristic
from vcot.analysis.shortcuts._scene3d import matching, objects_and_program
from vcot.schema import Instance

_COLOURS = ("red", "blue", "green", "orange", "purple", "cyan")
_TYPES = ("car", "truck", "tractor")
_PARTS = ("body", "cabin", "wheels")


def most_common(inst: Instance) -> str | None:
    """A part-colour or type question answered with the value most vehicles have."""
    parts = objects_and_program(inst)
    if parts is None:
        return None
    objs, prog = parts
    if prog["family"] == "query_part_colour":
        counts = Counter(o.get(prog["part"]) for o in objs)
        return max(_COLOURS, key=lambda v: counts[v])
    if prog["family"] == "query_type":
        counts = Counter(o.get("type") for o in objs)
        return max(_TYPES, key=lambda v: counts[v])
    return None


def ignore_relations(inst: Instance) -> str | None:
    """Every chain's last description applied to all vehicles, the relations skipped (only questions with a
    relation: without one this is the solution itself)."""
    parts = objects_and_program(inst)
    if parts is None:
        return None
    objs, prog = parts
    chains = [prog[k] for k in ("ref", "set", "a", "b") if k in prog]
    if not any(step.get("relate") for chain in chains for step in chain):
        return None
    fam = prog["family"]

    def first(key: str) -> dict[str, Any] | None:
        found = matching(objs, prog[key][-1]["filter"])
        return found[0] if found else None

    if fam == "count":
        return str(len(matching(objs, prog["set"][-1]["filter"])))
    if fam == "exist":
        return "yes" if matching(objs, prog["set"][-1]["filter"]) else "no"
    if fam == "same_part_colour":
        a, b = first("a"), first("b")
        return None if a is None or b is None else ("yes" if a.get(prog["part_a"]) == b.get(prog["part_b"]) else "no")
    target = first("ref")
    if target is None:
        return None
    if fam == "query_part_colour":
        return str(target.get(prog["part"]))
    if fam == "query_type":
        return str(target.get("type"))
    colour = target.get(prog["ref_part"])
    return str(sum(1 for o in objs if o is not target and o.get(prog["part"]) == colour))


def body_colour(inst: Instance) -> str | None:
    """A part-colour question answered with the referred vehicle's body colour (the biggest part), whatever part
    was asked; relations ignored as above."""
    parts = objects_and_program(inst)
    if parts is None or parts[1]["family"] != "query_part_colour":
        return None
    objs, prog = parts
    found = matching(objs, prog["ref"][-1]["filter"])
    return str(found[0].get("body")) if found else None


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("most common value in the scene", most_common),
    ("relations ignored", ignore_relations),
    ("body colour for any part", body_colour),
]
