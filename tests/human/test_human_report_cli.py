"""The study in `vcot report` beside a chance-model run, agreement statistics, the Parquet export, and the
`vcot human` command (one server per study, network binding only on purpose, answers exported on stop)."""

from __future__ import annotations

import math
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pyarrow.parquet as pq
import pytest
from human_fixtures import build_suite, wrong_answer
from typer.testing import CliRunner

from vcot.cli import app as cli
from vcot.human import HumanApp, open_study, prepare_study
from vcot.human.analysis import fleiss_kappa, pairwise_agreement
from vcot.scoring import score_fields
from vcot.scoring.score import parse_options

runner = CliRunner()

# Fleiss (1971) as worked on Wikipedia's "Fleiss' kappa" page: 10 subjects, 14 raters, 5 categories, κ = 0.210.
FLEISS_COUNTS = [
    [0, 0, 0, 0, 14],
    [0, 2, 6, 4, 2],
    [0, 0, 3, 5, 6],
    [0, 3, 9, 2, 0],
    [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0],
    [3, 2, 6, 3, 0],
    [2, 5, 3, 2, 2],
    [6, 5, 2, 1, 0],
    [0, 2, 2, 3, 7],
]


def test_fleiss_kappa_matches_the_worked_example() -> None:
    items = [[cat for cat, n in enumerate(row) for _ in range(n)] for row in FLEISS_COUNTS]
    assert fleiss_kappa(items) == pytest.approx(0.2099, abs=5e-4)
    assert fleiss_kappa([["a", "a"], ["b", "b"]]) == pytest.approx(1.0)
    assert math.isnan(fleiss_kappa([["a", "a"], ["a", "a"]]))  # everyone the same: undefined
    assert math.isnan(fleiss_kappa([["a"]]))
    assert pairwise_agreement([["a", "a", "b"], ["c", "d"]]) == pytest.approx(1 / 4)


def _answer_all(study: Any, wrong_uid: str) -> None:
    """Every participant answers every item: right, except `wrong_uid`, which everyone gets wrong."""
    clock = [1000.0]
    app = HumanApp(study, clock=lambda: clock[0])
    for pid in study.plan.participants:
        for job in app.jobs(pid):
            inst = study.instance(job.uid)
            app.item_page(pid, job.position)
            clock[0] += 10 + job.position
            value = wrong_answer(inst.answer_type) if job.uid == wrong_uid else inst.answer
            body = f"answer={quote(value)}&view=1&visible_ms=8000&timing=script".encode()
            assert app.submit(pid, job.position, body).status == 303


def test_report_puts_the_study_beside_a_chance_run(tmp_path: Path, suite_dir: Path) -> None:
    run = tmp_path / "run"
    res = runner.invoke(
        cli,
        ["eval", str(suite_dir), "--model", "chance", "--run", str(run), "-c", "direct,visual_cot", "--no-progress"],
    )
    assert res.exit_code == 0, res.output
    study, _ = prepare_study(tmp_path / "st", suite_dir, "4", 2, ["direct", "visual_cot"], None, 0)
    _answer_all(study, "count-1")
    out = tmp_path / "report"
    res = runner.invoke(
        cli, ["report", str(run), "--suite", str(suite_dir), "--human", str(tmp_path / "st"), "--out", str(out)]
    )
    assert res.exit_code == 0, res.output
    assert "Human accuracy by task" in res.output and "Human–model gap" in res.output
    md = (out / "report.md").read_text()
    # 6 problems, each answered by 2 people per condition, all right but count-1: 10 of 12 right.
    chance = [r for r in pq.read_table(run / "results.parquet").to_pylist() if r["condition"] == "direct"]
    chance_acc = sum(
        bool(score_fields(r["response"], r["gold"], r["answer_type"], parse_options(r["options"])).correct)
        for r in chance
    ) / len(chance)
    gap_row = next(
        line
        for line in md.split("### Human–model gap, condition direct", 1)[1].splitlines()
        if line.startswith("| all |")
    )
    cells = [c.strip() for c in gap_row.strip("|").split("|")]
    assert cells[1] == "6" and cells[2].startswith("83.3 [")
    assert cells[3].startswith(f"{100 * chance_acc:.1f} [")
    assert cells[4] == f"{100 * (10 / 12 - chance_acc):+.1f}"
    acc_rows = {
        tuple(c.strip() for c in line.strip("|").split("|")[:2]): line
        for line in md.split("### Human accuracy by task", 1)[1].split("###", 1)[0].splitlines()
        if line.startswith("| ")
    }
    assert acc_rows[("task", "count_things")].count("50.0 [") == 2  # count-1 all wrong, count-2 all right
    assert acc_rows[("task", "pick_shape")].count("100.0 [") == 2
    assert ("difficulty", "hard") in acc_rows and ("domain", "PBR") in acc_rows
    assert "### Human time per item" in md and "### Agreement between participants" in md
    hard = md.split("### Items most participants got wrong", 1)[1].split("###", 1)[0]
    assert "| count-1 | count_things | 4 | 0 | 417 | 1 | " in hard
    html = (out / "report.html").read_text()
    assert 'id="human-item-count-1"' in html and 'href="#human-item-count-1"' in html
    assert len(re.findall(r'id="human-item-', html)) == 1
    assert 'id="human"' in html


def test_report_refuses_a_study_of_another_suite_and_writes_nothing(tmp_path: Path, suite_dir: Path) -> None:
    run = tmp_path / "run"
    assert (
        runner.invoke(
            cli, ["eval", str(suite_dir), "--model", "chance", "--run", str(run), "-c", "direct", "--no-progress"]
        ).exit_code
        == 0
    )
    prepare_study(tmp_path / "st", suite_dir, "2", 1)
    other = build_suite(tmp_path / "other", change="pick-1")
    res = runner.invoke(
        cli,
        ["report", str(run), "--suite", str(other), "--human", str(tmp_path / "st"), "--out", str(tmp_path / "rep")],
    )
    assert res.exit_code == 2 and "changed under the study" in res.output
    assert not (tmp_path / "rep").exists()
    res = runner.invoke(cli, ["report", str(run), "--human", str(tmp_path / "st"), "--out", str(tmp_path / "rep")])
    assert res.exit_code == 2 and "no answers yet" in res.output
    assert not (tmp_path / "rep").exists()


def test_export_writes_graded_answers_with_their_timing(tmp_path: Path, suite_dir: Path) -> None:
    study, _ = prepare_study(tmp_path / "st", suite_dir, "2", 1)
    _answer_all(study, "clock-1")
    res = runner.invoke(cli, ["human-export", str(tmp_path / "st")])
    assert res.exit_code == 0, res.output
    rows = pq.read_table(tmp_path / "st" / "answers.parquet").to_pylist()
    assert len(rows) == len(study.store.all_jobs()) == 6
    for r in rows:
        assert r["model"] == "human" and r["correct"] is (r["uid"] != "clock-1")
        assert r["timing"] == "script" and r["idle_ms"] == r["raw_ms"] - r["active_ms"] and r["active_ms"] == 8000
        assert r["response"] == f"<answer>{r['answer']}</answer>" and r["epoch"] in (0, 1)
    assert {r["difficulty"] for r in rows} == {"easy", "hard"}


def test_network_binding_needs_the_flag_and_a_refused_creation_leaves_nothing(tmp_path: Path, suite_dir: Path) -> None:
    res = runner.invoke(
        cli, ["human", str(suite_dir), "--out", str(tmp_path / "st"), "--participants", "2", "--host", "0.0.0.0"]
    )
    assert res.exit_code == 2 and "--allow-network" in res.output
    assert not (tmp_path / "st").exists()
    res = runner.invoke(cli, ["human", str(suite_dir), "--out", str(tmp_path / "st")])
    assert res.exit_code == 2 and "needs --participants" in res.output
    assert not (tmp_path / "st").exists()  # the folder made for the lock is gone again


def _lines(stream: Any) -> list[str]:
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(iter(stream.readline, "")), daemon=True).start()
    return lines


def _wait(lines: list[str], needle: str, timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(needle in line for line in list(lines)):
            return True
        time.sleep(0.05)
    return False


def test_second_server_on_one_study_is_refused_and_stop_exports(tmp_path: Path, suite_dir: Path) -> None:
    cmd = [
        sys.executable,
        "-m",
        "vcot.cli",
        "human",
        str(suite_dir),
        "--out",
        str(tmp_path / "st"),
        "--participants",
        "2",
        "--k",
        "1",
    ]
    first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out = _lines(first.stdout)
        assert _wait(out, "http://127.0.0.1:"), "".join(out) + first.stderr.read()
        second = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert second.returncode == 2 and "already serving this study" in second.stderr
        study = open_study(tmp_path / "st")
        assert study.store.answers() == []
        first.send_signal(signal.SIGINT)
        assert first.wait(timeout=30) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert _wait(out, "answers in")
    assert (tmp_path / "st" / "answers.parquet").is_file()
