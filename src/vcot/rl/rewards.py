"""Rewards from vcot's grader (docs/rl.md, "Rewards").

`reward` is 1.0 exactly when `vcot.scoring.score_fields` — the grader behind `vcot score-text` and every
results table, without a judge — grades the completion correct, else 0.0: hedged, negated, ambiguous and
missing answers are wrong, and a truncated completion counts only from a complete <answer> tag. Completions
are untrusted: nothing in them is evaluated, any input gives a number, never an exception, and each call is
bounded in time by the size limits below (the grader's tag scans take time quadratic in the number of opening
tags, so a completion with hundreds of thousands of them would otherwise take minutes).

Step rewards grade the `<stepK>` answers of a state-probe completion against the solver's intermediate states
(`vcot.probes`), with the grading `vcot.scoring.probes` applies to state_probe runs. Dense rewards pay the same
answers as a process reward, with the first-error semantics of issue 46's exact labels (`dense_rewards`, per
turn `dense_turn_rewards`; docs/rl.md, "Dense rewards"; described by `vcot.process.dense`).
"""

from __future__ import annotations

import dataclasses
import functools
import html
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from vcot.messages import scrub_surrogates
from vcot.scoring.extract import RULE_TAG, extract_detail
from vcot.scoring.score import score_fields

# A completion longer than this gets reward 0 (reason "too long"); RL completions are a few thousand tokens.
MAX_COMPLETION_CHARS = 200_000
# More opening <answer>, reasoning or <stepK> tags than this: no single committed answer, reward 0.
MAX_TAGS = 64

_ANSWER_OPENS = re.compile(r"<\s*answer\s*>", re.I)
_THINK_OPENS = re.compile(r"<\s*/?\s*(?:think|thinking|reasoning|reflection|scratchpad)\b", re.I)
_STEP_OPENS = re.compile(r"<\s*step", re.I)


@dataclass(frozen=True)
class RewardDetails:
    """What `reward` saw, for logging: `reward` is the answer reward alone (no format term); `verdict` one of
    vcot's verdicts (docs/scoring.md, "Verdicts") or "refused" when a size limit stopped grading."""

    reward: float
    correct: bool
    verdict: str
    extracted: str | None
    tier: str
    reason: str
    format_ok: bool

    # Read as a mapping too (`details["reward"]`, `dict(details)`), as logging code and the docs' examples do.
    def keys(self) -> tuple[str, ...]:
        return tuple(f.name for f in dataclasses.fields(self))

    def __getitem__(self, key: str) -> Any:
        if key not in self.keys():
            raise KeyError(key)
        return getattr(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        return getattr(self, key) if key in self.keys() else default

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


def completion_text(completion: Any) -> str:
    """The text to grade: a string as it is; for chat messages (TRL's conversational completions) the text
    of the last assistant message (content as a string or a list of text parts). Anything else gives ""."""
    try:
        if completion is None:
            return ""
        if isinstance(completion, bytes):
            return scrub_surrogates(completion.decode("utf-8", "replace"))
        if isinstance(completion, str):
            return scrub_surrogates(completion)
        if isinstance(completion, Mapping):
            return _content_text(completion.get("content"))
        if isinstance(completion, Sequence):
            messages = [m for m in completion if isinstance(m, Mapping)]
            assistant = [m for m in messages if m.get("role") == "assistant"]
            chosen = assistant or [m for m in messages if "role" not in m]
            return _content_text(chosen[-1].get("content")) if chosen else ""
    except Exception:  # noqa: BLE001 - a completion of any shape is graded, never raises
        return ""
    return ""


def _content_text(content: Any) -> str:
    if isinstance(content, str):
        return scrub_surrogates(content)
    if isinstance(content, Sequence) and not isinstance(content, bytes):
        texts = []
        for part in content:
            if isinstance(part, str):
                texts.append(part)
            elif isinstance(part, Mapping) and isinstance(part.get("text"), str):
                texts.append(part["text"])
        return scrub_surrogates("".join(texts))
    return ""


def _refusal(text: str, extra_tags: re.Pattern[str] | None = None) -> str | None:
    """Why `text` is not graded (a size limit), or None."""
    if len(text) > MAX_COMPLETION_CHARS:
        return f"completion of {len(text)} characters is longer than {MAX_COMPLETION_CHARS}"
    # The grader also reads HTML-escaped tags ("&lt;answer&gt;", scoring/extract.py), so they count: with the
    # escapes undone the text holds raw and escaped tags alike.
    tags = html.unescape(text) if "&" in text else text
    for pattern, what in ((_ANSWER_OPENS, "<answer>"), (_THINK_OPENS, "reasoning"), (extra_tags, "<step>")):
        if pattern is not None and len(pattern.findall(tags)) > MAX_TAGS:
            return f"more than {MAX_TAGS} {what} tags: no single committed answer"
    return None


@dataclass(frozen=True)
class _Gold:
    answer: str
    answer_type: str
    options: list[str] | None
    question: str


def _gold(problem: Any) -> _Gold:
    """The grading fields of a Problem or a row mapping (options as a list, JSON text, [] or None)."""
    get = problem.get if isinstance(problem, Mapping) else lambda k, d=None: getattr(problem, k, d)
    answer, answer_type = get("answer"), get("answer_type")
    if answer is None or answer_type is None:
        raise ValueError("a problem needs at least `answer` and `answer_type` to be graded")
    options = get("options")
    if isinstance(options, str):
        options = json.loads(options) if options.strip() else None
    if options is not None and hasattr(options, "tolist"):  # a numpy array from a pandas / Arrow cell
        options = options.tolist()
    return _Gold(
        str(answer), str(answer_type), [str(o) for o in options] if options else None, str(get("question", "") or "")
    )


def reward_details(completion: Any, problem: Any, *, truncated: bool = False) -> RewardDetails:
    """The verdict behind `reward`: extracted answer, tier, reason and whether the answer tag is present."""
    gold = _gold(problem)
    text = completion_text(completion)
    refused = _refusal(text)
    if refused is not None:
        return RewardDetails(0.0, False, "refused", None, "none", refused, False)
    try:
        s = score_fields(text, gold.answer, gold.answer_type, gold.options, gold.question, truncated=truncated)
        fmt = _format_ok(text)
    except Exception as exc:  # noqa: BLE001 - a grader failure on odd input is a zero reward, logged
        return RewardDetails(0.0, False, "error", None, "none", f"grader failed: {type(exc).__name__}: {exc}", False)
    return RewardDetails(1.0 if s.correct else 0.0, bool(s.correct), s.verdict, s.extracted, s.tier, s.reason, fmt)


def reward(completion: Any, problem: Any, *, truncated: bool = False, format_weight: float = 0.0) -> float:
    """1.0 for a correct committed answer, else 0.0; plus `format_weight * format_reward(completion)` when
    `format_weight` > 0 (off by default: the format term rewards the tag even on a wrong answer)."""
    d = reward_details(completion, problem, truncated=truncated)
    if format_weight:
        return d.reward + format_weight * (1.0 if d.format_ok else 0.0)
    return d.reward


def _format_ok(text: str) -> bool:
    return extract_detail(text).rule == RULE_TAG


def format_reward(completion: Any) -> float:
    """1.0 when the completion's answer comes from a complete <answer>...</answer> tag outside reasoning
    blocks (the grader's first tier), else 0.0."""
    text = completion_text(completion)
    if _refusal(text) is not None:
        return 0.0
    try:
        return 1.0 if _format_ok(text) else 0.0
    except Exception:  # noqa: BLE001 - never raises on a completion
        return 0.0


# -- step rewards -----------------------------------------------------------------------------------------------


def problem_probes(problem: Any) -> list[dict[str, Any]]:
    """The state probes of a problem (`vcot.probes`, as dicts), [] when its task has none. A problem made
    without its steps is regenerated with them (cached), since a task's probes follow its steps."""
    from vcot.probes import PROBE_TASKS, build_probes

    get = problem.get if isinstance(problem, Mapping) else lambda k, d=None: getattr(problem, k, d)
    if get("task") not in PROBE_TASKS:
        return []
    inst = get("instance")
    if inst is not None and inst.steps:
        return [p.to_dict() for p in build_probes(inst)]
    params = get("params") or {}
    return list(
        _probes(
            str(get("task")),
            str(get("difficulty") or "medium"),
            params if isinstance(params, str) else json.dumps(params, sort_keys=True),
            int(get("seed")),
            int(get("index")),
            int(get("variant") or 0),
        )
    )


@functools.lru_cache(maxsize=1024)
def _probes(task: str, difficulty: str, params: str, seed: int, index: int, variant: int) -> tuple[dict[str, Any], ...]:
    from vcot.probes import build_probes
    from vcot.rl.problems import problem_from_row

    p = problem_from_row(
        {
            "task": task,
            "difficulty": difficulty,
            "params": params,
            "seed": seed,
            "index": index,
            "variant": variant,
            "condition": "state_probe",
        }
    )
    return tuple(p.to_dict() for p in build_probes(p.instance))


def step_rewards(completion: Any, problem: Any) -> list[float]:
    """Per state probe, in step order: 1.0 when the completion's `<stepK>` answer is graded correct against
    the solver's state after step K, else 0.0 (a missing tag is 0). [] when the task has no probes."""
    from vcot.scoring.probes import grade_steps

    probes = problem_probes(problem)
    if not probes:
        return []
    text = completion_text(completion)
    if _refusal(text, _STEP_OPENS) is not None:
        return [0.0] * len(probes)
    try:
        return [1.0 if ok else 0.0 for ok in grade_steps(text, probes)]
    except Exception:  # noqa: BLE001 - never raises on a completion
        return [0.0] * len(probes)


def step_reward(completion: Any, problem: Any) -> float:
    """The mean of `step_rewards` (0.0 when the task has no probes)."""
    steps = step_rewards(completion, problem)
    return sum(steps) / len(steps) if steps else 0.0


# -- dense rewards -----------------------------------------------------------------------------------------------
# Issue 46's process rewards (docs/rl.md, "Dense rewards"), documented as `vcot.process.dense`, which re-exports
# them: they live here because vcot.rl's environment pays them and vcot.process already builds on vcot.rl. The
# first-error semantics are those of the exact labels of vcot.process.labelled. Drawing actions earn none: a
# drawing is not a state, so there is no per-action ground truth to grade against.


def _check_wrong(wrong: float) -> float:
    if isinstance(wrong, bool) or not isinstance(wrong, int | float) or not math.isfinite(wrong) or wrong > 0:
        raise ValueError(
            f"dense rewards: `wrong` (the first wrong step's reward) must be a finite number <= 0, got {wrong!r}"
        )
    return float(wrong)


def first_error_rewards(correct: Sequence[bool], *, wrong: float = -1.0) -> list[float]:
    """The dense rewards of a sequence of per-step verdicts (True = right, False = wrong or missing): `1/K`
    for each step of the right prefix, `wrong/K` for the first wrong step, 0 after it."""
    wrong = _check_wrong(wrong)
    n = len(correct)
    first = next((i for i, ok in enumerate(correct) if not ok), n)
    return [1.0 / n if i < first else wrong / n if i == first else 0.0 for i in range(n)]


def dense_rewards(completion: Any, problem: Any, *, wrong: float = -1.0) -> list[float]:
    """Per state probe, in step order, the dense reward of one completion (a string or chat messages, as
    `reward` takes): `first_error_rewards` of its `<stepK>` answers graded as `step_rewards` grades them (a
    missing tag is wrong; a refused completion states no step). [] when the problem's task has no probes.
    Within one completion a repeated `<stepK>` tag counts by its last occurrence, as `state_probe` grading
    reads it."""
    from vcot.scoring.probes import grade_steps

    wrong = _check_wrong(wrong)
    probes = problem_probes(problem)
    if not probes:
        return []
    text = completion_text(completion)
    if _refusal(text, _STEP_OPENS) is not None:
        return first_error_rewards([False] * len(probes), wrong=wrong)
    try:
        correct = grade_steps(text, probes)
    except Exception:  # noqa: BLE001 - never raises on a completion: an ungradable reply states no right step
        correct = [False] * len(probes)
    return first_error_rewards(correct, wrong=wrong)


def _first_statements(replies: Sequence[Any], probes: list[dict[str, Any]]) -> list[tuple[int, bool] | None]:
    """Per probe: (the turn that first states its `<stepK>` tag, whether that first answer is right), or None
    when no reply states it. A refused reply (size or tag-flood limit) states nothing."""
    from vcot.scoring.probes import grade_steps, step_answers

    first: list[tuple[int, bool] | None] = [None] * len(probes)
    steps = {int(p["step"]): i for i, p in enumerate(probes)}
    for turn, reply in enumerate(replies):
        text = completion_text(reply)
        if _refusal(text, _STEP_OPENS) is not None:
            continue
        try:
            stated = [steps[k] for k in step_answers(text) if k in steps and first[steps[k]] is None]
            if not stated:
                continue
            correct = grade_steps(text, probes)
        except Exception:  # noqa: BLE001 - never raises on a completion: this reply then states nothing
            continue
        for i in stated:
            first[i] = (turn, bool(correct[i]))
    return first


def episode_dense_rewards(replies: Sequence[Any], problem: Any, *, wrong: float = -1.0) -> list[float]:
    """Per state probe, the dense rewards of a multi-turn episode (its replies in turn order), each step graded
    by its first statement: a later reply that restates or changes an earlier step's answer changes nothing.
    [] when the task has no probes."""
    wrong = _check_wrong(wrong)
    probes = problem_probes(problem)
    if not probes:
        return []
    first = _first_statements(replies, probes)
    return first_error_rewards([f is not None and f[1] for f in first], wrong=wrong)


def dense_turn_rewards(replies: Sequence[Any], problem: Any, *, wrong: float = -1.0, ended: bool = True) -> list[float]:
    """The dense reward paid at each turn of a multi-turn episode (one number per reply, in turn order).

    Each step's reward (`episode_dense_rewards`: graded by its first statement, so a step is never paid twice
    and a later reply cannot revise a step to be paid again) is paid at the turn from which it is known: the
    turn where its tag and all earlier steps' tags have been stated. Stated in order, that is the turn where the
    step's tag first appears; a step stated before an earlier one waits for it (its reward depends on the
    earlier step being right). Steps never stated are wrong; with `ended` (the default: `replies` is the whole
    episode) what they settle is paid at the last turn, so the turns sum to `sum(episode_dense_rewards(...))`;
    with `ended=False` (an episode still running) it is not paid yet. All zeros when the task has no probes.
    """
    wrong = _check_wrong(wrong)
    paid = [0.0] * len(replies)
    probes = problem_probes(problem)
    if not probes or not replies:
        return paid
    first = _first_statements(replies, probes)
    rewards = first_error_rewards([f is not None and f[1] for f in first], wrong=wrong)
    known = -1  # the turn by which steps 1..k are all stated
    for f, r in zip(first, rewards, strict=True):
        if f is None:
            known = len(replies)  # this step and all later ones are settled only by the episode's end
        else:
            known = max(known, f[0])
        if known < len(replies):
            paid[known] += r
        elif ended:
            paid[-1] += r
    return paid


def dense_reward(completion: Any, problem: Any, *, wrong: float = -1.0) -> float:
    """The dense process return of one completion: the sum of `dense_rewards` (each step of
    the right prefix pays 1/K, the first wrong or missing step `wrong`/K, later steps 0), so 1.0 when every
    `<stepK>` answer is right; 0.0 when the task has no probes. Per-completion like `step_reward`, for reward
    functions that take one completion and its problem row."""
    return sum(dense_rewards(completion, problem, wrong=wrong))
