"""`vcot export-rl`: a suite folder or a fresh stream to verl's files (and a TRL datasets folder); bad input
exits 2 with a message that names what is wrong and where. Needs no verl: the export is plain Parquet."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

from vcot.cli import app

runner = CliRunner()


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("suite") / "hull"
    res = runner.invoke(app, ["generate", "--task", "convex_hull", "--n", "6", "--out", str(out), "--no-progress"])
    assert res.exit_code == 0, res.output
    return out


def _rows(path):
    return pq.read_table(path).to_pylist()


def test_suite_to_verl(suite, tmp_path):
    out = tmp_path / "verl"
    res = runner.invoke(
        app,
        ["export-rl", str(suite), "--format", "verl", "--out", str(out), "--validation-fraction", "0.34", "-c", "vaot"],
    )
    assert res.exit_code == 0, res.output
    train, val = _rows(out / "train.parquet"), _rows(out / "validation.parquet")
    assert len(train) + len(val) == 6 and len(val) == 2
    # Each suite instance regenerated once, under its generator index, with the suite's answer.
    instances = [json.loads(line) for line in (suite / "instances.jsonl").read_text().splitlines()]
    answers = {i["meta"]["generator"]["index"]: i["answer"] for i in instances}
    assert sorted(r["extra_info"]["problem_index"] for r in train + val) == sorted(answers)
    assert all(r["reward_model"]["ground_truth"] == answers[r["extra_info"]["problem_index"]] for r in train + val)
    assert not {r["extra_info"]["uid"] for r in train} & {r["extra_info"]["uid"] for r in val}
    assert all(r["prompt"][-1]["content"].startswith("<image>") and r["agent_name"] == "tool_agent" for r in train)
    assert "DrawingTool" in (out / "tool_config.yaml").read_text()
    assert "4 training and 2 validation rows" in res.output


def test_stream_to_verl_with_a_difficulty_ladder(tmp_path):
    out = tmp_path / "ladder"
    res = runner.invoke(
        app,
        [
            "export-rl",
            "stream",
            "--task",
            "convex_hull,mirror_pattern",
            "--n",
            "4",
            "--difficulty",
            "easy,hard",
            "--seed",
            "2",
            "-o",
            str(out),
            "--validation-fraction",
            "0",
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    rows = _rows(out / "train.parquet")
    assert len(rows) == 8 and not (out / "validation.parquet").exists()
    assert {(r["extra_info"]["task"], r["extra_info"]["difficulty"]) for r in rows} == {
        (t, d) for t in ("convex_hull", "mirror_pattern") for d in ("easy", "hard")
    }
    assert {r["agent_name"] for r in rows} == {"single_turn_agent"}  # the default condition is direct


def test_exclude_keeps_an_evaluation_suites_scenes_out(suite, tmp_path):
    out = tmp_path / "ex"
    res = runner.invoke(app, ["export-rl", str(suite), "-o", str(out), "--exclude", str(suite)])
    assert res.exit_code == 2 and "no instance" in res.output  # every scene is excluded


def test_stream_to_trl(tmp_path):
    datasets = pytest.importorskip("datasets")
    pytest.importorskip("transformers")
    out = tmp_path / "trl"
    res = runner.invoke(
        app,
        [
            "export-rl",
            "stream",
            "--task",
            "convex_hull",
            "--n",
            "5",
            "--format",
            "trl",
            "-o",
            str(out),
            "--validation-fraction",
            "0.2",
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    ds = datasets.load_from_disk(str(out))
    assert len(ds["train"]) + len(ds["validation"]) == 5 and len(ds["validation"]) == 1
    assert ds["train"][0]["images"][0].size[0] > 0


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["export-rl", "{tmp}/nowhere", "-o", "{tmp}/o"], "{tmp}/nowhere"),
        (["export-rl", "{suite}", "-f", "jsonl", "-o", "{tmp}/o"], "'jsonl'"),
        (["export-rl", "{suite}", "-o", "{tmp}/o", "--validation-fraction", "1.5"], "--validation-fraction"),
        (["export-rl", "{suite}", "-o", "{tmp}/o", "--validation-fraction", "-0.1"], "--validation-fraction"),
        (["export-rl", "{suite}", "-o", "{tmp}/o", "--validation-fraction", "nan"], "--validation-fraction"),
        (["export-rl", "{suite}", "-o", "{tmp}/o", "--task", "convex_hull"], "--task"),
        (["export-rl", "stream", "-o", "{tmp}/o", "--task", "no_such_task", "--n", "2"], "no_such_task"),
        (["export-rl", "stream", "-o", "{tmp}/o", "--task", "convex_hull", "--n", "0"], "--n"),
        (["export-rl", "stream", "-o", "{tmp}/o", "--task", "convex_hull", "-d", "extreme"], "extreme"),
        (["export-rl", "stream", "-o", "{tmp}/o", "--task", "convex_hull", "-c", "telepathy"], "telepathy"),
        (["export-rl", "{suite}", "-o", "{tmp}/o", "--max-calls", "0"], "--max-calls"),
        (["export-rl", "{suite}", "-o", "{suite}/instances.jsonl"], "not a folder"),
        (["export-rl", "{suite}", "-o", "{tmp}/o", "--exclude", "{tmp}/missing"], "{tmp}/missing"),
    ],
)
def test_bad_input_exits_2_and_says_what(suite, tmp_path, args, says):
    fill = {"tmp": str(tmp_path), "suite": str(suite)}
    res = runner.invoke(app, [a.format(**fill) for a in args])
    assert res.exit_code == 2, res.output
    assert says.format(**fill) in " ".join(res.output.split()), res.output
    assert not (tmp_path / "o").exists()


@pytest.mark.parametrize("fmt", ["verl", "trl"])
def test_a_suite_exported_whole_is_not_called_a_training_split(suite, tmp_path, fmt):
    if fmt == "trl":
        pytest.importorskip("datasets")
        pytest.importorskip("transformers")
    out = tmp_path / fmt
    res = runner.invoke(app, ["export-rl", str(suite), "-f", fmt, "-o", str(out), "--validation-fraction", "0"])
    assert res.exit_code == 0, res.output
    assert "split 'suite'" in res.output and "training" not in res.output
    if fmt == "verl":
        assert not (out / "train.parquet").exists()
        rows = _rows(out / "suite.parquet")
        assert len(rows) == 6 and {r["extra_info"]["split"] for r in rows} == {"suite"}
    else:
        import datasets

        assert list(datasets.load_from_disk(str(out))) == ["suite"]
