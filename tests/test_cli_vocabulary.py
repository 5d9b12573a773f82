"""One CLI vocabulary (README, "Commands"): every option documented, no internal type names in the help,
the suite first where a command works on a suite, --no-progress wherever there is a progress bar."""

from __future__ import annotations

import pytest
import typer.main
from typer.testing import CliRunner

from vcot.cli import app

runner = CliRunner()


def _is_option(p: object) -> bool:
    # Typer's parameters subclass its own copy of click's classes, so isinstance(click.Option) is False.
    return getattr(p, "param_type_name", None) == "option"


def _is_argument(p: object) -> bool:
    return getattr(p, "param_type_name", None) == "argument"


def _commands() -> dict:
    """Every command by its full name: a group's commands as "GROUP NAME" (vcot export suite, vcot rl doctor)."""
    out = {}
    for name, cmd in typer.main.get_command(app).commands.items():  # type: ignore[attr-defined]
        subs = getattr(cmd, "commands", None)
        if subs:
            out.update({f"{name} {sub}": c for sub, c in subs.items()})
        else:
            out[name] = cmd
    return out


COMMANDS = _commands()


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_every_option_has_help_and_no_internal_type_names(name: str) -> None:
    cmd = COMMANDS[name]
    undocumented = [p.opts[0] for p in cmd.params if _is_option(p) and not p.hidden and not (p.help or "").strip()]
    assert not undocumented, f"vcot {name}: options without help: {undocumented}"
    out = runner.invoke(app, [*name.split(), "--help"]).output
    assert "<bool>" not in out and "<list[str]>" not in out, out
    # Typer prints an argument's type whatever its metavar (report's RUN shows <list[Path]>); options
    # show their metavar, which says what to type.
    options = out.split("Options:", 1)[-1]
    assert "list[" not in options, f"vcot {name} --help:\n{out}"


@pytest.mark.parametrize("name", ["generate", "quickstart", "eval"])
def test_commands_with_a_progress_bar_take_no_progress(name: str) -> None:
    opts = {o for p in COMMANDS[name].params if _is_option(p) for o in p.secondary_opts}
    assert "--no-progress" in opts


@pytest.mark.parametrize("name", ["validate", "audit", "gallery", "export suite", "eval", "serve-mock"])
def test_suite_commands_take_the_suite_first(name: str) -> None:
    first = next(p for p in COMMANDS[name].params if _is_argument(p))
    assert first.name.startswith("suite"), (name, first.name)


@pytest.mark.parametrize("name", ["report", "trajectories", "judge-process", "annotate"])
def test_run_commands_take_the_run_first_and_the_suite_as_option(name: str) -> None:
    params = COMMANDS[name].params
    assert _is_argument(params[0])
    assert any(_is_option(p) and "--suite" in p.opts for p in params)


def test_eval_takes_suite_positionally_or_as_option_but_not_two_suites(tmp_path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    res = runner.invoke(app, ["eval", str(a), "--suite", str(b)])
    assert res.exit_code != 0 and "two suites given" in res.output
    res = runner.invoke(app, ["eval"])
    assert res.exit_code != 0 and "SUITE" in res.output
    for args in (["eval", str(a)], ["eval", "--suite", str(a)]):
        res = runner.invoke(app, args)
        assert res.exit_code != 0 and str(a) in res.output  # reaches the suite reader: no such folder


def test_serve_mock_names_its_rate_and_keeps_the_old_spelling() -> None:
    opts = {o for p in COMMANDS["serve-mock"].params if _is_option(p) for o in p.opts}
    assert {"--correct-rate", "--p", "--correct-rate-for", "--p-condition"} <= opts
    assert "--p " not in runner.invoke(app, ["serve-mock", "--help"]).output.split("--correct-rate", 1)[0]


def test_generate_takes_a_preset_under_both_names() -> None:
    opts = {o for p in COMMANDS["generate"].params if _is_option(p) for o in p.opts}
    assert {"--preset", "--suite", "--task"} <= opts


def test_tables_are_not_wrapped_at_80_columns_when_output_is_a_pipe() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "vcot.cli", "tasks"],
        capture_output=True,
        text=True,
        timeout=120,
        env={"PATH": "/usr/bin:/bin", "TERM": "dumb"},
    ).stdout
    widths = [len(line) for line in out.splitlines()]
    assert widths and 80 < max(widths) <= 160, max(widths, default=0)
