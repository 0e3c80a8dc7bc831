"""From a thread URL to a `Thread` (DESIGN.md "How data flows").

    fetch (tally.fetch) ─► store (tally.store) ─► engine.parse_page ─► assemble ─► Thread

Online, only the last known page and the pages after it are fetched again (DESIGN.md
"Snapshots"): earlier pages come from the store. Every stored version takes part in the
assembly, so an edit or a deletion seen between two fetches stays visible to the rules (C6, K4b).

Crawl order (issue 3: deleted or hidden posts shift page windows; no post lost or counted
twice). A deletion moves posts from a higher page onto a lower one, never up, so pages read
strictly highest first lose nothing: each lower page is read after it. Hence:

- First crawl (nothing stored): page 1 (it says how many pages, N), then N, N-1, ..., 2, and
  page 1 again: N+1 requests. A read of a page with the same bytes as its earlier read in the
  same crawl is not stored again (the first read stands for both).
- Re-run (page R stored last): page R+1 first. A forum that clamps a page past the end shows
  page R, and that is the fresh read of R: one request when nothing is new. One that answers
  404 or "no such topic" (not stored: not the thread's evidence): page R then, two requests.
  R+1 the last page: then R, two requests (DESIGN.md: at most two). More pages: N down to R+2,
  R+1 again, then R.
- `every_page` (tally snapshot): page R, then R-1 down to 1.
- Addresses: the forum's own (a read that said it was page k, a "next" link), else the engine's
  page_url when it cannot misalign a window: page-number addressing, or a page size the forum's
  own addresses confirm (page 1's "next" link, else the stored addresses), else the game file's.
  Without one, no page can be jumped to: the crawl climbs by "next" links and then reads every
  page below the last again, highest first (2N-1 requests on a first crawl; engines whose pages
  do not state their count, Page.count None, always crawl so). A computed address that serves
  another page (the board changed its page size) restarts the crawl as a first crawl.
- Re-run, thread changed below the tail: posts added or taken away below the stored last page
  since it was stored (a post approved from the moderation queue, a hidden post shown again, a
  deletion) shift every later post. The lowest page this run read then starts with another
  post than its stored copy did: the page below it is read again, and so on down to the first
  page that starts with the same post as its stored copy (page 1 at most). Nothing moved: no
  request more. So a vote approved late is counted by the next run, and a deleted post is
  seen gone (forensics) instead of left unread.
- Not covered: a post inserted mid-thread during a crawl, after the page above it was read,
  pushes a post up onto that page; the next run, starting from there, reads it. Additions and
  removals below the tail that cancel out (one approved, one deleted) leave the tail in step
  and are seen by `tally snapshot`, which reads every page.
"""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from urllib.parse import parse_qsl, urljoin, urlsplit

from tally import adapters
from tally.adapters.base import Engine, PageContext
from tally.assemble import assemble
from tally.errors import (
    ForumError,
    InputError,
    NotAThreadPage,
    TallyError,
    TruncatedPage,
    WrongThread,
)
from tally.fetch import Fetcher, Response
from tally.model import Page, Thread, msg
from tally.store import Store, StoredPage

Progress = Callable[[int, int | None], None]

# A runaway guard: a forum that always offers a "next" link must not keep us polling forever.
MAX_PAGES = 5000


# ---------------------------------------------------------------------------------------------
# Online (and --offline): the snapshot store in front of the forum


def read_thread(
    url: str,
    engine: Engine,
    *,
    zone: str,
    store: Store | None,
    fetcher: Fetcher | None,
    offline: bool = False,
    language: str | None = None,
    per_page: int | None = None,
    floor_names: tuple[str, ...] = (),
    progress: Progress | None = None,
) -> Thread:
    """The thread behind `url`, fetching as little as the store allows."""
    if store is not None:
        return read_stored_thread(url, engine, zone=zone, store=store, fetcher=fetcher,
                                  offline=offline, language=language, per_page=per_page,
                                  floor_names=floor_names, progress=progress).thread
    if offline:
        raise InputError(f"no snapshot of {url} in the snapshot store; run without --offline first")
    reader = PageReader(engine, zone, language, per_page, floor_names, engine.topic_id(url))
    fetched = _fetch_new_pages(url, engine.thread_key(url), reader, None, fetcher or Fetcher(),
                               progress)
    return assemble(fetched.values(), url, engine.name)


def read_stored_thread(
    url: str,
    engine: Engine,
    *,
    zone: str,
    store: Store,
    fetcher: Fetcher | None,
    offline: bool = False,
    language: str | None = None,
    per_page: int | None = None,
    floor_names: tuple[str, ...] = (),
    progress: Progress | None = None,
    every_page: bool = False,
) -> StoredThread:
    """`read_thread` through the store, keeping what the thread was built from: the versions
    read (a count's snapshot names them) and each page's runs of identical bytes (forensics).

    `every_page` fetches the whole thread again from page 1 (`tally snapshot`: evidence of
    every page as it stands now, so that edits on early pages show up); a count fetches only
    the last known page and what follows.
    """
    reader = PageReader(engine, zone, language, per_page, floor_names, engine.topic_id(url))
    key = engine.thread_key(url)
    if offline:
        if store.last_page(key) is None:
            raise InputError(f"no snapshot of {url} in {store.path}; run without --offline first")
        read = reader.from_versions(store.versions(key), key, url, progress)
        low = store.unfinished_low(key)
        if low is None:
            return read
        return replace(read, thread=_known_whole(read, low))
    fetched = _fetch_new_pages(url, key, reader, store, fetcher or Fetcher(), progress,
                               every_page)
    # One load of the stored versions serves the assembly and the snapshot's list of ids.
    return reader.from_versions(store.versions(key), key, url, None, parsed=fetched,
                                fetched=[version for version in fetched if version > 0])


def _known_whole(read: StoredThread, low: int) -> Thread:
    """The thread as of when it was last read whole, after a crawl that stopped before reading
    pages `low` and up again (issue 16). A page left as the previous run read it, the last page
    then, lacks every post written on it since, while the pages above it, read by the stopped
    crawl, show later posts: counted as of the newest fetch, the votes on the stale page were
    lost from a count that said "(final)". The thread is whole as of the oldest of the newest
    fetches of those pages; the count is as of then (engine.cut stops at Thread.fetched_at)."""
    newest: dict[int, datetime] = {}
    for version in read.versions:  # oldest fetch first
        if version.page >= low:
            newest[version.page] = version.fetched_at
    thread = read.thread
    whole = min(newest.values(), default=thread.fetched_at)
    if whole is None or thread.fetched_at is None:
        return thread
    note = msg("the last crawl of this thread did not finish: the thread was last read whole at "
               "{read} UTC; counted as of then; run without --offline to finish it",
               read=whole.strftime("%Y-%m-%d %H:%M:%S"))
    return replace(thread, fetched_at=min(whole, thread.fetched_at), notes=thread.notes + (note,))


def thread_from_versions(
    versions: Sequence[StoredPage],
    url: str,
    engine: Engine,
    *,
    zone: str,
    language: str | None = None,
    per_page: int | None = None,
    floor_names: tuple[str, ...] = (),
    known: Iterable[Sighting] = (),
) -> StoredThread:
    """The thread exactly as these stored versions show it (a snapshot's pages), no network.

    `known`: sightings already parsed (of the same thread, read the same way); a run of
    versions that starts with the same version is not parsed again.
    """
    reader = PageReader(engine, zone, language, per_page, floor_names, engine.topic_id(url))
    parsed = {s.version_ids[0]: (s.page, s.first) for s in known}
    return reader.from_versions(versions, engine.thread_key(url), url, None, parsed=parsed)


def _fetch_new_pages(
    url: str,
    key: str,
    reader: PageReader,
    store: Store | None,
    fetcher: Fetcher,
    progress: Progress | None,
    every_page: bool = False,
) -> dict[int, tuple[Page, datetime]]:
    """Read what is new in the thread (all of it with `every_page` or nothing stored), in the
    crawl order of the module docstring; keyed by version id.

    Each response is saved before the crawl goes on, with the page number the page itself
    states (a forum may clamp a page past the end to its last page).
    """
    crawl = _Crawl(reader, key, store, fetcher, progress)
    tail = _stored_tail(reader.engine, key, store) if store is not None else None
    # A crawl killed or failed midway left pages it meant to read unread (issue 16): this one
    # reads down to where that one meant to go.
    unfinished = store.unfinished_low(key) if store is not None and tail is not None else None
    where = _Addresses.start(reader, url, tail, store, key)
    try:
        if tail is None or (every_page and not where.computable):
            low = 1  # the first crawl: page 1 says how many pages there are
            crawl.begin(low)
            first = crawl.read(where, 1)
        elif every_page:  # tally snapshot: the last known page, then every page below it
            low = 1
            crawl.begin(low)
            first = crawl.read(where, tail.number)
        else:
            low = min(tail.number, unfinished or tail.number)
            crawl.begin(low)
            if not crawl.addressable(where, low, tail.number):
                raise _Misaddressed  # a page below never read, no address for it: from page 1
            first = crawl.probe(where, tail)
        crawl.descend(crawl.climb(first, where, low), low, where)
        if tail is not None and not every_page:  # a re-run: only the tail was read again
            crawl.realign(where)
        crawl.finish()
        return crawl.fetched
    except _Misaddressed:
        pass
    # A page the engine's page_url addressed said it was another page: the page size the
    # addresses were computed with is wrong (the board changed it?). Read the thread as a first
    # crawl does (page 1's "next" link tells the size); should even that misaddress, on the
    # forum's own links only. What was read so far stays stored.
    crawl.extend(1)
    where = _Addresses.start(reader, url, None, None, key)
    for trusting in (True, False):
        where.trusting = trusting
        try:
            first = crawl.read(where, 1)
            crawl.descend(crawl.climb(first, where, 1), 1, where)
            crawl.finish()
            break
        except _Misaddressed:
            continue
    return crawl.fetched


class _Misaddressed(Exception):
    """A computed address served another page than the one asked for (see _fetch_new_pages)."""


@dataclass(frozen=True)
class _Tail:
    """The highest page the store holds and the address it was last fetched from."""

    number: int
    url: str


def _stored_tail(engine: Engine, key: str, store: Store) -> _Tail | None:
    number = store.last_page(key)
    last = store.last_url(key)
    if number is None or last is None:
        return None
    return _Tail(number, engine.normalise_url(last))


@dataclass
class _Addresses:
    """Where page N of the thread is: an address the forum served for it (a read that said it
    was page N, a "next" link), else the engine's page_url when that cannot misalign a window:
    the engine addresses pages by number (`free`), or the page size is known (`per_page`: from
    the forum's own links, else the game file's). Anything else is a guess (`guess`)."""

    engine: Engine
    base: str  # a thread URL the engine's page_url rewrites
    free: bool
    per_page: int | None
    guess: int | None  # the game file's page size, or None: the engine's default
    pinned: dict[int, str]
    trusting: bool = True  # False once a computed address proved wrong

    @classmethod
    def start(cls, reader: PageReader, url: str, tail: _Tail | None, store: Store | None,
              key: str) -> _Addresses:
        engine = reader.engine
        base = tail.url if tail else url  # the forum's own form of the thread's addresses
        free = _same_address(engine, engine.page_url(base, 3, 10), engine.page_url(base, 3, 11))
        size = None
        if not free and tail is not None and tail.number > 1 and store is not None:
            size = _stored_page_size(engine, store.versions(key))
        size = size or (None if free else reader.per_page)
        where = cls(engine, base, free, size, reader.per_page, {})
        if tail is not None and not where.computable:
            # The stored address of the last page is all there is (it may be the address of
            # the page after it, clamped by the forum: then the read says so, see _consistent).
            where.pinned[tail.number] = tail.url
        return where

    @property
    def computable(self) -> bool:
        return self.trusting and (self.free or self.per_page is not None)

    def of(self, number: int) -> tuple[str, bool]:
        """The address of page `number` and whether it was computed (not served by the forum)."""
        if number in self.pinned:
            return self.pinned[number], False
        size = self.per_page if self.computable else self.guess
        return self.engine.page_url(self.base, number, size), True

    def learn(self, asked: int, page: Page) -> None:
        """Keep the addresses a read proved: its own, when it is the page asked for, and its
        "next" link (the forum knows its real offsets; a parser may hand back the href as
        written, so it is joined), which also tells the page size."""
        if page.number == asked:
            self.pinned[asked] = self.engine.normalise_url(page.url)
        if not page.next_url:
            return
        following = self.engine.normalise_url(urljoin(page.url, page.next_url))
        self.pinned[page.number + 1] = following
        if self.trusting and not self.free:
            size = _page_size(self.engine, page.number + 1, following)
            if size is not None:
                self.per_page, self.base = size, following


def _stored_page_size(engine: Engine, versions: Sequence[StoredPage]) -> int | None:
    """The page size the stored addresses show. A page read through the address of a later
    page (clamped past the end) gives a larger size than the real one; a read never gives a
    smaller one, so the smallest size some address confirms is the board's."""
    sizes = {_page_size(engine, number, address)
             for number, address in {(v.page, v.url) for v in versions}}
    return min((size for size in sizes if size is not None), default=None)


def _page_size(engine: Engine, number: int, address: str) -> int | None:
    """The page size that makes `address` the engine's address of page `number`, if any.

    With a page size of 1 an offset-addressed engine reads the offset as the page number
    minus one; page-number addressing gives 1, which is harmless (it ignores the size).
    """
    if number < 2:
        return None
    offset = engine.page_number(address, 1) - 1
    if offset <= 0 or offset % (number - 1):
        return None
    size = offset // (number - 1)
    return size if _same_address(engine, engine.page_url(address, number, size), address) else None


def _same_address(engine: Engine, one: str, other: str) -> bool:
    """Same host, path and query parameters (in any order); scheme and fragment aside."""
    def parts(url: str) -> tuple[str, str, list[tuple[str, str]]]:
        split = urlsplit(engine.normalise_url(url))
        return split.netloc.lower(), split.path, sorted(parse_qsl(split.query, True))
    return parts(one) == parts(other)


def _has_more(page: Page) -> bool:
    return page.next_url is not None or (page.count is not None and page.number < page.count)


def _consistent(asked: int, page: Page) -> bool:
    """The page asked for, or the last page of a thread shorter than that (clamped)."""
    return page.number == asked or (page.number < asked and not _has_more(page))


@dataclass
class _Crawl:
    """One crawl's reads: each response parsed and saved before the next request."""

    reader: PageReader
    key: str
    store: Store | None
    fetcher: Fetcher
    progress: Progress | None
    fetched: dict[int, tuple[Page, datetime]] = field(default_factory=dict)
    kept: set[tuple[int, str]] = field(default_factory=set)  # (page, sha256) saved by this crawl
    reads: int = 0
    record: int | None = None  # the store's row for this crawl (tally.store "crawls")

    def begin(self, low: int) -> None:
        """Record, before any fetch, that this crawl means to read down to page `low`."""
        if self.store is not None:
            self.record = self.store.begin_crawl(self.key, low)

    def extend(self, low: int) -> None:
        if self.store is not None and self.record is not None:
            self.store.extend_crawl(self.record, low)

    def finish(self) -> None:
        if self.store is not None and self.record is not None:
            self.store.finish_crawl(self.record)

    def addressable(self, where: _Addresses, low: int, top: int) -> bool:
        """Whether pages `low` to `top - 1` can be addressed: computed, or as last fetched."""
        if where.computable:
            return True
        for number in range(low, top):
            if number not in where.pinned:
                address = self._stored_address(number)
                if address is None:
                    return False
                where.pinned[number] = address
        return True

    def read(self, where: _Addresses, number: int) -> Page:
        target, computed = where.of(number)
        page = self._take(self.fetcher.get(target), number)
        if computed and where.trusting and not _consistent(number, page):
            raise _Misaddressed
        where.learn(number, page)
        return page

    def probe(self, where: _Addresses, tail: _Tail) -> Page:
        """Read the page after the stored last one, which says how far the thread goes now;
        when that cannot be addressed safely or the forum refuses it, the stored last page."""
        if not where.computable:
            return self.read(where, tail.number)
        target, _ = where.of(tail.number + 1)
        # Asked once: a forum that answers an error past the end (404, even 500) is not waited
        # for, and any failure that matters shows again on page R.
        once = copy.copy(self.fetcher)  # the same session and per-host politeness
        once.tries = 1
        try:
            response = once.get(target)
        except ForumError:
            return self.read(where, tail.number)
        try:
            # A page that cannot be read is filed under R: R exists, R+1 may not (a page
            # with no readable version would make the stored thread unreadable).
            page = self._take(response, tail.number, keep_refusal=False)
        except NotAThreadPage:  # "no such page": not the thread's evidence, not stored
            return self.read(where, tail.number)
        if not _consistent(tail.number + 1, page):
            raise _Misaddressed
        where.learn(tail.number + 1, page)
        return page

    def climb(self, first: Page, where: _Addresses, low: int) -> int:
        """From `first` to the thread's last page: straight to it when the page count is known
        and the address computable, else link by link. Returns the last page's number."""
        page, top = first, first.number
        for _ in range(MAX_PAGES):
            more = _has_more(page)
            jump = more and page.count is not None and where.computable
            self._report(_reads_left(page, jump, low) if more else max(top - low, 0))
            if not more:
                break
            number = min(page.count or 0, MAX_PAGES) if jump else page.number + 1
            page = self.read(where, number)
            if page.number <= top:  # clamped or looping: nothing further to read
                self._report(max(top - low, 0))
                break
            top = page.number
        return top

    def descend(self, top: int, low: int, where: _Addresses) -> None:
        """Read every page below `top` down to `low`, highest first (the module docstring)."""
        number = top - 1
        while number >= max(low, top - MAX_PAGES):
            page = self.read(where, number)
            number = min(number, page.number) - 1  # a shorter thread: on from its last page
            self._report(max(number - low + 1, 0))

    def realign(self, where: _Addresses) -> None:
        """A re-run read the thread from its stored last page up. If that page no longer starts
        with the post its copy stored before this crawl started with, posts were added or taken
        away below it since (a post approved from the moderation queue, a hidden one shown
        again, a deleted one): read the page below as well, and so on down to the first page
        that starts where it did (module docstring)."""
        fresh = {page.number: page for page, _ in self.fetched.values()}
        number = min(fresh, default=1)
        while number > 1:
            stored = self._stored_copy(number)
            if stored is None or _first_id(stored) == _first_id(fresh[number]):
                return
            below = number - 1
            self.extend(below)  # recorded before the fetch: a kill here leaves it to the next run
            if not where.computable and below not in where.pinned:
                address = self._stored_address(below)
                if address is None:
                    return  # never read: no address the forum gave for it
                where.pinned[below] = address
            page = self.read(where, below)
            self._report(None)
            if page.number != below:
                return  # the forum served another page: nothing sure to go on from
            fresh[below] = page
            number = below

    def _stored_copy(self, number: int) -> Page | None:
        """The newest readable version of page `number` stored before this crawl, parsed."""
        for version in self._stored_before(number):
            try:
                return self.reader.parse(version.body, version.url, version.fetched_at)
            except (NotAThreadPage, TruncatedPage):
                continue  # a refusal or a cut download kept as evidence: an older copy may do
        return None

    def _stored_address(self, number: int) -> str | None:
        """Where page `number` was last fetched from before this crawl (None: never)."""
        for version in self._stored_before(number):
            return self.reader.engine.normalise_url(version.url)
        return None

    def _stored_before(self, number: int) -> list[StoredPage]:
        """The versions of page `number` stored before this crawl, newest first."""
        if self.store is None:
            return []
        return [v for v in self.store.page_versions(self.key, number) if v.id not in self.fetched]

    def _take(self, response: Response, expected: int, keep_refusal: bool = True) -> Page:
        self.reads += 1
        try:
            page = self.reader.parse(response.body, response.url, response.fetched_at)
        except NotAThreadPage:
            if keep_refusal:
                self._keep_unreadable(response, expected)
            raise
        except BaseException:
            self._keep_unreadable(response, expected)
            raise
        # A page read again in this crawl with the same bytes adds nothing to the evidence: the
        # first read stands for both (a first crawl reads page 1 twice).
        seen = (page.number, hashlib.sha256(response.body).hexdigest())
        if seen not in self.kept:
            self.kept.add(seen)
            version = (self.store.save(response, self.key, page.number)
                       if self.store is not None else -len(self.fetched) - 1)
            self.fetched[version] = (page, response.fetched_at)
        return page

    def _keep_unreadable(self, response: Response, expected: int) -> None:
        if self.store is not None:  # keep the evidence of what the forum sent, even unreadable
            self.store.save(response, self.key, expected)

    def _report(self, left: int | None) -> None:
        if self.progress:
            self.progress(self.reads, None if left is None else self.reads + left)


def _first_id(page: Page) -> str | None:
    return page.posts[0].id if page.posts else None


def _reads_left(page: Page, jump: bool, low: int) -> int | None:
    """Reads still to come after `page` while climbing, when the page count is known."""
    if page.count is None:
        return None
    return (1 if jump else page.count - page.number) + page.count - low


@dataclass(frozen=True)
class PageReader:
    """How pages of one thread are parsed: engine plus the board's zone, language, page size."""

    engine: Engine
    zone: str
    language: str | None
    per_page: int | None
    floor_names: tuple[str, ...] = ()
    topic: str | None = None  # the topic id the game's URL names: every page must be of it

    def parse(self, data: bytes, url: str, fetched_at: datetime) -> Page:
        ctx = PageContext(url, fetched_at, self.zone, self.language, self.per_page,
                          self.floor_names)
        return of_topic(self.engine.read_page(data, ctx), self.topic)

    def from_versions(
        self,
        stored: Sequence[StoredPage],
        key: str,
        url: str,
        progress: Progress | None,
        parsed: dict[int, tuple[Page, datetime]] | None = None,
        fetched: Iterable[int] = (),
    ) -> StoredThread:
        """Assemble these stored versions; `parsed` holds versions already parsed (by id),
        `fetched` names those this run fetched."""
        if not stored:
            raise InputError(f"no stored page versions of {url}")
        verify_digests(stored, url)
        pages: list[tuple[Page, datetime]] = []
        sightings: list[Sighting] = []
        notes: list[str] = []
        unreadable: dict[int, TallyError] = {}  # stored page number -> why a version failed
        readable: set[int] = set()
        runs = _runs_of_same_bytes(stored)
        for done, run in enumerate(runs, start=1):
            first, last = run[0], run[-1]
            try:
                page = self._parse_stored(first, parsed or {})
            except (NotAThreadPage, TruncatedPage) as exc:
                # A bad fetch (login wall, cut download) is kept as evidence; the other
                # versions of the page still count, and the audit is told.
                unreadable.setdefault(last.page, exc)
                notes.append(msg("stored page {page} fetched {fetched} UTC skipped: {why}",
                                 page=last.page, fetched=last.fetched_at.strftime("%Y-%m-%d %H:%M"),
                                 why=str(exc)))
                continue
            if first.fetched_at != last.fetched_at:  # when these bytes were first seen (C6)
                pages.append((page, first.fetched_at))
            pages.append((page, last.fetched_at))
            sightings.append(Sighting(page, first.fetched_at, last.fetched_at,
                                      tuple(version.id for version in run)))
            readable.add(last.page)
            if progress:
                progress(done, len(runs))
        for number, error in unreadable.items():
            if number not in readable:  # no version of this page can be read: no thread
                raise error
        if self.topic is None:  # a URL naming no topic (phpBB's ?p=): the first read pins it
            first_stated(pages)
        thread = assemble(pages, url, self.engine.name)
        newest_fetch = max(version.fetched_at for version in stored)
        thread = replace(thread, fetched_at=newest_fetch, notes=thread.notes + tuple(notes))
        ordered = sorted(stored, key=lambda version: (version.fetched_at, version.id))
        return StoredThread(
            thread=thread, key=key, url=url,
            versions=tuple(VersionRef(v.id, v.page, v.sha256, v.fetched_at) for v in ordered),
            sightings=tuple(sightings),
            fetched=tuple(sorted(version for version in fetched)))

    def _parse_stored(self, first: StoredPage, parsed: dict[int, tuple[Page, datetime]]) -> Page:
        # Identical bytes parse alike; the first fetch of them anchors relative dates ("Today").
        if first.id in parsed:
            return parsed[first.id][0]
        return self.parse(first.body, first.url, first.fetched_at)


def verify_digests(stored: Sequence[StoredPage], url: str) -> None:
    """Every stored version's bytes against the SHA-256 recorded when it was fetched (issue 17):
    evidence changed since is never counted. Identical bytes are one blob: hashed once."""
    good: set[str] = set()
    for version in stored:
        if version.sha256 in good:
            continue
        if hashlib.sha256(version.body).hexdigest() != version.sha256:
            raise InputError(f"stored page {version.page} of {url} (version {version.id}, "
                             f"fetched {version.fetched_at:%Y-%m-%d %H:%M:%S} UTC) no longer "
                             "matches its recorded SHA-256: the snapshot store was altered")
        good.add(version.sha256)


def of_topic(page: Page, topic: str | None) -> Page:
    """The page, when it is of the topic expected (issue 16: a board answering the game's URL
    with another topic, a stray saved page). A page that does not say its topic, or a game URL
    that names none (a post link), is taken as it is."""
    if topic is not None and page.thread_id is not None and page.thread_id != topic:
        raise WrongThread(f"page {page.number} is from topic {page.thread_id}, not {topic} "
                          f"({page.url})")
    return page


def first_stated(pages: Iterable[tuple[Page, datetime]]) -> str | None:
    """The topic the earliest fetched page states, every other page held to it (issue 16): a
    thread URL that names no topic (a post link, phpBB's ?p=) is still one thread. None when no
    page states a topic."""
    stated = sorted(((at, page) for page, at in pages if page.thread_id is not None),
                    key=lambda item: (item[0], item[1].number))
    if not stated:
        return None
    topic = stated[0][1].thread_id
    for _, page in stated:
        of_topic(page, topic)
    return topic


@dataclass(frozen=True, slots=True)
class Sighting:
    """One run of fetches of a stored page that returned identical bytes, parsed once.

    The forum served these bytes from `first` to `last` (UTC): forensics compares a post across
    sightings to see when it changed, vanished or appeared (issue 6, C6).
    """

    page: Page
    first: datetime
    last: datetime
    version_ids: tuple[int, ...]  # the store's versions of the run, oldest first


@dataclass(frozen=True, slots=True)
class VersionRef:
    """A stored version without its bytes: enough to name and hash a snapshot's page set."""

    id: int
    page: int
    sha256: str
    fetched_at: datetime


@dataclass(frozen=True)
class StoredThread:
    """A thread assembled from stored versions, with what it was assembled from."""

    thread: Thread
    key: str  # the engine's thread key in the store
    url: str
    versions: tuple[VersionRef, ...]  # every version read, oldest fetch first
    sightings: tuple[Sighting, ...]
    fetched: tuple[int, ...] = ()  # the versions this run's fetches added to the store

    @property
    def version_ids(self) -> tuple[int, ...]:
        return tuple(version.id for version in self.versions)


def _runs_of_same_bytes(stored: Sequence[StoredPage]) -> list[list[StoredPage]]:
    """Consecutive fetches of a page with identical bytes, each run oldest first.

    A scheduled run re-fetches the last page every few minutes; mostly nothing changed, and
    parsing the same bytes again would only cost time.
    """
    runs: dict[int, list[list[StoredPage]]] = {}
    for version in sorted(stored, key=lambda v: (v.fetched_at, v.id)):  # oldest first
        page_runs = runs.setdefault(version.page, [])
        if page_runs and page_runs[-1][-1].sha256 == version.sha256:
            page_runs[-1].append(version)
        else:
            page_runs.append([version])
    flat = [run for page_runs in runs.values() for run in page_runs]
    return sorted(flat, key=lambda run: (run[-1].fetched_at, run[-1].id))

def engine_for(url: str, forced: str | None = None) -> tuple[Engine, str]:
    """The engine of a thread URL (`forced`, then an `engine:URL` prefix, then the URL itself)
    and the URL without the prefix."""
    prefix, plain = adapters.split_forced(url)
    return adapters.for_url(plain, forced or prefix), plain
