"""The step-judging conditions (issue 46; docs/process.md, "Running a judge"): a judge model is shown a labelled
trajectory of a step-judging suite (`vcot.process.judge_suite`) and asked for its first wrong step
(`judge_first_error`) or for a verdict on every step and then the first wrong one (`judge_steps`).

A step-judging instance's answer is the number of its first wrong step (0: every step is correct), so the
grader scores localisation like any integer answer; its exact labels sit in `meta["process_judge"]`, never in
the prompt. The episode record carries the labels, so a results row can be scored per step without the suite
(`vcot.process.judged`). Only these conditions serve step-judging instances, and they serve nothing else
(`Condition.why_not`).
"""

from __future__ import annotations

import json
from typing import Any

from vcot.conditions.episode import Episode, SingleTurn
from vcot.conditions.registry import JUDGE_CONDITIONS, ConditionError
from vcot.images import ImageSource
from vcot.messages import ImagePart, Message, TextPart
from vcot.prompts.process_judge import JUDGE_FIRST_ERROR, JUDGE_STEPS, STEP_LINE, intro
from vcot.schema import JUDGE_META, Instance

__all__ = [
    "JUDGE_CONDITIONS",
    "judge_episode",
    "judge_prompt_text",
    "judge_record",
    "judge_unservable",
    "row_judge_record",
]


def row_judge_record(row: dict[str, Any]) -> dict[str, Any] | None:
    """The "judge" part of a results row's episode record (labels, errors, kind, task), None for a row of any
    other condition: what scores a judging row without its suite. Only judging rows' records are parsed."""
    if row.get("condition") not in JUDGE_CONDITIONS:
        return None
    rec = row.get("episode")
    if isinstance(rec, str):
        try:
            rec = json.loads(rec)
        except ValueError:
            return None
    judge = rec.get("judge") if isinstance(rec, dict) else None
    return judge if isinstance(judge, dict) and isinstance(judge.get("labels"), list) else None


def judge_record(instance: Instance) -> dict[str, Any]:
    return instance.meta.get(JUDGE_META) or {}


def judge_unservable(instance: Instance) -> str | None:
    rec = judge_record(instance)
    texts, labels = rec.get("texts"), rec.get("labels")
    if not isinstance(texts, list) or not texts or not isinstance(labels, list) or len(labels) != len(texts):
        return "its step-judging record (meta.process_judge) lacks matching 'texts' and 'labels'"
    if rec.get("form") == "with_pictures" and len(instance.steps) != len(texts) - 1:
        return (
            f"it has {len(instance.steps)} step pictures for {len(texts) - 1} steps before the conclusion "
            "(meta.process_judge)"
        )
    return None


def judge_prompt_text(instance: Instance, condition: str) -> str:
    rec = judge_record(instance)
    texts = [str(t) for t in rec["texts"]]
    steps = "\n".join(STEP_LINE.format(k=k, text=t.strip()) for k, t in enumerate(texts, start=1))
    with_pictures = rec.get("form") == "with_pictures"
    template = JUDGE_STEPS if condition == "judge_steps" else JUDGE_FIRST_ERROR
    return template.format(
        intro=intro(with_pictures), question=str(rec.get("question") or instance.question), steps=steps, n=len(texts)
    )


def judge_episode(instance: Instance, condition: str, epoch: int, images: ImageSource) -> Episode:
    reason = judge_unservable(instance)
    if reason is not None:
        raise ConditionError(f"cannot build {condition!r} for {instance.uid}: {reason}")
    rec = judge_record(instance)
    paths = [instance.image]
    if rec.get("form") == "with_pictures":
        paths += [s.image for s in instance.steps]
    encoded = [images(p) for p in paths]
    parts: list[ImagePart | TextPart] = [ImagePart(e) for e in encoded]
    parts.append(TextPart(judge_prompt_text(instance, condition)))
    # The labels go into the record (never the prompt) so a results row is scored per step on its own.
    info = {
        "images": [e.record() for e in encoded],
        "judge": {
            "labels": list(rec["labels"]),
            "errors": list(rec.get("errors") or []),
            "kind": rec.get("kind"),
            "task": instance.task,
        },
    }
    return SingleTurn([Message("user", parts)], info)
