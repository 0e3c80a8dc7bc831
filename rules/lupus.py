"""The `lupus` preset: Lupus in Tabula played on a forum (RULES.md section 4, L1-L4).

Two rounds a day, modelled as two [[days]] of the game file, paired by number: an odd day is
round one (the suspects' vote) and the even day after it is round two (the lynch) of the same
game day. Game day 1 is days 1 and 2, game day 2 is days 3 and 4, and so on:

    [[days]]                      # round one of game day 1: everyone votes, ghosts too (L1)
    number = 1
    start = "2024-03-01 10:00"
    deadline = "2024-03-01 22:00"

    [[days]]                      # round two of game day 1: the living non-suspects vote (L4)
    number = 2
    start = "2024-03-01 22:15"
    deadline = "2024-03-02 10:00"

GM events this preset reads:

- `bienvenido` (player: who holds the "¡Bienvenido!" card from `at` on). The card breaks ties
  (L2): the tied player seated closest to the holder counting clockwise wins. Seats are the
  players' `seat` numbers, which increase clockwise round the table (ghosts keep their seat).
- `buho_pick` (target: the Hombre-búho's pick, day: the round-one day; player: the Hombre-búho,
  optional). The pick is a suspect ahead of the others (L3). The GM announces it once everybody
  has voted, so the public tally shows it only when round one is closed and the event is not
  marked `secret`; the GM's result (`gm_outcome`) always applies it. The Hombre-búho's identity
  is never public (C5).
- `suspects` (player and target: the two suspects, day: the round-two day). Written by the GM
  from round one's result; round two cannot be counted without it.

Round one eliminates nobody: its outcome is "none" and its detail names the two suspects
("suspects: Andrew, Danielle (…)"). Where the rulebook (a table game) is silent, the forum
defaults are: Spanish vote syntax; the last valid vote counts and a revoke withdraws it; edits do
not void; the deadline second is inclusive (C7); a tie with no holder or no seats goes to the GM.

Not implemented: the mortal Hombre-búho (more than 20 players, his pick dies at dawn: the GM
records it as a death event) and round-two votes sent by PM (the GM counts those by hand).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from tally.errors import GameFileError
from tally.game import CORE_EVENT_KINDS, Event, Game
from tally.model import Finding, Outcome, Tally, msg, msg_clauses, msg_n
from tally.rules import validity as v
from tally.rules.change import settle
from tally.rules.outcome import Pile, edits_note, inclusive, not_voting, piles, tally
from tally.rules.preset import Preset
from tally.rules.reading import Context, Reading, Stage, void_steps
from tally.syntax import pack

EVENT_KINDS = CORE_EVENT_KINDS | {"bienvenido", "buho_pick", "suspects"}
CARD = "¡Bienvenido!"


@dataclass(frozen=True)
class LupusOptions:
    precision: str = field(default="second", metadata={"choices": ("second", "minute")})  # C7
    void_edited: bool = False  # the rulebook is silent: edits do not void (the game may forbid)


def round_of(day: int) -> int:
    """1 for an odd day (the suspects' vote), 2 for an even one (the lynch)."""
    return 1 if day % 2 else 2


# ---------------------------------------------------------------------------------------------
# What the GM's events say about the day


def holder(ctx: Context) -> str | None:
    """Who holds "¡Bienvenido!" at the cut-off: the latest `bienvenido` event before it."""
    held = [e.player for e in ctx.game.events_of("bienvenido") if e.at <= ctx.cutoff and e.player]
    return held[-1] if held else None


def suspects_of(ctx: Context) -> tuple[str, str] | None:
    """Round two's suspects, from the `suspects` event for this day (the last one wins)."""
    found = [e for e in ctx.game.events_of("suspects")  # C6: known from the event's time
             if e.day == ctx.day.number and e.player and e.target and e.at <= ctx.as_of]
    return (found[-1].player or "", found[-1].target or "") if found else None


def owl_pick(ctx: Context) -> Event | None:
    found = [e for e in ctx.game.events_of("buho_pick")  # C6: no pick before the owl makes it
             if e.day == ctx.day.number and e.target and e.at <= ctx.as_of]
    return found[-1] if found else None


# ---------------------------------------------------------------------------------------------
# Validity: who votes in which round, for whom


def electorate(rule_one: str, rule_two: str) -> Stage:
    """L1: in round one every player votes, ghosts included; L4: in round two only the living
    who are not suspects."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        voter, at = reading.voter, reading.post.created_at
        rule = rule_one if round_of(ctx.day.number) == 1 else rule_two
        if voter is None or rule == rule_one:  # a non-player's post holds no vote (reading)
            return reading, ()
        died = ctx.life.death(voter, at)
        if died is not None:
            return void_steps(reading, rule, msg("{player} is a ghost (died {when}): ghosts do not "
                                                 "vote in round two", player=voter,
                                                 when=ctx.clock(died, at))), ()
        if voter in (suspects_of(ctx) or ()):
            return void_steps(reading, rule, msg("{player} is a suspect: suspects do not vote in "
                                                 "round two", player=voter)), ()
        return reading, ()

    return v.each(check)


def between_suspects(rule: str) -> Stage:
    """L4: a round-two vote goes to one of the two suspects."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        pair = suspects_of(ctx)
        if round_of(ctx.day.number) == 1 or pair is None:
            return reading, ()
        reason = msg("not a suspect: round two is between {first} and {second}", first=pair[0],
                     second=pair[1])
        return void_steps(reading, rule, reason, ("vote",),
                          only=lambda a: a.target is not None and a.target not in pair), ()

    return v.each(check)


def validity(o: LupusOptions) -> tuple[Stage, ...]:
    return (
        v.late("C7", o.precision),
        electorate("L1", "L4"),
        v.edit_marker("edited", "edited", void_revokes=o.void_edited, void_votes=o.void_edited),
        v.no_elimination("L1", allowed=False),
        v.names_resolved("C2"),
        v.target_alive("L1"),  # a ghost is no suspect and is not lynched
        between_suspects("L4"),
        v.joke("L1"),
    )


# ---------------------------------------------------------------------------------------------
# L2: the most voted, ties broken by the seat closest to the holder of "¡Bienvenido!"


@dataclass(frozen=True, slots=True)
class Choice:
    chosen: tuple[str, ...]
    why: tuple[str, ...]  # one phrase per vote level taken
    tied: tuple[str, ...] = ()  # the players L2 chose among
    unresolved: str = ""  # why L2 could not decide: the GM does


def clockwise(ctx: Context, card: str, player: str) -> int | None:
    """Seats from the holder to `player`, clockwise round the table (0: the holder himself)."""
    table = sorted((p.seat, p.name) for p in ctx.game.players if p.seat is not None)
    order = [name for _, name in table]
    if card not in order or player not in order:
        return None
    return (order.index(player) - order.index(card)) % len(order)


def choose(ranked: list[tuple[str, int]], places: int, ctx: Context) -> Choice:
    """The `places` most voted of `ranked` (player, votes); a tie for the last place: L2."""
    chosen: list[str] = []
    why: list[str] = []
    levels = sorted({votes for _, votes in ranked}, reverse=True)
    for votes in levels:
        room = places - len(chosen)
        if room <= 0:
            break
        group = [p for p, n in ranked if n == votes]
        if len(group) <= room:
            chosen += group
            why.append(msg_n("{players} with {n} vote", "{players} with {n} votes",
                             players=tuple(group), n=votes))
            continue
        head = msg("{players} tied at {votes}", players=tuple(group), votes=votes)
        card = holder(ctx)
        if card is None:
            return Choice(tuple(chosen), tuple(why), tuple(group),
                          msg("{head}: no holder of {card} in the game file (a bienvenido event)",
                              head=head, card=CARD))
        distance = {p: clockwise(ctx, card, p) for p in group + [card]}
        unseated = [p for p, d in distance.items() if d is None]
        if unseated:
            return Choice(tuple(chosen), tuple(why), tuple(group),
                          msg("{head}: no seat for {players} in the game file (players.seat)",
                              head=head, players=tuple(unseated)))
        won = sorted(group, key=lambda p: distance[p] or 0)[:room]
        chosen += won
        why.append(msg("{head}: {players} sits closest to {holder} ({card}) counting clockwise",
                       head=head, players=tuple(won), holder=card, card=CARD))
        return Choice(tuple(chosen), tuple(why), tuple(group))
    return Choice(tuple(chosen), tuple(why))


def _ranked(found: tuple[Pile, ...], skip: str | None = None) -> list[tuple[str, int]]:
    return [(p.count.player, p.count.votes) for p in found if p.count.player != skip]


# ---------------------------------------------------------------------------------------------
# Round one (L1-L3): the two suspects


def suspects_outcome(found: tuple[Pile, ...], ctx: Context, pick: str | None) -> Outcome:
    """L1: the two most voted are suspects; L3: the Hombre-búho's pick is one ahead of the rest."""
    head: tuple[str, ...] = ()
    if pick is None:
        choice = choose(_ranked(found), 2, ctx)
    else:
        choice, head = (choose(_ranked(found, pick), 1, ctx),
                        (msg("{player} is the Hombre-búho's pick", player=pick),))
        choice = replace(choice, chosen=(pick,) + choice.chosen)
    rule = "L3" if pick else "L2" if choice.tied else "L1"
    why = msg_clauses(*head, *choice.why)
    if choice.unresolved:
        detail = msg("{why}: the GM decides", why=msg_clauses(why, choice.unresolved))
        return Outcome("tie", None, "L2", detail, choice.tied)
    if len(choice.chosen) < 2:
        named: object = tuple(choice.chosen) if choice.chosen else msg("nobody")
        if why:
            return Outcome("undecided", None, rule, msg(
                "only {players} has votes: the GM names the second suspect ({why})",
                players=named, why=why))
        return Outcome("undecided", None, rule, msg(
            "only {players} has votes: the GM names the second suspect", players=named))
    return Outcome("none", None, rule, msg("suspects: {players} ({why})",
                                           players=tuple(choice.chosen), why=why), choice.tied)


def owl(ctx: Context) -> tuple[str | None, bool, tuple[Finding, ...]]:
    """L3: (the pick in effect, whether it is public yet, the GM's findings, all secret)."""
    event = owl_pick(ctx)
    if event is None or event.target is None:
        return None, False, ()
    who = event.player or msg("the Hombre-búho")
    head = msg("{player} (Hombre-búho) picks {target}", player=who, target=event.target)
    died = ctx.life.death(event.player, event.at) if event.player else None
    if died is not None:
        return None, False, (Finding("L3", msg("{head}: no effect, he was a ghost (died {when})",
                                               head=head, when=ctx.clock(died)),
                                     None, event.player, secret=True),)
    if not ctx.life.alive(event.target, ctx.cutoff):
        return None, False, (Finding("L3", msg("{head}: no effect, {player} is a ghost", head=head,
                                               player=event.target),
                                     None, event.player, needs_gm=True, secret=True),)
    public = not event.secret and ctx.as_of >= ctx.day.deadline  # announced once all have voted
    shown = (msg("announced with the result") if public
             else msg("GM only until the GM announces it"))
    return event.target, public, (Finding("L3", msg("{head}: a suspect ahead of the others ({shown})",
                                                    head=head, shown=shown),
                                          None, event.player, secret=True),)


# ---------------------------------------------------------------------------------------------
# Round two (L4): the lynch


def lynch_outcome(found: tuple[Pile, ...], ctx: Context, pair: tuple[str, str]) -> Outcome:
    """L4: the most voted of the two suspects is lynched; a tie goes by L2."""
    votes = dict(_ranked(found))
    if not votes:
        return Outcome("undecided", None, "L4", msg("no votes for {first} or {second}: the GM "
                                                    "decides", first=pair[0], second=pair[1]))
    ranked = sorted(((p, votes.get(p, 0)) for p in pair), key=lambda r: -r[1])
    choice = choose(ranked, 1, ctx)
    if choice.unresolved:
        return Outcome("tie", None, "L2", msg("{why}: the GM decides", why=choice.unresolved),
                       choice.tied)
    chosen = choice.chosen[0]
    if choice.tied:
        return Outcome("eliminated", chosen, "L2", choice.why[-1], choice.tied)
    return Outcome("eliminated", chosen, "L4", msg("most votes ({first} to {second})",
                                                   first=ranked[0][1], second=ranked[1][1]))


# ---------------------------------------------------------------------------------------------
# The stage after the change policy


def decide(readings: tuple[Reading, ...], ctx: Context, o: LupusOptions,
           findings: tuple[Finding, ...]) -> Tally:
    settlement = settle(readings)
    living = ctx.life.living(ctx.cutoff)
    found = piles(settlement, readings)
    if round_of(ctx.day.number) == 1:
        voters = tuple(p.name for p in ctx.game.players)  # L1: ghosts vote too
        absent, quiet = not_voting(ctx, voters, settlement, "L1")
        pick, public, secret = owl(ctx)
        outcome = suspects_outcome(found, ctx, pick if public else None)
        result = tally(ctx, readings, settlement.verdicts, found, outcome,
                       findings + quiet + secret, living, absent)
        if pick is None:
            return result
        return replace(result, gm_counts=result.counts, gm_outcome=suspects_outcome(found, ctx, pick))
    pair = suspects_of(ctx)
    if pair is None:  # who may vote is not known either: no list of non-voters
        day = ctx.day.number
        why = msg("day {day} is round two but no suspects event names its suspects (from round "
                  "one, day {before})", day=day, before=day - 1)
        outcome = Outcome("undecided", None, "L4", msg("{why}: the GM names them", why=why))
        absent, quiet = (), (Finding("L4", why, needs_gm=True),)
    else:
        voters = tuple(p for p in living if p not in pair)
        absent, quiet = not_voting(ctx, voters, settlement, "L4")
        outcome = lynch_outcome(found, ctx, pair)
    return tally(ctx, readings, settlement.verdicts, found, outcome, findings + quiet, living, absent)


def notes(o: LupusOptions) -> tuple[str, ...]:
    return (
        msg("L1/L4: odd days are round one (suspects), even days round two (lynch) of the same "
            "game day"),
        msg("L1: round one eliminates nobody; its result names the two suspects"),
        msg("L2: seats increase clockwise; a tie with no {card} holder or no seats goes to the GM",
            card=CARD),
        msg("L4: round two needs a suspects event; with no votes at all the GM decides"),
        msg("the last valid vote counts; a revoke withdraws it (default)"),
        edits_note(o.void_edited),
        inclusive(o.precision),
    )


# ---------------------------------------------------------------------------------------------
# The game file


@dataclass(frozen=True)
class LupusPreset(Preset[LupusOptions]):
    def validate(self, game: Game) -> None:
        """Also: each lupus event is on the right round; seats are unique."""
        super().validate(game)
        for event in game.events:
            where = f"{game.path}:{event.line or '?'}: events"
            wanted = {"buho_pick": 1, "suspects": 2}.get(event.kind)
            if wanted and event.day is not None and round_of(event.day) != wanted:
                which = "odd (round one)" if wanted == 1 else "even (round two)"
                raise GameFileError(f"{where}: a {event.kind} event belongs to an {which} day, "
                                    f"not day {event.day}")
            if event.kind == "suspects" and event.player == event.target:
                raise GameFileError(f"{where}: a suspects event names two different players")
        seated: dict[int, str] = {}
        for player in game.players:
            if player.seat is None:
                continue
            if player.seat in seated:
                raise GameFileError(f"{game.path}:{_seat_line(game, player.seat)}: players: seat "
                                    f"{player.seat} is given to both {seated[player.seat]} and "
                                    f"{player.name}")
            seated[player.seat] = player.name


def _seat_line(game: Game, seat: int) -> int | str:
    """The line of the second `seat = <seat>` in the game file ("?" when unknown)."""
    try:
        lines = game.path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return "?"
    found = [n for n, line in enumerate(lines, start=1) if re.match(rf"^\s*seat\s*=\s*{seat}\b", line)]
    return found[1] if len(found) > 1 else "?"


PRESET = LupusPreset(name="lupus", syntax=pack("es"), defaults=LupusOptions(), validity=validity,
                     decide=decide, notes=notes, event_kinds=EVENT_KINDS,
                     event_needs={"bienvenido": ("player",), "buho_pick": ("target", "day"),
                                  "suspects": ("player", "target", "day")})
