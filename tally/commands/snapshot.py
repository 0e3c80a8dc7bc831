"""`tally snapshot GAME.toml`: fetch every thread of the game into the snapshot store (issue 6).

Each thread (the main one, each day's voting thread, the game's other `threads`) is read the way
a count reads it, so a page fetched again becomes a new version and nothing is overwritten; one
snapshot row per thread names the versions that make it up. `--list` shows what is stored.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tally import times
from tally.counting import load_game, read_stored, store_path_of
from tally.errors import InputError
from tally.game import Game
from tally.options import StoreOpt, app, errors

if TYPE_CHECKING:
    from tally.crawl import StoredThread


def game_threads(game: Game) -> list[str]:
    """Every thread of the game, each once: the main thread, the days' threads, the others."""
    urls = [game.thread_url] + [d.thread_url for d in game.days if d.thread_url]
    return list(dict.fromkeys(urls + list(game.extra_threads)))


@app.command()
def snapshot(
    game: Path = typer.Argument(..., help="The game file (TOML).", dir_okay=False),
    store: Path | None = StoreOpt,
    show: bool = typer.Option(False, "--list", help="List the stored snapshots instead of "
                              "fetching: id, time (UTC and forum time), command, pages, result."),
) -> None:
    """Fetch every thread of the game into the snapshot store and record a snapshot of each."""
    with errors():
        loaded = load_game(game)
        if show:
            typer.echo(_listing(loaded, store_path_of(game, store)), nl=False)
            return
        _take(loaded, store)


def _take(game: Game, store_path: Path | None) -> None:
    from tally import evidence
    from tally.store import Store

    text = game.path.read_text(encoding="utf-8")
    with Store(store_path_of(game.path, store_path)) as store:
        for url in game_threads(game):
            read = read_stored(game, url, False, store, every_page=True)
            pages = len({version.page for version in read.versions})
            changed = changed_versions(read)
            digest = evidence.page_set_sha256(read)
            result = {"pages": pages, "posts": len(read.thread.posts), "page_set": digest,
                      "new_versions": len(read.fetched), "changed": changed}
            number = store.record_snapshot(thread_key=read.key, url=read.url, command="snapshot",
                                           game_text=text, version_ids=read.version_ids,
                                           result=result)
            new = len(read.fetched)
            fresh = set(read.fetched)  # nothing stored before: no "last fetch" to differ from
            since = ("the thread's first fetch" if all(v.id in fresh for v in read.versions)
                     else f"{changed} changed since the last fetch")
            typer.echo(f"snapshot {number}: {read.url}, {pages} page{'s' if pages != 1 else ''}, "
                       f"{new} new version{'s' if new != 1 else ''} ({since}), sha256 of the "
                       f"page set {digest}")


def changed_versions(read: StoredThread) -> int:
    """The versions fetched by this run whose bytes differ from their page's previous version
    (a page never fetched before counts as changed)."""
    fresh = set(read.fetched)
    previous: dict[int, str] = {}
    changed = 0
    for version in read.versions:  # oldest fetch first
        if version.id in fresh and previous.get(version.page) != version.sha256:
            changed += 1
        previous[version.page] = version.sha256
    return changed


def _listing(game: Game, path: Path) -> str:
    from tally import evidence
    from tally.store import Store

    if not path.is_file():
        raise InputError(f"snapshot store {path}: no such file (`tally snapshot {game.path}` "
                         "creates it)")
    with Store(path) as store:
        rows = store.snapshots()
    if not rows:
        return f"no snapshots in {path}\n"
    lines = [f"snapshots in {path} (forum time: {game.timezone})"]
    for row in rows:
        local = times.to_local(row.taken_at, game.timezone)
        pages = row.result.get("pages", "?")
        lines.append(f"{row.id:>4}  {row.taken_at:%Y-%m-%d %H:%M:%S} UTC  "
                     f"{local:%Y-%m-%d %H:%M:%S} forum  {row.command:<8}  "
                     f"{pages} page{'s' if pages != 1 else ''}  {evidence.summary(row.result)}")
    return "\n".join(lines) + "\n"
