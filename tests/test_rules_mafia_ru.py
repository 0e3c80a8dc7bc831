"""The `mafia-ru` preset, one test per requirement of RULES.md section 3 (R1-R11) and C5.

Forum time is UTC here; the game day runs 22:00 (the evening before) to 21:00 on 2016-01-17.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from rulekit import at, ballots, counts, death, edited, game, post, unvote, verdict, vote

from tally import engine, rules
from tally.errors import GameFileError
from tally.extract import Extractor
from tally.game import Day, Event, Game
from tally.model import Tally, Thread
from tally.render import render

PLAYERS = ("Шерлок", "Ватсон", "Мориарти", "Лестрейд", "Хадсон")
VOTING = "https://mafia.ipbhost.com/topic/245-golosovanie-den-1/"


def mafia(*, events: Sequence[Event] = (), options: Mapping[str, Any] | None = None,
          **extra: Any) -> Game:
    g = game("mafia-ru", players=PLAYERS, events=events, staff=("Despina",), options=options,
             **extra)
    return replace(g, days=(Day(1, at("-1 22:00:00"), at("21:00:00"), thread_url=VOTING),))


def judge(g: Game, rows: Sequence[tuple[Any, ...]]) -> Tally:
    day = g.days[0]
    return rules.get("mafia-ru").judge(ballots(g, rows), g, day, day.deadline + timedelta(hours=1), {})


def read(g: Game, posts: Sequence[Any]) -> Tally:
    """Judge real post texts through the preset's Russian syntax (extraction included)."""
    preset = rules.get("mafia-ru")
    extractor = Extractor(g, preset.syntax)
    day = g.days[0]
    return preset.judge([extractor.ballot(p) for p in posts], g, day, at("22:00:00"), {})


def event(kind: str, clock: str, player: str | None, target: str, day: int | None = 1) -> Event:
    return Event(at=at(clock), kind=kind, player=player, target=target, day=day)


def findings(t: Tally, rule: str) -> list[tuple[str, bool, bool]]:
    return [(f.message, f.needs_gm, f.secret) for f in t.findings if f.rule == rule]


def gm(t: Tally) -> tuple[list[tuple[str, int]], str, str | None, str]:
    assert t.gm_counts is not None and t.gm_outcome is not None
    return ([(c.player, c.votes) for c in t.gm_counts], t.gm_outcome.result, t.gm_outcome.player,
            t.gm_outcome.detail)


# Мориарти 3 (Ватсон, Лестрейд, Хадсон), Ватсон 2 (Мориарти, Шерлок).
BASE = [("Ватсон", "10:00:00", vote("Мориарти")), ("Мориарти", "10:10:00", vote("Ватсон")),
        ("Лестрейд", "11:00:00", vote("Мориарти")), ("Шерлок", "12:00:00", vote("Ватсон")),
        ("Хадсон", "13:00:00", vote("Мориарти"))]


def test_R1_deadline_2100_whole_minute_inclusive() -> None:
    t = judge(mafia(), [("Ватсон", "20:59:00", vote("Мориарти")), ("Лестрейд", "21:00:59", vote("Мориарти")),
                        ("Хадсон", "21:01:00", vote("Мориарти"))])
    assert [verdict(t, n).verdict for n in (1, 2)] == ["counted", "counted"]
    late = verdict(t, 3)
    assert (late.verdict, late.rule, late.reason) == ("void", "R1", "late: posted 21:01:00, deadline 21:00:00")
    assert counts(t) == [("Мориарти", 2, ("Ватсон", "Лестрейд"))]
    assert "R1/C7: the deadline minute is inclusive (21:00 counts, 21:01 is late)" in t.notes


def test_R2_russian_syntax_and_a_bare_nick_on_its_own_line() -> None:
    g = mafia()
    t = read(g, [post(1, "Ватсон", "10:00:00", "Голосую за Мориарти"),
                 post(2, "Лестрейд", "10:05:00", "Мориарти"),  # the nick alone: a vote
                 post(3, "Хадсон", "10:10:00", "Голос: Ватсон"),
                 post(4, "Шерлок", "10:20:00", "Мориарти сегодня молчит, подумаю до вечера"),
                 post(5, "Despina", "10:30:00", "Голосую за Ватсон"),  # the GM is not a player
                 post(6, "Despina", "10:40:00", "Мориарти")])  # a non-player's bare line is no vote
    assert counts(t) == [("Мориарти", 2, ("Ватсон", "Лестрейд")), ("Ватсон", 1, ("Хадсон",))]
    assert verdict(t, 4).verdict == verdict(t, 6).verdict == "not_a_vote"
    assert (verdict(t, 5).verdict, verdict(t, 5).reason) == ("not_a_vote", "posted by the GM (staff), who does not vote")
    assert verdict(t, 2).evidence[0].startswith("time shown: ")


def test_R2_the_first_vote_post_stands_later_ones_are_void_and_flagged() -> None:
    t = judge(mafia(), BASE + [("Ватсон", "15:00:00", vote("Лестрейд")), ("Ватсон", "16:00:00", unvote())])
    assert verdict(t, 1).verdict == "counted"
    for n in (6, 7):
        again = verdict(t, n)
        assert (again.verdict, again.rule, again.reason) == (
            "void", "R2", "second vote post: the vote for Мориарти in post 1 stands, it cannot be "
            "changed (rule 11)")
    assert ("Мориарти", 3, ("Ватсон", "Лестрейд", "Хадсон")) in counts(t)
    assert findings(t, "R2") == [
        (f"post {n} by Ватсон: second vote post: the vote for Мориарти in post 1 stands, it cannot "
         "be changed (rule 11)", False, False) for n in (6, 7)]
    late_first = judge(mafia(), [("Ватсон", "21:05:00", vote("Мориарти")), ("Ватсон", "21:06:00", vote("Шерлок"))])
    assert [verdict(late_first, n).rule for n in (1, 2)] == ["R1", "R1"]  # a void post is no vote post
    two = read(mafia(), [post(1, "Ватсон", "10:00:00", "Мориарти\nЛестрейд")])
    assert counts(two) == [("Мориарти", 1, ("Ватсон",))]
    assert findings(two, "R2") == [("post 1 by Ватсон: more than one vote in the post: the first "
                                    "stands (rule 11)", False, False)]


def test_R2_an_edited_vote_post_counts_as_it_reads_and_is_flagged() -> None:
    marker = edited("Сообщение отредактировал Ватсон: 17 January 2016 - 12:00", "12:00:00", "Ватсон")
    t = judge(mafia(), [("Ватсон", "10:00:00", vote("Мориарти"), {"edit": marker})])
    assert (verdict(t, 1).verdict, verdict(t, 1).target) == ("counted", "Мориарти")
    assert findings(t, "R2") == [("post 1 by Ватсон: vote post edited: taken as it reads; the vote "
                                  "cannot be changed (rule 11): the GM checks", True, False)]


def test_R3_most_voted_leaves_a_tie_means_nobody() -> None:
    t = judge(mafia(), BASE)
    assert (t.outcome.result, t.outcome.player, t.outcome.rule, t.outcome.detail) == (
        "eliminated", "Мориарти", "R3", "most votes (3)")
    tie = judge(mafia(), BASE[:4])
    assert (tie.outcome.result, tie.outcome.player, tie.outcome.rule, tie.outcome.tied) == (
        "none", None, "R3", ("Мориарти", "Ватсон"))
    assert tie.outcome.detail == "tie at 2 votes between Мориарти, Ватсон: nobody leaves"


def test_R4_advocate_protection_passes_to_the_next_most_voted_in_the_gm_result_only() -> None:
    t = judge(mafia(events=[event("advocate_protect", "13:00:00", "Шерлок", "Мориарти")]), BASE)
    assert (t.outcome.result, t.outcome.player) == ("eliminated", "Мориарти")  # secret: public unchanged
    assert gm(t) == ([("Мориарти", 3), ("Ватсон", 2)], "eliminated", "Ватсон",
                     "Мориарти has most votes (3); Мориарти is protected by the Адвокат (Шерлок): the "
                     "next most voted leaves (2)")
    assert t.gm_outcome is not None and t.gm_outcome.rule == "R4"
    assert all(secret for _, _, secret in findings(t, "R4"))
    tie = judge(mafia(events=[event("advocate_protect", "13:00:00", "Шерлок", "Ватсон")]), BASE[:4])
    assert gm(tie)[1:3] == ("eliminated", "Мориарти")  # in a tie the other leaves
    late = judge(mafia(events=[event("advocate_protect", "14:01:00", "Шерлок", "Мориарти")]), BASE)
    assert gm(late)[2] == "Мориарти"
    assert findings(late, "R4") == [("Адвокат (Шерлок): advocate protect Мориарти (at 14:01:00): no "
                                     "effect: after 14:00 (rule 7: one minute late is refused)", True, True)]
    thrice = mafia(events=[event("advocate_protect", "-3 13:00:00", "Шерлок", "Мориарти", day=-2),
                           event("advocate_protect", "-2 13:00:00", "Шерлок", "Мориарти", day=-1),
                           event("advocate_protect", "13:00:00", "Шерлок", "Мориарти")])
    assert gm(judge(thrice, BASE))[2] == "Мориарти"  # at most twice a game per player


def test_R5_bouncer_blocks_a_vote_keymaster_cancels_the_block() -> None:
    block = event("bouncer_block", "12:00:00", "Лестрейд", "Хадсон")
    t = judge(mafia(events=[block]), BASE)
    assert counts(t)[0] == ("Мориарти", 3, ("Ватсон", "Лестрейд", "Хадсон"))  # public unchanged
    assert gm(t)[:2] == ([("Мориарти", 2), ("Ватсон", 2)], "none")
    assert ("Хадсон is blocked by the Вышибала (Лестрейд): his vote for Мориарти (post 5) is not "
            "counted", False, True) in findings(t, "R5")
    opened = judge(mafia(events=[block, event("keymaster_open", "12:30:00", "Шерлок", "Хадсон")]), BASE)
    assert gm(opened)[:3] == ([("Мориарти", 3), ("Ватсон", 2)], "eliminated", "Мориарти")
    assert ("the Ключник opened the door for Хадсон: the Вышибала's block is cancelled", False,
            True) in findings(opened, "R5")
    thrice = mafia(events=[event("bouncer_block", "-3 12:00:00", "Лестрейд", "Хадсон", day=-2),
                           event("bouncer_block", "-2 12:00:00", "Лестрейд", "Хадсон", day=-1), block])
    assert gm(judge(thrice, BASE))[0] == [("Мориарти", 3), ("Ватсон", 2)]  # not more than twice


def test_R6_prosecutor_adds_one_secret_vote() -> None:
    t = judge(mafia(events=[event("prosecutor_vote", "13:30:00", "Шерлок", "Ватсон")]), BASE[:4])
    assert t.outcome.result == "none"  # the public tie stands
    assert gm(t)[:3] == ([("Ватсон", 3), ("Мориарти", 2)], "eliminated", "Ватсон")
    assert t.gm_counts is not None and t.gm_counts[0].voters[-1] == "(Прокурор Шерлок)"


def test_R7_tramp_vote_follows_the_order() -> None:
    g = mafia(events=[event("tramp_control", "-1 22:00:00", "Хадсон", "Шерлок")])
    t = judge(g, BASE)
    assert gm(t)[:3] == ([("Ватсон", 3), ("Мориарти", 2)], "eliminated", "Ватсон")
    assert t.gm_counts is not None and "Хадсон (Бомж, as Шерлок)" in t.gm_counts[0].voters
    silent = judge(g, BASE[:4])  # a Бомж who did not post still votes as ordered
    assert gm(silent)[:3] == ([("Ватсон", 3), ("Мориарти", 2)], "eliminated", "Ватсон")


def test_R8_bonus_protects_one_player_for_one_day() -> None:
    t = judge(mafia(events=[event("bonus_protect", "-1 22:00:00", None, "Мориарти")]), BASE)
    result = gm(t)
    assert result[1:3] == ("eliminated", "Ватсон") and "protected by the bonus" in result[3]
    assert t.gm_outcome is not None and t.gm_outcome.rule == "R8"
    again = mafia(events=[event("bonus_protect", "-2 22:00:00", None, "Ватсон", day=0),
                          event("bonus_protect", "-1 22:00:00", None, "Мориарти")])
    assert gm(judge(again, BASE))[2] == "Мориарти"  # one bonus a game


def test_R9_self_vote_and_non_voters_are_autokill() -> None:
    t = judge(mafia(excused=("Лестрейд",)), BASE[:2] + [("Шерлок", "12:00:00", vote("Шерлок"))])
    own = verdict(t, 3)
    assert (own.verdict, own.rule, own.reason) == ("void", "R9", "a vote for oneself: autokill (rule 10)")
    assert t.not_voting == ("Шерлок", "Лестрейд", "Хадсон")
    assert findings(t, "R9") == [
        ("post 3: Шерлок votes for himself: autokill (rule 10)", True, False),
        ("Шерлок did not vote (void vote posts: 3): autokill (rule 9)", True, False),
        ("Лестрейд did not vote: excused by the GM", False, False),
        ("Хадсон did not vote: autokill (rule 9)", True, False)]


def test_R10_fewer_than_five_posts_in_the_game_day_are_flagged() -> None:
    chat = [("Ватсон", f"-1 2{n}:30:00", {"text": "Доброй ночи"}) for n in range(2, 4)]
    chat += [("Ватсон", f"-1 0{n}:00:00", {"text": "Кто мафия?"}) for n in range(1, 3)]
    t = judge(mafia(excused=("Шерлок",)), chat + [("Ватсон", "10:00:00", vote("Мориарти")),
                                                   ("Мориарти", "21:30:00", {"text": "поздно"})])
    messages = findings(t, "R10")
    assert not any(m.startswith("Ватсон") for m, _, _ in messages)  # 4 posts + the vote = 5
    assert ("Мориарти: 0 posts in this thread in the game day, fewer than 5: autoban unless the "
            "other game threads make up the rest (rule 8)", True, False) in messages
    assert ("Шерлок: 0 posts in this thread in the game day, fewer than 5: excused by the GM",
            False, False) in messages
    off = judge(mafia(options={"min_posts": 0}), BASE)
    assert findings(off, "R10") == []


def test_R10_off_is_said_so_in_the_presets_notes() -> None:
    on = [n for n in judge(mafia(), BASE).notes if n.startswith("R10")]
    assert on == ["R10: posts are counted in this thread and the game file's other threads when "
                  "they are read (fewer than 5 flagged); without them, in this thread only"]
    off = [n for n in judge(mafia(options={"min_posts": 0}), BASE).notes if n.startswith("R10")]
    assert off == ["R10: the post count is off (min_posts = 0): nobody is flagged for too few "
                   "posts"]


# The game's discussion thread of the same day (R10 counts "across the game threads").
MAIN = "https://mafia.ipbhost.com/topic/244-obshchaya-den-1/"


def discussion(*rows: tuple[int, str, str]) -> Thread:
    return Thread(url=MAIN, engine="invision",
                  posts=tuple(post(n, who, clock, "Кто мафия?") for n, who, clock in rows))


def test_R10_posts_in_the_other_game_threads_count_too() -> None:
    """Rule 8: "5 осмысленных постов ежедневно" in the game, a vote included. Мориарти's vote
    and 4 posts in the discussion thread make 5; Ватсон's vote and 1 make 2. Posts before 22:00
    or after 21:00, and the GM's, count for nobody."""
    others = discussion((101, "Мориарти", "-1 23:00:00"), (102, "Мориарти", "09:00:00"),
                        (103, "Мориарти", "12:00:00"), (104, "Мориарти", "21:00:59"),
                        (105, "Ватсон", "12:00:00"), (106, "Шерлок", "-1 21:59:59"),
                        (107, "Шерлок", "21:01:00"), (108, "Despina", "10:00:00"))
    g = mafia(excused=("Хадсон",))
    day = g.days[0]
    t = rules.get("mafia-ru").judge(ballots(g, BASE), g, day, day.deadline + timedelta(hours=1),
                                    {}, others=(others,))
    assert findings(t, "R10") == [
        ("Шерлок: 1 post in the game day across 2 game threads (this thread 1, the others 0), "
         "fewer than 5: autoban (rule 8)", True, False),
        ("Ватсон: 2 posts in the game day across 2 game threads (this thread 1, the others 1), "
         "fewer than 5: autoban (rule 8)", True, False),
        ("Лестрейд: 1 post in the game day across 2 game threads (this thread 1, the others 0), "
         "fewer than 5: autoban (rule 8)", True, False),
        ("Хадсон: 1 post in the game day across 2 game threads (this thread 1, the others 0), "
         "fewer than 5: excused by the GM", False, False)]
    assert counts(t) == counts(judge(g, BASE))  # the other threads never cast a vote


def test_R10_the_engine_cuts_the_other_threads_to_the_window_and_counts_a_post_once() -> None:
    """tally.engine.count: the other threads as the count stood at --as-of 12:30; the same
    thread given twice, and the voting thread itself given as another, are not counted again."""
    g = mafia()
    voting = Thread(url=VOTING, engine="invision", posts=(
        post(1, "Мориарти", "10:10:00", "Голосую за Ватсон"),))
    others = discussion((101, "Мориарти", "-1 23:00:00"), (102, "Мориарти", "09:00:00"),
                        (103, "Мориарти", "12:00:00"), (104, "Мориарти", "13:00:00"))
    again = replace(others, url=MAIN + "page-1")
    t = engine.count(voting, g, 1, as_of=at("12:30:00"), others=(others, again, voting))
    moriarty = [m for m, _, _ in findings(t, "R10") if m.startswith("Мориарти")]
    assert moriarty == ["Мориарти: 4 posts in the game day across 2 game threads (this thread 1, "
                        "the others 3), fewer than 5: autoban (rule 8)"]
    # Without the other threads the count is the voting thread's alone, and says so.
    alone = engine.count(voting, g, 1, as_of=at("12:30:00"))
    assert [m for m, _, _ in findings(alone, "R10") if m.startswith("Мориарти")] == [
        "Мориарти: 1 post in this thread in the game day, fewer than 5: autoban unless the other "
        "game threads make up the rest (rule 8)"]


def test_R11_a_dead_player_may_write_one_post() -> None:
    g = mafia(events=[death("Лестрейд", "-1 23:00:00")])
    t = judge(g, [("Лестрейд", "09:00:00", {"text": "Прощайте, я был мирным"}),
                  ("Лестрейд", "10:00:00", {"text": "Ищите среди тихих"}),
                  ("Лестрейд", "11:00:00", vote("Мориарти"))])
    assert findings(t, "R11") == [
        (f"post {n} by Лестрейд, dead since 23:00:00: a dead player may write only 1 "
         "post (rule 4): ban for 24 hours", True, False) for n in (2, 3)]
    assert (verdict(t, 3).verdict, verdict(t, 3).rule) == ("void", "R2")
    assert "Лестрейд" not in t.living


SECRETS = ("Адвокат", "Вышибала", "Прокурор", "Бомж", "bonus", "protected", "blocked", "secret")


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "json"])
def test_C5_public_render_shows_no_secret(fmt: str) -> None:
    g = mafia(events=[event("advocate_protect", "13:00:00", "Шерлок", "Мориарти"),
                      event("bouncer_block", "12:00:00", "Лестрейд", "Хадсон"),
                      event("prosecutor_vote", "13:00:00", "Шерлок", "Ватсон"),
                      event("tramp_control", "-1 22:00:00", "Ватсон", "Мориарти")])
    t = judge(g, BASE)
    assert t.gm_outcome is not None and t.gm_counts is not None
    assert [(c.player, c.votes) for c in t.gm_counts] == [("Ватсон", 4), ("Мориарти", 1)]
    out = render(t, fmt, public=True)
    for word in SECRETS + (t.gm_outcome.detail,):
        assert word not in out
    if fmt == "json":
        data = json.loads(out)
        assert "gm" not in data
        assert data["counts"][0]["votes"] == 3
    full = json.loads(render(t, "json"))
    assert full["gm"]["counts"][0]["votes"] == 4 and full["gm"]["outcome"]["player"] == "Ватсон"


def test_validate_names_the_line_of_an_unknown_or_incomplete_event() -> None:
    preset = rules.get("mafia-ru")
    doctor = Event(at=at("21:30:00"), kind="doctor_heal", player="Шерлок", line=31)
    with pytest.raises(GameFileError, match=r"^game.toml:31: events: unknown event kind 'doctor_heal' "
                       r"for preset mafia-ru \(known: advocate_protect, bonus_protect, bouncer_block, "
                       r"deadline, death, keymaster_open, prosecutor_vote, replacement, revival, "
                       r"tramp_control\)$"):
        preset.validate(mafia(events=[doctor]))
    no_target = Event(at=at("12:00:00"), kind="bouncer_block", player="Лестрейд", line=12)
    with pytest.raises(GameFileError, match=r"^game.toml:12: events: a bouncer_block event needs 'target'$"):
        preset.validate(mafia(events=[no_target]))
    with pytest.raises(GameFileError, match="rules.min_posts: expected at least 0"):
        preset.validate(mafia(options={"min_posts": -1}))


def test_C6_a_secret_action_counts_from_its_own_time() -> None:
    """The Прокурор's vote sent at 13:30 is not in a count taken at 13:00, even the GM's."""
    g = mafia(events=[event("prosecutor_vote", "13:30:00", "Шерлок", "Ватсон")])
    early = rules.get("mafia-ru").judge(ballots(g, BASE[:4]), g, g.days[0], at("13:00:00"), {})
    assert early.gm_counts in (None, early.counts)
    assert findings(early, "R6") == []
    later = rules.get("mafia-ru").judge(ballots(g, BASE[:4]), g, g.days[0], at("14:00:00"), {})
    assert gm(later)[0] == [("Ватсон", 3), ("Мориарти", 2)]
