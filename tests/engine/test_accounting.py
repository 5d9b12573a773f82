"""One accounting: `vcot eval`'s closing table and `vcot report` print the same numbers for the same run,
with engine failures and truncations counted in plain view."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.build import TaskPlan, build_suite
from vcot.cli import app

CONDITIONS = ("direct", "text_cot", "visual_cot")


def _summary_rows(output: str) -> list[str]:
    """The rows of the "Accuracy by condition" table, whitespace-normalised."""
    return [
        " ".join(line.split()) for line in output.splitlines() if line.split()[:1] and line.split()[0] in CONDITIONS
    ]


@pytest.fixture(scope="module")
def paired_suite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("acct") / "suite"
    build_suite(out, "acct", [TaskPlan("gear_rotation", 8, 0), TaskPlan("rolling_dice_top", 6, 0)])
    return out


def test_eval_and_report_print_the_same_accuracies(paired_suite: Path, tmp_path: Path) -> None:
    run = tmp_path / "run"
    ev = CliRunner().invoke(
        app, ["eval", "--suite", str(paired_suite), "--run", str(run), "--no-progress", "-c", ",".join(CONDITIONS)]
    )
    assert ev.exit_code == 0, ev.output
    rep = CliRunner().invoke(app, ["report", str(run), "--suite", str(paired_suite), "--out", str(tmp_path / "r")])
    assert rep.exit_code == 0, rep.output
    from_eval, from_report = _summary_rows(ev.output), _summary_rows(rep.output)
    assert len(from_eval) == len(CONDITIONS)
    assert from_eval == from_report[: len(CONDITIONS)]
    # 8 gear rows are 4 paired problems: counted once each, beside 6 dice problems.
    assert all(row.split()[1] == "10" for row in from_eval), from_eval


def test_engine_failures_are_counted_and_count_as_wrong(server, suite_large: Path, tmp_path: Path) -> None:
    server.configure(p=1.0, fault_rate=0.3, faults=["500"])
    run = tmp_path / "run"
    ev = CliRunner().invoke(
        app,
        [
            "eval",
            "--suite",
            str(suite_large),
            "--run",
            str(run),
            "--no-progress",
            "--model",
            "m",
            "--base-url",
            server.base_url,
            "-c",
            "direct",
            "--limit",
            "40",
            "--max-attempts",
            "1",
        ],
    )
    assert ev.exit_code == 3, ev.output  # some samples failed (README, exit codes)
    (row,) = _summary_rows(ev.output)
    cells = row.split()
    problems, acc, answered, errors = int(cells[1]), float(cells[2]), float(cells[5]), int(cells[7])
    assert 0 < errors < problems
    # Every answered sample is right (p = 1), and every failed one counts as wrong.
    assert answered == 100.0
    assert acc == pytest.approx(100 * (problems - errors) / problems, abs=0.05)


def test_a_truncated_response_is_graded_truncated_never_correct(server, suite_large: Path, tmp_path: Path) -> None:
    """The mock server cuts every answer off at the token limit (finish_reason "length") on a line that names
    the gold answer without a tag: the trap a last-line fallback falls into."""
    from vcot.analysis.build_report import scored
    from vcot.engine.results import results_table

    server.configure(p=1.0, truncate_rate=1.0)
    run = tmp_path / "run"
    ev = CliRunner().invoke(
        app,
        [
            "eval",
            "--suite",
            str(suite_large),
            "--run",
            str(run),
            "--no-progress",
            "--model",
            "m",
            "--base-url",
            server.base_url,
            "-c",
            "direct",
            "--limit",
            "10",
        ],
    )
    assert ev.exit_code == 0, ev.output
    rows = scored(results_table(run).to_pylist())
    assert rows and all(r["finish_reason"] == "length" for r in rows)
    assert all(r["verdict"] == "truncated" and not r["correct"] for r in rows)
    (row,) = _summary_rows(ev.output)
    cells = row.split()
    assert float(cells[2]) == 0.0 and int(cells[-1]) == int(cells[1])  # accuracy 0, every problem truncated


def test_score_text_explains_a_verdict() -> None:
    out = CliRunner().invoke(
        app,
        [
            "score-text",
            "<answer>not E</answer>",
            "--gold",
            "E",
            "--type",
            "choice",
            *[a for o in "abcde" for a in ("--option", o)],
        ],
    )
    assert out.exit_code == 0, out.output
    assert "verdict:   wrong" in out.output and "rejects E" in out.output
    right = CliRunner().invoke(app, ["score-text", "so it is twenty to eight", "--gold", "7:40", "--type", "time"])
    assert "verdict:   correct" in right.output and "7:40" in right.output
    bad = CliRunner().invoke(app, ["score-text", "x", "--gold", "1", "--type", "colour"])
    assert bad.exit_code == 2 and "unknown answer type" in bad.output
