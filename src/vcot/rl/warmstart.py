"""Warm-start data: supervised rows in the RL prompt's exact format (docs/rl.md, "From a base model").

A base model that never writes `<answer>…</answer>` earns 0 on every rollout, so GRPO sees no reward spread. A
few supervised steps on these rows teach the format first. Each row is a TRL prompt-completion example:

- `prompt` and `images`: the very row `vcot.rl.trl` gives the trainer for the same problem (the evaluation
  episode's first messages; `tests/rl/test_warmstart.py` checks they are byte-identical);
- `completion`: one assistant message a text-output model can produce: the final answer in `<answer>` tags,
  after the solver's steps in words when `reasoning="steps"` (each step's text twin, never its picture), and
  for `state_probe` the `<stepK>` answers the prompt asks for (what the step rewards grade);
- the problem's columns (`ROW_COLUMNS`), so the rows regenerate and grade like any other.

For the drawing conditions the completion answers without drawing: the warm start teaches the answer format,
and GRPO with the drawing environment teaches when to draw. (TRL's vision SFT collator renders no tools
section, so the warm-start prompt of a drawing condition is the RL prompt's text without the chat template's
tool list.)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from vcot.rl.problems import Problem

REASONING = ("none", "steps")


def target_text(problem: Problem, reasoning: str = "none") -> str:
    """The assistant's reply for `problem`: (steps in words,) (`<stepK>` answers,) the answer tag."""
    if reasoning not in REASONING:
        raise ValueError(f"reasoning must be one of {', '.join(REASONING)}, got {reasoning!r}")
    inst = problem.instance
    lines: list[str] = []
    if reasoning == "steps":
        if not inst.steps:
            raise ValueError(f"problem {problem.uid} was made without its steps (make it with steps=True)")
        lines += [f"Step {k}: {s.text.strip()}" for k, s in enumerate(inst.steps, start=1)]
    if problem.condition == "state_probe":
        from vcot.probes import build_probes

        lines += [f"<step{p.step}>{p.answer}</step{p.step}>" for p in build_probes(inst)]
    lines.append(f"<answer>{problem.answer}</answer>")
    return "\n".join(lines)


def sft_row(problem: Problem, reasoning: str = "none") -> dict[str, Any]:
    """One TRL prompt-completion row (see the module docstring)."""
    from vcot.rl.trl import problem_row

    row = problem_row(problem)
    row["completion"] = [{"role": "assistant", "content": [{"type": "text", "text": target_text(problem, reasoning)}]}]
    return row


def features() -> Any:
    """The Arrow schema of warm-start rows: `vcot.rl.trl.features()` plus the completion."""
    import datasets

    from vcot.rl.trl import features as rl_features

    out = rl_features()
    part = {"type": datasets.Value("string"), "text": datasets.Value("string")}
    out["completion"] = datasets.List({"role": datasets.Value("string"), "content": datasets.List(part)})
    return out


def sft_dataset(problems: Iterable[Problem], reasoning: str = "none") -> Any:
    """A `datasets.Dataset` of warm-start rows (pictures as PNG bytes from vcot's fast writer)."""
    import datasets

    from vcot.draw.png import encode_png

    rows = []
    for p in problems:
        row = sft_row(p, reasoning)
        row["images"] = [{"bytes": encode_png(im), "path": None} for im in row["images"]]
        rows.append(row)
    return datasets.Dataset.from_list(rows, features=features())
