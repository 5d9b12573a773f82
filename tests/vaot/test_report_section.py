"""See2Think tables and the trajectory viewer inside `vcot report`, from a real VAoT run."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from vcot.cli import app
from vcot.engine.trajectories import read_trajectories, rebuild_trajectories
from vcot.suite import read_suite


def test_report_has_see2think_tables_and_viewer(vaot_run, tmp_path):
    suite_dir, result, _ = vaot_run
    rebuild_trajectories(result.run_dir, read_suite(suite_dir))
    trajs = read_trajectories(result.run_dir)
    # Hand-set process scores: vaot trajectories RF 0.5, wrongrender FU 1, norender unjudged.
    lines = []
    for t in trajs:
        if t.condition == "vaot_norender":
            continue
        rf, fu = (0.5, 0.0) if t.condition == "vaot" else (0.0, 1.0)
        lines.append(
            json.dumps(
                {
                    "trajectory_id": t.trajectory_id,
                    "judge_model": "j",
                    "key_step": 1,
                    "key_action": 0,
                    "ar": 1.0,
                    "rf": rf,
                    "fu": fu,
                    "rationale": "",
                    "error": None,
                }
            )
        )
    (result.run_dir / "process_scores.jsonl").write_text("\n".join(lines) + "\n")
    out = tmp_path / "report"
    r = CliRunner().invoke(app, ["report", str(result.run_dir), "--suite", str(suite_dir), "--out", str(out)])
    assert r.exit_code == 0, r.output
    md = (out / "report.md").read_text()
    assert "Process scores: mean AR / RF / FU" in md
    # Both instances are right in every condition (p = 1): no benefit, no harm, RF group 0.5, FU group 1.0.
    assert "| CT | 0.5 | 2 | 0.0% | 0.0% | +0.0 |" in md
    assert "| CT | 1.0 | 2 | 100.0% | 100.0% | +0.0 |" in md
    assert "Semantic answer change" in md
    page = (out / "report.html").read_text()
    assert 'id="trajectories"' in page
    assert page.count("<details><summary>") >= 6
    assert "rejected: teleport: unknown action" in page or "unknown action &#x27;teleport&#x27;" in page
    assert "modify_key" in page  # the viewer shows which corruption was applied
