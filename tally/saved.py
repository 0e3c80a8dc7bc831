"""--from DIR: a thread from pages a user saved from a browser, one file per page."""

from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import urljoin

from tally import adapters, times
from tally.adapters.base import Engine
from tally.assemble import assemble
from tally.crawl import PageReader, of_topic
from tally.errors import InputError, NotAThreadPage, TallyError, WrongThread
from tally.model import Page, Thread, msg

SAVED_PAGE_SUFFIXES = (".html", ".htm")

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
    check_saved: bool = True,
    one_of: Sequence[str] = (),
    progress: Callable[[int, int | None], None] | None = None,
) -> Thread:
    """A thread from browser-saved pages, one file per page, in any order, duplicates allowed.
    `check_saved=False`: a post seemingly written after the save time is let through (`tally
    init`'s first reading, in a zone not yet known). `one_of`, with no `url`: the thread URLs
    the pages may be of (the game file's `threads`, for a --from-extra folder); the topic the
    pages state must be one of theirs, and that one is the thread's URL.
    `progress(done, total)`: told of each page read (a bar on a terminal; issue 17)."""
    files = _saved_files(Path(directory))
    if fetched_at is not None:
        _not_in_the_future(fetched_at)
    pages: list[tuple[Page, datetime]] = []
    where: dict[int, Path] = {}  # id(page) -> its file, for an error naming the file
    for path in files:
        data = _read(path)
        engine = engine or _sniff(path, data)
        at = fetched_at or times.from_unix(path.stat().st_mtime)
        reader = PageReader(engine, zone, language, per_page, floor_names,
                            engine.topic_id(url) if url else None)
        stated = saved_page_url(data)
        try:
            page = reader.parse(data, _base(stated, url, path), at)
            if stated is None and url is not None:
                # Post links are made from the page's address: page N's, learnt from the page
                # read once as the file (some engines tell the page by its address).
                page = reader.parse(data, _page_address(engine, url, page, per_page), at)
        except TallyError as exc:
            # A page with no address of its own was read under its path: name it once.
            raise type(exc)(f"{path}: {str(exc).replace(f' {path}: ', ' ', 1)}") from None
        if check_saved:
            _written_before(page, at, path, stated=fetched_at is not None)
            if fetched_at is None:
                page = _relative_dates_noted(reader, data, page, at, path)
        pages.append((page, at))
        where[id(page)] = path
        if progress:
            progress(len(pages), len(files))
    assert engine is not None  # there is at least one file, and each one sets or keeps it
    if url is None or engine.topic_id(url) is None:
        # No topic to hold them to (no game URL, or a post link such as phpBB's ?p=): the pages
        # must at least agree (issue 16).
        topic = _one_topic(pages, where)
        if one_of and url is None:
            url = _thread_of_topic(engine, topic, one_of, pages, where)
    return assemble(pages, url or _thread_url(pages), engine.name)


# A saved page cannot hold a post written after it was saved. The fetch time given is often
# typed to the minute, and a machine-readable post time has seconds: a minute's grace.
_FETCH_TIME_GRACE = timedelta(minutes=1)


def _base(stated: str | None, url: str | None, path: Path) -> str:
    """The address a saved page's links are read against. Its own (canonical link, the
    browser's comment), made absolute against the game's thread URL (a relative canonical
    link gave "[url=/t245-…#3102]" in the post, a link phpBB's [url] does not take); without
    one, the file's path, to learn the page's number; then `_page_address`: never the file's
    path, which ended up in the public post as "[url=pages/forum.php?…]" (qa)."""
    if stated is not None:
        return urljoin(url, stated) if url else stated
    return str(path)


def _page_address(engine: Engine, url: str, page: Page, per_page: int | None) -> str:
    """Page N's address, for a saved page that does not state it: the page size is the game
    file's, else what the page's first post's place says (post 6 on page 2: 5 a page)."""
    if page.number <= 1:
        return url
    size = per_page
    if size is None and page.posts and page.posts[0].position > 1:
        quotient, rest = divmod(page.posts[0].position - 1, page.number - 1)
        size = quotient if not rest and quotient else None
    return engine.page_url(url, page.number, size)


def _written_before(page: Page, at: datetime, path: Path, stated: bool) -> None:
    """Issue 16: a fetch time earlier than a post on the page (a typo in --fetched-at, a file
    time changed by a copy) would count that post as not yet written: refuse, naming it."""
    late = next((post for post in page.posts if post.created_at > at + _FETCH_TIME_GRACE), None)
    if late is None:
        return
    given = "--fetched-at" if stated else "the file's modification time (give --fetched-at)"
    written = f"{late.created_at:%Y-%m-%d %H:%M}"
    raise InputError(f"{path}: post {late.id} ({late.time_text}, {written} UTC) was written "
                     f"after the page was saved, at {at:%Y-%m-%d %H:%M} UTC by {given}: the "
                     "save time is wrong")


def _relative_dates_noted(reader: PageReader, data: bytes, page: Page, at: datetime,
                          path: Path) -> Page:
    """A page whose dates are relative to when it was saved ("Hoy a las 21:41", "Вчера, 21:58",
    "3 天前") is read against the file's modification time, what a browser's save leaves
    (DESIGN.md "Time"); a copy made later (cp, git, a download) moves every such post and can
    turn votes late. The same page read as saved a day later shows which dates hang on the save
    time; with any, the GM report says so, naming the post and the time taken, so that the GM
    can state it (--fetched-at)."""
    later = reader.parse(data, page.url, at + timedelta(days=1))
    moved = next((old for old, new in zip(page.posts, later.posts)
                  if old.created_at != new.created_at), None)
    if moved is None:
        return page
    note = msg("{file}: post {post} is dated relative to when the page was saved ({shown}); "
               "that time is taken from the file's modification time, {at} UTC: if the file "
               "was copied since, give --fetched-at with the time the page was saved",
               file=path.name, post=moved.id, shown=moved.time_text,
               at=at.strftime("%Y-%m-%d %H:%M"))
    return replace(page, notes=(*page.notes, note))


def _not_in_the_future(fetched_at: datetime) -> None:
    """A page cannot have been saved after now: "--fetched-at 2061-01-18" for 2016 would count
    the thread as of 2061, "as of" a time nobody has seen (issue 16's --as-of, by a typo)."""
    current = times.now()
    if fetched_at > current + _FETCH_TIME_GRACE:
        raise InputError(f"--fetched-at {fetched_at:%Y-%m-%d %H:%M} UTC is in the future (now "
                         f"{current:%Y-%m-%d %H:%M} UTC): the save time is wrong")


def _one_topic(pages: list[tuple[Page, datetime]], where: dict[int, Path]) -> str | None:
    """Pages of one topic: the topic most pages state is the thread, any other page is stray.
    The topic, or None when no page states one."""
    stated = Counter(page.thread_id for page, _ in pages if page.thread_id is not None)
    if not stated:
        return None
    topic = stated.most_common(1)[0][0]
    for page, _ in pages:
        try:
            of_topic(page, topic)
        except WrongThread as exc:
            raise WrongThread(f"{where[id(page)]}: {exc}") from None
    return topic


def _thread_of_topic(engine: Engine, topic: str | None, urls: Sequence[str],
                     pages: list[tuple[Page, datetime]], where: dict[int, Path]) -> str | None:
    """The URL among `urls` whose topic the pages state (issue 16: a folder of another topic
    given with --from-extra would add its posts to the activity count, R10). Pages that state
    no topic are taken as they are."""
    if topic is None:
        return None
    wanted = {engine.topic_id(url): url for url in urls}
    if topic in wanted:
        return wanted[topic]
    page = min((page for page, _ in pages if page.thread_id == topic), key=lambda p: p.number)
    named = " or ".join(sorted({str(t) for t in wanted if t is not None})) or "?"
    raise WrongThread(f"{where[id(page)]}: page {page.number} is from topic {topic}, not "
                      f"{named} (the game file's threads)")


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



def _thread_url(pages: list[tuple[Page, datetime]]) -> str:
    first = min(pages, key=lambda item: item[0].number)
    return first[0].url
