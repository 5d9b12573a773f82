"""`vcot audit`: non-solving baselines beside chance, flagging tasks a shallow cue can answer."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from vcot.analysis.audit import audit_instances
from vcot.analysis.shortcuts.electric_charge import strongest_force_direction
from vcot.build import TaskPlan, build_suite
from vcot.cli import app
from vcot.schema import AnswerType, Instance
from vcot.suite import read_suite


def _inst(uid: str, answer: str, question: str = "Which one?") -> Instance:
    return Instance(uid=uid, task="toy_dots", domain="EG", question=question, image="a.png", answer=answer,
                    answer_type=AnswerType.INTEGER, meta={"generator": {"difficulty": "easy"}})


def _row(table, baseline: str):
    return next(r for r in table.rows if r[3] == baseline)


def test_majority_baseline_never_sees_the_instances_own_gold():
    # Every answer differs: leave-one-out majority can only be wrong. Seeing its own gold would give 100%.
    unique = [_inst(f"u{k}", str(k)) for k in range(1, 7)]
    assert _row(audit_instances(unique), "majority answer")[4] == "0.0"
    # One dominant answer is found from the others.
    skewed = [_inst(f"s{k}", "2") for k in range(5)] + [_inst("s5", "3")]
    row = _row(audit_instances(skewed), "majority answer")
    assert row[4] == f"{100 * 5 / 6:.1f}" and row[-1] == "YES"


def test_strongest_force_heuristic_reads_one_cue():
    inst = Instance(uid="e", task="electric_charge", domain="PBR", question="?", image="a.png", answer="north",
                    answer_type=AnswerType.DIRECTION,
                    meta={"scene": {"target": {"pos": [0, 3], "q": -1},
                                    "sources": [{"pos": [0, 4], "q": 3}, {"pos": [3, 3], "q": 1}]}})
    # The +3 source one cell north attracts the -1 target northwards; the +1 source three cells east is weaker.
    assert strongest_force_direction(inst) == "north"


def test_the_strongest_force_cue_is_balanced_to_chance(tmp_path: Path):
    """electric_charge keeps the strongest single force pointing the answer's way in one instance of eight
    (it did in about three of four before version 3): the audit finds no shortcut."""
    build_suite(tmp_path / "s", "s", [TaskPlan("electric_charge", 40, 0)])
    table = audit_instances(read_suite(tmp_path / "s", check_images="none").instances)
    row = _row(table, "strongest single force")
    assert float(row[4]) <= float(row[5]) + 10 and row[-1] == ""
    out = CliRunner().invoke(app, ["audit", str(tmp_path / "s")])
    assert out.exit_code == 0, out.output
    assert "strongest single force" in out.output and "chance" in out.output
