"""Assembly: many pages, many fetches, one thread (DESIGN.md "Snapshots").

Pages come in any order, from any number of fetches; the newest sighting of a post wins, its
earlier different texts go to `history` (C6, K4b), and a post a later fetch no longer shows
where it must be is kept and listed in `vanished`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import datetime, timedelta

from tally.model import MissingPage, Page, Post, Thread

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
        """Earlier sightings, oldest first, once the text has changed: the first and the last
        sighting of each run of an unchanged text, and the first of the current run.

        Both ends matter to C6: a silent edit made between two fetches before the deadline is
        shown by the first sighting of the new text, an edit after it by the last sighting of
        the old one. A post whose text never changed has no history.
        """
        runs: list[list[Post]] = []
        for version in self.versions:
            if runs and content_of(runs[-1][-1]) == content_of(version):
                runs[-1].append(version)
            else:
                runs.append([version])
        if len(runs) == 1:
            return ()
        earlier = [seen for run in runs[:-1] for seen in dict.fromkeys((run[0], run[-1]))]
        current = runs[-1]
        return tuple(earlier + current[:1]) if len(current) > 1 else tuple(earlier)


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
        missing=missing_pages(ordered),
        title=next((page.title for page, _ in sorted(ordered, key=lambda item: item[0].number)
                    if page.title), None),
        utc_offsets=_offsets(ordered),
    )


def _offsets(ordered: list[tuple[Page, datetime]]) -> tuple[tuple[timedelta, datetime], ...]:
    """Each offset the pages state, with the newest fetch that stated it."""
    newest: dict[timedelta, datetime] = {}
    for page, fetched_at in ordered:  # oldest fetch first: the last one seen stays
        if page.utc_offset is not None:
            newest[page.utc_offset] = fetched_at
    return tuple(sorted(newest.items(), key=lambda item: item[1]))


def missing_pages(ordered: list[tuple[Page, datetime]]) -> tuple[MissingPage, ...]:
    """The page numbers between 1 and the thread's last page that no page read shows.

    The thread's length is what the most recently fetched pages say (a thread can shrink: an
    older fetch's page count is not held against it), or the highest page read.
    """
    if not ordered:
        return ()
    newest = ordered[-1][1]
    stated = [page.count for page, at in ordered if at == newest and page.count]
    numbers = {page.number for page, _ in ordered}
    of = max(max(numbers), max(stated, default=0))
    missing = [number for number in range(1, of + 1) if number not in numbers]
    if not missing:
        return ()
    times_on: dict[int, list[datetime]] = {}
    places_on: dict[int, list[int]] = {}
    for page, _ in ordered:
        times_on.setdefault(page.number, []).extend(post.created_at for post in page.posts)
        places_on.setdefault(page.number, []).extend(post.position for post in page.posts)
    out = []
    for number in missing:
        below = [n for n in numbers if n < number and times_on[n]]
        above = [n for n in numbers if n > number and times_on[n]]
        out.append(MissingPage(number, of,
                               max(times_on[max(below)]) if below else None,
                               min(times_on[min(above)]) if above else None,
                               max(places_on[max(below)]) if below else None))
    return tuple(out)


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
