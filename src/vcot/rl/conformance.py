"""Trainer conformance: does a model's processor, under each trainer's own message handling, see every picture
a drawing episode sends, and does each step reward arrive? (`vcot rl doctor MODEL_DIR --frameworks ...`,
docs/rl.md, "Model doctor").

The same 3-turn drawing episode runs through each framework's adapter (the framework's real code where it has
one the adapter calls; its message form otherwise):

1. the model draws a line: a picture comes back;
2. the model makes one invalid call and one crop_zoom: a rejection and a picture come back, and the refused
   call's step reward (`-invalid_penalty`) is due;
3. the model answers with the gold answer: the grader's 1.0 is due.

After each turn, the conversation as the framework hands it to the model is tokenised by the model's own
processor and chat template. Per framework, three verdicts:

- `image_tokens`: at every turn the tokenised conversation holds exactly as many image tokens as the image
  processor gives features for its pictures (TRL's tool turn is tokenised by TRL's own suffix builder);
- `pixels`: the pictures that arrive (decoded from the framework's wire form) have the pixel digests of the
  pictures the environment sent, in order;
- `rewards`: the step rewards and the final reward the framework reports equal the environment's.

A framework whose package is not installed gets a MISSING verdict naming the extra to install.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import importlib.util
import io
import json
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from PIL import Image

from vcot.draw.png import pixel_digest

FRAMEWORKS = ("trl", "verl", "verifiers", "openenv", "skyrl")
# The package each framework's adapter needs, and the extra that installs it.
_NEEDS = {
    "trl": ("trl", "rl-trl"),
    "verl": ("verl", "rl-verl"),
    "verifiers": ("verifiers", "rl-verifiers"),
    "openenv": ("openenv", "rl-openenv"),
    "skyrl": ("skyrl_gym", "rl-skyrl"),
}
PENALTY = 0.5
LINE = {"x1": 5, "y1": 5, "x2": 80, "y2": 60, "color": "blue"}
BAD = {"x": 1, "y": 1, "radius": -3}
ZOOM = {"x1": 0, "y1": 0, "x2": 100, "y2": 100}


@dataclass
class Trace:
    """What one framework delivered: the conversation before each model turn (HF chat form, pictures as PIL,
    decoded from the wire), the pixel digests the environment sent up to then, and rewards (expected, got)."""

    conversations: list[list[dict[str, Any]]] = field(default_factory=list)
    sent: list[list[str]] = field(default_factory=list)
    rewards: list[tuple[str, float | None, float | None]] = field(default_factory=list)
    # Token ids the framework itself built for a turn (TRL's tool suffix), with the pictures they stand for.
    own_ids: list[tuple[list[int], list[Image.Image]]] = field(default_factory=list)
    tools: list[dict[str, Any]] | None = None
    # Failures of the framework's own tokenisation, reported under image_tokens.
    errors: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Verdict:
    framework: str
    status: str  # PASS, FAIL, MISSING
    checks: tuple[Any, ...] = ()
    reason: str = ""


def _problem() -> Any:
    from vcot.rl import stream

    return stream("convex_hull", seed=0, condition="vaot")[0]


def _decode(url: str) -> Image.Image:
    raw = base64.b64decode(url.split(",", 1)[1])
    with Image.open(io.BytesIO(raw)) as im:
        return im.convert("RGB")


def _hf(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Any framework's chat messages as HF chat form with PIL pictures (data URIs decoded)."""
    out = []
    for m in messages:
        content = m.get("content")
        parts: list[dict[str, Any]] = []
        if isinstance(content, str):
            parts = [{"type": "text", "text": content}]
        for p in content if isinstance(content, list) else []:
            kind = p.get("type")
            if kind == "image" and p.get("image") is not None:
                image = p["image"]
                parts.append({"type": "image", "image": _decode(image) if isinstance(image, str) else image})
            elif kind == "image_url":
                parts.append({"type": "image", "image": _decode(p["image_url"]["url"])})
            elif kind == "text":
                parts.append({"type": "text", "text": p.get("text") or ""})
        msg: dict[str, Any] = {"role": m["role"], "content": parts}
        if m.get("tool_calls"):
            msg["tool_calls"] = [_plain_call(c) for c in m["tool_calls"]]
        out.append(msg)
    return out


def _plain_call(call: dict[str, Any]) -> dict[str, Any]:
    fn = call.get("function", call)
    args = fn.get("arguments", {})
    return {
        "type": "function",
        "function": {"name": fn.get("name"), "arguments": json.loads(args) if isinstance(args, str) else args},
    }


def _assistant(calls: list[tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": [{"type": "text", "text": ""}],
        "tool_calls": [{"type": "function", "function": {"name": n, "arguments": a}} for n, a in calls],
    }


def _replayed(problem: Any) -> list[list[str]]:
    """The pixel digests the drawing session sends for the episode's calls, replayed apart from any framework:
    what should have arrived before turn 2 and before turn 3."""
    from vcot.vaot.session import DrawingSession

    replay = DrawingSession.for_problem(problem)
    first = [pixel_digest(problem.images[0]), pixel_digest(replay.act("draw_line", LINE)[0])]
    replay.act("draw_circle", BAD)
    return [first, [*first, pixel_digest(replay.act("crop_zoom", ZOOM)[0])]]


# -- drivers: one per framework ---------------------------------------------------------------------------


def _drive_trl(processor: Any) -> Trace:
    from trl.data_utils import prepare_multimodal_messages
    from trl.trainer.grpo_trainer import GRPOTrainer

    from vcot.rl.trl import DrawingEnvironment, problem_row, reward_funcs

    problem = _problem()
    env = DrawingEnvironment()
    row = problem_row(problem)
    env.reset(**row)
    trace = Trace(tools=problem.tools)
    conversation = prepare_multimodal_messages(row["prompt"], images=list(row["images"]))
    # TRL's own builder of a tool turn's token ids (GRPOTrainer._get_tool_suffix_ids), on a stand-in trainer.
    fake = SimpleNamespace(
        _is_vlm=True,
        processing_class=processor,
        chat_template=None,
        chat_template_kwargs={},
        _tokenizer=processor.tokenizer,
    )
    for calls in ([("draw_line", LINE)], [("draw_circle", BAD), ("crop_zoom", ZOOM)]):
        conversation.append(_assistant(calls))
        tool_messages = []
        for name, args in calls:
            result = getattr(env, name)(**args)
            content = result if isinstance(result, list) else [{"type": "text", "text": str(result)}]
            tool_messages.append({"role": "tool", "name": name, "content": content})
            # TRL has no per-call reward: nothing to carry for the refused call.
        pictures = [p["image"] for m in tool_messages for p in m["content"] if p["type"] == "image"]
        try:
            trace.own_ids.append((list(GRPOTrainer._get_tool_suffix_ids(fake, tool_messages)), pictures))
        except Exception as exc:  # noqa: BLE001 - TRL's tokeniser refusing the turn is the verdict
            from vcot.rl.doctor import _line

            trace.errors.append(f"TRL's tool-turn tokeniser fails ({_line(exc)})")
        conversation.extend(tool_messages)
        trace.conversations.append(_hf(conversation))
    trace.sent = _replayed(problem)
    completion = [{"role": "assistant", "content": f"<answer>{problem.answer}</answer>"}]
    columns = {k: [row[k]] for k in row if k not in ("prompt", "images")}
    reward_funcs(answer=False, step=False)[0]([row["prompt"]], [completion], environments=[env], **columns)
    trace.rewards.append(("final", 1.0, env.get_reward()))
    return trace


def _drive_verl(processor: Any) -> Trace:
    from verl.experimental.agent_loop.tool_agent_loop import AgentData, ToolAgentLoop
    from verl.experimental.agent_loop.tool_parser import FunctionCall
    from verl.tools.tool_registry import initialize_tools_from_config

    from vcot.rl.verl import compute_score, verl_row, write_tool_config

    problem = _problem()
    with tempfile.TemporaryDirectory() as tmp:
        path = write_tool_config(Path(tmp) / "tools.yaml", max_calls=6, invalid_penalty=PENALTY)
        tools = {t.name: t for t in initialize_tools_from_config(str(path))}
    row = verl_row(problem, split="train", index=0)
    kwargs = row["extra_info"]["tools_kwargs"]
    agent = AgentData(
        messages=[],
        image_data=[],
        video_data=None,
        audio_data=None,
        mm_processor_kwargs=None,
        metrics={},
        request_id="doctor",
        tools_kwargs=kwargs,
    )
    loop = SimpleNamespace(tools=tools, max_tool_response_length=256, tool_response_truncate_side="middle")
    # verl's prompt: the row's `<image>` strings with the row's pictures, as its RLHFDataset expands them.
    images = [Image.open(io.BytesIO(b["bytes"])).convert("RGB") for b in row["images"]]
    conversation: list[dict[str, Any]] = [
        {
            "role": "user",
            "content": [
                {"type": "image", "image": images[0]},
                {"type": "text", "text": row["prompt"][0]["content"].replace("<image>", "")},
            ],
        }
    ]
    trace = Trace(tools=problem.tools)
    for calls in ([("draw_line", LINE)], [("draw_circle", BAD), ("crop_zoom", ZOOM)]):
        conversation.append(_assistant(calls))
        for name, args in calls:
            response, reward, _ = asyncio.run(
                ToolAgentLoop._call_tool(loop, FunctionCall(name=name, arguments=json.dumps(args)), kwargs, agent)
            )
            # The message verl 0.9's tool loop builds from a ToolResponse (tool_agent_loop.py).
            content: list[dict[str, Any]] = [{"type": "image", "image": im} for im in response.image or []]
            content.append({"type": "text", "text": response.text or ""})
            conversation.append({"role": "tool", "content": content})
            trace.rewards.append((f"{name} step", -PENALTY if args is BAD else 0.0, reward))
        trace.conversations.append(_hf(conversation))
    score = compute_score(
        row["data_source"], f"<answer>{problem.answer}</answer>", row["reward_model"]["ground_truth"], row["extra_info"]
    )
    trace.rewards.append(("final", 1.0, score["score"]))
    trace.sent = _replayed(problem)
    return trace


def _drive_skyrl(processor: Any) -> Trace:
    import skyrl_gym

    import vcot.rl.skyrl as adapter

    problem = _problem()
    env = skyrl_gym.make(
        adapter.ENV_ID, env_config={"invalid_penalty": PENALTY}, extras={**adapter.skyrl_row(problem), "max_turns": 7}
    )
    conversation, _ = env.init()
    trace = Trace()
    for calls in ([("draw_line", LINE)], [("draw_circle", BAD), ("crop_zoom", ZOOM)]):
        text = "".join(f"<tool_call>\n{json.dumps({'name': n, 'arguments': a})}\n</tool_call>" for n, a in calls)
        conversation.append({"role": "assistant", "content": text})
        out = env.step(text)
        conversation.extend(out["observations"] if isinstance(out, dict) else out.observations)
        reward = out["reward"] if isinstance(out, dict) else out.reward
        trace.rewards.append(
            (f"turn {len(trace.conversations) + 1}", -PENALTY * sum(a is BAD for _, a in calls), reward)
        )
        trace.conversations.append(_hf(conversation))
    trace.sent = _replayed(problem)
    out = env.step(f"<answer>{problem.answer}</answer>")
    trace.rewards.append(("final", 1.0, out["reward"] if isinstance(out, dict) else out.reward))
    return trace


DRIVERS: dict[str, Callable[[Any], Trace]] = {"trl": _drive_trl, "verl": _drive_verl, "skyrl": _drive_skyrl}


def register_driver(framework: str, driver: Callable[[Any], Trace]) -> None:
    """Add (or replace) a framework's driver: adapters modules outside this one register theirs."""
    DRIVERS[framework] = driver


def _load_adapter_drivers() -> None:
    # The verifiers and OpenEnv adapters keep their drivers beside their own code.
    for framework, module in (("verifiers", "vcot.rl.verifiers_env"), ("openenv", "vcot.rl.openenv")):
        if framework in DRIVERS:
            continue
        try:
            mod = importlib.import_module(module)
        except Exception:  # noqa: BLE001 - a missing package is reported as MISSING below
            continue
        driver = getattr(mod, "doctor_trace", None)
        if driver is not None:
            DRIVERS[framework] = driver


# -- checks -----------------------------------------------------------------------------------------------


def _features(processor: Any, pictures: list[Image.Image]) -> int:
    from vcot.rl.doctor import _expected_image_tokens, _image_token_id

    if not pictures:
        return 0
    return sum(_expected_image_tokens(processor, pictures, _image_token_id(processor)))


def _ids(processor: Any, conversation: list[dict[str, Any]], tools: Any) -> list[int]:
    from vcot.rl.doctor import _ids as tokenise

    kwargs = {"tools": tools} if tools else {}
    return tokenise(processor, conversation, add_generation_prompt=True, **kwargs)


def check_trace(framework: str, processor: Any, trace: Trace) -> list[Any]:
    """The three verdicts of a framework's trace (see the module docstring)."""
    from vcot.rl.doctor import Check, _image_token_id, _line

    token = _image_token_id(processor)
    checks = []
    problems = list(dict.fromkeys(trace.errors))
    try:
        for turn, conversation in enumerate(trace.conversations, start=1):
            pictures = [p["image"] for m in conversation for p in m["content"] if p["type"] == "image"]
            got = _ids(processor, conversation, trace.tools).count(token)
            want = _features(processor, pictures)
            if got != want:
                problems.append(f"turn {turn}: {got} image tokens for {len(pictures)} pictures giving {want} features")
        for k, (ids, pictures) in enumerate(trace.own_ids, start=1):
            got, want = ids.count(token), _features(processor, pictures)
            if got != want:
                problems.append(
                    f"tool turn {k} as {framework} tokenises it: {got} image tokens for "
                    f"{len(pictures)} pictures giving {want} features"
                )
    except Exception as exc:  # noqa: BLE001 - a template that cannot render is a verdict
        problems.append(f"the conversation cannot be tokenised ({_line(exc)})")
    n = len(trace.conversations)
    checks.append(
        Check(
            "image_tokens",
            not problems,
            "; ".join(problems[:2]) if problems else f"image tokens equal image features at each of {n} turns",
        )
    )
    bad = []
    for turn, (conversation, sent) in enumerate(zip(trace.conversations, trace.sent, strict=True), start=1):
        arrived = [pixel_digest(p["image"]) for m in conversation for p in m["content"] if p["type"] == "image"]
        if arrived != sent:
            bad.append(
                f"turn {turn}: {len(arrived)} pictures arrived, {len(sent)} sent, "
                f"{sum(a == b for a, b in zip(arrived, sent, strict=False))} identical"
            )
    checks.append(
        Check(
            "pixels",
            not bad,
            "; ".join(bad[:2])
            if bad
            else f"{len(trace.sent[-1]) if trace.sent else 0} pictures arrive pixel for pixel",
        )
    )
    wrong = [
        f"{what}: expected {want}, got {got}"
        for what, want, got in trace.rewards
        if got is None or abs(float(got) - float(want)) > 1e-9
    ]
    steps = [r for r in trace.rewards if r[0] != "final"]
    note = (
        f"{len(steps)} step reward{'s' if len(steps) != 1 else ''} and the final reward arrive"
        if steps
        else "the final reward arrives (no per-call reward in this framework's tool API)"
    )
    checks.append(Check("rewards", not wrong, "; ".join(wrong[:3]) if wrong else note))
    return checks


def framework_verdicts(processor: Any, frameworks: list[str] | None = None) -> list[Verdict]:
    """One verdict per framework (all of FRAMEWORKS by default) on a loaded processor."""
    from vcot.rl.doctor import _line

    _load_adapter_drivers()
    out = []
    for name in frameworks or list(FRAMEWORKS):
        if name not in FRAMEWORKS:
            raise ValueError(f"unknown framework {name!r}; choose from {', '.join(FRAMEWORKS)}")
        package, extra = _NEEDS[name]
        if importlib.util.find_spec(package) is None:
            out.append(Verdict(name, "MISSING", reason=f"{package} is not installed (pip install 'vcot[{extra}]')"))
            continue
        driver = DRIVERS.get(name)
        if driver is None:
            out.append(Verdict(name, "MISSING", reason=f"the vcot adapter for {name} could not be loaded"))
            continue
        try:
            # Frameworks print as they load tools (verl echoes every tool schema): keep the verdicts readable.
            with contextlib.redirect_stdout(io.StringIO()):
                trace = driver(processor)
        except Exception as exc:  # noqa: BLE001 - a framework that breaks on the episode is a verdict
            out.append(Verdict(name, "FAIL", reason=f"the episode did not run through {name} ({_line(exc)})"))
            continue
        checks = check_trace(name, processor, trace)
        out.append(Verdict(name, "PASS" if all(c.ok for c in checks) else "FAIL", tuple(checks)))
    return out


def framework_verdicts_bounded(
    processor: Any, frameworks: list[str] | None = None, *, seconds: float = 300.0
) -> list[Verdict]:
    """`framework_verdicts` in a forked worker bounded by `seconds` (a chat template's loops run inside every
    tokenisation); frameworks not judged by then FAIL with the bound named. Without `fork` it runs here."""
    import multiprocessing

    names = list(frameworks or FRAMEWORKS)
    if "fork" not in multiprocessing.get_all_start_methods():
        return framework_verdicts(processor, names)
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)

    def work() -> None:
        for name in names:
            try:
                send.send(framework_verdicts(processor, [name])[0])
            except BaseException as exc:  # noqa: BLE001 - the verdict of a framework that crashed the worker
                send.send(Verdict(name, "FAIL", reason=f"the check crashed ({type(exc).__name__}: {exc})"[:200]))
        send.close()

    worker = context.Process(target=work, daemon=True)
    worker.start()
    send.close()
    import time

    deadline = time.monotonic() + seconds
    out: list[Verdict] = []
    try:
        for name in names:
            if not receive.poll(max(0.0, deadline - time.monotonic())):
                out.append(Verdict(name, "FAIL", reason=f"not judged within {seconds:g} s"))
                continue
            try:
                out.append(receive.recv())
            except EOFError:
                out.append(Verdict(name, "FAIL", reason=f"the worker process ended (exit code {worker.exitcode})"))
    finally:
        if worker.is_alive():
            worker.kill()
        worker.join(5)
        receive.close()
    return out
