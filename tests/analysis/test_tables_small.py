"""Tables on small hand-made results: pairing, MIRA layouts, pass@k, majority vote, paired tests."""

from __future__ import annotations

import json
import math

import pytest

from vcot.analysis.tables import (
    Cell,
    paired_tests,
    pass_at_k_table,
    per_task_tables,
    table1,
    table2,
)
from vcot.analysis.units import chance_of, pair_key, to_samples


def row(model, cond, uid, ok, task="overlap", domain="EG", epoch=0, answer=None, **kw):
    gold = kw.pop("gold", "B")
    at = kw.pop("answer_type", "choice")
    opts = kw.pop("options", json.dumps(["p", "q", "r", "s"]) if at == "choice" else None)
    extracted = answer if answer is not None else (gold if ok else "A")
    return dict(
        run_id="r",
        model=model,
        condition=cond,
        uid=uid,
        task=task,
        domain=domain,
        answer_type=at,
        gold=gold,
        options=opts,
        epoch=epoch,
        extracted=extracted,
        tier="tag",
        correct=ok,
        **kw,
    )


def test_gear_pairs_count_once_and_need_both():
    rows = [
        row("m", "direct", "1.1", True, "gear_rotation", "CT", gold="clockwise", answer_type="text"),
        row("m", "direct", "1.2", True, "gear_rotation", "CT", gold="jammed", answer_type="text"),
        row("m", "direct", "2.1", True, "gear_rotation", "CT", gold="clockwise", answer_type="text"),
        row("m", "direct", "2.2", False, "gear_rotation", "CT", gold="clockwise", answer_type="text"),
    ]
    samples = to_samples(rows)
    assert len(samples) == 2
    assert sorted(s.correct for s in samples) == [False, True]
    assert all(s.n_rows == 2 for s in samples)
    # Chance of a pair is the product of its rows' chances (gear: 1/3 each, the three words the question offers).
    assert samples[1].chance == pytest.approx(1 / 9)
    # Pairing by an explicit column works for any task; other tasks' dotted uids are not paired.
    assert pair_key({"uid": "7.1", "task": "gear_rotation"}) == pair_key({"uid": "7.2", "task": "gear_rotation"})
    assert pair_key({"uid": "7.1", "task": "overlap"}) != pair_key({"uid": "7.2", "task": "overlap"})
    assert pair_key({"uid": "a", "task": "t", "pair_id": "p"}) == pair_key({"uid": "b", "task": "t", "pair_id": "p"})


def _mira_rows():
    rows = []
    # direct: 1/2 right in EG, 0/2 in CT; visual_cot: 2/2 EG, 1/2 CT.
    for cond, eg, ct in (("direct", (True, False), (False, False)), ("visual_cot", (True, True), (True, False))):
        for i, ok in enumerate(eg):
            rows.append(row("m", cond, f"eg{i}", ok))
        for i, ok in enumerate(ct):
            rows.append(
                row(
                    "m",
                    cond,
                    f"ct{i}",
                    ok,
                    task="rolling_dice_top",
                    domain="CT",
                    gold="4",
                    answer_type="integer",
                    answer="4" if ok else "5",
                )
            )
    return rows


def test_table1_layout_and_gains():
    t = table1(to_samples(_mira_rows()))
    assert t.header[:5] == ["model", "EG D", "EG V", "CT D", "CT V"]
    assert t.header[5:7] == ["Overall D", "Overall V"]
    assert t.header[-1] == "rel. gain V vs D"
    m = t.rows[0]
    assert [c.acc for c in m[1:7]] == [0.5, 1.0, 0.0, 0.5, 0.25, 0.75]
    assert m[-1] == "—†"  # +200% on 4 problems: below the minimum n, left out
    chance = t.rows[-1]
    assert chance[0] == "chance level"
    assert chance[1] == pytest.approx(1 / 4)  # four options
    assert chance[3] == pytest.approx(1 / 6)  # rolling_dice_top answers 1..6


def test_table2_and_per_task():
    rows = [
        row("m", "text_cot", "a", True),
        row("m", "text_cot", "b", False),
        row("m", "text_cot_spec", "a", True),
        row("m", "text_cot_spec", "b", True),
    ]
    t = table2(to_samples(rows))
    assert t.rows[0][1].acc == 0.5 and t.rows[0][2].acc == 1.0 and t.rows[0][3] == "+50.0"
    tasks = per_task_tables(to_samples(rows))
    assert tasks[0].rows[0][:3] == ["EG", "overlap", 2]
    assert isinstance(tasks[0].rows[0][3], Cell) and tasks[0].rows[0][-1] == pytest.approx(0.25)


def test_pass_at_k_and_majority_table():
    # Problem a: 1 of 4 right; problem b: 4 of 4 right. Votes on a: A, B(right), C, C -> majority C (wrong).
    rows = []
    for e, ans in enumerate(["A", "B", "C", "C"]):
        rows.append(row("m", "direct", "a", ans == "B", epoch=e, answer=ans))
    for e in range(4):
        rows.append(row("m", "direct", "b", True, epoch=e))
    t = pass_at_k_table(to_samples(rows))
    r = t.rows[0]
    assert r[:3] == ["m", "direct", "4"]
    # pass@1 = (1/4 + 1)/2; pass@2 = ((1 - C(3,2)/C(4,2)) + 1)/2 = 0.75; pass@4 = 1; pass@8 needs 8 samples.
    assert r[3:7] == ["62.5", "75.0", "100.0", "—"]
    assert r[7] == "50.0"


def test_paired_tests_hand_counts():
    rows = []
    for i, (d, v) in enumerate([(1, 1), (0, 1), (0, 1), (1, 0)]):
        rows.append(row("m", "direct", f"u{i}", bool(d)))
        rows.append(row("m", "visual_cot", f"u{i}", bool(v)))
    t = paired_tests(to_samples(rows), n_boot=500)
    r = t.rows[0]
    assert r[1] == "direct → visual_cot" and r[2] == 4
    assert r[3:5] == ["50.0", "75.0"]
    assert r[5].startswith("+25.0")
    assert (r[6], r[7]) == (1, 2)
    assert float(r[8]) == pytest.approx(1.0)  # 2 * P(X <= 1 | 3) = 2 * 4/8


def test_see2think_table_groups_tasks_by_category_in_level_order():
    from vcot.analysis.render import to_markdown
    from vcot.analysis.tables import see2think_table

    rows = [
        row("m", "direct", "o1", True, "object_attributes", "3D", gold="red", answer_type="text"),
        row("m", "direct", "o2", False, "object_attributes", "3D", gold="blue", answer_type="text"),
        row("m", "direct", "c1", True, "convex_hull", "EG"),
        row("m", "direct", "b1", False, "billiards", "PBR"),
        row("m", "direct", "b2", True, "billiards", "PBR"),
    ]
    t = see2think_table(to_samples(rows))
    assert t is not None
    # 2D-structured categories first (Geometry, Physics in See2Think's order), then the 3D scene level.
    assert t.header == ["model", "condition", "Geometry", "Physics", "Object Attributes", "Overall"]
    model_row = t.rows[0]
    assert model_row[:2] == ["m", "direct"]
    assert [c.acc for c in model_row[2:]] == [1.0, 0.5, 0.5, pytest.approx(3 / 5)]
    # Without the scene the 3D task's answer space is unknown: its chance shows as "—", never as 0.
    chance_row = t.rows[-1]
    assert chance_row[0] == "chance level" and 0 < chance_row[2] < 1
    assert chance_row[2] == pytest.approx(chance_of(rows[2]))
    assert math.isnan(chance_of(rows[0]))
    assert math.isnan(chance_row[4]) and math.isnan(chance_row[5])
    assert f"| chance level | direct | {100 * chance_row[2]:.1f} | " in to_markdown(t)
    assert "| — | — |" in to_markdown(t)
    # The note names the categories without a column; the one no generator serves says where it comes from.
    assert "(Spatial Puzzle; Chemistry;" in t.note
    assert "Visual Commonsense, which needs real photographs: docs/curation.md" in t.note
    assert "Robot Manipulation" in t.note
    # A suite without a 3D-scene task is not See2Think-style: no table.
    assert see2think_table(to_samples(rows[2:])) is None
