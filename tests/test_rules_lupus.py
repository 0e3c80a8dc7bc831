"""The `lupus` preset, one test per requirement of RULES.md section 4 (L1-L4) and C5.

The table of the rulebook's example: Frank is the ghost holding "¡Bienvenido!"; seats increase
clockwise. Day 1 is round one (04:00-22:00 UTC), day 2 round two (22:05-02:00 the next morning).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime, timedelta
from typing import Any

import pytest
from rulekit import at, ballots, counts, death, game, post, verdict, vote

from tally import rules
from tally.errors import GameFileError
from tally.extract import Extractor
from tally.game import Day, Event, Game, Player
from tally.model import Finding, Tally
from tally.render import render

SEATS = ("Frank", "Danielle", "Bea", "Rebecca", "Andrew", "Carl", "Gina", "Hugo", "Iris")
ROLES = {"Carl": "Hombre-búho", "Andrew": "Hombre lobo", "Gina": "Hombre lobo", "Hugo": "Vidente"}
DAYS = (Day(1, at("04:00:00"), at("22:00:00")), Day(2, at("22:05:00"), at("02:00:00")))


def event(kind: str, clock: str, player: str | None = None, target: str | None = None,
          day: int | None = None, secret: bool = False, line: int | None = None) -> Event:
    return Event(at=at(clock), kind=kind, player=player, target=target, day=day, secret=secret,
                 line=line)


FRANK_DIED = death("Frank", "-1 23:00:00")  # killed in the night: a ghost, given the card
WELCOME = event("bienvenido", "-1 23:00:00", "Frank")
SUSPECTS = event("suspects", "22:01:00", "Andrew", "Danielle", day=2)


def lupus(events: Sequence[Event] = (FRANK_DIED, WELCOME), **extra: Any) -> Game:
    roster = tuple(Player(name, seat=n, role=ROLES.get(name)) for n, name in enumerate(SEATS, start=1))
    g = game("lupus", players=roster, events=events, staff=("Moderador",), **extra)
    return replace(g, days=DAYS)


def judge(g: Game, rows: Sequence[tuple[Any, ...]], day: int = 1,
          as_of: datetime | None = None) -> Tally:
    d = g.day(day)
    return rules.get("lupus").judge(ballots(g, rows), g, d, as_of or d.deadline + timedelta(hours=1), {})


def outcome(t: Tally) -> tuple[str, str | None, str, str]:
    return t.outcome.result, t.outcome.player, t.outcome.rule, t.outcome.detail


def findings(t: Tally, rule: str) -> list[tuple[str, bool, bool]]:
    return [(f.message, f.needs_gm, f.secret) for f in t.findings if f.rule == rule]


# The rulebook's example (9 votes, Frank the ghost included): Andrew 3, Danielle 2, Rebecca 2,
# Bea 1, Carl 1.
EXAMPLE = [("Frank", "10:00:00", vote("Danielle")), ("Danielle", "10:05:00", vote("Andrew")),
           ("Bea", "10:10:00", vote("Andrew")), ("Rebecca", "10:15:00", vote("Danielle")),
           ("Andrew", "10:20:00", vote("Rebecca")), ("Carl", "10:25:00", vote("Andrew")),
           ("Gina", "10:30:00", vote("Rebecca")), ("Hugo", "10:35:00", vote("Bea")),
           ("Iris", "10:40:00", vote("Carl"))]


def test_L1_round_one_everyone_votes_ghosts_included_two_most_voted_are_suspects() -> None:
    g = lupus()
    preset = rules.get("lupus")
    extractor = Extractor(g, preset.syntax)
    posts = [post(1, "Frank", "10:00:00", "Soy un fantasma pero voto a Danielle"),  # ghosts vote
             post(2, "Danielle", "10:05:00", "Voto: Andrew"),
             post(3, "Bea", "10:10:00", "[voto]Andrew[/voto]"),
             post(4, "Rebecca", "10:15:00", "Voto a Andrew"),
             post(5, "Andrew", "10:20:00", "Voto a Frank"),  # a ghost is no suspect
             post(6, "Carl", "10:25:00", "Todavía no sé a quién votar"),
             post(7, "Moderador", "10:30:00", "Voto a Bea")]  # the GM is not a player
    t = preset.judge([extractor.ballot(p) for p in posts], g, g.days[0], at("23:00:00"), {})
    assert counts(t) == [("Andrew", 3, ("Danielle", "Bea", "Rebecca")), ("Danielle", 1, ("Frank",))]
    assert verdict(t, 1).verdict == "counted"
    assert verdict(t, 5).verdict == "void" and verdict(t, 5).rule == "L1"
    assert verdict(t, 5).reason.startswith("Frank was not alive at 10:20:00")
    assert verdict(t, 6).verdict == "not_a_vote"
    assert (verdict(t, 7).verdict, verdict(t, 7).reason) == ("not_a_vote", "posted by the GM (staff), who does not vote")
    assert outcome(t) == ("none", None, "L1",
                          "suspects: Andrew, Danielle (Andrew with 3 votes; Danielle with 1 vote)")
    assert "Frank" not in t.living and t.not_voting == ("Andrew", "Carl", "Gina", "Hugo", "Iris")
    assert ("Andrew has no standing vote", False, False) in findings(t, "L1")


def test_L2_round_one_tie_goes_to_the_seat_closest_clockwise_to_the_bienvenido_holder() -> None:
    t = judge(lupus(), EXAMPLE)
    assert [(c, n) for c, n, _ in counts(t)] == [("Andrew", 3), ("Danielle", 2), ("Rebecca", 2),
                                                  ("Bea", 1), ("Carl", 1)]
    assert outcome(t) == ("none", None, "L2", "suspects: Andrew, Danielle (Andrew with 3 votes; "
                          "Danielle, Rebecca tied at 2: Danielle sits closest to Frank (¡Bienvenido!) "
                          "counting clockwise)")
    assert t.outcome.tied == ("Danielle", "Rebecca")
    # The card with Bea (seat 3): Rebecca (seat 4) is next clockwise, Danielle (seat 2) last.
    bea = judge(lupus(events=(FRANK_DIED, WELCOME, event("bienvenido", "09:00:00", "Bea"))), EXAMPLE)
    assert bea.outcome.detail.startswith("suspects: Andrew, Rebecca (")
    nobody = judge(lupus(events=(FRANK_DIED,)), EXAMPLE)
    assert outcome(nobody) == ("tie", None, "L2", "Andrew with 3 votes; Danielle, Rebecca tied at 2: "
                               "no holder of ¡Bienvenido! in the game file (a bienvenido event): "
                               "the GM decides")


def test_L2_round_two_tie_goes_to_the_seat_closest_clockwise() -> None:
    g = lupus(events=(FRANK_DIED, WELCOME, SUSPECTS))
    rows = [("Bea", "23:00:00", vote("Andrew")), ("Rebecca", "23:05:00", vote("Danielle"))]
    t = judge(g, rows, day=2)
    assert outcome(t) == ("eliminated", "Danielle", "L2", "Andrew, Danielle tied at 1: Danielle sits "
                          "closest to Frank (¡Bienvenido!) counting clockwise")


def test_L3_the_hombre_buho_pick_is_a_suspect_ahead_of_the_others() -> None:
    pick = event("buho_pick", "-1 23:30:00", "Carl", "Bea", day=1)
    g = lupus(events=(FRANK_DIED, WELCOME, pick))
    t = judge(g, EXAMPLE)  # after the close: the GM has announced the pick
    assert outcome(t) == ("none", None, "L3", "suspects: Bea, Andrew (Bea is the Hombre-búho's pick; "
                          "Andrew with 3 votes)")
    assert findings(t, "L3") == [("Carl (Hombre-búho) picks Bea: a suspect ahead of the others "
                                  "(announced with the result)", False, True)]
    # Before the close the pick is the GM's alone: the public count shows the votes only.
    early = judge(g, EXAMPLE, as_of=at("12:00:00"))
    assert early.outcome.detail.startswith("suspects: Andrew, Danielle (")
    assert early.gm_outcome is not None and early.gm_outcome.detail.startswith("suspects: Bea, Andrew (")
    hidden = judge(lupus(events=(FRANK_DIED, WELCOME, replace(pick, secret=True))), EXAMPLE)
    assert hidden.outcome.detail.startswith("suspects: Andrew, Danielle (")
    # A pick among the two most voted changes nothing.
    top = judge(lupus(events=(FRANK_DIED, WELCOME, replace(pick, target="Andrew"))), EXAMPLE)
    assert top.outcome.detail.startswith("suspects: Andrew, Danielle (Andrew is the Hombre-búho's pick; "
                                         "Danielle, Rebecca tied at 2: Danielle sits closest")


def test_L4_round_two_only_living_non_suspects_vote_between_the_suspects() -> None:
    g = lupus(events=(FRANK_DIED, WELCOME, SUSPECTS))
    rows = [("Frank", "22:10:00", vote("Andrew")),  # a ghost
            ("Andrew", "22:15:00", vote("Danielle")),  # a suspect
            ("Bea", "22:20:00", vote("Rebecca")),  # not a suspect
            ("Bea", "22:25:00", vote("Andrew")), ("Carl", "22:30:00", vote("Danielle")),
            ("Gina", "22:35:00", vote("Danielle")), ("Hugo", "22:40:00", vote("Danielle")),
            ("Iris", "22:45:00", vote("Andrew")), ("Rebecca", "22:50:00", vote("Danielle"))]
    t = judge(g, rows, day=2)
    assert [(verdict(t, n).verdict, verdict(t, n).rule, verdict(t, n).reason) for n in (1, 2, 3)] == [
        ("void", "L4", "Frank is a ghost (died 2016-01-16 23:00:00): ghosts do not vote in round two"),
        ("void", "L4", "Andrew is a suspect: suspects do not vote in round two"),
        ("void", "L4", "not a suspect: round two is between Andrew and Danielle")]
    assert counts(t) == [("Danielle", 4, ("Carl", "Gina", "Hugo", "Rebecca")),
                         ("Andrew", 2, ("Bea", "Iris"))]
    assert outcome(t) == ("eliminated", "Danielle", "L4", "most votes (4 to 2)")
    assert t.not_voting == ()  # the suspects and the ghost are not expected to vote
    missing = judge(lupus(), rows[3:], day=2)
    assert outcome(missing)[:3] == ("undecided", None, "L4")
    assert findings(missing, "L4") == [("day 2 is round two but no suspects event names its suspects "
                                        "(from round one, day 1)", True, False)]


SECRETS = ("Hombre-búho)", "Carl (Hombre", "Vidente", "Hombre lobo", "GM only")


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "json"])
def test_C5_public_render_shows_no_secret(fmt: str) -> None:
    pick = event("buho_pick", "-1 23:30:00", "Carl", "Bea", day=1)
    t = judge(lupus(events=(FRANK_DIED, WELCOME, pick)), EXAMPLE, as_of=at("12:00:00"))
    assert t.gm_outcome is not None and "Bea" in t.gm_outcome.detail
    secret: list[Finding] = [f for f in t.findings if f.secret]
    assert secret
    out = render(t, fmt, public=True)
    for word in SECRETS + (t.gm_outcome.detail,) + tuple(f.message for f in secret):
        assert word not in out
    if fmt == "json":
        assert "gm" not in json.loads(out)
        assert json.loads(render(t, "json"))["gm"]["outcome"]["detail"] == t.gm_outcome.detail


def test_validate_names_the_line_of_a_bad_event_or_seat(tmp_path) -> None:  # type: ignore[no-untyped-def]
    preset = rules.get("lupus")
    odd = event("suspects", "22:01:00", "Andrew", "Danielle", day=1, line=40)
    with pytest.raises(GameFileError, match=r"^game.toml:40: events: a suspects event belongs to an "
                       r"even \(round two\) day, not day 1$"):
        preset.validate(lupus(events=(odd,)))
    with pytest.raises(GameFileError, match=r"^game.toml:7: events: unknown event kind 'tramposo_add' "
                       r"for preset lupus \(known: bienvenido, buho_pick, deadline, death, "
                       r"replacement, revival, suspects\)$"):
        preset.validate(lupus(events=(event("tramposo_add", "10:00:00", "Carl", line=7),)))
    with pytest.raises(GameFileError, match="a bienvenido event needs 'player'"):
        preset.validate(lupus(events=(event("bienvenido", "10:00:00"),)))

    from tally.game import load

    path = tmp_path / "game.toml"
    path.write_text(GAME_TOML, encoding="utf-8")
    g = load(path)
    preset.validate(g)
    assert [p.seat for p in g.players] == [1, 2, 3]
    assert g.events_of("suspects")[0].day == 2
    path.write_text(GAME_TOML.replace("seat = 3", "seat = 2"), encoding="utf-8")
    with pytest.raises(GameFileError, match=r"game.toml:18: players: seat 2 is given to both "
                       r"Danielle and Andrew$"):
        preset.validate(load(path))


GAME_TOML = """\
title = "Lupus in Tabula — Día 1"
preset = "lupus"
timezone = "Europe/Madrid"

[thread]
url = "https://lupus.foroactivo.com/t12-lupus-in-tabula-dia-1"

[[players]]
name = "Frank"
seat = 1

[[players]]
name = "Danielle"
seat = 2

[[players]]
name = "Andrew"
seat = 3

[[days]]
number = 1
start = "2024-03-01 10:00"
deadline = "2024-03-01 22:00"

[[days]]
number = 2
start = "2024-03-01 22:15"
deadline = "2024-03-02 10:00"

[[events]]
kind = "bienvenido"
at = "2024-03-01 09:00"
player = "Frank"

[[events]]
kind = "suspects"
at = "2024-03-01 22:10"
player = "Andrew"
target = "Danielle"
day = 2
"""


def test_C6_the_owls_pick_counts_from_its_own_time() -> None:
    """A count taken before the Hombre-búho's pick (12:00) shows no pick, even to the GM."""
    g = lupus(events=(FRANK_DIED, WELCOME, event("buho_pick", "12:00:00", "Carl", "Bea", day=1)))
    early = judge(g, EXAMPLE, as_of=at("11:00:00"))
    assert findings(early, "L3") == []
    assert early.gm_outcome is None or early.gm_outcome.detail.startswith("suspects: Andrew, Danielle (")
    later = judge(g, EXAMPLE, as_of=at("13:00:00"))
    assert later.gm_outcome is not None and later.gm_outcome.detail.startswith("suspects: Bea, Andrew (")
