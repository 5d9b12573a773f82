"""The CLI end to end on the toy task (real generators are covered by tests/tasks and test_presets)."""

import json

from typer.testing import CliRunner

from vcot.cli import app

runner = CliRunner()


def test_tasks_lists_registered():
    result = runner.invoke(app, ["tasks"])
    assert result.exit_code == 0, result.output
    assert "toy_dots" in result.output


def test_generate_validate_gallery(tmp_path):
    out = tmp_path / "s"
    r = runner.invoke(
        app,
        [
            "generate",
            "--task",
            "toy_dots",
            "--n",
            "5",
            "--seed",
            "2",
            "--out",
            str(out),
            "--param",
            "max_dots=3",
            "-d",
            "easy",
        ],
    )
    assert r.exit_code == 0, r.output
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tasks"]["toy_dots"]["params"] == {"max_dots": 3}
    r = runner.invoke(app, ["validate", str(out)])
    assert r.exit_code == 0, r.output
    assert "5 answers re-solved" in r.output


def test_validate_catches_wrong_gold_answer(tmp_path):
    out = tmp_path / "s"
    assert runner.invoke(app, ["generate", "-t", "toy_dots", "--n", "3", "-o", str(out)]).exit_code == 0
    lines = (out / "instances.jsonl").read_text().splitlines()
    obj = json.loads(lines[1])
    obj["answer"] = str(int(obj["answer"]) + 1)
    lines[1] = json.dumps(obj)
    (out / "instances.jsonl").write_text("\n".join(lines) + "\n")
    r = runner.invoke(app, ["validate", str(out)])
    assert r.exit_code == 1
    assert "re-solve gives" in r.output or "hash mismatch" in r.output


def test_clear_errors():
    r = runner.invoke(app, ["generate", "-t", "nope", "-o", "x"])
    assert r.exit_code == 2 and "unknown task 'nope'" in r.output
    r = runner.invoke(app, ["generate", "-o", "x"])
    assert r.exit_code == 2 and "exactly one of --task or --preset" in r.output
    r = runner.invoke(app, ["validate", "/nonexistent/suite"])
    assert r.exit_code == 2 and "suite folder not found" in r.output


def test_quickstart_runs_the_whole_pipeline_offline(tmp_path):
    out = tmp_path / "qs"
    r = runner.invoke(app, ["quickstart", "--out", str(out)])
    assert r.exit_code == 0, r.output
    assert (out / "mini" / "manifest.json").is_file()
    assert (out / "gallery.html").is_file()
    assert (out / "run-chance" / "results.parquet").is_file()
    html = (out / "report" / "report.html").read_text()
    assert "MIRA Table 1" in html
    # Accuracy is printed per condition next to the chance level, for every condition the suite serves.
    for cond in (
        "direct",
        "text_cot",
        "text_cot_spec",
        "visual_cot",
        "text_state_cot",
        "visual_cot_corrupted",
        "vaot_norender",
        "vaot",
        "vaot_wrongrender",
    ):
        assert cond in r.output
    assert "chance" in r.output


def test_help_lists_every_registered_command_and_a_missing_extra_is_named():
    import click
    import pytest
    import typer

    from vcot.cli.common import require

    out = CliRunner().invoke(app, ["--help"])
    for cmd in (
        "generate",
        "validate",
        "audit",
        "overlap",
        "gallery",
        "export",
        "import-mira",
        "quickstart",
        "eval",
        "serve-mock",
        "report",
        "score-text",
        "trajectories",
        "judge-process",
        "annotate",
    ):
        assert cmd in out.output, cmd
    with pytest.raises((typer.Exit, click.exceptions.Exit)) as exc:
        require("vcot_no_such_optional_package", "ray")
    assert exc.value.exit_code == 2


def test_command_modules_keep_their_annotations_evaluated():
    # typer reads every command's signature at each invocation; string annotations (the __future__ import)
    # cost a compile each, about 30 ms of every command's start-up (docs/design.md, "A new command").
    import ast
    from pathlib import Path

    import vcot.cli

    modules = sorted(Path(vcot.cli.__file__).parent.glob("*.py"))
    commands = [m for m in modules if "typer.Option(" in m.read_text() or "typer.Argument(" in m.read_text()]
    assert len(commands) >= 6
    for module in commands:
        future = [
            node
            for node in ast.parse(module.read_text()).body
            if isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ]
        assert not future, f"{module.name} imports from __future__"


def test_grouped_export_and_human_commands_and_their_former_names(tmp_path) -> None:
    """`vcot export` and `vcot human` are groups (issue 45); the forms before them still work."""
    suite = tmp_path / "s"
    assert runner.invoke(app, ["generate", "-t", "cubes_count", "--n", "2", "-o", str(suite)]).exit_code == 0
    new = runner.invoke(app, ["export", "suite", str(suite), "-f", "parquet", "-o", str(tmp_path / "a.parquet")])
    old = runner.invoke(app, ["export", str(suite), "-f", "parquet", "-o", str(tmp_path / "b.parquet")])
    assert new.exit_code == 0 and old.exit_code == 0, (new.output, old.output)
    assert (tmp_path / "a.parquet").read_bytes() == (tmp_path / "b.parquet").read_bytes()
    listed = runner.invoke(app, ["export", "--help"]).output
    assert all(name in listed for name in ("suite", "training", "rl", "process"))
    top = runner.invoke(app, ["--help"]).output
    assert "export-rl" not in top and "human-export" not in top  # the aliases are hidden
    for args in (
        ["export", "rl", "--help"],
        ["export-rl", "--help"],
        ["human", "export", "--help"],
        ["human-export", "--help"],
        ["human", "run", "--help"],
        ["human", "--help"],
    ):
        assert runner.invoke(app, args).exit_code == 0, args
    wrong = runner.invoke(app, ["export", "suite", str(tmp_path / "missing"), "-f", "parquet", "-o", "x"])
    assert wrong.exit_code != 0
