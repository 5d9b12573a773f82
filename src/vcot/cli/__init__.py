"""The `vcot` command. Thin: each command parses options, calls the library and prints.

Commands are registered explicitly, grouped by stage: `suite` (generate, validate, gallery, export,
import-mira, quickstart), `evaluate` (eval, serve-mock), `report` (report, score-text, trajectories,
judge-process, annotate), `human` (human, human-export), `rl` (rl doctor, export-rl), `process`
(export-process). Heavy and optional imports happen inside the commands, so `vcot --help` always lists every
command; a command whose optional package is missing says which extra to install (`common.require`).
"""

from __future__ import annotations

import typer

from vcot.cli import curate, evaluate, human, process, report, rl, suite
from vcot.cli.common import help_width

app = typer.Typer(add_completion=False, no_args_is_help=True, rich_markup_mode=None,
                  context_settings={"max_content_width": 120, "terminal_width": help_width()},
                  help="Visual chain-of-thought benchmarks and evaluation.")

for _stage in (suite, evaluate, report, human, curate, rl, process):
    _stage.register(app)


def main() -> None:  # pragma: no cover - console entry point
    app()
