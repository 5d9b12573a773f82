"""`python -m vcot.cli`: the same as the `vcot` command."""

from vcot.cli import app

app()
