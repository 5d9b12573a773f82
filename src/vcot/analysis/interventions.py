"""The "uses the pictures" effect (docs/evaluation.md, "Interventions on the visual steps"): per model and task,
the paired accuracy change from each intervention on the supplied steps against `visual_cot`, with a paired
bootstrap interval and McNemar's test — the machinery of `tables.paired_tests`, run per task.

A model that reads its supplied steps loses accuracy when they are cut (prefix), reordered (shuffled) or lose
their key step (drop_key); one that ignores them does not.
"""

from __future__ import annotations

from vcot.analysis.tables import Table, group, paired_tests
from vcot.analysis.units import Sample
from vcot.conditions.interventions import INTERVENTIONS

BASELINE = "visual_cot"


def intervention_table(samples: list[Sample], n_boot: int = 2000) -> Table | None:
    conds = {s.condition for s in samples}
    comparisons = [(BASELINE, c) for c in conds if c.startswith(INTERVENTIONS) or c in INTERVENTIONS]
    if BASELINE not in conds or not comparisons:
        return None
    comparisons.sort(key=lambda bc: bc[1])
    t = Table(
        "Uses the pictures: interventions on the supplied steps vs visual_cot",
        [
            "task",
            "model",
            "baseline → treatment",
            "n",
            "baseline %",
            "treatment %",
            "Δ pts [95% bootstrap]",
            "b (base better)",
            "c (treat better)",
            "McNemar p",
        ],
        note="Per task, paired over problems (see the paired comparisons table). A negative Δ means the "
        "intervention hurt: the model used the step pictures it was given.",
    )
    for task, ts in sorted(group(samples, lambda s: s.task).items()):
        sub = paired_tests(ts, comparisons, n_boot=n_boot)
        if sub is not None:
            t.rows += [[task, *row] for row in sub.rows]
    overall = paired_tests(samples, comparisons, n_boot=n_boot)
    if overall is not None:
        t.rows += [["(all tasks)", *row] for row in overall.rows]
    return t if t.rows else None
