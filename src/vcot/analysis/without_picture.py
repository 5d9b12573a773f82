"""How much of each task is solvable without the picture: caption_only and question_only accuracy per task.

`question_only` sends the question alone; `caption_only` sends a description of the picture (the instance's
own caption, or for generated suites the scene-graph caption of `vcot.captions`) with the question. An
accuracy whose Wilson interval lies above the chance level says the text alone carries the answer: for
question_only that the question gives it away, for caption_only that a description suffices (See2Think's
visual-dependency filter removes such items; docs/evaluation.md, "Conditions"). Built from the samples, the
one accounting (docs/design.md, "A new analysis or table").
"""

from __future__ import annotations

import math
from typing import Any

from vcot.analysis.tables import DOMAINS, Cell, Table, cell, group, model_order
from vcot.analysis.units import Sample

TEXT_ONLY = ("caption_only", "question_only")
REFERENCE = "text_cot"  # the same wording with the picture (question_only is text_cot without the image)
# Below this many problems a task gets no verdict: with three problems one lucky guess on a task of a large
# answer space already clears a Wilson interval's lower bound.
MIN_PROBLEMS = 10


def above_chance(c: Cell) -> str:
    """'yes' when the whole interval lies above chance, 'no' when it does not, 'too few' below MIN_PROBLEMS."""
    if c.n < MIN_PROBLEMS:
        return "too few" if c.n else "—"
    if math.isnan(c.chance):
        return "chance unknown"
    return "yes" if c.lo > c.chance else "no"


def without_picture_table(samples: list[Sample]) -> Table | None:
    """Per model and task: caption-only and question-only accuracy, text_cot (with the picture) beside them
    when it ran, chance, and whether each text-only accuracy is above chance. None when neither ran."""
    data = [s for s in samples if s.condition in (*TEXT_ONLY, REFERENCE)]
    if not any(s.condition in TEXT_ONLY for s in data):
        return None
    t = Table(
        "Solvable without the picture: caption-only and question-only accuracy per task (%, Wilson 95% interval)",
        [
            "model",
            "domain",
            "task",
            "n",
            "caption_only",
            "question_only",
            f"{REFERENCE} (picture)",
            "chance",
            "caption > chance",
            "question > chance",
        ],
        note=f"A 'yes' means the whole interval lies above the chance level: the text alone carries the answer "
        f"(no verdict below {MIN_PROBLEMS} problems). "
        "Generated suites are captioned from the scene (vcot.captions), so caption_only is an upper "
        "bound on what a perfect describer's words give a text-only reasoner.",
    )
    for model, ms in sorted(group(data, lambda s: s.model).items(), key=lambda kv: model_order(kv[0])):
        by_task = group(ms, lambda s: (s.domain, s.task))
        keys = sorted(by_task, key=lambda k: (DOMAINS.index(k[0]) if k[0] in DOMAINS else len(DOMAINS), k[1]))
        rows: list[list[Any]] = []
        for domain, task in keys:
            ts = by_task[(domain, task)]
            cap, q, ref = (cell([s for s in ts if s.condition == c]) for c in (*TEXT_ONLY, REFERENCE))
            if not (cap.n or q.n):
                continue
            rows.append(
                [
                    model,
                    domain,
                    task,
                    max(cap.n, q.n),
                    cap,
                    q,
                    ref if ref.n else "—",
                    cell(ts).chance,
                    above_chance(cap),
                    above_chance(q),
                ]
            )
        texts = [s for s in ms if s.condition in TEXT_ONLY]
        if rows and texts:
            cap, q, ref = (cell([s for s in ms if s.condition == c]) for c in (*TEXT_ONLY, REFERENCE))
            rows.append(
                [
                    model,
                    "all",
                    "all tasks",
                    max(cap.n, q.n),
                    cap,
                    q,
                    ref if ref.n else "—",
                    cell(texts).chance,
                    above_chance(cap),
                    above_chance(q),
                ]
            )
        t.rows += rows
    return t if t.rows else None
