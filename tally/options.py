"""What the commands of the command line share: the typer app they register on, the options
several of them take, the one way an error is printed (exit codes: tally.errors, README.md) and
the --format check. cli.py and tally/commands/ import it; it imports neither (issue 15).
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import typer

from tally import __version__
from tally.errors import EXIT_BUG, EXIT_USAGE, TallyError, UsageError

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Count the votes of a forum-played social-deduction game from its thread.",
    context_settings={"help_option_names": ["-h", "--help"]},
)

# ---------------------------------------------------------------------------------------------
# Options shared by the commands that read a thread

DayOpt = typer.Option(None, "--day", "-d", help="Day number (default: the day whose window "
                      "contains now, else the last day that has started).")
FromOpt = typer.Option(None, "--from", help="Read saved pages (HTML files as a browser saves "
                       "them, one per page, any order) from this folder instead of the forum.",
                       exists=True, file_okay=False, dir_okay=True)
FromExtraOpt = typer.Option(None, "--from-extra", help="With --from: saved pages of one of the "
                            "game's other threads (the game file's `threads`), one folder per "
                            "thread; repeat it for each. Read by presets that count posts across "
                            "the game threads (mafia-ru, R10).", metavar="DIR", exists=True,
                            file_okay=False, dir_okay=True)
FetchedAtOpt = typer.Option(None, "--fetched-at", help="With --from: when the pages were saved "
                            "(anchor for relative dates). Default: each file's modification time.")
OfflineOpt = typer.Option(False, "--offline", help="Use only pages already in the snapshot store.")
StoreOpt = typer.Option(None, "--store", envvar="TALLY_STORE", help="Snapshot store (SQLite). "
                        "Default: .tally/<game>.sqlite beside the game file.")
FromWarcOpt = typer.Option(None, "--from-warc", help="Read the thread from a WARC file written by "
                           "`tally export` (or any web archive of the thread's pages).",
                           exists=True, file_okay=True, dir_okay=False)
AsOfOpt = typer.Option(None, "--as-of", help="Count as the thread stood at this post id or time "
                       "('YYYY-MM-DD HH:MM[:SS]' in the game's zone, or ISO 8601 with offset).")



def _known_language(value: str | None) -> str | None:
    from tally.render.i18n import languages

    if value is not None and value not in languages():
        # Not typer.BadParameter: its usage box wraps the list over lines. One line, exit 2, as
        # for an unknown --format (known_format).
        typer.echo(f"tally: error: --lang {value!r}: unknown language (known: "
                   f"{', '.join(languages())})", err=True)
        raise typer.Exit(EXIT_USAGE)
    return value


LangOpt = typer.Option(None, "--lang", callback=_known_language,
                       help="The language of the post or report: es, ru, zh, fr, en (any with a "
                            "catalogue in tally/locale). Default: the game file's `language`, "
                            "else the preset's (espia, lupus: es; mafia-ru: ru; trigger-cn: zh; "
                            "kira, majority: en).")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tally {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                      help="Show the version and exit.")) -> None:
    """Count the votes of a forum-played social-deduction game from its thread."""


@contextmanager
def errors() -> Iterator[None]:
    """Expected errors: one line and their exit code. Bugs: a traceback and exit 1."""
    try:
        yield
    except TallyError as exc:
        typer.echo(f"tally: error: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception:  # noqa: BLE001 - the bug path
        traceback.print_exc()
        typer.echo("tally: internal error (a bug): please report it with the traceback above",
                   err=True)
        raise typer.Exit(EXIT_BUG) from None


def known_format(fmt: str, known: Sequence[str]) -> None:
    """An unknown --format is a bad command line (exit 2), found before anything is read."""
    if fmt not in known:
        raise UsageError(f"--format {fmt!r}: unknown format (known: {', '.join(known)})")
