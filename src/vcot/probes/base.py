"""The probe record and helpers shared by the per-task probe builders (docs/evaluation.md, "State probes").

A probe asks for the state the solver reached after one visual chain-of-thought step. Its answer is read
from the solver's output stored in `instance.meta` (scene, solution states and details), never from a model,
so the rule-based grader of `vcot.scoring` grades it without a judge.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any

from vcot.schema import AnswerType, Instance


@dataclass(frozen=True)
class Probe:
    """One question about the state after step `step` (1-based, the index of `instance.steps`).

    `kind` names what is asked (e.g. "top_face"); "final" marks a step whose state is the final answer itself,
    asked with the instance's own question.
    """

    step: int
    question: str
    answer: str
    answer_type: AnswerType
    kind: str
    options: tuple[str, ...] | None = None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["answer_type"] = str(self.answer_type)
        d["options"] = list(self.options) if self.options else None
        return d


def meta(inst: Instance) -> tuple[dict[str, Any], list[Any], dict[str, Any]]:
    """(scene, solution states, solution details) of an instance."""
    sol = inst.meta.get("solution") or {}
    return inst.meta.get("scene") or {}, list(sol.get("states") or []), dict(sol.get("details") or {})


def final_probe(inst: Instance, step: int) -> Probe:
    """The instance's own question as the probe of a step whose state is the answer (the last step, mostly)."""
    return Probe(
        step, inst.question, inst.answer, inst.answer_type, "final", tuple(inst.options) if inst.options else None
    )


def number_text(value: Fraction | float | int) -> str:
    """An exact number as the grader reads it: integers bare, other values as a short decimal."""
    f = Fraction(value).limit_denominator(10_000)
    if f.denominator == 1:
        return str(f.numerator)
    return f"{float(f):.4f}".rstrip("0").rstrip(".")


def ordinal_step(inst: Instance, k: int) -> str:
    return f"step {k} of {len(inst.steps)}"
