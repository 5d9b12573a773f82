"""Prompt texts of the state-probe condition and the interventions on the supplied visual steps
(docs/evaluation.md, "State probes" and "Interventions on the visual steps").

The interventions keep `visual_cot`'s wording (`templates.VISUAL_COT`) so that only the pictures change, except
`visual_cot_mixed`, which must say that some steps come as words. `state_probe` asks every probe in one reply,
each answer in its own `<stepK>` tag, then the final answer in MIRA's answer tag.
"""

from __future__ import annotations

from vcot.prompts.templates import ANSWER_ENDING

STATE_PROBE = (
    "Question: {question}\n\nSolve the problem step by step. On the way, answer the following "
    "questions about the intermediate states, each answer alone in its own tag (for example "
    "<step1>3</step1>):\n{probes}\n\nThen give the final answer to the question. " + ANSWER_ENDING
)
PROBE_LINE = "Step {k}: {question} Put the answer in <step{k}></step{k}>."
PROBE_FINAL_LINE = "Step {k}: the answer to the question above. Put it in <step{k}></step{k}>."
VISUAL_COT_MIXED = (
    "Based on the question image and the intermediate reasoning steps provided, in order, some as "
    "image(s) after the question image and some described in words below, please continue the "
    "reasoning to solve the problem.\n\nIntermediate reasoning steps:\n{steps}\n\n"
    "Question: {question}\n\n" + ANSWER_ENDING
)
MIXED_IMAGE_LINE = "Step {k}: shown in the next reasoning image."
MIXED_TEXT_LINE = "Step {k}: {text}"

PROBE_TEMPLATES = (STATE_PROBE, PROBE_LINE, PROBE_FINAL_LINE, VISUAL_COT_MIXED, MIXED_IMAGE_LINE, MIXED_TEXT_LINE)
