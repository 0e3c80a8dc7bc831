"""The `trigger-cn` preset, one test per requirement of RULES.md section 5 (T1-T8) and its vote
defaults. Forum time is UTC unless a test says otherwise (rulekit's clock: the day starts
2016-01-17 03:00); floor 1 is the GM's opening post.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from datetime import timedelta
from typing import Any

import pytest
from rulekit import at, ballots, counts, death, edited, game, post, verdict

from tally import rules
from tally.errors import GameFileError
from tally.extract import Extractor
from tally.game import Event, Game, Player
from tally.model import Tally, Thread
from tally.render import render
from tally.render.triggers import render_triggers
from tally.rules.trigger_cn import announce_at
from tally.triggers import judge_thread

PLAYERS = ("张三", "李四", "王五", "赵六", "钱七")
KILLER = "王五"
GM = "桃花"


def trigger_game(*triggers: Event, events: Sequence[Event] = (), players: Sequence[str] = PLAYERS,
                 **extra: Any) -> Game:
    roster = tuple(Player(p, role="杀手" if p == KILLER else None) for p in players)
    return game("trigger-cn", players=roster, events=[*triggers, *events], staff=(GM,), **extra)


def trigger(condition: str, name: str, effect: str = "substitute", **params: Any) -> Event:
    return Event(at=at("03:00:00"), kind="trigger", condition=condition, name=name, effect=effect,
                 **params)


def said(author: str, clock: str, body: str = "顶") -> tuple[Any, ...]:
    return (author, clock, {"text": body})


def judge(g: Game, rows: Sequence[tuple[Any, ...]], first_floor: int = 1) -> Tally:
    """Rows are posts with text (floors from `first_floor`), extracted with the zh pack."""
    preset = rules.get("trigger-cn")
    extractor = Extractor(g, preset.syntax)
    posts = [replace(b.post, position=b.post.position + first_floor - 1) for b in ballots(g, rows)]
    return preset.judge([extractor.ballot(p) for p in posts], g, g.days[0],
                        g.days[0].deadline + timedelta(hours=1), {})


def secrets(t: Tally) -> list[tuple[str, str | None, str]]:
    """(rule, player, message) of every trigger finding; all must be secret with no post id."""
    found = [f for f in t.findings if f.rule.startswith("T")]
    assert all(f.secret and f.post_id is None for f in found)
    return [(f.rule, f.player, f.message) for f in found]


OPENING = said(GM, "03:00:00", "游戏开始,请各位发言")


def test_votes_section5_defaults_last_vote_counts_edits_kept_tie_to_gm() -> None:
    rows = [OPENING,
            said("张三", "04:00:00", "投票 李四"),
            said("李四", "04:10:00", "投票：张三"),
            said("张三", "04:20:00", "取消投票"),
            said("赵六", "04:30:00", "投票 王五"),
            said("赵六", "04:40:00", "我改主意了,投票：李四"),
            ("钱七", "05:00:00", {"text": "投票 张三", "edit": edited("本帖最后由 钱七 于 2016-1-17 05:01 编辑",
                                                                     "05:01:00", "钱七")})]
    t = judge(trigger_game(), rows)
    assert counts(t) == [("张三", 2, ("李四", "钱七")), ("李四", 1, ("赵六",))]
    assert (verdict(t, 2).verdict, verdict(t, 2).superseded_by) == ("superseded", "4")
    assert verdict(t, 4).reason == "withdraws the vote for 李四 (post 2)"
    assert verdict(t, 5).verdict == "superseded" and verdict(t, 6).target == "李四"
    assert verdict(t, 7).verdict == "counted"  # edits do not void (section 5 default)
    assert (t.outcome.result, t.outcome.player, t.outcome.detail) == ("eliminated", "张三", "most votes (2)")
    tie = judge(trigger_game(), rows[:3])
    assert (tie.outcome.result, tie.outcome.tied, tie.outcome.detail) == (
        "tie", ("李四", "张三"), "tie at 1 votes between 李四, 张三: the GM decides")


def test_T1_floors_are_the_posts_positions_from_the_opening_post() -> None:
    g = trigger_game(trigger("floor", "第4楼", floor=4), trigger("first_reply", "沙发"))
    t = judge(g, [OPENING, said("李四", "04:00:00", "沙发!"), said("张三", "04:05:00"),
                  said("赵六", "04:10:00", "投票 张三")])
    assert [(r, p) for r, p, _ in secrets(t)] == [("T1", "李四"), ("T1", "赵六")]
    assert secrets(t)[1][2] == ("“第4楼”: 赵六 at floor 4 (2016-01-17 04:10): 赵六 becomes a substitute "
                                "killer; announce at 2016-01-17 13:00 (T6)")
    assert counts(t) == [("张三", 1, ("赵六",))]  # a trigger post still votes


def test_T2_the_killers_trigger_passes_to_the_next_post_by_someone_else() -> None:
    g = trigger_game(trigger("floor", "第3楼", floor=3))
    t = judge(g, [OPENING, said("张三", "04:00:00"), said(KILLER, "04:05:00"), said(KILLER, "04:06:00"),
                  said("钱七", "04:10:00")])
    rule, player, message = secrets(t)[0]
    assert (rule, player) == ("T2", "钱七")
    assert message.endswith("passed over floor 3 (王五): the killer's post passes it on (T2); "
                            "passed over floor 4 (王五): the killer's post passes it on (T2)")


def test_T3_a_dead_players_post_does_not_trigger_the_condition_stays_open() -> None:
    g = trigger_game(trigger("floor", "第2楼", floor=2), trigger("long_reply", "长帖", min_chars=10),
                     events=[death("李四", "03:30:00")])
    t = judge(g, [OPENING, said("李四", "04:00:00", "我死了但是还要说很多很多很多话"),
                  said("张三", "04:05:00", "短"), said("赵六", "04:10:00", "这一帖超过了十个字的长度吧朋友们")])
    found = secrets(t)
    assert [(r, p) for r, p, _ in found] == [("T3", "张三"), ("T3", "赵六")]
    assert "passed over floor 2 (李四): a dead player's post does not trigger (T3)" in found[0][2]
    assert "at floor 4" in found[1][2]  # a content condition waits for the next matching post
    still = judge(g, [OPENING, said("李四", "04:00:00")])
    assert [r for r, _, m in secrets(still) if "not met yet" in m] == ["T1", "T1"]


def test_T4_a_substitute_meeting_a_condition_again_goes_back_to_civilian() -> None:
    g = trigger_game(trigger("first_reply", "沙发"), trigger("regex", "说出暗号", pattern="芝麻开门"))
    t = judge(g, [OPENING, said("张三", "04:00:00", "沙发"), said("李四", "04:05:00"),
                  said("张三", "05:00:00", "芝麻开门")])
    assert [(r, p) for r, p, _ in secrets(t)] == [("T1", "张三"), ("T4", "张三")]
    assert "张三 meets a condition again: back to civilian (T4)" in secrets(t)[1][2]


def test_T5_a_substitute_made_after_the_killers_death_is_promoted_at_once() -> None:
    g = trigger_game(trigger("floor", "第2楼", floor=2), trigger("floor", "第4楼", floor=4),
                     events=[death(KILLER, "04:30:00")])
    t = judge(g, [OPENING, said("张三", "04:00:00"), said("李四", "04:10:00"), said("赵六", "05:00:00")])
    found = secrets(t)
    assert ("T5", "赵六") in [(r, p) for r, p, _ in found]
    assert any("赵六 becomes a substitute killer after the killer's death: promoted at once (T5)" in m
               for _, _, m in found)
    # the one made before the death waits for it, then is promoted
    assert ("T5", "张三", "张三, substitute killer since 2016-01-17 04:00, is promoted at the killer's "
            "death (2016-01-17 04:30)") in found


def test_T6_announcement_at_13_or_18_in_the_games_zone() -> None:
    zone = "Asia/Shanghai"  # UTC+8: 03:00 UTC is 11:00 local
    from datetime import UTC, datetime

    def local(h: int, m: int = 0, day: int = 17) -> datetime:
        return datetime(2016, 1, day, h, m, tzinfo=UTC) - timedelta(hours=8)

    assert announce_at(local(20), zone) == local(13, day=18)  # 18:00-13:00 next day -> 13:00
    assert announce_at(local(11), zone) == local(13)
    assert announce_at(local(17, 59), zone) == local(18)  # 13:00-18:00 -> 18:00
    assert announce_at(local(13), zone) == local(18)
    assert announce_at(local(18), zone) == local(13, day=18)
    g = trigger_game(trigger("first_reply", "沙发"), timezone=zone)
    t = judge(g, [OPENING, said("张三", "06:30:00")])  # 14:30 in Shanghai
    assert secrets(t)[0][2].endswith("14:30): 张三 becomes a substitute killer; announce at 2016-01-17 18:00 (T6)")


def test_T7_revival_from_12_players_the_dead_come_back_the_living_name_or_die() -> None:
    twelve = PLAYERS + tuple(f"玩家{n}" for n in range(6, 13))
    g = trigger_game(trigger("floor", "复活第2楼", "revival", floor=2),
                     trigger("floor", "复活第3楼", "revival", floor=3),
                     events=[death("李四", "03:30:00")], players=twelve)
    t = judge(g, [OPENING, said("李四", "04:00:00"), said("张三", "04:05:00")])
    assert secrets(t) == [
        ("T7", "李四", "“复活第2楼”: 李四 at floor 2 (2016-01-17 04:00): 李四 (dead) meets the revival "
         "condition: comes back as civilian; announce at 2016-01-17 13:00 (T6)"),
        ("T7", "张三", "“复活第3楼”: 张三 at floor 3 (2016-01-17 04:05): 张三 meets the revival condition "
         "alive: may name one player to die next round; names nobody: dies himself; announce at "
         "2016-01-17 13:00 (T6)")]
    small = judge(trigger_game(trigger("first_reply", "复活", "revival")), [OPENING, said("张三", "04:00:00")])
    assert "revival needs 12 or more players (5): no effect" in secrets(small)[0][2]


def test_last_valid_voter_of_round_one() -> None:
    g = trigger_game(trigger("last_voter", "第一回合最后一个有效投票者"))
    t = judge(g, [OPENING, said("张三", "04:00:00", "投票 李四"), said("赵六", "05:00:00", "投票 张三"),
                  said("钱七", "+1 03:00:00", "投票 张三")])  # late: not valid
    assert verdict(t, 4).verdict == "void"
    assert [(r, p) for r, p, _ in secrets(t)] == [("T1", "赵六")]


SECRET_WORDS = ("substitute", "沙发", "第3楼", "(T6)", "announce", "killer", "杀手", "passed over")


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "json"])
def test_T8_triggers_never_in_a_public_render(fmt: str) -> None:
    g = trigger_game(trigger("first_reply", "沙发"), trigger("floor", "第3楼", floor=3))
    t = judge(g, [OPENING, said("李四", "04:00:00", "投票 张三"), said(KILLER, "04:05:00", "投票 张三"),
                  said("赵六", "04:10:00", "投票 李四")])
    assert len(secrets(t)) == 2
    out = render(t, fmt, public=True)
    for word in SECRET_WORDS + tuple(m for _, _, m in secrets(t)):
        assert word not in out
    if fmt == "json":
        data = json.loads(out)
        assert "gm" not in data and len(data["verdicts"]) == 4  # no post's verdict goes missing
    assert "becomes a substitute killer" in render(t, "json")  # the GM's own report has them


def test_T8_a_later_day_points_at_the_trigger_report() -> None:
    g = trigger_game(trigger("first_reply", "沙发"))
    t = judge(g, [said("张三", "04:00:00", "投票 李四")], first_floor=40)  # day 2: no floor 1
    assert secrets(t) == [("T8", None, "trigger conditions are judged on the whole thread: run `tally triggers`")]


def test_trigger_report_on_the_whole_thread() -> None:
    g = trigger_game(trigger("first_reply", "沙发"), trigger("last_voter", "最后投票"),
                     trigger("floor", "第99楼", floor=99))
    rows = [OPENING, said(KILLER, "04:00:00", "沙发"), said("张三", "04:01:00", "投票 李四"),
            said("李四", "05:00:00", "投票 张三")]
    posts = tuple(b.post for b in ballots(g, rows))
    thread = Thread(url=g.thread_url, engine="discuz", posts=posts, fetched_at=at("+1 04:00:00"))
    report = render_triggers(judge_thread(thread, g))
    assert report.startswith("Trigger report (private: do not post; T8)\n")
    assert ("  - [T2] “沙发”: 张三 at floor 3 (2016-01-17 04:01): 张三 becomes a substitute killer; "
            "announce at 2016-01-17 13:00 (T6); passed over floor 2 (王五): the killer's post passes it on (T2)"
            ) in report
    assert "  - [T4] “最后投票”: 李四" not in report and "“最后投票”: 李四 at floor 4" in report
    assert "Open (1):\n  - “第99楼”\n" in report
    assert report.endswith("Substitute killers: 张三 (waiting), 李四 (waiting)\n")


def test_validate_names_the_line_of_an_unknown_or_incomplete_trigger() -> None:
    preset = rules.get("trigger-cn")
    odd = Event(at=at("03:00:00"), kind="sacerdote_protect", player="张三", line=17)
    with pytest.raises(GameFileError, match=r"^game.toml:17: events: unknown event kind 'sacerdote_protect' "
                       r"for preset trigger-cn \(known: deadline, death, replacement, revival, trigger\)$"):
        preset.validate(trigger_game(events=[odd]))
    bad = replace(trigger("floor", "x"), line=9)
    with pytest.raises(GameFileError, match=r"^game.toml:9: events: a trigger event with condition 'floor' "
                       r"needs floor = a whole number of at least 1, got None$"):
        preset.validate(trigger_game(bad))
    with pytest.raises(GameFileError, match="needs condition = one of floor, first_reply"):
        preset.validate(trigger_game(trigger("moon", "x")))
    with pytest.raises(GameFileError, match="bad pattern"):
        preset.validate(trigger_game(trigger("regex", "x", pattern="(")))
    assert post(1, "张三", "04:00:00").position == 1


def test_C6_a_killers_death_after_the_count_does_not_promote_yet() -> None:
    """T5's promotion at the killer's death (04:30) is not in a count taken at 04:20."""
    g = trigger_game(trigger("floor", "第2楼", floor=2), events=[death(KILLER, "04:30:00")])
    rows = [OPENING, said("张三", "04:00:00"), said("李四", "04:10:00")]
    preset, extractor = rules.get("trigger-cn"), Extractor(g, rules.get("trigger-cn").syntax)
    early = preset.judge([extractor.ballot(b.post) for b in ballots(g, rows)], g, g.days[0],
                         at("04:20:00"), {})
    assert [r for r, _, _ in secrets(early)] == ["T1"]
    later = preset.judge([extractor.ballot(b.post) for b in ballots(g, rows)], g, g.days[0],
                         at("05:00:00"), {})
    assert ("T5", "张三", "张三, substitute killer since 2016-01-17 04:00, is promoted at the killer's "
            "death (2016-01-17 04:30)") in secrets(later)
