"""The preset suites with the real generators: determinism across runs and process counts, validation."""

from typer.testing import CliRunner

from vcot.build import build_suite, preset_plans
from vcot.cli import app
from vcot.suite import compute_content_hash, read_suite
from vcot.tasks import task_names

runner = CliRunner()


def _real_plans(seed: int):
    return [p for p in preset_plans("mini", seed) if p.task != "toy_dots"]


def test_mini_is_deterministic_across_runs_and_processes(tmp_path):
    plans = _real_plans(7)
    assert {p.task for p in plans} == set(task_names()) - {"toy_dots"}
    m1 = build_suite(tmp_path / "a", "mini", plans, processes=1)
    m2 = build_suite(tmp_path / "b", "mini", plans, processes=1)
    m3 = build_suite(tmp_path / "c", "mini", plans, processes=2)
    assert m1["content_hash"] == m2["content_hash"] == m3["content_hash"]
    assert (tmp_path / "a" / "instances.jsonl").read_bytes() == (tmp_path / "c" / "instances.jsonl").read_bytes()
    suite = read_suite(tmp_path / "a", check_images="full")
    assert compute_content_hash(suite) == m1["content_hash"]
    r = runner.invoke(app, ["validate", str(tmp_path / "a")])
    assert r.exit_code == 0, r.output
    # Every instance: at least one step with text, an answer type, and a scene in meta.
    for inst in suite.instances:
        assert inst.steps and all(s.text.strip() for s in inst.steps)
        assert inst.meta["scene"] and inst.meta["generator"]["task"] == inst.task


def test_see2think_synth_has_100_problems_per_generable_category():
    from vcot.build import preset_plans
    from vcot.tasks import get_task_class
    from vcot.tasks.see2think_categories import CATEGORY_TASKS, counts_per_category

    plans = preset_plans("see2think-synth")
    problems = {p.task: p.n // get_task_class(p.task).rows_per_problem for p in plans}
    assert len(problems) == len(plans)  # each task once
    for category, tasks in CATEGORY_TASKS.items():
        assert sum(problems.get(t, 0) for t in tasks) == (100 if tasks else 0), category
    assert counts_per_category()["Object Attributes"] == 100 and problems["object_attributes"] == 100
    assert {p.difficulty for p in plans} == {"medium"}
