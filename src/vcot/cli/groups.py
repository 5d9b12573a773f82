"""The command groups `vcot export` and `vcot human` (issue 45: the exports and the human study each under one
name). A group falls back to its default command when its first argument names none of its commands, so the
forms that came before the groups keep working: `vcot export SUITE -f parquet` is `vcot export suite …`, and
`vcot human SUITE` is `vcot human run SUITE`. The old hyphenated names (`export-rl`, `human-export`, …) stay
as hidden aliases."""

from __future__ import annotations

from typing import Any

import click
import typer
from typer.core import TyperGroup

_HELP = ("--help", "-h")


class _DefaultGroup(TyperGroup):
    default_command = ""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] not in self.commands and args[0] not in _HELP and self.default_command:
            args = [self.default_command, *args]
        return super().parse_args(ctx, args)


def _group(default: str) -> type[TyperGroup]:
    return type(f"DefaultGroup_{default}", (_DefaultGroup,), {"default_command": default})


def make_group(default: str, help_text: str) -> typer.Typer:
    return typer.Typer(cls=_group(default), no_args_is_help=True, rich_markup_mode=None, help=help_text)


export_app = make_group(
    "suite",
    "Write a suite, training data, RL data or process-supervision data in another "
    "format (`vcot export SUITE -f FORMAT` is `vcot export suite`).",
)
human_app = make_group(
    "run",
    "The human-baseline study (docs/human.md): run its page, export its answers "
    "(`vcot human SUITE` is `vcot human run SUITE`).",
)


def register_in(
    group: typer.Typer, name: str, fn: Any, *, app: typer.Typer | None = None, old_name: str | None = None
) -> None:
    """`fn` as `vcot <group> <name>`, and under its former top-level name as a hidden alias."""
    group.command(name)(fn)
    if app is not None and old_name is not None:
        app.command(old_name, hidden=True)(fn)
