"""The `vcot` console entry point.

The command's imports (typer, rich, pydantic models, the task registry) are loaded with the garbage
collector paused and then frozen: they live until exit, and collections during start-up only rescanned them.
"""

from __future__ import annotations

from vcot.gcpause import paused_gc


def main() -> None:
    with paused_gc():
        from vcot.cli import app
    app()
