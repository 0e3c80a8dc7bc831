"""`tally report GAME.toml --html FILE`: the count as one self-contained HTML page.

It reads the thread the way `tally count` does (the same options, tally.counting.read_and_count; read
through the snapshot store, the count is recorded as a snapshot, command "report"), counts the
day, works out the votes over time (tally.timeline) and writes the page atomically (a temp file
renamed over the target): an interrupted run leaves the old page, never half a page.
The public page carries no GM-only data (C5); `--gm` writes the GM's page, marked as such.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from tally.atomic import write_atomically
from tally.counting import read_and_count
from tally.options import (
    AsOfOpt,
    DayOpt,
    FetchedAtOpt,
    FromExtraOpt,
    FromOpt,
    FromWarcOpt,
    LangOpt,
    OfflineOpt,
    StoreOpt,
    app,
    errors,
)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


@app.command()
def report(
    game: Path = typer.Argument(..., help="The game file (TOML).", dir_okay=False),
    html: Path = typer.Option(..., "--html", help="The HTML file to write (replaced if it "
                              "exists).", dir_okay=False),
    gm: bool = typer.Option(False, "--gm", help="The GM's page: adds the secret effects, the "
                            "GM's result, roles and flags. Never publish it."),
    day: int | None = DayOpt,
    source: Path | None = FromOpt,
    extra: list[Path] | None = FromExtraOpt,
    warc: Path | None = FromWarcOpt,
    fetched_at: str | None = FetchedAtOpt,
    offline: bool = OfflineOpt,
    store: Path | None = StoreOpt,
    as_of: str | None = AsOfOpt,
    lang: str | None = LangOpt,
) -> None:
    """Write the count, the vote log, votes over time and the void votes as one HTML page."""
    from tally import timeline
    from tally.progress import judging_bar
    from tally.render.html import render_html
    from tally.render.i18n import language_for

    with errors():
        counted = read_and_count(game, day, source, fetched_at, offline, store, as_of,
                                 extra or (), warc, command="report")
        loaded, tally = counted.game, counted.tally
        judging, done = judging_bar()  # on a terminal only (issue 17)
        try:
            steps = timeline.votes_over_time(counted.thread, loaded, counted.day,
                                             as_of=counted.at, up_to_post=counted.up_to_post,
                                             others=counted.others, judging=judging)
        finally:
            done()
        roles = {p.name: p.role for p in loaded.players if p.role} if gm else None
        page = render_html(tally, steps, gm=gm, roles=roles,
                           lang=language_for(loaded, lang))
        write_atomically(html, page)
        if not gm:  # a temp file is private (0600); the public page is for anyone to read
            html.chmod(0o666 & ~_umask())
        typer.echo(f"wrote {html} " + ("(GM report: do not publish)" if gm else "(public report)"))
