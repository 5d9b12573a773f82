"""The curation roles' prompt texts (docs/curation.md). The text-only reasoner uses vcot's own caption_only and
question_only wording (`vcot.prompts.templates`), so a curated item's filter verdict and its later caption_only
score measure the same thing."""

from __future__ import annotations

import json
import re
from typing import Any

CAPTIONER = (
    "Describe the image for someone who cannot see it and must answer the question below from your description "
    "alone. Describe only observable evidence that bears on the question: objects, their positions and sizes, "
    "counts, colours, labels, text, arrows and lines. Do not answer the question, do not reason toward an answer, "
    "and do not say which option is right.\n\nQuestion: {question}"
)
REWRITER = (
    "Rewrite this multiple-choice question as a free-form question with the same answer. Keep every fact the "
    "question states, add no new evidence, and do not reveal or hint at the answer. Reply with JSON only: "
    '{{"question": "<the free-form question>", "answer": "<the short answer>"}}.\n\n'
    "Question: {question}\nOptions:\n{options}\nCorrect option: {letter}. {correct}"
)
REWRITE_JUDGE = (
    "Compare an original multiple-choice question with its free-form rewrite. Does the rewrite add evidence the "
    "original did not give, change what is asked, or reveal or hint at the answer? Reply with JSON only: "
    '{{"verdict": "pass" or "fail", "reason": "<one sentence>"}}.\n\nOriginal: {question}\nOptions:\n{options}\n'
    "Rewrite: {rewrite}\nIntended answer: {answer}"
)
QC_UNIQUE = (
    "Look at the image and the question. Is the given answer the one correct answer, with no other answer "
    "equally defensible from the image? Reply with JSON only: "
    '{{"verdict": "pass" or "fail", "reason": "<one sentence>"}}.\n\nQuestion: {question}\nAnswer: {answer}'
)
QC_CONSISTENT = (
    "Look at the image and the question. Does everything the question refers to appear in the image as "
    "described (objects, labels, counts, layout)? Reply with JSON only: "
    '{{"verdict": "pass" or "fail", "reason": "<one sentence>"}}.\n\nQuestion: {question}'
)

_JSON = re.compile(r"\{.*\}", re.S)


def parse_json(text: str) -> dict[str, Any] | None:
    """The first JSON object in a reply (models wrap JSON in prose or code fences), or None."""
    m = _JSON.search(text or "")
    if m is None:
        return None
    try:
        value = json.loads(m.group(0))
    except json.JSONDecodeError:
        return None
    return value if isinstance(value, dict) else None


def parse_verdict(text: str) -> tuple[str, str]:
    """('pass' | 'fail' | 'unclear', reason) of a judge reply; an unreadable reply is 'unclear', never a pass."""
    value = parse_json(text)
    if value is None:
        return "unclear", f"unreadable judge reply: {text[:200]!r}"
    verdict = str(value.get("verdict", "")).strip().lower()
    if verdict not in ("pass", "fail"):
        return "unclear", f"judge verdict {verdict!r} is neither pass nor fail"
    return verdict, str(value.get("reason", "")).strip()
