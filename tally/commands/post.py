"""`tally post GAME.toml`: the scheduled run (issue 5); the work is in tally/scheduled.py.

One line on stdout says what the run did; the exit code tells a cron wrapper (tally.errors):
0 posted, 6 nothing to post, 5 held for the GM, 4 forum error, 7 login error, 8 cannot post
here, 9 another run holds the lock, 10 held by the forum for a moderator (until it shows).

`--cookie-from-env` is the setup step of an engine tally does not log in to (JV): it saves the
bot's session cookie from TALLY_COOKIE into the game's cookie file and posts nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

import typer

from tally.options import DayOpt, LangOpt, StoreOpt, app, errors


@app.command()
def post(
    game: Path = typer.Argument(..., help="The game file (TOML).", dir_okay=False),
    day: int | None = DayOpt,
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the post that would be made "
                                 "and why (or why not); post nothing, need no credentials."),
    store: Path | None = StoreOpt,
    force: bool = typer.Option(False, "--force", help="Post even when the posting policy "
                               "says not now (never the same count twice, except one the forum "
                               "still holds for a moderator: sent again)."),
    cookie_from_env: bool = typer.Option(False, "--cookie-from-env", help="Save the bot's "
                                         "session cookie from TALLY_COOKIE ('name=value; "
                                         "name2=value2', as a browser sends it) into the game's "
                                         "cookie file (0600) and post nothing: for forums whose "
                                         "login tally cannot do (jeuxvideo.com)."),
    lang: str | None = LangOpt,
) -> None:
    """Post the count into the thread as the game's bot when the game file's posting table
    says it is time (for cron); one line says what was done."""
    from tally import scheduled

    with errors():
        if cookie_from_env:
            saved = scheduled.take_cookie(game, store, os.environ.get("TALLY_COOKIE"))
            typer.echo(saved.line)
            return
        result = scheduled.run(game, scheduled.Options(day=day, dry_run=dry_run, force=force,
                                                       store_path=store, lang=lang))
        if result.text:
            typer.echo(result.text, nl=False)
        typer.echo(result.line)
        if result.code:
            raise typer.Exit(result.code)
