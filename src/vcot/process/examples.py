"""docs/process.md's examples: for every task and every kind of trajectory, one labelled trajectory (its step
texts and labels), made by `vcot.process.labelled` at a fixed seed.

    python -m vcot.process.examples > docs/process_examples.md

tests/process/test_labelled.py checks that the file is what this prints, so the examples stay true.
"""

from __future__ import annotations

from vcot.process.labelled import KINDS, labelled

SEED = 2026
MAX_TEXT = 220
TRIES = 6


def _clip(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


def markdown() -> str:
    from vcot.tasks import task_names

    out = [
        "# Labelled trajectories: one example per task and kind",
        "",
        "Made by `python -m vcot.process.examples` (seed 2026, medium preset; docs/process.md explains the "
        "kinds). Each line is a step: its label, the error type on the first incorrect step, and its text "
        "(clipped to 220 characters; every step but the last also has a picture, left out here). A kind a "
        "task cannot carry says why.",
        "",
    ]
    for task in [t for t in task_names() if t != "toy_dots"]:
        out += [f"## {task}", ""]
        for kind in KINDS:
            found = next((x for i in range(TRIES) if (x := labelled(task, SEED, i, kind)) is not None), None)
            if found is None:
                out += [f'**{kind}**: none in the first {TRIES} problems (see docs/process.md, "Coverage").', ""]
                continue
            out += [f"**{kind}** (`{found.uid}`, gold {found.gold}, first error: {found.first_error or '—'})", ""]
            for k, s in enumerate(found.steps, start=1):
                tag = f"{s.label}" + (f", {s.error}" if s.error else "")
                out.append(f"{k}. [{tag}] {_clip(s.text)}")
            out.append("")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    print(markdown(), end="")
