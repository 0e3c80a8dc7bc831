"""The `espia` preset, one test per requirement of RULES.md section 2 (E1-E9) and C5.

Forum time is UTC here; the voting day runs 04:00 to 22:00 on 2016-01-17 (rulekit's clock).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from rulekit import at, ballots, counts, death, edited, game, post, unvote, verdict, vote

from tally import rules
from tally.errors import GameFileError
from tally.extract import Extractor
from tally.game import Day, Event, Game, Player
from tally.model import Tally
from tally.render import render

PLAYERS = ("Irene Adler", "Sherlock", "Watson", "Moriarty", "Lestrade", "Mrs Hudson")
VOTING = "https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia"
ROLES = {"Sherlock": "Sacerdote", "Moriarty": "Tramposo", "Irene Adler": "Espía", "Mrs Hudson": "Alcalde"}


def espia(*, events: Sequence[Event] = (), options: Mapping[str, Any] | None = None,
          deadline: str = "22:00:00", roles: Mapping[str, str] = ROLES, **extra: Any) -> Game:
    roster = tuple(Player(name, role=roles.get(name)) for name in PLAYERS)
    g = game("espia", players=roster, events=events, staff=("Zven",), options=options, **extra)
    return replace(g, days=(Day(1, at("04:00:00"), at(deadline), thread_url=VOTING),))


def judge(g: Game, rows: Sequence[tuple[Any, ...]], history: Mapping[str, Any] | None = None) -> Tally:
    day = g.days[0]
    return rules.get("espia").judge(ballots(g, rows), g, day, day.deadline + timedelta(hours=1),
                                    history or {})


def text(body: str) -> dict[str, str]:
    return {"text": body}


def event(kind: str, clock: str, player: str, target: str | None = None, day: int | None = 1,
          **params: Any) -> Event:
    return Event(at=at(clock), kind=kind, player=player, target=target, day=day, **params)


def findings(t: Tally, rule: str) -> list[tuple[str, bool, bool]]:
    return [(f.message, f.needs_gm, f.secret) for f in t.findings if f.rule == rule]


# Moriarty 3 (Watson, Lestrade, Mrs Hudson), Watson 2 (Moriarty, Irene Adler), Sherlock no vote.
BASE = [("Watson", "18:00:00", vote("Moriarty")), ("Moriarty", "18:10:00", vote("Watson")),
        ("Lestrade", "19:00:00", vote("Moriarty")), ("Irene Adler", "19:30:00", vote("Watson")),
        ("Mrs Hudson", "20:00:00", vote("Moriarty"))]


def test_E1_deadline_2200_whole_minute_inclusive() -> None:
    t = judge(espia(), [("Watson", "21:59:00", vote("Moriarty")), ("Lestrade", "22:00:59", vote("Moriarty")),
                        ("Mrs Hudson", "22:01:00", vote("Moriarty"))])
    assert [verdict(t, n).verdict for n in (1, 2)] == ["counted", "counted"]
    late = verdict(t, 3)
    assert (late.verdict, late.rule, late.reason) == ("void", "E1", "late: posted 22:01:00, deadline 22:00:00")
    assert counts(t) == [("Moriarty", 2, ("Watson", "Lestrade"))]
    assert "E1/C7: the deadline minute is inclusive (22:00 counts, 22:01 is late)" in t.notes
    moved = judge(espia(deadline="22:30:00"), [("Mrs Hudson", "22:30:40", vote("Moriarty"))])
    assert verdict(moved, 1).verdict == "counted"  # the GM moved the deadline (E1)


def test_E2_spanish_syntax_everyone_votes_most_voted_dies() -> None:
    g = espia()
    preset = rules.get("espia")
    extractor = Extractor(g, preset.syntax)
    posts = [post(1, "Watson", "18:00:00", "Voto a Moriarty, lo tengo claro"),
             post(2, "Irene Adler", "18:05:00", "Voto: Watson"),  # a spy votes too (4B)
             post(3, "Lestrade", "18:10:00", "[voto]Moriarty[/voto]"),
             post(4, "Sherlock", "18:20:00", "Todavía no voto, mañana lo pienso"),
             post(5, "Zven", "18:30:00", "Voto a Watson")]  # the GM is not a player
    t = preset.judge([extractor.ballot(p) for p in posts], g, g.days[0], at("23:00:00"), {})
    assert counts(t) == [("Moriarty", 2, ("Watson", "Lestrade")), ("Watson", 1, ("Irene Adler",))]
    assert verdict(t, 4).verdict == "not_a_vote"
    assert (verdict(t, 5).verdict, verdict(t, 5).reason) == ("not_a_vote", "posted by the GM (staff), who does not vote")
    assert (t.outcome.result, t.outcome.player, t.outcome.rule, t.outcome.detail) == (
        "eliminated", "Moriarty", "E2", "most votes (2)")


def test_E3_a_change_voids_the_vote_and_the_first_does_not_come_back() -> None:
    t = judge(espia(), BASE + [("Watson", "21:00:00", vote("Lestrade"))])
    first, change = verdict(t, 1), verdict(t, 6)
    assert (first.verdict, first.rule, first.reason) == (
        "void", "E3", "vote changed in post 6: the first vote does not come back (8A)")
    assert (change.verdict, change.rule, change.reason) == (
        "void", "E3", "change of vote from Moriarty to Lestrade: the player's vote is void (8A)")
    assert ("Moriarty", 2, ("Lestrade", "Mrs Hudson")) in counts(t)
    assert "Watson" not in t.not_voting  # he voted: his case is E3, not inactivity
    assert findings(t, "E3") == [
        ("post 6 by Watson: change of vote from Moriarty to Lestrade: his vote is void (8A)", False, False)]


def test_E3_second_change_is_flagged_for_the_gm() -> None:
    rows = BASE + [("Watson", "21:00:00", vote("Lestrade")), ("Watson", "21:10:00", vote("Moriarty"))]
    t = judge(espia(), rows)
    again = verdict(t, 7)
    assert (again.verdict, again.rule, again.reason) == (
        "void", "E3", "second change of vote from Lestrade to Moriarty: the GM kills the player (8A)")
    assert ("post 7 by Watson: second change: the GM kills the player (8A)", True, False) in findings(t, "E3")
    assert ("Moriarty", 2, ("Lestrade", "Mrs Hudson")) in counts(t)  # going back does not restore it


def test_E3_repeating_the_vote_is_no_change_a_revoke_is_one() -> None:
    same = judge(espia(), BASE + [("Watson", "21:00:00", vote("Moriarty"))])
    assert (verdict(same, 1).verdict, verdict(same, 6).verdict) == ("superseded", "counted")
    assert findings(same, "E3") == []
    revoked = judge(espia(), BASE + [("Watson", "21:00:00", unvote()), ("Watson", "21:05:00", vote("Moriarty"))])
    assert verdict(revoked, 6).reason == ("change of vote from Moriarty to no vote (revoke): the player's "
                                          "vote is void (8A)")
    assert verdict(revoked, 7).reason == ("second change of vote from no vote to Moriarty: the GM kills "
                                          "the player (8A)")


def test_E3_a_void_second_post_is_no_change() -> None:
    t = judge(espia(), BASE + [("Watson", "22:05:00", vote("Lestrade"))])  # late (E1)
    assert verdict(t, 1).verdict == "counted"
    assert (verdict(t, 6).verdict, verdict(t, 6).rule) == ("void", "E1")


def test_E3_edit_that_changes_the_target_is_a_change() -> None:
    marker = edited("Última edición por Watson el Dom 17 Ene 2016, 19:00", "19:00:00", "Watson")
    before = post(1, "Watson", "18:00:00", "Voto a Moriarty", fetched="18:30:00")
    rows = [("Watson", "18:00:00", vote("Lestrade"), {"edit": marker})] + BASE[1:]
    t = judge(espia(), rows, history={"1": (before,)})
    v = verdict(t, 1)
    assert (v.verdict, v.rule, v.reason) == (
        "void", "E3", "change of vote from Moriarty to Lestrade: the player's vote is void (8A)")
    assert v.evidence[-1].endswith("the copy fetched 2016-01-17 18:30:00 UTC shows the text before it")
    kept = judge(espia(), [("Watson", "18:00:00", vote("Moriarty"), {"edit": marker})],
                 history={"1": (before,)})  # a typo fixed, same target: no change
    assert (verdict(kept, 1).verdict, verdict(kept, 1).target) == ("counted", "Moriarty")


def test_E3_a_change_made_with_no_edit_marker_is_a_change_too() -> None:
    # Forumotion shows no marker for some edits (a moderator's, the last post's): two saved
    # copies, both from before the deadline, prove the target changed in time.
    before = post(1, "Watson", "18:00:00", "Voto a Moriarty", fetched="18:30:00")
    rows = [("Watson", "18:00:00", vote("Lestrade"), {"fetched": "19:30:00"})] + BASE[1:]
    t = judge(espia(), rows, history={"1": (before,)})
    v = verdict(t, 1)
    assert (v.verdict, v.rule, v.reason) == (
        "void", "E3", "change of vote from Moriarty to Lestrade: the player's vote is void (8A)")
    assert v.evidence[-1] == ("text changed with no edit marker: the copy fetched 2016-01-17 18:30:00 "
                              "UTC votes Moriarty, the one fetched 2016-01-17 19:30:00 UTC votes Lestrade")
    assert ("Moriarty", 2, ("Lestrade", "Mrs Hudson")) in counts(t)
    # The same target with a typo fixed is no change; a text seen only after the deadline is
    # C6's business (the copy at the deadline counts), not a change made in time.
    same = judge(espia(), [("Watson", "18:00:00", vote("Moriarty"), {"fetched": "19:30:00"})],
                 history={"1": (post(1, "Watson", "18:00:00", "Voto a Moriarti", fetched="18:30:00"),)})
    assert (verdict(same, 1).verdict, findings(same, "E3")) == ("counted", [])
    late = judge(espia(), [("Watson", "18:00:00", vote("Lestrade"), {"fetched": "22:30:00"})],
                 history={"1": (post(1, "Watson", "18:00:00", "Voto a Moriarty", fetched="21:30:00"),)})
    assert (verdict(late, 1).verdict, verdict(late, 1).target) == ("counted", "Moriarty")


def test_E3_a_vote_taken_away_with_no_edit_marker_is_a_change() -> None:
    before = post(1, "Watson", "18:00:00", "Voto a Moriarty", fetched="18:30:00")
    t = judge(espia(), [("Watson", "18:00:00", {"text": "Mejor lo pienso", "fetched": "19:30:00"})] + BASE[1:],
              history={"1": (before,)})
    v = verdict(t, 1)
    assert (v.verdict, v.reason) == ("not_a_vote", "change of vote from Moriarty to no vote (revoke): "
                                     "the player's vote is void (8A)")


def test_E3_edit_with_no_earlier_copy_is_taken_as_it_reads_and_flagged() -> None:
    marker = edited("Última edición por Watson", "19:00:00", "Watson")
    t = judge(espia(), [("Watson", "18:00:00", vote("Lestrade"), {"edit": marker})])
    v = verdict(t, 1)
    assert (v.verdict, v.target) == ("counted", "Lestrade")
    assert v.reason == "vote for Lestrade; edited; the text before the edit is not known: taken as it reads"
    assert findings(t, "E3") == [("post 1 by Watson: vote post edited; the text before the edit is not "
                                  "known: taken as it reads", True, False)]
    staff = judge(espia(), [("Watson", "18:00:00", vote("Lestrade"), {"edit": edited("Editado", "19:00:00", "Zven")})])
    assert verdict(staff, 1).reason == "vote for Lestrade; edited by staff Zven, kept"


def test_E4_non_voters_listed_excused_not_flagged() -> None:
    t = judge(espia(excused=("Mrs Hudson",)), BASE[:4] + [("Sherlock", "22:03:00", vote("Watson"))])
    assert t.not_voting == ("Sherlock", "Mrs Hudson")
    assert findings(t, "E4") == [
        ("Sherlock did not vote (void vote posts: 5): expelled for inactivity (8C)", True, False),
        ("Mrs Hudson did not vote: excused by the GM (8C)", False, False)]


def test_E5_the_real_sacerdote_saves_the_most_voted() -> None:
    rows = BASE + [("Sherlock", "21:00:00", text("Soy el Sacerdote y protejo a Moriarty."))]
    t = judge(espia(), rows)
    assert verdict(t, 6).verdict == "not_a_vote"
    # Public: the claim is public, who holds the role is not: the GM announces the result.
    assert (t.outcome.result, t.outcome.player, t.outcome.rule) == ("undecided", None, "E5")
    assert t.outcome.detail == ("Moriarty has most votes (3); the Sacerdote's protection of Moriarty "
                                "is claimed in post 6: the GM announces whether he dies (6.4B)")
    assert t.gm_outcome is not None
    assert (t.gm_outcome.result, t.gm_outcome.player) == ("none", None)
    assert t.gm_outcome.detail == ("Moriarty has most votes (3); protected by the Sacerdote (Sherlock) "
                                   "in post 6 (6.4B)")
    assert findings(t, "E5") == [("post 6: Sherlock claims the Sacerdote's protection of Moriarty: "
                                  "the real Sacerdote", False, True)]


def test_E5_an_impostor_is_flagged_and_dies_with_the_most_voted() -> None:
    rows = BASE + [("Lestrade", "21:00:00", text("Como Sacerdote, protejo a Moriarty"))]
    t = judge(espia(), rows)
    assert t.outcome.result == "undecided"  # publicly the same as a real claim
    assert t.gm_outcome is not None
    assert (t.gm_outcome.result, t.gm_outcome.player) == ("eliminated", "Moriarty")
    assert t.gm_outcome.detail == ("most votes (3); Lestrade posed as the Sacerdote: dies with the most "
                                   "voted (Nota 1)")
    assert findings(t, "E5") == [("post 6: Lestrade claims the Sacerdote's protection of Moriarty, but "
                                  "Lestrade is not the Sacerdote: he dies with the most voted (Nota 1)",
                                  True, True)]
    other = judge(espia(), BASE + [("Sherlock", "21:00:00", text("Protejo a Watson"))])
    assert other.outcome.player == "Moriarty"  # a useless protection (6.4B)


def test_E5_immunity_from_the_first_day_of_the_cycle() -> None:
    for immune in (event("immunity", "-1 20:00:00", "Moriarty"),
                   event("sacerdote_protect", "-1 20:00:00", "Sherlock", "Moriarty")):
        t = judge(espia(events=[immune]), BASE)
        assert (t.outcome.result, t.outcome.player) == ("eliminated", "Moriarty")  # secret: public unchanged
        assert t.gm_outcome is not None and t.gm_outcome.result == "none"
        assert "immune to the vote" in t.gm_outcome.detail
        assert all(secret for _, _, secret in findings(t, "E5"))
    same_day = judge(espia(events=[event("sacerdote_protect", "10:00:00", "Sherlock", "Moriarty")]), BASE)
    assert same_day.gm_outcome is not None and same_day.gm_outcome.player == "Moriarty"


def test_E6_tramposo_adds_two_votes_in_the_gm_count_only() -> None:
    rows = BASE[:4] + [("Mrs Hudson", "20:00:00", vote("Watson"))]  # Watson 3, Moriarty 2
    t = judge(espia(events=[event("tramposo_add", "21:00:00", "Moriarty", "Lestrade", votes=2),
                            event("tramposo_add", "21:00:00", "Moriarty", "Moriarty", votes=1)]), rows)
    # the second PM would make 3 extra votes: only 2 in all
    assert counts(t) == [("Watson", 3, ("Moriarty", "Irene Adler", "Mrs Hudson")),
                         ("Moriarty", 2, ("Watson", "Lestrade"))]
    assert (t.outcome.result, t.outcome.player) == ("eliminated", "Watson")
    assert t.gm_counts is not None
    assert [(c.player, c.votes) for c in t.gm_counts] == [("Watson", 3), ("Moriarty", 2), ("Lestrade", 2)]
    assert findings(t, "E6") == [
        ("Tramposo Moriarty: add votes on Lestrade (PM 21:00:00): +2 on Lestrade in the GM's count", False, True),
        ("Tramposo Moriarty: add votes on Moriarty (PM 21:00:00): no effect: more than 2 extra votes "
         "(2 already)", True, True)]
    split = judge(espia(events=[event("tramposo_add", "21:00:00", "Moriarty", "Moriarty", votes=1),
                                event("tramposo_add", "21:01:00", "Moriarty", "Watson", votes=1)]), rows)
    assert split.gm_counts is not None
    assert [(c.player, c.votes) for c in split.gm_counts] == [("Watson", 4), ("Moriarty", 3)]
    assert split.gm_outcome is not None and split.gm_outcome.player == "Watson"
    assert split.gm_counts[0].voters[-1] == "(Tramposo +1)"


def test_E6_tramposo_removes_one_vote_or_two_on_himself() -> None:
    t = judge(espia(events=[event("tramposo_remove", "21:00:00", "Moriarty", "Moriarty")]), BASE)
    assert t.gm_counts is not None and t.gm_outcome is not None
    assert [(c.player, c.votes) for c in t.gm_counts] == [("Watson", 2), ("Moriarty", 1)]
    assert (t.gm_outcome.result, t.gm_outcome.player) == ("eliminated", "Watson")
    assert (t.outcome.result, t.outcome.player) == ("eliminated", "Moriarty")
    one = judge(espia(events=[event("tramposo_remove", "21:00:00", "Moriarty", "Watson")]), BASE)
    assert one.gm_counts is not None and [(c.player, c.votes) for c in one.gm_counts] == [
        ("Moriarty", 3), ("Watson", 1)]


def test_E6_once_per_game_never_both_on_a_day_before_the_close() -> None:
    both = judge(espia(events=[event("tramposo_add", "20:00:00", "Moriarty", "Watson"),
                               event("tramposo_remove", "21:00:00", "Moriarty", "Moriarty")]), BASE)
    assert both.gm_counts is not None and [(c.player, c.votes) for c in both.gm_counts] == [
        ("Watson", 4), ("Moriarty", 3)]
    assert ("Tramposo Moriarty: remove votes on Moriarty (PM 21:00:00): no effect: both powers on the "
            "same day (the first PM holds)", True, True) in findings(both, "E6")
    late = judge(espia(events=[event("tramposo_add", "22:01:00", "Moriarty", "Watson")]), BASE)
    assert late.gm_counts == late.counts
    assert findings(late, "E6") == [("Tramposo Moriarty: add votes on Watson (PM 22:01:00): no effect: "
                                     "sent after the close (22:00:00)", False, True)]
    g = espia(events=[event("tramposo_add", "-1 20:00:00", "Moriarty", "Watson", day=0),
                      event("tramposo_add", "20:00:00", "Moriarty", "Watson")])
    again = judge(g, BASE)
    assert again.gm_counts == again.counts
    assert findings(again, "E6")[0][0].endswith("the power was already used on day 0 (once per game)")


def test_E8_a_tramposo_killed_earlier_that_day_has_no_effect() -> None:
    g = espia(events=[death("Moriarty", "19:00:00"), event("tramposo_add", "20:00:00", "Moriarty", "Watson")])
    t = judge(g, BASE)
    assert t.gm_counts == t.counts
    assert findings(t, "E6") == [("Tramposo Moriarty: add votes on Watson (PM 20:00:00): no effect: he "
                                  "was dead at the time (died 19:00:00; E8)", False, True)]
    after = judge(espia(events=[event("tramposo_add", "20:00:00", "Moriarty", "Watson"),
                                death("Moriarty", "20:30:00")]), BASE)
    assert after.gm_counts is not None and after.gm_counts[0].votes == 4
    assert findings(after, "E8") == [("Tramposo Moriarty died at 20:30:00, after his PM: if the "
                                      "Justiciero killed him, his action has no effect (section 7)",
                                      True, True)]


def test_E9_a_tie_goes_to_the_gm_by_default() -> None:
    rows = BASE[:4]  # Moriarty 2, Watson 2
    t = judge(espia(), rows)
    assert (t.outcome.result, t.outcome.player, t.outcome.rule, t.outcome.tied) == (
        "tie", None, "E9", ("Moriarty", "Watson"))
    assert t.outcome.detail == "tie at 2 votes between Moriarty, Watson: the GM decides"
    drawn = judge(espia(options={"tiebreak": "random"}), rows)
    seed = hashlib.sha256(f"{VOTING}|day 1".encode()).hexdigest()[:16]
    assert (drawn.seed, drawn.outcome.player) == (seed, sorted(["Moriarty", "Watson"])[int(seed, 16) % 2])
    nobody = judge(espia(options={"tiebreak": "none"}), rows)
    assert (nobody.outcome.result, nobody.outcome.detail) == (
        "none", "tie at 2 votes between Moriarty, Watson: nobody dies (game file)")


SECRETS = ("Tramposo", "secret", "Sacerdote (Sherlock)", "real Sacerdote", "posed as", "+2",
           "immune", "Nota 1", "Nota 2")


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "json"])
def test_C5_public_render_shows_no_secret(fmt: str) -> None:
    g = espia(events=[event("tramposo_add", "21:00:00", "Moriarty", "Watson"),
                      event("immunity", "-1 20:00:00", "Lestrade")])
    t = judge(g, BASE + [("Lestrade", "21:10:00", text("Protejo a Watson"))])
    assert t.gm_outcome is not None and "posed as the Sacerdote" in t.gm_outcome.detail
    out = render(t, fmt, public=True)
    for word in SECRETS + (t.gm_outcome.detail,):
        assert word not in out
    if fmt == "json":
        data = json.loads(out)
        assert "gm" not in data
        assert data["counts"][0] == {"player": "Moriarty", "votes": 3, "voters": ["Watson", "Lestrade", "Mrs Hudson"],
                                     "posts": ["1", "3", "5"]}
    gm = json.loads(render(t, "json"))
    assert gm["gm"]["counts"][0]["votes"] == 4 and gm["gm"]["outcome"]["result"] == "eliminated"


def test_validate_names_the_line_of_an_unknown_or_incomplete_event() -> None:
    preset = rules.get("espia")
    redirect = Event(at=at("21:35:00"), kind="alcalde_redirect", player="Lestrade", line=31)
    with pytest.raises(GameFileError, match=r"^game.toml:31: events: unknown event kind 'alcalde_redirect' "
                       r"for preset espia \(known: alcalde_revealed, deadline, death, immunity, replacement, revival, "
                       r"sacerdote_protect, tramposo_add, tramposo_remove\)$"):
        preset.validate(espia(events=[redirect]))
    no_target = Event(at=at("21:00:00"), kind="tramposo_add", player="Moriarty", line=12)
    with pytest.raises(GameFileError, match=r"^game.toml:12: events: a tramposo_add event needs 'target'$"):
        preset.validate(espia(events=[no_target]))
    three = event("tramposo_add", "21:00:00", "Moriarty", "Watson", votes=3)
    with pytest.raises(GameFileError, match="adds 1 or 2 votes, got 3"):
        preset.validate(espia(events=[three]))
    with pytest.raises(GameFileError, match="rules.tiebreak: expected one of gm, random, none"):
        preset.validate(espia(options={"tiebreak": "earliest"}))


def test_game_file_with_espia_events_loads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tally.game import load

    path = tmp_path / "game.toml"
    path.write_text(GAME_TOML, encoding="utf-8")
    g = load(path)
    rules.get("espia").validate(g)
    add = g.events_of("tramposo_add")[0]
    assert (add.player, add.target, add.day, add.votes) == ("Moriarty", "Watson", 1, 2)
    assert g.days[0].deadline.isoformat() == "2016-01-18T21:00:00+00:00"  # 22:00 Madrid


GAME_TOML = """\
title = "¿Quién es el Espía? — Día 1"
preset = "espia"
timezone = "Europe/Madrid"
staff = ["Zven"]

[thread]
url = "https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia"

[[players]]
name = "Sherlock"
role = "Sacerdote"

[[players]]
name = "Moriarty"
role = "Tramposo"

[[players]]
name = "Watson"

[[days]]
number = 1
start = "2016-01-18 21:00"
deadline = "2016-01-18 22:00"

[[events]]
kind = "tramposo_add"
at = "2016-01-18 21:40"
player = "Moriarty"
target = "Watson"
day = 1
votes = 2
"""


def test_E3_edit_that_takes_the_vote_away_is_a_change() -> None:
    marker = edited("Última edición por Watson", "19:00:00", "Watson")
    before = post(1, "Watson", "18:00:00", "Voto a Moriarty", fetched="18:30:00")
    t = judge(espia(), [("Watson", "18:00:00", {"edit": marker, "text": "Mejor lo pienso"})] + BASE[1:],
              history={"1": (before,)})
    v = verdict(t, 1)
    assert (v.verdict, v.reason) == ("not_a_vote", "change of vote from Moriarty to no vote (revoke): "
                                     "the player's vote is void (8A)")
    assert ("Moriarty", 2, ("Lestrade", "Mrs Hudson")) in counts(t) and "Watson" not in t.not_voting
    chat = judge(espia(), [("Watson", "18:00:00", {"edit": marker, "text": "Hola a todos"})])
    assert findings(chat, "E3") == [] and verdict(chat, 1).reason == ""
    prose = judge(espia(), [("Lestrade", "18:00:00", text("Protejo a mi familia de Moriarty"))])
    assert findings(prose, "E5") == []


# ---------------------------------------------------------------------------------------------
# E7 / E8: the Alcalde's redirect (Mrs Hudson is the Alcalde in ROLES)

def redirect(author: str, clock: str, target: str) -> tuple[str, str, dict[str, str]]:
    return (author, clock, text(f"Como Alcalde, todos los votos a {target}"))


REVEALED = event("alcalde_revealed", "-1 21:50:00", "Mrs Hudson", day=0)  # on an earlier voting day


def test_E7_spanish_phrasings_are_redirects_not_votes() -> None:
    g = espia()
    preset = rules.get("espia")
    extractor = Extractor(g, preset.syntax)
    for number, phrase in enumerate(("Soy el Alcalde y redirijo todos los votos a Lestrade.",
                                     "Como Alcalde, todos los votos a Lestrade",
                                     "ALCALDE: cambio todas las votaciones hacia Lestrade"), start=6):
        posts = [post(n, author, clock, f"Voto a {target}") for n, (author, clock, target) in enumerate(
            [("Watson", "18:00:00", "Moriarty"), ("Moriarty", "18:10:00", "Watson")], start=1)]
        posts.append(post(number, "Mrs Hudson", "21:35:00", phrase))
        t = preset.judge([extractor.ballot(p) for p in posts], g, g.days[0], at("23:00:00"), {})
        assert counts(t) == [("Lestrade", 2, ("Watson", "Moriarty"))], phrase
        assert verdict(t, number).verdict == "not_a_vote"
    twice = judge(espia(), BASE + [("Mrs Hudson", "21:35:00", text(
        "Como Alcalde, todos los votos a Lestrade. Repito: redirijo todos los votos a Lestrade"))])
    assert len(findings(twice, "E7")) == 1 and counts(twice)[0][:2] == ("Lestrade", 5)  # one post, one try
    chat = judge(espia(), BASE + [("Mrs Hudson", "21:35:00", text("El alcalde del pueblo vota siempre tarde"))])
    assert counts(chat) == counts(judge(espia(), BASE)) and findings(chat, "E7") == []


def test_E7_redirect_in_the_window_moves_all_votes_cast_and_to_come() -> None:
    rows = BASE + [redirect("Mrs Hudson", "21:35:00", "Lestrade"), ("Sherlock", "21:50:00", vote("Moriarty"))]
    t = judge(espia(), rows)
    # Public: the post is public, so the count moves; that Mrs Hudson is the Alcalde is the GM's.
    assert counts(t) == [("Lestrade", 6, ("Watson", "Moriarty", "Lestrade", "Irene Adler", "Mrs Hudson",
                                          "Sherlock"))]
    assert (t.outcome.result, t.outcome.player, t.outcome.rule) == ("undecided", None, "E7")
    assert t.outcome.detail == (
        "most votes (6); all votes redirected to Lestrade in post 6 (E7); pending the GM: post 6: "
        "Mrs Hudson was not revealed as the Alcalde before it: the GM confirms the redirect (Nota 5)")
    assert t.gm_outcome is not None and t.gm_counts is not None
    assert (t.gm_outcome.result, t.gm_outcome.player, t.gm_outcome.detail) == (
        "eliminated", "Lestrade", "most votes (6); all votes redirected to Lestrade in post 6 (E7)")
    assert [(c.player, c.votes) for c in t.gm_counts] == [("Lestrade", 6)]
    assert verdict(t, 6).reason == "claims the Alcalde's redirect to Lestrade (E7): applied in the public count"
    assert verdict(t, 1).reason == "vote for Moriarty; counts for Lestrade: the redirect in post 6 (E7)"
    assert verdict(t, 7).reason == "vote for Moriarty; counts for Lestrade: the redirect in post 6 (E7)"
    assert verdict(t, 3).reason == "vote for Moriarty; counts for Lestrade: the redirect in post 6 (E7)"
    assert findings(t, "E7") == [("post 6: Mrs Hudson claims the Alcalde's redirect of all votes to Lestrade: "
                                  "the real Alcalde: every vote, cast and to come, goes to Lestrade", False, True)]
    assert "E7: the Alcalde's redirect is not applied by the counter: the GM applies it" not in t.notes
    # A change of vote after the redirect is still a change (E3): the redirect is not the voter's.
    changed = judge(espia(), rows[:6] + [("Watson", "21:50:00", vote("Lestrade"))])
    assert counts(changed) == [("Lestrade", 4, ("Moriarty", "Lestrade", "Irene Adler", "Mrs Hudson"))]


def test_E7_window_two_tries_a_day_five_minutes_apart_void_tries_count() -> None:
    base = counts(judge(espia(), BASE))
    tries = BASE + [redirect("Mrs Hudson", "21:29:00", "Watson"),  # outside the window: one used
                    redirect("Mrs Hudson", "21:33:00", "Watson"),  # 4 minutes later: two used
                    redirect("Mrs Hudson", "21:40:00", "Watson")]  # a third try
    t = judge(espia(), tries)
    assert counts(t) == base
    assert (t.outcome.result, t.outcome.player, t.outcome.detail) == ("eliminated", "Moriarty", "most votes (3)")
    assert [verdict(t, n).reason for n in (6, 7, 8)] == [
        "claims the Alcalde's redirect to Watson (E7): void: posted 21:29:00, outside 21:30-21:45",
        "claims the Alcalde's redirect to Watson (E7): void: under 5 minutes after his try in post 6",
        "claims the Alcalde's redirect to Watson (E7): void: a third try: two a voting day"]
    assert [(m.split(": void: ")[-1], gm) for m, gm, _ in findings(t, "E7")] == [
        ("posted 21:29:00, outside 21:30-21:45; it uses one of his two redirects (Tip 2)", False),
        ("under 5 minutes after his try in post 6; it uses one of his two redirects (Tip 2)", False),
        ("the Alcalde redirects at most twice a voting day", False)]
    twice = judge(espia(), BASE + [redirect("Mrs Hudson", "21:31:50", "Watson"),
                                   redirect("Mrs Hudson", "21:36:10", "Lestrade")])  # 21:31 -> 21:36 as shown
    assert counts(twice)[0][:2] == ("Lestrade", 5)
    assert twice.gm_outcome is not None and twice.gm_outcome.player == "Lestrade"
    last_minute = judge(espia(), BASE + [redirect("Mrs Hudson", "21:45:59", "Watson")])
    assert counts(last_minute)[0][:2] == ("Watson", 5)  # the minute 21:45 is in (as E1)
    too_late = judge(espia(), BASE + [redirect("Mrs Hudson", "21:46:00", "Watson")])
    assert counts(too_late) == base


def test_E7_revealed_alcalde_tramposo_votes_sent_before_block_the_redirect_tip_2() -> None:
    # Tip 2, examples 1 and 2, in small: the Tramposo's +2 at 21:35 puts the revealed Alcalde
    # ahead when he tries at 21:37; by 21:44 Moriarty has caught up (a tie not made by his vote).
    trick = event("tramposo_add", "21:35:00", "Moriarty", "Mrs Hudson", votes=2)
    rows = [("Watson", "18:00:00", vote("Moriarty")), ("Lestrade", "19:00:00", vote("Moriarty")),
            ("Irene Adler", "19:30:00", vote("Mrs Hudson")), ("Mrs Hudson", "20:00:00", vote("Irene Adler")),
            redirect("Mrs Hudson", "21:37:00", "Watson")]
    first = judge(espia(events=[REVEALED, trick]), rows)
    assert first.gm_counts is not None and first.gm_outcome is not None
    assert [(c.player, c.votes) for c in first.gm_counts] == [("Mrs Hudson", 3), ("Moriarty", 2), ("Irene Adler", 1)]
    assert (first.gm_outcome.result, first.gm_outcome.player) == ("eliminated", "Mrs Hudson")  # he dies
    assert findings(first, "E7") == [
        ("post 5: Mrs Hudson claims the Alcalde's redirect of all votes to Watson: void: he has the most votes "
         "(3, the next 2) (Nota 4); it uses one of his two redirects (Tip 2)", False, True)]
    # Public: 1 vote against 2, so the redirect stands in the public count, but the Tramposo's
    # votes could turn the lead: the result waits for the GM, whether or not he sent any.
    assert counts(first) == [("Watson", 4, ("Watson", "Lestrade", "Irene Adler", "Mrs Hudson"))]
    assert (first.outcome.result, first.outcome.rule) == ("undecided", "E7")
    assert first.outcome.detail.endswith("pending the GM: post 5: the Tramposo's secret votes may change "
                                         "whether Mrs Hudson leads the vote (Tip 2)")
    assert "Tramposo +2" not in first.outcome.detail and "(3, the next 2)" not in first.outcome.detail
    no_trick = judge(espia(events=[REVEALED]), rows)
    assert no_trick.outcome == first.outcome  # the public result does not tell whether he acted
    assert no_trick.gm_outcome is not None and no_trick.gm_outcome.player == "Watson"
    later = judge(espia(events=[REVEALED, replace(trick, at=at("21:38:00"))]), rows)
    assert later.gm_outcome is not None and later.gm_outcome.player == "Watson"  # sent after: not counted
    second = judge(espia(events=[REVEALED, trick]), rows + [
        ("Sherlock", "21:40:00", vote("Moriarty")), ("Moriarty", "21:41:00", vote("Irene Adler")),
        ("Mrs Hudson", "21:44:00", text("Alcalde otra vez: cambio las votaciones a Watson"))])
    assert second.gm_counts is not None and second.gm_outcome is not None
    assert [(c.player, c.votes) for c in second.gm_counts] == [("Watson", 6), ("Mrs Hudson", 2)]
    assert (second.gm_outcome.result, second.gm_outcome.player, second.gm_outcome.detail) == (
        "eliminated", "Watson", "most votes (6); all votes redirected to Watson in post 8 (E7)")
    assert findings(second, "E7")[1] == (
        "post 8: Mrs Hudson claims the Alcalde's redirect of all votes to Watson: the real Alcalde: every vote, "
        "cast and to come, goes to Watson", False, True)


def test_E7_revealed_alcalde_leading_or_tied_by_his_own_vote_may_not_redirect() -> None:
    leading = [("Watson", "18:00:00", vote("Mrs Hudson")), ("Moriarty", "18:10:00", vote("Mrs Hudson")),
               ("Lestrade", "19:00:00", vote("Mrs Hudson")), ("Irene Adler", "19:30:00", vote("Mrs Hudson")),
               ("Mrs Hudson", "20:00:00", vote("Watson")), redirect("Mrs Hudson", "21:35:00", "Watson")]
    t = judge(espia(events=[REVEALED]), leading)
    # 4 against 1: no Tramposo could turn it, so the public result needs no GM.
    assert (t.outcome.result, t.outcome.player, t.outcome.detail) == ("eliminated", "Mrs Hudson", "most votes (4)")
    assert verdict(t, 6).reason == ("claims the Alcalde's redirect to Watson (E7): void: he has the most votes "
                                    "(4, the next 1) (Nota 4)")
    unrevealed = judge(espia(), leading)  # the restriction is only for a revealed Alcalde (Nota 4)
    assert unrevealed.gm_outcome is not None and unrevealed.gm_outcome.player == "Watson"
    own = [("Watson", "18:00:00", vote("Mrs Hudson")), ("Lestrade", "19:00:00", vote("Mrs Hudson")),
           ("Irene Adler", "19:30:00", vote("Watson")), ("Mrs Hudson", "20:00:00", vote("Watson")),
           redirect("Mrs Hudson", "21:35:00", "Lestrade")]
    tied = judge(espia(events=[REVEALED]), own)
    assert tied.gm_outcome is not None
    assert (tied.gm_outcome.result, tied.gm_outcome.tied) == ("tie", ("Mrs Hudson", "Watson"))
    assert findings(tied, "E7")[0][0].endswith(
        "void: a tie at 2 votes made by his own vote for Watson (Nota 4); it uses one of his two redirects (Tip 2)")
    partial = judge(espia(events=[REVEALED]), own[:3] + [("Moriarty", "19:40:00", vote("Watson")),
                                                         ("Mrs Hudson", "20:00:00", vote("Irene Adler")),
                                                         redirect("Mrs Hudson", "21:35:00", "Lestrade")])
    assert partial.gm_outcome is not None and partial.gm_outcome.player == "Lestrade"  # a partial tie allows it
    # The lead is taken as the thread stood then: a vote on him voided by a later change (E3) counted.
    ahead = [("Watson", "18:00:00", vote("Mrs Hudson")), ("Moriarty", "18:10:00", vote("Mrs Hudson")),
             ("Lestrade", "19:00:00", vote("Watson")), redirect("Mrs Hudson", "21:35:00", "Lestrade"),
             ("Watson", "21:50:00", vote("Lestrade"))]  # 2 against 1 at 21:35; 1 against 1 at the close
    before_change = judge(espia(events=[REVEALED]), ahead)
    assert before_change.gm_outcome is not None
    assert (before_change.gm_outcome.result, before_change.gm_outcome.tied) == ("tie", ("Mrs Hudson", "Watson"))
    assert findings(before_change, "E7")[0][0].endswith("void: he has the most votes (2, the next 1) (Nota 4); "
                                                        "it uses one of his two redirects (Tip 2)")


def test_E7_an_impostor_is_flagged_and_dies_nota_5() -> None:
    rows = BASE + [redirect("Lestrade", "21:35:00", "Watson")]
    t = judge(espia(), rows)
    assert counts(t)[0][:2] == ("Watson", 5) and t.outcome.result == "undecided"  # publicly like the real one
    assert t.gm_counts is not None and t.gm_outcome is not None
    assert [(c.player, c.votes) for c in t.gm_counts] == [("Moriarty", 3), ("Watson", 2)]
    assert (t.gm_outcome.result, t.gm_outcome.player, t.gm_outcome.detail) == (
        "eliminated", "Moriarty", "most votes (3); Lestrade posed as the Alcalde: dies (Nota 5)")
    assert findings(t, "E7") == [("post 6: Lestrade claims the Alcalde's redirect of all votes to Watson, but "
                                  "Lestrade is not the Alcalde: he dies (Nota 5)", True, True)]
    # Once Mrs Hudson is revealed as the Alcalde, anyone else's claim is void in public too.
    known = judge(espia(events=[REVEALED]), rows)
    assert counts(known) == counts(judge(espia(), BASE))
    assert (known.outcome.result, known.outcome.player) == ("eliminated", "Moriarty")
    assert verdict(known, 6).reason == ("claims the Alcalde's redirect to Watson (E7): void: Lestrade is not "
                                        "the Alcalde")
    nobody = judge(espia(roles={"Moriarty": "Tramposo"}), rows)  # the game file names no Alcalde
    assert nobody.gm_outcome is not None and nobody.gm_outcome.result == "undecided"
    assert nobody.gm_outcome.detail.endswith("pending the GM: post 6: the game file names no Alcalde "
                                             "(players.role): the GM checks the redirect")
    assert findings(nobody, "E7")[0][1:] == (True, True)


def test_E7_public_render_is_the_same_whoever_holds_the_role() -> None:
    rows = BASE + [redirect("Mrs Hudson", "21:35:00", "Watson")]
    real = judge(espia(), rows)
    impostor = judge(espia(roles={"Lestrade": "Alcalde", "Moriarty": "Tramposo"}), rows)
    assert real.gm_outcome != impostor.gm_outcome
    for fmt in ("bbcode", "markdown", "json"):
        out = render(real, fmt, public=True)
        assert out == render(impostor, fmt, public=True)
        for word in ("real Alcalde", "posed as", "is not the Alcalde", "Nota 4"):
            assert word not in out
    gm = json.loads(render(impostor, "json"))
    assert gm["gm"]["outcome"]["player"] == "Moriarty"
    with pytest.raises(GameFileError, match=r"^game.toml:40: events: a alcalde_revealed event needs 'player'$"):
        rules.get("espia").validate(espia(events=[Event(at=at("12:00:00"), kind="alcalde_revealed", line=40)]))


def test_E8_alcalde_killed_earlier_that_day_has_no_effect() -> None:
    rows = BASE + [redirect("Mrs Hudson", "21:35:00", "Watson")]
    dead = judge(espia(events=[death("Mrs Hudson", "21:00:00")]), rows)
    assert counts(dead) == counts(judge(espia(), BASE))
    assert (dead.outcome.result, dead.outcome.player) == ("eliminated", "Moriarty")
    assert verdict(dead, 6).reason == ("claims the Alcalde's redirect to Watson (E7): void: he was dead at the "
                                       "time (died 21:00:00; E8)")
    assert findings(dead, "E8") == [("post 6: Mrs Hudson claims the Alcalde's redirect of all votes to Watson: "
                                     "no effect: he was dead at the time (died 21:00:00; E8)", False, True)]
    after = judge(espia(events=[death("Mrs Hudson", "21:50:00")]), rows)
    assert after.gm_outcome is not None and after.gm_outcome.player == "Watson"
    assert findings(after, "E8") == [("post 6: Mrs Hudson claims the Alcalde's redirect of all votes to Watson; "
                                      "the Alcalde died at 21:50:00, after it: if the Justiciero killed him, the "
                                      "redirect has no effect (section 7)", True, True)]


def test_C6_the_tramposos_pm_counts_from_its_own_time() -> None:
    """A count taken before the Tramposo's PM (21:00) does not show his votes, even to the GM."""
    g = espia(events=[event("tramposo_remove", "21:00:00", "Moriarty", "Moriarty")])
    before = rules.get("espia").judge(ballots(g, BASE), g, g.days[0], at("20:30:00"), {})
    assert before.gm_counts in (None, before.counts)
    assert findings(before, "E6") == []
    after = rules.get("espia").judge(ballots(g, BASE), g, g.days[0], at("21:30:00"), {})
    assert after.gm_counts is not None
    assert [(c.player, c.votes) for c in after.gm_counts] == [("Watson", 2), ("Moriarty", 1)]


def test_C6_the_sacerdotes_pm_counts_from_its_own_time() -> None:
    g = espia(events=[event("immunity", "12:00:00", "Moriarty")])
    before = rules.get("espia").judge(ballots(g, BASE), g, g.days[0], at("11:00:00"), {})
    assert before.gm_outcome is None or "immune" not in before.gm_outcome.detail
    assert findings(before, "E5") == []
    after = rules.get("espia").judge(ballots(g, BASE), g, g.days[0], at("21:30:00"), {})
    assert after.gm_outcome is not None and "immune to the vote" in after.gm_outcome.detail
