"""Training exports (docs/scale.md, "Training exports"): TRL/Qwen-VL messages, ShareGPT/LLaVA JSON and VAoT
episodes load with HF `datasets`, follow the instance's trajectory, and every image reference resolves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.build import TaskPlan, build_suite
from vcot.cli import app
from vcot.export.training import IMAGE_TOKEN, export_training, open_source
from vcot.shards import generate_shards
from vcot.suite import SuiteError, read_suite

PLANS = [TaskPlan("localizer", 3, 4, "easy"), TaskPlan("mirror_pattern", 2, 5, "easy")]
runner = CliRunner()


@pytest.fixture(scope="module")
def suite_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("suite") / "mix"
    build_suite(root, "mix", PLANS)
    return root


def _image_parts(messages: list[dict]) -> list[int]:
    """The `index` of every image part in order; no part has an `image` key (docs/scale.md)."""
    assert not any("image" in c for m in messages for c in m["content"])
    return [c["index"] for m in messages for c in m["content"] if c["type"] == "image"]


def test_trl_export_loads_as_messages_with_images_in_trajectory_order(suite_dir: Path, tmp_path: Path) -> None:
    import datasets

    suite = read_suite(suite_dir)
    res = runner.invoke(app, ["export-training", str(suite_dir), "-f", "trl", "-o", str(tmp_path / "trl")])
    assert res.exit_code == 0, res.output
    ds = datasets.load_dataset(
        "imagefolder", data_dir=str(tmp_path / "trl"), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert len(ds) == len(suite)
    rows = [json.loads(line) for line in (tmp_path / "trl" / "metadata.jsonl").read_text().splitlines()]
    for row, loaded in zip(rows, ds, strict=True):
        inst = suite.get(row["uid"])
        user, assistant = row["messages"]
        assert [c["type"] for c in user["content"]] == ["image", "text"] and inst.question in user["content"][1]["text"]
        texts = [c["text"] for c in assistant["content"] if c["type"] == "text"]
        assert texts == [s.text for s in inst.steps] + [f"<answer>{inst.answer}</answer>"]
        assert _image_parts(row["messages"]) == list(range(len(row["file_names"])))
        assert row["file_names"] == [inst.image] + [s.image for s in inst.steps]
        for rel in row["file_names"]:  # the exported file is the suite's PNG, byte for byte
            assert (tmp_path / "trl" / rel).read_bytes() == suite.image_path(rel).read_bytes()
        assert len(loaded["images"]) == len(row["file_names"]) and loaded["images"][0].size[0] > 0
        assert loaded["messages"][1]["content"][-1]["text"] == f"<answer>{inst.answer}</answer>"


def test_sharegpt_export_has_one_image_per_token_and_loads_with_datasets(suite_dir: Path, tmp_path: Path) -> None:
    import datasets

    out = export_training(open_source(suite_dir), tmp_path / "sg", "sharegpt", license_id="cc-by-4.0")
    ds = datasets.load_dataset(
        "json", data_files=str(out / "sharegpt.json"), split="train", cache_dir=str(tmp_path / "cache")
    )
    assert len(ds) == 5
    for row in ds:
        tokens = sum(turn["value"].count(IMAGE_TOKEN) for turn in row["conversations"])
        assert tokens == len(row["images"]) >= 2
        assert [t["from"] for t in row["conversations"]] == ["human", "gpt"]
        assert all((out / rel).is_file() for rel in row["images"])
    card = (out / "README.md").read_text()
    assert "license: cc-by-4.0" in card and "| localizer | 3 | 4 | easy |" in card
    assert "| mirror_pattern | 2 | 5 | easy |" in card


def test_parquet_and_folder_shard_sets_export_the_same_conversations(tmp_path: Path) -> None:
    for fmt in ("parquet", "folder"):
        generate_shards(tmp_path / fmt, "mix", PLANS, 2, fmt)
        export_training(open_source(tmp_path / fmt), tmp_path / f"trl-{fmt}", "trl")
    a, b = tmp_path / "trl-parquet", tmp_path / "trl-folder"
    assert (a / "metadata.jsonl").read_bytes() == (b / "metadata.jsonl").read_bytes()
    files_a = sorted(p.relative_to(a) for p in (a / "images").rglob("*.png"))
    assert files_a == sorted(p.relative_to(b) for p in (b / "images").rglob("*.png")) and len(files_a) > 5
    assert all((a / p).read_bytes() == (b / p).read_bytes() for p in files_a)


def test_an_unfinished_shard_set_is_refused(tmp_path: Path) -> None:
    generate_shards(tmp_path, "mix", PLANS, 2, "parquet")
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    (tmp_path / "manifest.json").write_text(json.dumps({**manifest, "complete": False}))
    with pytest.raises(SuiteError, match="unfinished"):
        open_source(tmp_path)


def test_vaot_episodes_become_tool_use_conversations(tmp_path: Path) -> None:
    import datasets

    from vaot_fixtures import make_vaot_run
    from vcot.engine.trajectories import read_trajectories, rebuild_trajectories, returned_image_path

    suite_dir, result, _ = make_vaot_run(tmp_path)
    rebuild_trajectories(result.run_dir, read_suite(suite_dir))
    trajectories = read_trajectories(result.run_dir)
    out = tmp_path / "vaot"
    res = runner.invoke(
        app, ["export-training", str(suite_dir), "-f", "vaot", "--run", str(result.run_dir), "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    rows = [json.loads(line) for line in (out / "metadata.jsonl").read_text().splitlines()]
    assert len(rows) == len(trajectories) > 0
    returned = 0
    for row, traj in zip(rows, trajectories, strict=True):
        assert (row["uid"], row["condition"]) == (traj.uid, traj.condition)
        msgs = row["messages"]
        assert msgs[0]["role"] == "user" and _image_parts(msgs) == list(range(len(row["file_names"])))
        call_ids = {c["id"] for m in msgs if m["role"] == "assistant" for c in m["tool_calls"]}
        tool_ids = [m["tool_call_id"] for m in msgs if m["role"] == "tool"]
        assert set(tool_ids) <= call_ids
        digests = [a["returned_image"] for s in traj.steps for a in s.actions if a.get("returned_image")]
        assert row["file_names"][1:] == [f"images/vaot/{d}.png" for d in digests]
        for d in digests:
            assert (out / f"images/vaot/{d}.png").read_bytes() == returned_image_path(result.run_dir, d).read_bytes()
        returned += len(digests)
        if traj.condition == "vaot_norender":
            assert not digests and any(m["role"] == "tool" for m in msgs)
    assert returned > 0
    ds = datasets.load_dataset("imagefolder", data_dir=str(out), split="train", cache_dir=str(tmp_path / "cache"))
    assert [len(r["images"]) for r in ds] == [len(r["file_names"]) for r in rows]


def test_cli_refuses_vaot_without_a_run_and_unknown_formats(suite_dir: Path, tmp_path: Path) -> None:
    res = runner.invoke(app, ["export-training", str(suite_dir), "-f", "vaot", "-o", str(tmp_path / "a")])
    assert res.exit_code == 2 and "--run" in res.output
    res = runner.invoke(app, ["export-training", str(suite_dir), "-f", "alpaca", "-o", str(tmp_path / "b")])
    assert res.exit_code == 2 and "unknown format" in res.output
