"""The SkyRL-gym adapter against skyrl-gym itself: the environment made through skyrl_gym's registry, driven the
way SkyRL's VLM generator drives it (init → step with the generated text → the assistant text and the
observations appended to the conversation), the conversation rendered by the tiny Qwen2-VL's processor with
every returned picture and run through the model.

Tool calls are written in the text format the environment parses: Qwen's / Hermes' blocks,
`<tool_call>{"name": ..., "arguments": {...}}</tool_call>`."""

from __future__ import annotations

import base64
import importlib
import io
import json
import os

import pytest
from PIL import Image


def _require(name: str):
    # CI installs skyrl-gym and sets VCOT_REQUIRE_RL=1: a broken install must fail there, not skip.
    if os.environ.get("VCOT_REQUIRE_RL") == "1":
        return importlib.import_module(name)
    return pytest.importorskip(name)


skyrl_gym = _require("skyrl_gym")

from vcot.draw.png import pixel_digest  # noqa: E402
from vcot.rl import reward, stream  # noqa: E402
from vcot.rl import skyrl as adapter  # noqa: E402
from vcot.rl.env import VcotEnv  # noqa: E402

TASK = "convex_hull"


@pytest.fixture(scope="module")
def problem():
    return stream(tasks=[TASK], seed=5, condition="vaot", difficulty="easy").take(1)[0]


@pytest.fixture(scope="module")
def tiny(tiny_model_dir):
    from tiny_vlm import load_processor

    return load_processor(tiny_model_dir)


def _call(name: str, arguments: dict) -> str:
    return f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call>"


def _drawing(problem) -> list[tuple[str, dict]]:
    w, h = problem.images[0].size
    return [
        ("draw_line", {"x1": w * 0.1, "y1": h * 0.2, "x2": w * 0.8, "y2": h * 0.7, "color": "red"}),
        ("crop_zoom", {"x1": 0, "y1": 0, "x2": w // 2, "y2": h // 2}),
    ]


def _extras(problem, **more) -> dict:
    row = adapter.skyrl_row(problem)
    # What SkyRL's PromptDataset hands the environment: the row without prompt and env_class, plus max_turns.
    extras = {k: v for k, v in row.items() if k not in ("prompt", "env_class")}
    return {**extras, "max_turns": 8, **more}


def _rollout(problem, replies: list[str], env_config: dict | None = None, **extras):
    """SkyRL's VLM agent loop with scripted replies; returns (env, conversation, step outputs)."""
    row = adapter.skyrl_row(problem)
    env = skyrl_gym.make(row["env_class"], env_config=env_config or {}, extras=_extras(problem, **extras))
    conversation, _ = env.init(row["prompt"])
    outputs = []
    for reply in replies:
        out = env.step(reply)
        conversation.append({"role": "assistant", "content": reply})
        outputs.append(out)
        if out["done"]:
            break
        conversation.extend(out["observations"])
    return env, conversation, outputs


def _pictures(conversation) -> list[Image.Image]:
    out = []
    for message in conversation:
        for part in message["content"] if isinstance(message["content"], list) else []:
            if part.get("type") == "image_url":
                url = part["image_url"]["url"]
                assert url.startswith("data:image/png;base64,")
                with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as im:
                    im.load()
                    out.append(im.copy())
            elif part.get("type") == "image":
                out.append(part["image"])
    return out


def _expected(problem, actions) -> list[str]:
    """Digests of the pictures the core itself draws for `actions` on a fresh episode (per-call API)."""
    env = VcotEnv(tasks=[problem.task], condition="vaot", difficulty=problem.difficulty)
    env.reset(options={"row": adapter.problem_spec(problem)})
    digests = []
    for name, arguments in actions:
        picture, _text, _step = env.act(name, arguments)
        assert picture is not None, _text
        digests.append(pixel_digest(picture))
    return digests


def test_registered_under_vcot():
    assert "vcot" in skyrl_gym.registry
    assert skyrl_gym.spec("vcot").entry_point == "vcot.rl.skyrl:VcotSkyRLEnv"
    assert adapter.register_env() == "vcot"  # idempotent: importing twice must not raise
    with pytest.raises(skyrl_gym.error.RegistrationError):
        skyrl_gym.register(id="vcot", entry_point="skyrl_gym.envs.gsm8k.env:GSM8kEnv")


@pytest.mark.parametrize("correct", [True, False])
def test_three_turn_episode_renders_and_runs_through_the_tiny_vlm(problem, tiny, tiny_model_dir, correct):
    import torch
    from transformers import Qwen2VLForConditionalGeneration

    gold = str(problem.answer)
    answer = gold if correct else str(int(gold) + 1)
    actions = _drawing(problem)
    replies = [
        _call(*actions[0]),
        "Now zoom in.\n" + _call(*actions[1]),
        f"The hull leaves them out. <answer>{answer}</answer>",
    ]
    env, conversation, outs = _rollout(problem, replies)

    assert isinstance(env, adapter.VcotSkyRLEnv) and env.problem.uid == problem.uid
    assert [o["done"] for o in outs] == [False, False, True]
    # The system message names the tools in the format the env parses; the first user turn is the problem.
    assert conversation[0]["role"] == "system" and "<tool_call>" in conversation[0]["content"][0]["text"]
    assert "draw_line" in conversation[0]["content"][0]["text"]
    assert conversation[0]["content"][0]["text"].count("# Tools") == 1
    assert conversation[:2] == adapter.skyrl_row(problem)["prompt"]  # the row's prompt is the opening
    assert conversation[1]["role"] == "user" and problem.question in json.dumps(conversation[1]["content"])

    # Each drawing turn comes back as one user message holding the call's text and its picture.
    sent = []
    for out in outs[:2]:
        (obs,) = out["observations"]
        assert obs["role"] == "user"
        assert [p["type"] for p in obs["content"]] == ["text", "image_url"]
        assert out["reward"] == 0.0 and len(out["metadata"]["returned"]) == 1
        sent.extend(out["metadata"]["returned"])
    pictures = _pictures(conversation)
    assert len(pictures) == 3
    assert pixel_digest(pictures[0]) == pixel_digest(problem.images[0])
    assert [pixel_digest(p) for p in pictures[1:]] == sent == _expected(problem, actions)

    # The reward is vcot's grade of the answer.
    final = outs[-1]
    assert final["observations"] == []
    assert final["reward"] == (1.0 if correct else 0.0)
    assert final["reward"] == reward(replies[-1], problem) == env.env.grade(replies[-1])
    assert env.get_metrics()["answer_reward"] == final["reward"]
    assert env.get_metrics()["tool_calls"] == 2 and env.get_metrics()["returned_pictures"] == 2

    # The tiny VLM's processor renders the whole conversation, pictures included, and the model runs it.
    text = tiny.apply_chat_template(conversation, tokenize=False)
    assert text.count("<|vision_start|><|image_pad|><|vision_end|>") == 3
    assert text.count("<tool_call>") >= 3  # two calls plus the format shown in the system message
    inputs = tiny(text=[text], images=pictures, return_tensors="pt")
    pad = tiny.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    n_tokens = int((inputs["input_ids"] == pad).sum())
    model = Qwen2VLForConditionalGeneration.from_pretrained(
        tiny_model_dir, local_files_only=True, dtype=torch.float32
    ).eval()
    with torch.no_grad():
        features = model.get_image_features(inputs["pixel_values"], inputs["image_grid_thw"]).pooler_output
        logits = model(**inputs).logits
    assert n_tokens == sum(int(f.shape[0]) for f in features) > 0
    # Per picture too: the runs of image tokens, in order, match each picture's features.
    ids = inputs["input_ids"][0].tolist()
    runs, run = [], 0
    for token in ids + [None]:
        if token == pad:
            run += 1
        elif run:
            runs.append(run)
            run = 0
    assert runs == [int(f.shape[0]) for f in features]
    assert logits.shape[:2] == inputs["input_ids"].shape and torch.isfinite(logits).all()


def test_tool_role_observations_and_pil_pictures(problem, tiny):
    actions = _drawing(problem)
    two_calls = _call(*actions[0]) + "\n" + _call(*actions[1])
    env, conversation, outs = _rollout(
        problem,
        [two_calls, f"<answer>{problem.answer}</answer>"],
        env_config={"observation_role": "tool", "image_format": "pil"},
    )
    obs = outs[0]["observations"]
    assert [m["role"] for m in obs] == ["tool", "tool"]
    assert [m["tool_call_id"] for m in obs] == ["call_1_0", "call_1_1"]
    assert all(any(p["type"] == "image" for p in m["content"]) for m in obs)
    assert [pixel_digest(p) for p in _pictures(conversation)[1:]] == _expected(problem, actions)
    assert outs[-1]["reward"] == 1.0
    # The tiny template renders pictures inside tool turns too.
    text = tiny.apply_chat_template(conversation, tokenize=False)
    assert text.count("<|image_pad|>") == 3 and text.count("<tool_response>") == 2


def test_malformed_calls_are_rejected_and_json_blocks_run(problem):
    bad = '<tool_call>\n{"name": "draw_line", "arguments": {"x1": 1,, }\n</tool_call>'
    unknown = _call("draw_unicorn", {"x": 1})
    name, arguments = _drawing(problem)[0]
    block = "```json\n" + json.dumps({"action": name, **arguments}) + "\n```"
    env, conversation, outs = _rollout(problem, [bad, unknown, block, f"<answer>{problem.answer}</answer>"])
    for out in outs[:2]:
        assert not out["done"] and out["metadata"]["returned"] == []
        (obs,) = out["observations"]
        assert [p["type"] for p in obs["content"]] == ["text"]
        assert obs["content"][0]["text"].startswith("Action rejected")
    # The prompt's other action form, a fenced JSON block, is run by the core and its picture comes back.
    (obs,) = outs[2]["observations"]
    assert obs["role"] == "user" and [p["type"] for p in obs["content"]][:2] == ["text", "image_url"]
    assert [pixel_digest(p) for p in _pictures([obs])] == outs[2]["metadata"]["returned"]
    assert outs[2]["metadata"]["returned"] == _expected(problem, [(name, arguments)])
    assert outs[-1]["done"] and outs[-1]["reward"] == 1.0


def test_parse_tool_calls_text_format():
    content, calls = adapter.parse_tool_calls(
        'Think.\n<tool_call>{"name": "mark_point", "arguments": "{\\"x\\": 3, \\"y\\": 4}"}</tool_call>'
        '<tool_call>{"type": "function", "function": {"name": "draw_circle", "arguments": {"x": 1}}}</tool_call>',
        turn=2,
    )
    assert content == "Think."
    assert calls == [
        {"id": "call_2_0", "name": "mark_point", "arguments": '{"x": 3, "y": 4}'},
        {"id": "call_2_1", "name": "draw_circle", "arguments": {"x": 1}},
    ]
    assert adapter.parse_tool_calls("<answer>3</answer>") == ("<answer>3</answer>", [])
    # An unclosed block (the reply was cut off) is not a call: the reply is graded as it is.
    assert adapter.parse_tool_calls('<tool_call>{"name": "draw_line"')[1] == []


def test_trainer_max_turns_sets_the_budget_and_ends_the_episode_graded(problem):
    from vcot.vaot.actions import MAX_TURNS

    actions = _drawing(problem)
    acting = [_call(*actions[0]), _call(*actions[1]), "<answer>x</answer>"]
    # A cap of 2 replies: a budget of 1 drawing round, stated in the prompt; the core ends the second reply.
    env, conversation, outs = _rollout(problem, acting, max_turns=2)
    assert "at most 1 rounds" in json.dumps(conversation[1]["content"])
    assert [o["done"] for o in outs] == [False, True]
    assert outs[-1]["metadata"]["truncated"] is True and "cut_off" not in outs[-1]["metadata"]
    assert outs[-1]["reward"] == 0.0 == env.get_metrics()["answer_reward"]
    # A large cap keeps the evaluation's budget (the prompt `vcot eval` sends).
    env, conversation, _ = _rollout(problem, [], max_turns=50)
    assert f"at most {MAX_TURNS} rounds" in json.dumps(conversation[1]["content"])
    # An explicit budget past the cap: the adapter ends the episode at the cap and grades the last reply.
    env, _, outs = _rollout(problem, acting, env_config={"budget": 5}, max_turns=2)
    assert [o["done"] for o in outs] == [False, True]
    assert outs[-1]["metadata"]["cut_off"] is True and outs[-1]["reward"] == 0.0
    assert outs[-1]["metadata"]["reward_details"]["reward"] == 0.0


def test_step_rewards_arrive_at_their_turn(problem):
    from vcot.rl.rewards import problem_probes

    probes = problem_probes(problem)
    assert len(probes) >= 2  # convex_hull states its hull before its answer
    first = f"<step1>{probes[0]['answer']}</step1>\n" + _call(*_drawing(problem)[0])
    last = f"<step2>{probes[1]['answer']}</step2> <answer>{problem.answer}</answer>"
    _, _, outs = _rollout(problem, [first, last], env_config={"step_weight": 1.0})
    share = 1.0 / len(probes)
    assert outs[0]["reward"] == pytest.approx(share) and not outs[0]["done"]
    assert outs[1]["reward"] == pytest.approx(share + 1.0)  # the new step, then the grader's 1.0
    assert outs[1]["metadata"]["step_rewards"] == [1.0] * len(probes)


def test_stream_mode_registered_defaults_and_bad_config(problem):
    env = skyrl_gym.make("vcot", env_config={"tasks": [TASK], "difficulty": "easy"}, extras={"seed": 5})
    conversation, info = env.init([{"role": "system", "content": "Be brief."}])
    assert info["task"] == TASK and conversation[0]["role"] == "system"
    assert conversation[0]["content"][0]["text"].startswith("Be brief.\n\n# Tools")
    # SkyRL's generator passes env_config={} for an environment its config does not know: defaults registered
    # with the id still apply.
    try:
        adapter.register_env("vcot-test", tasks=[TASK], difficulty="easy", tools_prompt=False)
        env = skyrl_gym.make("vcot-test", env_config={}, extras={"seed": 5})
        conversation, info = env.init([])
        assert info["task"] == TASK and [m["role"] for m in conversation] == ["user"]
    finally:
        skyrl_gym.envs.registration.deregister("vcot-test")
    with pytest.raises(adapter.SkyRLAdapterError):
        skyrl_gym.make("vcot", env_config={}, extras={})
    with pytest.raises(adapter.SkyRLAdapterError):
        skyrl_gym.make("vcot", env_config={"image_format": "jpeg"}, extras=_extras(problem))
    with pytest.raises(adapter.SkyRLAdapterError):
        skyrl_gym.make("vcot", env_config={"max_turn": 3}, extras=_extras(problem))
    stale = _extras(problem, reward_spec={"method": "rule", "ground_truth": "not the answer"})
    with pytest.raises(adapter.SkyRLAdapterError):
        skyrl_gym.make("vcot", extras=stale).init([])
