"""Expected errors: each prints one clean line and exits with a code a wrapper can act on.

Anything else is a bug and gets a traceback. The codes are documented in README.md.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_BUG = 1  # an unexpected exception: please report it
EXIT_USAGE = 2  # bad command line (typer/click use 2 as well)
EXIT_INPUT = 3  # bad game file, unreadable saved pages, unknown preset/engine/name
EXIT_FORUM = 4  # network failure after retries, HTTP error, login wall, challenge, not a thread
EXIT_NEEDS_GM = 5  # the count needs a GM decision; `tally post`: held for the GM
# `tally post` (the scheduled run): 0 posted, 5 held for the GM, 4 forum error, and:
EXIT_NOTHING_TO_POST = 6  # nothing changed, too soon, quiet hours: no post, nothing wrong
EXIT_LOGIN = 7  # no credentials, or the forum refused them
EXIT_CANNOT_POST = 8  # captcha / challenge: cannot post automatically; the count is left to paste
EXIT_BUSY = 9  # another run holds the game's lock
EXIT_AWAITING_MODERATION = 10  # the forum holds the post for a moderator: players cannot see
# it yet; every run says so until it shows in the thread, and never sends it again; the GM
# should ask the board's staff to exempt the bot


class TallyError(Exception):
    """An expected failure with a one-line message for the user."""

    exit_code = EXIT_INPUT

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class UsageError(TallyError):
    """A command-line value that cannot be used as given (an unknown --format, an --as-of that
    is neither a post id nor a time): the command line is wrong, exit 2 as click's own errors."""

    exit_code = EXIT_USAGE


class GameFileError(TallyError):
    """The game file is missing, malformed or inconsistent (message names file, line and key)."""


class InputError(TallyError):
    """Saved pages or command-line values that cannot be used."""


class ForumError(TallyError):
    """The forum could not be read: network, HTTP status, login wall, challenge page."""

    exit_code = EXIT_FORUM


class LoginError(ForumError):
    """No credentials for the bot, or the forum refused them (never says what they were)."""

    exit_code = EXIT_LOGIN


class CannotPostHere(ForumError):
    """The forum wants a human (captcha, Cloudflare challenge): no automatic post is possible."""

    exit_code = EXIT_CANNOT_POST


class Challenged(ForumError):
    """The forum's CDN answered with a challenge (Cloudflare `cf-mitigated: challenge`): only a
    browser gets through. Reading: a forum error; posting: CannotPostHere. Never retried."""


class FloodLimit(ForumError):
    """The forum refused the post as too soon after the last one; `wait`: seconds, if it says."""

    def __init__(self, message: str, wait: float | None = None) -> None:
        super().__init__(message)
        self.wait = wait


class ThreadMovedOn(ForumError):
    """New posts arrived while replying (phpBB's "Post review"): nothing was posted, and the
    count may be stale, so the run counts again before replying."""


class Busy(TallyError):
    """Another run holds the game's lock."""

    exit_code = EXIT_BUSY


class SessionExpired(ForumError):
    """The session cookie is no longer valid: log in again (once) and retry."""


class OutcomeUnknown(ForumError):
    """The reply request went out but no answer came back: the post may exist. The next run
    reads the thread's tail before posting again."""


class NotAThreadPage(ForumError):
    """A page that is not a thread page of the expected engine (login wall, error, other engine)."""


class ParserCrash(ForumError):
    """The engine's parser failed on a page in a way it does not foresee (markup no template
    showed): the page is the forum's, so this is exit 4 naming the engine, the page and the post
    being read, not a traceback; the page should be reported with it."""


class TruncatedPage(ForumError):
    """A page that ends before its closing markup: a cut download."""


class WrongThread(NotAThreadPage):
    """A page of another topic where the game's thread was expected (a merged or moved topic,
    a redirect to another topic, a stray saved page): its posts are not this game's votes."""
