"""Interventions on the supplied visual steps: `visual_cot` with the step pictures cut, reordered, thinned or
partly replaced by their texts (docs/evaluation.md, "Interventions on the visual steps").

Each keeps `visual_cot`'s wording, so a paired accuracy change against `visual_cot` measures how much the
model uses the pictures:

- `visual_cot_prefix`: the first k of n steps, k = n // 2 by default (at least 1);
- `visual_cot_shuffled`: every step, in an order seeded from the uid and never the original one when n >= 2;
- `visual_cot_drop_key`: every step but the key step (`key_step`: the last one, whose picture carries the state
  the answer is read from);
- `visual_cot_mixed`: odd steps as pictures, even steps as their texts, in order.

An instance with one step is served too (shuffling cannot change its order, dropping its key step leaves the
input image alone); the record says what was done so the analysis can set such instances apart.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from vcot.conditions.episode import Episode, SingleTurn
from vcot.conditions.registry import ConditionError
from vcot.images import ImageSource
from vcot.messages import ImagePart, Message, TextPart
from vcot.prompts.probes import MIXED_IMAGE_LINE, MIXED_TEXT_LINE, VISUAL_COT_MIXED
from vcot.prompts.templates import VISUAL_COT, format_question
from vcot.schema import Instance
from vcot.seeding import derive_seed

INTERVENTIONS = ("visual_cot_prefix", "visual_cot_shuffled", "visual_cot_drop_key", "visual_cot_mixed")
# Tasks whose decisive state is not in the last step picture; none so far (docs/evaluation.md).
KEY_STEP_OVERRIDES: dict[str, Callable[[Instance], int]] = {}


def prefix_length(n: int, k: int | None = None) -> int:
    """Steps kept by the prefix intervention: k if given (clipped to 1..n), else half of n rounded down, >= 1."""
    if n <= 0:
        return 0
    return max(1, min(n, k if k is not None else n // 2))


def shuffled_order(uid: str, n: int) -> list[int]:
    """A permutation of range(n) seeded from the uid; never the identity when n >= 2."""
    order = list(range(n))
    random.Random(derive_seed("visual_cot_shuffled", uid)).shuffle(order)
    if n >= 2 and order == sorted(order):
        order = order[1:] + order[:1]  # a rotation: the one fix-up that keeps the result seeded and cheap
    return order


def key_step(instance: Instance) -> int:
    """1-based index of the step the drop-key intervention removes."""
    override = KEY_STEP_OVERRIDES.get(instance.task)
    return override(instance) if override is not None else len(instance.steps)


def unservable(instance: Instance) -> str | None:
    return None if instance.steps else "it has no visual chain-of-thought steps"


def step_plan(instance: Instance, condition: str, prefix_k: int | None = None) -> list[int]:
    """The 0-based step indices sent as pictures, in the order sent (all conditions but mixed)."""
    n = len(instance.steps)
    if condition == "visual_cot_prefix":
        return list(range(prefix_length(n, prefix_k)))
    if condition == "visual_cot_shuffled":
        return shuffled_order(instance.uid, n)
    if condition == "visual_cot_drop_key":
        drop = key_step(instance) - 1
        return [i for i in range(n) if i != drop]
    if condition == "visual_cot_mixed":
        return [i for i in range(n) if i % 2 == 0]
    raise ConditionError(f"unknown intervention {condition!r}; known: {', '.join(INTERVENTIONS)}")


def _mixed_text(instance: Instance) -> str:
    lines = [
        MIXED_IMAGE_LINE.format(k=k) if (k - 1) % 2 == 0 else MIXED_TEXT_LINE.format(k=k, text=s.text.strip())
        for k, s in enumerate(instance.steps, start=1)
    ]
    return VISUAL_COT_MIXED.format(steps="\n".join(lines), question=format_question(instance))


def intervention_episode(
    instance: Instance, condition: str, epoch: int, images: ImageSource, prefix_k: int | None = None
) -> Episode:
    reason = unservable(instance)
    if reason is not None:
        raise ConditionError(f"cannot build {condition!r} for {instance.uid}: {reason}")
    base = condition
    plan = step_plan(instance, base, prefix_k)
    text = (
        _mixed_text(instance) if base == "visual_cot_mixed" else VISUAL_COT.format(question=format_question(instance))
    )
    encoded = [images(instance.image)] + [images(instance.steps[i].image) for i in plan]
    parts: list[ImagePart | TextPart] = [ImagePart(e) for e in encoded]
    parts.append(TextPart(text))
    info = {
        "images": [e.record() for e in encoded],
        "intervention": {"kind": base, "n_steps": len(instance.steps), "steps_sent": [i + 1 for i in plan]},
    }
    return SingleTurn([Message("user", parts)], info)


def prefix_episode_factory(k: int) -> Callable[[Instance, str, int, ImageSource], Episode]:
    """The episode factory of a prefix condition with a fixed k (register it as e.g. `visual_cot_prefix_k2`)."""

    def factory(instance: Instance, condition: str, epoch: int, images: ImageSource) -> Episode:
        return intervention_episode(instance, "visual_cot_prefix", epoch, images, prefix_k=k)

    return factory
