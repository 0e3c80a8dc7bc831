"""`tally export GAME.toml --warc FILE` and `tally verify FILE` (issue 6).

Export writes the game's stored page versions (or exactly one snapshot's) as a WARC file with a
checksum file and a manifest beside it (tally.warc); verify checks a WARC against them, so a third
party can confirm that nothing was altered. Counting from a WARC is `tally count --from-warc`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import typer

from tally.commands.snapshot import game_threads
from tally.counting import load_game, store_path_of
from tally.errors import EXIT_INPUT, InputError
from tally.game import Game
from tally.options import StoreOpt, app, errors

if TYPE_CHECKING:
    from tally.store import Store, StoredPage


@app.command()
def export(
    game: Path = typer.Argument(..., help="The game file (TOML).", dir_okay=False),
    warc: Path = typer.Option(..., "--warc", help="The WARC file to write (gzip per record when "
                              "it ends in .gz); FILE.sha256 and FILE.manifest.json go beside it.",
                              dir_okay=False),
    store: Path | None = StoreOpt,
    snapshot: int | None = typer.Option(None, "--snapshot", help="Export exactly this snapshot's "
                                        "page versions (`tally snapshot GAME.toml --list`) "
                                        "instead of every stored version."),
) -> None:
    """Write the stored pages of the game's threads as a WARC file with a checksum manifest."""
    from tally import warc as archive
    from tally.store import Store

    with errors():
        loaded = load_game(game)
        path = store_path_of(game, store)
        if not path.is_file():  # never create an empty store just to export nothing
            raise InputError(f"snapshot store {path}: no such file (`tally snapshot {game}` "
                             "fills it)")
        with Store(path) as opened:
            versions = _versions(loaded, opened, snapshot)
        threads = sorted({version.thread_key for version in versions})
        info = {"title": loaded.title,
                "forum": " ".join(dict.fromkeys(urlsplit(u).netloc for u in game_threads(loaded))),
                "threads": " ".join(game_threads(loaded)),
                "snapshot": "" if snapshot is None else str(snapshot)}
        done = archive.export(versions, warc, info=info)
        typer.echo(f"{warc}: {done.responses} page version{'s' if done.responses != 1 else ''} "
                   f"of {len(threads)} thread{'s' if len(threads) != 1 else ''}, {done.size} "
                   f"bytes, sha256 {done.sha256}")
        typer.echo(f"check: sha256sum -c {archive.checksum_path(warc)}; "
                   f"tally verify {warc} (with {archive.manifest_path(warc).name})")


def _versions(game: Game, store: Store, snapshot: int | None) -> list[StoredPage]:
    from tally import crawl

    keys = {}
    for url in game_threads(game):
        engine, plain = crawl.engine_for(url, game.board.engine)
        keys[engine.thread_key(plain)] = url
    if snapshot is not None:
        row = store.snapshot(snapshot)
        if row.thread_key not in keys:
            raise InputError(f"snapshot {snapshot} is of {row.url}, not a thread of {game.path}")
        return store.pages(row.version_ids)
    for key, url in keys.items():
        # A WARC holds no record of crawls: a page left stale by a stopped crawl would read as
        # current and `count --from-warc` would be final without the votes written on it since.
        if store.unfinished_low(key) is not None:
            raise InputError(f"the last crawl of {url} did not finish: some stored pages may be "
                             f"out of date; run `tally count {game.path}` online to finish it, or "
                             "export a count's pages with --snapshot ID")
    found = [version for key in keys for version in store.versions(key)]
    if not found:
        raise InputError(f"snapshot store {store.path}: no stored page of {game.path}'s threads; "
                         f"run `tally snapshot {game.path}` first")
    return found


@app.command()
def verify(
    warc: Path = typer.Argument(..., help="A WARC file written by `tally export`.",
                                dir_okay=False),
) -> None:
    """Check a WARC file against its manifest: the whole-file hash and every record's payload."""
    from tally import warc as archive

    with errors():
        problems, summary = archive.verify(warc)
        for line in problems:
            typer.echo(line)
        if problems:
            raise typer.Exit(EXIT_INPUT)
        typer.echo(summary)
