"""Issue 20, primary failure source: known truth first (no action, a corrupted key render, a faithful render),
the process judge for the rest, unattributed without a verdict; the columns of scored.parquet and the report's
tables, from a real VAoT run whose every answer is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from typer.testing import CliRunner

from vaot_fixtures import SCRIPT
from vcot.analysis.failure_source import known_facts, primary_source
from vcot.build import TaskPlan, build_suite
from vcot.cli import app
from vcot.engine.mock import spawn_mock_server
from vcot.engine.runner import EvalSpec, run_eval
from vcot.engine.trajectories import read_trajectories, rebuild_trajectories
from vcot.suite import read_suite
from vcot.vaot.episode import VAOT_CONDITIONS


def _row(condition: str, steps: list | None, corruptions: list | None = None) -> dict:
    vaot = {} if steps is None else {"steps": steps, "corruptions": corruptions or []}
    return {"condition": condition, "episode": json.dumps({"vaot": vaot}), "correct": False}


ACTED = [{"actions": [{"action": {"action": "draw_line"}}]}]
SILENT = [{"actions": []}]


def test_known_truth_comes_before_the_judge() -> None:
    judge_all_fail = {"ar": 0.0, "rf": 0.0, "fu": 0.0}
    judge_all_pass = {"ar": 1.0, "rf": 1.0, "fu": 1.0}
    assert primary_source(_row("vaot", SILENT), judge_all_pass) == ("action", "known")
    assert primary_source(_row("vaot_wrongrender", ACTED, ["modify_key: moved"]), judge_all_pass) == ("render", "known")
    # A faithful render is never blamed on the renderer, whatever the judge says: the judge's FU decides.
    assert primary_source(_row("vaot", ACTED), {"ar": 1.0, "rf": 0.0, "fu": 0.0}) == ("feedback", "judge")
    assert primary_source(_row("vaot", ACTED), {"ar": 1.0, "rf": 0.0, "fu": 1.0}) == ("reasoning", "judge")
    assert primary_source(_row("vaot", ACTED), judge_all_fail) == ("action", "judge")
    # Nothing rendered: the judge's RF is all there is.
    assert primary_source(_row("vaot_norender", ACTED), {"ar": 1.0, "rf": 0.5, "fu": 1.0}) == ("render", "judge")
    assert primary_source(_row("vaot", ACTED), None) == (None, "unattributed")
    assert known_facts(_row("vaot_wrongrender", ACTED, [])) == {"acted": True, "faithful": True}
    assert known_facts(_row("vaot_norender", None)) == {"acted": None, "faithful": None}


def test_report_and_scored_table_carry_the_failure_sources(tmp_path: Path) -> None:
    suite_dir = tmp_path / "suite"
    build_suite(suite_dir, "dice", [TaskPlan("rolling_dice_top", 2, 3)])
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    server = spawn_mock_server(suite_dir, "--script", str(script), "--p", "0")  # every answer wrong
    try:
        result = run_eval(
            EvalSpec(
                suite=suite_dir,
                model="mock",
                base_url=server.base_url,
                conditions=list(VAOT_CONDITIONS),
                run_dir=tmp_path / "run",
                tag_requests=True,
            )
        )
    finally:
        server.stop()
    rebuild_trajectories(result.run_dir, read_suite(suite_dir))
    lines = []
    for t in read_trajectories(result.run_dir):
        if t.condition == "vaot":  # judged unfaithful, wrongly (vcot renders faithfully), and feedback unused
            s = {"ar": 1.0, "rf": 0.0, "fu": 0.0}
        elif t.condition == "vaot_wrongrender":  # judged unfaithful, rightly
            s = {"ar": 1.0, "rf": 0.0, "fu": 1.0}
        else:
            continue  # vaot_norender and the rest stay unjudged
        lines.append(
            json.dumps(
                {
                    "trajectory_id": t.trajectory_id,
                    "judge_model": "j",
                    "key_step": 1,
                    "key_action": 0,
                    **s,
                    "rationale": "",
                    "error": None,
                }
            )
        )
    (result.run_dir / "process_scores.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "report"
    r = CliRunner().invoke(app, ["report", str(result.run_dir), "--suite", str(suite_dir), "--out", str(out)])
    assert r.exit_code == 0, r.output
    rows = pq.read_table(out / "scored.parquet").to_pylist()
    got = {(row["condition"], row["failure_source"], row["failure_basis"]) for row in rows}
    assert ("vaot", "feedback", "judge") in got
    assert ("vaot_norender", None, "unattributed") in got
    wrongrender = {(s, b) for c, s, b in got if c == "vaot_wrongrender"}
    assert wrongrender == {("render", "known")}  # the script's actions are corrupted by modify_key
    md = (out / "report.md").read_text()
    assert "Primary failure source of incorrect VAoT trajectories" in md
    # RF against the truth: vaot's 0.0 is wrong (2 trajectories), vaot_wrongrender's 0.0 is right (2).
    assert "| render faithful | 4 | 50.0% | 2 | 0 |" in md
