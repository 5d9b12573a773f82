"""The single-turn prompt templates and the question formatting every condition shares.

Texts follow MIRA's released templates where they exist (`docs/evaluation.md`, "Conditions"): images
first, then text. The conditions MIRA lacks use the nearest MIRA wording so that only the tested factor
changes:

- `text_state_cot` replaces the step images of `visual_cot` with the step texts (same information in
  words), keeping the input image and visual_cot's sentence with "image(s)" changed to "step(s) described";
- `visual_cot_corrupted` is `visual_cot`, word for word, with the corrupted trajectory's images;
- `caption_only` sends no image: a caption (the instance's `meta["caption"]`) plus the text_cot ending;
- `text_cot_spec` puts the task's guide (`vcot.prompts.text_cot_spec`) between question and text_cot ending.
"""

from __future__ import annotations

from vcot.schema import Instance, option_letters

ANSWER_ENDING = "The final answer is placed in <answer></answer>."
DIRECT = "Question: {question}\n\nPlease provide the final answer directly. " + ANSWER_ENDING
COT_ENDING = "Please first conduct step-by-step reasoning, and then provide the final answer. " + ANSWER_ENDING
TEXT_COT = "Question: {question}\n\n" + COT_ENDING
TEXT_COT_SPEC = "Question: {question}\n\n{guide}\n\n" + COT_ENDING
VISUAL_COT = (
    "Based on the question image and the intermediate reasoning image(s) provided, please continue "
    "the reasoning to solve the problem.\n\nQuestion: {question}\n\n" + ANSWER_ENDING
)
TEXT_STATE_COT = (
    "Based on the question image and the intermediate reasoning step(s) described below, please "
    "continue the reasoning to solve the problem.\n\nIntermediate reasoning steps:\n{steps}\n\n"
    "Question: {question}\n\n" + ANSWER_ENDING
)
CAPTION_ONLY = "Image description: {caption}\n\nQuestion: {question}\n\n" + COT_ENDING

SINGLE_TURN_TEMPLATES = (DIRECT, TEXT_COT, TEXT_COT_SPEC, VISUAL_COT, TEXT_STATE_COT, CAPTION_ONLY)


def _lists_option(question: str, letter: str, text: str) -> bool:
    """Whether the question already presents this option next to its letter ("A. x", "(A) x", "A) x", "A: x")."""
    return any(f"{lead}{text}" in question for lead in (f"{letter}. ", f"({letter}) ", f"{letter}) ", f"{letter}: "))


def format_question(instance: Instance) -> str:
    """The question, plus an "Options:" block unless the options are the bare panel letters of a picture
    or the question already lists every option with its letter."""
    q = instance.question.strip()
    opts = instance.options
    if not opts:
        return q
    letters = option_letters(len(opts))
    if [o.strip() for o in opts] == letters or all(
        _lists_option(q, a, o.strip()) for a, o in zip(letters, opts, strict=True)
    ):
        return q
    lines = [f"{letter}. {text}" for letter, text in zip(letters, opts, strict=True)]
    return q + "\n\nOptions:\n" + "\n".join(lines)
