"""What a person sees in a terminal, a pipe or a log: output that fits $COLUMNS, each table once, the
quickstart's next steps, and progress lines where no live bar can show (issue: terminal output)."""

from __future__ import annotations

import io
import os
import re
import shlex
import subprocess
import sys
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from task_pieces import builtin_task_names
from vcot.cli import app

WIDTH = 100
INTERVAL = re.compile(r"\d+\.\d \[\d+\.\d, \d+\.\d\]")
# The mini preset: 3 problems of every task; gear_rotation's 3 problems are 6 paired rows.
MINI_PROBLEMS = 3 * len(builtin_task_names())
MINI_COUNTS = f"{MINI_PROBLEMS} problems ({MINI_PROBLEMS + 3} instances; paired gear rows count once)"
CONDITIONS = (
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


def vcot(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The real command in a pipe (not a terminal), as `vcot ... | awk` runs it."""
    environment = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "VCOT_PROGRESS_EVERY")}
    r = subprocess.run(
        [sys.executable, "-m", "vcot.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        env={**environment, "COLUMNS": str(WIDTH), **env},
        timeout=300,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return r


def too_long(text: str, width: int = WIDTH) -> list[str]:
    # Bytes, not characters: mawk's `length` (Debian's awk) counts bytes, and "─" or "→" are three.
    return [line for line in text.splitlines() if len(line.encode()) > width]


@pytest.fixture(scope="module")
def quickstart(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("qs")
    return root, vcot("quickstart", "--no-progress", cwd=root).stdout


def test_quickstart_fits_100_columns(quickstart):
    _, out = quickstart
    assert too_long(out) == []


def test_quickstart_prints_each_table_once_and_no_uninformative_one(quickstart):
    _, out = quickstart
    assert out.count("Accuracy by condition") == 1
    for cond in CONDITIONS:  # one row each, names and intervals unbroken
        assert (
            len(
                [
                    line
                    for line in out.splitlines()
                    if re.match(rf"^ {cond}\s+{MINI_PROBLEMS}\s+{INTERVAL.pattern}", line)
                ]
            )
            == 1
        )
    # The report has them; the terminal only with --tables, and the VAoT ones say nothing for chance.
    for title in ("MIRA Table 1", "Paired condition comparisons", "Semantic answer change", "failure source"):
        assert title not in out


def test_quickstart_counts_problems_and_ends_with_next_steps(quickstart):
    root, out = quickstart
    assert MINI_COUNTS in out.splitlines()[0]
    tail = out[out.index("next steps:") :]
    assert "vcot-quickstart/report/report.html" in tail and "docs/models.md" in tail
    assert (root / "vcot-quickstart" / "report" / "report.html").is_file()
    # The eval command is one shell command across its continued lines, on the suite the quickstart wrote.
    lines = tail.splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("vcot eval"))
    command = lines[start]
    while command.endswith("\\"):
        start += 1
        command = command[:-1] + lines[start]
    words = shlex.split(command)
    assert words[:7] == [
        "vcot",
        "eval",
        "vcot-quickstart/mini",
        "--base-url",
        "http://localhost:8000/v1",
        "--model",
        "NAME",
    ]
    assert (root / words[2] / "manifest.json").is_file()
    assert out.rstrip().splitlines()[-1].strip().startswith("vcot report vcot-quickstart/run-NAME")


def test_report_with_every_table_fits_100_columns(quickstart):
    root, _ = quickstart
    r = vcot(
        "report", "vcot-quickstart/run-chance", "--suite", "vcot-quickstart/mini", "--out", "rep", "--tables", cwd=root
    )
    assert too_long(r.stdout) == [] and too_long(r.stderr) == []
    # MIRA Table 1 (22 columns) comes in parts, each repeating the model column; no cell broken.
    parts = re.findall(r"MIRA Table 1 layout .*\((\d) of (\d)\)", r.stdout)
    assert len(parts) >= 2 and {total for _, total in parts} == {str(len(parts))}
    assert r.stdout.count("chance level") == len(parts)
    # The paired difference and its interval stay on one line, unbroken.
    assert re.search(r"visual_cot → visual_cot_corrupted.*[+-]\d+\.\d \[[+-]\d+\.\d, [+-]\d+\.\d\]", r.stdout)
    assert len(INTERVAL.findall(r.stdout.split("MIRA Table 1")[0])) == len(CONDITIONS)
    assert "Semantic answer change" not in r.stdout  # --tables still leaves out a table with no finding


def test_eval_fits_100_columns_and_counts_problems(quickstart):
    root, _ = quickstart
    # The header wraps at 100 columns: a run folder name of each length puts a different word at the edge.
    for run in ("r", "a-longer-run-folder"):
        r = vcot("eval", "vcot-quickstart/mini", "--run", run, "--no-progress", cwd=root)
        assert too_long(r.stdout) == [] and too_long(r.stderr) == []
    assert f"{MINI_COUNTS}; conditions direct, text_cot" in " ".join(r.stderr.split())
    assert r.stdout.count("Accuracy by condition") + r.stdout.count("chance on mini") == 1


@pytest.fixture(scope="module")
def hull(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hull") / "hull"
    r = CliRunner().invoke(app, ["generate", "--task", "convex_hull", "--n", "6", "--out", str(out)])
    assert r.exit_code == 0, r.output
    # Not a terminal here: the progress comes as lines, the last at 100 %.
    assert "generating convex_hull: 6/6 (100%)" in r.output
    return out


def test_eval_in_a_log_prints_progress_lines(hull, tmp_path):
    from vcot.engine.mock import spawn_mock_server

    mock = spawn_mock_server(hull, "--latency", "2.5")
    try:
        t0 = time.monotonic()
        r = vcot(
            "eval",
            str(hull),
            "--base-url",
            mock.base_url,
            "--model",
            "m",
            "-c",
            "direct",
            "--limit",
            "1",
            "--run",
            str(tmp_path / "run"),
            cwd=tmp_path,
            VCOT_PROGRESS_EVERY="1",
        )
        took = time.monotonic() - t0
    finally:
        mock.stop()
    lines = [line for line in r.stderr.splitlines() if line.startswith("m: ")]
    # One line when it starts, one a second while the only request waits, one when it is done.
    waiting = [line for line in lines if line.startswith("m: 0/1 (0%)")]
    assert len(waiting) >= 2, r.stderr
    assert all("errors 0" in line and "retries 0" in line and "ETA" in line for line in waiting)
    assert lines[-1].startswith("m: 1/1 (100%), errors 0, retries 0") and took < 60


def test_log_progress_prints_every_tenth_and_while_stuck(monkeypatch):
    from rich.console import Console

    from vcot.cli import common

    buffer = io.StringIO()
    monkeypatch.setattr(common, "err", Console(file=buffer, width=WIDTH))
    with common.LogProgress(every=0.1) as shown:
        task = shown.add_task("work", total=20, failed=0)
        for _ in range(20):
            shown.advance(task)
        shown.update(task, total=40, failed=1)
        time.sleep(0.5)  # nothing done: a line anyway, about every 0.1 s
    lines = buffer.getvalue().splitlines()
    # A line when the work starts, then one at each tenth.
    assert [line.split(",")[0] for line in lines if "/20 (" in line] == [
        "work: 0/20 (0%)",
        *(f"work: {2 * k}/20 ({10 * k}%)" for k in range(1, 11)),
    ]
    assert len([line for line in lines if line.startswith("work: 20/40 (50%), failed 1")]) >= 2


def test_a_wide_table_is_split_with_its_labels_repeated():
    from rich.console import Console

    from vcot.analysis.render import to_rich
    from vcot.analysis.tables import Table

    t = Table(
        "Wide",
        ["model", "condition", *[f"metric number {k}" for k in range(8)]],
        [["m", f"condition_{i}", *[f"{k}.5 [1.0, 99.0]" for k in range(8)]] for i in range(3)],
    )
    buffer = io.StringIO()
    Console(file=buffer, width=60).print(to_rich(t))
    out = buffer.getvalue()
    assert too_long(out, 60) == []
    assert "Wide: m (1 of" in out  # the model column holds one value: moved into the title
    parts = int(re.search(r"\(1 of (\d)\)", out).group(1))
    assert out.count("condition_2") == parts  # the label column repeated in each part
    assert out.count("[1.0, 99.0]") == 3 * 8  # every cell whole, on one line
