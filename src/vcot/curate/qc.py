"""Quality control by a judge model (docs/curation.md, "Stages"): answer uniqueness and image-question
consistency, one call each with image, question and answer; each verdict is stored with its reason. An item
fails when either check fails; an unreadable judge reply is 'unclear' and goes to the review page flagged.
Decision `qc`."""

from __future__ import annotations

from typing import Any

from vcot.curate.models import Caller, CallFailed
from vcot.curate.prompts import QC_CONSISTENT, QC_UNIQUE, parse_verdict
from vcot.images import ImageSource
from vcot.messages import ImagePart, Message, TextPart
from vcot.prompts.templates import format_question
from vcot.schema import Instance

CHECKS = {"unique": ("curate.qc_unique", QC_UNIQUE), "consistent": ("curate.qc_consistent", QC_CONSISTENT)}


async def qc_one(caller: Caller, inst: Instance, images: ImageSource) -> dict[str, Any]:
    question = format_question(inst)
    checks: dict[str, dict[str, str]] = {}
    for name, (stage, template) in CHECKS.items():
        text = template.format(question=question, answer=inst.answer)
        msg = Message("user", [ImagePart(images(inst.image)), TextPart(text)])
        verdict, why = parse_verdict(await caller.ask("judge", stage, inst, 0, [msg]))
        checks[name] = {"verdict": verdict, "reason": why}
    failed = [n for n, c in checks.items() if c["verdict"] == "fail"]
    unclear = [n for n, c in checks.items() if c["verdict"] == "unclear"]
    if failed:
        verdict, reason = "removed", "; ".join(f"{n}: {checks[n]['reason']}" for n in failed)
    elif unclear:
        verdict, reason = "flagged", "; ".join(f"{n}: {checks[n]['reason']}" for n in unclear)
    else:
        verdict, reason = "passed", "answer unique and question consistent with the image"
    caller.store.decide("qc", inst.uid, verdict, reason, {"checks": checks})
    return {"uid": inst.uid, "verdict": verdict, "reason": reason, "checks": checks}


async def run_qc(caller: Caller, instances: list[Instance], images: ImageSource) -> list[dict[str, Any]]:
    async def one(inst: Instance) -> dict[str, Any]:
        try:
            return await qc_one(caller, inst, images)
        except CallFailed as exc:
            return {"uid": inst.uid, "verdict": "pending", "reason": str(exc)}

    return await caller.gather(one(i) for i in instances)
