"""`-c visual_cot_prefix_kN`: a prefix of a fixed N steps, named on the command line (issue 20)."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
from typer.testing import CliRunner

from vcot.cli import app
from vcot.conditions import REGISTRY

runner = CliRunner()


def test_a_fixed_prefix_is_a_condition_by_name(suite_small: Path, tmp_path: Path) -> None:
    r = runner.invoke(
        app,
        [
            "eval",
            str(suite_small),
            "--run",
            str(tmp_path / "r"),
            "--no-progress",
            "-c",
            "visual_cot_prefix_k1,visual_cot_prefix_k2",
        ],
    )
    assert r.exit_code == 0, r.output
    rows = pq.read_table(tmp_path / "r" / "results.parquet").to_pylist()
    sent = {(row["condition"], row["steps_sent"]) for row in rows}
    assert {tuple(json.loads(s)) for c, s in sent if c == "visual_cot_prefix_k1"} == {(1,)}
    assert {tuple(json.loads(s)) for c, s in sent if c == "visual_cot_prefix_k2"} == {(1, 2)}


def test_names_outside_the_family_stay_unknown(suite_small: Path, tmp_path: Path) -> None:
    assert not REGISTRY.known("visual_cot_prefix_k0") and not REGISTRY.known("visual_cot_prefix_kx")
    r = runner.invoke(
        app, ["eval", str(suite_small), "--run", str(tmp_path / "r"), "--no-progress", "-c", "visual_cot_prefix_k0"]
    )
    assert r.exit_code == 2 and "unknown condition" in r.output and "visual_cot_prefix_kN" in r.output
