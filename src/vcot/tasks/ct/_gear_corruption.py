"""The corrupted trajectory of gear_rotation: the true propagation run on a misread system.

A corrupted step must state a wrong state the way a right step states a right one (docs/tasks/README.md, "Steps
are states"): every sentence still obeys the question's rules (a mesh or crossed belt reverses, an open belt or
shaft keeps), and what is wrong is the system the propagation reads — one misperceived connection:

- a belt read as the other kind (open for crossed, or crossed for open): the picture redraws it so;
- a jammed system's contradicting link overlooked (two wheels taken as not touching, or a belt not seen), so the
  wheels appear to turn;
- two close wheels taken as meshing although a gap separates their teeth, which reverses a wheel or closes a
  contradicting loop.

The misread must change the asked wheel's answer. Reading the system never rejects a scene: gear_rotation's
problem RNG ignores retries (`GearRotationTask.max_attempts`), so `misread_system` always finds a misreading.
"""

from __future__ import annotations

import copy
import random
from typing import Any

from vcot.tasks.base import Reject
from vcot.tasks.ct._gear_geometry import TOOTH, belt_path, centre_of, dist, shaft_family
from vcot.tasks.ct._gear_propagation import gear_answer, propagate

SWAP = {"open_belt": "crossed_belt", "crossed_belt": "open_belt"}
NEAREST_PAIRS = 3  # a false mesh is drawn between one of the closest unlinked pairs, where a misread is likely


def _with_links(scene: dict[str, Any], links: list[dict[str, Any]]) -> dict[str, Any]:
    wrong = copy.deepcopy(scene)
    wrong["links"] = links
    return wrong


def _belt_swaps(scene: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    out = []
    for k, link in enumerate(scene["links"]):
        if link["type"] not in SWAP:
            continue
        links = copy.deepcopy(scene["links"])
        links[k]["type"] = SWAP[link["type"]]
        wrong = _with_links(scene, links)
        try:
            belt_path(wrong, links[k])  # a crossed belt needs room for its tangents
        except Reject:
            continue
        a, b = (scene["gears"][link[e]]["label"] for e in ("a", "b"))
        out.append((wrong, f"the belt between {a} and {b} read as {SWAP[link['type']].replace('_', ' ')}"))
    return out


def _overlooked_conflicts(scene: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    """Drop the contradicting link until none is left: it is never one the BFS tree uses, so every wheel the
    true propagation reached is still reached."""
    wrong, dropped = scene, []
    for _ in range(len(scene["links"])):
        conflict = propagate(wrong)["conflict"]
        if conflict is None:
            break
        link = wrong["links"][conflict["link"]]
        dropped.append("-".join(sorted(wrong["gears"][link[e]]["label"] for e in ("a", "b"))))
        wrong = _with_links(wrong, [lk for k, lk in enumerate(wrong["links"]) if k != conflict["link"]])
    if not dropped:
        return []
    return [(wrong, f"the contradicting link{'s' if len(dropped) > 1 else ''} {', '.join(dropped)} overlooked")]


def _false_meshes(scene: dict[str, Any]) -> list[tuple[dict[str, Any], str]]:
    gears = scene["gears"]
    linked = {frozenset((lk["a"], lk["b"])) for lk in scene["links"]}
    outer = [i for i, g in enumerate(gears) if g.get("host") is None]
    pairs = []
    for x, i in enumerate(outer):
        for j in outer[x + 1 :]:
            if frozenset((i, j)) in linked or j in shaft_family(scene, i):
                continue
            gap = dist(centre_of(gears[i]), centre_of(gears[j])) - gears[i]["r"] - gears[j]["r"] - 2 * TOOTH
            pairs.append((gap, i, j))
    out = []
    for _, i, j in sorted(pairs):
        wrong = _with_links(scene, [*copy.deepcopy(scene["links"]), {"a": i, "b": j, "type": "mesh"}])
        out.append((wrong, f"gears {gears[i]['label']} and {gears[j]['label']} taken as meshing"))
    return out


def misread_system(scene: dict[str, Any], rng: random.Random) -> tuple[dict[str, Any], str]:
    """A misread copy of `scene` whose answer for the asked wheel differs, and what was misread."""
    truth = gear_answer(scene, propagate(scene), scene["target"])

    def changes(cand: tuple[dict[str, Any], str]) -> bool:
        return gear_answer(cand[0], propagate(cand[0]), scene["target"]) != truth

    plausible = [c for c in _belt_swaps(scene) + _overlooked_conflicts(scene) if changes(c)]
    if not plausible:
        plausible = [c for c in _false_meshes(scene) if changes(c)][:NEAREST_PAIRS]
    if not plausible:
        # Every wheel turns with A's own parity only in a system of fewer than three outer wheels, which the
        # layout never builds (at least 4 wheels): stated so that a future layout fails loudly here.
        raise ValueError("gear_rotation: no misreading of this system changes the answer")
    return rng.choice(plausible)
