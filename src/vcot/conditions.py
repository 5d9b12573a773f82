"""(Instance, condition) → provider-neutral messages.

Prompt texts follow MIRA's released templates where they exist (SPEC §5): images first, then text.
The conditions MIRA lacks use the nearest MIRA wording so that only the tested factor changes:

- `text_state_cot` replaces the step images of `visual_cot` with the step texts (same information in
  words), keeping the input image and visual_cot's sentence with "image(s)" changed to "step(s) described";
- `visual_cot_corrupted` is `visual_cot`, word for word, with the corrupted trajectory's images;
- `caption_only` sends no image: a caption (the instance's `meta["caption"]`) plus the text_cot ending;
- `text_cot_spec` puts the task's guide (`vcot.prompts.text_cot_spec`) between question and text_cot ending.

Choice questions get an "Options:" block unless the question already lists every option text.
Functions here do no I/O beyond reading images through the `ImageSource` they are given.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from vcot.engine.messages import ImagePart, Message, TextPart
from vcot.images import EncodedImage, ImageCache, ImagePolicy
from vcot.prompts.text_cot_spec import GUIDES
from vcot.schema import Instance, option_letters

CONDITIONS: tuple[str, ...] = ("direct", "text_cot", "text_cot_spec", "visual_cot", "text_state_cot",
                               "visual_cot_corrupted", "caption_only")

ANSWER_ENDING = "The final answer is placed in <answer></answer>."
DIRECT = "Question: {question}\n\nPlease provide the final answer directly. " + ANSWER_ENDING
COT_ENDING = "Please first conduct step-by-step reasoning, and then provide the final answer. " + ANSWER_ENDING
TEXT_COT = "Question: {question}\n\n" + COT_ENDING
TEXT_COT_SPEC = "Question: {question}\n\n{guide}\n\n" + COT_ENDING
VISUAL_COT = ("Based on the question image and the intermediate reasoning image(s) provided, please continue "
              "the reasoning to solve the problem.\n\nQuestion: {question}\n\n" + ANSWER_ENDING)
TEXT_STATE_COT = ("Based on the question image and the intermediate reasoning step(s) described below, please "
                  "continue the reasoning to solve the problem.\n\nIntermediate reasoning steps:\n{steps}\n\n"
                  "Question: {question}\n\n" + ANSWER_ENDING)
CAPTION_ONLY = "Image description: {caption}\n\nQuestion: {question}\n\n" + COT_ENDING

_TEMPLATES = (DIRECT, TEXT_COT, TEXT_COT_SPEC, VISUAL_COT, TEXT_STATE_COT, CAPTION_ONLY)


def _prompt_version() -> str:
    h = hashlib.sha256()
    for t in _TEMPLATES:
        h.update(t.encode() + b"\0")
    for task in sorted(GUIDES):
        h.update(f"{task}\0{GUIDES[task]}\0".encode())
    return "1+" + h.hexdigest()[:10]


# Recorded with every run: any edit to a template or guide changes it.
PROMPT_VERSION = _prompt_version()

ImageSource = Callable[[str], EncodedImage]
"""Maps an instance's relative image path to the encoded image (policy applied)."""


class ConditionError(ValueError):
    """A condition is unknown or cannot be served for an instance."""


@dataclass
class Prompt:
    """Model input for one (instance, condition), plus what was sent as images (for the record)."""

    condition: str
    messages: list[Message]
    images: list[dict[str, Any]] = field(default_factory=list)


def _lists_option(question: str, letter: str, text: str) -> bool:
    """Whether the question already presents this option next to its letter ("A. x", "(A) x", "A) x", "A: x")."""
    return any(f"{lead}{text}" in question for lead in (f"{letter}. ", f"({letter}) ", f"{letter}) ", f"{letter}: "))


def format_question(instance: Instance) -> str:
    """The question, plus an "Options:" block unless the options are the bare panel letters of a picture
    or the question already lists every option with its letter."""
    q = instance.question.strip()
    opts = instance.options
    if not opts:
        return q
    letters = option_letters(len(opts))
    if [o.strip() for o in opts] == letters or all(_lists_option(q, a, o.strip()) for a, o in zip(letters, opts,
                                                                                              strict=True)):
        return q
    lines = [f"{letter}. {text}" for letter, text in zip(letters, opts, strict=True)]
    return q + "\n\nOptions:\n" + "\n".join(lines)


def unservable_reason(instance: Instance, condition: str) -> str | None:
    """Why `condition` cannot be built for `instance`, or None when it can."""
    if condition not in CONDITIONS:
        return f"unknown condition {condition!r}; known: {', '.join(CONDITIONS)}"
    if condition in ("visual_cot", "text_state_cot") and not instance.steps:
        return "it has no visual chain-of-thought steps"
    if condition == "visual_cot_corrupted" and not instance.corrupted_steps:
        return "it has no corrupted trajectory"
    if condition == "text_cot_spec" and instance.task not in GUIDES:
        return f"there is no task-specific guide for task {instance.task!r}"
    if condition == "caption_only":
        cap = instance.meta.get("caption")
        if not isinstance(cap, str) or not cap.strip():
            return "it has no caption (meta['caption'])"
    return None


def check_servable(instances: Iterable[Instance], conditions: Iterable[str]) -> None:
    """Raise ConditionError naming the condition and up to five instances it cannot serve."""
    insts = list(instances)
    for cond in conditions:
        bad = [(i.uid, r) for i in insts if (r := unservable_reason(i, cond)) is not None]
        if bad:
            shown = "; ".join(f"{uid} ({reason})" for uid, reason in bad[:5])
            more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
            raise ConditionError(f"condition {cond!r} cannot be served for {len(bad)} of {len(insts)} "
                                 f"instances: {shown}{more}")


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
    else:  # caption_only
        paths = []
        text = CAPTION_ONLY.format(caption=str(instance.meta["caption"]).strip(), question=question)
    encoded = [images(p) for p in paths]
    parts: list[ImagePart | TextPart] = [ImagePart(e) for e in encoded]
    parts.append(TextPart(text))
    return Prompt(condition, [Message("user", parts)], [e.record() for e in encoded])


class SuiteImages:
    """An ImageSource over a suite folder: paths validated to stay inside it, encodings cached."""

    def __init__(self, suite: Any, policy: ImagePolicy | None = None, cache: ImageCache | None = None) -> None:
        self.suite = suite
        self.cache = cache or ImageCache(policy)
        self.policy = self.cache.policy
        # Validating a path resolves symlinks (several stat calls); once per file is enough.
        self._paths: dict[str, Any] = {}

    def __call__(self, rel: str) -> EncodedImage:
        path = self._paths.get(rel)
        if path is None:
            path = self._paths[rel] = self.suite.image_path(rel)
        return self.cache.get(path, source=rel)
