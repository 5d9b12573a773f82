"""`vcot eval` with the default chance model: offline, every servable condition, accuracy next to chance."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
from typer.testing import CliRunner

from vcot.cli import app


def test_chance_eval_prints_accuracy_per_condition(suite_small, tmp_path):
    run_dir = tmp_path / "run"
    result = CliRunner().invoke(
        app, ["eval", "--suite", str(suite_small), "--run", str(run_dir), "--no-progress", "--epochs", "2"]
    )
    assert result.exit_code == 0, result.output
    # caption_only and question_only serve every suite but are diagnostics, asked for by name.
    conditions = (
        "direct",
        "text_cot",
        "text_cot_spec",
        "visual_cot",
        "text_state_cot",
        "visual_cot_corrupted",
        "vaot_norender",
        "vaot",
        "vaot_wrongrender",
    )
    for cond in conditions:
        assert cond in result.output
    assert "chance" in result.output and "accuracy" in result.output, result.output
    rows = pq.read_table(run_dir / "results.parquet").to_pylist()
    assert len(rows) == 12 * len(conditions) * 2
    assert all(r["response"].startswith("<answer>") and r["model"] == "chance" for r in rows)
    big = next(r for r in rows if r["uid"].endswith("00000") and r["condition"] == "direct")
    (img,) = json.loads(big["images"])
    assert img["resized"] and (img["width"], img["height"]) == (2000, 667)
    assert json.loads(big["settings"])["image_policy"]["max_side"] == 2000


def test_cli_errors_are_clear(suite_small, tmp_path):
    runner = CliRunner()
    bad = runner.invoke(app, ["eval", "--suite", str(suite_small), "--model", "acme/x", "--run", str(tmp_path / "r")])
    assert bad.exit_code == 2 and "unknown provider 'acme'" in bad.output
    missing = runner.invoke(app, ["eval", "--suite", str(tmp_path / "nope"), "--run", str(tmp_path / "r")])
    assert missing.exit_code == 2 and "suite folder not found" in missing.output
    cond = runner.invoke(
        app, ["eval", "--suite", str(suite_small), "--conditions", "direct,vaot_nonsense", "--run", str(tmp_path / "r")]
    )
    assert cond.exit_code == 2 and "unknown condition(s) vaot_nonsense" in cond.output


def test_invalid_suite_is_reported_with_file_and_line(suite_small, tmp_path):
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(suite_small, broken)
    lines = (broken / "instances.jsonl").read_text().splitlines()
    lines[2] = lines[2].replace('"answer_type":"integer"', '"answer_type":"fraction"')
    (broken / "instances.jsonl").write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(app, ["eval", "--suite", str(broken), "--run", str(tmp_path / "r")])
    assert result.exit_code == 2
    assert "instances.jsonl:3" in result.output and "answer_type" in result.output
