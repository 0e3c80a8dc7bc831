"""The commands beyond the deadline run, one module each; importing them registers them on the
app of tally.options (cli.py imports this package). They call the use case (tally.counting),
never the command line module itself."""

from tally.commands import post, report, snapshot, warc  # noqa: F401  (registers the commands)
