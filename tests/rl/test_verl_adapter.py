"""The verl adapter against verl's own classes (verl 0.9, CPU): the exported Parquet through `RLHFDataset` and
its collate function, `compute_score` through verl's custom-reward loader and its naive reward manager, the
drawing tool loaded from the written tool config and driven by `ToolAgentLoop._call_tool` (verl's real
create → execute → release sequence), and the curriculum sampler under torchdata's `StatefulDataLoader`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pyarrow.parquet as pq
import pytest
from PIL import Image, ImageChops

verl = pytest.importorskip("verl")
pytest.importorskip("verl.utils.dataset.rl_dataset")

from omegaconf import OmegaConf  # noqa: E402  (verl's dependency; after the skip)

from vcot.rl import reward, stream  # noqa: E402
from vcot.rl import verl as adapter  # noqa: E402
from vcot.vaot.actions import action_names  # noqa: E402

TASKS = ["convex_hull", "mirror_pattern"]


@pytest.fixture(scope="module")
def problems():
    return stream(tasks=TASKS, seed=3, condition="vaot").take(8)


@pytest.fixture(scope="module")
def export(problems, tmp_path_factory):
    return adapter.export_verl(problems, tmp_path_factory.mktemp("verl"), validation_fraction=0.25, seed=3, max_calls=3)


@pytest.fixture(scope="module")
def tiny(tiny_model_dir):
    """The tiny Qwen2-VL folder's processor (tests/rl/conftest.py, tests/rl/tiny_vlm.py)."""
    from tiny_vlm import load_processor

    return load_processor(tiny_model_dir)


def _config(path: Path, **extra):
    # Keys of verl's `data` config. Length filtering stays off: it runs
    # qwen_vl_utils, which needs a working torchvision.
    return OmegaConf.create(
        {
            "prompt_key": "prompt",
            "image_key": "images",
            "max_prompt_length": 4096,
            "filter_overlong_prompts": False,
            "return_raw_chat": True,
            "cache_dir": str(path.parent / "cache"),
            **extra,
        }
    )


def _dataset(path: Path, processor, **extra):
    from verl.utils.dataset.rl_dataset import RLHFDataset

    return RLHFDataset(
        data_files=str(path), tokenizer=processor.tokenizer, config=_config(path, **extra), processor=processor
    )


# --- export ------------------------------------------------------------------------------------------------------


def test_export_writes_both_splits_and_the_tool_config(export, problems):
    assert export.train.is_file() and export.validation.is_file() and export.tool_config.is_file()
    assert export.n_train + export.n_validation == len(problems)
    for task in TASKS:  # every task has scenes on both sides
        assert export.counts["train"][task] >= 1 and export.counts["validation"][task] >= 1
    rows = pq.read_table(export.train).to_pylist()
    assert [r["extra_info"]["index"] for r in rows] == list(range(len(rows)))  # verl's per-split sample id
    assert {r["extra_info"]["split"] for r in rows} == {"train"}
    first = rows[0]
    assert first["data_source"] == "vcot/" + first["extra_info"]["task"]
    assert first["agent_name"] == "tool_agent"
    assert first["reward_model"]["style"] == "rule"
    assert set(first["extra_info"]["tools_kwargs"]) == set(action_names())
    assert Image.open(__import__("io").BytesIO(first["images"][0]["bytes"])).format == "PNG"


def test_validation_scenes_never_appear_in_train(problems):
    doubled = problems + problems[:3]  # a scene seen twice must land on one side only
    train, validation = adapter.split_by_scene(doubled, 0.3, seed=1)
    assert validation and train
    train_keys = {(p.task, adapter.scene_key(p)) for p in train}
    assert not train_keys & {(p.task, adapter.scene_key(p)) for p in validation}
    assert len(train) + len(validation) == len(doubled)
    assert adapter.split_by_scene(problems, 0.0)[1] == []
    with pytest.raises(adapter.VerlExportError):
        adapter.split_by_scene(problems, 1.0)


def test_parquet_loads_through_verls_rlhf_dataset(export, tiny, problems):
    from verl.utils.dataset.rl_dataset import collate_fn

    ds = _dataset(export.train, tiny)
    assert len(ds) == export.n_train
    item = ds[0]
    by_uid = {p.uid: p for p in problems}
    problem = by_uid[item["extra_info"]["uid"]]
    images = [
        part["image"]
        for m in item["raw_prompt"]
        if isinstance(m["content"], list)
        for part in m["content"]
        if part.get("type") == "image"
    ]
    assert len(images) == len(problem.images)
    assert np.array_equal(np.asarray(images[0].convert("RGB")), np.asarray(problem.images[0].convert("RGB")))
    texts = "".join(
        part.get("text", "")
        for m in item["raw_prompt"]
        if isinstance(m["content"], list)
        for part in m["content"]
        if part.get("type") == "text"
    )
    assert problem.question in texts
    assert item["tools_kwargs"]["draw_line"]["create_kwargs"]["uid"] == problem.uid
    assert item["index"] == 0
    # The agent loop renders raw_prompt with the tool schemas and runs the processor over the pictures.
    tools = [t["tool_schema"] for t in adapter.tool_config()["tools"]]
    text = tiny.apply_chat_template(item["raw_prompt"], tools=tools, add_generation_prompt=True, tokenize=False)
    inputs = tiny(text=[text], images=images, return_tensors="pt")
    pad = tiny.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    merge = tiny.image_processor.merge_size**2
    assert int((inputs["input_ids"] == pad).sum()) == int(inputs["image_grid_thw"].prod(-1).sum()) // merge
    batch = collate_fn([ds[i] for i in range(len(ds))])
    assert batch["data_source"].shape == (len(ds),) and batch["dummy_tensor"].shape[0] == len(ds)


# --- reward ------------------------------------------------------------------------------------------------------


def test_compute_score_through_verls_loader_equals_vcots_reward(problems):
    from verl.trainer.ppo.reward import get_custom_reward_fn

    fn = get_custom_reward_fn(
        OmegaConf.create(
            {
                "reward": {
                    "custom_reward_function": {
                        "path": "pkg://vcot.rl.verl",
                        "name": "compute_score",
                        "reward_kwargs": {},
                    }
                }
            }
        )
    )
    for p in problems:
        info = adapter.verl_row(p, split="train", index=0)["extra_info"]
        wrong = "0" if p.answer != "0" else "1"
        for completion in (f"<answer>{p.answer}</answer>", f"<answer>{wrong}</answer>", "no answer", ""):
            got = fn(data_source="vcot/" + p.task, solution_str=completion, ground_truth=p.answer, extra_info=info)
            assert set(got) == set(adapter._SCORE_KEYS)
            assert got["score"] == reward(completion, p)
        assert (
            fn(data_source="x", solution_str=f"<answer>{p.answer}</answer>", ground_truth=p.answer, extra_info=info)[
                "acc"
            ]
            == 1.0
        )
    garbage = fn(data_source=None, solution_str=None, ground_truth=None, extra_info={"options": 5})
    assert garbage["score"] == 0.0 and set(garbage) == set(adapter._SCORE_KEYS)


def test_compute_score_through_verls_naive_reward_manager(problems, tiny):
    import torch
    from verl import DataProto
    from verl.experimental.reward_loop.reward_manager.naive import NaiveRewardManager

    p = problems[0]
    info = adapter.verl_row(p, split="train", index=0)["extra_info"]
    tok = tiny.tokenizer

    async def score(text: str) -> dict:
        manager = NaiveRewardManager(OmegaConf.create({}), tok, adapter.compute_score)
        ids = tok(text, add_special_tokens=False)["input_ids"]
        data = DataProto.from_dict(
            tensors={"responses": torch.tensor([ids]), "attention_mask": torch.ones(1, len(ids), dtype=torch.long)},
            non_tensors={
                "data_source": np.array(["vcot/" + p.task], dtype=object),
                "reward_model": np.array([{"ground_truth": p.answer}], dtype=object),
                "extra_info": np.array([dict(info)], dtype=object),
            },
        )
        return await manager.run_single(data)

    good = asyncio.run(score(f"I think so. <answer>{p.answer}</answer>"))
    assert good["reward_score"] == 1.0 and good["reward_extra_info"]["acc"] == 1.0
    assert asyncio.run(score("<answer>nonsense</answer>"))["reward_score"] == 0.0


# --- drawing tool ------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def tools(export):
    from verl.tools.tool_registry import initialize_tools_from_config

    return {t.name: t for t in initialize_tools_from_config(str(export.tool_config))}


def test_tool_config_loads_one_drawing_tool_per_action(tools):
    assert sorted(tools) == sorted(action_names())
    line = tools["draw_line"]
    assert type(line).__name__ == "DrawingTool" and line.max_calls == 3
    props = line.tool_schema.function.parameters.properties
    assert props["color"].enum and "default 3" in props["width"].description
    assert tools["draw_polygon"].tool_schema.function.parameters.properties["points"].type == "array"


def _agent_data(row_kwargs: dict):
    from verl.experimental.agent_loop.tool_agent_loop import AgentData

    return AgentData(
        messages=[],
        image_data=[],
        video_data=None,
        audio_data=None,
        mm_processor_kwargs=None,
        metrics={},
        request_id="r",
        tools_kwargs=row_kwargs,
    )


def _call(tools: dict, agent, name: str, arguments):
    """One tool call exactly as verl 0.9's ToolAgentLoop makes it (create, execute with agent_data, release)."""
    from verl.experimental.agent_loop.tool_agent_loop import ToolAgentLoop
    from verl.experimental.agent_loop.tool_parser import FunctionCall

    loop = SimpleNamespace(tools=tools, max_tool_response_length=256, tool_response_truncate_side="middle")
    args = arguments if isinstance(arguments, str) else json.dumps(arguments)
    return asyncio.run(
        ToolAgentLoop._call_tool(loop, FunctionCall(name=name, arguments=args), agent.tools_kwargs, agent)
    )


def test_tool_draws_keeps_the_drawing_across_tools_and_rejects_bad_actions(tools, export, problems):
    row = pq.read_table(export.train).to_pylist()[0]
    problem = {p.uid: p for p in problems}[row["extra_info"]["uid"]]
    kwargs = row["extra_info"]["tools_kwargs"]
    agent = _agent_data(kwargs)
    w, h = problem.images[0].size

    first, step_reward, _ = _call(tools, agent, "draw_line", {"x1": 0, "y1": 0, "x2": w - 1, "y2": h - 1})
    assert first.image and isinstance(first.image[0], Image.Image) and first.text
    assert step_reward == 0.0
    assert ImageChops.difference(first.image[0].convert("RGB"), problem.images[0].convert("RGB")).getbbox()
    mark = {"x": 5, "y": h - 6, "label": "A", "color": "blue"}
    second, _, _ = _call(tools, agent, "mark_point", mark)
    assert second.image and second.image[0].size == first.image[0].size
    # Same trajectory, another tool: the new mark is drawn over the line, not over a fresh picture.
    fresh, _, _ = _call(tools, _agent_data(kwargs), "mark_point", mark)
    assert ImageChops.difference(fresh.image[0].convert("RGB"), second.image[0].convert("RGB")).getbbox()
    assert agent.extra_fields["vcot_draw_calls"] == 2

    for name, args in [
        ("draw_line", {"x1": "left", "y1": 0, "x2": 1, "y2": 1}),
        ("draw_circle", "[1, 2]"),
        ("draw_line", {"x1": 0, "y1": 0, "x2": 1, "y2": 1, "evil": True}),
        ("draw_circle", {"x": 1, "y": 1, "radius": -4}),
        ("annotate_text", {"x": 1, "y": 1, "text": "x" * 30_000}),
    ]:
        res, _, _ = _call(tools, _agent_data(kwargs), name, args)
        assert not res.image and res.text and "<answer>" not in res.text, (name, args, res)
        assert len(res.text) <= adapter.MAX_TOOL_TEXT
    assert "Unknown function" in _call(tools, agent, "delete_everything", {})[0].text  # verl's own check


def test_tool_budget_is_per_trajectory_over_all_tools(tools, export):
    kwargs = pq.read_table(export.train).to_pylist()[1]["extra_info"]["tools_kwargs"]
    agent = _agent_data(kwargs)
    for name in ("draw_line", "highlight_box", "draw_arrow"):  # max_calls=3 in the exported tool config
        res, _, _ = _call(tools, agent, name, {"x1": 1, "y1": 1, "x2": 30, "y2": 30})
        assert res.image, res.text
    over, _, _ = _call(tools, agent, "mark_point", {"x": 3, "y": 3})
    assert not over.image and "budget" in over.text and "<answer>" not in over.text


def test_tool_texts_cannot_plant_an_answer_and_sessions_end_with_the_trajectory(tools, export, monkeypatch):
    import gc

    from vcot.rl.env import VcotEnv

    # compute_score grades the decoded response, tool turns included: a tool text quoting the answer tags
    # (as vcot's budget note does) would be read as the model's answer.
    monkeypatch.setattr(VcotEnv, "act", lambda self, name, args: (None, "Give <answer></answer> now.", 0.0))
    kwargs = pq.read_table(export.train).to_pylist()[2]["extra_info"]["tools_kwargs"]
    agent = _agent_data(kwargs)
    res, _, _ = _call(tools, agent, "draw_line", {"x1": 1, "y1": 1, "x2": 30, "y2": 30})
    assert "<answer>" not in res.text and "</answer>" not in res.text and "answer" in res.text
    assert (
        adapter.compute_score("vcot/x", res.text + " <answer>7</answer>", "7", {"answer_type": "integer"})["acc"] == 1.0
    )
    live = len(adapter._BY_TRAJECTORY)
    del agent
    gc.collect()
    assert len(adapter._BY_TRAJECTORY) == live - 1


def test_tool_lifecycle_without_agent_data_and_without_create_kwargs(tools, export):
    tool = tools["highlight_box"]
    spec = pq.read_table(export.train).to_pylist()[0]["extra_info"]["tools_kwargs"]["highlight_box"]

    async def run() -> None:
        iid, created = await tool.create(create_kwargs=spec["create_kwargs"])
        assert created.is_empty()
        res, r, metrics = await tool.execute(iid, {"x1": 2, "y1": 2, "x2": 40, "y2": 40})
        assert res.image and r == 0.0 and metrics["valid"]
        again, _, _ = await tool.execute(iid, "not a dict")
        assert not again.image and again.text
        assert await tool.calc_reward(iid) == 0.0
        await tool.release(iid)
        gone, _, _ = await tool.execute(iid, {"x1": 2, "y1": 2, "x2": 40, "y2": 40})
        assert not gone.image and "unknown" in gone.text
        bare, _ = await tool.create()  # a row without tools_kwargs
        res, _, _ = await tool.execute(bare, {"x1": 2, "y1": 2, "x2": 40, "y2": 40})
        assert not res.image and "create_kwargs" in res.text
        bad, _ = await tool.create(create_kwargs={"task": "no_such_task", "seed": 0, "index": 0})
        res, _, _ = await tool.execute(bad, {"x1": 2, "y1": 2, "x2": 40, "y2": 40})
        assert not res.image and "rebuilt" in res.text

    asyncio.run(run())


def test_tool_rejects_bad_configs():
    from verl.tools.schemas import OpenAIFunctionToolSchema

    cls = adapter.DrawingTool
    schema = OpenAIFunctionToolSchema.model_validate(adapter.tool_config()["tools"][0]["tool_schema"])
    assert cls({"type": "native", "action": "crop_zoom"}, None).name == "crop_zoom"
    for config in ({"max_calls": 0}, {"max_calls": "8"}, {"corruption": "scramble"}):
        with pytest.raises(ValueError):
            cls({"type": "native", **config}, schema)
    with pytest.raises(ValueError):
        cls({"type": "native", "action": "rm -rf"}, None)


# --- curriculum --------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def ladder(tmp_path_factory):
    """convex_hull rows at easy and medium (the curriculum's first two presets), exported without validation."""
    easy = stream(tasks=["convex_hull"], difficulty="easy", seed=5).take(4)
    medium = stream(tasks=["convex_hull"], difficulty="medium", seed=5).take(4)
    return adapter.export_verl(easy + medium, tmp_path_factory.mktemp("ladder"), validation_fraction=0.0)


def _batch(task: str, rewards: list[float]):
    from verl import DataProto

    return DataProto.from_dict(
        non_tensors={
            "extra_info": np.array([{"task": task}] * len(rewards), dtype=object),
            "acc": np.array(rewards, dtype=object),
        }
    )


def test_curriculum_sampler_follows_the_curriculum(ladder, tiny):
    import torch
    from torchdata.stateful_dataloader import StatefulDataLoader
    from verl.utils.dataset.rl_dataset import collate_fn

    ds = _dataset(ladder.train, tiny)
    # z=1: eight straight successes are enough evidence to move (the default z asks for more).
    config = OmegaConf.create(
        {"vcot_curriculum": {"start": "easy", "window": 8, "band": [0.3, 0.7], "z": 1.0, "seed": 1}}
    )
    sampler = adapter.CurriculumSampler(data_source=ds, data_config=config)
    assert isinstance(sampler, torch.utils.data.Sampler) and len(sampler) == len(ds)
    level = sampler.curriculum.level("convex_hull")
    loader = StatefulDataLoader(ds, batch_size=2, sampler=sampler, num_workers=0, collate_fn=collate_fn)
    batches = iter(loader)
    first = next(batches)
    assert {e["difficulty"] for e in first["extra_info"]} == {level}
    for _ in range(8):  # solved every time: the curriculum raises the task's level
        sampler.update(_batch("convex_hull", [1.0, 1.0]))
        if sampler.curriculum.level("convex_hull") != level:
            break
    moved = sampler.curriculum.level("convex_hull")
    assert (level, moved) == ("easy", "medium")
    later = next(batches)  # indices are drawn lazily: the very next batch is at the new level
    assert {e["difficulty"] for e in later["extra_info"]} == {"medium"}
    state = json.loads(json.dumps(sampler.state_dict()))
    other = adapter.CurriculumSampler(data_source=ds, data_config=config)
    other.load_state_dict(state)
    assert other.curriculum.level("convex_hull") == moved


def test_curriculum_dataset_uses_verls_on_batch_end_hook(ladder, export, tiny):
    from verl.trainer.ppo.utils import create_rl_dataset

    config = _config(
        ladder.train,
        custom_cls={"path": "pkg://vcot.rl.verl", "name": "CurriculumDataset"},
        vcot_curriculum={"start": "easy", "window": 8, "z": 1.0, "seed": 2},
    )
    ds = create_rl_dataset(str(ladder.train), config, tiny.tokenizer, tiny)
    assert type(ds).__name__ == "CurriculumDataset"
    start = ds.curriculum_sampler.curriculum.level("convex_hull")
    assert {ds[i]["extra_info"]["difficulty"] for i in range(len(ds))} == {start}
    for _ in range(8):
        ds.on_batch_end(batch=_batch("convex_hull", [1.0, 1.0]))
    assert ds.curriculum_sampler.curriculum.level("convex_hull") != start
    val = create_rl_dataset(str(export.validation), config, tiny.tokenizer, tiny)
    assert val.curriculum_sampler is None  # validation rows are served as they are
    assert [val[i]["extra_info"]["index"] for i in range(len(val))] == list(range(len(val)))


def test_each_tool_call_returns_its_step_reward_through_verls_tool_loop(problems, tmp_path):
    """verl collects a tool's per-call reward (`tool_rewards`): the drawing tool gives the environment core's
    step reward, 0.0 for a drawn action and -invalid_penalty for a refused one. (verl 0.9's FunctionTool cannot
    carry a drawing: function tools get no per-trajectory state by design, so the drawing is a BaseTool.)"""
    from verl.tools.tool_registry import initialize_tools_from_config

    export = adapter.export_verl(
        problems[:2], tmp_path / "penalty", validation_fraction=0.0, max_calls=4, invalid_penalty=0.5
    )
    tools = {t.name: t for t in initialize_tools_from_config(str(export.tool_config))}
    agent = _agent_data(pq.read_table(export.train).to_pylist()[0]["extra_info"]["tools_kwargs"])
    drawn, reward_drawn, _ = _call(tools, agent, "draw_line", {"x1": 1, "y1": 1, "x2": 40, "y2": 30})
    refused, reward_refused, metrics = _call(tools, agent, "draw_circle", {"x": 1, "y": 1, "radius": -3})
    assert drawn.image and reward_drawn == 0.0
    assert not refused.image and reward_refused == -0.5 and metrics["valid"] is False
    with pytest.raises(adapter.VerlExportError, match="invalid_penalty"):
        adapter.tool_config(invalid_penalty=-1)
