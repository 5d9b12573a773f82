"""Non-solving baselines: can a task be answered without its picture, or by one shallow cue?

`vcot audit SUITE` runs, per task and difficulty, baselines that never solve the problem and never see the
instance's own gold answer, and prints each one's accuracy beside the chance level. A benchmark whose
baseline beats chance by more than `MARGIN` points measures the cue, not the reasoning
(`docs/tasks/README.md`, "Audit").

- `majority answer` (question-only): the most frequent gold answer among the *other* instances of the same
  task, difficulty and question form (leave-one-out), i.e. what a model learns from the question alone.
- `first option` (candidates-only, choice questions): always the first letter.
- single-cue heuristics per task, each reading one surface feature of the scene or the options
  (`vcot.analysis.shortcuts.<task>`). Where a heuristic does not apply to an instance it falls back to the
  chance baseline's guess, so its accuracy is comparable with chance.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from vcot.analysis.shortcuts import Heuristic, heuristics_for
from vcot.analysis.tables import Table
from vcot.engine.chance import chance_answer, chance_level
from vcot.schema import AnswerType, Instance
from vcot.scoring.score import score_fields

MARGIN = 0.20  # points over chance (as a fraction) above which a baseline flags a shortcut

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
        baselines += heuristics_for(task)
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
