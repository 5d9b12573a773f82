"""A suite never repeats a scene, whatever the number of processes; `vcot validate` reports repeats and,
with --oracle, answers its independent oracle disagrees with — even when the solver itself is wrong."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from vcot.build import TaskPlan, build_suite
from vcot.cli import app
from vcot.suite import read_suite
from vcot.validate import scene_keys, shared_scenes, validate_suite

N = 80
PLAN = TaskPlan("mirror_clock", N, 0, "easy")  # 834 possible easy scenes: 80 draws repeat a few


@pytest.fixture(scope="module")
def clocks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("clocks")
    one = build_suite(root / "one", "c", [PLAN], processes=1)
    two = build_suite(root / "two", "c", [PLAN], processes=2)
    assert one["content_hash"] == two["content_hash"]
    return root / "one", root / "two"


def test_no_scene_repeats_and_repeats_were_redrawn(clocks: tuple[Path, Path]) -> None:
    suite = read_suite(clocks[0], check_images="none")
    keys = scene_keys(suite)
    assert len(keys) == N and all(len(uids) == 1 for uids in keys.values())
    # Without the check three of these 80 scenes repeat; they were replaced by fresh draws for their index.
    redrawn = [i for i in suite.instances if i.meta["generator"].get("variant")]
    assert redrawn and all(i.uid.endswith(f"{i.meta['generator']['index']:06d}") for i in redrawn)
    assert validate_suite(clocks[0], check_hash=False).ok


def test_validate_reports_a_repeated_scene(clocks: tuple[Path, Path], tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "s"
    shutil.copytree(clocks[0], copy)
    lines = (copy / "instances.jsonl").read_text().splitlines()
    first, second = json.loads(lines[0]), json.loads(lines[1])
    second["meta"]["scene"] = first["meta"]["scene"]
    second["answer"] = first["answer"]
    lines[1] = json.dumps(second)
    (copy / "instances.jsonl").write_text("\n".join(lines) + "\n")
    report = validate_suite(copy, check_hash=False)
    assert any("the same scene appears 2 times" in p for p in report.problems), report.problems


def test_overlap_between_suites(clocks: tuple[Path, Path], tmp_path: Path) -> None:
    a = read_suite(clocks[0], check_images="none")
    assert len(shared_scenes(a, read_suite(clocks[1], check_images="none"))) == N
    other = build_suite(tmp_path / "other", "o", [TaskPlan("mirror_clock", 20, 1, "hard")])
    assert other["total"] == 20
    assert shared_scenes(a, read_suite(tmp_path / "other", check_images="none")) == []
    same = CliRunner().invoke(app, ["overlap", str(clocks[0]), str(clocks[1])])
    assert same.exit_code == 1 and f"{N} scene(s) appear in both" in same.output
    apart = CliRunner().invoke(app, ["overlap", str(clocks[0]), str(tmp_path / "other")])
    assert apart.exit_code == 0, apart.output


def test_oracle_catches_a_wrong_solver_that_resolving_cannot(tmp_path: Path, monkeypatch) -> None:
    """Validation that re-solves with the generator's own solver is circular: with the solver broken, the
    gold answers are wrong and re-solving agrees. The independent oracle does not."""
    from vcot.tasks import get_task_class
    from vcot.tasks.base import Solution

    cls = get_task_class("rolling_dice_top")
    real = cls.solve

    def off_by_one(self, scene):
        s = real(self, scene)
        return Solution(str(int(s.answer) % 6 + 1), s.states, s.details)

    monkeypatch.setattr(cls, "solve", off_by_one)
    build_suite(tmp_path / "s", "s", [TaskPlan("rolling_dice_top", 12, 0)])
    assert validate_suite(tmp_path / "s", check_hash=False).ok  # circular: the broken solver agrees with itself
    report = validate_suite(tmp_path / "s", check_hash=False, oracle=True)
    assert report.oracle_checked == 12
    assert sum("independent oracle gives" in p for p in report.problems) == 12
