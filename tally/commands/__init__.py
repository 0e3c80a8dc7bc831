"""The commands beyond the deadline run, one module each; importing them registers them on
tally.cli.app (cli.py imports this package last)."""

from tally.commands import post, report, snapshot, warc  # noqa: F401  (registers the commands)
