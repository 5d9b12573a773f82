"""Creating, resuming and refusing studies: the design is fixed once created, a changed suite is detected,
one server per study, and no refusal writes or deletes anything."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from human_fixtures import ITEMS, build_suite

from vcot.human import STUDY_FILE, HumanApp, StudyBusy, StudyError, StudyLock, open_study, prepare_study
from vcot.human.study import DB_FILE, LOCK_FILE, parse_participants


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes() for p in sorted(root.iterdir()) if p.is_file() and not p.name.endswith(("-wal", "-shm"))
    }


def test_create_then_resume_keeps_the_design_and_the_answers(tmp_path: Path, suite_dir: Path) -> None:
    study, created = prepare_study(tmp_path / "st", suite_dir, "4", 2, ["direct", "visual_cot"], None, 7)
    assert created and study.plan.k == 2 and study.plan.participants == ("P1", "P2", "P3", "P4")
    assert set(study.plan.uids) == {i["uid"] for i in ITEMS}
    jobs = study.store.all_jobs()
    assert len(jobs) == len(ITEMS) * 2 * 2
    app = HumanApp(study)
    first = app.jobs("P1")[0]
    app.item_page("P1", 1)
    inst = study.instance(first.uid)
    assert app.submit("P1", 1, f"answer={inst.answer}&view=1".encode()).status == 303
    # A server restart is a new process opening the same folder: same assignment, the answer kept.
    again, created = prepare_study(tmp_path / "st", suite_dir)
    assert not created and again.store.all_jobs() == jobs and len(again.store.answers()) == 1
    assert HumanApp(again).next_position("P1") == 2
    plan_text = (tmp_path / "st" / STUDY_FILE).read_text()
    assert json.loads(plan_text)["suite_hash"] == study.suite.content_hash


def test_options_that_differ_from_the_study_are_refused_and_nothing_changes(tmp_path: Path, suite_dir: Path) -> None:
    prepare_study(tmp_path / "st", suite_dir, "3", 1, None, 4, 0)
    before = _files(tmp_path / "st")
    for kwargs, what in [
        ({"k": 2}, "k = 1"),
        ({"participants": "5"}, "participants"),
        ({"seed": 9}, "seed = 0"),
        ({"conditions": ["visual_cot"]}, "conditions = direct"),
        ({"items": 5}, "4 problems"),
    ]:
        with pytest.raises(StudyError, match=what):
            prepare_study(tmp_path / "st", suite_dir, **kwargs)
    assert _files(tmp_path / "st") == before
    prepare_study(tmp_path / "st", suite_dir, "3", 1, ["direct"], 4, 0)  # the same values are fine


def test_a_suite_that_changed_under_the_study_is_refused(tmp_path: Path, suite_dir: Path) -> None:
    prepare_study(tmp_path / "st", suite_dir, "2", 1)
    before = _files(tmp_path / "st")
    other = build_suite(tmp_path / "other", change="count-1")  # one question edited: a new content hash
    with pytest.raises(StudyError, match="changed under the study"):
        prepare_study(tmp_path / "st", other)
    with pytest.raises(StudyError, match="content hash"):
        open_study(tmp_path / "st", other)
    # An edit the manifest does not record (instances.jsonl changed by hand) is caught by the items hash.
    lines = (suite_dir / "instances.jsonl").read_text().replace("7:53", "7:54")
    (suite_dir / "instances.jsonl").write_text(lines)
    with pytest.raises(StudyError, match="instances changed"):
        open_study(tmp_path / "st")
    assert _files(tmp_path / "st") == before


def test_bad_designs_are_refused_before_anything_is_written(tmp_path: Path, suite_dir: Path) -> None:
    cases = [
        ({}, "needs --participants"),
        ({"participants": "2", "k": 3}, "need at least"),
        ({"participants": "3", "conditions": ["caption_only"]}, "not one people can be shown"),
        ({"participants": "a,b,a"}, "distinct"),
        ({"participants": "a/b"}, "not allowed"),
        ({"participants": "2", "items": 0}, "at least 1"),
    ]
    for kwargs, message in cases:
        with pytest.raises(StudyError, match=message):
            prepare_study(tmp_path / "st", suite_dir, **kwargs)
        assert not (tmp_path / "st").exists()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    with pytest.raises(StudyError, match="not an empty folder"):
        prepare_study(tmp_path / "busy", suite_dir, "2")
    assert (tmp_path / "busy" / "notes.txt").read_text() == "mine"


def test_a_condition_with_steps_needs_steps(tmp_path: Path) -> None:
    suite = build_suite(tmp_path / "suite")
    lines = [json.loads(x) for x in (suite / "instances.jsonl").read_text().splitlines()]
    lines[2]["steps"] = []
    (suite / "instances.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(StudyError, match="visual_cot.*clock-1.*no visual chain-of-thought steps"):
        prepare_study(tmp_path / "st", suite, "2", 1, ["visual_cot"])


def test_an_interrupted_creation_is_redone_but_a_store_with_answers_is_kept(tmp_path: Path, suite_dir: Path) -> None:
    study, _ = prepare_study(tmp_path / "st", suite_dir, "2", 1)
    (tmp_path / "st" / STUDY_FILE).unlink()  # as if creation stopped before the plan was written
    study2, created = prepare_study(tmp_path / "st", suite_dir, "2", 1)
    assert created and study2.store.all_jobs() == study.store.all_jobs()
    HumanApp(study2).item_page("P1", 1)
    inst = study2.instance(study2.jobs("P1")[0].uid)
    HumanApp(study2).submit("P1", 1, f"answer={inst.answer}&view=1".encode())
    (tmp_path / "st" / STUDY_FILE).unlink()
    with pytest.raises(StudyError, match="not an empty folder"):
        prepare_study(tmp_path / "st", suite_dir, "2", 1)
    assert (tmp_path / "st" / DB_FILE).is_file()


def test_missing_store_is_an_error_not_a_fresh_start(tmp_path: Path, suite_dir: Path) -> None:
    prepare_study(tmp_path / "st", suite_dir, "2", 1)
    (tmp_path / "st" / DB_FILE).unlink()
    with pytest.raises(StudyError, match="is missing"):
        open_study(tmp_path / "st")


def test_one_server_per_study(tmp_path: Path, suite_dir: Path) -> None:
    prepare_study(tmp_path / "st", suite_dir, "2", 1)
    with StudyLock(tmp_path / "st" / LOCK_FILE):
        with pytest.raises(StudyBusy, match=r"already serving this study \(process \d+\)"):
            StudyLock(tmp_path / "st" / LOCK_FILE).acquire()
    with StudyLock(tmp_path / "st" / LOCK_FILE):  # released: a restart is fine
        pass


def test_participant_ids() -> None:
    assert parse_participants("3") == ("P1", "P2", "P3")
    assert parse_participants("12")[0] == "P01"
    assert parse_participants(" ann, bo-2 ,c.d") == ("ann", "bo-2", "c.d")
    for bad in ("", ",", "0", "x y", "<b>"):
        with pytest.raises(StudyError):
            parse_participants(bad)


def test_the_suite_recorded_in_the_study_is_the_default(tmp_path: Path, suite_dir: Path) -> None:
    prepare_study(tmp_path / "st", suite_dir, "2", 1)
    assert open_study(tmp_path / "st").suite.root.resolve() == suite_dir.resolve()
    moved = tmp_path / "moved"
    shutil.move(str(suite_dir), moved)
    with pytest.raises(StudyError, match="give its new folder with --suite"):
        open_study(tmp_path / "st")
    assert open_study(tmp_path / "st", moved).plan.suite_name == "human-test"
