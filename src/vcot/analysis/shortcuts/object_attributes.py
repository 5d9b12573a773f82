"""object_attributes shortcuts: answering from what the scene holds overall, ignoring the relations, or from
what the question does not name.

Each reads the scene graph (what the picture shows) and the question program (what the question says) the
shallow way a reader might, never the trace or the answer.
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

_VALUES = {
    "size": ("small", "large"),
    "colour": ("red", "blue", "green", "orange", "purple", "cyan"),
    "material": ("rubber", "metal"),
    "shape": ("cube", "sphere", "cylinder"),
}


def most_common_value(inst: Instance) -> str | None:
    """An attribute question answered with the value most objects of the scene have."""
    parts = objects_and_program(inst)
    if parts is None or not parts[1]["family"].startswith("query_"):
        return None
    objs, prog = parts
    counts = Counter(o.get(prog["attr"]) for o in objs)
    return max(_VALUES.get(prog["attr"], ()), key=lambda v: counts[v], default=None)


def answer_of(prog: dict[str, Any], picked: dict[str, tuple[int, ...]], objs: list[dict[str, Any]]) -> str | None:
    """The answer of the program's family once each chain's result is `picked` (a reference: one object)."""
    fam = prog["family"]
    if fam.startswith("query_"):
        return str(objs[picked["ref"][0]].get(prog["attr"]))
    if fam == "count":
        return str(len(picked["set"]))
    if fam == "exist":
        return "yes" if picked["set"] else "no"
    if fam == "compare_count":
        return "yes" if len(picked["a"]) > len(picked["b"]) else "no"
    if fam == "same_attribute":
        return "yes" if objs[picked["a"][0]].get(prog["attr"]) == objs[picked["b"][0]].get(prog["attr"]) else "no"
    return None


def ignore_relations(inst: Instance) -> str | None:
    """Every chain's last description applied to all objects, the relations skipped (questions without a
    relation do not apply: there this would be the solution itself); a reference takes the first object it fits."""
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
        as_set = key == "set" or prog["family"] == "compare_count"
        if not as_set and not found:
            return None
        picked[key] = found if as_set else found[:1]
    return answer_of(prog, picked, objs)


def outermost_relation(inst: Instance) -> str | None:
    """Hard questions read with only their outermost relation ("the cube left of the sphere behind the red
    cylinder" as "the cube left of the sphere"), the majority answer over the objects that fits."""
    objs = (objects_and_program(inst) or ([], {}))[0]
    return skipped_hops_answer(inst, OUTERMOST, lambda prog, picked: answer_of(prog, picked, objs))


def drop_one_hop(inst: Instance) -> str | None:
    """Hard questions read with one intermediate object skipped ("the cube left of the red cylinder"), the
    majority answer over every such reading."""
    objs = (objects_and_program(inst) or ([], {}))[0]
    return skipped_hops_answer(inst, DROP_ONE, lambda prog, picked: answer_of(prog, picked, objs))


def not_named(inst: Instance) -> str | None:
    """An attribute question answered with the first value the question does not name; yes for the rest."""
    parts = objects_and_program(inst)
    if parts is None:
        return None
    _, prog = parts
    fam = prog["family"]
    if fam == "count":
        return None
    if not fam.startswith("query_"):
        return "yes"
    named = {v for key in ("ref",) for step in prog.get(key, []) for v in step.get("filter", {}).values()}
    return next((v for v in _VALUES.get(prog["attr"], ()) if v not in named), None)


HEURISTICS: list[tuple[str, Heuristic]] = [
    ("most common value in the scene", most_common_value),
    ("relations ignored", ignore_relations),
    ("only the outermost relation", outermost_relation),
    ("drop one hop", drop_one_hop),
    ("first value the question does not name", not_named),
]
