"""Warm-start rows (issue 44): the RL prompt byte for byte, answer-tag targets the grader accepts, and no scene
of an excluded suite (checked with `vcot overlap` on the export)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

pytest.importorskip("datasets")
pytest.importorskip("transformers")

import datasets  # noqa: E402

from vcot.cli import app  # noqa: E402
from vcot.rl import reward, step_rewards, stream  # noqa: E402
from vcot.rl.trl import problem_row  # noqa: E402
from vcot.rl.warmstart import sft_row, target_text  # noqa: E402

runner = CliRunner()
SMALL = ["--param", "answer_max=7"]  # cubes_count easy with answers 4-7: about 97 scenes, so a suite covers many


@pytest.fixture(scope="module")
def held_out(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("held") / "suite"
    res = runner.invoke(
        app,
        [
            "generate",
            "--task",
            "cubes_count",
            "--difficulty",
            "easy",
            *SMALL,
            "--n",
            "40",
            "--seed",
            "5",
            "--out",
            str(out),
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    return out


@pytest.mark.parametrize("condition", ["direct", "text_cot", "vaot", "state_probe"])
def test_the_prompt_is_the_rl_rows_byte_for_byte(condition):
    for p in stream(["cubes_count", "gear_rotation"], seed=3, condition=condition).take(2):
        a, b = sft_row(p), problem_row(p)
        assert json.dumps(a["prompt"]) == json.dumps(b["prompt"])
        assert a["images"] == b["images"]
        assert {k: a[k] for k in b if k not in ("prompt", "images")} == {
            k: b[k] for k in b if k not in ("prompt", "images")
        }


def test_targets_are_what_the_grader_and_the_step_rewards_accept():
    p = stream("gear_rotation", seed=4, condition="state_probe", steps=True)[0]
    text = target_text(p)
    assert text.endswith(f"<answer>{p.answer}</answer>") and "<step1>" in text
    assert reward(text, p) == 1.0 and step_rewards(text, p) == [1.0] * len(p.instance.steps)
    reasoned = target_text(stream("cubes_count", seed=4, condition="text_cot", steps=True)[0], "steps")
    assert reasoned.startswith("Step 1: ") and reasoned.endswith("</answer>")
    with pytest.raises(ValueError, match="without its steps"):
        target_text(stream("cubes_count", seed=4, condition="text_cot")[0], "steps")


def _export(out: Path, *extra: str) -> None:
    res = runner.invoke(
        app,
        [
            "export-rl",
            "stream",
            "--task",
            "cubes_count",
            "--difficulty",
            "easy",
            *SMALL,
            "--n",
            "40",
            "--seed",
            "1",
            "-f",
            "sft",
            "-o",
            str(out),
            "--no-progress",
            *extra,
        ],
    )
    assert res.exit_code == 0, res.output
    assert "warm-start" in res.output


def test_the_export_holds_no_scene_of_the_excluded_suite(held_out, tmp_path):
    _export(tmp_path / "with", "--exclude", str(held_out))
    assert runner.invoke(app, ["overlap", str(held_out), str(tmp_path / "with")]).exit_code == 0
    _export(tmp_path / "without")  # the check can fail: 40 of ~97 scenes drawn twice over share some
    res = runner.invoke(app, ["overlap", str(held_out), str(tmp_path / "without")])
    assert res.exit_code == 1 and "appear in both" in res.output, res.output
    rows = datasets.load_from_disk(str(tmp_path / "with"))["train"]
    again = {
        p.uid: p
        for p in stream("cubes_count", difficulty="easy", params={"answer_max": 7}, seed=1, exclude=str(held_out)).take(
            40
        )
    }
    for row in rows.select(range(5)):
        p = again[row["uid"]]
        assert row["prompt"] == json.loads(json.dumps(problem_row(p)["prompt"]))
        assert row["completion"][0]["content"][0]["text"] == f"<answer>{p.answer}</answer>"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--reasoning", "steps"], "asks for the answer directly"),
        (["--reasoning", "maybe"], "unknown 'maybe'"),
        (["-c", "text_cot", "-f", "verl", "--reasoning", "steps"], "goes with --format sft"),
    ],
)
def test_bad_warm_start_options_are_refused(tmp_path, args, says):
    argv = ["export-rl", "stream", "-t", "cubes_count", "--n", "2", "-o", str(tmp_path / "o"), "--no-progress"]
    res = runner.invoke(app, [*argv, *(["-f", "sft"] if "-f" not in args else []), *args])
    assert res.exit_code == 2 and says in res.output, res.output
