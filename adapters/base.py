"""The adapter seam: one `Engine` subclass per forum engine (STYLE.md "Engine plus instances").

An engine module writes three things: which URLs it accepts (`accepts`, `thread_key`), how page N
of a thread is addressed (`page_url`), and a pure `parse_page(data, ctx) -> Page`. Fetching,
retries, politeness, snapshots and progress live once, in tally.fetch / tally.crawl; they call
these methods and never the other way round. Posting (login, reply) is each engine's `Replier`
(tally.adapters.reply, adapters/<engine>_reply.py).

Parsers are tolerant where FORUMS.md is unsure (template overrides, missing optional parts) and
strict where a wrong answer would change a count: a page with no recognisable thread markup is a
`NotAThreadPage`, never an empty list of posts.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import ClassVar

from tally.errors import InputError, NotAThreadPage, ParserCrash, TallyError
from tally.model import Page

# `--strict` for reading pages (JV's payload/HTML canary on every message, not a sample): set
# for one command by the CLI and read as PageContext's default, so that the readers between the
# command and the engine (saved folder, WARC, store, network) need not each carry it.
STRICT_READING: ContextVar[bool] = ContextVar("strict_reading", default=False)


@contextmanager
def strict_reading(on: bool = True) -> Iterator[None]:
    """Pages parsed inside read with every self-check on every post (`tally count --strict`)."""
    token = STRICT_READING.set(on)
    try:
        yield
    finally:
        STRICT_READING.reset(token)


@dataclass(frozen=True, slots=True)
class PageContext:
    """What a parser needs besides the bytes: where the page came from and how to read times."""

    url: str  # the page's URL (or the file path for saved pages without a known URL)
    fetched_at: datetime  # aware UTC: the anchor for relative dates ("Today", "3 天前")
    zone: str  # the board's IANA zone, from the game file or the engine default
    language: str | None = None  # the board's language, when the game file states it
    per_page: int | None = None  # posts per page, when the game file states it
    floor_names: tuple[str, ...] = ()  # the board's own names of its first floors (Discuz)
    # `--strict`: every sampled self-check on every post (JV's canary); see STRICT_READING.
    strict: bool = field(default_factory=STRICT_READING.get)


def reading_post(exc: Exception, post_id: str) -> None:
    """Name the post a parser was reading when it failed (`except Exception as exc:` in the
    engine's per-post loop, then re-raise): `Engine.read_page` puts it in the error."""
    if not isinstance(exc, TallyError):
        exc.add_note(f"post {post_id}")


class Engine(ABC):
    """A forum engine. Subclasses are stateless; one instance serves every site running it."""

    name: ClassVar[str]  # short id used in game files and `engine:URL` ("phpbb", "discuz", ...)
    label: ClassVar[str]  # human name for messages ("phpBB")
    default_zone: ClassVar[str] = "UTC"  # when the game file gives none (Discuz: Asia/Shanghai)
    default_per_page: ClassVar[int] = 20

    @abstractmethod
    def accepts(self, url: str) -> bool:
        """True when `url` looks like a thread URL of this engine (no network)."""

    @abstractmethod
    def thread_key(self, url: str) -> str:
        """A stable key for the thread behind any of its page URLs (e.g. "t=123")."""

    @abstractmethod
    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        """The URL of page `number` (1-based) of the thread `url` belongs to."""

    @abstractmethod
    def page_number(self, url: str, per_page: int | None = None) -> int:
        """Which page a thread URL points at (1 when it names none)."""

    @abstractmethod
    def looks_like(self, data: bytes) -> bool:
        """True when the bytes look like a page of this engine (for detection of saved pages)."""

    @abstractmethod
    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        """Read one thread page. Pure: same bytes and context give the same Page.

        Raises NotAThreadPage (login wall, challenge, error page, another engine's page) and
        TruncatedPage (the document ends before the closing markup of the post list).
        """

    def read_page(self, data: bytes, ctx: PageContext) -> Page:
        """`parse_page`, with a crash inside the parser reported as a one-line error naming the
        engine, the page and, when the parser noted it (`reading_post`), the post: exit 4."""
        try:
            return self.parse_page(data, ctx)
        except TallyError:
            raise
        except Exception as exc:  # noqa: BLE001 - any parser bug becomes the forum page's error
            where = "".join(f"{note}: " for note in getattr(exc, "__notes__", ()))
            raise ParserCrash(f"{self.label}: {ctx.url}: {where}the parser failed on this page "
                              f"({type(exc).__name__}: {exc}); please report it with the saved "
                              "page") from exc

    def topic_id(self, url: str) -> str | None:
        """The topic id a thread URL names, in the form `parse_page` gives `Page.thread_id`;
        None when the URL names no topic (a post link). Most engines' keys end with it
        ("t=412", "tid=88231", "host/t9", "42-51-74125893"); an engine whose key does not
        overrides this."""
        try:
            found = re.search(r"(\d+)$", self.thread_key(url))
        except (TallyError, ValueError):
            return None
        return found.group(1) if found else None

    def normalise_url(self, url: str) -> str:
        """Drop what changes between visits but not the page (session ids, fragments)."""
        return url.split("#", 1)[0]

    def not_a_thread(self, ctx: PageContext, what: str) -> NotAThreadPage:
        return NotAThreadPage(f"{self.label}: {ctx.url}: not a thread page ({what})")

    def not_a_thread_url(self, url: str, what: str) -> InputError:
        """A URL this engine cannot address pages of (`what`: the form it wants): bad input,
        exit 3, never the forum's failure (exit 4) nor a crash."""
        return InputError(f"{self.label}: {url}: not a {what}")
