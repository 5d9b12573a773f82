"""What the mock answers: a tool call from the script, a curation role's reply, or a final answer.

The final answer is correct with probability p (per condition, or per generator parameter, if given),
decided by a RNG seeded with (seed, uid, condition, epoch): deterministic, so retries and resumed runs get
the same answer. With a script, a request that offers tools and has had k assistant turns gets the script's
k-th tool calls until the script runs out; then the final answer. Unidentified requests get a wrong answer
(without a suite, or with MockConfig.unknown "answer"; otherwise the server answers them 404, server.py).
"""

from __future__ import annotations

import json
import random
import re
from typing import Any

from vcot.engine.mock.config import MockConfig
from vcot.engine.mock.identify import SuiteIndex, SuiteItem
from vcot.seeding import derive_seed

_GIVEN = re.compile(r"the answer is ([^.\n()]+)", re.I)


def wrong_answer(item: SuiteItem, rng: random.Random) -> str:
    gold = item.answer
    if item.options:
        letters = [chr(65 + i) for i in range(len(item.options)) if chr(65 + i) != gold]
        return rng.choice(letters)
    if gold.lstrip("-").isdigit():
        return str(int(gold) + rng.randint(1, 3))
    return f"not-{gold}"


def curation_reply(stage: str, uid: str | None, text: str, cfg: MockConfig) -> str:
    """A scripted curation role: the reasoner answers only what the text states ("the answer is X"), the
    captioner describes without answering, the rewriter drops the options, the judges pass unless told
    not to."""
    if stage in ("curate.reason", "curate.leak"):
        m = _GIVEN.search(text)
        return f"Reading the text.\n<answer>{m.group(1).strip() if m else 'unknown'}</answer>"
    if stage == "curate.caption":
        return "The picture shows the objects the question mentions; their details are visible only in the picture."
    if stage == "curate.rewrite":
        q = re.search(r"Question: (.*?)\nOptions:", text, re.S)
        c = re.search(r"Correct option: [A-Z]\. (.*)", text)
        question, answer = (q.group(1).strip() if q else ""), (c.group(1).strip() if c else "")
        if uid in cfg.curation_leak_uids:
            question += f" (Hint: the answer is {answer}.)"
        return json.dumps({"question": question, "answer": answer})
    fail = uid in cfg.curation_fail_uids and stage.startswith("curate.qc")
    return json.dumps(
        {"verdict": "fail" if fail else "pass", "reason": "scripted failure" if fail else "scripted pass"}
    )


def final_answer(index: SuiteIndex, cfg: MockConfig, uid: str | None, condition: str, epoch: int) -> tuple[str, str]:
    """(text, finish_reason) of the final answer for this sample."""
    item = index.items.get(uid or "")
    if item is None:
        return "I cannot tell.\n<answer>unknown</answer>", "stop"
    rng = random.Random(derive_seed("mock", cfg.seed, uid, condition, epoch))
    p = cfg.p_by_condition.get(condition, cfg.p)
    if cfg.p_by_param and uid in index.instances:
        params = index.instances[uid].meta.get("generator", {}).get("params", {})
        for name_value, p_param in cfg.p_by_param.items():
            name, _, value = name_value.partition("=")
            if name in params and json.dumps(params[name]) == value:
                p = p_param
    correct = rng.random() < p
    ans = item.answer if correct else wrong_answer(item, rng)
    if rng.random() < cfg.truncate_rate:
        return f"Working through the problem step by step.\nA first guess would be {item.answer}", "length"
    return f"Working through the problem step by step.\n<answer>{ans}</answer>", "stop"


def scripted_answer(
    index: SuiteIndex, cfg: MockConfig, uid: str | None, condition: str, epoch: int, messages: list[Any]
) -> tuple[str, str] | None:
    """The scripted step-judge, probe and last-image replies (MockConfig.judge, probe_right_steps,
    last_image_only; mock/scripted.py), or None when none applies."""
    # Imported here: it pulls in vcot.probes and the schema (about 0.1 s), which a plain answer does not need.
    from vcot.engine.mock.scripted import last_image_reply, probe_reply

    inst = index.instances.get(uid or "")
    if inst is None:
        return None
    if "process_judge" in inst.meta:
        from vcot.engine.mock.scripted import judge_reply

        rng = random.Random(derive_seed("mock-judge", cfg.seed, uid, condition, epoch))
        return judge_reply(inst, condition, cfg.p_by_condition.get(condition, cfg.p), cfg.judge, rng), "stop"
    rng = random.Random(derive_seed("mock-probe", cfg.seed, uid, condition, epoch))
    if cfg.probe_right_steps is not None and condition == "state_probe":
        return probe_reply(inst, cfg.probe_right_steps, rng), "stop"
    if cfg.last_image_only:
        return last_image_reply(inst, index.suite, messages, rng), "stop"
    return None


def reply(
    index: SuiteIndex,
    cfg: MockConfig,
    body: dict[str, Any],
    sample: tuple[str | None, str, int, int],
    messages: list[Any],
    text: str,
) -> tuple[dict[str, Any], str, int]:
    """(assistant message, finish_reason, characters produced) for a request about `sample` (uid,
    condition, epoch, turn); `text` is all the request's text, which the curation roles read."""
    uid, cond, epoch, turn = sample
    msg: dict[str, Any] = {"role": "assistant"}
    script = cfg.script
    if body.get("tools") and turn < len(script):
        msg["content"] = None
        msg["tool_calls"] = [
            {
                "id": f"call_{turn}_{i}",
                "type": "function",
                "function": {"name": c["name"], "arguments": json.dumps(c.get("arguments", {}))},
            }
            for i, c in enumerate(script[turn])
        ]
        return msg, "tool_calls", sum(len(c["function"]["arguments"]) for c in msg["tool_calls"])
    if cond.startswith("curate."):
        msg["content"] = curation_reply(cond, uid, text, cfg)
        return msg, "stop", len(msg["content"])
    msg["content"], finish = scripted_answer(index, cfg, uid, cond, epoch, messages) or final_answer(
        index, cfg, uid, cond, epoch
    )
    return msg, finish, len(msg["content"])
