"""Official MIRA result files scored by our grader beside acc.py's rules."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from vcot.analysis.mira_acc import EMPTY, NO_GOLD, acc_row
from vcot.analysis.mira_interop import (
    ROW_KEYS,
    compare_with_mira,
    load_mira_results,
    mira_exact_match,
    read_mira_results,
    score_mira_rows,
)
from vcot.analysis.units import to_samples


def _write(path: Path, items: list[Any]) -> Path:
    path.write_text("\n".join(json.dumps(x) for x in items) + "\n", encoding="utf-8")
    return path


def _item(uid: Any, scenario: str, response: Any, answer: Any = None, alias: str = "gpt4o", **extra: Any) -> dict:
    original = {"uid": uid, "question": "Q?", "image_path": f"image/{uid}.png", "answer": answer, **extra}
    return {"uid": uid, "scenario": scenario, "model_alias": alias, "response": response, "original_data": original}


def _cells(cmp) -> dict[tuple[str, str, str], dict[str, Any]]:
    h = cmp.table.header
    return {
        (r[h.index("model")], r[h.index("task")], r[h.index("condition")]): dict(zip(h, r, strict=True))
        for r in cmp.table.rows
    }


@pytest.fixture
def mira_dir(tmp_path: Path) -> Path:
    d = tmp_path / "mira_runs"
    d.mkdir()
    _write(
        d / "gpt4o_billiards.jsonl",
        [
            _item(1, "direct_answer", "<answer>B</answer>", "B"),  # both right
            _item(2, "direct_answer", "<answer>(C)</answer>", "C"),  # ours only: format
            _item(3, "direct_answer", "The answer is D.", "D"),  # ours only: untagged
            _item(4, "direct_answer", "<answer>A</answer> no wait <answer>B</answer>", "A"),  # MIRA only: tag choice
            _item(5, "direct_answer", "", "A"),  # dropped by MIRA, wrong for us
            _item(1, "visual_cot", "<answer>b</answer>", "B"),
        ],
    )
    _write(
        d / "gpt4o_gear_rotation.jsonl",
        [
            _item(1.1, "text_cot", "<answer>clockwise</answer>", "clockwise"),
            _item(1.2, "text_cot", "<answer>Anticlockwise</answer>", "counterclockwise"),
            _item(2.1, "text_cot", "<answer>clockwise</answer>", "clockwise"),
            _item(2.2, "text_cot", "<answer>clockwise</answer>", "counterclockwise"),
        ],
    )
    _write(d / "gpt4o_rolling_dice_sum.jsonl", [_item(9, "text_cot", "<answer>seventeen</answer>", 17)])
    return d


def test_mira_rule_reproduced():
    assert mira_exact_match("<answer> B </answer>", "b")
    assert not mira_exact_match("<answer>(B)</answer>", "B")
    assert mira_exact_match("<answer>A</answer><answer>B</answer>", "A")  # first tag, as acc.py
    assert not mira_exact_match("no tags B", "B")
    assert not mira_exact_match("<ANSWER>B</ANSWER>", "B")  # tags are case-sensitive
    assert mira_exact_match("<answer>17</answer>", 17)  # integer golds compare as strings


@pytest.mark.parametrize(
    ("response", "colour", "total", "expected"),
    [
        ("<answer>red, 17</answer>", "red", 17, True),
        ("<answer>Red path, total 17</answer>", "red", 17, True),
        ("<answer>17, red</answer>", "red", 17, True),
        ("<answer>red and black, 17</answer>", "red", 17, True),  # the first colour word counts
        ("<answer>black or red, 17</answer>", "red", 17, False),
        ("<answer>red, 6+5+6 = 17</answer>", "red", 17, True),  # the last integer counts
        ("<answer>red, 17 or 18</answer>", "red", 17, False),
        ("<answer>red, 17.0</answer>", "red", 17, False),  # the last digit run is 0
        ("<answer>red</answer>", "red", 17, False),
        ("<answer>reddish 17</answer>", "red", 17, False),  # whole words only
        ("<answer>SAME, 12</answer>", "same", "12", True),  # a text sum is read with int()
        ("<answer>equal, 12</answer>", "same", 12, False),
        ("<answer>red, 17</answer>", "red", "seventeen", False),  # an unreadable sum never matches
        ("red, 17", "red", 17, False),  # untagged: counted wrong
        ("<answer></answer><answer>red, 17</answer>", "red", 17, False),  # the first tag only
    ],
)
def test_rolling_dice_two_rule(response, colour, total, expected):
    row = acc_row("rolling_dice_two", _item(1, "text_cot", response, None, answer1=colour, answer2=total))
    assert (row.correct, row.dropped) == (expected, None)


def test_rolling_dice_two_rows(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    _write(
        d / "m_rolling_dice_two.jsonl",
        [
            # Upstream rows leave `answer` empty and carry the parts; our gold joins them.
            _item(1, "text_cot", "<answer>Red path, total 17</answer>", None, answer1="red", answer2=17),
            _item(2, "text_cot", "<answer>equal, 12</answer>", "same, 12", answer1="same", answer2=12),
            _item(3, "text_cot", "", None, answer1="black", answer2=9),
            _item(4, "text_cot", "<answer>red, 5</answer>", "red, 5"),  # no answer1/answer2: acc.py skips it
        ],
    )
    rows = {r["uid"]: r for r in read_mira_results([d])}
    assert (rows["mira-rolling_dice_two-1"]["gold"], rows["mira-rolling_dice_two-1"]["answer_type"]) == (
        "red, 17",
        "pair",
    )
    assert rows["mira-rolling_dice_two-3"]["mira_drop"] == EMPTY
    assert rows["mira-rolling_dice_two-4"]["mira_drop"] == NO_GOLD
    cmp = compare_with_mira([d])
    cell = _cells(cmp)[("m", "rolling_dice_two", "text_cot")]
    assert (cell["problems"], cell["MIRA EM"], cell["empty"], cell["other dropped"]) == (2, 1, 1, 1)
    assert cell["vcot %"] == "100.0"  # both parts read; to us "equal" means same
    assert {r[0] for r in cmp.differences.rows} == {"rolling_dice_two rule"}


def test_alias_with_underscores(tmp_path):
    d = tmp_path / "eval_output"
    d.mkdir()
    _write(d / "qwen3_vl_billiards.jsonl", [_item(1, "direct_answer", "<answer>B</answer>", "B", "qwen3_vl")])
    _write(d / "qwen3_vl_mirror_clock.jsonl", [_item(1, "text_cot", "<answer>3:05</answer>", "3:05", "qwen3_vl")])
    _write(
        d / "qwen3_vl_gear_rotation.jsonl",
        [
            _item(1.1, "visual_cot", "<answer>clockwise</answer>", "clockwise", "qwen3_vl"),
            _item(1.2, "visual_cot", "<answer>counterclockwise</answer>", "counterclockwise", "qwen3_vl"),
        ],
    )
    rows = read_mira_results([d])
    got = {(r["model"], r["task"], r["domain"], r["answer_type"]) for r in rows}
    assert got == {
        ("qwen3_vl", "billiards", "PBR", "choice"),
        ("qwen3_vl", "mirror_clock", "PBR", "time"),
        ("qwen3_vl", "gear_rotation", "CT", "text"),
    }
    cmp = compare_with_mira([d])
    cells = _cells(cmp)
    assert set(cells) == {
        ("qwen3_vl", "billiards", "direct"),
        ("qwen3_vl", "mirror_clock", "text_cot"),
        ("qwen3_vl", "gear_rotation", "visual_cot"),
    }
    assert cells[("qwen3_vl", "gear_rotation", "visual_cot")]["problems"] == 1
    assert "acc.py prints" not in cmp.table.note  # acc.py reads these names the same way


def test_multi_piece_puzzle_file_name(tmp_path):
    f = _write(
        tmp_path / "x_multi_piece_puzzle.jsonl",
        [
            _item(1, "direct_answer", "<answer>C, A, D</answer>", "A, C, D"),
            _item(2, "direct_answer", "<answer>B, D</answer>", "B, D"),
        ],
    )
    rows = read_mira_results([f])
    assert {(r["model"], r["task"], r["domain"], r["answer_type"]) for r in rows} == {
        ("x", "multi_piece_puzzle", "ASLP", "set")
    }
    assert {(r["mira_model"], r["mira_task"]) for r in rows} == {("x_multi_piece", "puzzle")}
    cmp = compare_with_mira([f])
    cell = _cells(cmp)[("x", "multi_piece_puzzle", "direct")]
    assert (cell["problems"], cell["MIRA EM"], cell["vcot %"], cell["vcot only"]) == (2, 1, "100.0", 1)
    assert "acc.py prints x_multi_piece_puzzle.jsonl as model 'x_multi_piece', task 'puzzle'" in cmp.table.note


def test_empty_responses_dropped_and_counted(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    empty = {k: v for k, v in _item(4, "direct_answer", None, "C").items() if k != "response"}
    _write(
        d / "m_overlap.jsonl",
        [
            _item(1, "direct_answer", "<answer>B</answer>", "B"),
            _item(2, "direct_answer", "", "A"),
            _item(3, "direct_answer", None, "D"),
            empty,  # no response field at all
            _item(5, "direct_answer", "   ", "A"),  # not empty to acc.py: counted wrong
            _item(6, "direct_answer", "API_CALL_FAILED", "A"),  # eval_api.py's failure text: counted wrong
        ],
    )
    cmp = compare_with_mira([d])
    cell = _cells(cmp)[("m", "overlap", "direct")]
    assert (cell["problems"], cell["empty"], cell["MIRA EM"], cell["MIRA EM %"]) == (3, 3, 1, "33.3")
    # Our own accounting keeps them, wrong.
    assert len(cmp.rows) == 6 and sum(bool(r["correct"]) for r in cmp.rows) == 1
    assert {r["score_reason"] for r in cmp.rows if r["mira_drop"] == EMPTY} == {"empty response"}


def test_gear_pairs_follow_acc_py(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    _write(
        d / "m_gear_rotation.jsonl",
        [
            _item(1.1, "text_cot", "<answer>clockwise</answer>", "clockwise"),  # .2 missing: wrong for acc.py
            _item("2.1", "text_cot", "<answer>clockwise</answer>", "clockwise"),
            _item("2.2", "text_cot", "<answer>jammed</answer>", "jammed"),
            _item(3, "text_cot", "<answer>clockwise</answer>", "clockwise"),  # dot-less: its own problem
            _item(None, "text_cot", "<answer>clockwise</answer>", "clockwise"),  # no uid: not counted by acc.py
        ],
    )
    cell = _cells(compare_with_mira([d]))[("m", "gear_rotation", "text_cot")]
    assert (cell["problems"], cell["MIRA EM"]) == (3, 2)
    assert cell["vcot %"] == "100.0"  # we score the rows that exist, and count the uid-less row too


def test_rows_pair_by_task_and_uid(tmp_path):
    """MIRA numbers each task from 1: uid 1 of 19 tasks is 19 problems, never one."""
    from vcot.tasks.catalog import MIRA_TASKS

    d = tmp_path / "out"
    d.mkdir()
    tasks = [t for t in MIRA_TASKS if t not in ("gear_rotation", "rolling_dice_two")]
    right = 0
    for i, task in enumerate(tasks):
        ok = i % 4 != 0
        right += ok
        _write(d / f"m_{task}.jsonl", [_item(1, "direct_answer", f"<answer>{'B' if ok else 'zzz'}</answer>", "B")])
    _write(
        d / "m_rolling_dice_two.jsonl",
        [_item(1, "direct_answer", "<answer>red, 17</answer>", None, answer1="red", answer2=17)],
    )
    _write(
        d / "m_gear_rotation.jsonl",
        [
            _item(1.1, "direct_answer", "<answer>clockwise</answer>", "clockwise"),
            _item(1.2, "direct_answer", "<answer>clockwise</answer>", "clockwise"),
        ],
    )
    rows = compare_with_mira([d]).rows
    assert len({r["uid"] for r in rows}) == len(rows) == len(tasks) + 3
    samples = to_samples(rows)
    assert len(samples) == len(tasks) + 2  # the gear pair is one problem
    assert sum(s.correct for s in samples) == right + 2
    gear = next(s for s in samples if s.task == "gear_rotation")
    assert gear.n_rows == 2


def test_pandas_and_pyarrow_inputs_agree(mira_dir, tmp_path):
    pd = pytest.importorskip("pandas")
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = read_mira_results([mira_dir])
    assert all(tuple(r) == ROW_KEYS for r in rows)  # pyarrow takes the schema from the first row
    table = pa.Table.from_pylist(rows)
    pq.write_table(table, tmp_path / "rows.parquet")
    inputs = {
        "list": rows,
        "arrow": table,
        "arrow->pandas": table.to_pandas(),
        "pandas": pd.DataFrame(rows),
        "parquet->pandas": pd.read_parquet(tmp_path / "rows.parquet"),
    }
    # The trap: pandas holds the empty `error` column of an Arrow table as NaN, which is truthy.
    assert inputs["arrow->pandas"]["error"].isna().all()
    expected = compare_with_mira(rows)
    for name, source in inputs.items():
        got = compare_with_mira(source)
        assert got.table.rows == expected.table.rows, name
        assert got.differences.rows == expected.differences.rows, name
        assert [r["correct"] for r in score_mira_rows(source)] == [r["correct"] for r in score_mira_rows(rows)], name
    assert sum(bool(r["correct"]) for r in score_mira_rows(inputs["arrow->pandas"])) == 8


def test_side_by_side(mira_dir):
    cmp = compare_with_mira([mira_dir])
    cells = _cells(cmp)
    # billiards direct: 4 problems kept (uid 5 dropped as acc.py does); ours 1,2,3 right; MIRA 1,4 right.
    b = cells[("gpt4o", "billiards", "direct")]
    assert [b[k] for k in ("problems", "empty", "MIRA EM", "MIRA EM %", "vcot %", "vcot only", "MIRA only")] == [
        4,
        1,
        2,
        "50.0",
        "75.0",
        2,
        1,
    ]
    # gear pairs: pair 1 right for us (anticlockwise), wrong for MIRA; pair 2 wrong for both.
    g = cells[("gpt4o", "gear_rotation", "text_cot")]
    assert [g[k] for k in ("problems", "MIRA EM", "vcot %")] == [2, 0, "50.0"]
    assert [cells[("gpt4o", "rolling_dice_sum", "text_cot")][k] for k in ("MIRA EM %", "vcot %")] == ["0.0", "100.0"]
    classes = {r[0]: r for r in cmp.differences.rows}
    assert set(classes) == {"type-aware normalization", "untagged answer", "tag choice"}
    assert classes["tag choice"][1:3] == [0, 1]
    assert "run" not in cmp.table.header


def test_folders_stay_apart(tmp_path):
    for parent in ("a", "b"):
        d = tmp_path / parent / "out"
        d.mkdir(parents=True)
        _write(d / "m_overlap.jsonl", [_item(1, "direct_answer", "<answer>B</answer>", "B" if parent == "a" else "C")])
    cmp = compare_with_mira([tmp_path / "a" / "out", tmp_path / "b" / "out"])
    assert cmp.table.header[0] == "run" and len(cmp.table.rows) == 2
    assert sorted(v for v in cmp.counts.values()) == [(0, 1), (1, 1)]


def test_unreadable_input(tmp_path):
    d = tmp_path / "out"
    d.mkdir()
    with pytest.raises(FileNotFoundError):
        read_mira_results([d])
    with pytest.raises(FileNotFoundError):
        read_mira_results([tmp_path / "missing"])
    f = d / "m_overlap.jsonl"
    f.write_text(
        '{"uid": 1, "scenario": "direct_answer", "response": "<answer>B</answer>", '
        '"original_data": {"uid": 1, "answer": "B"}}\n{broken\n"a string"\n\n',
        encoding="utf-8",
    )
    files = load_mira_results([d])
    assert len(files.rows) == 1 and files.unreadable == {str(f): 2}
    (d / "m_billiards.jsonl").write_bytes(b'{"uid": 1, "response": "\xff"}\n')
    with pytest.raises(ValueError, match="not UTF-8"):
        read_mira_results([d])


def test_report_command_on_mira_files(mira_dir, tmp_path):
    from typer.testing import CliRunner

    from vcot.cli import app

    result = CliRunner().invoke(app, ["report", str(mira_dir), "--mira", "--out", str(tmp_path / "rep")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert "vcot grading vs MIRA exact match" in html and "type-aware normalization" in html
    assert (tmp_path / "rep" / "scored.parquet").is_file()
