"""Probes of the scene3d tasks: the program's steps are its states (`solution.states`: a filter keeps the
objects matching it, a relation keeps the objects on one side of its anchor). Each filter or relation step is
asked as a count that names the objects by the same phrase the question builds ("How many large objects are to
the left of the cyan object?"); the steps after the last selection (the comparison, the isolated parts) are
the instance's own question."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from vcot.probes.base import Probe, final_probe, meta
from vcot.schema import AnswerType, Instance

Say = Callable[[dict[str, str], bool], str]


def build(inst: Instance, say: Say, thing: str) -> list[Probe]:
    from vcot.tasks.scene3d._scene import REL_PHRASE, ref_phrase, set_phrase

    _, states, _ = meta(inst)
    chain: list[dict[str, Any]] = []
    pending: str | None = None
    out: list[Probe] = []
    for k in range(1, len(inst.steps) + 1):
        st = states[k - 1] if k - 1 < len(states) else {}
        op = st.get("op")
        if op == "filter":
            if st.get("anchor") is None or pending is None:
                chain = [{"relate": None, "filter": st["filter"]}]
            else:
                chain = [*chain, {"relate": pending, "filter": st["filter"]}]
            pending = None
            q = f"How many {set_phrase(chain, say)} are there in the picture?"
        elif op == "relate" and chain:
            pending = st["rel"]
            q = f"How many {thing} are {REL_PHRASE[st['rel']]} {ref_phrase(chain, say)}?"
        else:
            out.append(final_probe(inst, k))
            continue
        out.append(
            Probe(k, q + " Answer with a single integer.", str(len(st["kept"])), AnswerType.INTEGER, f"{op}_count")
        )
    return out
