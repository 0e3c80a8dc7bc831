"""`python -m tally`: the same program as the `tally` command."""

from tally.cli import app

app()
