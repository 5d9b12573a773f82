"""Corrupted steps of the 3D scene tasks state their wrong state as a right one would (issue 45).

A corrupted trajectory carries a wrong state, but every step of it is written with the true trajectory's text
templates (the same kind of step at each position, the same descriptions) and states no rule its own picture
breaks: a relation step says which objects stand left or right of (above or below) the dashed line it draws
through an anchor, and the objects it names do stand there in the picture, every other one on the other side; a
filter step looks among exactly the objects the relation before it kept, its arrows start at the object the
reference before it boxed, and it boxes only objects in view. The one thing a corrupted step may get wrong is
what the error is: which objects fit a description (a misread) or which way a relation is taken (a flip).

Positions are read from the buffers-only render the pictures are drawn from (each object's projected centre and
the floor point under it), not from the solver's layout. Every way each task corrupts is forced on a few
generated scenes of every difficulty, alongside the corruption the task itself picks.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from typing import Any

import pytest

from vcot.tasks import get_task
from vcot.tasks.scene3d._scene import labels, layout, render_of

L = r"[A-N](?:, [A-N])*(?: and [A-N])?"
SIDES = {
    "left of the dashed line through": "left",
    "right of the dashed line through": "right",
    "below the dashed line through the foot of (nearer the camera than)": "front",
    "above the dashed line through the foot of (farther from the camera than)": "behind",
}
RELS = {"to the left of": "left", "to the right of": "right", "in front of": "front", "behind": "behind"}
PART = r"(?:body|cabin|wheels)"
TEMPLATES: list[tuple[str, re.Pattern[str]]] = [
    (
        "relate",
        re.compile(
            rf"^Objects (?P<rel>{'|'.join(map(re.escape, RELS))}) (?P<a>[A-N]): those "
            rf"(?P<side>{'|'.join(map(re.escape, SIDES))}) (?P=a) stay in colour \((?P<kept>none|{L})\); "
            r"the others are greyed out\.$"
        ),
    ),
    (
        "filter",
        re.compile(
            rf"^The (?P<what>.+) among (?P<among>all objects|{L}): none, so nothing is boxed; "
            r"the others are greyed out\.$"
        ),
    ),
    (
        "filter",
        re.compile(
            rf"^The (?P<what>.+) among (?P<among>all objects|{L}): boxed (?P<kept>{L})"
            r"(?:, each with an arrow from (?P<a>[A-N]))?; the others are greyed out\.$"
        ),
    ),
    (
        "pair",
        re.compile(
            rf"^The two objects whose (?P<what>\w+) the question compares: boxed (?P<kept>{L}); "
            r"the others are greyed out\.$"
        ),
    ),
    (
        "part",
        re.compile(
            rf"^Isolated: (?P<items>the {PART} of [A-N](?: and the {PART} of [A-N])?), in colour; "
            r"every other part of every vehicle is greyed out\.$"
        ),
    ),
    (
        "match",
        re.compile(
            rf"^Vehicles other than (?P<a>[A-N]) whose (?P<what>{PART} match(?:es)? the colour of the {PART}) of "
            rf"(?P=a): none, so nothing is boxed; only the {PART} of (?P=a) stays? in colour\.$"
        ),
    ),
    (
        "match",
        re.compile(
            rf"^Vehicles other than (?P<a>[A-N]) whose (?P<what>{PART} match(?:es)? the colour of the {PART}) of "
            rf"(?P=a): boxed (?P<kept>{L}), each with an arrow from (?P=a); only those parts stay in colour\.$"
        ),
    ),
]


def letters(text: str | None) -> list[str]:
    return [] if not text or text in ("none", "all objects") else re.findall(r"[A-N]", text)


def parse(text: str) -> tuple[str, dict[str, str | None]]:
    """The template a step text is written with: its kind and its slots. Fails on a text of no template."""
    found = [(kind, m.groupdict()) for kind, pattern in TEMPLATES if (m := pattern.match(text))]
    assert len(found) == 1, f"no single template fits {text!r}"
    return found[0]


def _picture_positions(scene: dict[str, Any]) -> dict[str, tuple[float, float]]:
    """Per letter: (x of the object's projected centre, y of the floor point under it) in the step pictures."""
    res = render_of(scene)
    names = labels(scene, layout(scene))
    return {names[k]: (res.objects[k].centre[0], res.objects[k].foot[1]) for k in range(len(names))}


def _beyond(pos: dict[str, tuple[float, float]], anchor: str, rel: str) -> set[str]:
    ax, ay = pos[anchor]
    side = {
        "left": lambda x, y: x < ax,
        "right": lambda x, y: x > ax,
        "front": lambda x, y: y > ay,
        "behind": lambda x, y: y < ay,
    }[rel]
    return {k for k, (x, y) in pos.items() if k != anchor and side(x, y)}


def check_honest(scene: dict[str, Any], texts: list[str]) -> list[str]:
    """Every step text states what its own picture shows and follows from the step before; the kinds of the
    steps, in order."""
    pos = _picture_positions(scene)
    kinds = []
    last_relate: dict[str, Any] | None = None
    boxed_refs: set[str] = set()
    prev_boxed: list[str] = []
    prev_parts: list[str] = []
    for text in texts:
        kind, slot = parse(text)
        kinds.append(kind)
        if kind == "relate":
            a, rel = slot["a"], RELS[slot["rel"] or ""]
            assert SIDES[slot["side"] or ""] == rel, text
            assert prev_boxed == [a], (text, prev_boxed)  # a relation is read from the one object just boxed
            kept = set(letters(slot["kept"]))
            # The stated rule holds in the picture: the kept objects stand on the named side of the line, the
            # greyed ones on the other.
            assert kept == _beyond(pos, a, rel), (text, {k: pos[k] for k in sorted(pos)})
            last_relate = {"a": a, "kept": sorted(kept)}
        elif kind == "filter":
            among, kept = letters(slot["among"]), letters(slot.get("kept"))
            if slot["among"] == "all objects":
                assert slot.get("a") is None, text
            else:
                assert last_relate is not None and among == last_relate["kept"], (text, last_relate)
                if kept:
                    assert slot["a"] == last_relate["a"], (text, last_relate)
                last_relate = None
                assert set(kept) <= set(among), text
            boxed_refs |= set(kept)
            prev_boxed = kept
        elif kind == "part":
            prev_parts = letters(slot["items"])
            assert set(prev_parts) <= boxed_refs, (text, boxed_refs)  # a part of a vehicle a reference found
        elif kind == "match":
            assert prev_parts == [slot["a"]], (text, prev_parts)
            assert slot["a"] not in letters(slot.get("kept")), text
        else:
            assert len(letters(slot["kept"])) == 2, text
    return kinds


def check_templates(right: list[str], wrong: list[str]) -> None:
    """The corrupted texts use the true trajectory's templates: the same kind of step at each position, and
    the same description where the step filters or matches."""
    assert len(wrong) == len(right)
    for r, w in zip(right, wrong, strict=True):
        (kr, sr), (kw, sw) = parse(r), parse(w)
        assert kr == kw, (r, w)
        if kr in ("filter", "match", "pair"):
            assert sr["what"] == sw["what"], (r, w)


CASES = {"object_attributes": 3, "compositional_3d": 3}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_corrupted_step_states_what_its_picture_shows(name: str) -> None:
    ways: Counter[str] = Counter()
    for difficulty in ("easy", "medium", "hard"):
        task = get_task(name, difficulty)
        for index in range(CASES[name]):
            scene, solution = task.solved_scene(index, 45)
            lay = layout(scene)
            names = labels(scene, lay)
            right = [text for _, text in task.steps(scene, solution.states)]
            check_honest(scene, right)
            rng = random.Random(index)
            tries = {
                "chosen": task.corrupt(scene, solution, rng),
                "flip": task.flipped_relation(scene, lay, solution.states, names, rng, always=True),
                "mark": task._wrong_mark(scene, solution.states, names, rng),
                "misread": task.misread_reference(scene, lay, solution.states, names, rng),
            }
            for way, corruption in tries.items():
                if corruption is None:
                    continue
                wrong = [text for _, text in corruption.steps]
                assert wrong != right, (way, corruption.description)
                check_templates(right, wrong)
                check_honest(scene, wrong)
                ways[way] += 1
    # Every way of corrupting was exercised, so none can slip past this test unchecked.
    assert set(ways) == {"chosen", "flip", "mark", "misread"}, ways


def test_a_relation_step_that_keeps_an_object_on_the_wrong_side_fails() -> None:
    # The fault issue 45 reports: "right of the dashed line" naming an object far to the left of it.
    task = get_task("object_attributes", "medium")
    scene, solution = task.solved_scene(0, 45)
    names = labels(scene, layout(scene))
    right = [text for _, text in task.steps(scene, solution.states)]
    idx = next(i for i, s in enumerate(solution.states) if s["op"] == "relate")
    state = solution.states[idx]
    outside = [k for k in range(len(names)) if k not in state["kept"] and k != state["anchor"]]
    assert outside
    bad = {**state, "kept": sorted([*state["kept"], outside[0]])}
    wrong = [text for _, text in task.steps(scene, [*solution.states[:idx], bad])]
    check_honest(scene, right[: idx + 1])
    with pytest.raises(AssertionError):
        check_honest(scene, wrong)


def test_a_step_in_another_template_fails() -> None:
    right = ["The red cubes among all objects: boxed B; the others are greyed out."]
    with pytest.raises(AssertionError):
        check_templates(right, ["The blue cubes among all objects: boxed C; the others are greyed out."])
    with pytest.raises(AssertionError):
        parse("Objects right of B: C is to the right; the others are greyed out.")
