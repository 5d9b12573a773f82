"""The `vcot` command. Thin: each command parses options, calls the library and prints.

Commands are registered explicitly, by stage: `suite` (generate, validate, gallery, export suite, export
training, import-mira, quickstart), `evaluate` (eval, serve-mock, sweep), `report` (report, score-text,
trajectories, judge-process, annotate), `human` (human run, human export), `rl` (rl doctor, export rl),
`process` (export process, step-judge). `export` and `human` are groups that several stages fill
(`vcot.cli.groups`; the former names `export-rl`, `human-export`, … remain as hidden aliases). Heavy and
optional imports happen inside the commands, so `vcot --help` always lists every command; a command whose
optional package is missing says which extra to install (`common.require`).
"""

from __future__ import annotations

import typer

from vcot.cli import curate, evaluate, human, process, report, rl, suite
from vcot.cli.common import help_width
from vcot.cli.groups import export_app, human_app

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    rich_markup_mode=None,
    context_settings={"max_content_width": 120, "terminal_width": help_width()},
    help="Visual chain-of-thought benchmarks and evaluation.",
)

for _stage in (suite, evaluate, report, human, curate, rl, process):
    _stage.register(app)
# The groups the stages filled (vcot.cli.groups), in the order a reader meets them.
app.add_typer(export_app, name="export")
app.add_typer(human_app, name="human")


def main() -> None:  # pragma: no cover - console entry point
    app()
