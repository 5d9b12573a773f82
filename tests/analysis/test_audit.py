"""`vcot audit`: non-solving baselines beside chance, flagging tasks a shallow cue can answer."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scipy.stats import binomtest
from typer.testing import CliRunner

from vcot.analysis.audit import (
    ALPHA,
    FLAG,
    MARGIN,
    TOO_FEW,
    Verdict,
    audit_instances,
    audit_suite,
    audit_verdicts,
    binomial_tail,
)
from vcot.analysis.render import to_markdown
from vcot.analysis.shortcuts.electric_charge import strongest_force_direction
from vcot.analysis.tables import Table
from vcot.build import TaskPlan, build_suite
from vcot.cli import app
from vcot.engine.chance import chance_level
from vcot.schema import AnswerType, Instance
from vcot.suite import Suite, read_suite


def _inst(uid: str, answer: str, question: str = "Which one?") -> Instance:
    return Instance(
        uid=uid,
        task="toy_dots",
        domain="EG",
        question=question,
        image="a.png",
        answer=answer,
        answer_type=AnswerType.INTEGER,
        meta={"generator": {"difficulty": "easy"}},
    )


def _row(table: Table, baseline: str) -> dict[str, object]:
    """The row of one baseline, by column name (the audit has one task and difficulty in these tests)."""
    row = next(r for r in table.rows if r[table.header.index("baseline")] == baseline)
    return dict(zip(table.header, row, strict=True))


def _verdict(verdicts: list[Verdict], baseline: str) -> Verdict:
    return next(v for v in verdicts if v.baseline == baseline)


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `mini` preset as `vcot generate` writes it, once for the module (about 10 s)."""
    out = tmp_path_factory.mktemp("audit") / "mini"
    result = CliRunner().invoke(app, ["generate", "--preset", "mini", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return out


def _planted(mini: Path, n: int, first_right: int) -> list[Instance]:
    """n copies of mini's overlap items (four lettered options) whose gold is rewritten to "A" in the first
    `first_right` and to "B" in the rest: a generator that leaks the answer into the option order."""
    base = [i for i in read_suite(mini, check_images="none").instances if i.task == "overlap"]
    assert base and all(i.answer_type == AnswerType.CHOICE and i.options == ["A", "B", "C", "D"] for i in base)
    return [
        base[k % len(base)].model_copy(update={"uid": f"planted-{k}", "answer": "A" if k < first_right else "B"})
        for k in range(n)
    ]


def _write_suite(src: Path, out: Path, instances: list[Instance]) -> Path:
    """A suite folder of these instances, with src's manifest (images are not read by the audit)."""
    out.mkdir(parents=True)
    manifest = json.loads((src / "manifest.json").read_text())
    manifest["counts"] = {i.task: sum(j.task == i.task for j in instances) for i in instances}
    (out / "manifest.json").write_text(json.dumps(manifest))
    (out / "instances.jsonl").write_text("".join(i.model_dump_json() + "\n" for i in instances))
    return out


# -- the test ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("k", "n", "p"),
    [
        (0, 5, 0.3),
        (3, 3, 0.45),
        (4, 4, 0.45),
        (5, 6, 0.248),
        (100, 200, 0.45),
        (120, 200, 0.45),
        (200, 200, 0.45),
        (1700, 5000, 0.33),
        (1, 1, 0.2),
        (7, 20, 0.7),
    ],
)
def test_binomial_tail_is_the_exact_one_sided_test(k: int, n: int, p: float):
    expected = binomtest(k, n, p, alternative="greater").pvalue
    assert math.isclose(binomial_tail(k, n, p), expected, rel_tol=1e-9, abs_tol=1e-300)


def test_flag_needs_evidence_not_a_lucky_hit():
    # 4 options: chance 25%, so the test is against 45%. At 3 items even 3 of 3 gives p = 0.45**3 = 0.091.
    three = Verdict("t", "easy", "b", 3, 3, 0.25)
    assert three.label == TOO_FEW and not three.shortcut and math.isclose(three.p_value, 0.45**3)
    # A fourth item makes a clean sweep significant (0.45**4 = 0.041): "too few" is exact, not a rule of thumb.
    assert Verdict("t", "easy", "b", 4, 4, 0.25).label == FLAG
    assert Verdict("t", "easy", "b", 4, 3, 0.25).label == ""  # 75% is +50 points, yet p = 0.24
    # The old rule's false alarm on mini: 1 of 3 at chance 3.2% is +30 points, p = 0.55.
    lucky = Verdict("cubes_count", "medium", "half the bounding box", 3, 1, 0.032)
    assert lucky.accuracy > lucky.chance + MARGIN and lucky.p_value > 0.5 and lucky.label == ""
    # Where chance + 20 points reaches 100%, no accuracy can be above it.
    assert not Verdict("t", "easy", "b", 500, 500, 0.85).shortcut


def test_majority_baseline_never_sees_the_instances_own_gold():
    # Every answer differs: leave-one-out majority can only be wrong. Seeing its own gold would give 100%.
    unique = [_inst(f"u{k}", str(k)) for k in range(1, 7)]
    assert _row(audit_instances(unique), "majority answer")["accuracy %"] == "0.0"
    # One dominant answer is found from the others; 5 of 6 is significant against chance + 20 points.
    skewed = [_inst(f"s{k}", "2") for k in range(5)] + [_inst("s5", "3")]
    row = _row(audit_instances(skewed), "majority answer")
    assert row["accuracy %"] == f"{100 * 5 / 6:.1f}" and row["right"] == 5 and row["shortcut?"] == FLAG
    expected = binomtest(5, 6, chance_level(skewed[0]) + MARGIN, alternative="greater").pvalue
    assert expected < ALPHA and row["p"] == f"{expected:.3f}"


def test_strongest_force_heuristic_reads_one_cue():
    inst = Instance(
        uid="e",
        task="electric_charge",
        domain="PBR",
        question="?",
        image="a.png",
        answer="north",
        answer_type=AnswerType.DIRECTION,
        meta={
            "scene": {"target": {"pos": [0, 3], "q": -1}, "sources": [{"pos": [0, 4], "q": 3}, {"pos": [3, 3], "q": 1}]}
        },
    )
    # The +3 source one cell north attracts the -1 target northwards; the +1 source three cells east is weaker.
    assert strongest_force_direction(inst) == "north"


def test_the_strongest_force_cue_is_balanced_to_chance(tmp_path: Path):
    """electric_charge keeps the strongest single force pointing the answer's way in one instance of eight
    (it did in about three of four before version 3): the audit finds no shortcut."""
    build_suite(tmp_path / "s", "s", [TaskPlan("electric_charge", 40, 0)])
    table = audit_instances(read_suite(tmp_path / "s", check_images="none").instances)
    row = _row(table, "strongest single force")
    assert float(str(row["accuracy %"])) <= float(str(row["chance %"])) + 10 and row["shortcut?"] == ""
    out = CliRunner().invoke(app, ["audit", str(tmp_path / "s")])
    assert out.exit_code == 0, out.output
    assert "strongest single force" in out.output and "chance" in out.output


# -- mini: no false alarm --------------------------------------------------------------------------------------


def test_audit_on_mini_flags_nothing(mini: Path):
    verdicts = audit_verdicts(read_suite(mini, check_images="none").instances)
    # Mini still has the lucky cells that made the point-estimate rule cry wolf; without them this test
    # would pass under that rule too.
    assert any(v.accuracy > v.chance + MARGIN for v in verdicts)
    assert [v for v in verdicts if v.shortcut] == []
    assert any(v.label == TOO_FEW for v in verdicts) and any(v.label == "" for v in verdicts)
    out = CliRunner().invoke(app, ["audit", str(mini)])
    assert out.exit_code == 0, out.output
    assert "shortcut:" not in out.output and "no baseline shown to beat chance" in out.output
    assert "too few items for a verdict" in out.output and f"p ≤ {ALPHA:g}" in out.output  # the note


def test_the_reports_audit_section_flags_nothing_on_mini(mini: Path):
    # build_report puts audit_suite(suite) into the report (the quickstart's report on mini included), and
    # prints no count of its own.
    table = audit_suite(read_suite(mini, check_images="none"))
    verdict = table.header.index("shortcut?")
    assert [r for r in table.rows if r[verdict] == FLAG] == []
    assert {r[verdict] for r in table.rows} <= {"", TOO_FEW}
    md = to_markdown(table)
    assert f"| {FLAG} |" not in md and "exact one-sided binomial test" in md and "mean chance level" in md


# -- a planted shortcut is still caught -----------------------------------------------------------------------


def test_a_planted_first_option_shortcut_is_flagged(mini: Path, tmp_path: Path):
    verdicts = audit_verdicts(_planted(mini, 200, 200))
    first = _verdict(verdicts, "first option")
    assert (first.n, first.right, first.chance) == (200, 200, 0.25)
    assert first.shortcut and first.p_value < 1e-60  # 0.45**200
    assert _verdict(verdicts, "majority answer").shortcut  # the question alone gives "A" away too
    suite = _write_suite(mini, tmp_path / "planted", _planted(mini, 200, 200))
    out = CliRunner().invoke(app, ["audit", str(suite)])
    assert out.exit_code == 1, out.output
    assert "shortcut: overlap medium first option: 200/200 right (100.0% against chance 25.0%)" in out.output
    assert "shortcut: overlap medium majority answer:" in out.output
    assert "baseline(s) shown to beat chance by more than 20 points" in out.output


def test_the_test_separates_a_leak_from_a_margin_it_cannot_show(mini: Path):
    # 60% first-option answers (+35 points) over 200 items: p ~ 1e-5, flagged.
    strong = _verdict(audit_verdicts(_planted(mini, 200, 120)), "first option")
    assert strong.shortcut and strong.p_value < 1e-4
    # 50% (+25 points) is over the margin as a point estimate, but 200 items cannot show it is over 45%.
    weak = _verdict(audit_verdicts(_planted(mini, 200, 100)), "first option")
    assert weak.accuracy > weak.chance + MARGIN and 0.05 < weak.p_value < 0.2 and not weak.shortcut


def test_a_cell_of_three_items_says_too_few(mini: Path):
    # Three items at chance 25%, all answered by the first option: the old rule's +75 points, no verdict.
    table = audit_instances(_planted(mini, 3, 3))
    row = _row(table, "first option")
    assert (row["n"], row["right"], row["accuracy %"], row["shortcut?"]) == (3, 3, "100.0", TOO_FEW)
    assert row["p"] == f"{0.45**3:.3f}"


def test_suite_wrapper_matches_instances(mini: Path):
    s: Suite = read_suite(mini, check_images="none")
    assert audit_suite(s).rows == audit_instances(s.instances).rows
