"""Roster name matching (RULES.md C2, K14) and who is behind a post's author."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from tally.game import Board, Day, Event, Game, NameOptions, Player
from tally.names import Roster, normalise

START = datetime(2024, 3, 1, 18, 0, tzinfo=UTC)


def make_game(players: tuple[Player, ...] | None = None, **extra: object) -> Game:
    players = players or (Player("Alice"), Player("Bob"), Player("Carol"))
    return Game(path=Path("game.toml"), title="Test", preset="majority", timezone="UTC",
                thread_url="https://forum.example/t/1", board=Board(), players=players,
                days=(Day(1, START, START + timedelta(days=1)),), **extra)  # type: ignore[arg-type]


# -- normalise -----------------------------------------------------------------------------------

@pytest.mark.parametrize("written, expected", [
    ("  ＢＯＢ\u200b!! ", "bob"),  # full-width letters, zero-width space, shouting
    ("Mary \t  Jane", "mary jane"),
    ("@Bob", "bob"),
    ("«Bob»", "bob"),
    ("Mary-Jane.", "mary-jane"),  # inner punctuation stays
    ("Stra\u00dfe", "strasse"),
    ("Ал\u200dиса", "алиса"),
])
def test_normalise_examples(written: str, expected: str) -> None:
    assert normalise(written) == expected


@given(st.text())
def test_normalise_is_idempotent(text: str) -> None:
    once = normalise(text)
    assert normalise(once) == once


# -- exact, alias, resolutions ---------------------------------------------------------------

def test_C2_exact_name_any_case() -> None:
    match = Roster(make_game()).match("ALICE")
    assert (match.player, match.how, match.score) == ("Alice", "exact", 100.0)


def test_K14_ingame_alias() -> None:
    game = make_game((Player("xXDarkLordXx", aliases=("Light Yagami",)), Player("Bob")))
    match = Roster(game).match("light yagami")
    assert (match.player, match.how) == ("xXDarkLordXx", "alias")


def test_K14_account_name_is_an_alias() -> None:
    game = make_game((Player("L", account="Ryuzaki_JV"), Player("Bob")))
    match = Roster(game).match("ryuzaki_jv")
    assert (match.player, match.how) == ("L", "alias")


def test_alias_shared_by_two_players_goes_to_gm() -> None:
    game = make_game((Player("Alice", aliases=("Ali",)), Player("Alison", aliases=("Ali",))))
    match = Roster(game).match("Ali")
    assert match.player is None and match.how == "ambiguous"
    assert match.runner_up in ("Alice", "Alison")


@pytest.mark.parametrize("written", ["@Bob", "Bob.", "Bob!", "[b]Bob[/b]", "«Bob»", " bob "])
def test_C2_decorations_around_a_name(written: str) -> None:
    match = Roster(make_game()).match(written)
    assert (match.player, match.how) == ("Bob", "exact")


def test_C2_trailing_words_longest_name_first() -> None:
    game = make_game((Player("Mary"), Player("Mary Jane"), Player("Bob")))
    roster = Roster(game)
    assert roster.match("Mary Jane because she lied").player == "Mary Jane"
    assert roster.match("Mary, because she lied").player == "Mary"
    assert roster.match("Bob because he lied").how == "exact"


def test_C2_resolutions_first_keys_normalised() -> None:
    game = make_game(resolutions={"Alcie": "Bob", "Lighto": "Carol"})
    roster = Roster(game)
    # the GM's word beats the fuzzy guess (Alcie would otherwise be Alice)
    assert (roster.match("ALCIE!").player, roster.match("ALCIE!").how) == ("Bob", "resolution")
    assert roster.match("lighto").player == "Carol"


def test_C2_resolution_ignore() -> None:
    match = Roster(make_game(resolutions={"the quiet one": "ignore"})).match("The Quiet One")
    assert (match.player, match.how) == (None, "ignored")


# -- fuzzy ---------------------------------------------------------------------------------------

def test_C2_misspelling_clear_winner() -> None:
    match = Roster(make_game()).match("Alcie")
    assert (match.player, match.how) == ("Alice", "fuzzy")
    assert match.score >= 85.0
    assert match.runner_up in ("Bob", "Carol")
    assert match.score - match.runner_up_score >= 10.0


def test_C2_misspelt_two_word_name_with_trailing_words() -> None:
    game = make_game((Player("Mary Jane"), Player("Bob")))
    match = Roster(game).match("Mary Jnae for sure")
    assert (match.player, match.how) == ("Mary Jane", "fuzzy")


def test_C2_ambiguous_goes_to_gm() -> None:
    game = make_game((Player("Jonathan"), Player("Jonathon"), Player("Bob")))
    match = Roster(game).match("Jonathen")
    assert (match.player, match.how) == (None, "ambiguous")
    assert match.runner_up in ("Jonathan", "Jonathon")
    assert match.score >= 85.0


def test_C2_unknown_name() -> None:
    match = Roster(make_game()).match("Zebedee")
    assert (match.player, match.how) == (None, "unknown")


def test_C2_threshold_from_game_file() -> None:
    match = Roster(make_game(names=NameOptions(threshold=97.0))).match("Alcie")
    assert (match.player, match.how) == (None, "unknown")
    assert match.runner_up == "Alice"  # the GM report can say what it was closest to


def test_C2_margin_from_game_file() -> None:
    game = make_game((Player("Mark"), Player("Marta")), names=NameOptions(margin=40.0))
    match = Roster(game).match("Marc")
    assert (match.player, match.how) == (None, "ambiguous")


def test_C2_short_fragment_is_not_a_name() -> None:
    # "al" scores 84 against "alice" with Jaro-Winkler; two letters are too little evidence
    match = Roster(make_game(names=NameOptions(threshold=80.0))).match("al")
    assert (match.player, match.how) == (None, "unknown")


# -- scripts -------------------------------------------------------------------------------------

@pytest.mark.parametrize("written, looks_like", [
    ("\u0410lice", "Alice"),  # Cyrillic capital A
    ("B\u03bfb", "Bob"),  # Greek small omicron
    ("\u0412\u043e\u0412", "Bob"),  # all Cyrillic, reads as BoB
    ("\u0410lcie", "Alice"),  # lookalike and a typo
])
def test_mixed_script_flagged(written: str, looks_like: str) -> None:
    match = Roster(make_game()).match(written)
    assert (match.player, match.how) == (None, "mixed_script")
    assert match.runner_up == looks_like


def test_cyrillic_roster_matches_normally() -> None:
    game = make_game((Player("Алиса"), Player("Вова"), Player("Bob")))
    roster = Roster(game)
    assert (roster.match("АЛИСА").player, roster.match("АЛИСА").how) == ("Алиса", "exact")
    assert (roster.match("Алису").player, roster.match("Алису").how) == ("Алиса", "fuzzy")
    assert roster.match("Вова").how == "exact"


# -- property: a player's exact name always finds that player --------------------------------

_letters = st.characters(whitelist_categories=("Lu", "Ll"), max_codepoint=0x04FF)
_names = st.lists(st.text(_letters, min_size=1, max_size=12), min_size=1, max_size=6)


@given(_names, st.data())
def test_exact_name_with_random_case_and_zero_width_chars(names: list[str], data: st.DataObject) -> None:
    assume(len({normalise(n) for n in names}) == len(names))
    assume(all(c.upper().casefold() == c.casefold() == c.lower().casefold() for n in names for c in n))
    game = make_game(tuple(Player(n) for n in names))
    chosen = data.draw(st.sampled_from(names))
    written = ""
    for ch in chosen:
        ch = ch.upper() if data.draw(st.booleans()) else ch.lower()
        written += ch + data.draw(st.sampled_from(["", "", "\u200b", "\u200d", "\ufeff"]))
    match = Roster(game).match(written)
    assert (match.player, match.how) == (chosen, "exact")


# -- voter: who is behind the post's author ------------------------------------------------------

def test_voter_by_account_id_survives_a_display_rename() -> None:
    game = make_game((Player("Alice", account_id="1001"), Player("Bob")))
    assert Roster(game).voter("Alice the Great", "1001", START) == "Alice"


def test_voter_by_name_is_normalised() -> None:
    assert Roster(make_game()).voter(" BOB\u200b", None, START) == "Bob"


def test_voter_name_with_a_different_account_id_is_refused() -> None:
    game = make_game((Player("Alice", account_id="1001"), Player("Bob")))
    assert Roster(game).voter("Alice", "6666", START) is None


def test_voter_staff_is_none() -> None:
    game = make_game((Player("Alice"), Player("Bob")), staff=("Bob",))
    assert Roster(game).voter("bob", None, START) is None


def test_voter_non_player_is_none() -> None:
    assert Roster(make_game()).voter("Lurker", "77", START) is None


def test_voter_replacement_moves_the_slot() -> None:
    swap = START + timedelta(hours=5)
    game = make_game((Player("Alice", account_id="1"), Player("Bob")),
                     events=(Event(at=swap, kind="replacement", player="Alice", account="Zoe",
                                   account_id="9"),))
    roster = Roster(game)
    before, after = swap - timedelta(seconds=1), swap
    assert roster.voter("Alice", "1", before) == "Alice"
    assert roster.voter("Zoe", "9", before) is None
    assert roster.voter("Zoe", "9", after) == "Alice"
    assert roster.voter("zoe", None, after) == "Alice"
    assert roster.voter("Alice", "1", after) is None  # the old account stops voting for the slot
    assert (roster.match("zoe").player, roster.match("zoe").how) == ("Alice", "alias")


def test_voter_replacement_chain() -> None:
    first, second = START + timedelta(hours=2), START + timedelta(hours=4)
    game = make_game(events=(
        Event(at=first, kind="replacement", player="Carol", account="Dan"),
        Event(at=second, kind="replacement", player="Carol", account="Eve"),
    ))
    roster = Roster(game)
    at = first + timedelta(hours=1)
    assert [roster.voter(a, None, at) for a in ("Carol", "Dan", "Eve")] == [None, "Carol", None]
    late = second + timedelta(hours=1)
    assert [roster.voter(a, None, late) for a in ("Carol", "Dan", "Eve")] == [None, None, "Carol"]


# -- one vote line, one player (issue 13) --------------------------------------------------------

LIST_ROSTER = Roster(make_game(tuple(Player(n) for n in (
    "Alice", "Bob", "Carol", "Bob Smith", "Irene Adler", "Will", "张三", "李四", "Алиса", "Вова",
    "AC/DC"))))


@pytest.mark.parametrize("written, named", [
    ("Alice Bob", ("Alice", "Bob")),
    ("Alice, Bob", ("Alice", "Bob")),
    ("Alice or Bob", ("Alice", "Bob")),
    ("Alice o Bob", ("Alice", "Bob")),
    ("Alice ou Bob", ("Alice", "Bob")),
    ("Alice или Вова", ("Alice", "Вова")),
    ("Alice 或 Bob", ("Alice", "Bob")),
    ("张三或李四", ("张三", "李四")),
    ("张三还是李四", ("张三", "李四")),
    ("张三、李四", ("张三", "李四")),
    ("Alice/Bob", ("Alice", "Bob")),
    ("Alice (or Bob)", ("Alice", "Bob")),
    ("Alcie or Bbo Smith", ("Alice", "Bob Smith")),  # after "or", a misspelling is enough
    ("Alice, Bob, Carol", ("Alice", "Bob", "Carol")),
    ("Alice, Bob, never votes", ("Alice", "Bob")),  # a list, then a comma: the GM decides
    ("Bob Smith Irene Adler", ("Bob Smith", "Irene Adler")),
])
def test_a_line_naming_several_players_is_ambiguous(written: str, named: tuple[str, ...]) -> None:
    match = LIST_ROSTER.match(written)
    assert (match.player, match.how, match.named) == (None, "ambiguous", named)
    assert match.runner_up == named[0]


@pytest.mark.parametrize("written, player", [
    ("Bob Smith", "Bob Smith"),  # one name with a space, not Bob then Smith
    ("Irene Adler because she lied", "Irene Adler"),
    ("Alice, Bob never votes", "Alice"),  # the second name begins a comment
    ("Alice will hang", "Alice"),  # "will" is a word here, not the player Will
    ("Alice because Bob said so", "Alice"),
    ("Alice. Bob is next", "Alice"),
    ("Alice (Bob is town)", "Alice"),
    ("Alice, alice", "Alice"),  # the same player twice
    ("AC/DC", "AC/DC"),  # a name written with a separator is not split
    ("张三，他是杀手", "张三"),
    ("Алиса, Вова никогда не голосует", "Алиса"),
])
def test_one_player_and_a_comment(written: str, player: str) -> None:
    match = LIST_ROSTER.match(written)
    assert (match.player, match.named) == (player, ())


def test_the_gm_resolution_of_a_whole_line_wins() -> None:
    roster = Roster(make_game(resolutions={"alice bob": "Bob"}))
    assert (roster.match("Alice Bob").player, roster.match("Alice Bob").how) == ("Bob", "resolution")
