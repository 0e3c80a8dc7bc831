"""From a thread URL (or a folder of saved pages) to a `Thread` (DESIGN.md "How data flows").

    fetch (tally.fetch) ─► store (tally.store) ─► engine.parse_page ─► assemble ─► Thread

Online, only the last known page and the pages after it are fetched again (DESIGN.md
"Snapshots"): earlier pages come from the store. Every stored version takes part in the
assembly, so an edit or a deletion seen between two fetches stays visible to the rules (C6, K4b).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path
from urllib.parse import urljoin

from tally import adapters, times
from tally.adapters.base import Engine, PageContext
from tally.errors import InputError, NotAThreadPage, TallyError, TruncatedPage
from tally.fetch import Fetcher, Response
from tally.model import Page, Post, Thread
from tally.store import Store, StoredPage

Progress = Callable[[int, int | None], None]

# A runaway guard: a forum that always offers a "next" link must not keep us polling forever.
MAX_PAGES = 5000
SAVED_PAGE_SUFFIXES = (".html", ".htm")


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
    reader = _Reader(engine, zone, language, per_page, floor_names)
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
    reader = _Reader(engine, zone, language, per_page, floor_names)
    key = engine.thread_key(url)
    if offline:
        if store.last_page(key) is None:
            raise InputError(f"no snapshot of {url} in {store.path}; run without --offline first")
        return reader.from_versions(store.versions(key), key, url, progress)
    fetched = _fetch_new_pages(url, key, reader, store, fetcher or Fetcher(), progress,
                               every_page)
    # One load of the stored versions serves the assembly and the snapshot's list of ids.
    return reader.from_versions(store.versions(key), key, url, None, parsed=fetched,
                                fetched=[version for version in fetched if version > 0])


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
    reader = _Reader(engine, zone, language, per_page, floor_names)
    parsed = {s.version_ids[0]: (s.page, s.first) for s in known}
    return reader.from_versions(versions, engine.thread_key(url), url, None, parsed=parsed)


def _fetch_new_pages(
    url: str,
    key: str,
    reader: _Reader,
    store: Store | None,
    fetcher: Fetcher,
    progress: Progress | None,
    every_page: bool = False,
) -> dict[int, tuple[Page, datetime]]:
    """Fetch the last known page (or page 1) and every page after it; keyed by version id.

    Each response is saved before the crawl goes on, with the page number the page itself
    states (a forum may clamp a page past the end to its last page).
    """
    known = store.last_page(key) if store and not every_page else None
    number = known or 1
    # Resume at the address the last page really had: with an unknown page size an engine's
    # page_url may guess offsets wrong, the stored URL is what the forum served.
    resume = store.last_url(key) if store and known else None
    resume = reader.engine.normalise_url(resume) if resume else None
    target: str | None = resume or reader.engine.page_url(url, number, reader.per_page)
    fetched: dict[int, tuple[Page, datetime]] = {}
    previous = 0
    while target is not None and len(fetched) < MAX_PAGES:
        response = fetcher.get(target)
        page = _parse_and_save(reader, response, key, number, store, fetched)
        if progress:
            progress(page.number, page.count)
        if page.number <= previous:  # clamped or looping: nothing further to read
            break
        previous = page.number
        target, number = _next_page(reader, url, page)
    return fetched


def _parse_and_save(
    reader: _Reader,
    response: Response,
    key: str,
    expected: int,
    store: Store | None,
    fetched: dict[int, tuple[Page, datetime]],
) -> Page:
    try:
        page = reader.parse(response.body, response.url, response.fetched_at)
    except BaseException:
        if store is not None:  # keep the evidence of what the forum sent, even unreadable
            store.save(response, key, expected)
        raise
    version = store.save(response, key, page.number) if store is not None else -len(fetched) - 1
    fetched[version] = (page, response.fetched_at)
    return page


def _next_page(reader: _Reader, url: str, page: Page) -> tuple[str | None, int]:
    """Where the thread goes on: the page's own "next" link wins (it knows the real offsets)."""
    if page.next_url:  # joined: a parser may hand back the href as written
        return urljoin(page.url, page.next_url), page.number + 1
    if page.count is not None and page.number < page.count:
        return reader.engine.page_url(url, page.number + 1, reader.per_page), page.number + 1
    return None, page.number


@dataclass(frozen=True)
class _Reader:
    """How pages of one thread are parsed: engine plus the board's zone, language, page size."""

    engine: Engine
    zone: str
    language: str | None
    per_page: int | None
    floor_names: tuple[str, ...] = ()

    def parse(self, data: bytes, url: str, fetched_at: datetime) -> Page:
        ctx = PageContext(url, fetched_at, self.zone, self.language, self.per_page,
                          self.floor_names)
        return self.engine.parse_page(data, ctx)

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
                notes.append(f"stored page {last.page} fetched {last.fetched_at:%Y-%m-%d %H:%M}"
                             f" UTC skipped: {exc}")
                continue
            pages.append((page, last.fetched_at))
            sightings.append(Sighting(page, first.fetched_at, last.fetched_at,
                                      tuple(version.id for version in run)))
            readable.add(last.page)
            if progress:
                progress(done, len(runs))
        for number, error in unreadable.items():
            if number not in readable:  # no version of this page can be read: no thread
                raise error
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


# ---------------------------------------------------------------------------------------------
# --from DIR: pages a user saved from a browser

_CANONICAL = re.compile(rb"<link\b[^>]*\brel\s*=\s*[\"']?canonical\b[^>]*>", re.IGNORECASE)
_HREF = re.compile(rb"\bhref\s*=\s*(?:\"([^\"]*)\"|'([^']*)'|([^\s>]+))", re.IGNORECASE)
# Internet Explorer, Edge and Chrome's "mark of the web": <!-- saved from url=(0047)https://… -->
_SAVED_FROM = re.compile(rb"<!--\s*saved from url=\((\d+)\)(\S+)", re.IGNORECASE)


def read_saved_pages(
    directory: Path,
    engine: Engine | None,
    *,
    zone: str,
    url: str | None = None,
    fetched_at: datetime | None = None,
    language: str | None = None,
    per_page: int | None = None,
    floor_names: tuple[str, ...] = (),
) -> Thread:
    """A thread from browser-saved pages, one file per page, in any order, duplicates allowed."""
    files = _saved_files(Path(directory))
    pages: list[tuple[Page, datetime]] = []
    for path in files:
        data = _read(path)
        engine = engine or _sniff(path, data)
        at = fetched_at or times.from_unix(path.stat().st_mtime)
        reader = _Reader(engine, zone, language, per_page, floor_names)
        try:
            page = reader.parse(data, saved_page_url(data) or str(path), at)
        except TallyError as exc:
            raise type(exc)(f"{path}: {exc}") from None
        pages.append((page, at))
    assert engine is not None  # there is at least one file, and each one sets or keeps it
    return assemble(pages, url or _thread_url(pages), engine.name)


def _saved_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise InputError(f"{directory}: not a folder of saved pages")
    # Browsers save "Page.html" plus a "Page_files/" folder of images and scripts: skip folders.
    files = sorted(
        path for path in directory.iterdir()
        if path.is_file() and path.suffix.lower() in SAVED_PAGE_SUFFIXES
    )
    if not files:
        raise InputError(f"{directory}: no saved pages (*.html, *.htm) in this folder")
    return files


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None


def _sniff(path: Path, data: bytes) -> Engine:
    found = adapters.sniff(data)
    if found is None:
        known = ", ".join(adapters.engines()) or "none installed"
        raise NotAThreadPage(f"{path}: not a thread page of a known forum engine ({known})")
    return found


def saved_page_url(data: bytes) -> str | None:
    """The address a saved page came from: <link rel="canonical">, else the browser's comment."""
    head = data[:65536]  # both live in the <head>, or right before it
    tag = _CANONICAL.search(head)
    if tag:
        href = _HREF.search(tag.group(0))
        if href:
            raw = next(group for group in href.groups() if group is not None)
            return html.unescape(raw.decode("utf-8", "replace")).strip() or None
    saved = _SAVED_FROM.search(head)
    if saved:
        length = int(saved.group(1))  # the number is the URL's length: cut exactly there
        return saved.group(2)[:length].decode("utf-8", "replace")
    return None


def engine_for(url: str, forced: str | None = None) -> tuple[Engine, str]:
    """The engine of a thread URL (`forced`, then an `engine:URL` prefix, then the URL itself)
    and the URL without the prefix."""
    prefix, plain = adapters.split_forced(url)
    return adapters.for_url(plain, forced or prefix), plain


def _thread_url(pages: list[tuple[Page, datetime]]) -> str:
    first = min(pages, key=lambda item: item[0].number)
    return first[0].url


# ---------------------------------------------------------------------------------------------
# Assembly: many pages, many fetches, one thread

SortKey = tuple[int, datetime, tuple[int, int | str]]


def _order(post: Post) -> SortKey:
    """Thread order: position, then time, then the numeric id (ids grow with time)."""
    id_key: tuple[int, int | str] = (0, int(post.id)) if post.id.isdigit() else (1, post.id)
    return (post.position, post.created_at, id_key)


def content_of(post: Post) -> Post:
    """What makes two versions of a post different: not where or when the page was read."""
    return replace(post, position=0, permalink="", fetched_at=None, page_url="", notes=())


@dataclass
class _Seen:
    """Every version of one post, oldest fetch first."""

    versions: list[Post]

    @property
    def latest(self) -> Post:
        return self.versions[-1]

    def history(self) -> tuple[Post, ...]:
        """Earlier texts, oldest first: the last sighting of each run of an unchanged text."""
        runs: list[Post] = []
        for version in self.versions:
            if runs and content_of(runs[-1]) == content_of(version):
                runs[-1] = version
            else:
                runs.append(version)
        return tuple(runs[:-1])


def assemble(pages: Iterable[tuple[Page, datetime]], url: str, engine_name: str) -> Thread:
    """One thread from page versions given in any order (see the module docstring).

    The newest fetch of a post wins; its older, different versions go to `history`; a post
    that a later fetch no longer shows where it must be is kept and listed in `vanished` (C6).
    """
    # Ties (one page saved twice with one time) are broken by URL, not by the order given.
    ordered = sorted(pages, key=lambda item: (item[1], item[0].number, item[0].url))
    seen: dict[str, _Seen] = {}
    for page, fetched_at in ordered:
        for post in page.posts:
            version = _as_fetched(post, page, fetched_at)
            if post.id in seen:
                seen[post.id].versions.append(version)
            else:
                seen[post.id] = _Seen([version])
    posts = sorted((item.latest for item in seen.values()), key=_order)
    history = {pid: item.history() for pid, item in seen.items() if len(item.versions) > 1}
    return Thread(
        url=url,
        engine=engine_name,
        posts=tuple(posts),
        fetched_at=ordered[-1][1] if ordered else None,
        history={pid: versions for pid, versions in history.items() if versions},
        vanished=_vanished(posts, ordered),
        notes=tuple(dict.fromkeys(note for page, _ in ordered for note in page.notes)),
    )


def _as_fetched(post: Post, page: Page, fetched_at: datetime) -> Post:
    if post.fetched_at == fetched_at and post.page_url:
        return post
    return replace(post, fetched_at=fetched_at, page_url=post.page_url or page.url)


def _vanished(posts: list[Post], ordered: list[tuple[Page, datetime]]) -> frozenset[str]:
    """Posts that a later fetch shows the thread without.

    A page is a contiguous run of the thread. If a page fetched after a post was last seen
    shows posts before it and after it but not the post itself, the post was gone at that
    fetch. The first page stands for "before everything", the last page for "after". A post
    that merely moved to an earlier page is seen there later, so no later fetch misses it
    (and a page that only shows what came after it proves nothing).
    """
    index = {post.id: i for i, post in enumerate(posts)}  # posts are in thread order
    gone: set[str] = set()
    for page, fetched_at in ordered:
        shown = {post.id for post in page.posts}
        places = [index[pid] for pid in shown]
        if not places:
            continue
        low = 0 if page.number == 1 else min(places) + 1
        high = len(posts) if is_last_page(page) else max(places)
        for post in posts[low:high]:
            seen_at = post.fetched_at  # the latest sighting: posts hold their newest version
            if post.id not in shown and seen_at is not None and seen_at < fetched_at:
                gone.add(post.id)
    return frozenset(gone)


def is_last_page(page: Page) -> bool:
    """The page says it is the last one (a page that does not say proves nothing)."""
    return page.next_url is None and page.count is not None and page.number >= page.count
