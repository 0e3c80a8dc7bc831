"""`tally post` on a phpBB 2 board (subSilver, ISO-8859-1), end to end (tests/fakephpbb2.py).

What a GM on an old board checks: the count is posted once per change and is readable (names
outside Latin-1 included), a re-run finds it in the thread and posts nothing, a wrong password
or a locked topic is one line and a non-zero exit, flood and an expired session are handled as
on phpBB 3.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fakephpbb import BOT, as_cron, now_at, run_post, write_game
from fakephpbb2 import FLOOD_ERROR, LOGIN_ERROR, TOPIC_LOCKED, FakePhpBB2

from tally import adapters
from tally.adapters.base import PageContext
from tally.fetch import Fetcher

PLAYERS = ("Zoë", "Tom", "Łukasz", "Sam")  # Ł is not in the board's charset: sent as &#321;


@pytest.fixture
def board() -> Iterator[FakePhpBB2]:
    with FakePhpBB2() as running:
        yield running


@pytest.fixture(autouse=True)
def cron(monkeypatch) -> None:
    as_cron(monkeypatch)


def at(monkeypatch, new_york: str) -> None:
    """Now is `new_york` (forum time, UTC-5 in January) for tally and the board."""
    now_at(monkeypatch, new_york, "-05:00")


@pytest.fixture
def game(board, tmp_path, monkeypatch) -> Path:
    at(monkeypatch, "2026-01-15 10:00")
    board.add_post("Moderator", "Day 1 starts now. Vote with: vote: Name")
    for name in PLAYERS:
        board.add_user(name)
    return write_game(tmp_path, board.url, players=PLAYERS, timezone="America/New_York")


post = run_post


def shown_text(board: FakePhpBB2, post_id: int) -> str:
    """The bot's post as the real parser reads it off the board's page."""
    page = Fetcher(delay=0, retries=1).get(board.url)
    ctx = PageContext(board.url, page.fetched_at, board.zone)
    parsed = adapters.get("phpbb").parse_page(page.body, ctx)
    return next(p.body.own for p in parsed.posts if p.id == str(post_id))


def test_posted_once_readable_in_the_boards_charset_and_found_again(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Zoë", "vote: Tom")
    first = post(game)
    assert first.exit_code == 0, first.output
    mine = board.bot_posts()
    assert first.stdout == (f"posted the count to {board.url} as post {mine[0].id}: first count "
                            "of day 1 (1 vote)\n")
    assert board.requests_to("GET /ucp.php") == 1 and board.logins == 1  # 2.0: login.php
    text = shown_text(board, mine[0].id)
    assert text.splitlines()[0] == "Vote count, day 1: Mafia game 12"  # [u] rendered, no raw tags
    assert "Tom (1, L-2): Zoë" in text
    assert "Not voting (3): Tom, Łukasz, Sam" in text  # &#321; came back as Ł, ë as ë
    assert "tally · " in text  # the marker the next run looks for
    at(monkeypatch, "2026-01-15 11:05")
    same = post(game)
    assert (same.exit_code, same.stdout) == (6, "nothing to post: nothing changed since the "
                                                "count posted at 11:00\n")
    at(monkeypatch, "2026-01-15 11:40")
    board.add_post("Sam", "vote: Zoë")
    assert post(game).exit_code == 0 and len(board.bot_posts()) == 2
    assert board.logins == 1  # the session cookie was reused


def test_a_wrong_password_is_one_line_and_exit_7(board, game, monkeypatch):
    monkeypatch.setenv("TALLY_PASSWORD", "not-the-password")
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Zoë", "vote: Tom")
    refused = post(game)
    assert refused.exit_code == 7
    assert refused.stderr == (f"tally: error: 127.0.0.1: the forum refused the login of {BOT}: "
                              f"{LOGIN_ERROR} Click Here to return to login\n")
    assert board.bot_posts() == []


def test_flood_posts_nothing_and_the_next_run_posts(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Zoë", "vote: Tom")
    board.last_post_at[board.users[BOT][0]] = board.clock()
    flood = post(game)
    assert FLOOD_ERROR.startswith("You cannot make another post so soon after your last")
    assert (flood.exit_code, flood.stderr) == (4, (
        "tally: error: 127.0.0.1: the forum refused the post: You cannot make another post so "
        "soon after your last (flood limit); nothing was posted\n"))
    at(monkeypatch, "2026-01-15 11:01")
    assert post(game).exit_code == 0 and len(board.bot_posts()) == 1


def test_an_expired_session_logs_in_again_once(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Zoë", "vote: Tom")
    assert post(game).exit_code == 0 and board.logins == 1
    board.expire_sessions()
    at(monkeypatch, "2026-01-15 11:40")
    board.add_post("Sam", "vote: Zoë")
    again = post(game)
    assert again.exit_code == 0, again.output
    assert board.logins == 2 and len(board.bot_posts()) == 2


def test_a_locked_topic_is_a_forum_error_quoting_the_board(board, game, monkeypatch):
    board.locked = True
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Zoë", "vote: Tom")
    locked = post(game)
    assert (locked.exit_code, locked.stderr) == (
        4, f"tally: error: 127.0.0.1: cannot reply to topic 7: {TOPIC_LOCKED}\n")
    assert board.bot_posts() == []
