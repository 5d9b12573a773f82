"""State probes and interventions through the real engine and the HTTP mock server (and the chance model)."""

from __future__ import annotations

import json

import pytest

from vcot.analysis.build_report import scored
from vcot.analysis.interventions import intervention_table
from vcot.analysis.probes import NONE_WRONG, first_wrong_counts, probe_tables, step_curves
from vcot.analysis.units import to_samples
from vcot.conditions.interventions import shuffled_order
from vcot.engine.results import results_table
from vcot.engine.runner import EvalSpec, run_eval
from vcot.probes import PROBE_TASKS
from vcot.suite import read_suite

INTERVENTION_CONDS = [
    "visual_cot",
    "visual_cot_prefix",
    "visual_cot_shuffled",
    "visual_cot_drop_key",
    "visual_cot_mixed",
]


def _run(suite, mock, run_dir, conditions):
    run_eval(
        EvalSpec(
            suite=suite,
            model="mock",
            base_url=mock.base_url,
            run_dir=run_dir,
            tag_requests=True,
            conditions=conditions,
            concurrency=8,
        )
    )
    return scored(results_table(run_dir).to_pylist())


@pytest.mark.parametrize("j", [0, 1, 2, 3])
def test_mock_right_on_first_j_steps_is_recovered_for_every_task(probe_suite, probe_mock, tmp_path, j):
    probe_mock.configure(probe_right_steps=j, last_image_only=False)
    rows = _run(probe_suite, probe_mock, tmp_path / "run", ["state_probe"])
    n_steps = {i.task: len(i.steps) for i in read_suite(probe_suite, check_images="none").instances}
    assert sorted(r["task"] for r in rows) == sorted(PROBE_TASKS)
    curves = step_curves(rows)
    firsts = first_wrong_counts(rows)
    for task, n in n_steps.items():
        pts = curves[("mock", task)]
        assert [k for k, _, _ in pts] == list(range(1, n + 1))
        # The curve is 100% up to step j and 0% after it, so its last 100% step is j.
        assert [right / total for _, right, total in pts] == [1.0 if k <= j else 0.0 for k in range(1, n + 1)]
        expected = j + 1 if j < n else NONE_WRONG
        assert firsts[("mock", task)] == {expected: 1}, task
    # Final answers are right exactly for the tasks whose every step was right.
    assert {r["task"] for r in rows if r["correct"]} == {t for t, n in n_steps.items() if j >= n}
    titles = [t.title for _, t in probe_tables(rows)]
    assert any(t.startswith("First wrong step") for t in titles)


def test_last_image_only_mock_shows_the_expected_paired_effects(probe_suite, probe_mock, tmp_path):
    probe_mock.configure(probe_right_steps=None, last_image_only=True)
    try:
        rows = _run(probe_suite, probe_mock, tmp_path / "run", INTERVENTION_CONDS)
    finally:
        probe_mock.configure(last_image_only=False)
    insts = {i.uid: i for i in read_suite(probe_suite, check_images="none").instances}
    right = {(r["condition"], r["uid"]): bool(r["correct"]) for r in rows}
    for uid, inst in insts.items():
        n = len(inst.steps)
        assert right[("visual_cot", uid)]
        assert not right[("visual_cot_drop_key", uid)]
        assert right[("visual_cot_prefix", uid)] == (n == 1)
        assert right[("visual_cot_shuffled", uid)] == (shuffled_order(uid, n)[-1] == n - 1)
        assert right[("visual_cot_mixed", uid)] == (n % 2 == 1)
        sent = {r["condition"]: json.loads(r["steps_sent"]) for r in rows if r["uid"] == uid and r["steps_sent"]}
        assert sent["visual_cot_prefix"] == list(range(1, max(1, n // 2) + 1))
        assert sorted(sent["visual_cot_shuffled"]) == list(range(1, n + 1))
        assert n not in sent["visual_cot_drop_key"]
    table = intervention_table(to_samples(rows), n_boot=200)
    overall = {row[2]: row for row in table.rows if row[0] == "(all tasks)"}
    for cond in ("visual_cot_prefix", "visual_cot_drop_key", "visual_cot_shuffled"):
        row = overall[f"visual_cot → {cond}"]
        assert row[6].startswith("-"), row  # the paired change is negative
        assert row[7] > 0 and row[8] == 0  # only the baseline is ever the better one
    assert float(overall["visual_cot → visual_cot_drop_key"][9]) < 0.001


def test_chance_model_serves_every_new_condition(probe_suite, tmp_path):
    conds = ["state_probe", *INTERVENTION_CONDS]
    result = run_eval(EvalSpec(suite=probe_suite, model="chance", run_dir=tmp_path / "run", conditions=conds))
    assert result.progress.errors == 0
    rows = scored(results_table(tmp_path / "run").to_pylist())
    assert len(rows) == len(conds) * len(PROBE_TASKS)
    probe = [r for r in rows if r["condition"] == "state_probe"]
    assert all(r["probe_n"] for r in probe)
    for r in probe:  # a guess for every step, each in its tag
        assert all(f"<step{k}>" in r["response"] for k in range(1, r["probe_n"] + 1)), r["response"]
    curves = step_curves(probe)
    assert set(curves) == {("chance", t) for t in PROBE_TASKS}
    # The report carries the "First wrong step" section and the interventions table, with their plots.
    from vcot.analysis.report import write_report

    paths = write_report(rows, tmp_path / "report", n_boot=100, max_instances=0)
    md = paths.markdown.read_text()
    assert "### First wrong step: distribution" in md and "### Uses the pictures" in md
    assert (tmp_path / "report" / "plots" / "probe-steps-0.png").stat().st_size > 1000
    assert (tmp_path / "report" / "plots" / "first-wrong-0.png").stat().st_size > 1000
