"""`vcot export-process`: labelled trajectories as process-reward-model data in TRL's stepwise-supervision
format (prompt, completions, labels) with pictures, as a datasets folder and Parquet; no scene of an excluded
suite (checked with `vcot overlap`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.cli import app

datasets = pytest.importorskip("datasets")
runner = CliRunner()
SMALL = ["--param", "answer_max=7"]  # cubes_count easy, answers 4-7: about 97 scenes


def _export(out: Path, *extra: str) -> str:
    res = runner.invoke(
        app,
        [
            "export-process",
            "-t",
            "cubes_count",
            "-d",
            "easy",
            *SMALL,
            "--n",
            "30",
            "--seed",
            "4",
            "-o",
            str(out),
            *extra,
        ],
    )
    assert res.exit_code == 0, res.output
    return res.output


def test_rows_follow_trls_stepwise_supervision_format(tmp_path):
    try:  # TRL reads the rows as its standard (not conversational) type; the README's dev install has no TRL
        from trl.data_utils import is_conversational
    except ImportError:

        def is_conversational(row: dict) -> bool:
            return not isinstance(row["prompt"], str)

    said = _export(tmp_path / "prm")
    assert "wrote 30 labelled trajectories" in said
    table = datasets.load_from_disk(str(tmp_path / "prm" / "dataset"))
    assert table.features["labels"].feature.dtype == "bool" and table.features["prompt"].dtype == "string"
    kinds = set()
    for row in table:
        assert not is_conversational(row)
        assert isinstance(row["prompt"], str) and row["prompt"]
        n = len(row["completions"])
        assert n == len(row["labels"]) == len(row["step_labels"]) >= 2
        assert row["labels"] == [lab == "correct" for lab in row["step_labels"]]
        assert len(row["images"]) == n  # the input picture and one per step but the concluding one
        first = row["first_error"]
        assert (first == 0) == (row["kind"] == "none")
        if first:
            assert row["step_labels"][first - 1] == "incorrect" and not any(row["labels"][first - 1 :])
        kinds.add(row["kind"])
    from vcot.process.labelled import KINDS

    assert {"none", "ignores_evidence", "picture_text_mismatch", "wrong_conclusion"} <= kinds <= set(KINDS)
    import pyarrow.parquet as pq

    assert pq.read_table(tmp_path / "prm" / "prm.parquet").num_rows == 30


def test_the_text_only_form_has_the_input_picture_only(tmp_path):
    _export(tmp_path / "plain", "--text-only", "--kinds", "none,ignores_evidence,picture_text_mismatch")
    table = datasets.load_from_disk(str(tmp_path / "plain" / "dataset"))
    # A picture-text mismatch is in a step picture alone: without the pictures its labels would be false.
    assert {len(r["images"]) for r in table} == {1} and set(table["kind"]) == {"none", "ignores_evidence"}
    res = runner.invoke(
        app,
        [
            "export",
            "process",
            "-t",
            "cubes_count",
            "--n",
            "2",
            "--text-only",
            "--kinds",
            "picture_text_mismatch",
            "-o",
            str(tmp_path / "no"),
        ],
    )
    assert res.exit_code != 0 and "text-only form cannot carry" in res.output


def test_no_scene_of_an_excluded_suite(tmp_path):
    suite = tmp_path / "held"
    res = runner.invoke(
        app,
        [
            "generate",
            "-t",
            "cubes_count",
            "-d",
            "easy",
            *SMALL,
            "--n",
            "40",
            "--seed",
            "3",
            "--out",
            str(suite),
            "--no-progress",
        ],
    )
    assert res.exit_code == 0, res.output
    _export(tmp_path / "with", "--exclude", str(suite))
    assert runner.invoke(app, ["overlap", str(suite), str(tmp_path / "with")]).exit_code == 0
    _export(tmp_path / "without")  # the check can fail
    res = runner.invoke(app, ["overlap", str(suite), str(tmp_path / "without")])
    assert res.exit_code == 1 and "appear in both" in res.output, res.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--kinds", "none,made_up_kind"], "unknown kinds"),
        (["--n", "0"], "--n"),
        (["-d", "brutal"], "unknown level"),
    ],
)
def test_bad_options_are_refused(tmp_path, args, says):
    res = runner.invoke(app, ["export-process", "-t", "cubes_count", "-o", str(tmp_path / "o"), *args])
    assert res.exit_code == 2 and says in res.output, res.output
