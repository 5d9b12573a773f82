"""(Instance, condition) → one user message: images first, then MIRA's wording (`vcot.prompts.templates`).

Functions here do no I/O beyond reading images through the `ImageSource` they are given.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from vcot.captions import caption_for, caption_source
from vcot.captions import unavailable_reason as caption_unavailable
from vcot.conditions.episode import Episode, SingleTurn
from vcot.conditions.registry import ConditionError
from vcot.images import ImageSource
from vcot.messages import ImagePart, Message, TextPart
from vcot.prompts.templates import (
    CAPTION_ONLY,
    DIRECT,
    TEXT_COT,
    TEXT_COT_SPEC,
    TEXT_STATE_COT,
    VISUAL_COT,
    format_question,
)
from vcot.prompts.text_cot_spec import GUIDES
from vcot.schema import Instance

SINGLE_TURN = (
    "direct",
    "text_cot",
    "text_cot_spec",
    "visual_cot",
    "text_state_cot",
    "visual_cot_corrupted",
    "caption_only",
    "question_only",
)


@dataclass
class Prompt:
    """Model input for one (instance, condition), plus what was sent as images (for the record)."""

    condition: str
    messages: list[Message]
    images: list[dict[str, Any]] = field(default_factory=list)


def unservable_reason(instance: Instance, condition: str) -> str | None:
    """Why the single-turn `condition` cannot be built for `instance`, or None when it can."""
    if condition not in SINGLE_TURN:
        return f"unknown condition {condition!r}; known: {', '.join(SINGLE_TURN)}"
    if condition in ("visual_cot", "text_state_cot") and not instance.steps:
        return "it has no visual chain-of-thought steps"
    if condition == "visual_cot_corrupted" and not instance.corrupted_steps:
        return "it has no corrupted trajectory"
    if condition == "text_cot_spec" and instance.task not in GUIDES:
        return f"there is no task-specific guide for task {instance.task!r}"
    if condition == "caption_only":
        return caption_unavailable(instance)
    return None


def build_prompt(instance: Instance, condition: str, images: ImageSource) -> Prompt:
    """The single-turn prompt for `condition`: one user message, images first, then the text."""
    reason = unservable_reason(instance, condition)
    if reason is not None:
        raise ConditionError(f"cannot build {condition!r} for {instance.uid}: {reason}")
    question = format_question(instance)
    paths = [instance.image]
    if condition == "direct":
        text = DIRECT.format(question=question)
    elif condition == "text_cot":
        text = TEXT_COT.format(question=question)
    elif condition == "text_cot_spec":
        text = TEXT_COT_SPEC.format(question=question, guide=GUIDES[instance.task])
    elif condition == "visual_cot":
        paths += [s.image for s in instance.steps]
        text = VISUAL_COT.format(question=question)
    elif condition == "visual_cot_corrupted":
        paths += [s.image for s in instance.corrupted_steps]
        text = VISUAL_COT.format(question=question)
    elif condition == "text_state_cot":
        steps = "\n".join(f"Step {k}: {s.text.strip()}" for k, s in enumerate(instance.steps, start=1))
        text = TEXT_STATE_COT.format(question=question, steps=steps)
    elif condition == "question_only":
        # text_cot's words without the picture: only the presence of the image differs from text_cot.
        paths = []
        text = TEXT_COT.format(question=question)
    else:  # caption_only: the instance's own caption, else the scene-graph caption (vcot.captions)
        paths = []
        text = CAPTION_ONLY.format(caption=caption_for(instance), question=question)
    encoded = [images(p) for p in paths]
    parts: list[ImagePart | TextPart] = [ImagePart(e) for e in encoded]
    parts.append(TextPart(text))
    return Prompt(condition, [Message("user", parts)], [e.record() for e in encoded])


def single_turn_episode(instance: Instance, condition: str, epoch: int, images: ImageSource) -> Episode:
    prompt = build_prompt(instance, condition, images)
    info: dict[str, Any] = {"images": prompt.images}
    if condition == "caption_only":
        info["caption"] = caption_source(instance)
    return SingleTurn(prompt.messages, info)
