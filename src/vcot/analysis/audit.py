"""Non-solving baselines: can a task be answered without its picture, or by one shallow cue?

`vcot audit SUITE` runs, per task and difficulty, baselines that never solve the problem and never see the
instance's own gold answer, and prints each one's accuracy beside the chance level. A benchmark whose
baseline is shown to beat chance by more than `MARGIN` points measures the cue, not the reasoning
(`docs/tasks/README.md`, "Audit").

- `majority answer` (question-only): the most frequent gold answer among the *other* problems of the same
  task, difficulty and question form (the instance and the other rows of its paired problem left out),
  i.e. what a model learns from the question alone.
- `first option` (candidates-only, choice questions): always the first letter.
- single-cue heuristics per task, each reading one surface feature of the scene or the options
  (`vcot.analysis.shortcuts.<task>`). Where a heuristic does not apply to an instance it falls back to the
  chance baseline's guess, so its accuracy is comparable with chance.

"Shown" is a one-sided exact binomial test (`Verdict`): with a few items per cell one lucky hit is tens of
points over chance, so the point estimate alone flags noise.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from vcot.analysis.shortcuts import Heuristic, heuristics_for
from vcot.analysis.tables import Table
from vcot.engine.chance import chance_answer, chance_level
from vcot.schema import AnswerType, Instance
from vcot.scoring.score import score_fields

MARGIN = 0.20  # points over chance (as a fraction) a baseline must be shown to exceed to flag a shortcut
ALPHA = 0.05  # one-sided significance level of that test
FLAG = "YES"
TOO_FEW = "too few items"
UNTESTABLE = "chance ≥ 80%"  # chance + MARGIN reaches 100%: no accuracy can exceed it


def binomial_tail(k: int, n: int, p: float) -> float:
    """P(X >= k) for X ~ Binomial(n, p), the exact one-sided p-value of k successes in n trials.

    Summed in log space rather than through scipy.stats, whose import alone takes longer than the audit,
    and so that large n neither overflows the coefficients nor underflows the powers."""
    if k <= 0 or p >= 1.0:
        return 1.0
    if k > n or p <= 0.0:
        return 0.0
    logs = [
        math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * math.log(p) + (n - i) * math.log1p(-p)
        for i in range(k, n + 1)
    ]
    top = max(logs)
    return min(1.0, math.exp(top) * math.fsum(math.exp(v - top) for v in logs))


@dataclass(frozen=True, slots=True)
class Verdict:
    """One baseline on one task and difficulty, tested against chance + MARGIN.

    The null hypothesis is "accuracy <= chance + MARGIN" with chance the cell's *mean* chance level: it
    varies per instance (answer spaces differ), and where the test can flag (well above the mean) a
    binomial at the mean probability has a tail at least as heavy as unequal trials with that mean, so
    testing at the mean errs towards not flagging."""

    task: str
    difficulty: str
    baseline: str
    n: int
    right: int
    chance: float

    @property
    def accuracy(self) -> float:
        return self.right / self.n

    @property
    def null(self) -> float:
        return min(1.0, self.chance + MARGIN)

    @property
    def p_value(self) -> float:
        return binomial_tail(self.right, self.n, self.null)

    @property
    def testable(self) -> bool:
        """Whether the cell could show a shortcut at all: every item right would be significant."""
        return binomial_tail(self.n, self.n, self.null) <= ALPHA

    @property
    def shortcut(self) -> bool:
        return self.testable and self.p_value <= ALPHA

    @property
    def label(self) -> str:
        if self.null >= 1.0:
            return UNTESTABLE
        if not self.testable:
            return TOO_FEW
        return FLAG if self.shortcut else ""


def _difficulty(inst: Instance) -> str:
    gen = inst.meta.get("generator") if isinstance(inst.meta, dict) else None
    return str(gen.get("difficulty", "?")) if isinstance(gen, dict) else "?"


def _form(inst: Instance) -> str:
    """The question's form: its text with numbers and letters of the particular scene left in, but only the
    first sentence kept — instances of one form share it."""
    return inst.question.split(".")[0][:120]


def _problem(inst: Instance) -> str:
    """The problem an instance is a row of: its pair id for MIRA's paired rows, else its own uid."""
    pair = inst.meta.get("pair_id") if isinstance(inst.meta, dict) else None
    return f"pair:{pair}" if pair is not None else f"uid:{inst.uid}"


def _right(inst: Instance, answer: str | None) -> bool:
    if answer is None:
        return False
    return bool(score_fields(f"<answer>{answer}</answer>", inst.answer, inst.answer_type, inst.options).correct)


def audit_verdicts(instances: Sequence[Instance]) -> list[Verdict]:
    groups: dict[tuple[str, str], list[Instance]] = {}
    for inst in instances:
        groups.setdefault((inst.task, _difficulty(inst)), []).append(inst)
    out: list[Verdict] = []
    for (task, diff), insts in sorted(groups.items()):
        chance = sum(chance_level(i) for i in insts) / len(insts)
        by_form: dict[str, Counter[str]] = {}
        for i in insts:
            by_form.setdefault(_form(i), Counter())[i.answer] += 1

        problems: dict[str, list[Instance]] = {}
        for i in insts:
            problems.setdefault(_problem(i), []).append(i)

        def majority(
            i: Instance, counts: dict[str, Counter[str]] = by_form, problems: dict[str, list[Instance]] = problems
        ) -> str | None:
            c = counts[_form(i)].copy()
            # Leave this instance's whole problem out: the baseline never sees its own gold, nor that of the
            # other rows of its problem (gear_rotation's .1 and .2 ask about one scene and often agree).
            for row in problems[_problem(i)]:
                if _form(row) == _form(i):
                    c[row.answer] -= 1
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
            out.append(Verdict(task, diff, name, len(insts), right, chance))
    return out


def _p_text(p: float) -> str:
    if p < 0.001:
        return "<0.001"
    return ">0.999" if 0.999 < p < 1.0 else f"{p:.3f}"  # "1.000" only where p is 1


def audit_table(verdicts: Sequence[Verdict]) -> Table:
    m, a = f"{100 * MARGIN:.0f}", f"{ALPHA:g}"
    t = Table(
        "Audit: non-solving baselines against chance (accuracy %)",
        [
            "task",
            "difficulty",
            "n",
            "baseline",
            "right",
            "accuracy %",
            "chance %",
            "over chance (pts)",
            "p",
            "shortcut?",
        ],
        note=f"A baseline is flagged ({FLAG}) only when the evidence shows it more than {m} points over "
        f"chance: p is the exact one-sided binomial test of `right` of n against an accuracy of "
        f"chance + {m} points, with chance the cell's mean chance level (it varies per instance), "
        f'and p ≤ {a} flags. "{TOO_FEW}": even n of n right would not reach p ≤ {a}, so the cell '
        f"gives no verdict; a blank is a cell whose baseline is not shown to be a shortcut. "
        "Majority answer: leave-one-problem-out over the same task, difficulty and question form. "
        "Heuristics fall back to the chance baseline where they do not apply.",
    )
    if any(v.label == UNTESTABLE for v in verdicts):
        t.note += f' "{UNTESTABLE}": chance + {m} points is 100%, which no accuracy can exceed.'
    for v in verdicts:
        t.rows.append(
            [
                v.task,
                v.difficulty,
                v.n,
                v.baseline,
                v.right,
                f"{100 * v.accuracy:.1f}",
                f"{100 * v.chance:.1f}",
                f"{100 * (v.accuracy - v.chance):+.1f}",
                _p_text(v.p_value),
                v.label,
            ]
        )
    return t


def audit_rich(t: Table):  # -> rich.table.Table, imported lazily so analysis works without a terminal
    """The audit table for a terminal: one section per task and difficulty, headed by them and n, so the
    baseline names keep the width (the flat table folds every column on 100 columns). The values are the
    Table's own cells."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table as RichTable

    rt = RichTable(title=escape(t.title), box=box.SIMPLE_HEAD, pad_edge=False)
    rt.add_column(escape(t.header[3]), ratio=1)
    # Headers stacked a word a line: the numbers are narrow, and a one-line header would take the width.
    for h in t.header[4:-1]:
        rt.add_column(escape(h).replace(" ", "\n"), justify="right", no_wrap=True)
    rt.add_column(escape(t.header[-1]), min_width=len(t.header[-1]))
    last: tuple[Any, ...] | None = None
    for row in t.rows:
        if tuple(row[:3]) != last:
            last = tuple(row[:3])
            rt.add_row(f"[bold]{escape(str(row[0]))}[/] · {escape(str(row[1]))} · n = {row[2]}")
        rt.add_row(*[escape(str(v)) for v in row[3:]])
    return rt


def audit_instances(instances: Sequence[Instance]) -> Table:
    return audit_table(audit_verdicts(instances))


def audit_suite(suite: Any) -> Table:
    return audit_instances(suite.instances)
