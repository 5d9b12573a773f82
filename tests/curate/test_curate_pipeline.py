"""The curation pipeline offline against the mock server (issue 15, "Must show"): a source of 120 items, a third
of whose questions give their answer away; the caption filter removes exactly those, a planted leaking rewrite
is rejected, a judge failure is removed, and the frozen suite validates and evaluates."""

from __future__ import annotations

import json
import sqlite3

import pytest
from curate_fixtures import make_config
from typer.testing import CliRunner

from vcot.cli import app
from vcot.curate.pipeline import Curation, CurationConfig
from vcot.suite import read_suite

runner = CliRunner()


@pytest.fixture(scope="module")
def curated(mock, tmp_path_factory):
    root = tmp_path_factory.mktemp("curate")
    config = make_config(root, mock.base_url)
    mock.reset()
    r = runner.invoke(app, ["curate", "run", str(config), "--json", "--tag-requests"])
    assert r.exit_code == 0, r.output
    return root, config, [json.loads(line) for line in r.output.splitlines() if line.startswith("{")]


def test_filter_removes_exactly_the_answer_giving_questions(curated):
    root, config, results = curated
    stages = {r["stage"]: r for r in results}
    assert stages["ingest"]["candidates"] == 120
    assert stages["filter"]["removed"] == 40 and stages["filter"]["kept"] == 80
    cur = Curation(CurationConfig.load(config))
    try:
        decided = cur.store.decisions("filter")
        giveaway = {f"toy-q{i:03d}" for i in range(120) if i % 3 == 0}
        assert {u for u, d in decided.items() if d["verdict"] == "removed"} == giveaway
        sample = decided["toy-q000"]
        assert sample["details"]["caption"] and len(sample["details"]["trials"]) == 5
        assert "5 of 5" in sample["reason"]
        kept = decided["toy-q001"]
        assert kept["verdict"] == "kept" and kept["details"]["correct"] == 0
        # every caption and trial is stored: one caption call and five reasoner calls per candidate
        assert len(cur.store.calls_of("curate.reason", "toy-q001")) == 5
        assert len(cur.store.calls_of("curate.caption", "toy-q001")) == 1
    finally:
        cur.close()


def test_planted_leaking_rewrite_is_rejected_and_judge_failure_removed(curated):
    root, config, results = curated
    cur = Curation(CurationConfig.load(config))
    try:
        leak = cur.store.decision("rewrite", "toy-q005")
        assert leak["verdict"] == "rejected" and leak["reason"].startswith("leaks")
        assert "the answer is" in leak["details"]["question"]
        ok = cur.store.decision("rewrite", "toy-q013")
        assert ok["verdict"] == "rewritten" and "the answer is" not in ok["details"]["question"]
        assert cur.current(cur.candidates().get("toy-q013")).options is None
        # the rejected rewrite keeps its original multiple-choice form
        assert cur.current(cur.candidates().get("toy-q005")).options
        assert cur.store.decision("qc", "toy-q010")["verdict"] == "removed"
        assert len(cur.survivors()) == 79
    finally:
        cur.close()


def test_rerun_sends_no_call_again(curated, mock):
    _, config, _ = curated
    before = mock.stats()["requests"]
    r = runner.invoke(app, ["curate", "run", str(config), "--json", "--tag-requests"])
    assert r.exit_code == 0, r.output
    assert all(json.loads(line).get("calls_sent", 0) == 0 for line in r.output.splitlines() if line.startswith("{"))
    assert mock.stats()["requests"] == before
    assert max(mock.stats()["by_key"].values()) == 1


def test_frozen_suite_validates_and_evaluates(curated, mock, tmp_path):
    root, config, _ = curated
    out = tmp_path / "frozen"
    r = runner.invoke(app, ["curate", "freeze", str(config), "--out", str(out)])
    assert r.exit_code == 2 and "no approved items" in r.output  # nothing reviewed yet
    r = runner.invoke(app, ["curate", "freeze", str(config), "--out", str(out), "--auto-approve", "--version", "2"])
    assert r.exit_code == 0, r.output
    suite = read_suite(out)
    assert suite.name == "toy-curated-v2" and len(suite) == 79
    inst = suite.get("toy-q013")
    assert inst.meta["provenance"]["original_id"] == "q013" and inst.meta["curation"]["category"] == "Object Attributes"
    assert inst.meta["curation"]["decisions"]["rewrite"]["verdict"] == "rewritten" and inst.meta["caption"]
    assert suite.manifest["curation"]["counts"]["filter"] == {"kept": 80, "removed": 40}
    report = (out / "curation_report.md").read_text()
    assert "caption-solvable | 40" in report and "leaks | 1" in report
    assert "<script" not in (out / "curation_report.html").read_text()
    r = runner.invoke(app, ["validate", str(out)])
    assert r.exit_code == 0, r.output
    r = runner.invoke(
        app,
        [
            "eval",
            str(out),
            "--model",
            "mock-model",
            "--base-url",
            mock.base_url,
            "--run",
            str(tmp_path / "run"),
            "--conditions",
            "direct,caption_only",
            "--no-progress",
        ],
    )
    assert r.exit_code == 0, r.output
    assert "caption_only" in r.output


def test_store_is_the_engine_run_store(curated):
    root, _, _ = curated
    con = sqlite3.connect(root / "work" / "curate.sqlite")
    runs = {r[0] for r in con.execute("SELECT run_id FROM runs")}
    assert runs == {"curate-captioner", "curate-reasoner", "curate-judge", "curate-rewriter"}
    n_calls, n_samples = con.execute("SELECT (SELECT count(*) FROM calls), (SELECT count(*) FROM samples)").fetchone()
    # filter: a caption and 5 trials each; rewrite: 20 multiple-choice items, 5 leak trials each, a judge for the 19
    # that do not leak; qc: two checks for the 80 kept items
    assert n_calls == n_samples == 120 * (1 + 5) + 20 * (1 + 5) + 19 + 80 * 2
