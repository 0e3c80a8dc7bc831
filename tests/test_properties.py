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


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
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
