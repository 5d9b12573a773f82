"""The `state_probe` condition: the input image, the question and every state probe of the instance
(`vcot.probes`) in one request; the reply answers probe k in `<stepk>` and the question in `<answer>`.

One call per instance (rather than one per probe) gives per-step correctness of one line of reasoning, so
"the first wrong step" is a property of a single reply, and costs one call instead of n
(docs/evaluation.md, "State probes").
"""

from __future__ import annotations

from vcot.conditions.episode import Episode, SingleTurn
from vcot.conditions.registry import ConditionError
from vcot.images import ImageSource
from vcot.messages import ImagePart, Message, TextPart
from vcot.probes import Probe, build_probes, probe_reason
from vcot.prompts.probes import PROBE_FINAL_LINE, PROBE_LINE, STATE_PROBE
from vcot.prompts.templates import format_question
from vcot.schema import Instance


def probe_lines(probes: list[Probe]) -> str:
    lines = []
    for p in probes:
        if p.kind == "final":
            lines.append(PROBE_FINAL_LINE.format(k=p.step))
            continue
        q = p.question
        if p.options and list(p.options) != [chr(65 + i) for i in range(len(p.options))]:
            q += " Options: " + "; ".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(p.options)) + "."
        lines.append(PROBE_LINE.format(k=p.step, question=q))
    return "\n".join(lines)


def state_probe_text(instance: Instance) -> str:
    return STATE_PROBE.format(question=format_question(instance), probes=probe_lines(build_probes(instance)))


def state_probe_episode(instance: Instance, condition: str, epoch: int, images: ImageSource) -> Episode:
    reason = probe_reason(instance)
    if reason is not None:
        raise ConditionError(f"cannot build {condition!r} for {instance.uid}: {reason}")
    probes = build_probes(instance)
    encoded = images(instance.image)
    msg = Message("user", [ImagePart(encoded), TextPart(state_probe_text(instance))])
    return SingleTurn([msg], {"images": [encoded.record()], "probes": [p.to_dict() for p in probes]})
