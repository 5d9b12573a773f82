"""Non-solving baselines: can a task be answered without its picture, or by one shallow cue?

`vcot audit SUITE` runs, per task and difficulty, baselines that never solve the problem and never see the
instance's own gold answer, and prints each one's accuracy beside the chance level. A benchmark whose
baseline beats chance by more than `MARGIN` points measures the cue, not the reasoning
(`docs/tasks/README.md`, "Audit").

- `majority answer` (question-only): the most frequent gold answer among the *other* instances of the same
  task, difficulty and question form (leave-one-out), i.e. what a model learns from the question alone.
- `first option` (candidates-only, choice questions): always the first letter.
- single-cue heuristics per task, each reading one surface feature of the scene (`HEURISTICS`). Where a
  heuristic does not apply to an instance it falls back to the chance baseline's guess, so its accuracy is
  comparable with chance.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from vcot.analysis.tables import Table
from vcot.engine.chance import chance_answer, chance_level
from vcot.schema import AnswerType, Instance
from vcot.scoring.score import score_fields

MARGIN = 0.20  # points over chance (as a fraction) above which a baseline flags a shortcut

Heuristic = Callable[[Instance], str | None]
_COMPASS = ("east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east")


def _sector(dx: float, dy: float) -> str:
    """The compass sector of a vector with y pointing north."""
    return _COMPASS[round(math.degrees(math.atan2(dy, dx)) / 45.0) % 8]


def strongest_force_direction(inst: Instance) -> str | None:
    """electric_charge: the direction of the single strongest Coulomb force on the target, ignoring the rest."""
    scene = inst.meta.get("scene", {})
    target, sources = scene.get("target"), scene.get("sources")
    if not target or not sources:
        return None
    tx, ty = target["pos"]
    best = None
    for s in sources:
        dx, dy = tx - s["pos"][0], ty - s["pos"][1]
        r2 = dx * dx + dy * dy
        if not r2:
            continue
        mag = s["q"] * target["q"] / r2  # > 0: repulsion (away from the source)
        if best is None or abs(mag) > abs(best[0]):
            best = (mag, dx, dy)
    if best is None:
        return None
    mag, dx, dy = best
    sector = _sector(dx if mag > 0 else -dx, dy if mag > 0 else -dy)
    return sector.replace("-", "") if "-" not in inst.answer else sector


def same_shaft_as_driver(inst: Instance) -> str | None:
    """gear_rotation: a wheel on the driver's own shaft turns as the driver does (the stated direction)."""
    scene = inst.meta.get("scene", {})
    target, driver = scene.get("target"), scene.get("driver")
    for link in scene.get("links", []):
        if link.get("type") == "shaft" and {link.get("a"), link.get("b")} == {target, driver}:
            return scene.get("driver_dir")
    return None


def largest_smaller_shape(inst: Instance) -> str | None:
    """overlap: the pair whose smaller shape has the largest area (the overlap can be no larger than it)."""
    from shapely.geometry import Polygon

    pairs = inst.meta.get("scene", {}).get("pairs")
    letters = inst.meta.get("scene", {}).get("options")
    if not pairs or not letters:
        return None
    smaller = [min(Polygon(p["vertices"]).area for p in pair) for pair in pairs]
    return letters[max(range(len(smaller)), key=smaller.__getitem__)]


HEURISTICS: dict[str, list[tuple[str, Heuristic]]] = {
    "electric_charge": [("strongest single force", strongest_force_direction)],
    "gear_rotation": [("same shaft as the driver", same_shaft_as_driver)],
    "overlap": [("largest smaller shape", largest_smaller_shape)],
}


def _difficulty(inst: Instance) -> str:
    gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
    return str(gen.get("difficulty", "?")) if isinstance(gen, dict) else "?"


def _form(inst: Instance) -> str:
    """The question's form: its text with numbers and letters of the particular scene left in, but only the
    first sentence kept — instances of one form share it."""
    return inst.question.split(".")[0][:120]


def _right(inst: Instance, answer: str | None) -> bool:
    if answer is None:
        return False
    return bool(score_fields(f"<answer>{answer}</answer>", inst.answer, inst.answer_type, inst.options).correct)


def audit_instances(instances: Sequence[Instance]) -> Table:
    groups: dict[tuple[str, str], list[Instance]] = {}
    for inst in instances:
        groups.setdefault((inst.task, _difficulty(inst)), []).append(inst)
    t = Table("Audit: non-solving baselines against chance (accuracy %)",
              ["task", "difficulty", "n", "baseline", "accuracy %", "chance %", "over chance (pts)", "shortcut?"],
              note=f"A baseline more than {100 * MARGIN:.0f} points over chance is flagged: the task can be "
                   "answered without solving it. Majority answer: leave-one-out over the same task, difficulty "
                   "and question form. Heuristics fall back to the chance baseline where they do not apply.")
    for (task, diff), insts in sorted(groups.items()):
        chance = sum(chance_level(i) for i in insts) / len(insts)
        by_form: dict[str, Counter[str]] = {}
        for i in insts:
            by_form.setdefault(_form(i), Counter())[i.answer] += 1

        def majority(i: Instance, counts: dict[str, Counter[str]] = by_form) -> str | None:
            c = counts[_form(i)].copy()
            c[i.answer] -= 1  # leave this instance out: the baseline never sees its own gold
            best = [a for a, k in c.most_common() if k > 0]
            return best[0] if best else None

        baselines: list[tuple[str, Heuristic]] = [("majority answer", majority)]
        if insts[0].answer_type == AnswerType.CHOICE:
            baselines.append(("first option", lambda i: "A"))
        baselines += HEURISTICS.get(task, [])
        for name, fn in baselines:
            right = 0
            for i in insts:
                guess = fn(i)
                right += _right(i, guess if guess is not None else chance_answer(i, "audit", 0))
            acc = right / len(insts)
            over = 100 * (acc - chance)
            t.rows.append([task, diff, len(insts), name, f"{100 * acc:.1f}", f"{100 * chance:.1f}", f"{over:+.1f}",
                           "YES" if acc > chance + MARGIN else ""])
    return t


def audit_suite(suite: Any) -> Table:
    return audit_instances(suite.instances)
