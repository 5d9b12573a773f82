"""Evaluation conditions: one registry (`registry.py`), the single-turn conditions (`single_turn.py`) and
the VAoT closed-loop conditions (`vcot.vaot.episode`), each registered here explicitly.

Everything that lists conditions — run defaults, report tables, paired comparisons, CLI help — asks
`REGISTRY`. Conditions are described in `docs/evaluation.md`; how to add one in `docs/design.md`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

from vcot.conditions.episode import Episode, SingleTurn
from vcot.conditions.interventions import INTERVENTIONS, intervention_episode, prefix_episode_factory
from vcot.conditions.interventions import unservable as intervention_unservable
from vcot.conditions.process_judge import JUDGE_CONDITIONS, judge_episode, judge_unservable
from vcot.conditions.registry import Condition, ConditionError, Registry
from vcot.conditions.single_turn import Prompt, build_prompt, single_turn_episode, unservable_reason
from vcot.conditions.state_probe import state_probe_episode
from vcot.images import ImageSource
from vcot.probes import probe_reason
from vcot.prompts.probes import PROBE_TEMPLATES
from vcot.prompts.process_judge import JUDGE_TEMPLATES
from vcot.prompts.templates import SINGLE_TURN_TEMPLATES
from vcot.prompts.text_cot_spec import GUIDES
from vcot.schema import Instance
from vcot.vaot.episode import VAOT_CONDITIONS, make_vaot_episode, prompt_material

__all__ = [
    "REGISTRY",
    "PROMPT_VERSION",
    "Condition",
    "ConditionError",
    "Episode",
    "Prompt",
    "Registry",
    "SingleTurn",
    "build_prompt",
    "check_servable",
    "unservable_reason",
]

REGISTRY = Registry()


def _guide_check(task: str) -> str | None:
    return None if task in GUIDES else f"there is no task-specific guide for task {task!r}"


def _probe_check(task: str) -> str | None:
    from vcot.probes import PROBE_TASKS

    return None if task in PROBE_TASKS else f"task {task!r} has no state probes"


def _single(
    name: str,
    description: str,
    *,
    compare_with: tuple[str, ...] = (),
    short: str = "",
    mira_table1: bool = False,
    default: bool = True,
    trainable: bool = True,
    task_check: Callable[[str], str | None] | None = None,
    offered_by: tuple[str, ...] = (),
    reads_steps: bool = False,
    human_instruction: str = "",
) -> Condition:
    return Condition(
        name,
        single_turn_episode,
        lambda inst: unservable_reason(inst, name),
        description,
        default=default,
        compare_with=compare_with,
        short=short,
        mira_table1=mira_table1,
        trainable="single_turn" if trainable else None,
        task_check=task_check,
        offered_by=frozenset(offered_by),
        reads_steps=reads_steps,
        human_instruction=human_instruction,
    )


for _c in (
    _single(
        "direct",
        "MIRA Direct: image + question, answer directly",
        short="D",
        mira_table1=True,
        offered_by=("harness", "human"),
        human_instruction="Look at the picture and answer the question.",
    ),
    _single(
        "text_cot",
        "MIRA Text-CoT: step-by-step reasoning in text",
        compare_with=("direct",),
        short="T",
        mira_table1=True,
        offered_by=("harness",),
    ),
    _single(
        "text_cot_spec",
        "Text-CoT with the task's reasoning guide",
        compare_with=("text_cot",),
        short="T-spec",
        task_check=_guide_check,
    ),
    _single(
        "visual_cot",
        "MIRA Visual-CoT: input image + the solver's step images",
        compare_with=("direct", "text_cot"),
        short="V",
        mira_table1=True,
        offered_by=("harness", "human"),
        reads_steps=True,
        human_instruction="Below the picture are pictures of intermediate steps towards the "
        "solution. Use them, continue the reasoning and answer the question.",
    ),
    _single(
        "text_state_cot",
        "input image + the step texts instead of step images",
        compare_with=("visual_cot",),
        offered_by=("human",),
        reads_steps=True,
        human_instruction="Below the picture are intermediate steps towards the solution, described in words. "
        "Use them, continue the reasoning and answer the question.",
    ),
    # Not trainable: training streams skip the corrupted trajectory to halve generation (docs/rl.md).
    _single(
        "visual_cot_corrupted",
        "Visual-CoT with a plausible but wrong trajectory",
        compare_with=("visual_cot",),
        trainable=False,
        reads_steps=True,
    ),
    # Off by default like question_only: every generated suite can serve it now (scene-graph captions), and a
    # default would add a call per instance to every run (docs/evaluation.md).
    _single("caption_only", "no image: a caption of it + the question", compare_with=("direct",), default=False),
):
    REGISTRY.register(_c)
# Off by default: it measures how much of a task the question alone answers (docs/evaluation.md).
REGISTRY.register(
    Condition(
        "question_only",
        single_turn_episode,
        lambda inst: unservable_reason(inst, "question_only"),
        "no image: the question alone, text_cot wording",
        default=False,
        compare_with=("caption_only",),
        short="Q",
        trainable="single_turn",
    )
)

_VAOT_DESCRIPTIONS = {
    "vaot_norender": ("visual actions acknowledged, never rendered", ()),
    "vaot": ("visual actions rendered and returned faithfully", ("vaot_norender",)),
    "vaot_wrongrender": ("visual actions returned with task-relevant evidence corrupted (modify_key)", ("vaot",)),
    "vaot_wrongrender_nonkey": (
        "visual actions returned with only irrelevant content altered (modify_non_key)",
        ("vaot",),
    ),
}
_VAOT_DEFAULT = {"vaot_norender", "vaot", "vaot_wrongrender"}
for _name in VAOT_CONDITIONS:
    _desc, _cmp = _VAOT_DESCRIPTIONS[_name]
    REGISTRY.register(
        Condition(
            _name,
            make_vaot_episode,
            lambda inst: None,
            _desc,
            compare_with=_cmp,
            default=_name in _VAOT_DEFAULT,
            trainable="episode",
        )
    )

# Issue 20: state probes and interventions on the supplied steps (docs/evaluation.md); none runs by default.
_INTERVENTION_DESCRIPTIONS = {
    "visual_cot_prefix": "Visual-CoT with only the first half of the step images",
    "visual_cot_shuffled": "Visual-CoT with the step images in a shuffled order",
    "visual_cot_drop_key": "Visual-CoT without the key (last) step image",
    "visual_cot_mixed": "Visual-CoT with odd steps as images and even steps as texts",
}
REGISTRY.register(
    Condition(
        "state_probe",
        state_probe_episode,
        probe_reason,
        "image + question + a question about the state after each step, answered in <stepK>",
        default=False,
        compare_with=("text_cot",),
        trainable="single_turn",
        task_check=_probe_check,
        reads_steps=True,
    )
)
for _name in INTERVENTIONS:
    REGISTRY.register(
        Condition(
            _name,
            intervention_episode,
            intervention_unservable,
            _INTERVENTION_DESCRIPTIONS[_name],
            default=False,
            compare_with=("visual_cot",),
            reads_steps=True,
        )
    )


_JUDGE_DESCRIPTIONS = {
    "judge_first_error": "step judging: a labelled trajectory, answer the number of its first wrong step (0: none)",
    "judge_steps": "step judging: a verdict on every step in <stepK>, then the first wrong step's number",
}
# Issue 46: only a step-judging suite (vcot judge-process make) is served by these, and by nothing else.
for _name in JUDGE_CONDITIONS:
    REGISTRY.register(
        Condition(
            _name, judge_episode, judge_unservable, _JUDGE_DESCRIPTIONS[_name], default=False, judges_process=True
        )
    )


def _prefix_condition(k: int) -> Condition:
    return Condition(
        f"visual_cot_prefix_k{k}",
        prefix_episode_factory(k),
        intervention_unservable,
        f"Visual-CoT with only the first {k} step image(s)",
        default=False,
        compare_with=("visual_cot",),
        reads_steps=True,
    )


def register_prefix(k: int) -> str:
    """Register `visual_cot_prefix_k{k}` (the first k steps) and return its name."""
    return REGISTRY.register(_prefix_condition(k)).name


# `-c visual_cot_prefix_k2` names a fixed k on the command line (docs/evaluation.md).
REGISTRY.add_family(
    r"visual_cot_prefix_k([1-9][0-9]?)",
    lambda m: _prefix_condition(int(m.group(1))),
    label="visual_cot_prefix_kN (the first N steps)",
)


def _prompt_version() -> str:
    h = hashlib.sha256()
    for t in SINGLE_TURN_TEMPLATES:
        h.update(t.encode() + b"\0")
    for task in sorted(GUIDES):
        h.update(f"{task}\0{GUIDES[task]}\0".encode())
    for t in prompt_material():
        h.update(t.encode() + b"\0")
    for t in PROBE_TEMPLATES:
        h.update(t.encode() + b"\0")
    for t in JUDGE_TEMPLATES:
        h.update(t.encode() + b"\0")
    return "2+" + h.hexdigest()[:10]


# Recorded with every run: any edit to a template, guide, VAoT text, acknowledgement or tool spec changes it.
PROMPT_VERSION = _prompt_version()


def check_servable(instances: list[Instance], conditions: list[str]) -> None:
    """Raise ConditionError naming the condition and up to five instances it cannot serve."""
    for cond in conditions:
        bad = [(i.uid, r) for i in instances if (r := REGISTRY.unservable(i, cond)) is not None]
        if bad:
            shown = "; ".join(f"{uid} ({reason})" for uid, reason in bad[:5])
            more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
            raise ConditionError(
                f"condition {cond!r} cannot be served for {len(bad)} of {len(instances)} instances: {shown}{more}"
            )


def make_episode(instance: Instance, condition: str, epoch: int, images: ImageSource) -> Episode:
    return REGISTRY.make_episode(instance, condition, epoch, images)
