"""compositional_3d shortcuts: answering from what the scene holds overall, ignoring the relations, or reading
the wrong part.

Each reads the scene graph (what the picture shows) and the question program the shallow way a reader might,
never the trace or the answer.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from vcot.analysis.shortcuts import Heuristic
from vcot.analysis.shortcuts._scene3d import (
    DROP_ONE,
    OUTERMOST,
    matching,
    objects_and_program,
    skipped_hops_answer,
)
from vcot.schema import Instance
from vcot.tasks.scene3d import _vehicles  # noqa: F401  (registers the vehicle scene kind the layout reads)

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


def answer_of(prog: dict[str, Any], picked: dict[str, tuple[int, ...]], objs: list[dict[str, Any]]) -> str | None:
    """The answer of the program's family once each chain's result is `picked` (a reference: one vehicle)."""
    fam = prog["family"]
    if fam == "count":
        return str(len(picked["set"]))
    if fam == "exist":
        return "yes" if picked["set"] else "no"
    if fam == "same_part_colour":
        a, b = objs[picked["a"][0]], objs[picked["b"][0]]
        return "yes" if a.get(prog["part_a"]) == b.get(prog["part_b"]) else "no"
    k = picked["ref"][0]
    if fam == "query_part_colour":
        return str(objs[k].get(prog["part"]))
    if fam == "query_type":
        return str(objs[k].get("type"))
    colour = objs[k].get(prog["ref_part"])
    return str(sum(1 for j, o in enumerate(objs) if j != k and o.get(prog["part"]) == colour))


def ignore_relations(inst: Instance) -> str | None:
    """Every chain's last description applied to all vehicles, the relations skipped (only questions with a
    relation: without one this is the solution itself); a reference takes the first vehicle it fits."""
    parts = objects_and_program(inst)
    if parts is None:
        return None
    objs, prog = parts
    keys = [k for k in ("ref", "set", "a", "b") if k in prog]
    if not any(step.get("relate") for k in keys for step in prog[k]):
        return None
    picked = {}
    for key in keys:
        found = tuple(k for k, o in enumerate(objs) if matching([o], prog[key][-1]["filter"]))
        if key != "set" and not found:
            return None
        picked[key] = found if key == "set" else found[:1]
    return answer_of(prog, picked, objs)


def outermost_relation(inst: Instance) -> str | None:
    """Hard questions read with only their outermost relation, the majority answer over the vehicles that
    fits (as for object_attributes)."""
    objs = (objects_and_program(inst) or ([], {}))[0]
    return skipped_hops_answer(inst, OUTERMOST, lambda prog, picked: answer_of(prog, picked, objs))


def drop_one_hop(inst: Instance) -> str | None:
    """Hard questions read with one intermediate vehicle skipped, the majority answer over every such reading."""
    objs = (objects_and_program(inst) or ([], {}))[0]
    return skipped_hops_answer(inst, DROP_ONE, lambda prog, picked: answer_of(prog, picked, objs))


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
    ("only the outermost relation", outermost_relation),
    ("drop one hop", drop_one_hop),
    ("body colour for any part", body_colour),
]
