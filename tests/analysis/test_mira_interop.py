"""Official MIRA result files scored by our grader beside MIRA's exact-match rule."""

from __future__ import annotations

import json

import pytest

from vcot.analysis.mira_interop import compare_with_mira, mira_exact_match, read_mira_results


def _write(path, items):
    path.write_text("\n".join(json.dumps(x) for x in items) + "\n", encoding="utf-8")


def _item(uid, scenario, response, answer, question="Q?"):
    return {"uid": uid, "scenario": scenario, "model_alias": "gpt4o", "response": response,
            "original_data": {"uid": uid, "question": question, "answer": answer, "image_path": f"image/{uid}.png"}}


@pytest.fixture
def mira_dir(tmp_path):
    d = tmp_path / "mira_runs"
    d.mkdir()
    _write(d / "gpt4o_billiards.jsonl", [
        _item(1, "direct_answer", "<answer>B</answer>", "B"),             # both right
        _item(2, "direct_answer", "<answer>(C)</answer>", "C"),           # ours only: format
        _item(3, "direct_answer", "The answer is D.", "D"),               # ours only: untagged
        _item(4, "direct_answer", "<answer>A</answer> no wait <answer>B</answer>", "A"),  # MIRA only: tag choice
        _item(5, "direct_answer", "", "A"),                               # dropped by MIRA, wrong for us
        _item(1, "visual_cot", "<answer>b</answer>", "B"),
    ])
    _write(d / "gpt4o_gear_rotation.jsonl", [
        _item(1.1, "text_cot", "<answer>clockwise</answer>", "clockwise"),
        _item(1.2, "text_cot", "<answer>Anticlockwise</answer>", "counterclockwise"),
        _item(2.1, "text_cot", "<answer>clockwise</answer>", "clockwise"),
        _item(2.2, "text_cot", "<answer>clockwise</answer>", "counterclockwise"),
    ])
    _write(d / "gpt4o_rolling_dice_sum.jsonl", [_item(9, "text_cot", "<answer>seventeen</answer>", 17)])
    return d


def test_mira_rule_reproduced():
    assert mira_exact_match("<answer> B </answer>", "b")
    assert not mira_exact_match("<answer>(B)</answer>", "B")
    assert mira_exact_match("<answer>A</answer><answer>B</answer>", "A")  # first tag, as acc.py
    assert not mira_exact_match("no tags B", "B")
    assert mira_exact_match("<answer>17</answer>", 17)  # integer golds compare as strings


def test_read_rows(mira_dir):
    rows = read_mira_results([mira_dir])
    assert len(rows) == 11
    r = next(x for x in rows if x["task"] == "billiards" and x["uid"] == "2")
    assert (r["model"], r["condition"], r["domain"], r["answer_type"]) == ("gpt4o", "direct", "PBR", "choice")
    assert next(x for x in rows if x["uid"] == "5")["mira_skip"] is True
    assert next(x for x in rows if x["task"] == "rolling_dice_sum")["answer_type"] == "integer"


def test_side_by_side(mira_dir):
    cmp = compare_with_mira([mira_dir])
    by = {(r[1], r[2]): r for r in cmp.table.rows}
    # billiards direct: 4 problems kept (uid 5 dropped as MIRA does); ours 1,2,3 right; MIRA 1,4 right.
    assert by[("billiards", "direct")][3:] == [4, "75.0", "50.0", 2, 1]
    # gear pairs: pair 1 right for us (anticlockwise), wrong for MIRA; pair 2 wrong for both.
    assert by[("gear_rotation", "text_cot")][3:6] == [2, "50.0", "0.0"]
    assert by[("rolling_dice_sum", "text_cot")][4:6] == ["100.0", "0.0"]
    classes = {r[0]: r for r in cmp.differences.rows}
    assert set(classes) == {"type-aware normalization", "untagged answer", "tag choice"}
    assert classes["tag choice"][1:3] == [0, 1]


def test_report_command_on_mira_files(mira_dir, tmp_path):
    from typer.testing import CliRunner

    from vcot.report_cli import app

    result = CliRunner().invoke(app, [str(mira_dir), "--mira", "--out", str(tmp_path / "rep")])
    assert result.exit_code == 0, result.output
    html = (tmp_path / "rep" / "report.html").read_text(encoding="utf-8")
    assert "vcot grading vs MIRA exact match" in html and "type-aware normalization" in html
