"""Step-tag extraction and grading, the intervention plans, and the prompts the new conditions send."""

from __future__ import annotations

import json

from vcot.conditions import REGISTRY, register_prefix
from vcot.conditions.interventions import key_step, prefix_length, shuffled_order, step_plan
from vcot.scoring.probes import first_wrong, grade_steps, probe_fields, step_answers

PROBES = [
    {"step": 1, "answer": "4", "answer_type": "integer", "options": None},
    {"step": 2, "answer": "clockwise", "answer_type": "text", "options": None},
    {"step": 3, "answer": "B", "answer_type": "choice", "options": ["A", "B", "C"]},
]


def test_step_tags_last_one_wins_and_missing_is_wrong():
    text = "<step1>3</step1> on reflection <step1>4</step1>\n<STEP2> counterclockwise </STEP2>"
    assert step_answers(text) == {1: "4", 2: "counterclockwise"}
    assert grade_steps(text, PROBES) == [True, False, False]
    assert first_wrong([True, False, False]) == 2 and first_wrong([True, True]) is None


def test_probe_fields_from_a_results_row():
    row = {
        "episode": json.dumps({"probes": PROBES}),
        "response": "<step1>4</step1><step2>clockwise</step2><step3>B</step3><answer>7</answer>",
        "error": None,
    }
    f = probe_fields(row)
    assert f == {"probe_n": 3, "probe_correct": "[true, true, true]", "probe_n_correct": 3, "first_wrong_step": None}
    assert probe_fields({**row, "error": "timeout"})["first_wrong_step"] == 1
    assert probe_fields({"episode": None, "response": "x"})["probe_n"] is None


def test_prefix_length_rounds_down_and_keeps_one():
    assert [prefix_length(n) for n in range(1, 8)] == [1, 1, 1, 2, 2, 3, 3]
    assert prefix_length(5, 4) == 4 and prefix_length(5, 9) == 5 and prefix_length(5, 0) == 1


def test_shuffle_is_seeded_and_never_the_identity():
    for n in range(2, 9):
        for i in range(200):
            order = shuffled_order(f"uid-{i}", n)
            assert sorted(order) == list(range(n)) and order != list(range(n))
            assert order == shuffled_order(f"uid-{i}", n)
    assert shuffled_order("x", 1) == [0]


def test_plans(probe_suite):
    from vcot.suite import read_suite

    for inst in read_suite(probe_suite, check_images="none").instances:
        n = len(inst.steps)
        assert key_step(inst) == n
        assert step_plan(inst, "visual_cot_drop_key") == list(range(n - 1))
        assert step_plan(inst, "visual_cot_mixed") == list(range(0, n, 2))


def test_new_conditions_are_registered_not_default_and_compared_with_visual_cot():
    for name in ("state_probe", "visual_cot_prefix", "visual_cot_shuffled", "visual_cot_drop_key", "visual_cot_mixed"):
        cond = REGISTRY.get(name)
        assert not cond.default
    assert ("visual_cot", "visual_cot_drop_key") in REGISTRY.paired_comparisons()
    assert register_prefix(2) == "visual_cot_prefix_k2" and not REGISTRY.get("visual_cot_prefix_k2").default


def test_state_probe_prompt_lists_every_probe_and_sends_only_the_input_image(probe_suite):
    from vcot.conditions import make_episode
    from vcot.images import ImagePolicy, SuiteImages
    from vcot.messages import ImagePart, TextPart
    from vcot.probes import build_probes
    from vcot.suite import read_suite

    suite = read_suite(probe_suite, check_images="none")
    images = SuiteImages(suite, ImagePolicy())
    for inst in suite.instances:
        ep = make_episode(inst, "state_probe", 0, images)
        parts = ep.first_messages()[0].parts
        assert sum(isinstance(p, ImagePart) for p in parts) == 1
        text = next(p.text for p in parts if isinstance(p, TextPart))
        for p in build_probes(inst):
            assert f"<step{p.step}></step{p.step}>" in text
        assert all(s.text.strip() not in text for s in inst.steps)
        assert len(ep.record()["probes"]) == len(inst.steps)
