"""The vote grammar of issue 13, per language pack, as transcripts through the rules.

Two rules, both sides of each, in every pack (tally.extract, tally.names):
- a revoke or a vote word without a colon is a command at the start of a line, sentence or bold
  span (or as "##unvote", "[unvote]", "vote: X"); inside a sentence or in a question it is prose
  and leaves the author's standing vote alone;
- a vote line that names two players before a sentence break counts for nobody and is held for
  the GM with both names; a second name followed by more words is a comment about that player.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from rulekit import counts, game, judge_text, verdict

from tally.game import Board, VoteSyntax
from tally.model import Tally
from tally.render.gmreport import render_gm

KIRA = ("Alice", "Bob", "Carol", "Dan", "Eve")
ESPIA = ("Ana", "Luis", "Irene Adler", "Watson")
RU = ("Алиса", "Вова", "Миша")
ZH = ("张三", "李四", "王五")
FR = ("Luc", "Zoé", "Amélie", "Basile", "Dorian")  # no majority (hammer) at two votes
PROSE = "vote words inside a sentence, read as prose, not a command"


def held(t: Tally) -> list[str]:
    """The GM's C2 questions (ambiguous or unknown names)."""
    return [f.message for f in t.findings if f.rule == "C2" and f.needs_gm]


def two_names(written: str, voter: str, post: int, names: Sequence[str]) -> str:
    return (f"'{written}' (written by {voter} in post {post}) names {len(names)} players "
            f"({', '.join(names)}): counted for nobody; the GM decides")


# -- en: kira (JV) and majority ------------------------------------------------------------------

def test_en_a_revoke_inside_a_question_is_prose_and_the_vote_stands() -> None:
    t = judge_text(game("kira", players=KIRA), [
        ("Alice", "04:00:00", "vote: Bob"),
        ("Alice", "05:00:00", "Why the unvote, José?"),
        ("Carol", "05:00:00", "vote: Bob"),
        ("Dan", "05:10:00", "vote: Bob"),
    ])
    assert counts(t) == [("Bob", 3, ("Alice", "Carol", "Dan"))]
    assert verdict(t, 1).verdict == "counted"
    prose = verdict(t, 2)
    assert (prose.verdict, prose.reason) == ("not_a_vote", "")
    assert f"{PROSE}: 'Why the unvote, José?'" in prose.evidence
    assert t.outcome.result == "eliminated" and t.outcome.player == "Bob"  # K9: 3 votes


def test_en_a_revoke_at_the_start_of_a_line_withdraws_the_vote() -> None:
    t = judge_text(game("kira", players=KIRA), [
        ("Alice", "04:00:00", "vote: Bob"),
        ("Alice", "05:00:00", "José has a point.\nUnvote, I need to think."),
        ("Carol", "05:00:00", "vote: Bob"),
        ("Dan", "05:10:00", "vote: Bob"),
    ])
    assert counts(t) == [("Bob", 2, ("Carol", "Dan"))]
    assert (verdict(t, 2).verdict, verdict(t, 2).reason) == ("counted",
                                                             "withdraws the vote for Bob (post 1)")
    assert t.outcome.result == "none"  # K9: 2 votes are not enough


@pytest.mark.parametrize("text", [
    "fine then, ##unvote",  # the "##" form is a command wherever it stands
    "[unvote]",
    "Sorry. Unvote.",  # a sentence start
    "I unvote.",
])
def test_en_revoke_commands(text: str) -> None:
    t = judge_text(game("kira", players=KIRA), [("Alice", "04:00:00", "vote: Bob"),
                                                ("Alice", "05:00:00", text)])
    assert counts(t) == []
    assert verdict(t, 2).reason == "withdraws the vote for Bob (post 1)"


@pytest.mark.parametrize("text", [
    "I think we should vote Carol tomorrow",
    "Everyone says I vote Carol but I have not decided",
    "Vote Carol? She was quiet, that's all.",  # a question is no command
])
def test_en_a_vote_word_without_a_colon_inside_a_sentence_is_prose(text: str) -> None:
    t = judge_text(game("kira", players=KIRA), [("Alice", "04:00:00", "vote: Bob"),
                                                ("Alice", "05:00:00", text)])
    assert counts(t) == [("Bob", 1, ("Alice",))]
    assert verdict(t, 2).verdict == "not_a_vote"
    assert any(e.startswith(PROSE) for e in verdict(t, 2).evidence)


@pytest.mark.parametrize("text", ["vote Carol", "He lied twice. Vote Carol", "I vote for Carol",
                                  "- vote Carol", "ok so vote Carol, she lied"])
def test_en_a_vote_word_without_a_colon_as_a_command_counts(text: str) -> None:
    t = judge_text(game("kira", players=KIRA), [("Alice", "04:00:00", "vote: Bob"),
                                                ("Alice", "05:00:00", text)])
    assert counts(t) == [("Carol", 1, ("Alice",))]
    assert verdict(t, 1).verdict == "superseded"


@pytest.mark.parametrize("written, names", [
    ("Bob Carol", ("Bob", "Carol")),
    ("Bob, Carol", ("Bob", "Carol")),
    ("Bob or Carol", ("Bob", "Carol")),
    ("Bob or Carol, I can't decide", ("Bob", "Carol")),
    ("Bob / Carol / Dan", ("Bob", "Carol", "Dan")),
])
def test_en_two_players_on_one_vote_line_count_for_nobody(written: str,
                                                          names: tuple[str, ...]) -> None:
    t = judge_text(game("kira", players=KIRA), [("Alice", "04:00:00", f"vote: {written}"),
                                                ("Carol", "04:10:00", "vote: Bob")])
    assert counts(t) == [("Bob", 1, ("Carol",))]
    assert verdict(t, 1).verdict == "void"
    assert held(t) == [two_names(written, "Alice", 1, names)]


@pytest.mark.parametrize("text", [
    "vote: Bob, Carol never votes",  # the second name begins a comment
    "vote: Bob because Carol said so",
    "vote: Bob. Carol is next",  # after a sentence break
])
def test_en_a_second_name_in_a_comment_leaves_the_vote_for_the_first(text: str) -> None:
    t = judge_text(game("kira", players=KIRA), [("Alice", "04:00:00", text)])
    assert counts(t) == [("Bob", 1, ("Alice",))]
    assert held(t) == []


def test_en_names_with_spaces_and_names_that_are_words() -> None:
    players = ("Bob", "Bob Smith", "Irene Adler", "Will", "Carol")
    t = judge_text(game("majority", players=players), [
        ("Bob", "04:00:00", "##vote Bob Smith"),  # one player, two words
        ("Carol", "04:05:00", "##vote Irene Adler"),
        ("Will", "04:10:00", "##vote Carol, will explain later"),  # "will" begins a comment
        ("Irene Adler", "04:15:00", "##vote Bob Smith or Will"),
    ])
    assert sorted(counts(t)) == [("Bob Smith", 1, ("Bob",)), ("Carol", 1, ("Will",)),
                                 ("Irene Adler", 1, ("Carol",))]
    assert held(t) == [two_names("Bob Smith or Will", "Irene Adler", 4, ("Bob Smith", "Will"))]


# -- es: espia (La Ratonera) and lupus ----------------------------------------------------------

def test_es_revoke_in_a_sentence_is_prose_at_the_start_of_a_line_it_is_a_change() -> None:
    # E3: once voted, a change (a revoke too) voids the player's vote; prose changes nothing.
    prose = judge_text(game("espia", players=ESPIA), [
        ("Ana", "10:00:00", "Voto: Luis"),
        ("Ana", "11:00:00", "¿Por qué retiras tu voto? No entiendo por qué dices que retiro mi voto"),
    ])
    assert counts(prose) == [("Luis", 1, ("Ana",))]
    assert verdict(prose, 2).verdict == "not_a_vote"
    command = judge_text(game("espia", players=ESPIA), [
        ("Ana", "10:00:00", "Voto: Luis"),
        ("Ana", "11:00:00", "Lo he pensado mejor.\nRetiro mi voto"),
    ])
    assert counts(command) == []
    assert verdict(command, 2).verdict != "not_a_vote"


@pytest.mark.parametrize("text, voted", [
    ("Voto a Luis", True),
    ("Soy un fantasma pero voto a Luis", True),  # a clause opened by "pero"
    ("Creo que mañana todos votan a Luis y yo voto a Luis también", False),
    ("¿Voto a Luis?", False),  # a question
])
def test_es_vote_word_without_a_colon(text: str, voted: bool) -> None:
    t = judge_text(game("espia", players=ESPIA), [("Ana", "10:00:00", text)])
    assert counts(t) == ([("Luis", 1, ("Ana",))] if voted else [])


@pytest.mark.parametrize("written, names", [
    ("Luis o Irene Adler", ("Luis", "Irene Adler")),
    ("Luis y Watson", ("Luis", "Watson")),
    ("Luis, Watson", ("Luis", "Watson")),
])
def test_es_two_players_on_one_vote_line_are_held(written: str, names: tuple[str, ...]) -> None:
    t = judge_text(game("espia", players=ESPIA), [("Ana", "10:00:00", f"Voto: {written}")])
    assert counts(t) == []
    assert held(t) == [two_names(written, "Ana", 1, names)]


def test_es_a_comment_after_the_second_name_keeps_the_vote() -> None:
    t = judge_text(game("lupus", players=ESPIA), [("Ana", "10:00:00", "Voto: Luis, Watson nunca vota")])
    assert counts(t) == [("Luis", 1, ("Ana",))]
    assert held(t) == []


# -- fr: the French pack on a majority game -----------------------------------------------------

def fr_game():
    return game("majority", players=FR, votes=VoteSyntax(language="fr"))


def test_fr_revoke_command_and_prose() -> None:
    t = judge_text(fr_game(), [
        ("Luc", "10:00:00", "vote: Zoé"),
        ("Luc", "10:30:00", "Tu crois que je retire mon vote ? Jamais."),
        ("Amélie", "10:00:00", "vote: Zoé"),
        ("Amélie", "11:00:00", "Bon.\nJe retire mon vote"),
    ])
    assert counts(t) == [("Zoé", 1, ("Luc",))]
    assert verdict(t, 2).verdict == "not_a_vote"
    assert verdict(t, 4).reason == "withdraws the vote for Zoé (post 3)"


def test_fr_vote_without_a_colon_and_two_names() -> None:
    t = judge_text(fr_game(), [
        ("Luc", "10:00:00", "Je vote pour Zoé"),
        ("Zoé", "10:05:00", "Demain je vote pour Luc, peut-être"),  # inside a sentence
        ("Amélie", "10:10:00", "vote: Luc ou Zoé"),
    ])
    assert counts(t) == [("Zoé", 1, ("Luc",))]
    assert verdict(t, 2).verdict == "not_a_vote"
    assert held(t) == [two_names("Luc ou Zoé", "Amélie", 3, ("Luc", "Zoé"))]


# -- ru: mafia-ru (bare nicks, the first vote post stands) ---------------------------------------

def test_ru_revoke_in_a_question_is_prose_a_revoke_command_is_a_change() -> None:
    # R2: the first vote post stands; a later revoke is void and flagged, prose is not a post
    # that changes anything.
    t = judge_text(game("mafia-ru", players=RU), [
        ("Алиса", "10:00:00", "Голосую за Вову"),
        ("Алиса", "11:00:00", "Зачем ты снимаешь голос? Думаешь, я отменяю голос?"),
        ("Миша", "10:00:00", "голосую за Вову"),
        ("Миша", "11:00:00", "Снимаю голос"),
    ])
    assert counts(t) == [("Вова", 2, ("Алиса", "Миша"))]
    assert verdict(t, 2).verdict == "not_a_vote"
    assert verdict(t, 4).verdict == "void" and verdict(t, 4).rule == "R2"
    assert [f.post_id for f in t.findings if f.rule == "R2"] == ["4"]


@pytest.mark.parametrize("text, names", [
    ("Алиса или Миша", ("Алиса", "Миша")),  # a bare line of two nicks
    ("Алиса Миша", ("Алиса", "Миша")),
    ("Голосую за Алису или Мишу", ("Алиса", "Миша")),
])
def test_ru_two_nicks_are_held(text: str, names: tuple[str, ...]) -> None:
    t = judge_text(game("mafia-ru", players=RU), [("Вова", "10:00:00", text)])
    assert counts(t) == []
    written = text.removeprefix("Голосую за ")
    assert held(t) == [two_names(written, "Вова", 1, names)]


def test_ru_one_nick_and_a_comment() -> None:
    t = judge_text(game("mafia-ru", players=RU), [
        ("Вова", "10:00:00", "Алиса"),
        ("Миша", "10:05:00", "голосую за Алиса, Вова никогда не голосует"),
        ("Алиса", "10:10:00", "Мы завтра голосуем за Мишу или Вову?"),  # discussion, no vote
    ])
    assert counts(t) == [("Алиса", 2, ("Вова", "Миша"))]
    assert held(t) == []
    assert verdict(t, 3).verdict == "not_a_vote"


# -- zh: trigger-cn (投票 X, 取消投票) -------------------------------------------------------------

def test_zh_revoke_in_a_question_is_prose_at_the_start_of_a_line_it_revokes() -> None:
    t = judge_text(game("trigger-cn", players=ZH), [
        ("张三", "10:00:00", "投票 李四"),
        ("张三", "11:00:00", "你为什么取消投票"),
        ("王五", "10:00:00", "投票 李四"),
        ("王五", "11:00:00", "想了想\n取消投票"),
    ])
    assert counts(t) == [("李四", 1, ("张三",))]
    assert verdict(t, 2).verdict == "not_a_vote"
    assert f"{PROSE}: '你为什么取消投票'" in verdict(t, 2).evidence
    assert verdict(t, 4).reason == "withdraws the vote for 李四 (post 3)"


@pytest.mark.parametrize("text, voted", [
    ("我投票王五", True),
    ("好吧，投票 王五", True),  # "投票 X" with its space is the format itself
    ("我们明天投票王五吧", False),
])
def test_zh_vote_word_without_a_colon(text: str, voted: bool) -> None:
    t = judge_text(game("trigger-cn", players=ZH), [("张三", "10:00:00", text)])
    assert counts(t) == ([("王五", 1, ("张三",))] if voted else [])


@pytest.mark.parametrize("written", ["李四或王五", "李四 还是 王五", "李四，王五", "李四 王五"])
def test_zh_two_players_on_one_vote_line_are_held(written: str) -> None:
    t = judge_text(game("trigger-cn", players=ZH), [("张三", "10:00:00", f"投票：{written}")])
    assert counts(t) == []
    assert held(t) == [two_names(written, "张三", 1, ("李四", "王五"))]


def test_zh_a_comment_after_the_name_keeps_the_vote() -> None:
    t = judge_text(game("trigger-cn", players=ZH), [("张三", "10:00:00", "投票：李四，王五从来不投票")])
    assert counts(t) == [("李四", 1, ("张三",))]
    assert held(t) == []


# -- the preset defaults say the grammar, with the pack's own examples ----------------------------

@pytest.mark.parametrize("preset, players, example", [
    ("kira", KIRA, "'vote: Alice, Bob never votes'"),
    ("espia", ESPIA, "'Voto: Ana o Luis'"),
    ("mafia-ru", RU, "«Голос: Алиса или Вова»"),
    ("trigger-cn", ZH, "“你为什么取消投票”"),
])
def test_the_gm_report_lists_the_grammar_defaults(preset: str, players: tuple[str, ...],
                                                  example: str) -> None:
    t = judge_text(game(preset, players=players), [])
    report = render_gm(t)
    assert "Preset defaults in force:" in report
    assert example in report
    assert sum(n.startswith(("vote grammar (default)", "C2 (default)")) for n in t.notes) == 2


def test_the_game_files_language_picks_the_examples() -> None:
    t = judge_text(fr_game(), [])
    assert any("« vote: Luc ou Zoé »" in n for n in t.notes)


# ---------------------------------------------------------------------------------------------
# A board whose language is not the preset's


def test_a_board_in_another_language_reads_its_vote_words_too() -> None:
    """majority (English words) on a Chinese board ([thread] language = "zh"): "投票 李四" and
    "取消投票" count as well as "vote: X"; before, no vote at all was read (exit 0)."""
    g = game("majority", players=("张三", "李四", "王五", "赵六", "Eve"), board=Board(language="zh"))
    t = judge_text(g, [("张三", "03:10:00", "投票 李四"), ("王五", "03:20:00", "vote: 李四"),
                       ("赵六", "03:30:00", "投票 张三"), ("赵六", "03:40:00", "取消投票"),
                       ("Eve", "03:50:00", "我觉得投票李四不对")])
    assert counts(t) == [("李四", 2, ("张三", "王五"))]
    assert verdict(t, 4).reason.startswith("withdraws the vote for 张三")
    assert verdict(t, 5).verdict == "not_a_vote"


def test_a_board_in_the_presets_language_or_a_stated_vote_language_reads_only_that() -> None:
    """`votes.language` decides alone when the game file states it."""
    g = game("majority", players=("张三", "李四", "王五"), board=Board(language="zh"),
             votes=VoteSyntax(language="en"))
    t = judge_text(g, [("张三", "03:10:00", "投票 李四"), ("王五", "03:20:00", "vote: 李四")])
    assert counts(t) == [("李四", 1, ("王五",))]
