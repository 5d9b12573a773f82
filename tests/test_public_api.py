"""The public API (README.md, "From Python"): the README's script, run as it stands, gives what the commands
give — the same suite content hash, the same accuracies, a report — and `import vcot` stays light."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import vcot
from vcot.analysis.build_report import scored, summary_table
from vcot.cli import app

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_script() -> str:
    section = README.read_text(encoding="utf-8").split("## From Python", 1)[1]
    return re.search(r"```python\n(.*?)```", section, re.S).group(1)


@pytest.fixture(scope="module")
def api_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("api")
    env: dict = {}
    import os

    here = os.getcwd()
    os.chdir(root)
    try:
        exec(compile(readme_script(), "README.md (From Python)", "exec"), env)
    finally:
        os.chdir(here)
    return root, env


def test_the_readme_script_matches_the_commands(api_run: tuple[Path, dict]) -> None:
    root, env = api_run
    suite, run, verdict = env["suite"], env["run"], env["verdict"]
    cli = CliRunner()
    out = cli.invoke(app, ["generate", "--preset", "mini", "--out", str(root / "cli-mini"), "--no-progress"])
    assert out.exit_code == 0, out.output
    assert suite.manifest["content_hash"] in out.output
    ev = cli.invoke(
        app, ["eval", str(root / "cli-mini"), "-c", "direct,text_cot", "--run", str(root / "cli-run"), "--no-progress"]
    )
    assert ev.exit_code == 0, ev.output
    # The same accounting: the closing table of `vcot eval` and the API run's summary agree cell for cell.
    rows = scored(pq.read_table(root / "cli-run" / "results.parquet").to_pylist())
    cli_table = summary_table(rows, vcot.load_suite(root / "cli-mini"))
    assert cli_table.rows == run.summary().rows
    assert set(run.accuracy) == {"direct", "text_cot"}
    for row in run.summary().rows:
        assert row[run.summary().header.index("accuracy % [95% CI]")] in ev.output
    assert 0 < run.accuracy["direct"] < 1 and run.answered == run.total and run.failed == 0
    assert (root / "runs" / "chance" / "report" / "report.html").is_file()
    assert verdict.correct is False and verdict.verdict == "wrong" and verdict.extracted == "not E"


def test_grade_is_score_text() -> None:
    right = vcot.grade("The count is 7, so <answer>7</answer>", gold="7", answer_type="integer")
    assert right.correct and right.tier == "tag"
    out = CliRunner().invoke(
        app, ["score-text", "The count is 7, so <answer>7</answer>", "--gold", "7", "--type", "integer"]
    )
    assert str(right) in out.output
    with pytest.raises(ValueError, match="unknown answer type"):
        vcot.grade("x", "1", "numbr")


def test_api_errors_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        vcot.generate(out=tmp_path / "s")
    with pytest.raises(KeyError, match="unknown task 'nope'"):
        vcot.generate("nope", out=tmp_path / "s")
    with pytest.raises(ValueError, match="unknown parameter"):
        vcot.generate("convex_hull", n=2, params={"gird": 3}, out=tmp_path / "s")
    with pytest.raises(ValueError, match="unknown setting"):
        vcot.evaluate(tmp_path / "s", epoch=2)
    assert not (tmp_path / "s").exists()


def test_tasks_lists_the_registry_and_import_stays_light() -> None:
    infos = vcot.tasks()
    assert [i.name for i in infos][:2] == ["convex_hull", "overlap"]
    assert {i.domain for i in infos} >= {"EG", "PBR", "ASLP", "CT", "3D"}
    code = "import sys, vcot; print(sorted(m for m in sys.modules if m.startswith('vcot')))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "['vcot']"
