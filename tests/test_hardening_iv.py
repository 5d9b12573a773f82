"""Issue 45, "Hardening IV": the Python API's argument checks, the --n bounds of `vcot generate` and
`vcot export-rl`, a run store whose settings are damaged, and the RL pieces (compute_score, escaped answer
tags, curriculum state, drawing-argument sizes, DrawingSession's budget)."""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import vcot
from vcot.cli import app
from vcot.cli.rl import MAX_STREAM_PROBLEMS
from vcot.cli.suite import MAX_SUITE_N

runner = CliRunner()


def _one_line(result: Any) -> str:
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), repr(result.exception)
    return " ".join(result.output.split())


# ------------------------------------------------------------------------------------------ the Python API


def test_evaluate_takes_a_path_as_the_suite_folder_and_a_string_as_one_condition(
    toy_suite: Path, tmp_path: Path
) -> None:
    run = vcot.evaluate(Path(toy_suite), conditions="direct", run=tmp_path / "run")
    assert run.conditions == ["direct"]
    assert run.total == 8 and run.failed == 0
    settings = sqlite3.connect(tmp_path / "run" / "run.sqlite").execute("SELECT settings FROM runs").fetchone()
    assert Path(json.loads(settings[0])["suite_path"]) == toy_suite  # not the Path's root, "/"


@pytest.mark.parametrize(("suite", "error"), [(5, TypeError), (None, TypeError)])
def test_evaluate_refuses_a_suite_that_is_no_folder(suite: Any, error: type, tmp_path: Path) -> None:
    with pytest.raises(error, match="suite must be a folder path"):
        vcot.evaluate(suite, run=tmp_path / "run")


def test_evaluate_refuses_empty_or_non_string_conditions(toy_suite: Path, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="conditions is empty"):
        vcot.evaluate(toy_suite, conditions="", run=tmp_path / "run")
    with pytest.raises(TypeError, match="conditions must be names"):
        vcot.evaluate(toy_suite, conditions=[1], run=tmp_path / "run")  # type: ignore[list-item]


def test_report_of_no_runs_and_grade_of_a_number_say_what_is_wrong() -> None:
    with pytest.raises(ValueError, match="at least one run"):
        vcot.report([])
    with pytest.raises(TypeError, match=r"response must be a string, got int 5 \(pass str"):
        vcot.grade(5, "5", "integer")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="options must be a sequence"):
        vcot.grade("A", "A", "choice", options="ABCD")
    assert vcot.grade("<answer>5</answer>", "5", "integer").correct


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"seed": "x"}, TypeError, "seed must be an integer"),
        ({"seed": True}, TypeError, "seed must be an integer"),
        ({"n": 2.5}, TypeError, "n must be an integer"),
        ({"n": 0}, ValueError, "n must be at least 1"),
        ({"n": MAX_SUITE_N + 1}, ValueError, f"over the limit of {MAX_SUITE_N:,}"),
        ({"processes": 0}, ValueError, "processes must be at least 1"),
        ({"params": [("grid", 3)]}, TypeError, "params must be a mapping"),
    ],
)
def test_generate_checks_its_arguments_before_writing(kwargs: dict, error: type, message: str, tmp_path: Path) -> None:
    with pytest.raises(error, match=message):
        vcot.generate("toy_dots", **{"out": tmp_path / "s", **kwargs})
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize("out", ["", "  "])
def test_generate_refuses_an_empty_out_instead_of_writing_here(
    out: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="out is empty"):
        vcot.generate("toy_dots", n=2, out=out)
    assert os.listdir(tmp_path) == []


# ------------------------------------------------------------------------------------------- the --n bounds


def test_generate_refuses_an_n_over_the_suite_limit_at_once(tmp_path: Path) -> None:
    start = time.monotonic()
    out = _one_line(
        runner.invoke(
            app, ["generate", "-t", "toy_dots", "--n", "1000000000", "-o", str(tmp_path / "s"), "--no-progress"]
        )
    )
    assert time.monotonic() - start < 10
    assert f"over the limit of {MAX_SUITE_N:,}" in out and "--shards" in out, out
    assert not (tmp_path / "s").exists()


@pytest.mark.parametrize(
    ("n", "levels", "phrase"),
    [
        ("1000000000", [], "1,000,000,000 problems is over"),
        (str(MAX_STREAM_PROBLEMS // 2 + 1), ["-d", "easy,hard"], "× 2 difficulties is over"),
    ],
)
def test_export_rl_stream_refuses_an_n_over_its_limit_at_once(
    n: str, levels: list[str], phrase: str, tmp_path: Path
) -> None:
    out = _one_line(
        runner.invoke(
            app,
            [
                "export-rl",
                "stream",
                "-t",
                "rolling_dice_top",
                "--n",
                n,
                *levels,
                "-o",
                str(tmp_path / "x"),
                "--no-progress",
            ],
        )
    )
    assert phrase in out and f"limit of {MAX_STREAM_PROBLEMS:,} problems" in out, out
    assert not (tmp_path / "x").exists()


# -------------------------------------------------------------------------------- damaged settings in a store


@pytest.fixture
def damaged_settings_run(toy_suite: Path, tmp_path: Path) -> Path:
    run = tmp_path / "run"
    result = runner.invoke(app, ["eval", str(toy_suite), "--run", str(run), "--no-progress", "-c", "direct"])
    assert result.exit_code == 0, result.output
    conn = sqlite3.connect(run / "run.sqlite")
    conn.execute("UPDATE runs SET settings = ?", ('{"suite_name": "to',))
    conn.commit()
    conn.close()
    (run / "results.parquet").unlink()
    return run


def test_eval_on_a_store_with_damaged_settings_says_so_in_one_line(damaged_settings_run: Path, toy_suite: Path) -> None:
    # A second run id in the same folder makes eval read the first run's settings (another seed).
    out = _one_line(
        runner.invoke(
            app,
            [
                "eval",
                str(toy_suite),
                "--run",
                str(damaged_settings_run),
                "--no-progress",
                "-c",
                "direct",
                "--seed",
                "7",
            ],
        )
    )
    assert "the run store is damaged" in out and "are not a JSON object" in out, out


def test_results_and_trajectories_on_damaged_settings_name_the_store(
    damaged_settings_run: Path, toy_suite: Path
) -> None:
    from vcot.engine.results import results_table
    from vcot.engine.store import StoreDamaged

    with pytest.raises(StoreDamaged, match="are not a JSON object"):
        results_table(damaged_settings_run)
    out = _one_line(runner.invoke(app, ["trajectories", str(damaged_settings_run), "--suite", str(toy_suite)]))
    assert "the run store is damaged" in out, out


# ---------------------------------------------------------------------------------------------------- RL


@pytest.mark.parametrize(
    ("calls", "expected"),
    [
        (10**400, 0.0),
        (-(10**400), 0.0),
        (math.nan, 0.0),
        (math.inf, 0.0),
        (-3, 0.0),
        (True, 0.0),
        ("3", 0.0),
        (3, 3.0),
        (2.0, 2.0),
    ],
)
def test_compute_score_never_raises_on_the_draw_call_count(calls: Any, expected: float) -> None:
    from vcot.rl.verl import compute_score

    out = compute_score("vcot", "<answer>5</answer>", "5", {"vcot_draw_calls": calls, "answer_type": "integer"})
    assert out["draw_calls"] == expected and out["score"] == 1.0


def test_compute_score_survives_a_mapping_whose_get_raises() -> None:
    from collections.abc import Mapping

    from vcot.rl.verl import compute_score

    class Hostile(Mapping):
        def __getitem__(self, key: str) -> Any:
            raise RuntimeError("no")

        def __iter__(self) -> Any:
            return iter(())

        def __len__(self) -> int:
            return 0

    assert compute_score("vcot", "<answer>5</answer>", "5", Hostile())["draw_calls"] == 0.0


PROBLEM = {"answer": "5", "answer_type": "integer"}
ESCAPED = "&lt;answer&gt;{}&lt;/answer&gt;"


@pytest.mark.parametrize(
    ("text", "refused"),
    [
        (ESCAPED.format(1) * 64 + ESCAPED.format(5), True),
        ("&#60;answer&#62;1&#60;/answer&#62;" * 65, True),
        ("<answer>1</answer>" * 40 + ESCAPED.format(5) * 25, True),
        ("<answer>1</answer>" * 65, True),
        (ESCAPED.format(1) * 63 + ESCAPED.format(5), False),
    ],
)
def test_escaped_answer_tags_count_toward_the_tag_limit(text: str, refused: bool) -> None:
    from vcot.rl import reward_details

    details = reward_details(text, PROBLEM)
    assert (details.verdict == "refused") == refused, details
    if not refused:
        assert details.reward == 1.0  # the grader reads the last escaped tag: the limit is what refuses


def test_curriculum_state_with_a_knob_out_of_its_limits_is_refused_at_load() -> None:
    from vcot.rl import Curriculum

    def make() -> Curriculum:
        return Curriculum(
            ["rolling_dice_top"], window=8, knobs={"rolling_dice_top": "max_moves"}, start={"rolling_dice_top": 5}
        )

    cur = make()
    good = json.loads(json.dumps(cur.state_dict()))
    for value, phrase in (
        (10**9, "outside its limits"),
        (math.nan, "not a finite number"),
        ("hard", "not a finite number"),
        (5.5, "not a whole number"),
    ):
        state = json.loads(json.dumps(good))
        state["tasks"]["rolling_dice_top"]["value"] = value
        fresh = make()
        with pytest.raises(ValueError, match=phrase):
            fresh.load_state_dict(state)
        assert fresh.state_dict() == good  # left as it was
    for field, bad in (("recent", [2.0]), ("recent", [0.5] * 9), ("observed", -1), ("since_check", "3")):
        state = json.loads(json.dumps(good))
        state["tasks"]["rolling_dice_top"][field] = bad
        with pytest.raises(ValueError, match="curriculum state"):
            make().load_state_dict(state)
    resumed = make()
    resumed.load_state_dict(good)
    assert resumed.state_dict() == good


@pytest.fixture(scope="module")
def vaot_problem() -> Any:
    from vcot.rl import stream

    return next(stream(tasks=["mirror_pattern"], seed=0, condition="vaot"))


@pytest.mark.parametrize(
    "arguments",
    [
        {"points": [[1, 2]] * 1_000_000, "color": "red"},
        {"points": [[1, 2]] * 40, "color": "red", "label": "x" * 30_000},
        {"x": 10**100, "y": 3},
        {"points": [[1, [2] * 600]] * 2},
    ],
)
def test_oversized_drawing_arguments_are_refused_by_size_first(vaot_problem: Any, arguments: dict) -> None:
    from vcot.rl.verl import _check_parameters
    from vcot.vaot.actions import MAX_RAW_ARGUMENTS
    from vcot.vaot.session import DrawingSession

    session = DrawingSession.for_problem(vaot_problem)
    start = time.perf_counter()
    image, text = session.act("draw_polyline", arguments)
    checked = _check_parameters(arguments, MAX_RAW_ARGUMENTS)
    assert time.perf_counter() - start < 0.5
    assert image is None and "arguments hold" in text, text
    assert checked is not None and "arguments hold" in checked
    assert session.calls == 1  # a refused call still spends budget


def test_ordinary_drawing_arguments_still_draw(vaot_problem: Any) -> None:
    from vcot.vaot.session import DrawingSession

    image, text = DrawingSession.for_problem(vaot_problem).act(
        "draw_polyline", {"points": [[1, 2], [30, 40]] * 32, "color": "red"}
    )
    assert image is not None, text


@pytest.mark.parametrize("bad", [math.nan, 2.5, "8", True, None])
def test_drawing_session_budget_must_be_a_whole_number(vaot_problem: Any, bad: Any) -> None:
    from vcot.vaot.session import DrawingSession

    with pytest.raises(ValueError, match="max_turns must be a whole number"):
        DrawingSession.for_problem(vaot_problem, max_turns=bad)
