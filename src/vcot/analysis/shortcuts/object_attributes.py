"""object_attributes shortcuts: answering from what the scene holds overall, ignoring the relations, or from
what the question does not name.

Each reads the scene graph (what the picture shows) and the question program (what the question says) the
shallow way a reader might, never the trace or the answer.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from vcot.analysis.shortcuts import Heuristic
from vcot.analysis.shortcuts._scene3d import matching, objects_and_program
from vcot.schema import Instance

_VALUES = {"size": ("small", "large"), "colour": ("red", "blue", "green", "orange", "purple", "cyan"),
           "material": ("rubber", "metal"), "shape": ("cube", "sphere", "cylinder")}


def most_common_value(inst: Instance) -> str | None:
    """An attribute question answered with the value most objects of the scene have."""
    parts = objects_and_program(inst)
    if parts is None or not parts[1]["family"].startswith("query_"):
        return None
    objs, prog = parts
    counts = Counter(o.get(prog["attr"]) for o in objs)
    return max(_VALUES.get(prog["attr"], ()), key=lambda v: counts[v], default=None)


def ignore_relations(inst: Instance) -> str | None:
    """Every chain's last description applied to all objects, the relations skipped (questions without a
    relation do not apply: there this would be the solution itself)."""
    parts = objects_and_program(inst)
    if parts is None:
        return None
    objs, prog = parts
    fam = prog["family"]
    chains = [prog[k] for k in ("ref", "set", "a", "b") if k in prog]
    if not any(step.get("relate") for chain in chains for step in chain):
        return None

    def last(key: str) -> list[dict[str, Any]]:
        return matching(objs, prog[key][-1]["filter"])

    if fam.startswith("query_"):
        found = last("ref")
        return str(found[0].get(prog["attr"])) if found else None
    if fam == "count":
        return str(len(last("set")))
    if fam == "exist":
        return "yes" if last("set") else "no"
    if fam == "compare_count":
        return "yes" if len(last("a")) > len(last("b")) else "no"
    if fam == "same_attribute":
        a, b = last("a"), last("b")
        if not a or not b:
            return None
        return "yes" if a[0].get(prog["attr"]) == b[0].get(prog["attr"]) else "no"
    return None


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
    ("first value the question does not name", not_named),
]
