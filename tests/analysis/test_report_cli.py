"""`vcot report` on a results Parquet file, through typer's test runner."""

from __future__ import annotations

import json

import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from vcot.cli import app


def test_report_command_scores_and_writes(tmp_path):
    run = tmp_path / "run1"
    run.mkdir()
    rows = []
    for i in range(6):
        for cond in ("direct", "visual_cot"):
            ok = (i + (cond == "visual_cot")) % 2 == 0
            rows.append(
                dict(
                    run_id="run1",
                    model="m",
                    condition=cond,
                    uid=f"u{i}",
                    task="overlap",
                    domain="EG",
                    answer_type="choice",
                    gold="B",
                    options=json.dumps(["x", "y", "z"]),
                    epoch=0,
                    response="<answer>B</answer>" if ok else "<answer>C</answer>",
                    error=None,
                    n_turns=1,
                    input_tokens=10,
                    output_tokens=5,
                    latency_s=0.1,
                    finish_reason="stop",
                    suite_name="s",
                    suite_hash="h",
                    prompt_version="1",
                    vcot_version="0.1.0",
                    settings="{}",
                )
            )
    pq.write_table(pa.Table.from_pylist(rows), run / "results.parquet")
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    # The paired tests are the report's; a terminal gets them with --tables.
    assert "Accuracy by condition" in result.output and "Paired condition comparisons" not in result.output
    assert "Paired condition comparisons" in (tmp_path / "out" / "report.md").read_text()
    result = CliRunner().invoke(app, ["report", str(run), "--out", str(tmp_path / "out"), "--tables"])
    assert result.exit_code == 0 and "Paired condition comparisons" in result.output, result.output
    assert (tmp_path / "out" / "report.html").is_file()
    assert (tmp_path / "out" / "report.md").is_file()
    scored = pq.read_table(tmp_path / "out" / "scored.parquet")
    assert scored.column("correct").to_pylist().count(True) == 6


def test_report_command_missing_results(tmp_path):
    result = CliRunner().invoke(app, ["report", str(tmp_path)])
    assert result.exit_code == 2
    assert "no results .parquet" in result.output
