"""A labelled set written as a step-judging suite (issue 46; docs/process.md, "Running a judge"), so that
`vcot eval` (its store, resume, exactly-once requests and report) puts it to a judge model.

One instance per labelled trajectory (`vcot.process.labelled`):
- `image`: the problem's input picture; `steps`: the trajectory's step pictures (picture-and-text form; none
  in the text-only form), the concluding step having none;
- `answer`: the number of the first wrong step, 0 when every step is correct (integer): what
  `judge_first_error` asks, graded by the usual rules;
- `meta["process_judge"]`: the step texts (the concluding step last), the exact labels and error types, the
  kind, the form, the problem's question as a model reads it, and the fields that regenerate the trajectory;
- `meta["answer_space"]`: 0 … the number of steps, so the built-in chance model guesses among the possible
  answers only (a uniform first wrong step or none).

Only the judging conditions serve these instances (`vcot.conditions.registry.Condition.why_not`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from vcot.process.labelled import LabelledTrajectory
from vcot.schema import JUDGE_META, AnswerType, Instance, Step

SUITE_KIND = "process-judging"
# Where a trajectory's first error sits, for balancing: step 1, 2, 3, 4 or later, or none.
POSITION_BUCKETS = ("1", "2", "3", "4+", "none")
# Balancing draws at most this many trajectories per one kept.
BALANCE_DRAWS = 4


def position_bucket(x: LabelledTrajectory) -> str:
    k = x.first_error
    return "none" if k is None else str(k) if k < 4 else "4+"


def balanced_by_position(stream: Iterator[LabelledTrajectory], n: int) -> list[LabelledTrajectory]:
    """n trajectories of `stream` whose first errors spread over the positions 1, 2, 3, 4+ and none as evenly as
    the stream allows: up to BALANCE_DRAWS × n are drawn, then the buckets are taken from in turn, each in stream
    order. Labels stay exact (only the choice of trajectories changes); a judge that always names one position
    then scores about a fifth, not the share that position happens to have (docs/process.md, "Running a judge")."""
    buckets: dict[str, list[LabelledTrajectory]] = {b: [] for b in POSITION_BUCKETS}
    for _ in range(BALANCE_DRAWS * n):
        x = next(stream)
        buckets[position_bucket(x)].append(x)
    out: list[LabelledTrajectory] = []
    while len(out) < n and any(buckets.values()):
        for b in POSITION_BUCKETS:
            if buckets[b] and len(out) < n:
                out.append(buckets[b].pop(0))
    return out


def judge_instance(x: LabelledTrajectory, position: int) -> tuple[Instance, dict[str, Any]]:
    """The step-judging instance of trajectory `x` and its pictures by relative path."""
    from vcot.tasks import get_task_class

    folder = f"images/{position:06d}"
    pictures: dict[str, Any] = {f"{folder}/input.png": x.image}
    steps = []
    with_pictures = all(s.image is not None for s in x.steps[:-1])
    if with_pictures:
        for k, s in enumerate(x.steps[:-1], start=1):
            rel = f"{folder}/step{k}.png"
            pictures[rel] = s.image
            steps.append(Step(image=rel, text=s.text))
    record = {
        "kind": x.kind,
        "form": "with_pictures" if with_pictures else "text_only",
        "texts": [s.text for s in x.steps],
        "labels": x.labels,
        "errors": [s.error for s in x.steps],
        "first_error": x.first_error or 0,
        "question": x.question,
        "concluded": x.concluded,
        "source": {
            "uid": x.uid,
            "task": x.task,
            "difficulty": x.difficulty,
            "params": x.params,
            "seed": x.seed,
            "index": x.index,
            "variant": x.variant,
            "scene_key": x.scene_key,
        },
    }
    inst = Instance(
        uid=x.uid,
        task=x.task,
        domain=str(getattr(get_task_class(x.task), "domain", "process")),
        question=x.question,
        image=f"{folder}/input.png",
        answer=str(x.first_error or 0),
        answer_type=AnswerType.INTEGER,
        steps=steps,
        meta={JUDGE_META: record, "answer_space": [str(k) for k in range(len(x.steps) + 1)]},
    )
    return inst, pictures


def write_judge_suite(
    trajectories: Iterable[LabelledTrajectory], out: str | Path, name: str, settings: dict[str, Any] | None = None
) -> dict[str, Any]:
    """Write the trajectories as a step-judging suite folder; returns its manifest. `settings` (how the set
    was drawn: tasks, seed, kinds, exclusions) go into the manifest."""
    from vcot.suite import EncodedSample, write_suite
    from vcot.tasks.base import Sample

    def samples() -> Iterable[EncodedSample]:
        for position, x in enumerate(trajectories):
            inst, pictures = judge_instance(x, position)
            yield EncodedSample.from_sample(Sample(inst, pictures))

    return write_suite(out, name, samples(), extra={"suite_kind": SUITE_KIND, "process_judge": settings or {}})
