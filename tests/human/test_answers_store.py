"""Answer checks per type, grading as a model's answer tag, and the store: one commit per answer, a double
submit ignored, time from first display to answer with the hidden time subtracted (or raw without script)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from urllib.parse import quote

import pytest

from vcot.human import AnswerError, HumanApp, check_answer, grade, prepare_study
from vcot.human.assign import Job
from vcot.human.store import StudyStore
from vcot.schema import Instance
from vcot.scoring import score_fields


def _inst(answer_type: str, answer: str, options: list[str] | None = None) -> Instance:
    return Instance(
        uid="u",
        task="t",
        domain="EG",
        question="q?",
        image="images/u.png",
        answer=answer,
        answer_type=answer_type,
        options=options,
    )


@pytest.mark.parametrize(
    ("atype", "gold", "options", "raw", "stored", "right"),
    [
        ("choice", "B", ["x", "y", "z"], "b", "B", True),
        ("choice", "B", ["x", "y", "z"], "C", "C", False),
        ("integer", "417", None, " 417 ", "417", True),
        ("integer", "417", None, "-3", "-3", False),
        ("number", "2.5", None, "2.50", "2.50", True),
        ("time", "7:53", None, "19:53", "19:53", True),  # a 24-hour time field; the dial reading is what counts
        ("time", "7:53", None, "07:53:00", "7:53", True),
        ("coordinates", "(13, 29)", None, "(13,29)", "(13,29)", True),
        ("text", "Quokka", None, "quokka", "quokka", True),
    ],
)
def test_checked_answers_are_graded_like_a_models_answer_tag(
    atype: str, gold: str, options: list[str] | None, raw: str, stored: str, right: bool
) -> None:
    inst = _inst(atype, gold, options)
    value = check_answer(inst, raw)
    assert value == stored
    score = grade(inst, value)
    assert score.correct is right
    assert score == score_fields(f"<answer>{value}</answer>", gold, atype, options, "q?")
    assert score.tier == "tag"


@pytest.mark.parametrize(
    ("atype", "options", "raw", "message"),
    [
        ("choice", ["x", "y"], "C", "one of the options A, B"),
        ("choice", ["x", "y"], "", "enter an answer"),
        ("integer", None, "4.5", "whole number"),
        ("integer", None, "seven", "whole number"),
        ("number", None, "1e999", "a number"),
        ("number", None, "nan", "a number"),
        ("time", None, "25:10", "hours and minutes"),
        ("time", None, "noon", "hours and minutes"),
        ("text", None, "a</answer>b", "< and >"),
        ("text", None, "line\nbreak", "one line"),
        ("text", None, "x" * 201, "longer than 200"),
    ],
)
def test_malformed_answers_get_a_clear_message(atype: str, options: list[str] | None, raw: str, message: str) -> None:
    with pytest.raises(AnswerError, match=message):
        check_answer(_inst(atype, "A" if atype == "choice" else "1", options), raw)


def _store(tmp_path: Path) -> tuple[StudyStore, Job]:
    store = StudyStore(tmp_path / "s.sqlite")
    job = Job("P1", 1, "u1", "direct")
    store.add_assignments([job, Job("P1", 2, "u2", "direct")])
    return store, job


def test_store_is_wal_and_commits_each_answer_once(tmp_path: Path) -> None:
    store, job = _store(tmp_path)
    assert sqlite3.connect(store.path).execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    store.open_view("P1", 1, 100.0)
    first = store.submit(job, "4", 130.0, 1, 25_000, "4", True)
    assert first is not None
    assert store.submit(job, "5", 131.0, 1, 26_000, "5", False) is None  # double submit: ignored
    rows = store.answers()
    assert len(rows) == 1 and rows[0]["answer"] == "4" and rows[0]["correct"] == 1
    with pytest.raises(ValueError, match="never shown"):
        store.submit(Job("P1", 2, "u2", "direct"), "1", 140.0, None, None, "1", True)


def test_time_on_item_subtracts_what_no_view_showed(tmp_path: Path) -> None:
    store, job = _store(tmp_path)
    assert store.open_view("P1", 1, 100.0) == 1
    assert store.report_view("P1", 1, 1, 8_000, 112.0)  # hidden after 8 s of the first view's 12
    assert store.report_view("P1", 1, 1, 99_000, 113.0)  # a page cannot claim more than its view lasted
    assert store.views("P1", 1)[0]["visible_ms"] == 13_000
    # The browser was closed; the item is shown again 60 s later and answered after 5 s visible.
    assert store.open_view("P1", 1, 173.0) == 2
    t = store.submit(job, "4", 178.0, 2, 5_000, "4", True)
    assert t is not None
    assert (t.raw_ms, t.active_ms, t.idle_ms, t.timing, t.views) == (78_000, 18_000, 60_000, "script", 2)
    assert t.first_shown == 100.0
    assert not store.report_view("P1", 1, 2, 9_000, 180.0)  # after the answer, reports change nothing


def test_without_the_script_the_raw_time_is_stored_and_marked(tmp_path: Path) -> None:
    store, job = _store(tmp_path)
    store.open_view("P1", 1, 100.0)
    t = store.submit(job, "4", 142.5, 1, None, "4", True)
    assert t is not None and (t.raw_ms, t.active_ms, t.idle_ms, t.timing) == (42_500, 42_500, None, "raw")


def test_app_grades_stores_and_logs_refusals(tmp_path: Path, suite_dir: Path) -> None:
    study, _ = prepare_study(tmp_path / "st", suite_dir, "1", 1)
    clock = [1000.0]
    app = HumanApp(study, clock=lambda: clock[0])
    jobs = app.jobs("P1")
    assert len(jobs) == 6
    for job in jobs:
        inst = study.instance(job.uid)
        assert app.item_page("P1", job.position).status == 200
        clock[0] += 3
        bad = app.submit("P1", job.position, b"answer=%3Cx%3E&view=1&visible_ms=1000&timing=script")
        assert bad.status == 400 and b'id="message"' in bad.body  # every type refuses "<x>"
        clock[0] += 2
        ok = app.submit(
            "P1", job.position, f"answer={quote(inst.answer)}&view=2&visible_ms=1500&timing=script".encode()
        )
        assert ok.status == 303
    rows = study.store.answers()
    assert len(rows) == 6 and all(r["correct"] == 1 for r in rows)
    # First display to answer is 5 s; the refused form's view (3 s, 1 s visible) and the new one (1.5 s) count.
    assert {(r["raw_ms"], r["active_ms"], r["idle_ms"], r["views"]) for r in rows} == {(5000, 2500, 2500, 2)}
    assert len(study.store.rejections()) == 6
    assert app.resume("P1").location == "/p/P1/done"


# ------------------------------------------------------------ issue 31: digits of other scripts, yes/no


def test_digits_of_other_scripts_are_read_as_the_grader_reads_them() -> None:
    from vcot.human.answers import check_answer, grade
    from vcot.schema import Instance

    inst = Instance(
        uid="u", task="t", domain="EG", question="How many?", image="images/u.png", answer="3", answer_type="integer"
    )
    for typed in ("٣", "３", "3"):
        assert check_answer(inst, typed) == "3"
        assert grade(inst, check_answer(inst, typed)).correct
    from vcot.scoring import score_fields

    assert score_fields("<answer>٣</answer>", "3", inst.answer_type, None, "").correct  # the grader agrees


def test_a_yes_no_question_offers_two_buttons() -> None:
    from vcot.human.page import _control, yes_no_pair
    from vcot.schema import Instance

    inst = Instance(
        uid="u", task="t", domain="EG", question="Is it?", image="images/u.png", answer="No", answer_type="text"
    )
    assert yes_no_pair(inst) == ("yes", "no")
    html = _control(inst, "")
    assert 'value="yes"' in html and 'value="no"' in html and 'type="text"' not in html
    other = inst.model_copy(update={"answer": "Quokka"})
    assert yes_no_pair(other) is None and 'type="text"' in _control(other, "")
