"""The report's "solvable without the picture" table (src/vcot/analysis/without_picture.py)."""

from __future__ import annotations

from typer.testing import CliRunner

from vcot.analysis.units import Sample
from vcot.analysis.without_picture import MIN_PROBLEMS, without_picture_table
from vcot.cli import app


def _samples(task: str, cond: str, n: int, right: int, chance: float = 0.25) -> list[Sample]:
    return [Sample("r", "m", cond, task, "EG", f"{task}-{i}", 0, i < right, None, chance) for i in range(n)]


def test_table_absent_without_text_only_conditions():
    assert without_picture_table(_samples("overlap", "direct", 12, 3)) is None


def test_question_that_gives_the_answer_away_is_flagged():
    n = MIN_PROBLEMS + 2
    samples = (
        _samples("overlap", "question_only", n, n)
        + _samples("overlap", "caption_only", n, 3)
        + _samples("overlap", "text_cot", n, 6)
        + _samples("billiards", "caption_only", 3, 3)
    )
    t = without_picture_table(samples)
    assert t is not None
    rows = {r[2]: r for r in t.rows}
    assert rows["overlap"][4].acc == 3 / n and rows["overlap"][5].acc == 1.0 and rows["overlap"][6].acc == 0.5
    assert rows["overlap"][8:] == ["no", "yes"]
    assert rows["billiards"][8:] == ["too few", "—"] and rows["billiards"][6] == "—"
    assert rows["all tasks"][3] == n + 3


def test_eval_and_report_on_a_generated_suite(tmp_path):
    """caption_only serves a generated suite with no captions in meta, and the report shows the table."""
    runner = CliRunner()
    suite, run = tmp_path / "suite", tmp_path / "run"
    r = runner.invoke(app, ["generate", "-t", "mirror_clock", "--n", "3", "-o", str(suite), "--no-progress"])
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        [
            "eval",
            "--suite",
            str(suite),
            "--run",
            str(run),
            "--no-progress",
            "--conditions",
            "caption_only,question_only",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "caption_only" in r.output and "question_only" in r.output
    r = runner.invoke(app, ["report", str(run), "-o", str(tmp_path / "rep")])
    assert r.exit_code == 0, r.output
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "Solvable without the picture" in md and "| mirror_clock |" in md
