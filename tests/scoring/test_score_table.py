"""score_table on a results table shaped like the engine's."""

from __future__ import annotations

import json

import pyarrow as pa

from vcot.scoring import score_table


def _rows():
    base = dict(
        run_id="r",
        model="m",
        condition="direct",
        task="overlap",
        domain="EG",
        answer_type="choice",
        gold="B",
        options=json.dumps(["x", "y", "z"]),
        epoch=0,
        error=None,
    )
    return [
        dict(base, uid="1", response="<answer>y</answer>"),
        dict(base, uid="2", response="<answer>A</answer>"),
        dict(base, uid="3", response=None, error="timeout after 3 retries"),
        dict(base, uid="4", response="The answer is B.", options=None),
    ]


def test_score_table_pyarrow_adds_columns():
    table = pa.Table.from_pylist(_rows())
    out = score_table(table)
    assert out.num_rows == 4
    assert out.column("correct").to_pylist() == [True, False, False, True]
    assert out.column("tier").to_pylist() == ["tag", "tag", "none", "regex"]
    assert out.column("extracted").to_pylist() == ["y", "A", None, "B"]
    assert out.column("score_reason").to_pylist()[2].startswith("error: timeout")
    assert out.column("judge_model").to_pylist() == [None] * 4
    # Re-scoring replaces the columns instead of duplicating them.
    again = score_table(out)
    assert again.column_names.count("correct") == 1


def test_score_table_list_of_dicts():
    out = score_table(_rows())
    assert [r["correct"] for r in out] == [True, False, False, True]


def test_score_table_pandas_reads_missing_cells_as_missing():
    """pandas turns an empty `error` column into NaN (truthy): every row used to be marked failed."""
    table = pa.Table.from_pylist(_rows()).to_pandas()
    out = score_table(table)
    assert list(out["correct"]) == [True, False, False, True]
    assert list(out["correct"]) == score_table(pa.Table.from_pylist(_rows())).column("correct").to_pylist()
