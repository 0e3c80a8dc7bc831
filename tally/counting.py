"""The use case under every command that counts: load the game, pick the day, read the thread
(saved pages, a WARC, or the forum through the snapshot store), count it, and record what was
read as a snapshot (issue 6). `count`, `audit`, `report`, `post` (tally.scheduled), `snapshot`
and `triggers` call it; it never imports the command line (issue 15): the CLI only parses the
arguments, prints errors and renders what this returns.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from tally import times
from tally.errors import GameFileError, InputError, UsageError
from tally.game import Game
from tally.model import Tally, Thread
from tally.progress import judging_bar, pages_bar

if TYPE_CHECKING:
    from tally.crawl import StoredThread
    from tally.evidence import Replay, Today
    from tally.fetch import Fetcher
    from tally.forensics import Report
    from tally.store import Store


def load_game(path: Path) -> Game:
    from tally import game as game_file
    from tally import rules

    game = game_file.load(path)
    # The preset exists and checks its event kinds, the fields they need and its options,
    # naming the line.
    rules.for_game(game)
    _check_post_format(game)
    return game


def _check_post_format(game: Game) -> None:
    """posting.format names a markup tally writes (tally.render.post), refused like any other
    game-file mistake, before anything is read: the reader of the file cannot know the markups
    (the renderers read Game records)."""
    from tally.render.post import DIALECTS

    chosen = game.posting.format
    if chosen is not None and chosen not in DIALECTS:
        raise GameFileError(f"{game.path}:{game.lines.get('posting.format', '?')}: "
                            f"posting.format: expected one of {', '.join(DIALECTS)}, got "
                            f"{chosen!r}")


def pick_day(game: Game, day: int | None, at: datetime) -> int:
    if day is not None:
        game.day(day)  # raises a clear error for an unknown day
        return day
    for d in game.days:
        if d.start <= at <= d.deadline:
            return d.number
    started = [d for d in game.days if d.start <= at]
    return (started[-1] if started else game.days[0]).number


def parse_as_of(text: str | None, game: Game) -> tuple[datetime | None, str | None]:
    """--as-of: a post id (its digits, as in the post's link: "5013", "p5013", "#p5013") or a
    time; anything else is a bad command line (exit 2), never looked up as a post."""
    if text is None:
        return None, None
    raw = text.strip()
    post = raw.lstrip("#").removeprefix("p")
    if post.isdigit():
        return None, post
    try:
        return times.parse_game_time(raw, game.timezone).utc, None
    except InputError as exc:
        if not str(exc).startswith("cannot read the time"):  # a DST gap or overlap: say which
            raise UsageError(f"--as-of {raw!r}: {exc}") from None
        raise UsageError(f"--as-of {raw!r}: the time cannot be read; give a post id (5013) or "
                         "a time ('YYYY-MM-DD HH:MM[:SS]' in the game's zone, or ISO 8601 with "
                         "an offset)") from None


def read_thread(game: Game, day: int, source: Path | None, fetched_at: str | None,
                offline: bool, store_path: Path | None, warc: Path | None = None) -> Thread:
    url = game.day(day).thread_url or game.thread_url
    if warc is not None:
        return read_warc(game, url, warc)
    if source is not None:
        return read_saved(game, url, source, fetched_at)
    return read_online(game, url, offline, store_path)


def read_other_threads(game: Game, source: Path | None, extra: Sequence[Path],
                       fetched_at: str | None, offline: bool,
                       store_path: Path | None, warc: Path | None = None) -> tuple[Thread, ...]:
    """The game's other threads, read the way the counted one is (R10 counts posts across them).

    With --from, the folders given with --from-extra (none given: none read, and the preset says
    it counted the one thread); with --from-warc, each URL of the game file's `threads` from the
    same WARC (`tally export` writes them all), never from the forum; otherwise each of those
    URLs through the same store, --offline included. Read only for a preset that uses them.
    """
    if not reads_other_threads(game):
        return ()
    if warc is not None:
        return tuple(read_warc(game, url, warc) for url in game.extra_threads)
    if source is not None:
        if extra and not game.extra_threads:  # nothing to hold the pages to (issue 16)
            raise InputError(f"--from-extra {extra[0]}: the game file lists no other threads: "
                             "add their URLs to `threads` (the folders must be pages of them)")
        return tuple(read_saved(game, None, folder, fetched_at, game.extra_threads)
                     for folder in extra)
    return tuple(read_online(game, url, offline, store_path) for url in game.extra_threads)


def reads_other_threads(game: Game) -> bool:
    from tally import rules

    return rules.get(game.preset).reads_other_threads


def read_saved(game: Game, url: str | None, source: Path, fetched_at: str | None,
               one_of: Sequence[str] = ()) -> Thread:
    """--from DIR: one thread from pages a browser saved (url None: the pages say theirs, and
    that must be one of `one_of`'s topics when given: a --from-extra folder)."""
    from tally import adapters, saved

    forced, plain_url = adapters.split_forced(url) if url else (None, None)
    engine_name = game.board.engine or forced
    stated = times.parse_game_time(fetched_at, game.timezone).utc if fetched_at else None
    engine = adapters.get(engine_name) if engine_name else None
    update, done = pages_bar()  # on a terminal only (issue 17: 5,000 posts read in silence)
    try:
        return saved.read_saved_pages(source, engine, zone=game.timezone, url=plain_url,
                                      fetched_at=stated, language=game.board.language,
                                      per_page=game.board.per_page,
                                      floor_names=game.board.floor_names,
                                      one_of=[adapters.split_forced(o)[1] for o in one_of],
                                      progress=update)
    finally:
        done()


def read_warc(game: Game, url: str, path: Path) -> Thread:
    """--from-warc FILE: the thread's pages as archived (each record keeps its fetch time)."""
    from tally import adapters, warc

    forced, plain_url = adapters.split_forced(url)
    engine_name = game.board.engine or forced
    return warc.read_thread(path, plain_url, engine=adapters.get(engine_name) if engine_name
                            else None, zone=game.timezone, language=game.board.language,
                            per_page=game.board.per_page, floor_names=game.board.floor_names)


def read_online(game: Game, url: str, offline: bool, store_path: Path | None) -> Thread:
    """One thread from the forum, through the game's snapshot store (or from it, --offline)."""
    with open_store(game, store_path) as store:
        return read_stored(game, url, offline, store).thread


def store_path_of(game_path: Path, store_path: Path | None) -> Path:
    """--store, else .tally/<game>.sqlite beside the game file."""
    return store_path or game_path.parent / ".tally" / f"{game_path.stem}.sqlite"


def open_store(game: Game, store_path: Path | None) -> Store:
    from tally.store import Store

    return Store(store_path_of(game.path, store_path))


def read_stored(game: Game, url: str, offline: bool, store: Store,
                every_page: bool = False, fetcher: Fetcher | None = None,
                bar: bool = True) -> StoredThread:
    """One thread through the store, with the versions it was built from (for the snapshot);
    `every_page`: fetch the whole thread again, not just its tail (tally snapshot); `fetcher`:
    the one to read the forum with (default: a new guest Fetcher); `bar`: a progress bar on a
    terminal (the scheduled run draws none)."""
    from tally import crawl
    from tally.fetch import Fetcher

    engine, plain_url = crawl.engine_for(url, game.board.engine)
    update, done = pages_bar() if bar else (None, lambda: None)
    try:
        return crawl.read_stored_thread(plain_url, engine, zone=game.timezone, store=store,
                                        fetcher=None if offline else fetcher or Fetcher(),
                                        offline=offline, language=game.board.language,
                                        per_page=game.board.per_page,
                                        floor_names=game.board.floor_names, progress=update,
                                        every_page=every_page)
    finally:
        done()


@dataclass(frozen=True)
class Counted:
    """What the shared read+count step read and counted, for a command to render."""

    game: Game
    day: int
    thread: Thread  # the counted thread
    others: tuple[Thread, ...]  # the game's other threads, when the preset reads them (R10)
    at: datetime | None  # --as-of as a time (UTC) ...
    up_to_post: str | None  # ... or as a post id
    tally: Tally
    main: StoredThread | None = None  # read through the store (None: --from, --from-warc)
    snapshot: int | None = None  # the snapshot recorded for it
    versions: int = 0  # the page versions it read, every thread included


def read_and_count(game_path: Path, day: int | None, source: Path | None,
                   fetched_at: str | None, offline: bool, store_path: Path | None,
                   as_of: str | None, extra: Sequence[Path] = (), warc: Path | None = None,
                   command: str = "count") -> Counted:
    """The step count, audit and report share: load the game, pick the day, read the thread(s)
    (saved pages, a WARC, or through the snapshot store) and count. Read through the store, the
    count is recorded as a snapshot under `command` (issue 6: every count leaves its evidence)."""

    if warc is not None and (source is not None or offline):
        raise InputError("--from-warc reads the pages from the WARC file: leave out --from and "
                         "--offline")
    if extra and source is None:
        raise InputError("--from-extra needs --from: the game's threads are all read from saved "
                         "pages, or all from the forum")
    game = load_game(game_path)
    at, up_to_post = parse_as_of(as_of, game)
    day_number = pick_day(game, day, at or times.now())
    if source is not None or warc is not None:  # no store: nothing to record
        thread = read_thread(game, day_number, source, fetched_at, offline, store_path, warc)
        others = read_other_threads(game, source, extra, fetched_at, offline, store_path, warc)
        tally = judge(thread, game, day_number, at, up_to_post, others, bar=True)
        return Counted(game, day_number, thread, others, at, up_to_post, tally)
    with open_store(game, store_path) as store:  # closed once counted and recorded
        return count_stored(game, day_number, store, command=command, offline=offline, at=at,
                            up_to_post=up_to_post)


def count_stored(game: Game, day: int, store: Store, *, command: str, offline: bool = False,
                 fetcher: Fetcher | None = None, at: datetime | None = None,
                 up_to_post: str | None = None, bar: bool = True) -> Counted:
    """Read the day's thread (and the game's other threads, when the preset reads them: R10)
    through the store, count it, and record what was read and counted as a snapshot under
    `command` (count, audit, report, post): issue 6, every count leaves its evidence."""
    from tally import evidence

    def read(url: str) -> StoredThread:
        return read_stored(game, url, offline, store, fetcher=fetcher, bar=bar)

    main = read(game.day(day).thread_url or game.thread_url)
    read_others = tuple(read(url) for url in game.extra_threads) \
        if reads_other_threads(game) else ()
    others = tuple(other.thread for other in read_others)
    tally = judge(main.thread, game, day, at, up_to_post, others, bar=bar)
    snapshot = evidence.record(store, command=command, main=main, others=read_others,
                               game_text=game.path.read_text(encoding="utf-8"), tally=tally,
                               asked=evidence.Asked(at, up_to_post))
    return Counted(game, day, main.thread, others, at, up_to_post, tally, main, snapshot,
                   len(main.versions) + sum(len(other.versions) for other in read_others))


def judge(thread: Thread, game: Game, day: int, at: datetime | None, up_to_post: str | None,
          others: Sequence[Thread], bar: bool) -> Tally:
    """engine.count, with the bar of posts judged on a terminal (`bar`: the scheduled run draws
    none): a 5,000-post window is seconds of silence otherwise (issue 17)."""
    from tally import engine

    judging, done = judging_bar() if bar else (None, lambda: None)
    try:
        return engine.count(thread, game, day, as_of=at, up_to_post=up_to_post, others=others,
                            judging=judging)
    finally:
        done()


def recount_snapshot(game_path: Path, snapshot_id: int,
                     store_path: Path | None) -> tuple[Replay, Report, Today]:
    """`audit --from-snapshot`: the count recorded as `snapshot_id` again from exactly its
    stored pages and game file (never a Fetcher), the edit forensics of those pages, and what
    the pages stored now and the current game file give (issue 6)."""
    from tally import evidence, forensics
    from tally.store import Store

    path = store_path_of(game_path, store_path)
    if not path.is_file():
        raise InputError(f"snapshot store {path}: no such file")
    with Store(path) as store:
        replayed = evidence.replay(store, snapshot_id, game_path, pick_day)
        report = forensics.report(replayed.main.sightings, replayed.game, replayed.tally)
        now = evidence.today(store, replayed, game_path, load_game)
    return replayed, report, now
