"""Properties of the whole deadline run on real saved pages (hypothesis).

Whatever order a browser saved the pages in, and however many times a page was saved, the
count is the same, every post in the window gets exactly one verdict, and re-running changes
nothing.
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tally import adapters, engine, saved
from tally import game as game_file

KIRA = Path(__file__).resolve().parent.parent / "fixtures" / "phpbb" / "kira-en"
GAME = game_file.load(KIRA / "game.toml")
FETCHED = datetime(2016, 1, 18, 3, 10, tzinfo=UTC)
PAGES = sorted(KIRA.glob("page-*.html"))


def count_from(folder: Path):
    thread = saved.read_saved_pages(folder, adapters.get("phpbb"), zone="UTC", fetched_at=FETCHED,
                                    url=GAME.thread_url)
    return engine.count(thread, GAME, 1)


REFERENCE = count_from(KIRA)


@settings(max_examples=15, deadline=None,  # too_slow: wall-clock timing (tests/conftest.py)
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(order=st.permutations(range(len(PAGES))), extra=st.lists(st.integers(0, len(PAGES) - 1), max_size=3))
def test_page_order_and_duplicate_saves_never_change_the_count(tmp_path_factory, order, extra):
    folder = tmp_path_factory.mktemp("saved")
    # Browsers name saves freely: the file names say nothing about the page number.
    for n, index in enumerate(list(order) + extra):
        shutil.copy(PAGES[index], folder / f"save {n:02d} ({index}).html")
    tally = count_from(folder)
    assert tally == REFERENCE


def test_every_post_in_the_window_has_exactly_one_verdict():
    ids = [v.post_id for v in REFERENCE.verdicts]
    assert len(ids) == len(set(ids)) == 60


def test_rerun_is_identical():
    assert count_from(KIRA) == REFERENCE


# -- the vote grammar (issue 13) -----------------------------------------------------------------

from datetime import timedelta  # noqa: E402

from tally.extract import Extractor  # noqa: E402
from tally.game import Board, Day, Game, Player  # noqa: E402

NAMES = ("Alice", "Bob Smith", "Irene Adler", "Zoé", "Вова", "张三", "Will", "Mary Jane", "Mary")
GRAMMAR = Extractor(Game(path=Path("game.toml"), title="t", preset="majority", timezone="UTC",
                         thread_url="https://forum.example/t/1", board=Board(),
                         players=tuple(Player(n) for n in NAMES),
                         days=(Day(1, FETCHED, FETCHED + timedelta(days=1)),)))
SEPARATORS = (" ", ", ", " or ", " o ", " ou ", " или ", " 或 ", " 还是 ", " / ", " and ", "/")
FILLER = ("why", "the", "did", "you", "really", "think", "about", "josé", "that", "was", "odd")


@settings(max_examples=80, deadline=None)
@given(pair=st.permutations(NAMES).map(lambda names: names[:2]), sep=st.sampled_from(SEPARATORS),
       form=st.sampled_from(("vote: {}", "##vote {}", "[vote]{}[/vote]", "Vote {}")))
def test_a_vote_line_naming_two_players_counts_for_nobody(pair, sep, form):
    # "Mary Mary Jane" too: "Mary Jane" is one player, written with a space
    (action,) = GRAMMAR.actions(form.format(sep.join(pair)))
    assert action.target is None
    assert action.match is not None and action.match.named == tuple(pair)


@settings(max_examples=80, deadline=None)
@given(before=st.lists(st.sampled_from(FILLER), min_size=1, max_size=6),
       after=st.lists(st.sampled_from(FILLER), max_size=6), name=st.sampled_from(NAMES))
def test_a_revoke_or_vote_word_inside_a_sentence_is_prose(before, after, name):
    sentence = " ".join(before).capitalize()
    assert GRAMMAR.actions(f"{sentence} unvote {' '.join(after)}") == ()
    assert GRAMMAR.actions(f"{sentence} vote {name} {' '.join(after)}") == ()
    # the same words at the start of the line are commands
    assert [a.kind for a in GRAMMAR.actions(f"unvote {' '.join(after)}")] == ["unvote"]
