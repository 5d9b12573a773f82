"""Prompt texts of the step-judging conditions (`judge_first_error`, `judge_steps`; docs/process.md,
"Running a judge").

A judge sees the problem (its picture and question) and a proposed solution, step by step, and is asked either
for the first wrong step (a number, 0 for none) or for a verdict on every step and then that number. The
wording names every kind of wrong step the labelled set holds, without saying which one a trajectory has.
"""

from __future__ import annotations

_INTRO_PICTURES = (
    "The first image is a problem's picture. Below are its question and a proposed solution, step "
    "by step. Each step has a sentence and a picture: the image after the problem's picture belongs "
    "to step 1, the next to step 2, and so on; the last step states the answer and has no picture."
)
_INTRO_TEXT = (
    "The image is a problem's picture. Below are its question and a proposed solution, step by step, "
    "each step a sentence; the last step states the answer."
)
_RULES = (
    "Check the steps in order. A step is wrong when what it states (in its sentence or its picture) is not "
    "true of the problem, when its picture and its sentence disagree, when it does not help towards the "
    "answer, or when its conclusion does not follow from the steps before it."
)
JUDGE_FIRST_ERROR = (
    "{intro}\n\nQuestion: {question}\n\nProposed solution:\n{steps}\n\n" + _RULES + "\n\n"
    "Which step is the first wrong one? Think it through, then give its number, or 0 if every "
    "step is correct, in <answer></answer> tags (for example <answer>2</answer>)."
)
JUDGE_STEPS = (
    "{intro}\n\nQuestion: {question}\n\nProposed solution:\n{steps}\n\n" + _RULES + "\n\n"
    "Give a verdict on every step, each alone in its own tag: <step1>correct</step1> or "
    "<step1>incorrect</step1>, then <step2>…</step2> and so on up to step {n}. Then give the number of "
    "the first wrong step, or 0 if every step is correct, in <answer></answer> tags."
)
STEP_LINE = "Step {k}: {text}"

JUDGE_TEMPLATES = (_INTRO_PICTURES, _INTRO_TEXT, JUDGE_FIRST_ERROR, JUDGE_STEPS, STEP_LINE)


def intro(with_pictures: bool) -> str:
    return _INTRO_PICTURES if with_pictures else _INTRO_TEXT
