"""The `tally` command line (typer): it parses the arguments, calls the use case
(tally.counting) and prints what it returns; errors are printed by tally.options.errors with the
exit codes of tally.errors and README.md. The commands beyond these live in tally/commands/.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tally import __version__
from tally.atomic import write_atomically
from tally.counting import load_game, read_and_count, read_thread, recount_snapshot
from tally.drafting import first_game_file
from tally.errors import EXIT_NEEDS_GM, InputError
from tally.game import Game
from tally.model import Tally
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
    known_format,
)

if TYPE_CHECKING:
    from tally.crawl import StoredThread
    from tally.forensics import Report

# ---------------------------------------------------------------------------------------------
# Commands


@app.command()
def count(
    game: Path = typer.Argument(..., help="The game file (TOML).", dir_okay=False),
    day: int | None = DayOpt,
    source: Path | None = FromOpt,
    extra: list[Path] | None = FromExtraOpt,
    warc: Path | None = FromWarcOpt,
    fetched_at: str | None = FetchedAtOpt,
    offline: bool = OfflineOpt,
    store: Path | None = StoreOpt,
    as_of: str | None = AsOfOpt,
    fmt: str = typer.Option("bbcode", "--format", "-f",
                            help="bbcode | jv | markdown (public post); text | json (with the GM "
                                 "report)."),
    public: bool = typer.Option(False, "--public", help="With text or json: leave out the GM "
                                "report."),
    strict: bool = typer.Option(False, "--strict", help="Exit 5 when the count needs a GM "
                                "decision (unresolved names, a tie left to the GM); read every "
                                "page with all its self-checks (jeuxvideo.com: the payload "
                                "against the HTML on every message)."),
    lang: str | None = LangOpt,
) -> None:
    """Count a day's votes and print the tally post (and, in text/json, the GM report)."""
    from tally.adapters.base import strict_reading
    from tally.render import FORMATS, render
    from tally.render.i18n import language_for

    with errors(), strict_reading(strict):
        known_format(fmt, FORMATS)
        counted = read_and_count(game, day, source, fetched_at, offline, store, as_of,
                                 extra or (), warc)
        tally = counted.tally
        typer.echo(render(tally, fmt, public=public, lang=language_for(counted.game, lang)),
                   nl=False)
        if day is None and as_of is None:
            _just_closed(counted.game, counted.day)
        if public or fmt not in ("text", "json"):
            _gm_flags_on_stderr(tally)
        if strict and needs_gm(tally):
            raise typer.Exit(EXIT_NEEDS_GM)


def _just_closed(game: Game, shown: int) -> None:
    """A GM at the deadline of back-to-back days (K1, R1) gets the new day, whose window holds
    now; the day that just closed is one option away. Said on stderr: the post stays clean."""
    from datetime import timedelta

    from tally import times

    now = times.now()
    day = game.day(shown)
    closed = [d for d in game.days if d.number != shown
              and now - timedelta(hours=6) <= d.deadline < now]
    if day.start <= now <= day.deadline and closed:
        last = max(closed, key=lambda d: d.deadline)
        typer.echo(f"note: this is day {shown}; day {last.number} closed at "
                   f"{times.to_local(last.deadline, game.timezone):%Y-%m-%d %H:%M} forum time: "
                   f"`--day {last.number}` counts it", err=True)


def _gm_flags_on_stderr(tally: Tally) -> None:
    """A post printed for the players hides the GM report: a game-file zone that contradicts the
    offset the pages state misreads every time (issue 16), so it is said on stderr too, where a
    GM pasting the post sees it (the other flags wait in `--format text` and `tally audit`)."""
    for finding in tally.findings:
        if finding.rule == "zone" and finding.needs_gm:
            typer.echo(f"warning: {finding.message}", err=True)


def needs_gm(tally: Tally) -> bool:
    return any(f.needs_gm for f in tally.findings) or tally.outcome.result in ("tie", "undecided")


@app.command()
def audit(
    game: Path = typer.Argument(..., help="The game file (TOML).", dir_okay=False),
    day: int | None = DayOpt,
    player: str | None = typer.Option(None, "--player", "-p",
                                         help="Only posts by, or votes for, this player."),
    post: str | None = typer.Option(None, "--post", help="Only this post id."),
    source: Path | None = FromOpt,
    extra: list[Path] | None = FromExtraOpt,
    warc: Path | None = FromWarcOpt,
    fetched_at: str | None = FetchedAtOpt,
    offline: bool = OfflineOpt,
    store: Path | None = StoreOpt,
    as_of: str | None = AsOfOpt,
    from_snapshot: int | None = typer.Option(
        None, "--from-snapshot", metavar="ID", help="Recompute the count recorded as snapshot ID "
        "from exactly its stored pages and game file, with no network; then say whether today's "
        "count differs and why. Exit 0 when recomputed exactly, 5 when the same pages give "
        "another result (tally changed), 3 when the store was altered."),
    fmt: str = typer.Option("text", "--format", "-f", help="text | json"),
    lang: str | None = LangOpt,
) -> None:
    """Say, for every post in the day's window, why it counted or not; with the snapshot store,
    what changed between its fetches (edit forensics)."""
    from tally.render.i18n import language_for

    with errors():
        known_format(fmt, ("text", "json"))
        if from_snapshot is not None:
            given = [name for name, value in (("--day", day), ("--from", source),
                                              ("--from-extra", extra), ("--from-warc", warc),
                                              ("--fetched-at", fetched_at), ("--as-of", as_of),
                                              ("--offline", offline)) if value]
            if given:
                raise InputError(f"--from-snapshot repeats the recorded count: leave out "
                                 f"{', '.join(given)}")
            code = _audit_snapshot(game, from_snapshot, store, player, post, fmt, lang)
            if code:
                raise typer.Exit(code)
            return
        counted = read_and_count(game, day, source, fetched_at, offline, store, as_of,
                                 extra or (), warc, "audit")
        if counted.snapshot is not None:
            typer.echo(f"snapshot {counted.snapshot}: recorded what this audit read "
                       f"({counted.versions} page versions)", err=True)
        report = _forensics(counted.main, counted.game, counted.tally)
        _print_audit(counted.tally, report, player, post, fmt, {"snapshot": counted.snapshot},
                     language_for(counted.game, lang))


def _forensics(main: StoredThread | None, game: Game, tally: Tally) -> Report | None:
    from tally import forensics

    return None if main is None else forensics.report(main.sightings, game, tally)


def _print_audit(tally: Tally, report: Report | None, player: str | None, post: str | None,
                 fmt: str, more: dict[str, object], lang: str = "en") -> None:
    from tally.render.audit import render_audit
    from tally.render.jsonout import as_dict, forensics

    if post is not None and not any(v.post_id == post for v in tally.verdicts):
        raise InputError(f"post {post} is not in day {tally.day}'s window")
    if player is not None and player.casefold() not in {  # a typo gave an empty audit, exit 0
            name.casefold() for v in tally.verdicts for name in (v.voter, v.author, v.target)
            if name} | {name.casefold() for name in tally.living}:
        raise InputError(f"--player {player!r}: no post by or vote for that name in day "
                         f"{tally.day}'s window, and no living player of that name")
    if fmt == "text":
        typer.echo(render_audit(tally, player=player, post=post, forensics=report, lang=lang),
                   nl=False)
        return
    import json

    data = as_dict(tally)
    keep = {v["post"] for v in data["verdicts"] if (post is None or v["post"] == post)}
    data["verdicts"] = [v for v in data["verdicts"] if v["post"] in keep]
    if report is not None:
        data["forensics"] = forensics([c for c in report.changes if c.post_id in keep])
    data.update(more)
    typer.echo(json.dumps(data, ensure_ascii=False, indent=2))


def _audit_snapshot(game_path: Path, snapshot_id: int, store_path: Path | None,
                    player: str | None, post: str | None, fmt: str,
                    lang: str | None = None) -> int:
    """--from-snapshot: the recorded count again from the store alone (never a Fetcher here)."""
    from tally import evidence

    replayed, report, now = recount_snapshot(game_path, snapshot_id, store_path)
    snap = replayed.snapshot
    taken = f"{snap.taken_at:%Y-%m-%d %H:%M:%S} UTC"
    if not replayed.recorded_count:
        verdict = [f"snapshot {snap.id} was taken by `tally {snap.command}` on {taken}: it keeps "
                   f"the pages, not a count; the audit above counts day {replayed.tally.day} from "
                   f"its {len(snap.version_ids)} page versions"]
    elif replayed.exact:
        verdict = [f"snapshot {snap.id} recomputed exactly: same result as recorded on {taken}"]
    else:
        verdict = [f"snapshot {snap.id} recomputed with a different result than recorded on "
                   f"{taken}: the stored pages and game file are the same, so tally changed "
                   f"(recorded by tally {snap.result.get('tally', '?')}, this is {__version__}):"]
        verdict += [f"  {line}" for line in replayed.differences]
    if now.same:
        today = [f"today: the same result from the {now.versions} page versions stored "
                 "now and the current game file"]
    else:
        today = ["today: a different result from the pages stored now and the current game file:"]
        today += [f"  {line}" for line in now.lines]
    if fmt == "json":
        more: dict[str, object] = {
            "snapshot": {"id": snap.id, "taken_at": evidence.iso(snap.taken_at),
                         "command": snap.command, "exact": replayed.exact,
                         "differences": list(replayed.differences)},
            "today": {"same": now.same, "differences": list(now.lines)}}
        _print_audit(replayed.tally, report, player, post, fmt, more)  # JSON: data, English
    else:
        from tally.render.i18n import language_for

        _print_audit(replayed.tally, report, player, post, fmt, {},
                     language_for(replayed.game, lang))
        typer.echo("\n".join(verdict + today))
    return 0 if replayed.exact else EXIT_NEEDS_GM


@app.command()
def init(
    url: str = typer.Argument(..., help="The thread URL (or engine:URL to force the engine)."),
    source: Path | None = FromOpt,
    timezone: str | None = typer.Option(None, "--timezone", help="The zone the forum shows "
                                           "times in (IANA, e.g. Europe/Madrid). Default: the "
                                           "engine's default zone, marked CHECK in the file."),
    preset: str = typer.Option("majority", "--preset", help="The rulebook: any preset `count` "
                               "knows (espia, kira, lupus, mafia-ru, majority, trigger-cn)."),
    out: Path = typer.Option(Path("game.toml"), "--out", "-o", dir_okay=False,
                             help="The game file to write."),
    fetched_at: str | None = FetchedAtOpt,
    force: bool = typer.Option(False, "--force", help="Overwrite an existing game file."),
) -> None:
    """Write a first game file from a thread: engine, zone, roster, day 1, preset."""
    with errors():
        if out.exists() and not force:
            raise InputError(f"{out}: already exists; use --force to overwrite it")
        text = first_game_file(url, source, timezone, preset, out, fetched_at)
        write_atomically(out, text)
        typer.echo(f"wrote {out}: check the lines marked CHECK, then run: tally count {out}")


@app.command()
def triggers(
    game: Path = typer.Argument(..., help="The game file (TOML) of a trigger-cn game.",
                                dir_okay=False),
    source: Path | None = FromOpt,
    fetched_at: str | None = FetchedAtOpt,
    offline: bool = OfflineOpt,
    store: Path | None = StoreOpt,
    lang: str | None = LangOpt,
) -> None:
    """The GM's private trigger report (trigger-cn, T1-T8): never post it in the thread."""
    from tally.render.i18n import language_for
    from tally.render.triggers import render_triggers
    from tally.triggers import judge_thread

    with errors():
        loaded = load_game(game)
        if loaded.preset != "trigger-cn":
            raise InputError(f"{game}: tally triggers is for trigger-cn games "
                             f"(this game's preset is {loaded.preset})")
        thread = read_thread(loaded, loaded.days[0].number, source, fetched_at, offline, store)
        typer.echo(render_triggers(judge_thread(thread, loaded), language_for(loaded, lang)),
                   nl=False)


# The other commands (post, snapshot, export, verify, report) live in tally/commands/, one module
# each, registered on the same `app` (tally.options) when the package is imported.
import tally.commands  # noqa: E402,F401

if __name__ == "__main__":  # pragma: no cover
    app()  # `python -m tally.cli`: the one app of tally.options, every command registered
