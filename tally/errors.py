"""Expected errors: each prints one clean line and exits with a code a wrapper can act on.

Anything else is a bug and gets a traceback. The codes are documented in README.md.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_BUG = 1  # an unexpected exception: please report it
EXIT_USAGE = 2  # bad command line (typer/click use 2 as well)
EXIT_INPUT = 3  # bad game file, unreadable saved pages, unknown preset/engine/name
EXIT_FORUM = 4  # network failure after retries, HTTP error, login wall, challenge, not a thread
EXIT_NEEDS_GM = 5  # the count needs a GM decision (unresolved names, a tie for the GM)


class TallyError(Exception):
    """An expected failure with a one-line message for the user."""

    exit_code = EXIT_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class GameFileError(TallyError):
    """The game file is missing, malformed or inconsistent (message names file, line and key)."""


class InputError(TallyError):
    """Saved pages or command-line values that cannot be used."""


class ForumError(TallyError):
    """The forum could not be read: network, HTTP status, login wall, challenge page."""

    exit_code = EXIT_FORUM


class NotAThreadPage(ForumError):
    """A page that is not a thread page of the expected engine (login wall, error, other engine)."""


class TruncatedPage(ForumError):
    """A page that ends before its closing markup: a cut download."""
