"""Scene-graph captions: what a perfect describer of a generated input picture would say, written from the
instance's `meta["scene"]` (never from the solution, the steps or the answer).

One module per task (`captions/<task>.py`, a function `caption(scene) -> str`); `caption_for(instance)`
picks it. `caption_only` uses an instance's own `meta["caption"]` when it has one (curated or imported data)
and this captioner otherwise, so the condition serves every generated suite (docs/evaluation.md, "Conditions").
Captions are deterministic: the same scene always gives the same text. `CAPTIONER_VERSION` changes whenever a
caption's wording changes, and is recorded with every caption_only sample.
"""

from __future__ import annotations

import importlib
import pkgutil
from typing import Any

from vcot.schema import Instance

__all__ = [
    "CAPTIONER_VERSION",
    "CaptionError",
    "caption_for",
    "caption_source",
    "captioned_tasks",
    "scene_caption",
    "unavailable_reason",
]

CAPTIONER_VERSION = "scene-graph-2"
# Every public module here is one task's captioner (private ones are shared helpers): adding a task's caption
# is adding its module (tests/test_task_completeness.py asks it of every registered task).
_CAPTIONED = frozenset(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))


class CaptionError(ValueError):
    """No caption can be written for an instance."""


def captioned_tasks() -> list[str]:
    """Tasks with a scene-graph captioner (a module `captions/<task>.py`), sorted."""
    return sorted(_CAPTIONED)


def scene_caption(task: str, scene: dict[str, Any]) -> str:
    """The scene-graph caption of one task's scene."""
    if task not in _CAPTIONED:
        raise CaptionError(f"no scene-graph captioner for task {task!r}")
    module = importlib.import_module(f"vcot.captions.{task}")
    text = module.caption(scene)
    return " ".join(text.split())  # one line, single spaces: the caption is prose, not layout


def _own(instance: Instance) -> str | None:
    cap = instance.meta.get("caption")
    return cap.strip() if isinstance(cap, str) and cap.strip() else None


def unavailable_reason(instance: Instance) -> str | None:
    """Why no caption can be given for `instance` (None when one can)."""
    if _own(instance) is not None:
        return None
    if instance.task not in _CAPTIONED:
        return f"it has no caption (meta['caption']) and task {instance.task!r} has no scene-graph captioner"
    if not isinstance(instance.meta.get("scene"), dict):
        return "it has no caption (meta['caption']) and no generator scene (meta['scene']) to describe"
    return None


def caption_source(instance: Instance) -> str:
    """'meta' for an instance's own caption, else the scene-graph captioner's version."""
    return "meta" if _own(instance) is not None else CAPTIONER_VERSION


def caption_for(instance: Instance) -> str:
    """The caption `caption_only` sends: the instance's own `meta["caption"]`, else the scene-graph caption."""
    own = _own(instance)
    if own is not None:
        return own
    reason = unavailable_reason(instance)
    if reason is not None:
        raise CaptionError(f"cannot caption {instance.uid}: {reason}")
    try:
        return scene_caption(instance.task, instance.meta["scene"])
    except (KeyError, TypeError, ValueError, IndexError) as e:
        # A scene of an older generator version may lack a field; say so instead of failing the whole run.
        raise CaptionError(f"cannot caption {instance.uid}: its scene does not match the captioner ({e!r})") from e
