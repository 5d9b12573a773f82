"""`python -m vcot`: the same as the `vcot` command."""

from vcot.entry import main

main()
