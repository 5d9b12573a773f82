"""The TRL adapter against TRL's own GRPOTrainer on CPU, with the tiny Qwen2-VL of tests/rl/tiny_vlm.py.

- the datasets carry TRL's conversational prompt, PIL images and vcot's problem columns;
- the reward functions have TRL's signature and give vcot's grades;
- every VAoT action is a typed tool whose schema matches vcot.vaot.actions, and no model call raises;
- a real GRPOTrainer run (streaming dataset, reward functions, drawing environment, curriculum callback)
  completes two optimizer steps and logs vcot's rewards, equal to vcot.rl's grades of its own completions;
- TRL's tool-call path (`GRPOTrainer._generate` → `_tool_call_loop`: parse the tool call, run the tool, append
  its result, tokenise it into the next turn) carries the environment's picture into the next turn, and the
  environment's `get_reward` grades the final answer after the tool turn.
"""

from __future__ import annotations

import inspect
import json
import math
from pathlib import Path
from typing import Any, get_args

import pytest

pytest.importorskip("torch")
pytest.importorskip("transformers")
pytest.importorskip("trl")
pytest.importorskip("datasets")

import torch  # noqa: E402
from PIL import Image, ImageChops  # noqa: E402
from transformers.utils import get_json_schema  # noqa: E402

import vcot.rl as rl  # noqa: E402
from vcot.rl import trl as adapter  # noqa: E402
from vcot.vaot.actions import ACTION_TYPES, ColorName  # noqa: E402

TASKS = ["convex_hull", "mirror_pattern"]


def _config(tmp_path: Path, **extra: Any):
    from trl import GRPOConfig

    base = dict(
        output_dir=str(tmp_path / "out"),
        use_cpu=True,
        bf16=False,
        report_to="none",
        seed=0,
        per_device_train_batch_size=2,
        num_generations=2,
        max_completion_length=24,
        learning_rate=1e-3,
        logging_steps=1,
        max_steps=2,
        save_strategy="no",
        activation_checkpointing=False,
        shuffle_dataset=False,
        dataloader_num_workers=0,
        max_tool_calling_iterations=2,
        disable_tqdm=True,
    )
    base.update(extra)
    return GRPOConfig(**base)


def _model(path: Path):
    from transformers import Qwen2VLForConditionalGeneration

    return Qwen2VLForConditionalGeneration.from_pretrained(path, local_files_only=True, dtype=torch.float32)


def _answer_completion(text: str) -> list[dict[str, Any]]:
    return [{"role": "assistant", "content": text}]


# --- datasets ---------------------------------------------------------------------------------------------------


def test_rows_carry_the_prompt_the_pictures_and_the_problem_columns() -> None:
    ds = adapter.dataset(4, tasks=TASKS, seed=5, condition="vaot")
    assert len(ds) == 4 and set(ds.column_names) == {"prompt", "images", *adapter.ROW_COLUMNS}
    problems = rl.stream(tasks=TASKS, seed=5, condition="vaot").take(4)
    for row, problem in zip(ds, problems, strict=True):
        assert row["uid"] == problem.uid and row["answer"] == problem.answer and row["task"] == problem.task
        assert json.loads(row["params"]) == json.loads(json.dumps(problem.params))
        assert all(isinstance(im, Image.Image) for im in row["images"]) and len(row["images"]) == len(problem.images)
        assert (
            ImageChops.difference(row["images"][0].convert("RGB"), problem.images[0].convert("RGB")).getbbox() is None
        )
        # TRL's prepare_multimodal_messages fills one {"type": "image"} placeholder per picture, in order.
        placeholders = [p for m in row["prompt"] for p in m["content"] if p["type"] == "image"]
        assert len(placeholders) == len(row["images"])
        assert all(isinstance(m["content"], list) for m in row["prompt"])
        texts = " ".join(p["text"] for m in row["prompt"] for p in m["content"] if p["type"] == "text")
        assert problem.question.split()[0] in texts
        assert row["options"] == list(problem.options or [])


def test_the_streaming_dataset_gives_the_same_rows_in_the_same_order() -> None:
    fixed = adapter.dataset(3, tasks=TASKS, seed=7)
    streamed = [row for _, row in zip(range(3), adapter.iterable_dataset(TASKS, seed=7), strict=False)]
    assert [r["uid"] for r in streamed] == fixed["uid"]
    assert streamed[0]["prompt"] == fixed[0]["prompt"]


def test_the_trl_prompt_renders_with_the_pictures(tiny_model_dir: Path) -> None:
    from tiny_vlm import load_processor
    from trl.data_utils import prepare_multimodal_messages

    processor = load_processor(tiny_model_dir)
    row = next(iter(adapter.iterable_dataset(TASKS, seed=1)))
    messages = prepare_multimodal_messages(row["prompt"], images=row["images"])
    out = processor.apply_chat_template(messages, add_generation_prompt=True, tokenize=True, return_dict=True)
    grid = out["image_grid_thw"]
    assert list(out["input_ids"][0]).count(processor.image_token_id) == int(grid.prod(-1).sum()) // 4 > 0


# --- reward functions -------------------------------------------------------------------------------------------


def _columns(rows: list[dict[str, Any]]) -> dict[str, list[Any]]:
    return {key: [r[key] for r in rows] for key in rows[0]}


def test_reward_functions_take_trls_signature_and_give_vcots_grades() -> None:
    rows = list(adapter.dataset(4, tasks=TASKS, seed=2))
    answer, fmt, step = adapter.reward_funcs()
    assert [f.__name__ for f in (answer, fmt, step)] == ["vcot_answer", "vcot_format", "vcot_step"]
    from trl.trainer.utils import get_callable_name

    assert [get_callable_name(f) for f in (answer, fmt, step)] == ["vcot_answer", "vcot_format", "vcot_step"]
    completions = [
        _answer_completion(f"<answer>{r['answer']}</answer>")
        if i % 2 == 0
        else _answer_completion("I think it is <answer>definitely not this</answer>")
        for i, r in enumerate(rows)
    ]
    prompts = [r["prompt"] for r in rows]
    got = answer(prompts, completions, completion_ids=None, **_columns(rows))
    assert got == [1.0, 0.0, 1.0, 0.0]
    assert got == [rl.reward(c, r) for c, r in zip(completions, rows, strict=True)]
    assert fmt(prompts, completions + [], **_columns(rows)) == [1.0] * 4
    assert fmt(prompts, [_answer_completion("no tag")] * 4, **_columns(rows)) == [0.0] * 4
    steps = step(prompts, [_answer_completion("<step1>3</step1> <answer>1</answer>")] * 4, **_columns(rows))
    assert steps == [rl.step_reward("<step1>3</step1> <answer>1</answer>", r) for r in rows]
    assert all(0.0 <= s <= 1.0 for s in steps)
    # A task without state probes has no step reward: None, which TRL leaves out of the mean.
    assert step(prompts[:1], completions[:1], **_columns([{**rows[0], "task": "toy_dots"}])) == [None]
    (dense,) = adapter.reward_funcs(answer=False, format=False, step=False, dense=True)
    assert dense.__name__ == "vcot_dense"
    said = [_answer_completion("<step1>3</step1> <answer>1</answer>")] * 4
    assert dense(prompts, said, **_columns(rows)) == [
        rl.dense_reward("<step1>3</step1> <answer>1</answer>", r) if rl.dense_rewards("x", r) else None for r in rows
    ]


def test_rows_without_vcot_columns_are_not_graded() -> None:
    answer = adapter.reward_funcs(format=False, step=False)[0]
    assert answer([[{"role": "user", "content": "hi"}]], [_answer_completion("<answer>1</answer>")], foo=["bar"]) == [
        None
    ]


def test_a_cut_off_completion_scores_zero_when_the_end_of_turn_ids_are_known() -> None:
    rows = list(adapter.dataset(1, tasks=TASKS, seed=2))
    answer = adapter.reward_funcs(format=False, step=False, eos_token_ids=[2])[0]
    # Without the tag the grader takes a final "answer is" only from a finished completion.
    untagged = [_answer_completion(f"So the answer is {rows[0]['answer']}.")]
    assert answer([rows[0]["prompt"]], untagged, completion_ids=[[5, 6, 2]], **_columns(rows)) == [1.0]
    assert answer([rows[0]["prompt"]], untagged, completion_ids=[[5, 6, 7]], **_columns(rows)) == [0.0]
    tagged = [_answer_completion(f"<answer>{rows[0]['answer']}</answer>")]
    assert answer([rows[0]["prompt"]], tagged, completion_ids=[[5, 6, 7]], **_columns(rows)) == [1.0]


def test_the_answer_reward_feeds_the_curriculum() -> None:
    rows = list(adapter.dataset(2, tasks=TASKS, seed=4))
    seen: list[tuple[str, float]] = []

    class Recorder:
        def observe(self, task: str, reward: float) -> None:
            seen.append((task, reward))

        def level(self, task: str) -> int:
            return 1

    answer = adapter.reward_funcs(format=False, step=False, curriculum=Recorder())[0]
    answer(
        [r["prompt"] for r in rows], [_answer_completion(f"<answer>{rows[0]['answer']}</answer>")] * 2, **_columns(rows)
    )
    assert seen[0] == (rows[0]["task"], 1.0) and [t for t, _ in seen] == [r["task"] for r in rows]


def test_the_callback_applies_rewards_at_step_end_and_keeps_the_curriculum_in_checkpoints(tmp_path: Path) -> None:
    from transformers import TrainerControl, TrainerState

    curriculum = rl.Curriculum(TASKS, band=(0.2, 0.5), window=4, start="easy")
    feed = adapter.CurriculumCallback(curriculum)
    args, control = type("Args", (), {"output_dir": str(tmp_path)})(), TrainerControl()
    for _ in range(4):
        feed.observe(TASKS[0], 1.0)
    assert curriculum.level(TASKS[0]) == "easy"  # queued, not applied before the step ends
    state = TrainerState(global_step=3)
    feed.on_step_end(args, state, control)
    assert feed.observed == 4 and curriculum.level(TASKS[0]) == "medium" and curriculum.history
    state.log_history.append({"loss": 1.0})
    feed.on_log(args, state, control, logs={"loss": 1.0})
    assert state.log_history[-1][f"curriculum/{TASKS[0]}"] == "medium"
    feed.on_save(args, state, control)
    assert (tmp_path / "checkpoint-3" / adapter.CURRICULUM_FILE).is_file()
    fresh = rl.Curriculum(TASKS, band=(0.2, 0.5), window=4, start="easy")
    adapter.CurriculumCallback(fresh).on_train_begin(args, state, control)  # a resume from checkpoint-3
    assert fresh.state_dict() == curriculum.state_dict()
    untouched = rl.Curriculum(TASKS, band=(0.2, 0.5), window=4, start="easy")
    adapter.CurriculumCallback(untouched).on_train_begin(args, TrainerState(global_step=0), control)
    assert untouched.level(TASKS[0]) == "easy"


# --- the drawing environment ------------------------------------------------------------------------------------


def _env(row: dict[str, Any], **knobs: Any) -> adapter.DrawingEnvironment:
    env = adapter.DrawingEnvironment.factory(**knobs)()
    assert env.reset(**row) is None
    return env


def _tools() -> list[str]:
    return [
        name
        for name, _ in inspect.getmembers(adapter.DrawingEnvironment, predicate=inspect.isfunction)
        if not name.startswith("_") and name not in ("reset", "get_reward")
    ]


def test_every_vaot_action_is_a_typed_tool_matching_the_action_schema() -> None:
    # What TRL exposes: every public function of the class except reset and get_reward.
    assert sorted(_tools()) == sorted(ACTION_TYPES)
    env = adapter.DrawingEnvironment()
    for name, cls in ACTION_TYPES.items():
        schema = get_json_schema(getattr(env, name))["function"]
        fields = {k: f for k, f in cls.model_fields.items() if k != "action"}
        assert set(schema["parameters"]["properties"]) == set(fields), name
        assert set(schema["parameters"].get("required", [])) == {k for k, f in fields.items() if f.is_required()}
        params = inspect.signature(getattr(env, name)).parameters
        for key, field in fields.items():
            if not field.is_required():
                assert params[key].default == field.default, (name, key)
            assert schema["parameters"]["properties"][key]["description"], (name, key)
        if "color" in fields:
            assert schema["parameters"]["properties"]["color"]["enum"] == list(get_args(ColorName))
        assert "top-left" in schema["description"], name


def test_actions_render_and_bad_calls_return_an_error_text(tiny_model_dir: Path) -> None:
    row = adapter.dataset(1, tasks=TASKS, seed=3, condition="vaot")[0]
    env = _env(row, max_calls=11)  # rejected calls count too (the positional one never reaches the session)
    before = row["images"][0].convert("RGB")
    out = env.draw_line(x1=5, y1=5, x2=60, y2=40, color="blue")
    assert isinstance(out, list) and [p["type"] for p in out] == ["image", "text"]
    assert ImageChops.difference(out[0]["image"].convert("RGB"), before).getbbox() is not None
    bad_calls = [
        lambda: env.draw_line(x1=1, y1=2),  # missing arguments
        lambda: env.draw_line(x1=1, y1=2, x2=3, y2=4, thickness=9),  # unknown argument
        lambda: env.draw_circle(x=1, y=1, radius=math.nan),  # not finite
        lambda: env.mark_point(x="left", y=3),  # wrong type
        lambda: env.draw_polygon(points=[[0, 0]] * 10_000),  # past the point bound
        lambda: env.annotate_text(x=1, y=1, text="x" * 1000),
        lambda: env.crop_zoom(x1=0, y1=0, x2=3, y2=3),  # too small
        lambda: env.draw_line(1, 2, 3, 4),  # positional
        lambda: env.mask_region(x1=0, y1=0, x2=9, y2=9, mode="explode"),
    ]
    for call in bad_calls:
        result = call()
        assert isinstance(result, str) and result.startswith("Action rejected"), result
    assert isinstance(env.mark_point(x=10, y=10, label="A"), list)
    assert isinstance(env.highlight_box(x1=0, y1=0, x2=30, y2=30), list)
    exhausted = env.draw_arrow(x1=1, y1=1, x2=30, y2=30)  # the twelfth call
    assert isinstance(exhausted, str) and exhausted.startswith("Action rejected"), exhausted
    fresh = adapter.DrawingEnvironment()
    assert fresh.draw_line(x1=1, y1=1, x2=2, y2=2).startswith("Action rejected")  # no reset yet


def test_the_corruption_knob_changes_what_is_rendered() -> None:
    row = adapter.dataset(1, tasks=TASKS, seed=3, condition="vaot")[0]
    line = {"x1": 10, "y1": 10, "x2": 120, "y2": 90, "color": "red", "width": 4}
    faithful = _env(row).draw_line(**line)[0]["image"]
    again = _env(row).draw_line(**line)[0]["image"]
    key = _env(row, corruption="modify_key").draw_line(**line)[0]["image"]
    assert ImageChops.difference(faithful, again).getbbox() is None
    assert ImageChops.difference(faithful, key).getbbox() is not None
    with pytest.raises(ValueError):
        adapter.DrawingEnvironment.factory(corruption="sometimes")


def test_get_reward_grades_the_completion_the_reward_functions_hand_over() -> None:
    rows = list(adapter.dataset(2, tasks=TASKS, seed=6, condition="vaot"))
    envs = [_env(r) for r in rows]
    assert envs[0].get_reward() is None  # nothing handed over yet: TRL ignores the rollout's env reward
    completions = [_answer_completion(f"<answer>{rows[0]['answer']}</answer>"), _answer_completion("no idea")]
    adapter.reward_funcs(answer=False, step=False)[0](
        [r["prompt"] for r in rows], completions, environments=envs, **_columns(rows)
    )
    assert [e.get_reward() for e in envs] == [1.0, 0.0]
    envs[0].reset(**rows[1])
    assert envs[0].get_reward() is None  # a new rollout forgets the last completion


# --- GRPOTrainer ------------------------------------------------------------------------------------------------


def test_a_real_grpo_run_logs_vcots_rewards(tiny_model_dir: Path, tmp_path: Path) -> None:
    from tiny_vlm import load_processor
    from trl import GRPOTrainer

    processor = load_processor(tiny_model_dir)
    # docs/rl.md's recipe, scaled down: the callback feeds the curriculum the stream draws from.
    curriculum = rl.Curriculum(TASKS, window=4)
    feed = adapter.CurriculumCallback(curriculum)
    env_factory = adapter.DrawingEnvironment.factory(max_calls=2, curriculum=feed)
    train = adapter.iterable_dataset(TASKS, seed=11, condition="vaot", curriculum=curriculum)
    funcs = adapter.reward_funcs(answer=False, eos_token_ids=[processor.tokenizer.eos_token_id])
    trainer = GRPOTrainer(
        model=_model(tiny_model_dir),
        reward_funcs=funcs,
        processing_class=processor,
        args=_config(tmp_path, save_strategy="steps", save_steps=2),
        train_dataset=train,
        environment_factory=env_factory,
        callbacks=[feed],
    )
    captured: list[tuple[list, list, list]] = []
    original = trainer._calculate_rewards

    def record(inputs, prompts, completions, completion_ids_list):
        captured.append(([dict(x) for x in inputs], list(completions), list(completion_ids_list)))
        return original(inputs, prompts, completions, completion_ids_list)

    trainer._calculate_rewards = record
    assert sorted(t.__name__ for t in trainer._env_tools[None]) == sorted(ACTION_TYPES)  # the tools offered
    result = trainer.train()
    assert trainer.state.global_step == 2 and math.isfinite(result.training_loss)

    logs = [entry for entry in trainer.state.log_history if "rewards/vcot_format/mean" in entry]
    assert len(logs) == 2 == len(captured)
    for entry, (inputs, completions, ids) in zip(logs, captured, strict=True):
        for name in ("vcot_format", "vcot_step", "DrawingEnvironment"):
            assert 0.0 <= entry[f"rewards/{name}/mean"] <= 1.0, entry
        answers = [rl.reward(c, x) for c, x in zip(completions, inputs, strict=True)]
        formats = [rl.format_reward(c) for c in completions]
        steps = [rl.step_reward(c, x) for c, x in zip(completions, inputs, strict=True)]
        assert len(ids) == len(completions) == 2  # one prompt, num_generations=2
        assert entry["rewards/DrawingEnvironment/mean"] == pytest.approx(sum(answers) / len(answers))
        assert entry["rewards/vcot_format/mean"] == pytest.approx(sum(formats) / len(formats))
        assert entry["rewards/vcot_step/mean"] == pytest.approx(sum(steps) / len(steps))
        assert {x["task"] for x in inputs} <= set(TASKS)
    assert feed.observed == 4  # every rollout's answer reward reached the curriculum
    assert all(f"curriculum/{t}" in logs[-1] for t in TASKS)
    saved = Path(trainer.args.output_dir) / "checkpoint-2" / adapter.CURRICULUM_FILE
    assert json.loads(saved.read_text()) == json.loads(json.dumps(curriculum.state_dict()))


def _scripted_generation(trainer: Any, turns: list[list[list[int]]], calls: list[dict[str, Any]]) -> None:
    """Replace the model's sampling (only that) with scripted token ids, one list per turn; TRL's own code
    parses them, runs the tools and builds the next turn."""

    def generate(prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        turn = turns[min(len(calls), len(turns) - 1)]
        calls.append(
            {"prompt_ids": [list(p) for p in prompt_ids], "images": images, "has_tool_images": has_tool_images}
        )
        return [list(turn[i % len(turn)]) for i in range(len(prompt_ids))], None

    trainer._generate_single_turn = generate


def test_trls_tool_call_path_carries_the_picture_into_the_next_turn(tiny_model_dir: Path, tmp_path: Path) -> None:
    from tiny_vlm import load_processor
    from trl import GRPOTrainer

    processor = load_processor(tiny_model_dir)
    tokenizer = processor.tokenizer
    train = adapter.dataset(2, tasks=TASKS, seed=21, condition="vaot")
    trainer = GRPOTrainer(
        model=_model(tiny_model_dir),
        reward_funcs=adapter.reward_funcs(answer=False),
        processing_class=processor,
        train_dataset=train,
        environment_factory=adapter.DrawingEnvironment,
        # Both prompts in one generation batch; room for the tool turn (its picture's tokens
        # count towards max_completion_length, and TRL drops a tool result that overflows).
        args=_config(tmp_path, max_steps=1, per_device_train_batch_size=4, max_completion_length=128),
    )

    def ids(text: str) -> list[int]:
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    call = {"name": "mark_point", "arguments": {"x": 20, "y": 24, "label": "A"}}
    first = [ids(f"<tool_call>\n{json.dumps(call)}\n</tool_call><|im_end|>")]
    # After the tool turn the first rollout of each prompt answers right, the second wrong (the trainer reads
    # the rows in order, each repeated num_generations times): get_reward must grade this final answer.
    wrong = ids("<answer>?</answer><|im_end|>")
    second = [tokens for row in train for tokens in (ids(f"<answer>{row['answer']}</answer><|im_end|>"), wrong)]
    calls: list[dict[str, Any]] = []
    _scripted_generation(trainer, [first, second], calls)
    captured: list[tuple[list, list]] = []
    original = trainer._calculate_rewards

    def record(inputs, prompts, completions, completion_ids_list):
        captured.append(([dict(x) for x in inputs], list(completions)))
        return original(inputs, prompts, completions, completion_ids_list)

    trainer._calculate_rewards = record
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters()}
    trainer.train()

    assert len(calls) == 2, "one tool turn, then one answer turn"
    logged = next(e for e in trainer.state.log_history if "rewards/DrawingEnvironment/mean" in e)
    assert logged["tools/call_frequency"] > 0 and logged["tools/failure_frequency"] == 0
    # Right and wrong answers within each group: non-zero advantages, so the step moved the weights.
    assert logged["grad_norm"] > 0
    assert any(not torch.equal(before[n], p) for n, p in trainer.model.named_parameters())
    assert calls[1]["has_tool_images"]
    inputs, completions = captured[0]
    image_id = processor.image_token_id
    for k, completion in enumerate(completions):
        roles = [m["role"] for m in completion]
        assert roles == ["assistant", "tool", "assistant"], roles
        assert completion[0]["tool_calls"][0]["function"]["name"] == "mark_point"
        tool_parts = completion[1]["content"]
        picture = next(p["image"] for p in tool_parts if p["type"] == "image")
        assert ImageChops.difference(picture.convert("RGB"), inputs[k]["images"][0].convert("RGB")).getbbox()
        # The next turn's model input holds the prompt picture and the tool's picture, and its token ids the
        # image tokens of both.
        turn_images = calls[1]["images"][k]
        assert len(turn_images) == 2 and turn_images[-1] is picture
        grids = processor.image_processor(images=turn_images, return_tensors="pt")["image_grid_thw"]
        assert calls[1]["prompt_ids"][k].count(image_id) == int(grids.prod(-1).sum()) // 4
    assert [x["uid"] for x in inputs] == [row["uid"] for row in train for _ in range(2)]
    graded = [e.get_reward() for e in trainer.environments]
    by_turn = [rl.reward(c, x) for c, x in zip(completions, inputs, strict=True)]
    assert graded == by_turn == [1.0, 0.0, 1.0, 0.0]
    assert logged["rewards/DrawingEnvironment/mean"] == pytest.approx(sum(by_turn) / len(by_turn))


def test_environment_owned_data_three_turns_with_pictures_from_tools(tiny_model_dir: Path, tmp_path: Path) -> None:
    """TRL's environment-owned-data mode (no train_dataset): each rollout's reset() poses the environment's own
    stream problem, its picture goes into the prompt, two drawing turns bring pictures back, the third turn
    answers, and get_reward grades it. The rollouts of one group share their problem."""
    from tiny_vlm import load_processor
    from trl import GRPOTrainer

    from vcot.draw.png import pixel_digest
    from vcot.vaot.session import DrawingSession

    processor = load_processor(tiny_model_dir)
    tokenizer = processor.tokenizer
    stream_args = {"tasks": TASKS, "seed": 31}
    factory = adapter.DrawingEnvironment.factory(stream=stream_args, num_generations=2)
    trainer = GRPOTrainer(
        model=_model(tiny_model_dir),
        reward_funcs=adapter.reward_funcs(answer=False),
        processing_class=processor,
        environment_factory=factory,
        args=_config(
            tmp_path,
            max_steps=1,
            per_device_train_batch_size=2,
            max_completion_length=256,
            max_tool_calling_iterations=3,
        ),
    )

    def ids(text: str) -> list[int]:
        return tokenizer(text, add_special_tokens=False)["input_ids"]

    def tool(name: str, **arguments: Any) -> list[int]:
        return ids(f"<tool_call>\n{json.dumps({'name': name, 'arguments': arguments})}\n</tool_call><|im_end|>")

    calls: list[dict[str, Any]] = []

    def generate(prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        calls.append({"prompt_ids": [list(p) for p in prompt_ids], "images": images})
        if len(calls) == 1:
            return [tool("draw_line", x1=5, y1=5, x2=80, y2=60) for _ in prompt_ids], None
        if len(calls) == 2:
            return [tool("crop_zoom", x1=0, y1=0, x2=100, y2=100) for _ in prompt_ids], None
        gold = [e.env.problem.answer for e in trainer.environments]
        return [
            ids(f"<answer>{gold[i]}</answer><|im_end|>" if i % 2 == 0 else "<answer>?</answer><|im_end|>")
            for i in range(len(prompt_ids))
        ], None

    trainer._generate_single_turn = generate
    trainer.train()

    assert len(calls) == 3, "two tool turns, then the answer"
    envs = trainer.environments
    problems = [e.env.problem for e in envs]
    assert problems[0].uid == problems[1].uid  # one group, one problem
    expected = next(iter(rl.stream(condition="vaot", **stream_args)))
    assert problems[0].uid == expected.uid  # the environment's own stream, from its start
    image_id = processor.image_token_id
    for k, env in enumerate(envs):
        # What the drawing session sends for these two actions, replayed apart from TRL.
        replay = DrawingSession.for_problem(problems[k])
        sent = [
            pixel_digest(replay.act("draw_line", {"x1": 5, "y1": 5, "x2": 80, "y2": 60})[0]),
            pixel_digest(replay.act("crop_zoom", {"x1": 0, "y1": 0, "x2": 100, "y2": 100})[0]),
        ]
        turn_images = calls[2]["images"][k]
        # The prompt picture and both tool pictures reach the third turn, pixel for pixel.
        assert [pixel_digest(im) for im in turn_images] == [pixel_digest(problems[k].images[0]), *sent]
        assert len([entry for entry in env.session.log if "error" not in entry]) == 2, env.session.log
        grids = processor.image_processor(images=turn_images, return_tensors="pt")["image_grid_thw"]
        assert calls[2]["prompt_ids"][k].count(image_id) == int(grids.prod(-1).sum()) // 4
    assert [e.get_reward() for e in envs] == [1.0, 0.0]


def test_an_index_dataset_names_each_groups_stream_position(tiny_model_dir: Path, tmp_path: Path) -> None:
    """With `index_dataset`, the problem of a rollout is the stream item its row names, on every process: here
    rows 0 and 1 over two steps, each shared by its group of two."""
    from tiny_vlm import load_processor
    from trl import GRPOTrainer

    processor = load_processor(tiny_model_dir)
    stream_args = {"tasks": TASKS, "seed": 41}
    trainer = GRPOTrainer(
        model=_model(tiny_model_dir),
        reward_funcs=adapter.reward_funcs(answer=False),
        processing_class=processor,
        train_dataset=adapter.index_dataset(2),
        environment_factory=adapter.DrawingEnvironment.factory(stream=stream_args),
        args=_config(tmp_path, max_steps=2, per_device_train_batch_size=2),
    )
    seen: list[list[str]] = []

    def generate(prompt_ids, images, multimodal_fields, num_generations, has_tool_images=False):
        envs = trainer.environments
        seen.append([e.env.problem.uid for e in envs])
        answers = [f"<answer>{e.env.problem.answer}</answer><|im_end|>" for e in envs]
        return [processor.tokenizer(a, add_special_tokens=False)["input_ids"] for a in answers], None

    trainer._generate_single_turn = generate
    trainer.train()
    expected = rl.stream(condition="vaot", **stream_args)
    assert seen == [[expected[0].uid] * 2, [expected[1].uid] * 2]
    assert [e.get_reward() for e in trainer.environments] == [1.0, 1.0]
    with pytest.raises(ValueError):
        adapter.index_dataset(0)
