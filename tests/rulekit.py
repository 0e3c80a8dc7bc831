"""Tiny transcripts for rule tests: a few posts in, a Tally out (STYLE.md "Rule tests read like
small transcripts").

    g = game("kira", events=[death("Eve", "12:00:00")])
    t = judge(g, [("Alice", "03:10:00", vote("Bob")), ("Bob", "04:00:00", unvote())])
    assert verdict(t, 1).verdict == "superseded"

Posts are numbered from 1 in the order given (post id "1", "2", ...). Times are "HH:MM:SS" on
the kira day that starts 2016-01-17 03:00:00 UTC; a time before 03:00 is on the next morning, and
"+1 03:00:30" adds whole days. Ballots are built directly (no extraction), so a rule test does
not depend on the vote syntax.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from tally import rules
from tally.game import Board, Day, Event, Game, Player
from tally.model import Action, Ballot, Body, EditMarker, NameMatch, Post, Tally, Verdict

START = datetime(2016, 1, 17, 3, 0, 0, tzinfo=UTC)
DEADLINE = datetime(2016, 1, 18, 2, 59, 59, tzinfo=UTC)
PLAYERS = ("Alice", "Bob", "Carol", "Dan", "Eve")
URL = "https://www.jeuxvideo.com/forums/42-1-1000-1-0-1-0-kira.htm"


def at(clock: str) -> datetime:
    """"HH:MM:SS" on the test day (before 03:00: the next morning); "+N HH:MM:SS": N days on."""
    days = 0
    if clock.startswith(("+", "-")):
        shift, clock = clock.split(" ", 1)
        days = int(shift)
    h, m, s = (int(x) for x in clock.split(":"))
    when = START.replace(hour=h, minute=m, second=s)
    if when < START:
        when += timedelta(days=1)
    return when + timedelta(days=days)


def game(preset: str = "kira", *, players: Sequence[str | Player] = PLAYERS,
         events: Sequence[Event] = (), staff: Sequence[str] = ("Ryuk",),
         options: Mapping[str, Any] | None = None, path: Path = Path("game.toml"),
         **extra: Any) -> Game:
    roster = tuple(p if isinstance(p, Player) else Player(p) for p in players)
    return Game(path=path, title="Kira test", preset=preset, timezone=extra.pop("timezone", "UTC"),
                thread_url=URL, board=extra.pop("board", Board()), players=roster,
                days=(Day(1, START, DEADLINE),), events=tuple(events), staff=tuple(staff),
                options=dict(options or {}), **extra)


def death(player: str, clock: str) -> Event:
    return Event(at=at(clock), kind="death", player=player)


def revival(player: str, clock: str) -> Event:
    return Event(at=at(clock), kind="revival", player=player)


# -- actions --------------------------------------------------------------------------------------

def vote(name: str, *, joke: bool = False) -> Action:
    return Action("vote", name, NameMatch(name, name, "exact"), joke=joke, text=f"vote: {name}")


def unvote() -> Action:
    return Action("unvote", text="unvote")


def no_lynch() -> Action:
    return Action("no_elimination", "no lynch", text="vote: no lynch")


def unresolved(written: str, how: str = "ambiguous", guess: str | None = None,
               score: float = 0.0) -> Action:
    match = NameMatch(written, None, how, score, guess, score)  # type: ignore[arg-type]
    return Action("vote", written, match, text=f"vote: {written}")


# -- posts ----------------------------------------------------------------------------------------

def edited(text: str, clock: str | None = None, editor: str | None = None,
           times: int | None = 1) -> EditMarker:
    return EditMarker(text, editor, at(clock) if clock else None, times)


def post(number: int, author: str, clock: str, text: str = "", *, edit: EditMarker | None = None,
         fetched: str | None = None, deleted: bool = False) -> Post:
    return Post(id=str(number), position=number, permalink=f"{URL}#post_{number}", author=author,
                author_id=None, created_at=at(clock), time_text=f"{at(clock):%d/%m/%Y %H:%M:%S}",
                zone="UTC", body=Body(own=text), edit=edit,
                fetched_at=at(fetched) if fetched else None, deleted=deleted)


Row = tuple[Any, ...]  # (author, "HH:MM:SS", *actions[, {"edit": ..., "voter": ...}])


def ballots(g: Game, rows: Sequence[Row]) -> list[Ballot]:
    """Ballots from rows; the voter is the author when on the roster (override with "voter")."""
    names = {p.name for p in g.players}
    out: list[Ballot] = []
    for number, (author, clock, *rest) in enumerate(rows, start=1):
        extras: dict[str, Any] = dict(rest.pop()) if rest and isinstance(rest[-1], dict) else {}
        voter = extras.pop("voter", author if author in names else None)
        p = post(number, author, clock, **extras)
        out.append(Ballot(p, voter, tuple(rest)))
    return out


def judge(g: Game, rows: Sequence[Row], *, as_of: str | datetime | None = None,
          history: Mapping[str, tuple[Post, ...]] | None = None) -> Tally:
    when = at(as_of) if isinstance(as_of, str) else as_of or DEADLINE + timedelta(hours=1)
    return rules.get(g.preset).judge(ballots(g, rows), g, g.days[0], when, history or {})


def verdict(t: Tally, number: int) -> Verdict:
    found = [v for v in t.verdicts if v.post_id == str(number)]
    assert len(found) == 1, f"post {number}: {len(found)} verdicts"
    return found[0]


def counts(t: Tally) -> list[tuple[str, int, tuple[str, ...]]]:
    return [(c.player, c.votes, c.voters) for c in t.counts]


# -- posts as players write them ------------------------------------------------------------------

def read(g: Game, rows: Sequence[tuple[str, str, str]]) -> list[Ballot]:
    """Ballots read from (author, "HH:MM:SS", text) with the preset's own vote syntax, so that a
    test of the vote grammar (tally.extract) asserts counted numbers and verdict reasons."""
    from tally.extract import Extractor

    extractor = Extractor(g, rules.get(g.preset).syntax)
    return [extractor.ballot(post(n, author, clock, text))
            for n, (author, clock, text) in enumerate(rows, start=1)]


def judge_text(g: Game, rows: Sequence[tuple[str, str, str]]) -> Tally:
    """`judge` for posts written as text (see `read`), at the day's deadline."""
    return rules.get(g.preset).judge(read(g, rows), g, g.days[0], DEADLINE + timedelta(hours=1), {})
