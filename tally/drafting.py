"""Drafting a first game file (`tally init`): find the thread's engine, read its pages (saved
from a browser, or from the forum through the snapshot store beside the file to write), and let
tally.init propose the file from them. The command only writes the text and says so.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from tally import times
from tally.errors import InputError
from tally.model import Thread

if TYPE_CHECKING:
    from tally.adapters import Engine
    from tally.store import Store


def first_game_file(url: str, source: Path | None, zone: str | None, preset: str, out: Path,
                    fetched_at: str | None) -> str:
    """The text of a first game file for the thread at `url` (or engine:URL): its engine, the
    zone its pages suggest, its roster and first day, `preset`. Read from the saved pages in
    `source`, else from the forum through the store beside `out`."""
    from tally import adapters, crawl, rules, saved
    from tally import init as first_file
    from tally.fetch import Fetcher
    from tally.store import Store

    rules.get(preset)  # an unknown preset: one line, before any reading
    forced, plain_url = adapters.split_forced(url)
    engine = _init_engine(plain_url, forced, source)
    zone_name = zone or engine.default_zone
    times.zone(zone_name)  # an unknown zone: one line, before any reading
    store = None if source is not None else Store(out.parent / ".tally" / f"{out.stem}.sqlite")

    def read(zone_name: str, offline: bool = False, checked: bool = True) -> Thread:
        if source is not None:
            stated = times.parse_game_time(fetched_at, zone_name).utc if fetched_at else None
            return saved.read_saved_pages(source, engine, zone=zone_name, url=plain_url,
                                          fetched_at=stated, check_saved=checked)
        return crawl.read_thread(plain_url, engine, zone=zone_name, store=store,
                                 fetcher=None if offline else Fetcher(), offline=offline)

    # Until the pages say their zone, a time read in the engine's default zone may seem later
    # than the save time ("Aujourd'hui, 20:00" on a UTC+1 board saved at 19:30 UTC): that
    # check waits for the zone the pages propose (qa).
    thread = read(zone_name, checked=zone is not None)
    declared = _board_language(source, store, engine, plain_url)
    proposal = first_file.propose_zone(thread, zone, engine.default_zone, engine.name, declared)
    language, language_note = first_file.board_language(declared, thread)
    if proposal.zone != zone_name or zone is None:  # read again in the zone proposed
        guessed = zone is None and not thread.utc_offsets  # the engine's default, unconfirmed
        try:
            thread = read(proposal.zone, offline=True)
        except InputError as exc:  # "Today at 2:02 pm" of a New York board, read in Madrid
            if not guessed:
                raise
            raise type(exc)(f"{exc}, or the board's times are not in {proposal.zone} (the "
                            f"{engine.name} default, the pages do not say): give --timezone") \
                from None
    options = first_file.InitOptions(url=plain_url, engine=engine.name, zone=proposal.zone,
                                     zone_given=zone is not None, preset=preset,
                                     title=thread.title or out.stem, zone_note=proposal.note,
                                     language=language, language_note=language_note)
    return first_file.render(thread, options)


def _board_language(source: Path | None, store: Store | None, engine: Engine,
                    url: str) -> str | None:
    """The language the board's pages declare (<html lang>): the first saved page's, or the
    stored first page's."""
    from tally import init as first_file
    from tally.saved import SAVED_PAGE_SUFFIXES

    if source is not None:
        for path in sorted(source.iterdir()):
            if path.is_file() and path.suffix.lower() in SAVED_PAGE_SUFFIXES:
                return first_file.page_language(path.read_bytes())
        return None
    if store is None:
        return None
    versions = store.page_versions(engine.thread_key(url), 1)
    return first_file.page_language(versions[0].body) if versions else None


def _init_engine(url: str, forced: str | None, source: Path | None) -> Engine:
    """The engine: forced, else from the URL, else (with --from) from the saved pages."""
    from tally import adapters

    try:
        return adapters.for_url(url, forced)
    except InputError:
        if source is None or forced:
            raise
    for path in sorted(source.iterdir()):
        if path.is_file() and path.suffix.lower() in (".html", ".htm"):
            found = adapters.sniff(path.read_bytes())
            if found is not None:
                return found
    raise InputError(f"{url}: not a thread URL of a known forum engine, and no page in {source} "
                     "looks like one; write engine:URL")
