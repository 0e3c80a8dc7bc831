"""Vote extraction from a post's own text (RULES.md C1-C3, K4, K7) and the language packs."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tally import game as gamefile
from tally import syntax
from tally.errors import InputError
from tally.extract import Extractor
from tally.game import Board, Day, Game, Player, VoteSyntax
from tally.model import Action, Body, Post, Quote

START = datetime(2024, 3, 1, 18, 0, tzinfo=UTC)


def make_game(players: tuple[str, ...] = ("Alice", "Bob", "Carol", "Mary Jane"),
              **extra: object) -> Game:
    return Game(path=Path("game.toml"), title="Test", preset="majority", timezone="UTC",
                thread_url="https://forum.example/t/1", board=extra.pop("board", Board()),  # type: ignore[arg-type]
                players=tuple(Player(n) for n in players),
                days=(Day(1, START, START + timedelta(days=1)),), **extra)  # type: ignore[arg-type]


def make_post(own: str, author: str = "Alice", **body: object) -> Post:
    return Post(id="501", position=7, permalink="https://forum.example/p/501", author=author,
                author_id=None, created_at=START + timedelta(hours=1), time_text="19:00",
                zone="UTC", body=Body(own=own, **body))  # type: ignore[arg-type]


def summary(actions: tuple[Action, ...]) -> list[tuple[str, str | None]]:
    return [(a.kind, a.target) for a in actions]


EN = Extractor(make_game())


# -- C1: only the author's own words vote --------------------------------------------------------

def test_C1_quote_never_votes() -> None:
    post = make_post("Agreed, good catch.", quotes=(Quote("vote: Bob", author="Carol"),))
    assert EN.ballot(post).actions == ()


def test_C1_spoiler_and_code_never_vote() -> None:
    post = make_post("see below", spoilers=("##vote Bob",), code=("[vote]Bob[/vote]",))
    assert EN.ballot(post).actions == ()


def test_ballot_names_the_voter() -> None:
    ballot = EN.ballot(make_post("vote: Bob", author="CAROL"))
    assert ballot.voter == "Carol"
    assert summary(ballot.actions) == [("vote", "Bob")]


def test_ballot_by_staff_has_no_voter() -> None:
    extractor = Extractor(make_game(staff=("ModMaria",)))
    ballot = extractor.ballot(make_post("vote: Bob", author="ModMaria"))
    assert ballot.voter is None
    assert summary(ballot.actions) == [("vote", "Bob")]  # the rules decide what a non-voter's vote is


# -- the English forms ---------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "vote: Bob",
    "Vote Bob",
    "VOTE:Bob",
    "vote : bob",
    "##vote Bob",
    "##VOTE: Bob",
    "[vote]Bob[/vote]",
    "[VOTE] Bob [/vote]",
    "Long day. I think it is him.\nvote: Bob",
    "ok so vote Bob, he lied",
    "He lied. Vote Bob, he lied",
    "I vote for Bob",
    "- vote Bob",
])
def test_each_english_vote_form(text: str) -> None:
    actions = EN.actions(text)
    assert summary(actions) == [("vote", "Bob")]
    assert actions[0].match is not None and actions[0].match.how == "exact"


@pytest.mark.parametrize("text", ["unvote", "##unvote", "UnVote please", "I unvote.",
                                  ":) unvote", "\U0001f44d unvote", "> unvote", "1. unvote"])
def test_each_english_unvote_form(text: str) -> None:
    assert summary(EN.actions(text)) == [("unvote", None)]


@pytest.mark.parametrize("text", [
    "devote Bob",
    "I voted Bob yesterday",
    "the voters like Bob",
    "I will vote later",
    "vote: ?",
    "vote:",
    "vote",
    "who should we vote",
])
def test_not_a_vote(text: str) -> None:
    assert EN.actions(text) == ()


def test_vote_phrase_and_written_target_kept_for_the_audit() -> None:
    (action,) = EN.actions("hmm.\nvote: Mary Jane because she lied\nbye")
    assert action.written == "Mary Jane because she lied"
    assert action.text == "vote: Mary Jane because she lied"
    assert action.target == "Mary Jane"


def test_C2_explicit_vote_for_an_unknown_name_goes_to_gm() -> None:
    (action,) = EN.actions("vote: Zebedee")
    assert action.kind == "vote" and action.target is None
    assert action.match is not None and action.match.how == "unknown"


def test_C2_bare_form_needs_a_roster_name() -> None:
    assert EN.actions("vote Zebedee") == ()  # reads like prose: no name, no vote
    assert summary(EN.actions("vote Alcie")) == [("vote", "Alice")]  # a misspelling still counts


def test_C2_bare_form_near_miss_kept_for_gm() -> None:
    (action,) = EN.actions("vote \u0410lice")  # Cyrillic A: must be seen, not dropped
    assert action.match is not None and action.match.how == "mixed_script"


# -- several actions (K7) ----------------------------------------------------------------------

def test_K7_several_actions_apply_in_order() -> None:
    text = "vote: Bob\nwait, no.\nunvote\n##vote Carol"
    assert summary(EN.actions(text)) == [("vote", "Bob"), ("unvote", None), ("vote", "Carol")]


def test_two_actions_on_one_line() -> None:
    assert summary(EN.actions("unvote, vote: Carol")) == [("unvote", None), ("vote", "Carol")]
    assert summary(EN.actions("vote Bob vote Carol")) == [("vote", "Bob"), ("vote", "Carol")]


# -- no elimination, jokes, bold, the game's own syntax ------------------------------------------

def test_no_elimination_when_the_syntax_lists_it() -> None:
    extractor = Extractor(make_game(), syntax.pack("en", no_elimination=True))
    (action,) = extractor.actions("##vote No Lynch")
    assert (action.kind, action.written, action.match) == ("no_elimination", "No Lynch", None)


def test_no_elimination_words_absent_make_a_name() -> None:
    (action,) = EN.actions("vote: no lynch")
    assert action.kind == "vote" and action.match is not None and action.match.how == "unknown"


def test_K4_joke_marker_on_the_vote_line() -> None:
    extractor = Extractor(make_game(votes=VoteSyntax(joke_markers=("(joke)", "jk"))))
    (joke,) = extractor.actions("vote: Bob (joke)")
    assert (joke.joke, joke.target, joke.written) == (True, "Bob", "Bob")
    assert [a.joke for a in extractor.actions("jk, vote: Bob")] == [True]
    assert [a.joke for a in extractor.actions("vote: Bob\njk about the rest")] == [False]
    assert [a.joke for a in extractor.actions("vote: Bob jkl")] == [False]


def test_require_bold_reads_only_bold_spans() -> None:
    extractor = Extractor(make_game(votes=VoteSyntax(require_bold=True)))
    post = make_post("vote: Bob\nvote: Carol", bold=("vote: Carol",))
    assert summary(extractor.ballot(post).actions) == [("vote", "Carol")]
    assert extractor.actions("vote: Bob") == ()


def test_game_patterns_add_forms() -> None:
    extractor = Extractor(make_game(votes=VoteSyntax(patterns=(r"lynch\s*->\s*(?P<target>\w+)",))))
    assert summary(extractor.actions("Lynch -> Bob\nvote: Carol")) == [("vote", "Bob"),
                                                                        ("vote", "Carol")]


def test_game_vote_words_replace_the_pack() -> None:
    extractor = Extractor(make_game(votes=VoteSyntax(vote_words=("lynch",))))
    assert summary(extractor.actions("lynch: Bob")) == [("vote", "Bob")]
    assert extractor.actions("vote: Bob") == ()
    assert summary(extractor.actions("unvote")) == [("unvote", None)]  # not overridden


def test_game_file_toml_votes_table(tmp_path: Path) -> None:
    path = tmp_path / "game.toml"
    path.write_text("""
preset = "majority"
[thread]
url = "https://forum.example/t/1"
[[players]]
name = "Alice"
[[players]]
name = "Bob"
aliases = ["Bobby"]
[[days]]
start = "2024-03-01 18:00"
deadline = "2024-03-02 18:00"
[votes]
language = "es"
joke_markers = ["(broma)"]
[resolutions]
"el rubio" = "Bob"
""", encoding="utf-8")
    extractor = Extractor(gamefile.load(path), syntax.pack("en"))
    assert summary(extractor.actions("Voto: el rubio")) == [("vote", "Bob")]
    assert [a.joke for a in extractor.actions("voto a Bobby (broma)")] == [True]
    assert extractor.actions("vote: Bob") == ()


def test_unknown_language_names_the_game_file() -> None:
    with pytest.raises(InputError, match=r"game\.toml: votes\.language: unknown vote language 'xx'"):
        Extractor(make_game(votes=VoteSyntax(language="xx")))


# -- language packs ------------------------------------------------------------------------------

def test_pack_unknown_name() -> None:
    with pytest.raises(InputError, match="unknown vote language 'klingon' .known: en, es, fr, ru, zh"):
        syntax.pack("klingon")


ES = Extractor(make_game(("Ana", "Luis", "Irene Adler")), syntax.pack("es"))
FR = Extractor(make_game(("Luc", "Zoé")), syntax.pack("fr"))
RU = Extractor(make_game(("Вова", "Алиса")), syntax.pack("ru"))
ZH = Extractor(make_game(("张三", "李四")), syntax.pack("zh"))


@pytest.mark.parametrize("extractor, text, target", [
    (ES, "Voto: Ana", "Ana"),
    (ES, "voto a Luis", "Luis"),
    (ES, "voto Irene Adler, que miente", "Irene Adler"),
    (ES, "[voto]Ana[/voto]", "Ana"),
    (FR, "vote: Luc", "Luc"),
    (FR, "Je vote Zoé", "Zoé"),
    (FR, "je vote pour Luc, il ment", "Luc"),
    (RU, "Голосую за Вову", "Вова"),
    (RU, "голос: Алиса", "Алиса"),
    (RU, "голос за Алису", "Алиса"),
    (ZH, "投票 张三", "张三"),
    (ZH, "投票：李四", "李四"),
    (ZH, "我投票张三", "张三"),
    (ZH, "票 李四", "李四"),
])
def test_each_language_pack_vote(extractor: Extractor, text: str, target: str) -> None:
    assert summary(extractor.actions(text)) == [("vote", target)]


@pytest.mark.parametrize("extractor, text", [
    (ES, "desvoto"), (ES, "Retiro mi voto"),
    (FR, "dévote"), (FR, "je retire mon vote"),
    (RU, "Снимаю голос"), (RU, "отменяю голос"),
    (ZH, "取消投票"),
])
def test_each_language_pack_unvote(extractor: Extractor, text: str) -> None:
    assert summary(extractor.actions(text)) == [("unvote", None)]


@pytest.mark.parametrize("extractor, text", [
    (ES, "mañana voto, ahora no"),
    (FR, "je vote demain"),
    (RU, "мой голос важен"),
    (ZH, "选票很多"),
    (ZH, "投票："),
])
def test_language_pack_prose_is_not_a_vote(extractor: Extractor, text: str) -> None:
    assert extractor.actions(text) == ()


def test_zh_unvote_then_vote_in_order() -> None:
    assert summary(ZH.actions("取消投票，投票：李四")) == [("unvote", None), ("vote", "李四")]


def test_board_language_picks_the_pack_when_nothing_else_does() -> None:
    extractor = Extractor(make_game(("Ana", "Luis"), board=Board(language="es")))
    assert summary(extractor.actions("voto a Ana")) == [("vote", "Ana")]


def test_preset_defaults_win_over_board_language() -> None:
    game = make_game(("Ana", "Luis"), board=Board(language="es"))
    extractor = Extractor(game, replace(syntax.pack("en"), require_bold=True))
    assert extractor.actions("vote: Ana", bold=("vote: Ana",))[0].target == "Ana"


# -- property: no vote keyword, no action --------------------------------------------------------

_KEYWORDS = ("vote",)  # every en vote, unvote and tag word contains it


@given(st.text(st.sampled_from(list("votevoter unxdé#:[]/\n?Bob")) | st.characters()))
def test_text_without_a_vote_keyword_gives_no_actions(text: str) -> None:
    assume(not any(k in text.casefold() for k in _KEYWORDS))
    assert EN.actions(text) == ()


def test_bare_form_with_a_lookalike_word_of_nobody_is_prose() -> None:
    assert EN.actions("I vote Z\u0445\u0430q") == ()  # mixes scripts but resembles no player
    (action,) = EN.actions("vote: Z\u0445\u0430q")
    assert action.match is not None and action.match.how == "mixed_script"


# -- C4: a format placeholder is an example of the syntax, not a vote ---------------------------

@pytest.mark.parametrize("extractor, text, example", [
    (ES, "Para votar escribid: Voto: Nombre", "Voto: Nombre"),
    (ES, "[voto]Jugador[/voto]", "[voto]Jugador[/voto]"),
    (ES, "Voto: Nombre del jugador que más sospechéis", "Voto: Nombre del jugador que más sospechéis"),
    (EN, "Format: ##vote PlayerName", "##vote PlayerName"),
    (EN, "vote: <name>", "vote: <name>"),
    (EN, "vote: [player name]", "vote: [player name]"),
    (EN, "To vote, write vote PlayerName", "vote PlayerName"),  # inside a sentence too
    (FR, "Pour voter : vote: Pseudo", "vote: Pseudo"),
    (RU, "Голосую за Ник", "Голосую за Ник"),
    (ZH, "投票 X", "投票 X"),
    (ZH, "格式：投票：某某", "投票：某某"),
])
def test_C4_format_placeholder_is_an_example_not_a_vote(extractor: Extractor, text: str,
                                                       example: str) -> None:
    ballot = extractor.ballot(make_post(text))
    assert (ballot.actions, ballot.examples) == ((), (example,))


def test_C4_a_player_of_that_name_is_voted_for_not_a_placeholder() -> None:
    es = Extractor(make_game(("Nombre", "Ana")), syntax.pack("es"))
    zh = Extractor(make_game(("X", "张三")), syntax.pack("zh"))
    assert summary(es.actions("Voto: Nombre")) == [("vote", "Nombre")]
    assert summary(zh.actions("投票 X")) == [("vote", "X")]
    assert es.ballot(make_post("Voto: Nombre")).examples == ()


def test_C4_a_placeholder_close_to_a_name_is_still_an_example() -> None:
    # "Nombre" is a fuzzy match for "Nombela": only a player really called so makes it a vote.
    es = Extractor(make_game(("Nombela", "Ana")), syntax.pack("es"))
    ballot = es.ballot(make_post("Voto: Nombre"))
    assert (ballot.actions, ballot.examples) == ((), ("Voto: Nombre",))


def test_C4_loose_form_is_an_example_only_when_the_whole_target_is_a_placeholder() -> None:
    ballot = EN.ballot(make_post("I vote name your suspect before Friday"))
    assert (ballot.actions, ballot.examples) == ((), ())
    assert summary(EN.actions("Xavier said vote: Alice")) == [("vote", "Alice")]


# -- issue 13: a command is written as a command -------------------------------------------------

def test_a_command_may_start_a_bold_span_inside_a_line() -> None:
    post = make_post("After all that, vote Bob and be done", bold=("vote Bob",))
    assert summary(EN.ballot(post).actions) == [("vote", "Bob")]
    plain = EN.ballot(make_post("After all that, vote Bob and be done"))
    assert (plain.actions, plain.prose) == ((), ("After all that, vote Bob and be done",))


@pytest.mark.parametrize("text, expected", [
    ("unvote, vote Carol", [("unvote", None), ("vote", "Carol")]),
    ("Unvote and vote Carol", [("unvote", None), ("vote", "Carol")]),
    ("vote Bob because unvote is for cowards", [("vote", "Bob")]),  # not chained: prose after it
    ("[unvote][/unvote] [vote]Carol[/vote]", [("unvote", None), ("vote", "Carol")]),
    ("unvote, why would I keep it?", [("unvote", None)]),  # the question is the reason
])
def test_commands_chained_on_one_line(text: str, expected: list[tuple[str, str | None]]) -> None:
    assert summary(EN.actions(text)) == expected


@pytest.mark.parametrize("extractor, text", [
    (ES, "Luis, ¿por qué retiras tu voto?"),
    (ES, "No sé si desvoto o no, ya veremos"),
    (FR, "Pourquoi dévote-t-il ?"),
    (RU, "Зачем ты снимаешь голос?"),
    (RU, "Он думает, что я снимаю голос"),
    (ZH, "你为什么取消投票"),
    (EN, "Why the unvote, José?"),
    (EN, "Unvote? No way."),
])
def test_a_revoke_word_inside_a_sentence_is_prose(extractor: Extractor, text: str) -> None:
    assert extractor.actions(text) == ()


@pytest.mark.parametrize("extractor, text", [
    (ES, "##desvoto"), (ES, "Bueno. Desvoto"), (FR, "[dévote]"), (RU, "Я снимаю голос"),
    (ZH, "我取消投票"), (ZH, "想了想。取消投票"),
])
def test_a_revoke_written_as_a_command(extractor: Extractor, text: str) -> None:
    assert summary(extractor.actions(text)) == [("unvote", None)]


def test_the_hash_form_serves_every_pack() -> None:
    assert summary(ES.actions("entonces ##voto Ana")) == [("vote", "Ana")]
    assert summary(RU.actions("ну ладно ##голос Вова")) == [("vote", "Вова")]
