"""See2Think's caption-only visual-dependency filter (docs/curation.md, "Stages").

A captioner sees image + question and describes only observable evidence; a text-only reasoner sees the
caption + question (vcot's caption_only wording) `trials` times; an item with at least `threshold` correct
trials is caption-solvable and removed. Every caption, trial and verdict is stored (stages `curate.caption`,
`curate.reason`, decision `filter`). A captioner named `scene-graph` uses vcot's deterministic captions
(`vcot.captions`) instead of a model: for generated suites.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from vcot.captions import caption_for
from vcot.curate.models import Caller, CallFailed
from vcot.curate.prompts import CAPTIONER
from vcot.images import ImageSource
from vcot.messages import ImagePart, Message, TextPart
from vcot.prompts.templates import CAPTION_ONLY, format_question
from vcot.schema import Instance
from vcot.scoring.score import score_response

SCENE_GRAPH = "scene-graph"


@dataclass(frozen=True)
class FilterSettings:
    trials: int = 5
    threshold: int = 3

    def __post_init__(self) -> None:
        if not 1 <= self.threshold <= self.trials:
            raise ValueError(f"threshold must lie in 1..trials ({self.trials}), got {self.threshold}")


async def _caption(caller: Caller, inst: Instance, images: ImageSource, scene_graph: bool) -> str:
    if scene_graph:
        return caption_for(inst)
    msg = Message("user", [ImagePart(images(inst.image)), TextPart(CAPTIONER.format(question=format_question(inst)))])
    return await caller.ask("captioner", "curate.caption", inst, 0, [msg])


async def filter_one(
    caller: Caller, inst: Instance, images: ImageSource, settings: FilterSettings, scene_graph: bool = False
) -> dict[str, Any]:
    """Caption, trials and verdict of one candidate (also stored as the `filter` decision)."""
    caption = (await _caption(caller, inst, images, scene_graph)).strip()
    text = CAPTION_ONLY.format(caption=caption, question=format_question(inst))
    replies = await asyncio.gather(
        *(
            caller.ask("reasoner", "curate.reason", inst, k, [Message("user", [TextPart(text)])])
            for k in range(settings.trials)
        )
    )
    trials = []
    for k, reply in enumerate(replies):
        s = score_response(reply, inst)
        trials.append({"trial": k, "correct": bool(s.correct), "answer": s.extracted})
    n = sum(t["correct"] for t in trials)
    removed = n >= settings.threshold
    verdict = "removed" if removed else "kept"
    reason = (
        f"caption-solvable: {n} of {settings.trials} text-only trials correct (threshold {settings.threshold})"
        if removed
        else f"visually dependent: {n} of {settings.trials} text-only trials correct"
    )
    details = {
        "caption": caption,
        "captioner": SCENE_GRAPH if scene_graph else "model",
        "trials": trials,
        "correct": n,
        "threshold": settings.threshold,
    }
    caller.store.decide("filter", inst.uid, verdict, reason, details)
    return {"uid": inst.uid, "verdict": verdict, "reason": reason, **details}


async def run_filter(
    caller: Caller, instances: list[Instance], images: ImageSource, settings: FilterSettings, scene_graph: bool = False
) -> list[dict[str, Any]]:
    """Filter every candidate; calls finished by an earlier run are read from the store, not sent again."""

    async def one(inst: Instance) -> dict[str, Any]:
        try:
            return await filter_one(caller, inst, images, settings, scene_graph)
        except CallFailed as exc:  # no decision: the next run retries exactly the missing calls
            return {"uid": inst.uid, "verdict": "pending", "reason": str(exc)}

    return await caller.gather(one(i) for i in instances)
