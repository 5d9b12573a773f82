"""Scripted mock-server replies for state probes and the visual-step interventions (docs/evaluation.md).

- `probe_reply`: a state_probe reply right on probes 1..j and wrong after; the final answer is right only
  when every probe is (a model whose reasoning breaks at step j+1 ends wrong).
- `judge_reply`: a step judge on a step-judging instance (docs/process.md, "Running a judge"): right with
  probability p, else another step or none; or one that always says every step is correct.
- `last_image_reply`: a model that looks only at the last picture it is sent and answers right exactly when
  that picture is the instance's last step picture, the one carrying the state the answer is read from.

Wrong answers are built per answer type so the rule-based grader can never read them as right (tested).
"""

from __future__ import annotations

import base64
import hashlib
import random
from typing import Any

from vcot.probes import build_probes, probe_reason
from vcot.schema import AnswerType, Instance, option_letters

_OPPOSITE = {
    "top": "bottom",
    "bottom": "top",
    "left": "right",
    "right": "left",
    "north": "south",
    "south": "north",
    "east": "west",
    "west": "east",
    "northeast": "southwest",
    "southwest": "northeast",
    "northwest": "southeast",
    "southeast": "northwest",
    "clockwise": "counterclockwise",
    "counterclockwise": "clockwise",
    "jammed": "clockwise",
}
_COLOURS = ("red", "black", "blue", "green", "yellow", "white", "orange", "purple")


def wrong_value(answer: str, answer_type: str, options: list[str] | tuple[str, ...] | None, rng: random.Random) -> str:
    """A value the grader marks wrong against `answer`."""
    t = AnswerType(str(answer_type))
    if options:
        return rng.choice([a for a in option_letters(len(options)) if a != answer])
    low = answer.strip().lower()
    if low in _OPPOSITE:
        return _OPPOSITE[low]
    if low in _COLOURS:
        return rng.choice([c for c in _COLOURS if c != low])
    if t == AnswerType.TIME and ":" in answer:
        h, m = answer.split(":", 1)
        return f"{int(h) % 12 + 1}:{m}"
    try:
        return str(int(answer) + rng.randint(1, 3))
    except ValueError:
        pass
    try:
        return f"{float(answer) + rng.randint(1, 3):g}"
    except ValueError:
        return f"zzz{rng.randint(100, 999)}"


def probe_reply(inst: Instance, right_steps: int, rng: random.Random) -> str:
    if probe_reason(inst) is not None:
        return f"No probes here.\n<answer>{wrong_value(inst.answer, inst.answer_type, inst.options, rng)}</answer>"
    probes = build_probes(inst)
    lines = ["Working through the problem step by step."]
    for p in probes:
        ok = p.step <= right_steps
        value = p.answer if ok else wrong_value(p.answer, p.answer_type, p.options, rng)
        lines.append(f"<step{p.step}>{value}</step{p.step}>")
    final = inst.answer if right_steps >= len(probes) else wrong_value(inst.answer, inst.answer_type, inst.options, rng)
    lines.append(f"<answer>{final}</answer>")
    return "\n".join(lines)


def judge_reply(inst: Instance, condition: str, p: float, policy: str, rng: random.Random) -> str:
    labels = list(inst.meta["process_judge"]["labels"])
    truth = next((k for k, lab in enumerate(labels, start=1) if lab == "incorrect"), 0)
    if policy == "all_correct":
        named = 0
    elif rng.random() < p:
        named = truth
    else:
        named = rng.choice([k for k in range(len(labels) + 1) if k != truth])
    lines = ["Checking the steps in order."]
    if condition == "judge_steps":
        lines += [
            f"<step{k}>{'correct' if not named or k < named else 'incorrect'}</step{k}>"
            for k in range(1, (named or len(labels)) + 1)
        ]
    lines.append(f"<answer>{named}</answer>")
    return "\n".join(lines)


def _image_urls(messages: list[Any]) -> list[str]:
    urls = []
    for m in messages:
        content = m.get("content") if isinstance(m, dict) else None
        for part in content if isinstance(content, list) else []:
            if isinstance(part, dict) and part.get("type") == "image_url":
                urls.append(str((part.get("image_url") or {}).get("url", "")))
    return urls


def _digest_of_url(url: str) -> str:
    return hashlib.sha256(url.split(",", 1)[1].encode()).hexdigest() if "," in url else ""


def _digest_of_file(suite: Any, path: str) -> str:
    try:
        return hashlib.sha256(base64.b64encode(suite.image_path(path).read_bytes())).hexdigest()
    except (OSError, AttributeError):
        return ""


def last_image_reply(inst: Instance, suite: Any, messages: list[Any], rng: random.Random) -> str:
    """Right exactly when the last image sent is the instance's last step picture (matched by its bytes,
    so images must be sent unresized)."""
    urls = _image_urls(messages)
    ok = bool(urls) and bool(inst.steps) and _digest_of_url(urls[-1]) == _digest_of_file(suite, inst.steps[-1].image)
    ans = inst.answer if ok else wrong_value(inst.answer, inst.answer_type, inst.options, rng)
    return f"Reading the last picture only.\n<answer>{ans}</answer>"
