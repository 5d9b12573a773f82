"""The OpenEnv adapter against OpenEnv's own server and client (openenv 0.10, CPU).

`create_vcot_app` is served by uvicorn on loopback and driven through `VcotEnvClient` (OpenEnv's `EnvClient`
over its WebSocket session): a three-turn VAoT episode (two drawing actions whose pictures come back, then
the answer). The pictures cross the wire as PNG data URIs; the pixel digests the server computed equal those
of the pictures the client decodes, the conversation rendered by the tiny Qwen2-VL's processor (with every
returned picture) runs through the model with as many image tokens as image features, and the reward set by
the environment's rubric is vcot's grade: 1.0 for the gold answer, 0.0 for a wrong one. `vcot rl doctor`'s
OpenEnv driver (`adapter.doctor_trace`, a refused call's -0.5 step reward included) passes on the tiny model.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import pytest

# CI installs OpenEnv and sets VCOT_REQUIRE_RL=1: there a missing or broken install fails instead of skipping.
if os.environ.get("VCOT_REQUIRE_RL") == "1":
    import openenv.core  # noqa: F401
else:
    pytest.importorskip("openenv.core")

from vcot.draw.png import pixel_digest  # noqa: E402
from vcot.rl import openenv as adapter  # noqa: E402
from vcot.rl import reward, stream  # noqa: E402
from vcot.rl.openenv import VcotAction, VcotEnvClient, VcotEnvironment  # noqa: E402

TASK = "convex_hull"
ENV_KWARGS = {"tasks": [TASK], "condition": "vaot", "seed": 0}
DRAWS = (
    VcotAction.call("draw_line", {"x1": 10, "y1": 20, "x2": 300, "y2": 400}, content="Joining two points."),
    VcotAction.call("mark_point", '{"x": 120, "y": 90, "label": "A"}'),
)


@pytest.fixture(scope="module")
def problem():
    return stream(tasks=[TASK], seed=4, condition="vaot").take(1)[0]


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The app served by uvicorn in a thread on 127.0.0.1, a free port (`adapter.serve`). Room for the two
    sessions a test opens at once while an earlier test's closed session may still be torn down."""
    with adapter.serve(max_concurrent_envs=4, **ENV_KWARGS) as url:
        assert url.startswith("http://127.0.0.1:")
        yield url


@pytest.fixture(scope="module")
def tiny(tiny_model_dir):
    import torch
    from tiny_vlm import load_processor
    from transformers import Qwen2VLForConditionalGeneration

    model = Qwen2VLForConditionalGeneration.from_pretrained(tiny_model_dir, local_files_only=True, dtype=torch.float32)
    return load_processor(tiny_model_dir), model.eval()


def _client(url: str):
    return VcotEnvClient(base_url=url, message_timeout_s=60.0).sync()


def _received(observation: adapter.VcotObservation) -> list[dict[str, Any]]:
    """The observation's messages decoded client-side, checked picture by picture against the server's
    digests."""
    messages = observation.hf_messages()
    assert [pixel_digest(im) for im in adapter.pictures(messages)] == observation.digests
    return messages


# --- the episode over HTTP ---------------------------------------------------------------------------------------


def test_three_turn_episode_through_the_openenv_client(server, problem, tiny):
    import torch

    processor, model = tiny
    with _client(server) as client:
        first = client.reset(row=problem)
        obs = first.observation
        assert not first.done and first.reward is None
        assert obs.uid == problem.uid and obs.task == TASK and obs.condition == "vaot"
        assert {t["function"]["name"] for t in obs.tools} >= {"draw_line", "mark_point"}
        conversation = _received(obs)
        assert [m["role"] for m in conversation] == ["user"]
        assert problem.question in "".join(p.get("text", "") for p in conversation[0]["content"])
        # The prompt's picture is the problem's own, pixel for pixel.
        assert obs.digests == [pixel_digest(im) for im in problem.images]

        for turn, action in enumerate(DRAWS, start=1):
            result = client.step(action)
            obs = result.observation
            assert not result.done and result.reward == 0.0 and obs.turn == turn
            returned = _received(obs)
            assert [m["role"] for m in returned] == ["tool"]
            assert returned[0]["tool_call_id"] == action.tool_calls[0].id
            assert len(obs.digests) == 1 and obs.digests == obs.returned  # the core's digest of what it drew
            assert obs.digests[0] not in {pixel_digest(im) for im in adapter.pictures(conversation)}
            conversation += [action.message(), *returned]

        gold = f"The red hull holds them. <answer>{problem.answer}</answer>"
        final = client.step(VcotAction.answer(gold))
        assert final.done and final.observation.terminated and not final.observation.truncated
        assert final.reward == 1.0 == reward(gold, problem) == final.observation.turn_reward
        assert final.observation.reward_details["correct"] is True and final.observation.messages == []
        state = client.state()
        assert state.uid == problem.uid and state.turn == 3 and state.step_count == 3 and state.terminated
        conversation.append(VcotAction.answer(gold).message())

        # A step after the end is refused with the server's message; the session stays usable.
        with pytest.raises(RuntimeError, match="call reset"):
            client.step(VcotAction.answer(gold))
        wrong_text = f"<answer>{int(problem.answer) + 1}</answer>"
        client.reset(row=problem.row())
        wrong = client.step(VcotAction.answer(wrong_text))
        assert wrong.done and wrong.reward == 0.0 == reward(wrong_text, problem)

    # The tiny VLM reads the whole conversation, with both returned pictures in their tool turns.
    images = adapter.pictures(conversation)
    assert len(images) == 3
    text = processor.apply_chat_template(conversation, tools=first.observation.tools, tokenize=False)
    inputs = processor(text=[text], images=images, return_tensors="pt")
    pad = processor.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    n_tokens = int((inputs["input_ids"] == pad).sum())
    with torch.no_grad():
        features = model.get_image_features(inputs["pixel_values"], inputs["image_grid_thw"]).pooler_output
        out = model(**inputs)
    assert len(features) == 3 and n_tokens == sum(f.shape[0] for f in features) > 0
    assert out.logits.shape[:2] == inputs["input_ids"].shape and torch.isfinite(out.logits).all()


def test_sessions_are_independent_and_the_stream_serves_without_a_row(server, problem):
    with _client(server) as a, _client(server) as b:
        on_row = a.reset(row=adapter.problem_row(problem)).observation
        streamed = b.reset(seed=0).observation
        assert on_row.uid == problem.uid and streamed.task == TASK and streamed.uid != problem.uid
        assert b.reset(seed=0).observation.uid == streamed.uid  # `seed` restarts the stream
        bad = a.step(VcotAction.call("draw_circle", {"x": 5}))  # a rejected call: text only, no picture
        assert not bad.done and bad.observation.digests == []
        assert [p["type"] for p in bad.observation.messages[0]["content"]] == ["text"]
        done = a.step(VcotAction.answer(f"<answer>{problem.answer}</answer>"))
        assert done.reward == 1.0 and b.state().turn == 0


def test_the_http_routes_publish_the_schemas(server):
    import httpx

    schema = httpx.get(f"{server}/schema", timeout=30).json()
    assert {"content", "tool_calls"} <= set(schema["action"]["properties"])
    assert {"messages", "digests", "tools"} <= set(schema["observation"]["properties"])
    assert httpx.get(f"{server}/health", timeout=30).status_code == 200
    # The stateless route answers a reset (OpenEnv builds a fresh environment per request).
    reset = httpx.post(f"{server}/reset", json={"seed": 0}, timeout=60).json()
    assert reset["observation"]["task"] == TASK and reset["observation"]["digests"]


# --- in process --------------------------------------------------------------------------------------------------


def test_the_rubric_is_vcots_grader_and_grades_once(problem):
    from vcot.rl import Curriculum

    class Counting(Curriculum):
        def observe(self, task: str, reward: float) -> None:
            seen.append((task, reward))
            super().observe(task, reward)

    seen: list[tuple[str, float]] = []
    env = VcotEnvironment(**ENV_KWARGS, curriculum=Counting([TASK]))
    assert isinstance(env.rubric, adapter.VcotRubric)
    first = env.reset(row=problem)
    tampered = first.model_copy(update={"digests": ["0" * 64]})
    with pytest.raises(ValueError, match="differ"):
        tampered.hf_messages()
    assert len(tampered.hf_messages(check=False)) == len(first.hf_messages())
    drawn = env.step(DRAWS[0])
    assert drawn.reward == env.rubric.last_score == drawn.turn_reward == 0.0 and not seen
    text = f"<answer>{problem.answer}</answer>"
    final = env.step(VcotAction(content=text))
    assert final.reward == env.rubric.last_score == reward(text, problem) == 1.0
    assert env.state.reward == 1.0 and env.state.terminated
    assert seen == [(TASK, 1.0)]  # the curriculum hears of the episode once
    with pytest.raises(adapter.EpisodeOver):
        env.step(VcotAction(content=text))
    with pytest.raises(TypeError, match="rows"):
        env.reset(rows=problem.row())


def test_the_model_doctor_passes_openenv_on_the_tiny_model(tiny):
    from vcot.rl.conformance import framework_verdicts

    processor, _ = tiny
    (verdict,) = framework_verdicts(processor, ["openenv"])
    assert verdict.status == "PASS", verdict
    assert [check.name for check in verdict.checks] == ["image_tokens", "pixels", "rewards"]


def test_actions_from_model_messages_and_back():
    openai_form = {
        "role": "assistant",
        "content": "look",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "mark_point", "arguments": '{"x": 1, "y": 2}'}}
        ],
    }
    action = VcotAction.from_message(openai_form)
    assert action.core() == {
        "content": "look",
        "tool_calls": [{"id": "c1", "name": "mark_point", "arguments": '{"x": 1, "y": 2}'}],
    }
    assert action.message()["tool_calls"][0]["function"] == {"name": "mark_point", "arguments": {"x": 1, "y": 2}}
    flat = VcotAction.from_message({"content": [{"type": "text", "text": "<answer>3</answer>"}]})
    assert flat.core() == "<answer>3</answer>" and flat.message()["content"][0]["text"] == "<answer>3</answer>"
    assert VcotAction.model_validate(action.model_dump(mode="json")) == action
    with pytest.raises(ValueError):
        adapter.decode_picture("data:image/jpeg;base64,AAAA")
