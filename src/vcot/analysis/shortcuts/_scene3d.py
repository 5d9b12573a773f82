"""What the scene3d tasks' shortcut heuristics share: the scene graph and the question program of an
instance, and the objects a description matches (read the shallow way, never the trace or the answer)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from itertools import product
from typing import Any

from vcot.analysis.shortcuts import scene
from vcot.schema import Instance
from vcot.tasks.scene3d._scene import layout


def objects_and_program(inst: Instance) -> tuple[list[dict[str, Any]], dict[str, Any]] | None:
    s = scene(inst)
    objs, prog = s.get("objects"), s.get("program")
    if not isinstance(objs, list) or not isinstance(prog, dict) or "family" not in prog:
        return None
    return objs, prog


def matching(objs: list[dict[str, Any]], flt: dict[str, str]) -> list[dict[str, Any]]:
    return [o for o in objs if all(o.get(a) == v for a, v in flt.items())]


# -- reading a question with hops left out ------------------------------------------------------------------
#
# A reader who skips part of a chained reference ("the cube left of the sphere behind the red cylinder" read as
# "the cube left of the sphere", or as "the cube left of the red cylinder") still looks at the picture: the
# relations are read from the objects' places (plain signs, no margins), and where the shorter reference fits
# several objects every one is tried and the answer most of them give is taken. This reading is written apart
# from the generator's "every hop matters" rule (`tasks/scene3d/_task.py`) on purpose: the audit checks that
# rule from outside, so a bug shared by both could not hide a shortcut.

OUTERMOST = "outermost"  # only the last relation: its anchor found by its own description alone
DROP_ONE = "drop one"  # one intermediate object skipped: the next relation taken from the object before it


def _plain_related(objs: list[dict[str, Any]], px: list[float], fwd: list[float], anchor: int, rel: str) -> list[int]:
    out = []
    for k in range(len(objs)):
        if k == anchor:
            continue
        if rel in ("left", "right"):
            d = px[k] - px[anchor]
            yes = d < 0 if rel == "left" else d > 0
        else:
            d = fwd[k] - fwd[anchor]
            yes = d < 0 if rel == "front" else d > 0
        if yes:
            out.append(k)
    return out


def shortened_chains(chain: list[dict[str, Any]], how: str) -> list[list[dict[str, Any]]]:
    """The chains a reader who skips hops reads instead of `chain` (none when it has fewer than two
    relations: then nothing is left to skip that the shallow 'relations ignored' reading does not cover)."""
    if sum(1 for step in chain if step.get("relate")) < 2:
        return []
    if how == OUTERMOST:
        return [[{"relate": None, "filter": chain[-2]["filter"]}, chain[-1]]]
    return [chain[:j] + chain[j + 1 :] for j in range(1, len(chain) - 1)]


def chain_readings(
    objs: list[dict[str, Any]], px: list[float], fwd: list[float], chain: list[dict[str, Any]], as_set: bool
) -> list[tuple[int, ...]]:
    """Every result a reader can reach with `chain`: each object a step's description fits is tried as the
    next anchor; a reference's result is one object, a set's the objects kept."""
    heads: list[int | None] = [None]
    for i, step in enumerate(chain):
        last = i == len(chain) - 1
        nxt: list[int | None] = []
        results: list[tuple[int, ...]] = []
        for anchor in heads:
            among = (
                range(len(objs))
                if anchor is None or not step.get("relate")
                else _plain_related(objs, px, fwd, anchor, step["relate"])
            )
            kept = [k for k in among if all(objs[k].get(a) == v for a, v in step["filter"].items())]
            if last:
                results += [tuple(kept)] if as_set else [(k,) for k in kept]
            else:
                nxt += kept
        if last:
            return list(dict.fromkeys(results))
        heads = list(dict.fromkeys(nxt))
    return []


def skipped_hops_answer(
    inst: Instance, how: str, answer_of: Callable[[dict[str, Any], dict[str, tuple[int, ...]]], str | None]
) -> str | None:
    """The answer most readings give when every chain of two relations or more is read shortened (`how`);
    None when no chain has two relations, or no reading reaches an answer."""
    parts = objects_and_program(inst)
    if parts is None:
        return None
    objs, prog = parts
    s = scene(inst)
    try:
        lay = layout(s)
    except (KeyError, TypeError, ValueError):
        return None
    px, fwd = list(lay.px), list(lay.forward)
    keys = [k for k in ("ref", "set", "a", "b") if isinstance(prog.get(k), list)]
    options: dict[str, list[tuple[int, ...]]] = {}
    shortened = False
    for key in keys:
        as_set = key == "set" or prog["family"] == "compare_count"
        chains = shortened_chains(prog[key], how)
        shortened |= bool(chains)
        options[key] = list(
            dict.fromkeys(r for c in (chains or [prog[key]]) for r in chain_readings(objs, px, fwd, c, as_set))
        )
    if not shortened or not all(options.values()):
        return None
    votes: Counter[str] = Counter()
    for combo in product(*(options[k] for k in keys)):
        answer = answer_of(prog, dict(zip(keys, combo, strict=True)))
        if answer is not None:
            votes[answer] += 1
    return votes.most_common(1)[0][0] if votes else None
