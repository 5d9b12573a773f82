"""vcot's "MIRA EM" column reproduces acc.py's per-task counts: a result folder for an alias with
underscores, every MIRA task and scenario, and the response shapes that separate the rules, scored by an
independent model of acc.py (tests/analysis/mira_accpy_reference.py) and by vcot."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

from analysis.mira_accpy_reference import ACC_PY_TASK_ORDER, file_label, score_folder
from vcot.analysis.mira_interop import compare_with_mira
from vcot.tasks.catalog import MIRA_TASKS

ALIAS = "my_model_v2"
SCENARIOS = {"direct_answer": "direct", "text_cot": "text_cot", "visual_cot": "visual_cot"}

GOLDS: dict[str, list[Any]] = {
    "convex_hull": [7, "12", 5],
    "cubes_count": [14, 9],
    "cubes_missing": ["3", 11],
    "trailer_cubes_count": [21, "8"],
    "trailer_cubes_missing": [4, 6],
    "rolling_dice_top": [6, "2"],
    "rolling_dice_sum": [17, 23],
    "overlap": ["B", "D"],
    "mirror_pattern": ["C", "A"],
    "billiards": ["A", "E"],
    "unfolded_cube": ["B"],
    "defuse_a_bomb": ["D", "C"],
    "puzzle": ["A", "B"],
    "paper_airplane": ["C", "D"],
    "localizer": ["(1, 2), (3, 4)", "(0, 5)"],
    "electric_charge": ["northwest", "up"],
    "mirror_clock": ["3:05", "11:40"],
    "multi_piece_puzzle": ["A, C, D", "B, D"],
    "gear_rotation": ["clockwise", "counterclockwise"],
}
WRONG = {"clockwise": "counterclockwise", "counterclockwise": "anticlockwise"}


def _responses(g: str, w: str) -> list[str | None]:
    return [
        f"<answer>{g}</answer>",
        f"Reasoning first.\n<answer> {g.upper()} </answer>",
        f"<answer>{w}</answer>",
        f"The answer is {g}.",
        f"<answer>{w}</answer> wait, no: <answer>{g}</answer>",
        f"<answer>{g}</answer> on reflection <answer>{w}</answer>",
        f"The final answer is placed in <answer></answer>. <answer>{g}</answer>",
        f"<ANSWER>{g}</ANSWER>",
        "",
        None,
        "API_CALL_FAILED",
        f"<think><answer>{w}</answer></think><answer>{g}</answer>",
        f"<answer>({g})</answer>",
        f"<answer>**{g}**</answer>",
        f"<answer>{g}",
        f"<answer>\n{g}\n</answer>",
        f"<answer>{g}.</answer>",
        f"<answer>{g.lower()}</answer>",
    ]


def _dice(c: str, n: int) -> list[str | None]:
    other = "black" if c != "black" else "red"
    return [
        f"<answer>{c}, {n}</answer>",
        f"<answer>{c.title()} path; total {n}</answer>",
        f"<answer>{n}, {c}</answer>",
        f"<answer>{c} and {other}, {n}</answer>",
        f"<answer>{other} then {c}, {n}</answer>",
        f"<answer>{c}, 6+5+{n}</answer>",
        f"<answer>{c} {n} or {n + 1}</answer>",
        f"<answer>{c}</answer>",
        f"<answer>{c.upper()}: {n}</answer>",
        f"<answer>{c}dish {n}</answer>",
        f"<answer>{c}_{n}</answer>",
        f"<answer>The {c} path sums to {n} points</answer>",
        f"<answer>-{n} {c}</answer>",
        f"{c}, {n}",
        "",
        f"<answer></answer><answer>{c}, {n}</answer>",
        f"<answer>{c}, {n}</answer> <answer>{other}, 1</answer>",
        f"<answer>{c}, {n}.0</answer>",
        f"<answer>{c} {n}",
    ]


def _line(uid: Any, scenario: str, response: Any, original: dict[str, Any]) -> dict[str, Any]:
    return {
        "uid": uid,
        "scenario": scenario,
        "model_alias": ALIAS,
        "response": response,
        "original_data": {"uid": uid, "question": "Q?", "image_path": f"image/{uid}.png", **original},
    }


def build_results(folder: Path, alias: str = ALIAS, seed: int = 0) -> Path:
    rng = random.Random(seed)
    folder.mkdir(parents=True, exist_ok=True)
    for t_index, task in enumerate(MIRA_TASKS):
        lines: list[Any] = []
        for s_index, scenario in enumerate(SCENARIOS):
            if task == "rolling_dice_two":
                for uid in range(1, 22):
                    colour = ("red", "black", "same")[uid % 3]
                    total = 10 + uid
                    responses = _dice(colour, total)
                    response = responses[(uid + s_index * 5) % len(responses)]
                    original: dict[str, Any] = {
                        "answer": None if uid % 2 else f"{colour}, {total}",
                        "answer1": colour,
                        "answer2": str(total) if uid % 4 == 0 else total,
                    }
                    if uid == 7 and scenario == "text_cot":
                        del original["answer2"]  # dropped by acc.py: no gold
                    if uid == 8:
                        original["answer2"] = "seventeen"  # unreadable sum: never right
                    lines.append(_line(uid, scenario, response, original))
                continue
            golds = GOLDS[task]
            gear_rows: dict[str, tuple[Any, Any]] = {}
            n_items = 20 if task == "gear_rotation" else 18
            for k in range(1, n_items + 1):
                gold = golds[(k + s_index) % len(golds)]
                g = str(gold)
                wrong = WRONG.get(g, str(int(g) + 1) if g.isdigit() else ("Z" if len(g) == 1 else g + " x"))
                responses = _responses(g, wrong)
                response = responses[(k * 7 + s_index * 3 + t_index + rng.randrange(3)) % len(responses)]
                if task == "gear_rotation":
                    base, sub = (k + 1) // 2, 2 - k % 2
                    uid: Any = float(f"{base}.{sub}") if base % 2 else f"{base}.{sub}"
                    if k % 3:
                        response = f"<answer>{g}</answer>"  # enough right rows for some pairs to be right
                    if base == 5 and sub == 2 and scenario == "direct_answer":
                        continue  # a pair missing its second row: acc.py counts it wrong
                    if base == 9:
                        if sub == 2:
                            continue
                        uid = 9  # a dot-less uid: its own problem
                    if base == 10 and sub == 1:
                        uid = None  # no uid: acc.py leaves it out of the pairs
                    gear_rows[str(uid)] = (response, gold)
                else:
                    uid = k
                lines.append(_line(uid, scenario, response, {"answer": gold}))
            if task == "gear_rotation":
                # A repeated sub-question (eval_api.py appends) with the same verdict: acc.py keeps one verdict
                # per uid, and which one depends on its threads, so only an identical repeat is deterministic.
                response, gold = gear_rows["3.1"]
                lines.append(_line("3.1", scenario, response, {"answer": gold}))
            else:
                lines.append(_line(1, scenario, f"<answer>{golds[0]}</answer>", {"answer": golds[0]}))
        text = "\n".join(json.dumps(x) for x in lines) + "\n"
        if task == "overlap":
            text += (
                "not json at all\n[1, 2]\n"
                + json.dumps(
                    {"uid": 99, "scenario": "text_cot", "response": "<answer>B</answer>", "original_data": None}
                )
                + "\n"
            )
            text += json.dumps(_line(98, "text_cot", 5, {"answer": "B"})) + "\n\n"
        (folder / f"{alias}_{task}.jsonl").write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def results(tmp_path_factory) -> Path:
    return build_results(tmp_path_factory.mktemp("mira") / "eval_output")


def test_mira_em_equals_acc_py_for_every_task(results):
    reference = score_folder(results)
    cmp = compare_with_mira([results])
    expected = {}
    for (stem, scenario), counts in reference.items():
        model, task = stem.removesuffix("_" + file_label(stem)[1]), file_label(stem)[1]
        if task != "puzzle" and not task.startswith("cubes_"):
            assert model == ALIAS
        expected[(stem, SCENARIOS[scenario])] = counts
    got = {(f"{m}_{t}", c): v for (_, m, t, c), v in cmp.counts.items()}
    assert got == expected
    assert {t for (_, _, t, _) in cmp.counts} == set(MIRA_TASKS)
    assert {m for (_, m, _, _) in cmp.counts} == {ALIAS}
    # The table's own columns carry the same numbers.
    h = cmp.table.header
    for row in cmp.table.rows:
        stem, cond = f"{row[h.index('model')]}_{row[h.index('task')]}", row[h.index("condition")]
        assert (row[h.index("MIRA EM")], row[h.index("problems")]) == expected[(stem, cond)]


def test_the_folder_separates_the_rules(results):
    """Guards the fixture: the cells the parity test compares are not trivially all right or all wrong."""
    reference = score_folder(results)
    for task in MIRA_TASKS:
        for scenario in SCENARIOS:
            right, total = reference[(f"{ALIAS}_{task}", scenario)]
            assert 0 < right < total, (task, scenario, right, total)
    # Pairs 1-8 and 10 (its uid-less row left out) and the dot-less uid 9; in direct_answer pair 5 has lost
    # its second row and its first is empty, so acc.py does not see it at all.
    assert reference[(f"{ALIAS}_gear_rotation", "text_cot")][1] == 10
    assert reference[(f"{ALIAS}_gear_rotation", "direct_answer")][1] == 9
    cmp = compare_with_mira([results])
    h = cmp.table.header
    row = next(
        r for r in cmp.table.rows if r[h.index("task")] == "rolling_dice_two" and r[h.index("condition")] == "text_cot"
    )
    assert row[h.index("empty")] >= 1 and row[h.index("other dropped")] == 1


def test_acc_py_file_names(tmp_path):
    """acc.py reads names with its own table order; vcot reads the longest task name and reports acc.py's
    label beside it."""
    from vcot.analysis.mira_acc import split_result_name

    assert file_label(f"{ALIAS}_multi_piece_puzzle") == (f"{ALIAS}_multi_piece", "puzzle")
    assert file_label("x_trailer_cubes_count") == ("x_trailer", "cubes_count")
    assert file_label("qwen3_vl_billiards") == ("qwen3_vl", "billiards")
    for task in ACC_PY_TASK_ORDER:
        for alias in ("a", "qwen3_vl", "my_model_v2", "gpt_4o_mini"):
            stem = f"{alias}_{task}"
            assert split_result_name(stem, as_acc_py=True) == file_label(stem)
            assert split_result_name(stem) == (alias, task)
        # An alias ending in a task's head is ambiguous; the longest task name wins, as for MIRA's own tasks.
        assert split_result_name(f"x_multi_piece_{task}", as_acc_py=True) == file_label(f"x_multi_piece_{task}")
    assert split_result_name("m_trailer_cubes_count") == ("m", "trailer_cubes_count")
    for stem in ("gpt4o", "gpt4o_", "gpt4o_new_task", "a_b_c"):
        assert split_result_name(stem) == split_result_name(stem, as_acc_py=True) == file_label(stem)
    folder = build_results(tmp_path / "out", alias="x")
    note = compare_with_mira([folder]).table.note
    assert "x_multi_piece_puzzle.jsonl as model 'x_multi_piece', task 'puzzle'" in note
    assert "x_trailer_cubes_missing.jsonl as model 'x_trailer', task 'cubes_missing'" in note
    assert "x_overlap.jsonl: 2 line(s) not JSON objects" in note
