"""The `tally` command line (typer). Exit codes are in tally.errors and README.md."""

from __future__ import annotations

import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from tally import __version__, times
from tally.errors import EXIT_BUG, EXIT_NEEDS_GM, InputError, TallyError, UsageError
from tally.game import Game
from tally.model import Tally, Thread

if TYPE_CHECKING:
    from tally.adapters import Engine
    from tally.crawl import StoredThread
    from tally.forensics import Report
    from tally.store import Store

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    help="Count the votes of a forum-played social-deduction game from its thread.",
    context_settings={"help_option_names": ["-h", "--help"]},
)

# ---------------------------------------------------------------------------------------------
# Options shared by the commands that read a thread

DayOpt = typer.Option(None, "--day", "-d", help="Day number (default: the day whose window "
                      "contains now, else the last day that has started).")
FromOpt = typer.Option(None, "--from", help="Read saved pages (HTML files as a browser saves "
                       "them, one per page, any order) from this folder instead of the forum.",
                       exists=True, file_okay=False, dir_okay=True)
FromExtraOpt = typer.Option(None, "--from-extra", help="With --from: saved pages of one of the "
                            "game's other threads (the game file's `threads`), one folder per "
                            "thread; repeat it for each. Read by presets that count posts across "
                            "the game threads (mafia-ru, R10).", metavar="DIR", exists=True,
                            file_okay=False, dir_okay=True)
FetchedAtOpt = typer.Option(None, "--fetched-at", help="With --from: when the pages were saved "
                            "(anchor for relative dates). Default: each file's modification time.")
OfflineOpt = typer.Option(False, "--offline", help="Use only pages already in the snapshot store.")
StoreOpt = typer.Option(None, "--store", envvar="TALLY_STORE", help="Snapshot store (SQLite). "
                        "Default: .tally/<game>.sqlite beside the game file.")
FromWarcOpt = typer.Option(None, "--from-warc", help="Read the thread from a WARC file written by "
                           "`tally export` (or any web archive of the thread's pages).",
                           exists=True, file_okay=True, dir_okay=False)
AsOfOpt = typer.Option(None, "--as-of", help="Count as the thread stood at this post id or time "
                       "('YYYY-MM-DD HH:MM[:SS]' in the game's zone, or ISO 8601 with offset).")



def _known_language(value: str | None) -> str | None:
    from tally.render.i18n import languages

    if value is not None and value not in languages():
        raise typer.BadParameter(f"unknown language {value!r} (known: {', '.join(languages())})")
    return value


LangOpt = typer.Option(None, "--lang", callback=_known_language,
                       help="The language of the post or report: es, ru, zh, fr, en (any with a "
                            "catalogue in tally/locale). Default: the game file's `language`, "
                            "else the preset's (espia, lupus: es; mafia-ru: ru; trigger-cn: zh; "
                            "kira, majority: en).")


def _version(value: bool) -> None:
    if value:
        typer.echo(f"tally {__version__}")
        raise typer.Exit()


@app.callback()
def main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                      help="Show the version and exit.")) -> None:
    """Count the votes of a forum-played social-deduction game from its thread."""


@contextmanager
def errors() -> Iterator[None]:
    """Expected errors: one line and their exit code. Bugs: a traceback and exit 1."""
    try:
        yield
    except TallyError as exc:
        typer.echo(f"tally: error: {exc}", err=True)
        raise typer.Exit(exc.exit_code) from None
    except (typer.Exit, typer.Abort, KeyboardInterrupt):
        raise
    except Exception:  # noqa: BLE001 - the bug path
        traceback.print_exc()
        typer.echo("tally: internal error (a bug): please report it with the traceback above",
                   err=True)
        raise typer.Exit(EXIT_BUG) from None


# ---------------------------------------------------------------------------------------------
# The steps every command shares: game -> thread -> tally


def load_game(path: Path) -> Game:
    from tally import game as game_file
    from tally import rules

    game = game_file.load(path)
    # The preset checks its event kinds, the fields they need and its options, naming the line.
    rules.get(game.preset).validate(game)
    return game


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


def _progress() -> tuple[Callable[[int, int | None], None] | None, Callable[[], None]]:
    """A rich progress bar on a terminal; nothing when stderr is piped (cron, CI)."""
    if not sys.stderr.isatty():
        return None, lambda: None
    from rich.progress import Progress

    bar = Progress(transient=True)
    task = bar.add_task("Reading pages", total=None)
    bar.start()

    def update(done: int, total: int | None) -> None:
        bar.update(task, completed=done, total=total)

    return update, bar.stop


def read_thread(game: Game, day: int, source: Path | None, fetched_at: str | None,
                offline: bool, store_path: Path | None, warc: Path | None = None) -> Thread:
    url = game.day(day).thread_url or game.thread_url
    if warc is not None:
        return _read_warc(game, url, warc)
    if source is not None:
        return _read_saved(game, url, source, fetched_at)
    return _read_online(game, url, offline, store_path)


def read_other_threads(game: Game, source: Path | None, extra: Sequence[Path],
                       fetched_at: str | None, offline: bool,
                       store_path: Path | None) -> tuple[Thread, ...]:
    """The game's other threads, read the way the counted one is (R10 counts posts across them).

    With --from, the folders given with --from-extra (none given: none read, and the preset says
    it counted the one thread); otherwise each URL of the game file's `threads`, through the same
    store, --offline included. Read only for a preset that uses them.
    """
    if not _reads_other_threads(game):
        return ()
    if source is not None:
        return tuple(_read_saved(game, None, folder, fetched_at) for folder in extra)
    return tuple(_read_online(game, url, offline, store_path) for url in game.extra_threads)


def _reads_other_threads(game: Game) -> bool:
    from tally import rules

    return rules.get(game.preset).reads_other_threads


def _read_saved(game: Game, url: str | None, source: Path, fetched_at: str | None) -> Thread:
    """--from DIR: one thread from pages a browser saved (url None: the pages say theirs)."""
    from tally import adapters, saved

    forced, plain_url = adapters.split_forced(url) if url else (None, None)
    engine_name = game.board.engine or forced
    stated = times.parse_game_time(fetched_at, game.timezone).utc if fetched_at else None
    engine = adapters.get(engine_name) if engine_name else None
    return saved.read_saved_pages(source, engine, zone=game.timezone, url=plain_url,
                                  fetched_at=stated, language=game.board.language,
                                  per_page=game.board.per_page,
                                  floor_names=game.board.floor_names)


def _read_warc(game: Game, url: str, path: Path) -> Thread:
    """--from-warc FILE: the thread's pages as archived (each record keeps its fetch time)."""
    from tally import adapters, warc

    forced, plain_url = adapters.split_forced(url)
    engine_name = game.board.engine or forced
    return warc.read_thread(path, plain_url, engine=adapters.get(engine_name) if engine_name
                            else None, zone=game.timezone, language=game.board.language,
                            per_page=game.board.per_page, floor_names=game.board.floor_names)


def _read_online(game: Game, url: str, offline: bool, store_path: Path | None) -> Thread:
    """One thread from the forum, through the game's snapshot store (or from it, --offline)."""
    return _read_stored(game, url, offline, _open_store(game, store_path)).thread


def store_path_of(game_path: Path, store_path: Path | None) -> Path:
    """--store, else .tally/<game>.sqlite beside the game file."""
    return store_path or game_path.parent / ".tally" / f"{game_path.stem}.sqlite"


def _open_store(game: Game, store_path: Path | None) -> Store:
    from tally.store import Store

    return Store(store_path_of(game.path, store_path))


def _read_stored(game: Game, url: str, offline: bool, store: Store,
                 every_page: bool = False) -> StoredThread:
    """One thread through the store, with the versions it was built from (for the snapshot);
    `every_page`: fetch the whole thread again, not just its tail (tally snapshot)."""
    from tally import crawl
    from tally.fetch import Fetcher

    engine, plain_url = crawl.engine_for(url, game.board.engine)
    update, done = _progress()
    try:
        return crawl.read_stored_thread(plain_url, engine, zone=game.timezone, store=store,
                                        fetcher=None if offline else Fetcher(), offline=offline,
                                        language=game.board.language,
                                        per_page=game.board.per_page,
                                        floor_names=game.board.floor_names, progress=update,
                                        every_page=every_page)
    finally:
        done()


def run_count(game_path: Path, day: int | None, source: Path | None, fetched_at: str | None,
              offline: bool, store: Path | None, as_of: str | None,
              extra: Sequence[Path] = (), warc: Path | None = None,
              command: str = "count") -> Tally:
    """One count. Read through the snapshot store (online or --offline), it is recorded as a
    snapshot under `command` (count, audit, post): the versions read, the game file, the result."""
    return read_and_count(game_path, day, source, fetched_at, offline, store, as_of, extra, warc,
                          command).tally


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
    from tally import engine, evidence

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
        others = read_other_threads(game, source, extra, fetched_at, offline, store_path)
        tally = engine.count(thread, game, day_number, as_of=at, up_to_post=up_to_post,
                             others=others)
        return Counted(game, day_number, thread, others, at, up_to_post, tally)
    store = _open_store(game, store_path)
    main = _read_stored(game, game.day(day_number).thread_url or game.thread_url, offline, store)
    read = tuple(_read_stored(game, url, offline, store) for url in game.extra_threads) \
        if _reads_other_threads(game) else ()
    others = tuple(other.thread for other in read)
    tally = engine.count(main.thread, game, day_number, as_of=at, up_to_post=up_to_post,
                         others=others)
    snapshot = evidence.record(store, command=command, main=main, others=read,
                               game_text=game.path.read_text(encoding="utf-8"), tally=tally,
                               asked=evidence.Asked(at, up_to_post))
    return Counted(game, day_number, main.thread, others, at, up_to_post, tally, main, snapshot,
                   len(main.versions) + sum(len(other.versions) for other in read))


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
        if strict and needs_gm(tally):
            raise typer.Exit(EXIT_NEEDS_GM)


def known_format(fmt: str, known: Sequence[str]) -> None:
    """An unknown --format is a bad command line (exit 2), found before anything is read."""
    if fmt not in known:
        raise UsageError(f"--format {fmt!r}: unknown format (known: {', '.join(known)})")


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
    from tally import evidence, forensics
    from tally.store import Store

    path = store_path_of(game_path, store_path)
    if not path.is_file():
        raise InputError(f"snapshot store {path}: no such file")
    with Store(path) as store:
        replayed = evidence.replay(store, snapshot_id, game_path, pick_day)
        report = forensics.report(replayed.main.sightings, replayed.game, replayed.tally)
        now = evidence.today(store, replayed, game_path, load_game)
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
        text = _first_game_file(url, source, timezone, preset, out, fetched_at)
        write_atomically(out, text)
        typer.echo(f"wrote {out}: check the lines marked CHECK, then run: tally count {out}")


def _first_game_file(url: str, source: Path | None, zone: str | None, preset: str, out: Path,
                     fetched_at: str | None) -> str:
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

    def read(zone_name: str, offline: bool = False) -> Thread:
        if source is not None:
            stated = times.parse_game_time(fetched_at, zone_name).utc if fetched_at else None
            return saved.read_saved_pages(source, engine, zone=zone_name, url=plain_url,
                                          fetched_at=stated)
        return crawl.read_thread(plain_url, engine, zone=zone_name, store=store,
                                 fetcher=None if offline else Fetcher(), offline=offline)

    thread = read(zone_name)
    proposal = first_file.propose_zone(thread, zone, engine.default_zone, engine.name,
                                       _board_language(source, store, engine, plain_url))
    if proposal.zone != zone_name:  # the pages' times read again in the zone proposed
        thread = read(proposal.zone, offline=True)
    options = first_file.InitOptions(url=plain_url, engine=engine.name, zone=proposal.zone,
                                     zone_given=zone is not None, preset=preset,
                                     title=thread.title or out.stem, zone_note=proposal.note)
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


def write_atomically(path: Path, text: str) -> None:
    """Write beside the target, then rename: an interrupted run leaves nothing half-written."""
    import os
    import tempfile

    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


@app.command()
def triggers(
    game: Path = typer.Argument(..., help="The game file (TOML) of a trigger-cn game.",
                                dir_okay=False),
    source: Path | None = FromOpt,
    fetched_at: str | None = FetchedAtOpt,
    offline: bool = OfflineOpt,
    store: Path | None = StoreOpt,
) -> None:
    """The GM's private trigger report (trigger-cn, T1-T8): never post it in the thread."""
    from tally.render.triggers import render_triggers
    from tally.triggers import judge_thread

    with errors():
        loaded = load_game(game)
        if loaded.preset != "trigger-cn":
            raise InputError(f"{game}: tally triggers is for trigger-cn games "
                             f"(this game's preset is {loaded.preset})")
        thread = read_thread(loaded, loaded.days[0].number, source, fetched_at, offline, store)
        typer.echo(render_triggers(judge_thread(thread, loaded)), nl=False)


# The other commands (post, snapshot, export, report) live in tally/commands/, one module each;
# importing the package registers them on `app`. Last, so that they can use what is above.
import tally.commands  # noqa: E402,F401

if __name__ == "__main__":  # pragma: no cover
    # Run as `python -m tally.cli`, this file is __main__, and tally.commands registered its
    # commands on the app of the module imported as tally.cli: run that one.
    from tally.cli import app as registered

    registered()
