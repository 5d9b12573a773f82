"""Multiple choice → free form (docs/curation.md, "Stages").

Options stay where they are part of the problem: by default when they are bare panel letters (the candidates
are drawn in the picture), or for categories the user lists, or always/never by rule. Otherwise a rewriter
model writes a free-form question and short answer. A rewrite is rejected when it leaks: the text-only reasoner,
given the rewritten question alone (question_only wording, `leak_trials` trials), answers it at least
`leak_threshold` times; or when the judge finds it adds evidence or reveals the answer. A rejected rewrite
keeps the original multiple-choice item (or removes it, `on_reject: remove`). Decision `rewrite`.
"""

from __future__ import annotations

import asyncio
import re
from dataclasses import dataclass, field
from typing import Any

from vcot.curate.models import Caller, CallFailed
from vcot.curate.prompts import REWRITE_JUDGE, REWRITER, parse_json, parse_verdict
from vcot.messages import Message, TextPart
from vcot.prompts.templates import TEXT_COT
from vcot.schema import AnswerType, Instance, option_letters
from vcot.scoring.score import score_fields

RULES = ("panels", "always", "never")


@dataclass(frozen=True)
class RewriteSettings:
    keep_options: str = "panels"  # panels: keep bare panel letters; always: never rewrite; never: always rewrite
    keep_categories: tuple[str, ...] = ()
    leak_trials: int = 5
    leak_threshold: int = 3
    on_reject: str = "keep_original"
    judge: bool = True
    extra: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.keep_options not in RULES:
            raise ValueError(f"keep_options must be one of {RULES}, got {self.keep_options!r}")
        if self.on_reject not in ("keep_original", "remove"):
            raise ValueError("on_reject must be keep_original or remove")
        if not 1 <= self.leak_threshold <= self.leak_trials:
            raise ValueError("leak_threshold must lie in 1..leak_trials")


def keeps_options(inst: Instance, category: str, settings: RewriteSettings) -> str | None:
    """Why the options stay (None: rewrite)."""
    if inst.answer_type != AnswerType.CHOICE or not inst.options:
        return "not multiple choice"
    if settings.keep_options == "always":
        return "rule keeps every option list"
    if category in settings.keep_categories:
        return f"category {category} keeps its options"
    if settings.keep_options == "panels" and [o.strip() for o in inst.options] == option_letters(len(inst.options)):
        return "options are panels drawn in the picture"
    return None


def _answer_type(answer: str) -> AnswerType:
    return AnswerType.INTEGER if re.fullmatch(r"-?\d+", answer.strip()) else AnswerType.TEXT


def _options_text(inst: Instance) -> str:
    return "\n".join(
        f"{a}. {o}" for a, o in zip(option_letters(len(inst.options or [])), inst.options or [], strict=True)
    )


async def rewrite_one(caller: Caller, inst: Instance, category: str, settings: RewriteSettings) -> dict[str, Any]:
    keep = keeps_options(inst, category, settings)
    if keep is not None:
        caller.store.decide("rewrite", inst.uid, "unchanged", keep)
        return {"uid": inst.uid, "verdict": "unchanged", "reason": keep}
    letters = option_letters(len(inst.options or []))
    correct = (inst.options or [])[letters.index(inst.answer)]
    prompt = REWRITER.format(question=inst.question, options=_options_text(inst), letter=inst.answer, correct=correct)
    reply = await caller.ask("rewriter", "curate.rewrite", inst, 0, [Message("user", [TextPart(prompt)])])
    value = parse_json(reply) or {}
    question, answer = str(value.get("question", "")).strip(), str(value.get("answer", "")).strip()
    details: dict[str, Any] = {
        "question": question,
        "answer": answer,
        "original_answer": inst.answer,
        "answer_type": str(_answer_type(answer)),
    }
    if not question or not answer:
        return _reject(caller, inst, settings, "the rewriter's reply holds no question and answer", details)
    text = TEXT_COT.format(question=question)
    replies = await asyncio.gather(
        *(
            caller.ask("reasoner", "curate.leak", inst, k, [Message("user", [TextPart(text)])])
            for k in range(settings.leak_trials)
        )
    )
    hits = [bool(score_fields(r, answer, _answer_type(answer)).correct) for r in replies]
    details["leak_trials"] = hits
    if sum(hits) >= settings.leak_threshold:
        return _reject(
            caller,
            inst,
            settings,
            f"leaks: the rewritten question alone was answered in {sum(hits)} of "
            f"{settings.leak_trials} text-only trials",
            details,
        )
    if settings.judge:
        jp = REWRITE_JUDGE.format(question=inst.question, options=_options_text(inst), rewrite=question, answer=answer)
        verdict, why = parse_verdict(
            await caller.ask("judge", "curate.rewrite_judge", inst, 0, [Message("user", [TextPart(jp)])])
        )
        details["judge"] = {"verdict": verdict, "reason": why}
        if verdict != "pass":
            return _reject(caller, inst, settings, f"judge: {verdict} ({why})", details)
    caller.store.decide("rewrite", inst.uid, "rewritten", "free-form rewrite passed the leak test", details)
    return {"uid": inst.uid, "verdict": "rewritten", **details}


def _reject(
    caller: Caller, inst: Instance, settings: RewriteSettings, reason: str, details: dict[str, Any]
) -> dict[str, Any]:
    verdict = "removed" if settings.on_reject == "remove" else "rejected"
    caller.store.decide("rewrite", inst.uid, verdict, reason, details)
    return {"uid": inst.uid, "verdict": verdict, "reason": reason, **details}


def apply_rewrite(inst: Instance, decision: dict[str, Any] | None) -> Instance:
    """The item as it goes on: the free-form version when its rewrite was accepted."""
    if not decision or decision["verdict"] != "rewritten":
        return inst
    d = decision["details"]
    meta = {k: v for k, v in inst.meta.items() if k != "scene"}  # a generator scene no longer re-solves to it
    meta["original"] = {"question": inst.question, "options": inst.options, "answer": inst.answer}
    return inst.model_copy(
        update={
            "question": d["question"],
            "answer": d["answer"],
            "options": None,
            "answer_type": AnswerType(d["answer_type"]),
            "meta": meta,
        }
    )


async def run_rewrite(
    caller: Caller, items: list[tuple[Instance, str]], settings: RewriteSettings
) -> list[dict[str, Any]]:
    async def one(inst: Instance, cat: str) -> dict[str, Any]:
        try:
            return await rewrite_one(caller, inst, cat, settings)
        except CallFailed as exc:
            return {"uid": inst.uid, "verdict": "pending", "reason": str(exc)}

    return await caller.gather(one(i, c) for i, c in items)
