"""The verifiers adapter against verifiers' own rollout machinery (verifiers 0.4, `verifiers.v1`, CPU).

A three-turn VAoT episode (two drawing calls whose pictures come back, then the answer) runs through
`Env.serving()` and `Env.run_episode`: verifiers' interception server relays every turn of `VcotHarness` to a
scripted OpenAI-compatible policy served over loopback HTTP, records the conversation on the trace, and scores
it with the task's reward. The pictures the policy receives and the trace records are those vcot's environment
drew (pixel digests), the recorded conversation rendered by the tiny Qwen2-VL's processor runs through the
model with as many image tokens as image features, and the reward is vcot's grade: 1.0 for the gold answer,
0.0 for a wrong one.
"""

from __future__ import annotations

import base64
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

# CI installs verifiers and sets VCOT_REQUIRE_RL=1: there a missing or broken install fails instead of skipping.
if os.environ.get("VCOT_REQUIRE_RL") == "1":
    import verifiers.v1  # noqa: F401
else:
    pytest.importorskip("verifiers.v1")

import verifiers.v1 as vf  # noqa: E402  (after the skip)

from vcot.draw.png import pixel_digest  # noqa: E402
from vcot.rl import Curriculum  # noqa: E402
from vcot.rl import verifiers_env as adapter  # noqa: E402
from vcot.rl.env import VcotEnv  # noqa: E402
from vcot.rl.problems import problem_from_row  # noqa: E402

TASK = "convex_hull"
DRAWS = (
    {
        "content": "Joining two points.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "draw_line", "arguments": json.dumps({"x1": 10, "y1": 20, "x2": 300, "y2": 400})},
            }
        ],
    },
    {
        "content": None,
        "tool_calls": [
            {
                "id": "call_2",
                "type": "function",
                "function": {"name": "mark_point", "arguments": json.dumps({"x": 120, "y": 90, "label": "A"})},
            }
        ],
    },
)


@pytest.fixture(scope="module")
def env() -> vf.Env:
    return adapter.load_environment(TASK, seed=0)


@pytest.fixture(scope="module")
def task(env) -> adapter.VcotTask:
    return next(iter(env.taskset))


# --- helpers ----------------------------------------------------------------------------------------------------


def _episode(
    env: vf.Env, task: adapter.VcotTask, replies: list[dict[str, Any]]
) -> tuple[vf.Episode, list[dict[str, Any]]]:
    """One episode through verifiers' `Env.serving` + `Env.run_episode`, the policy a scripted chat-completions
    server on loopback HTTP (`adapter.scripted_policy`) that verifiers' interception relays every turn to."""
    return adapter.run_scripted(env, task, replies)


def _picture(url: str) -> Image.Image:
    assert url.startswith("data:image/png;base64,")
    with Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))) as im:
        return im.convert("RGB")


def _wire_pictures(messages: list[dict[str, Any]]) -> list[Image.Image]:
    return [
        _picture(p["image_url"]["url"])
        for m in messages
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if p.get("type") == "image_url"
    ]


def _hf(messages: list[vf.Message]) -> tuple[list[dict[str, Any]], list[Image.Image]]:
    """A trace's conversation in the form a Hugging Face processor's chat template reads, pictures apart."""
    conversation, pictures = [], []
    for m in messages:
        if m.role == "assistant":
            msg: dict[str, Any] = {"role": "assistant", "content": m.content or ""}
            if m.tool_calls:
                msg["tool_calls"] = [
                    {"type": "function", "function": {"name": c.name, "arguments": json.loads(c.arguments)}}
                    for c in m.tool_calls
                ]
        elif isinstance(m.content, str):
            msg = {"role": m.role, "content": m.content}
        else:
            parts = []
            for p in m.content:
                if isinstance(p, vf.ImageUrlContentPart):
                    pictures.append(_picture(p.image_url.url))
                    parts.append({"type": "image"})
                else:
                    parts.append({"type": "text", "text": p.text})
            msg = {"role": m.role, "content": parts}
        conversation.append(msg)
    return conversation, pictures


def _reference(row: dict[str, Any], replies: list[dict[str, Any]]) -> tuple[list[str], float]:
    """The same replies stepped through a fresh `VcotEnv` outside verifiers: (digests of the pictures it
    returned, its grade of the final answer)."""
    ref = VcotEnv(condition="vaot")
    ref.reset(options={"row": row})
    returned: list[str] = []
    for reply in replies[:-1]:
        _, _, terminated, _, info = ref.step(reply)
        assert not terminated
        returned += info["returned"]
    grader = VcotEnv(condition="vaot")
    grader.reset(options={"row": row})
    return returned, grader.grade(replies[-1]["content"])


# --- the taskset ------------------------------------------------------------------------------------------------


def test_the_taskset_is_vcots_infinite_stream(env, task) -> None:
    taskset = env.taskset
    assert isinstance(taskset, adapter.VcotTaskset) and taskset.INFINITE and not taskset.bounded
    with pytest.raises(ValueError, match="infinite"):
        taskset.shuffle(seed=0)  # verifiers refuses to materialise an unbounded taskset
    tasks = list(taskset.take(3))
    source = VcotEnv([TASK], condition="vaot", seed=0)
    expected = [source.reset()[1]["problem"] for _ in range(3)]
    assert [t.data.id for t in tasks] == [p.uid for p in expected] and tasks[0].data.id == task.data.id
    assert [t.data.idx for t in tasks] == [0, 1, 2] and len({t.key for t in tasks}) == 3
    first = tasks[0].data
    assert first.answer == expected[0].answer and first.name == TASK
    assert [t["function"]["name"] for t in first.tools] == [t["function"]["name"] for t in expected[0].tools]
    [message] = first.prompt
    assert isinstance(message, vf.UserMessage)
    assert [type(p) for p in message.content] == [vf.ImageUrlContentPart, vf.TextContentPart]
    assert pixel_digest(_picture(message.content[0].image_url.url)) == pixel_digest(expected[0].images[0])


def test_a_task_rebuilt_from_its_wire_data_regenerates_the_problem(task) -> None:
    data = adapter.VcotTaskData.model_validate_json(task.data.model_dump_json())
    rebuilt = adapter.VcotTask(data)  # as a worker process gets it: no problem object, no curriculum
    assert rebuilt.problem().digest() == task.problem().digest() == problem_from_row(task.data.row).digest()


def test_verifiers_loaders_resolve_the_taskset_and_its_harness_by_id() -> None:
    config = vf.resolve_env_config(
        {
            "taskset": {"id": adapter.TASKSET_ID, "tasks": [TASK], "seed": 5},
            "agent": {"runtime": {"type": "subprocess"}},
        }
    )
    env = vf.load_environment(config)
    assert isinstance(env, vf.SingleAgentEnv) and isinstance(env.taskset, adapter.VcotTaskset)
    assert isinstance(env._harnesses["agent"], adapter.VcotHarness)  # the taskset's bundled harness
    assert next(iter(env.taskset)).data.row["seed"] == VcotEnv([TASK], seed=5).reset()[1]["problem"].seed


# --- episodes ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("gold", [True, False], ids=["gold", "wrong"])
def test_a_three_turn_episode_through_verifiers(env, task, tiny_model_dir: Path, gold: bool) -> None:
    import torch
    from tiny_vlm import load_processor
    from transformers import Qwen2VLForConditionalGeneration

    answer = task.data.answer if gold else "not " + task.data.answer
    replies = [*DRAWS, {"content": f"The hull holds them. <answer>{answer}</answer>"}]
    episode, seen = _episode(env, task, replies)
    assert episode.ok and not episode.errors
    [trace] = episode.traces
    assert trace.ok and trace.last_error is None and trace.num_turns == 3
    assert [m.role for m in trace.messages] == [
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
        "tool",
        "user",
        "assistant",
    ]
    assert [c.name for m in trace.messages if m.role == "assistant" for c in m.tool_calls or []] == [
        "draw_line",
        "mark_point",
    ]

    # The reward is vcot's grade of the final answer, computed apart from the adapter.
    returned, grade = _reference(task.data.row, replies)
    assert grade == (1.0 if gold else 0.0)
    assert trace.rewards["final"].score == trace.reward == grade and trace.rewards["steps"].score == 0.0
    assert trace.metrics["correct"] == grade and trace.metrics["pictures_returned"] == 2
    assert trace.state.terminated and not trace.state.truncated and trace.state.rewards == [0.0, 0.0, grade]

    # The pictures: the prompt's, then one per drawing call, as vcot's environment drew them — in what the
    # policy received on its last turn and in what the trace recorded.
    expected = [pixel_digest(task.problem().images[0]), *returned]
    assert len(set(expected)) == 3 and trace.state.returned == returned
    assert len(seen) == 3 and seen[-1]["tools"] == task.data.tools
    assert [pixel_digest(p) for p in _wire_pictures(seen[-1]["messages"])] == expected
    conversation, pictures = _hf(trace.messages)
    assert [pixel_digest(p) for p in pictures] == expected

    # The recorded conversation through the tiny Qwen2-VL: as many image tokens as image features.
    processor = load_processor(tiny_model_dir)
    text = processor.apply_chat_template(conversation, tools=task.data.tools, tokenize=False)
    inputs = processor(text=[text], images=pictures, return_tensors="pt")
    model = Qwen2VLForConditionalGeneration.from_pretrained(
        tiny_model_dir, local_files_only=True, dtype=torch.float32
    ).eval()
    with torch.no_grad():
        features = model.model.get_image_features(inputs["pixel_values"], inputs["image_grid_thw"]).pooler_output
        out = model(**inputs)
    tokens = int((inputs["input_ids"] == processor.image_token_id).sum())
    assert len(features) == 3 and tokens == sum(f.shape[0] for f in features) > 0
    assert out.logits.shape[1] == inputs["input_ids"].shape[1] and torch.isfinite(out.logits).all()


def test_a_rollout_verifiers_stops_before_the_answer_is_graded_as_cut_off() -> None:
    env = adapter.load_environment(TASK, seed=0, agent={"max_turns": 1})
    task = next(iter(env.taskset))
    episode, seen = _episode(env, task, [*DRAWS, {"content": f"<answer>{task.data.answer}</answer>"}])
    [trace] = episode.traces
    assert trace.ok and trace.stop_condition is not None and trace.num_turns == 1 and len(seen) == 1
    assert not trace.state.terminated and trace.state.returned  # the drawing call ran, the answer never came
    assert trace.rewards["final"].score == trace.reward == 0.0


def test_a_refused_action_costs_the_penalty_in_the_steps_reward() -> None:
    env = adapter.load_environment(TASK, seed=0, invalid_penalty=0.5)
    task = next(iter(env.taskset))  # the knobs are the taskset's task config
    bad = {
        "id": "call_3",
        "type": "function",
        "function": {"name": "draw_circle", "arguments": json.dumps({"x": 1, "y": 1, "radius": -3})},
    }
    replies = [
        {"content": "", "tool_calls": [bad, *DRAWS[0]["tool_calls"]]},
        {"content": f"<answer>{task.data.answer}</answer>"},
    ]
    episode, seen = _episode(env, task, replies)
    [trace] = episode.traces
    assert trace.state.rewards == [-0.5, 1.0] and len(trace.state.returned) == 1
    assert trace.rewards["steps"].score == -0.5 and trace.rewards["final"].score == 1.0 and trace.reward == 0.5
    answers = {m["tool_call_id"]: m["content"] for m in seen[-1]["messages"] if m["role"] == "tool"}
    assert set(answers) == {"call_1", "call_3"} and answers["call_3"].startswith("Action rejected")


def test_a_reply_cut_off_by_the_token_limit_is_graded_as_cut_off(env, task) -> None:
    text = f"I count them: <answer>{task.data.answer}"  # the closing tag never came
    episode, seen = _episode(env, task, [{"content": text, "finish_reason": "length"}])
    [trace] = episode.traces
    grader = VcotEnv(condition="vaot")
    grader.reset(options={"row": task.data.row})
    assert trace.state.truncated and not trace.state.terminated and len(seen) == 1
    assert trace.rewards["final"].score == grader.grade(text, truncated=True) == 0.0


def test_grades_feed_the_curriculum(task) -> None:
    curriculum = Curriculum([TASK], window=4)
    env = adapter.load_environment(TASK, seed=0, curriculum=curriculum)
    first = next(iter(env.taskset))
    assert first.data.id == task.data.id
    episode, _ = _episode(env, first, [{"content": f"<answer>{first.data.answer}</answer>"}])
    assert episode.traces[0].reward == 1.0
    assert curriculum.state_dict()["tasks"][TASK]["observed"] == 1
