"""The game file (TOML): roster, days, deadlines, GM events, preset and options.

`load(path)` turns the file into a frozen `Game`; every problem is a `GameFileError` whose one
line names the file, the line and the key ("game.toml:14: days[2].deadline: …"). Times in the
file are wall times in the game's `timezone` unless they carry an offset; they are stored in UTC.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tally import times
from tally.errors import GameFileError, InputError

# Event kinds every preset understands; presets add their own (rules/<preset>.EVENT_KINDS).
CORE_EVENT_KINDS = frozenset({"death", "revival", "replacement", "deadline"})
# Keys an [[events]] table may carry besides the core ones, with their types: the parameters
# presets read (Event's typed fields: espia's `votes`, trigger-cn's `condition`, `floor`,
# `min_chars`, `pattern`, `effect` and `name`, a replacement's new `account_id`) and a `note`
# for the GM. Any other key is a typo.
EVENT_PARAMETERS: Mapping[str, type | tuple[type, ...]] = {
    "votes": int, "condition": str, "floor": int, "min_chars": int, "pattern": str,
    "effect": str, "name": str, "account_id": (str, int), "note": str}


@dataclass(frozen=True, slots=True)
class Player:
    name: str  # the player's slot name, used in tallies; usually the account name
    aliases: tuple[str, ...] = ()  # other names players write for them (K14 in-game names too)
    account: str | None = None  # forum account name when it differs from `name`
    account_id: str | None = None  # forum user id, the surest link from a post to a player
    seat: int | None = None  # seat order for presets that need it (lupus L2)
    role: str | None = None  # GM-only; never rendered publicly (C5)

    @property
    def accounts(self) -> tuple[str, ...]:
        return (self.account,) if self.account else (self.name,)


@dataclass(frozen=True, slots=True)
class Day:
    number: int
    start: datetime  # UTC
    deadline: datetime  # UTC, after any GM deadline move
    thread_url: str | None = None  # the day's voting thread, for games that use one
    original_deadline: datetime | None = None  # set when a GM event moved the deadline


@dataclass(frozen=True, slots=True)
class Event:
    """A GM event: something the thread cannot show by itself (a death, a secret action, ...)."""

    at: datetime  # UTC
    kind: str
    player: str | None = None
    day: int | None = None
    target: str | None = None  # the other player an action names (protection, extra vote, ...)
    account: str | None = None  # replacement: the account taking over `player`'s slot
    deadline: datetime | None = None  # kind "deadline": the new deadline
    secret: bool = False  # GM-only (C5)
    # The parameters a preset reads, each typed by the reader (file:line on a wrong type); the
    # preset checks which it needs and their values (rules.Preset.validate).
    votes: int | None = None  # espia tramposo_add: the extra votes, 1 or 2 (E6; default 2)
    condition: str | None = None  # trigger-cn trigger: floor, first_reply, long_reply, ... (T1)
    name: str | None = None  # trigger-cn trigger: what the GM's report calls it
    effect: str | None = None  # trigger-cn trigger: what meeting it does (default substitute)
    floor: int | None = None  # trigger-cn condition "floor": the floor that meets it
    min_chars: int | None = None  # trigger-cn condition "long_reply": more characters than this
    pattern: str | None = None  # trigger-cn condition "regex": the regular expression
    account_id: str | None = None  # replacement: the forum user id of the account taking over
    note: str | None = None  # the GM's own note; read by nothing
    line: int | None = None  # where it stands in the game file, for error messages


@dataclass(frozen=True, slots=True)
class VoteSyntax:
    """How votes are written. Empty tuples mean "the preset's language pack default"."""

    vote_words: tuple[str, ...] = ()  # "vote", "##vote": cast "<word>: X" / "<word> X"
    unvote_words: tuple[str, ...] = ()  # "unvote", "##unvote"
    tags: tuple[str, ...] = ()  # BBCode-style tags: [vote]X[/vote]
    no_elimination: tuple[str, ...] = ()  # "no lynch", "sleep" where the preset allows it
    joke_markers: tuple[str, ...] = ()  # words that mark a joke vote (K4)
    patterns: tuple[str, ...] = ()  # extra regexes with a named group (?P<target>…)
    require_bold: bool = False
    language: str | None = None  # syntax pack: en, es, fr, ru, zh


@dataclass(frozen=True, slots=True)
class NameOptions:
    threshold: float = 85.0  # rapidfuzz score a fuzzy match needs
    margin: float = 10.0  # lead over the runner-up a fuzzy match needs


@dataclass(frozen=True, slots=True)
class Board:
    engine: str | None = None  # forced engine; detected from the URL otherwise
    language: str | None = None
    per_page: int | None = None
    # Discuz boards name their first floors (admin list `postnocustom`, first line = floor 1):
    # e.g. ["楼主", "沙发", "藤椅", "板凳"]; empty: the engine's stock names.
    floor_names: tuple[str, ...] = ()


ON_DOUBT = ("say", "hold")


@dataclass(frozen=True, slots=True)
class Posting:
    """[posting]: when `tally post` (the scheduled run) posts the count into the thread.

    The bot's forum account is named here; its password never is (environment or keyring).
    """

    account: str | None = None  # the bot's forum account name
    min_interval: int = 30  # minutes between two posted counts (a changed count waits this long)
    every_votes: int = 0  # post as soon as this many new votes came in since the last count (0: off)
    at_threshold: bool = True  # post at once when a player reaches the threshold or majority
    at_deadline: bool = True  # post the final count once the deadline has passed
    quiet_hours: tuple[str, str] | None = None  # ("01:00", "08:00") forum time: never post inside
    on_doubt: str = "say"  # "say": the post says what is unresolved; "hold": no post, tell the GM
    format: str | None = None  # bbcode | jv | markdown; default: the engine's own markup


@dataclass(frozen=True, slots=True)
class Game:
    path: Path
    title: str
    preset: str
    timezone: str
    thread_url: str
    board: Board
    players: tuple[Player, ...]
    days: tuple[Day, ...]
    events: tuple[Event, ...] = ()
    staff: tuple[str, ...] = ()
    excused: tuple[str, ...] = ()
    resolutions: Mapping[str, str] = field(default_factory=dict)  # written (as typed) -> player|"ignore"
    votes: VoteSyntax = VoteSyntax()
    names: NameOptions = NameOptions()
    options: Mapping[str, Any] = field(default_factory=dict)  # [rules]: preset option overrides
    extra_threads: tuple[str, ...] = ()  # more game threads (activity counts, R10)
    posting: Posting = Posting()  # [posting]: the scheduled run (tally post)
    language: str | None = None  # what the count is written in (issue 14); None: the preset's
    # Where the preset's name and each [rules] option stand in the file ("preset", "rules.KEY"),
    # read once here: the preset's own checks name the line without reading the file again.
    lines: Mapping[str, int] = field(default_factory=dict, compare=False)

    def day(self, number: int) -> Day:
        for day in self.days:
            if day.number == number:
                return day
        known = ", ".join(str(d.number) for d in self.days) or "none"
        raise InputError(f"{self.path}: no day {number} in the game file (days: {known})")

    def player(self, name: str) -> Player | None:
        for player in self.players:
            if player.name == name:
                return player
        return None

    def events_of(self, *kinds: str) -> tuple[Event, ...]:
        return tuple(e for e in self.events if not kinds or e.kind in kinds)


# ---------------------------------------------------------------------------------------------
# Loading


def _not_utf8(data: bytes, exc: UnicodeDecodeError) -> str:
    """What an editor saved instead of UTF-8, and where (issue 16: say what the file is)."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "1: the file is saved as UTF-16 (Notepad's \"Unicode\"); save it as UTF-8"
    line = data[:exc.start].count(b"\n") + 1
    return (f"{line}: not UTF-8 (byte 0x{data[exc.start]:02x}: saved as Latin-1 or "
            "Windows-1252?); save the file as UTF-8")


def load(path: str | Path) -> Game:
    """Read and check a game file. The preset's name, its event kinds and its options are the
    preset's to check (rules.for_game), with the lines recorded here: this module knows no
    preset (and does not import tally.rules, whose presets read a Game)."""
    path = Path(path)
    try:
        # utf-8-sig: Notepad saves UTF-8 with a byte-order mark, which TOML does not allow.
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise GameFileError(f"{path}: no such game file") from None
    except UnicodeDecodeError as exc:
        raise GameFileError(f"{path}:{_not_utf8(path.read_bytes(), exc)}") from None
    except OSError as exc:
        raise GameFileError(f"{path}: cannot read the game file: {exc}") from None
    return loads(text, path)


def loads(text: str, path: str | Path) -> Game:
    """A game file from its text (a snapshot keeps the text it was counted with); `path` names
    it in errors and places the default snapshot store."""
    path = Path(path)
    text = text.removeprefix("\ufeff")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        # tomllib says "... (at line 7, column 3)": lift the line into our file:line form.
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = found.group(1) if found else "?"
        reason = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise GameFileError(f"{path}:{line}: not valid TOML: {reason}") from None
    return _Reader(path, text, data).game()


class _Reader:
    """Checks one parsed file and builds the Game, naming file:line:key on any problem."""

    def __init__(self, path: Path, text: str, data: dict[str, Any]) -> None:
        self.path, self.text, self.data = path, text, data
        self.lines = text.splitlines()

    # -- error reporting ------------------------------------------------------------------
    def line_of(self, key: str, table: str | None = None, index: int | None = None) -> int | str:
        """Best-effort line number of `key` (inside the index-th [[table]] or [table])."""
        start = 0
        if table is not None:
            header = re.compile(rf"^\s*\[\[?\s*{re.escape(table)}\s*\]\]?\s*(#.*)?$")
            seen = -1
            for number, line in enumerate(self.lines):
                if header.match(line):
                    seen += 1
                    if index is None or seen == index:
                        start = number
                        break
            else:
                return "?"
        pattern = re.compile(rf"^\s*[\"']?{re.escape(key)}[\"']?\s*=")
        for number in range(start, len(self.lines)):
            if pattern.match(self.lines[number]):
                return number + 1
            if number > start and table is not None and self.lines[number].lstrip().startswith("["):
                break
        if table is None:  # an unknown table's header ("[[dayz]]" for "[[days]]")
            header = re.compile(rf"^\s*\[\[?\s*[\"']?{re.escape(key)}[\"']?\s*[\].]")
            found = next((n for n, line in enumerate(self.lines) if header.match(line)), None)
            if found is not None:
                return found + 1
        return start + 1 if table is not None else "?"

    def fail(self, where: str, message: str, key: str, table: str | None = None,
             index: int | None = None) -> GameFileError:
        return GameFileError(f"{self.path}:{self.line_of(key, table, index)}: {where}: {message}")

    def known_keys(self, row: Mapping[str, Any], known: set[str], where: str, table: str,
                   index: int | None = None) -> None:
        """An unknown key in a table is refused like an unknown top-level key: `alias =` for
        `aliases =` would otherwise be silently ignored (issue 16)."""
        for key in row:
            if key not in known:
                raise self.fail(f"{where}.{key}", f"unknown key (known: "
                                f"{', '.join(sorted(known))})", key, table, index)

    def number(self, value: Any, where: str, key: str, low: float, high: float | None,
               table: str | None = None, index: int | None = None) -> Any:
        """A number the file gives, within what it can mean."""
        if value is not None and (value < low or (high is not None and value > high)):
            span = f"from {low:g} to {high:g}" if high is not None else f"{low:g} or more"
            raise self.fail(where, f"must be {span}, got {value}", key, table, index)
        return value

    # -- typed getters ----------------------------------------------------------------------
    def need(self, mapping: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str,
             table: str | None = None, index: int | None = None) -> Any:
        if key not in mapping:
            line = self.line_of(table, None, None) if table and index is None else (
                self.line_of(key, table, index))
            parent = where.rsplit(".", 1)[0] if where.endswith(f".{key}") else where
            raise GameFileError(f"{self.path}:{line}: {parent}: missing required key {key!r}")
        return self.opt(mapping, key, kind, where, None, table, index)

    def opt(self, mapping: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str,
            default: Any = None, table: str | None = None, index: int | None = None) -> Any:
        if key not in mapping:
            return default
        value = mapping[key]
        if kind is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
            raise self.fail(where, f"expected {names}, got {value!r}", key, table, index)
        return value

    def strings(self, mapping: Mapping[str, Any], key: str, where: str, table: str | None = None,
                index: int | None = None) -> tuple[str, ...]:
        value = self.opt(mapping, key, (list, str), where, [], table, index)
        if isinstance(value, str):
            value = [value]
        if not all(isinstance(v, str) for v in value):
            raise self.fail(where, "expected a list of strings", key, table, index)
        return tuple(value)

    def when(self, value: Any, zone: str, where: str, key: str, table: str | None = None,
             index: int | None = None) -> datetime:
        if isinstance(value, datetime):  # TOML datetimes: offset-aware or local
            value = value.isoformat()
        if not isinstance(value, str):
            raise self.fail(where, f"expected a time string, got {value!r}", key, table, index)
        try:
            return times.parse_game_time(value, zone).utc
        except InputError as exc:
            raise self.fail(where, str(exc), key, table, index) from None

    # -- the file ---------------------------------------------------------------------------
    def game(self) -> Game:
        data = self.data
        known_top = {"title", "preset", "timezone", "staff", "excused", "thread", "players", "days",
                     "events", "resolutions", "votes", "names", "rules", "board", "threads",
                     "posting", "language"}
        for key in data:
            if key not in known_top:
                raise self.fail(key, f"unknown key (known: {', '.join(sorted(known_top))})", key)
        preset = self.need(data, "preset", str, "preset")
        zone = self.opt(data, "timezone", str, "timezone", "UTC")
        try:
            times.zone(zone)
        except InputError as exc:
            raise self.fail("timezone", str(exc), "timezone") from None

        thread = self.opt(data, "thread", dict, "thread", {})
        url = self.need(thread, "url", str, "thread.url", "thread") if thread else None
        if not url:
            raise GameFileError(f"{self.path}:?: thread: missing required table [thread] with url")
        self.web_address(url, "thread.url", "url", "thread")
        self.known_keys(thread, {"url", "engine", "language", "per_page", "floor_names"},
                        "thread", "thread")
        board = Board(
            engine=self.opt(thread, "engine", str, "thread.engine", None, "thread"),
            language=self.opt(thread, "language", str, "thread.language", None, "thread"),
            per_page=self.number(self.opt(thread, "per_page", int, "thread.per_page", None,
                                          "thread"), "thread.per_page", "per_page", 1, None,
                                 "thread"),
            floor_names=self.strings(thread, "floor_names", "thread.floor_names", "thread"),
        )
        self.known_engine(board.engine)
        players = self.players()
        names = {p.name for p in players}
        events = self.events(zone, names)
        days = self.days(zone, events)
        resolutions = self.resolutions(names)
        votes_t = self.opt(data, "votes", dict, "votes", {})
        self.known_keys(votes_t, {"vote", "unvote", "tags", "no_elimination", "joke_markers",
                                  "patterns", "require_bold", "language"}, "votes", "votes")
        votes = VoteSyntax(
            vote_words=self.strings(votes_t, "vote", "votes.vote", "votes"),
            unvote_words=self.strings(votes_t, "unvote", "votes.unvote", "votes"),
            tags=self.strings(votes_t, "tags", "votes.tags", "votes"),
            no_elimination=self.strings(votes_t, "no_elimination", "votes.no_elimination", "votes"),
            joke_markers=self.strings(votes_t, "joke_markers", "votes.joke_markers", "votes"),
            patterns=self.patterns(votes_t),
            require_bold=self.opt(votes_t, "require_bold", bool, "votes.require_bold", False, "votes"),
            language=self.opt(votes_t, "language", str, "votes.language", None, "votes"),
        )
        names_t = self.opt(data, "names", dict, "names", {})
        self.known_keys(names_t, {"threshold", "margin"}, "names", "names")
        name_opts = NameOptions(  # scores are rapidfuzz's, 0 to 100 (C2)
            threshold=self.number(self.opt(names_t, "threshold", float, "names.threshold", 85.0,
                                           "names"), "names.threshold", "threshold", 0, 100,
                                  "names"),
            margin=self.number(self.opt(names_t, "margin", float, "names.margin", 10.0, "names"),
                               "names.margin", "margin", 0, 100, "names"),
        )
        staff = self.strings(data, "staff", "staff")
        excused = self.strings(data, "excused", "excused")
        options = dict(self.opt(data, "rules", dict, "rules", {}))
        for name in excused:
            if name not in names:
                raise self.fail("excused", f"{name!r} is not a player", "excused")
        return Game(
            path=self.path,
            title=self.opt(data, "title", str, "title", self.path.stem),
            preset=preset,
            timezone=zone,
            thread_url=url,
            board=board,
            players=players,
            days=days,
            events=events,
            staff=staff,
            excused=excused,
            resolutions=resolutions,
            votes=votes,
            names=name_opts,
            options=options,
            extra_threads=self.strings(data, "threads", "threads"),
            posting=self.posting(),
            language=self.opt(data, "language", str, "language", None),
            lines=self.key_lines({"rules": options,
                                  "posting": self.opt(data, "posting", dict, "posting", {}),
                                  "votes": ("language",)}),
        )

    def posting(self) -> Posting:
        table = self.opt(self.data, "posting", dict, "posting", {})
        known = {"account", "password", "min_interval", "every_votes", "at_threshold",
                 "at_deadline", "quiet_hours", "on_doubt", "format"}
        for key in table:
            if key not in known - {"password"}:
                if key == "password":  # never in the file: it would end up in backups and repos
                    raise self.fail("posting.password", "a password never goes in the game file; "
                                    "set TALLY_PASSWORD or store it with `keyring set tally "
                                    "<account>`", key, "posting")
                raise self.fail(f"posting.{key}", "unknown key (known: "
                                f"{', '.join(sorted(known - {'password'}))})", key, "posting")

        def whole(key: str, default: int) -> int:
            value = self.opt(table, key, int, f"posting.{key}", default, "posting")
            if value < 0:
                raise self.fail(f"posting.{key}", f"must be 0 or more, got {value}", key, "posting")
            return int(value)

        quiet = self.opt(table, "quiet_hours", str, "posting.quiet_hours", None, "posting")
        hours = None
        if quiet is not None:
            found = re.fullmatch(r"\s*(\d{1,2}:\d{2})\s*-\s*(\d{1,2}:\d{2})\s*", quiet)
            if not found or not all(_clock(t) for t in found.groups()):
                raise self.fail("posting.quiet_hours", f"expected 'HH:MM-HH:MM' in forum time, got "
                                f"{quiet!r}", "quiet_hours", "posting")
            hours = (found.group(1).zfill(5), found.group(2).zfill(5))
        on_doubt = self.opt(table, "on_doubt", str, "posting.on_doubt", "say", "posting")
        if on_doubt not in ON_DOUBT:
            raise self.fail("posting.on_doubt", f"expected one of {', '.join(ON_DOUBT)}, got "
                            f"{on_doubt!r}", "on_doubt", "posting")
        return Posting(
            account=self.opt(table, "account", str, "posting.account", None, "posting"),
            min_interval=whole("min_interval", 30),
            every_votes=whole("every_votes", 0),
            at_threshold=self.opt(table, "at_threshold", bool, "posting.at_threshold", True,
                                  "posting"),
            at_deadline=self.opt(table, "at_deadline", bool, "posting.at_deadline", True, "posting"),
            quiet_hours=hours,
            on_doubt=on_doubt,
            format=self.opt(table, "format", str, "posting.format", None, "posting"),
        )

    def players(self) -> tuple[Player, ...]:
        rows = self.opt(self.data, "players", list, "players", [])
        if not rows:
            raise GameFileError(f"{self.path}:?: players: the roster is empty (add [[players]] tables)")
        players: list[Player] = []
        seen: dict[str, int] = {}
        for i, row in enumerate(rows):
            where = f"players[{i}]"
            if not isinstance(row, dict):
                raise GameFileError(f"{self.path}:?: {where}: expected a [[players]] table")
            name = self.need(row, "name", str, f"{where}.name", "players", i).strip()
            if not name:
                raise self.fail(f"{where}.name", "empty name", "name", "players", i)
            if name.casefold() in seen:
                raise self.fail(f"{where}.name", f"{name!r} is listed twice", "name", "players", i)
            seen[name.casefold()] = i
            self.known_keys(row, {"name", "aliases", "account", "account_id", "seat", "role"},
                            where, "players", i)
            account_id = self.opt(row, "account_id", (str, int), f"{where}.account_id", None, "players", i)
            players.append(Player(
                name=name,
                aliases=self.strings(row, "aliases", f"{where}.aliases", "players", i),
                account=self.opt(row, "account", str, f"{where}.account", None, "players", i),
                account_id=None if account_id is None else str(account_id),
                seat=self.number(self.opt(row, "seat", int, f"{where}.seat", None, "players", i),
                                 f"{where}.seat", "seat", 1, None, "players", i),
                role=self.opt(row, "role", str, f"{where}.role", None, "players", i),
            ))
        self.one_player_per_name(players)
        return tuple(players)

    def one_player_per_name(self, players: list[Player]) -> None:
        """One account id, one alias, one name: one player. A copy-paste that gives two players
        one account_id would give one player's votes to the other (issue 16)."""
        ids: dict[str, int] = {}
        said: dict[str, tuple[int, str]] = {p.name.casefold(): (i, "name")
                                            for i, p in enumerate(players)}
        for i, player in enumerate(players):
            where = f"players[{i}]"
            if player.account_id is not None:
                if player.account_id in ids:
                    other = players[ids[player.account_id]]
                    raise self.fail(f"{where}.account_id", f"{player.name} and {other.name} both "
                                    f"have account_id {player.account_id!r}: one account is one "
                                    "player", "account_id", "players", i)
                ids[player.account_id] = i
            for alias in player.aliases:
                seen = said.get(alias.casefold())
                if seen is not None and seen[0] != i:
                    other = players[seen[0]]
                    what = "the name" if seen[1] == "name" else "an alias"
                    raise self.fail(f"{where}.aliases", f"{alias!r} of {player.name} is also "
                                    f"{what} of {other.name}: a vote for it could be either's",
                                    "aliases", "players", i)
                said.setdefault(alias.casefold(), (i, "alias"))

    def known_engine(self, engine: str | None) -> None:
        """The engine the file names exists, refused with file and line as any other game-file
        error (imported here, late: adapters read pages, not game files)."""
        from tally import adapters

        if engine is not None and engine not in adapters.engines():
            raise self.fail("thread.engine", f"unknown forum engine {engine!r} (known: "
                            f"{', '.join(adapters.engines())})", "engine", "thread")

    def web_address(self, url: str, where: str, key: str, table: str | None = None,
                    index: int | None = None) -> None:
        """A thread's address is a web address (or engine:address): "forum.example.org/…" or
        a typo was taken until the first online read, then reported as the forum's (exit 4)."""
        plain = re.sub(r"^[a-z0-9]+:(?!//)", "", url.strip())
        parts = urlsplit(plain)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise self.fail(where, f"{url!r} is not a web address (https://…)", key, table, index)

    def key_lines(self, tables: Mapping[str, Iterable[str]]) -> dict[str, int]:
        """The lines of `preset`, `staff` and of each key of the tables named ("rules": the options,
        "posting"), written in the table or as `TABLE.KEY =`: for the checks made once the
        preset or the renderer reads them ("rules.threshold", "posting.format")."""
        found: dict[str, int] = {}
        for top in ("preset", "staff", "language"):
            line = self.line_of(top)
            if isinstance(line, int):
                found[top] = line
        inside: str | None = None
        for number, line in enumerate(self.lines, start=1):
            stripped = line.strip()
            if stripped.startswith("["):
                header = re.match(r"^\[\s*([\w-]+)\s*\]", stripped)
                inside = header.group(1) if header else None
                continue
            for table, keys in tables.items():
                for key in keys:
                    if f"{table}.{key}" in found:
                        continue
                    pattern = rf"^\s*[\"']?{re.escape(key)}[\"']?\s*="
                    if inside == table and re.match(pattern, line) or \
                            re.match(rf"^\s*{re.escape(table)}\.{re.escape(key)}\s*=", line):
                        found[f"{table}.{key}"] = number
        return found

    def events(self, zone: str, names: set[str]) -> tuple[Event, ...]:
        rows = self.opt(self.data, "events", list, "events", [])
        events: list[Event] = []
        core = {"at", "kind", "player", "day", "target", "account", "deadline", "secret"}
        for i, row in enumerate(rows):
            where = f"events[{i}]"
            if not isinstance(row, dict):
                raise GameFileError(f"{self.path}:?: {where}: expected an [[events]] table")
            self.known_keys(row, core | set(EVENT_PARAMETERS), where, "events", i)
            kind = self.need(row, "kind", str, f"{where}.kind", "events", i)
            at = self.when(self.need(row, "at", (str, datetime), f"{where}.at", "events", i), zone,
                           f"{where}.at", "at", "events", i)
            player = self.opt(row, "player", str, f"{where}.player", None, "events", i)
            target = self.opt(row, "target", str, f"{where}.target", None, "events", i)
            for key, value in (("player", player), ("target", target)):
                if value is not None and value not in names:
                    raise self.fail(f"{where}.{key}", f"{value!r} is not a player in the roster",
                                    key, "events", i)
            if kind in ("death", "revival", "replacement") and player is None:
                raise self.fail(where, f"a {kind} event needs 'player'", "kind", "events", i)
            account = self.opt(row, "account", str, f"{where}.account", None, "events", i)
            if kind == "replacement" and not account:
                raise self.fail(where, "a replacement event needs 'account' (who takes the slot)",
                                "kind", "events", i)
            deadline = None
            day = self.opt(row, "day", int, f"{where}.day", None, "events", i)
            if kind == "deadline":
                raw = self.need(row, "deadline", (str, datetime), f"{where}.deadline", "events", i)
                deadline = self.when(raw, zone, f"{where}.deadline", "deadline", "events", i)
                if day is None:
                    raise self.fail(where, "a deadline event needs 'day'", "kind", "events", i)
            line = self.line_of("kind", "events", i)
            events.append(Event(
                at=at, kind=kind, player=player, day=day, target=target, account=account,
                deadline=deadline,
                secret=self.opt(row, "secret", bool, f"{where}.secret", False, "events", i),
                line=line if isinstance(line, int) else None,
                **self.event_parameters(row, where, i),
            ))
        return tuple(sorted(events, key=lambda e: e.at))

    def event_parameters(self, row: Mapping[str, Any], where: str, index: int) -> dict[str, Any]:
        """The preset parameters an [[events]] table gives, each of its type (an account id
        written as a number is the same id as text)."""
        found: dict[str, Any] = {}
        for key, kind in EVENT_PARAMETERS.items():
            value = self.opt(row, key, kind, f"{where}.{key}", None, "events", index)
            if value is not None:
                found[key] = str(value) if key == "account_id" else value
        return found

    def days(self, zone: str, events: tuple[Event, ...]) -> tuple[Day, ...]:
        rows = self.opt(self.data, "days", list, "days", [])
        if not rows:
            raise GameFileError(f"{self.path}:?: days: no days (add [[days]] tables with start and deadline)")
        days: list[Day] = []
        for i, row in enumerate(rows):
            where = f"days[{i}]"
            if not isinstance(row, dict):
                raise GameFileError(f"{self.path}:?: {where}: expected a [[days]] table")
            self.known_keys(row, {"number", "start", "deadline", "thread"}, where, "days", i)
            number = self.number(self.opt(row, "number", int, f"{where}.number", i + 1, "days",
                                          i), f"{where}.number", "number", 0, None, "days", i)
            start = self.when(self.need(row, "start", (str, datetime), f"{where}.start", "days", i),
                              zone, f"{where}.start", "start", "days", i)
            deadline = self.when(self.need(row, "deadline", (str, datetime), f"{where}.deadline", "days", i),
                                 zone, f"{where}.deadline", "deadline", "days", i)
            if deadline <= start:
                raise self.fail(f"{where}.deadline", "the deadline is not after the start",
                                "deadline", "days", i)
            if any(d.number == number for d in days):
                raise self.fail(f"{where}.number", f"day {number} is listed twice", "number", "days", i)
            day_thread = self.opt(row, "thread", str, f"{where}.thread", None, "days", i)
            if day_thread is not None:
                self.web_address(day_thread, f"{where}.thread", "thread", "days", i)
            day = Day(number=number, start=start, deadline=deadline, thread_url=day_thread)
            moves = [e.deadline for e in events
                     if e.kind == "deadline" and e.day == number and e.deadline is not None]
            if moves:  # the last announcement wins; the original stays for the audit
                day = replace(day, deadline=moves[-1], original_deadline=deadline)
            days.append(day)
        for event in events:
            if event.kind == "deadline" and not any(d.number == event.day for d in days):
                raise GameFileError(f"{self.path}:{event.line or '?'}: events: deadline move for day "
                                    f"{event.day}, which is not in [[days]]")
        return tuple(sorted(days, key=lambda d: d.number))

    def resolutions(self, names: set[str]) -> dict[str, str]:
        table = self.opt(self.data, "resolutions", dict, "resolutions", {})
        out: dict[str, str] = {}
        for written, player in table.items():
            if not isinstance(player, str):
                raise self.fail(f"resolutions.{written}", "expected a player name or \"ignore\"", written)
            if player != "ignore" and player not in names:
                raise self.fail(f"resolutions.{written}", f"{player!r} is not a player in the roster", written)
            out[written] = player
        return out

    def patterns(self, votes_t: Mapping[str, Any]) -> tuple[str, ...]:
        patterns = self.strings(votes_t, "patterns", "votes.patterns", "votes")
        for pattern in patterns:
            try:
                compiled = re.compile(pattern)
            except re.error as exc:
                raise self.fail("votes.patterns", f"bad regex {pattern!r}: {exc}", "patterns", "votes") from None
            if "target" not in compiled.groupindex:
                raise self.fail("votes.patterns", f"regex {pattern!r} needs a group (?P<target>…)",
                                "patterns", "votes")
        return patterns


def _clock(text: str) -> bool:
    hours, minutes = text.split(":")
    return int(hours) < 24 and int(minutes) < 60
