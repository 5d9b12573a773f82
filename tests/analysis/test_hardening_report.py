"""Issue 18, reports: intervals at 0% and 100% (plots crashed), no folder left by a failed `vcot report`, and
paired tests that count problems, not (problem, epoch) pairs."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from typer.testing import CliRunner

from vcot.analysis.metrics import wilson
from vcot.analysis.tables import paired_tests
from vcot.analysis.units import to_samples
from vcot.cli import app

runner = CliRunner()


def row(cond: str, uid: str, ok: bool, epoch: int = 0) -> dict:
    return dict(
        run_id="r",
        model="m",
        condition=cond,
        uid=uid,
        task="overlap",
        domain="EG",
        answer_type="choice",
        gold="B",
        options=json.dumps(["p", "q", "r", "s"]),
        epoch=epoch,
        extracted="B" if ok else "A",
        tier="tag",
        correct=ok,
        response="<answer>B</answer>" if ok else "<answer>A</answer>",
        error=None,
    )


# ---------------------------------------------------------------------------------- 6. 0% and 100%


def test_wilson_bounds_never_cross_the_estimate() -> None:
    for n in range(1, 300):
        lo, hi = wilson(0, n)
        assert lo == 0.0 <= hi
        lo, hi = wilson(n, n)
        assert lo <= 1.0 == hi


def test_report_with_a_0_and_a_100_percent_cell(tmp_path: Path) -> None:
    # Three problems: wilson(0, 3) and wilson(10, 10) were the cases rounding pushed past the estimate.
    rows = [row("direct", f"u{i}", False) for i in range(3)] + [row("text_cot", f"u{i}", True) for i in range(3)]
    rows += [row("visual_cot", f"v{i}", True) for i in range(10)]
    path = tmp_path / "scored.parquet"
    pq.write_table(pa.Table.from_pylist(rows), path)
    result = runner.invoke(app, ["report", str(path), "--out", str(tmp_path / "rep")])
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    assert result.exit_code == 0, result.output
    assert (tmp_path / "rep" / "report.html").is_file()


# ----------------------------------------------------------------------------- 11. failed report folder


def test_failed_report_leaves_no_folder(tmp_path: Path) -> None:
    bad = tmp_path / "bad.parquet"
    bad.write_text("not parquet")
    for extra in ([], ["--judge-model", "j", "--judge-base-url", "http://127.0.0.1:9/v1"]):
        result = runner.invoke(app, ["report", str(bad), *extra])
        assert result.exit_code == 2, result.output
        assert not (tmp_path / "report").exists(), extra


# ------------------------------------------------------------------------------ 12. paired with epochs


def test_paired_counts_are_per_problem_with_epochs() -> None:
    rows = []
    # u0: 2 of 4 right under each condition, on different epochs (a tie); u1: better under the baseline;
    # u2, u3: better under the treatment.
    pattern = {
        "u0": ([1, 1, 0, 0], [0, 0, 1, 1]),
        "u1": ([1, 1, 1, 0], [0, 0, 1, 0]),
        "u2": ([0, 0, 0, 0], [1, 0, 1, 1]),
        "u3": ([0, 1, 0, 0], [1, 1, 0, 1]),
    }
    for uid, (base, treat) in pattern.items():
        for epoch in range(4):
            rows.append(row("direct", uid, bool(base[epoch]), epoch))
            rows.append(row("visual_cot", uid, bool(treat[epoch]), epoch))
    t = paired_tests(to_samples(rows), n_boot=200)
    r = t.rows[0]
    assert r[1] == "direct → visual_cot" and r[2] == 4
    b, c = r[6], r[7]
    assert (b, c) == (1, 2) and b + c <= r[2]
    assert float(r[8]) == 1.0  # sign test: 2 * P(X <= 1 | 3) capped at 1
    assert "mean over epochs" in t.note and "b + c ≤ n" in t.note
