"""Posts that show the vote format, and posts by people who do not vote (RULES.md C4, K2, C2).

A GM's "Para votar escribid: Voto: Nombre" is no void vote for an unknown player: a post by the
GM (the game file's `staff`) or by anyone off the roster is "not a vote", and a vote for a format
placeholder ("Nombre", "PlayerName", "X", "某人") is a format example, unless the roster really
has a player of that name. The audit still lists every such post, with its link and vote words.
"""

from __future__ import annotations

from collections.abc import Sequence

from rulekit import counts, game, post, verdict

from tally import rules
from tally.extract import Extractor
from tally.game import VoteSyntax
from tally.model import Tally
from tally.render.audit import render_audit


def judge(preset: str, players: Sequence[str], staff: str,
          rows: Sequence[tuple[str, str, str]]) -> Tally:
    """Posts (author, "HH:MM:SS", text) read with the preset's own syntax, then judged."""
    g = game(preset, players=players, staff=(staff,))
    extractor = Extractor(g, rules.get(preset).syntax)
    posts = [post(n, author, clock, text) for n, (author, clock, text) in enumerate(rows, start=1)]
    day = g.days[0]
    return rules.get(preset).judge([extractor.ballot(p) for p in posts], g, day, day.deadline, {})


def audit_of(t: Tally, number: int) -> list[str]:
    """The audit lines of one post: its head line and the indented lines under it."""
    lines = render_audit(t, post=str(number)).splitlines()
    return [line.strip() for line in lines[1:-1]]


def unresolved(t: Tally) -> list[str]:
    """The names the GM is asked about (C2): a placeholder must not be one."""
    return [f.message for f in t.findings if f.rule == "C2"]


def test_es_gm_format_post_and_a_player_quoting_the_format() -> None:
    t = judge("espia", ("Watson", "Moriarty", "Lestrade"), "Zven", [
        ("Zven", "18:00:00", "Día 1. Para votar escribid: Voto: Nombre"),
        ("Watson", "18:05:00", "Voto a Moriarty"),
        ("Lestrade", "18:10:00", "¿Así? Voto: Nombre"),
        ("Moriarty", "18:15:00", "Voto: Watson"),
    ])
    assert counts(t) == [("Moriarty", 1, ("Watson",)), ("Watson", 1, ("Moriarty",))]
    gm = audit_of(t, 1)
    assert gm[0].split()[-1] == "NOT_A_VOTE" and "Zven" in gm[0]
    assert gm[1:] == ["posted by the GM (staff), who does not vote",
                      "evidence: time shown: 17/01/2016 18:00:00",
                      "evidence: vote words: 'Voto: Nombre'",
                      "https://www.jeuxvideo.com/forums/42-1-1000-1-0-1-0-kira.htm#post_1"]
    player = audit_of(t, 3)
    assert player[0].split()[-1] == "NOT_A_VOTE" and "Lestrade" in player[0]
    assert player[1] == "a format example: 'Voto: Nombre'"
    # Lestrade did not vote (E4), and nobody is asked about a player called "Nombre" (C2).
    assert "Lestrade" in t.not_voting
    assert unresolved(t) == []


def test_en_gm_format_post_a_non_player_and_a_placeholder_vote() -> None:
    t = judge("majority", ("Alice", "Bob", "Carol", "Dan", "Eve"), "Ryuk", [
        ("Ryuk", "04:00:00", "Day 1 begins.\nFormat: ##vote PlayerName"),
        ("Zed", "04:05:00", "##vote Alice"),
        ("Carol", "04:10:00", "like this? vote: <name>"),
        ("Dan", "04:15:00", "##vote Alice"),
    ])
    assert counts(t) == [("Alice", 1, ("Dan",))]
    assert audit_of(t, 1)[1] == "posted by the GM (staff), who does not vote"
    assert "evidence: vote words: '##vote PlayerName'" in audit_of(t, 1)
    outsider = audit_of(t, 2)
    assert outsider[0].split()[-1] == "NOT_A_VOTE" and "Zed" in outsider[0]
    assert outsider[1:3] == ["posted by a non-player", "evidence: time shown: 17/01/2016 04:05:00"]
    assert "evidence: vote words: '##vote Alice'" in outsider
    assert audit_of(t, 3)[1] == "a format example: 'vote: <name>'"
    assert unresolved(t) == []


def test_zh_gm_format_post_and_placeholders() -> None:
    t = judge("trigger-cn", ("张三", "李四", "王五"), "桃花", [
        ("桃花", "10:00:00", "第一轮投票开始，格式：投票 X"),
        ("张三", "10:05:00", "投票：某人"),
        ("李四", "10:10:00", "投票 王五"),
    ])
    assert counts(t) == [("王五", 1, ("李四",))]
    assert audit_of(t, 1)[1] == "posted by the GM (staff), who does not vote"
    assert "evidence: vote words: '投票 X'" in audit_of(t, 1)
    assert audit_of(t, 2)[0].split()[-1] == "NOT_A_VOTE"
    assert audit_of(t, 2)[1] == "a format example: '投票：某人'"
    assert unresolved(t) == []


def test_zh_a_player_called_x_is_voted_for() -> None:
    t = judge("trigger-cn", ("X", "张三", "李四"), "桃花", [("张三", "10:05:00", "投票 X")])
    assert counts(t) == [("X", 1, ("张三",))]
    assert verdict(t, 1).verdict == "counted"


def test_ru_and_fr_placeholders_are_examples() -> None:
    ru = judge("mafia-ru", ("Ватсон", "Лестрейд"), "Despina", [("Ватсон", "10:00:00", "Голос: Ник")])
    assert (verdict(ru, 1).verdict, verdict(ru, 1).reason) == (
        "not_a_vote", "a format example: 'Голос: Ник'")
    g = game("majority", players=("Luc", "Zoé"), staff=("MJ",), votes=VoteSyntax(language="fr"))
    fr = rules.get("majority").judge(
        [Extractor(g, rules.get("majority").syntax).ballot(post(1, "Luc", "10:00:00", "vote: Pseudo"))],
        g, g.days[0], g.days[0].deadline, {})
    assert (verdict(fr, 1).verdict, verdict(fr, 1).reason) == (
        "not_a_vote", "a format example: 'vote: Pseudo'")


def test_a_real_vote_beside_a_format_example_counts_and_the_audit_says_both() -> None:
    t = judge("espia", ("Watson", "Moriarty"), "Zven", [
        ("Watson", "18:00:00", "Voto a Moriarty\n(el formato era Voto: Nombre)")])
    assert counts(t) == [("Moriarty", 1, ("Watson",))]
    assert verdict(t, 1).reason == ("vote for Moriarty; ignored a format example: "
                                    "'Voto: Nombre)'")
