"""Putting a labelled set to judge models through `vcot eval` (issue 46, "Must show"): a step-judging suite
(`vcot step-judge make`), the built-in chance model, a mock judge scripted to be right 80 % of the time and
one that always says every step is correct, over real HTTP; their figures against the exact labels and the
judge-free baselines (`vcot step-judge score`, the report's tables); resume; and what is refused."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.analysis.build_report import load_results
from vcot.cli import app
from vcot.conditions import REGISTRY
from vcot.engine.mock import MockConfig, MockServer
from vcot.engine.runner import resolve_conditions
from vcot.process.judged import JudgedItem, baseline_scores, judge_runs, read_verdict
from vcot.suite import read_suite

TASKS = "gear_rotation,cubes_count,billiards"
N = 90


class _Server:
    def __init__(self, config: MockConfig, suite: Path) -> None:
        self.server = MockServer(config, suite)
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        port = asyncio.run_coroutine_threadsafe(self.server.start(), self.loop).result(10)
        self.url = f"http://127.0.0.1:{port}/v1"

    def stop(self) -> None:
        asyncio.run_coroutine_threadsafe(self.server.close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    root = tmp_path_factory.mktemp("judge-run")
    suite = root / "judge-suite"
    _cli("step-judge", "make", "-t", TASKS, "--n", str(N), "--seed", "5", "-o", str(suite))
    runs = {"chance": root / "run-chance", "mock80": root / "run-80", "all_correct": root / "run-ac"}
    _cli("eval", str(suite), "--model", "chance", "--run", str(runs["chance"]), "--no-progress")
    for name, config, model in (
        ("mock80", MockConfig(p=0.8), "openai/judge-80"),
        ("all_correct", MockConfig(judge="all_correct"), "openai/judge-all-correct"),
    ):
        server = _Server(config, suite)
        try:
            _cli(
                "eval",
                str(suite),
                "--model",
                model,
                "--base-url",
                server.url,
                "--tag-requests",
                "--run",
                str(runs[name]),
                "--no-progress",
                "--concurrency",
                "4",
            )
        finally:
            server.stop()
    yield {"suite": suite, **runs}


def _runs(path: Path) -> dict[str, object]:
    return {r.condition: r for r in judge_runs(load_results([path]))}


def test_the_suite_holds_the_labels_out_of_the_prompt(judged):
    suite = read_suite(judged["suite"])
    assert len(suite.instances) == N
    kinds = {i.meta["process_judge"]["kind"] for i in suite.instances}
    assert {"none", "ignores_evidence", "picture_text_mismatch", "wrong_conclusion"} <= kinds
    inst = next(i for i in suite.instances if i.meta["process_judge"]["kind"] == "ignores_evidence")
    rec = inst.meta["process_judge"]
    assert inst.answer == str(rec["labels"].index("incorrect") + 1)
    episode = REGISTRY.make_episode(inst, "judge_steps", 0, lambda rel: _Encoded(rel))
    text = " ".join(p.text for m in episode.first_messages() for p in m.parts if hasattr(p, "text"))
    assert rec["kind"] not in text and "after_error" not in text  # no label reaches the judge
    assert all(t.strip() in text for t in rec["texts"])
    assert episode.record()["judge"]["labels"] == rec["labels"]  # ... but the row can be scored alone


class _Encoded:
    """A stand-in ImageSource result: the episode only records and forwards it."""

    def __init__(self, rel: str) -> None:
        self.rel = rel

    def record(self) -> dict[str, str]:
        return {"path": self.rel}


def test_only_judging_conditions_serve_a_step_judging_suite(judged, tmp_path):
    suite = read_suite(judged["suite"])
    inst = suite.instances[0]
    assert REGISTRY.unservable(inst, "direct") is not None
    assert REGISTRY.unservable(inst, "judge_first_error") is None
    assert resolve_conditions(suite.instances, None) == (["judge_first_error", "judge_steps"], {})
    bad = CliRunner().invoke(
        app, ["eval", str(judged["suite"]), "-c", "visual_cot", "--run", str(tmp_path / "r"), "--no-progress"]
    )
    assert bad.exit_code != 0 and "step-judging instance" in bad.output
    # ... and a judging condition is refused on an ordinary suite.
    plain = tmp_path / "plain"
    _cli("generate", "-t", "cubes_count", "--n", "2", "-o", str(plain))
    refused = CliRunner().invoke(
        app, ["eval", str(plain), "-c", "judge_first_error", "--run", str(tmp_path / "p"), "--no-progress"]
    )
    assert refused.exit_code != 0 and "no step-judging instance" in refused.output


def test_a_judge_right_80_percent_of_the_time_measures_so(judged):
    runs = _runs(judged["mock80"])
    for cond in ("judge_first_error", "judge_steps"):
        s = runs[cond].scores
        lo, hi = s.localisation.interval
        assert s.localisation.n == N and lo <= 0.8 <= hi, (cond, s.localisation)
        assert s.no_verdict == 0 and runs[cond].errors == 0
    # The grader's accuracy column and the localisation figure are one accounting.
    rows = [r for r in load_results([judged["mock80"]]) if r["condition"] == "judge_first_error"]
    from vcot.analysis.build_report import scored

    right = sum(bool(r["correct"]) for r in scored(rows))
    assert right == runs["judge_first_error"].scores.localisation.k
    # Per-step verdicts: a scripted judge that names step k calls steps before it correct, so its precision of
    # "incorrect" is exactly its share of right calls among the steps it called.
    steps = runs["judge_steps"].scores
    assert 0.6 < steps.precision.value <= 1.0 and 0.6 < steps.recall.value <= 1.0


def test_always_correct_and_chance_judges_and_the_baselines(judged):
    ac = _runs(judged["all_correct"])["judge_first_error"].scores
    items = _runs(judged["mock80"])["judge_first_error"].items
    none_share = sum(x.first_error is None for x in items) / len(items)
    assert ac.localisation.value == pytest.approx(none_share)
    assert ac.recall.value == 0.0 and ac.precision.n == 0
    base = baseline_scores(list(_runs(judged["mock80"]).values()))
    assert base["always correct"].localisation.k == ac.localisation.k  # the judge is the baseline policy
    chance = _runs(judged["chance"])["judge_first_error"].scores
    expected = sum(1 / (len(x.labels) + 1) for x in items) / len(items)
    lo, hi = chance.localisation.interval
    assert lo <= expected <= hi and chance.localisation.value < 0.5


def test_score_command_and_report_show_judges_against_baselines(judged, tmp_path):
    out = _cli("step-judge", "score", str(judged["mock80"]), str(judged["chance"]), str(judged["all_correct"]))
    for label in (
        "openai/judge-80 · judge_first_error",
        "chance · judge_steps",
        "baseline: always step 1",
        "by error type",
        "position",
    ):
        assert label in out.replace("\n", " ") or label in out
    _cli(
        "report",
        str(judged["mock80"]),
        str(judged["chance"]),
        "--suite",
        str(judged["suite"]),
        "-o",
        str(tmp_path / "rep"),
        "--no-progress",
    )
    md = (tmp_path / "rep" / "report.md").read_text()
    assert "Step judging: first-error localisation" in md and "baseline: random step or none" in md
    empty = CliRunner().invoke(app, ["step-judge", "score", str(tmp_path / "nothing")])
    assert empty.exit_code != 0 and "not found" in empty.output


def test_resume_sends_nothing_twice(judged):
    before = len(load_results([judged["chance"]]))
    out = _cli("eval", str(judged["suite"]), "--model", "chance", "--run", str(judged["chance"]), "--no-progress")
    assert f"0 answered, 0 failed, {2 * N} already done" in out
    assert len(load_results([judged["chance"]])) == before


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("<answer>2</answer>", (2, True)),
        ("<answer>0</answer>", (None, True)),
        ("<answer>Step 3</answer>", (3, True)),
        ("<answer>9</answer>", (None, False)),  # no such step: named nothing
        ("I am not sure.", (None, False)),
        ("", (None, False)),
    ],
)
def test_reading_a_reply(reply, expected):
    v = read_verdict(reply, 4)
    assert (v.first_error, v.given) == expected


@pytest.mark.parametrize(
    "reply",
    [
        "<answer>2</answer>",
        "<answer>Step 2.</answer>",
        "<answer>2 (the wrong turn)</answer>",
        "The first wrong step is step 2.",
        "<answer>two</answer>",
        "<answer>2.5</answer>",
        "<answer>1 or 2</answer>",
    ],
)
def test_localisation_reads_an_answer_as_the_grader_does(reply):
    from vcot.scoring.score import score_fields

    graded = score_fields(reply, "2", "integer").correct
    v = read_verdict(reply, 4)
    assert (v.given and v.first_error == 2) == graded, (reply, v, graded)


def test_one_trajectory_judged_twice_under_one_model_is_refused():
    row = {
        "model": "m",
        "condition": "judge_first_error",
        "uid": "u",
        "epoch": 0,
        "error": None,
        "response": "<answer>1</answer>",
        "episode": json.dumps({"judge": {"labels": ["incorrect", "after_error"], "kind": "x", "task": "t"}}),
    }
    with pytest.raises(ValueError, match="judged u under judge_first_error twice"):
        judge_runs([row, dict(row)])
    assert len(judge_runs([row, {**row, "epoch": 1}])) == 1  # another epoch is another judgement


def test_step_tags_and_a_hostile_reply():
    v = read_verdict("<step1>correct</step1><step2>INCORRECT</step2><step2>correct</step2><answer>2</answer>", 3)
    assert v.steps == ("correct", "incorrect", None) and v.first_error == 2 and v.stated
    flood = "<step1>incorrect</step1>" * 100_000 + "<answer>1</answer>"
    assert read_verdict(flood, 3).steps[0] == "incorrect"  # read only so far, never raises
    item = JudgedItem("u", "t", "none", ["correct", "correct"])
    assert item.first_error is None
    rows = [
        {
            "model": "m",
            "condition": "judge_first_error",
            "uid": "u",
            "epoch": 0,
            "response": None,
            "error": "HTTP 500",
            "episode": json.dumps({"judge": {"labels": item.labels, "kind": "none", "task": "t"}}),
        }
    ]
    (run,) = judge_runs(rows)
    assert run.errors == 1 and run.scores.no_verdict == 1 and run.scores.localisation.k == 0


def test_overlap_sees_a_step_judging_suites_scenes_and_exclude_removes_them(tmp_path):
    from vcot.rl.problems import stream_seed

    evaluation = tmp_path / "eval"
    # The suite shares the labelled stream's generation seed, so its scenes are the stream's first ones.
    _cli("generate", "-t", "cubes_count", "--n", "4", "--seed", str(stream_seed(7)), "-o", str(evaluation))
    plain = ("--no-balance-positions",)  # the stream's first scenes, in order
    _cli("step-judge", "make", "-t", "cubes_count", "--n", "4", "--seed", "7", *plain, "-o", str(tmp_path / "j"))
    shared = CliRunner().invoke(app, ["overlap", str(evaluation), str(tmp_path / "j")])
    assert shared.exit_code == 1 and "4 scene(s) appear in both" in shared.output
    _cli(
        "step-judge",
        "make",
        "-t",
        "cubes_count",
        "--n",
        "4",
        "--seed",
        "7",
        "--exclude",
        str(evaluation),
        "-o",
        str(tmp_path / "k"),
    )
    assert "no scene of" in _cli("overlap", str(evaluation), str(tmp_path / "k"))


def test_every_label_regenerates_from_its_source(judged):
    from vcot.process.labelled import labelled

    for inst in read_suite(judged["suite"]).instances[:12]:
        rec = inst.meta["process_judge"]
        src = rec["source"]
        again = labelled(
            src["task"],
            src["seed"],
            src["index"],
            rec["kind"],
            difficulty=src["difficulty"],
            params=src["params"] or None,
            variant=src["variant"],
        )
        assert again is not None and again.labels == rec["labels"] and inst.answer == str(again.first_error or 0)
        assert [s.text for s in again.steps] == rec["texts"]


def test_report_without_the_suite_and_a_run_given_twice(judged, tmp_path):
    import shutil

    out = _cli("report", str(judged["mock80"]), "-o", str(tmp_path / "r1"), "--no-progress")
    assert "Step judging" in out and "chance" in (tmp_path / "r1" / "report.md").read_text()
    # The same answers twice (a copied run folder, or two servers under one model name) would merge into
    # one problem's pair of rows: refused, naming both folders.
    copy = tmp_path / "copy"
    shutil.copytree(judged["mock80"], copy)
    twice = CliRunner().invoke(
        app, ["report", str(judged["mock80"]), str(copy), "-o", str(tmp_path / "r2"), "--no-progress"]
    )
    assert twice.exit_code != 0 and "both hold model" in twice.output and not (tmp_path / "r2").exists()


def test_a_judge_whose_tags_contradict_its_answer_is_named():
    from vcot.process.tables import judging_tables

    labels = ["correct", "incorrect", "after_error"]
    rows = [
        {
            "model": "m",
            "condition": "judge_steps",
            "uid": f"u{i}",
            "epoch": 0,
            "error": None,
            "response": "<step1>incorrect</step1><step2>incorrect</step2><answer>2</answer>",
            "episode": json.dumps({"judge": {"labels": labels, "kind": "ignores_evidence", "task": "t"}}),
        }
        for i in range(3)
    ]
    (run,) = judge_runs(rows)
    assert run.disagreements == 3 and run.scores.localisation.k == 3  # the answer is right, the tags are not
    note = judging_tables(rows)[0][1].note
    assert "m · judge_steps: 3 of 3" in note


def test_balanced_positions_take_away_the_position_shortcut():
    from collections import Counter

    from vcot.process.judge_suite import POSITION_BUCKETS, balanced_by_position, position_bucket
    from vcot.process.judging import baselines
    from vcot.process.labelled import labelled_stream

    plain = [x for _, x in zip(range(25), labelled_stream(["rolling_dice_top", "gear_rotation"], seed=2), strict=False)]
    even = balanced_by_position(labelled_stream(["rolling_dice_top", "gear_rotation"], seed=2), 25)
    counts = Counter(position_bucket(x) for x in even)
    assert len(even) == 25 and set(counts) == set(POSITION_BUCKETS) and max(counts.values()) - min(counts.values()) <= 1
    step1 = baselines(even)["always step 1"].localisation.value
    assert step1 == pytest.approx(counts["1"] / 25) and step1 < baselines(plain)["always step 1"].localisation.value
    assert len({x.uid for x in even}) == 25  # no trajectory twice


def test_exports_and_the_human_study_refuse_a_step_judging_suite(judged, tmp_path):
    for args in (
        ["export", "suite", str(judged["suite"]), "-f", "mira", "-o", str(tmp_path / "m")],
        ["export", "training", str(judged["suite"]), "--format", "trl", "-o", str(tmp_path / "t")],
        ["human", "run", str(judged["suite"]), "--out", str(tmp_path / "h"), "--participants", "2"],
    ):
        res = CliRunner().invoke(app, args)
        assert res.exit_code != 0 and "step-judging" in res.output, (args, res.output)
    # Its rows as data are fine.
    _cli("export", "suite", str(judged["suite"]), "-f", "parquet", "-o", str(tmp_path / "rows.parquet"))
