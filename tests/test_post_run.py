"""`tally post GAME.toml` end to end against the local phpBB board (tests/fakephpbb.py).

Each test runs the command as cron would (CliRunner, the board's clock and tally's "now" pinned
with TALLY_NOW, forum time Europe/Paris) and checks what the GM and the players see: the one
line on stdout, the exit code, and the bot's posts on the board (exactly one per change, never
two of the same count).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakephpbb import BOT, BOT_PASSWORD, FAST, FakePhpBB, as_cron, now_at, run_post, write_game
from typer.testing import CliRunner

from tally import scheduled
from tally.adapters.phpbb_reply import PhpBBReplier
from tally.cli import app
from tally.fetch import Fetcher
from tally.store import Store


@pytest.fixture
def board() -> Iterator[FakePhpBB]:
    with FakePhpBB() as running:
        yield running


@pytest.fixture(autouse=True)
def cron(monkeypatch) -> None:
    as_cron(monkeypatch)


def at(monkeypatch, paris: str) -> None:
    """Now is `paris` ("2026-01-15 11:00", forum time, UTC+1 in January) for tally and board."""
    now_at(monkeypatch, paris, "+01:00")


post = run_post


def store_rows(game: Path) -> list:
    with Store(game.parent / ".tally" / "game.sqlite") as store:
        return store.posted("t=7", 1)


@pytest.fixture
def game(board, tmp_path, monkeypatch) -> Path:
    at(monkeypatch, "2026-01-15 10:00")
    board.add_post("Moderator", "Day 1 starts now. Vote with: vote: Name")
    return write_game(tmp_path, board.url)


def test_one_post_per_change_never_when_nothing_changed(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "I think Bob is scum.\nvote: Bob")
    first = post(game)
    assert first.exit_code == 0, first.output
    mine = board.bot_posts()
    assert first.stdout == (f"posted the count to {board.url} as post {mine[0].id}: first count "
                            "of day 1 (1 vote)\n")
    assert '<strong class="text-strong">Bob</strong> (1, L-2): <a href=' in mine[0].html
    assert "Not voting</strong> (4): Bob, Carol, Dan, Eve" in mine[0].html
    assert "Deadline Sat 17 Jan 22:00 (CET), in 2 days 11 h." in mine[0].html

    at(monkeypatch, "2026-01-15 11:05")
    same = post(game)
    assert (same.exit_code, same.stdout) == (6, "nothing to post: nothing changed since the "
                                                "count posted at 11:00\n")
    at(monkeypatch, "2026-01-15 11:10")
    board.add_post("Carol", "vote: Dan")
    soon = post(game)
    assert (soon.exit_code, soon.stdout) == (6, "nothing to post: changed, but the last count "
                                                "was 10 min ago (min_interval 30)\n")
    at(monkeypatch, "2026-01-15 11:40")
    second = post(game)
    assert second.exit_code == 0, second.output
    assert second.stdout.endswith(": 1 vote change since the count posted at 11:00\n")
    at(monkeypatch, "2026-01-15 11:45")
    assert post(game).exit_code == 6
    mine = board.bot_posts()
    assert len(mine) == 2
    assert "Changes since the last count (Thu 15 Jan 11:00 (CET)): Carol now on Dan." in mine[1].html
    assert [row.state for row in store_rows(game)] == ["posted", "posted"]
    assert [row.post_id for row in store_rows(game)] == [str(p.id) for p in mine]


def test_the_bot_posts_are_never_read_as_votes(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    assert post(game).exit_code == 0
    at(monkeypatch, "2026-01-15 11:01")
    result = CliRunner().invoke(app, ["audit", str(game), "--format", "json"])
    import json

    verdicts = {v["post"]: v for v in json.loads(result.stdout)["verdicts"]}
    bot_post = str(board.bot_posts()[0].id)
    assert verdicts[bot_post]["verdict"] == "not_a_vote"


def test_a_majority_posts_at_once_as_the_final_count_then_nothing_more(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    assert post(game).exit_code == 0
    at(monkeypatch, "2026-01-15 11:03")
    board.add_post("Carol", "vote: Bob")
    board.add_post("Dan", "vote: Bob")
    hammer = post(game)
    assert hammer.exit_code == 0, hammer.output
    assert hammer.stdout.endswith(": Bob reached the majority (3): final count\n")
    assert "Final vote count, day 1" in board.bot_posts()[-1].html
    at(monkeypatch, "2026-01-15 12:30")
    board.add_post("Eve", "vote: Alice")
    after = post(game)
    assert (after.exit_code, after.stdout) == (6, "nothing to post: the final count of day 1 was "
                                                  "posted at 11:03; nothing more for this day\n")
    assert len(board.bot_posts()) == 2


def test_the_final_count_after_the_deadline_once(board, game, monkeypatch):
    at(monkeypatch, "2026-01-17 21:00")
    board.add_post("Alice", "vote: Bob")
    assert post(game).exit_code == 0
    at(monkeypatch, "2026-01-17 22:05")
    final = post(game)
    assert final.exit_code == 0, final.output
    assert final.stdout.endswith(": the deadline passed: final count\n")
    assert "Deadline Sat 17 Jan 22:00 (CET), passed." in board.bot_posts()[-1].html
    at(monkeypatch, "2026-01-17 22:40")
    again = post(game)
    assert again.exit_code == 6 and "the final count of day 1 was posted at 22:05" in again.stdout
    assert len(board.bot_posts()) == 2


def test_quiet_hours_post_nothing(board, tmp_path, monkeypatch):
    at(monkeypatch, "2026-01-16 02:00")
    board.add_post("Alice", "vote: Bob")
    game = write_game(tmp_path, board.url, posting='quiet_hours = "01:00-08:00"')
    result = post(game)
    assert (result.exit_code, result.stdout) == (6, "nothing to post: quiet hours 01:00-08:00 "
                                                    "forum time\n")
    assert board.bot_posts() == [] and board.requests_to("POST") == 0


def test_dry_run_shows_the_post_and_needs_no_credentials(board, game, monkeypatch):
    monkeypatch.delenv("TALLY_PASSWORD")
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    result = post(game, "--dry-run")
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0] == "[b][u]Vote count, day 1: Mafia game 12[/u][/b]"
    assert lines[-1] == f"dry run: would post the count to {board.url}: first count of day 1 (1 vote)"
    assert board.requests_to("POST") == 0 and board.requests_to("GET /ucp.php") == 0
    assert store_rows(game) == [] and not (game.parent / ".tally" / "game.cookies").exists()


def test_force_posts_against_the_policy_but_never_the_same_count_twice(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    assert post(game).exit_code == 0
    at(monkeypatch, "2026-01-15 11:05")
    board.add_post("Carol", "vote: Dan")
    forced = post(game, "--force")
    assert forced.exit_code == 0, forced.output
    assert forced.stdout.endswith(": forced (changed, but the last count was 5 min ago "
                                  "(min_interval 30))\n")
    at(monkeypatch, "2026-01-15 11:06")
    twice = post(game, "--force")
    assert (twice.exit_code, twice.stdout) == (6, "nothing to post: the same count was posted at "
                                                  "11:05 (--force never posts the same count "
                                                  "twice)\n")
    assert len(board.bot_posts()) == 2


def test_hold_on_doubt_posts_nothing_and_tells_the_gm(board, tmp_path, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    board.add_post("Eve", "vote: Zorro")
    game = write_game(tmp_path, board.url, posting='on_doubt = "hold"')
    result = post(game)
    assert result.exit_code == 5, result.output
    assert result.stdout.startswith("held for the GM: ")
    assert "Zorro" in result.stdout and result.stdout.endswith(
        '(on_doubt = "hold"; nothing was posted)\n')
    assert board.bot_posts() == [] and board.requests_to("POST") == 0


def test_say_on_doubt_posts_with_what_waits_for_the_gm(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    board.add_post("Eve", "vote: Zorro")
    result = post(game)
    assert result.exit_code == 0, result.output
    text = board.bot_posts()[0].html
    assert ("1 vote waits for the moderator: its name points at no one player clearly. This "
            "count may still change.") in text
    assert "Zorro" not in text and "GM" not in text  # said by number only, once
    assert "(1, L-2)" in text  # Eve's vote is not guessed onto anyone


def test_no_double_post_when_the_answer_is_lost(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    board.fail_next("POST /posting.php", "drop")  # the board stores it, the answer never comes
    lost = post(game)
    assert lost.exit_code == 4
    assert lost.stderr == ("tally: error: 127.0.0.1: connection reset while posting; it may have "
                           "been posted; the next run checks the thread before posting again\n")
    assert len(board.bot_posts()) == 1 and [r.state for r in store_rows(game)] == ["sending"]
    at(monkeypatch, "2026-01-15 11:05")
    next_run = post(game)
    assert (next_run.exit_code, next_run.stdout) == (6, "nothing to post: nothing changed since "
                                                        "the count posted at 11:00\n")
    assert len(board.bot_posts()) == 1
    row = store_rows(game)[0]
    assert (row.state, row.post_id) == ("posted", str(board.bot_posts()[0].id))
    assert row.note == "found in the thread after an interrupted run"


def test_no_double_post_after_a_crash_before_the_outcome_is_written(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    real = Store.finish_post

    def power_cut(self, row_id, *, state, **kw):
        if state == "posted":
            raise KeyboardInterrupt  # the process dies between the forum's answer and the row
        return real(self, row_id, state=state, **kw)

    monkeypatch.setattr(Store, "finish_post", power_cut)
    with pytest.raises(KeyboardInterrupt):
        scheduled.run(game, scheduled.Options(), FAST)
    monkeypatch.setattr(Store, "finish_post", real)
    assert len(board.bot_posts()) == 1 and [r.state for r in store_rows(game)] == ["sending"]
    at(monkeypatch, "2026-01-15 11:40")
    result = post(game)
    assert result.exit_code == 6, result.output
    assert len(board.bot_posts()) == 1
    assert store_rows(game)[0].state == "posted"


def test_the_same_count_already_in_the_thread_is_recorded_not_posted(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    assert post(game).exit_code == 0
    (game.parent / ".tally" / "game.sqlite").unlink()  # the store is lost; the thread is not
    for extra in ("-wal", "-shm"):
        Path(f"{game.parent / '.tally' / 'game.sqlite'}{extra}").unlink(missing_ok=True)
    at(monkeypatch, "2026-01-15 11:40")
    again = post(game)
    assert (again.exit_code, again.stdout) == (6, "nothing to post: this count is already in the "
                                                  f"thread as post {board.bot_posts()[0].id}\n")
    assert len(board.bot_posts()) == 1


# Holds the lock until the test closes its stdin or kills it: no sleep that a slow machine
# could outlast (the lock released before the second run looks would make it post).
LOCK_HOLDER = """
import sys
from pathlib import Path
from tally.lock import hold
with hold(Path(sys.argv[1]), "game.toml"):
    print("locked", flush=True)
    sys.stdin.read()
"""


def test_a_second_run_finds_the_lock_and_a_dead_holder_leaves_none(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    lock_file = game.parent / ".tally" / "game.lock"
    holder = subprocess.Popen([sys.executable, "-c", LOCK_HOLDER, str(lock_file)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        busy = post(game)
        assert busy.exit_code == 9
        assert busy.stderr == (f"tally: error: another tally post run holds the lock for "
                               f"game.toml ({lock_file})\n")
        assert board.bot_posts() == []
    finally:
        holder.kill()
        holder.wait()
    assert lock_file.exists()  # left behind by the killed run: harmless
    assert post(game).exit_code == 0 and len(board.bot_posts()) == 1


def test_flood_limit_posts_nothing_and_the_next_run_posts(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    board.last_post_at[board.users[BOT][0]] = board.clock()  # the bot posted a moment ago
    flood = post(game)
    assert flood.exit_code == 4
    assert flood.stderr == ("tally: error: 127.0.0.1: the forum refused the post: You cannot make "
                            "another post so soon after your last (flood limit); nothing was "
                            "posted\n")
    assert board.bot_posts() == [] and [r.state for r in store_rows(game)] == ["failed"]
    at(monkeypatch, "2026-01-15 11:01")
    assert post(game).exit_code == 0 and len(board.bot_posts()) == 1


@pytest.mark.parametrize("fault,line", [
    ("503", "127.0.0.1: HTTP 503 on posting (Retry-After 120 s); nothing was posted"),
    ("429:60", "127.0.0.1: HTTP 429 on posting (Retry-After 60 s); nothing was posted"),
])
def test_busy_forum_is_one_line_and_nothing_half_written(board, game, monkeypatch, fault, line):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    board.fail_next("POST /posting.php", fault)
    result = post(game)
    assert (result.exit_code, result.stderr) == (4, f"tally: error: {line}\n")
    rows = store_rows(game)
    assert [(r.state, r.note) for r in rows] == [("failed", line)]
    assert board.bot_posts() == []
    at(monkeypatch, "2026-01-15 11:02")
    assert post(game).exit_code == 0 and len(board.bot_posts()) == 1


def test_cookies_reused_and_an_expired_session_logs_in_again_once(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    assert post(game).exit_code == 0 and board.logins == 1
    at(monkeypatch, "2026-01-15 11:40")
    board.add_post("Carol", "vote: Dan")
    assert post(game).exit_code == 0 and board.logins == 1  # the saved session was reused
    board.expire_sessions()
    at(monkeypatch, "2026-01-15 12:20")
    board.add_post("Dan", "vote: Alice")
    again = post(game)
    assert again.exit_code == 0, again.output
    assert board.logins == 2 and len(board.bot_posts()) == 3


def test_the_thread_moving_on_while_replying_is_counted_again(board, game, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    dan_posted: list[bool] = []

    def slow_replier(engine, http):
        replier = PhpBBReplier(http)
        wait = replier.sleep  # the Fetcher's clock: the board's

        def sleep(seconds: float) -> None:
            if board.requests_to("GET /posting.php") == 1 and not dan_posted:
                board.add_post("Dan", "vote: Bob")  # while the bot waits to submit
                dan_posted.append(True)
            wait(seconds)

        replier.sleep = sleep
        return replier

    result = scheduled.run(game, scheduled.Options(),
                           scheduled.Network(FAST.reader, FAST.poster, slow_replier))
    assert result.code == 0, result.line
    mine = board.bot_posts()
    assert len(mine) == 1 and "(2, L-1)" in mine[0].html  # Dan's vote is in the count posted
    assert [r.state for r in store_rows(game)] == ["failed", "posted"]


def test_no_password_is_a_login_error_before_anything_is_sent(board, game, monkeypatch):
    import keyring
    from keyring.backends.fail import Keyring as NoKeyring

    monkeypatch.delenv("TALLY_PASSWORD")
    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    try:
        at(monkeypatch, "2026-01-15 11:00")
        board.add_post("Alice", "vote: Bob")
        result = post(game)
    finally:
        keyring.set_keyring(previous)
    assert (result.exit_code, result.stderr) == (7, "tally: error: no password for the bot "
                                                    "account TallyBot: set TALLY_PASSWORD or run "
                                                    "`keyring set tally TallyBot`\n")
    assert board.requests_to("POST") == 0 and store_rows(game) == []


def test_password_from_the_keyring_for_the_forum_host(board, game, monkeypatch):
    import keyring
    from keyring.backend import KeyringBackend

    class Memory(KeyringBackend):
        priority = 1  # type: ignore[assignment]

        def __init__(self) -> None:
            super().__init__()
            self.items: dict[tuple[str, str], str] = {}

        def get_password(self, service: str, username: str) -> str | None:
            return self.items.get((service, username))

        def set_password(self, service: str, username: str, password: str) -> None:
            self.items[(service, username)] = password

        def delete_password(self, service: str, username: str) -> None:
            self.items.pop((service, username), None)

    monkeypatch.delenv("TALLY_PASSWORD")
    memory = Memory()
    memory.set_password("tally", BOT, "an old password for another forum")
    memory.set_password("tally:127.0.0.1", BOT, BOT_PASSWORD)
    previous = keyring.get_keyring()
    keyring.set_keyring(memory)
    try:
        at(monkeypatch, "2026-01-15 11:00")
        board.add_post("Alice", "vote: Bob")
        result = post(game)
    finally:
        keyring.set_keyring(previous)
    assert result.exit_code == 0, result.output
    assert len(board.bot_posts()) == 1


def test_credentials_never_reach_logs_store_or_output(board, game, monkeypatch, caplog):
    caplog.set_level("DEBUG")
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    result = post(game)
    assert result.exit_code == 0, result.output
    board.expire_sessions()  # and a second login, logged at DEBUG too
    at(monkeypatch, "2026-01-15 11:40")
    board.add_post("Carol", "vote: Dan")
    assert post(game).exit_code == 0 and board.logins == 2
    cookie_file = game.parent / ".tally" / "game.cookies"
    jar = {c["name"]: c["value"] for c in json.loads(cookie_file.read_text())}
    session_id = jar["phpbb3_fake_sid"]
    assert session_id in board.sessions  # the file holds the live session, by design ...
    assert os.stat(cookie_file).st_mode & 0o777 == 0o600  # ... readable by its owner only
    secrets = (BOT_PASSWORD, session_id, jar["phpbb3_fake_k"])
    store_bytes = b"".join(p.read_bytes() for p in (game.parent / ".tally").glob("game.sqlite*"))
    for secret in secrets:
        assert secret not in caplog.text
        assert secret not in result.output
        assert secret.encode() not in store_bytes
    with Store(game.parent / ".tally" / "game.sqlite") as store:
        headers = {name for page in store.versions("t=7") for name in page.headers}
    assert headers <= {"Date", "Last-Modified", "ETag", "Content-Type", "Retry-After"}


def test_secret_roles_and_events_never_reach_the_posted_count(board, tmp_path, monkeypatch):
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "Voto: Bob")
    board.add_post("Carol", "Voto: Dan")
    game = write_game(tmp_path, board.url, preset="espia", extra="""
[votes]
language = "es"

[[events]]
at = "2026-01-15 10:30"
kind = "tramposo_add"
player = "Eve"
target = "Dan"
votes = 2
""")
    text = game.read_text().replace('name = "Eve"\n', 'name = "Eve"\nrole = "Tramposo"\n')
    game.write_text(text.replace('name = "Bob"\n', 'name = "Bob"\nrole = "Sacerdote"\n'))
    gm_view = json.loads(CliRunner().invoke(app, ["count", str(game), "--format", "json"]).stdout)
    assert gm_view["gm"]["counts"][0] == {"player": "Dan", "votes": 3, "posts": ["102", ""],
                                          "voters": ["Carol", "(Tramposo +2)"]}  # the GM's side
    result = post(game)
    assert result.exit_code == 0, result.output
    posted = board.bot_posts()[0].html
    for secret in ("Tramposo", "Sacerdote", "secret", "Dan</strong> (3"):
        assert secret not in posted
    assert "Dan</strong> (1)" in posted and "Bob</strong> (1)" in posted



def test_a_captcha_leaves_the_count_ready_to_paste(board, game, monkeypatch):
    from tally.adapters.reply import Replier
    from tally.errors import CannotPostHere

    class Walled(Replier):
        name = "phpbb"

        def logged_in(self, page, account):
            return False

        def login(self, thread_url, credentials):
            raise CannotPostHere("127.0.0.1: the login form asks for a captcha: cannot log in "
                                 "automatically")

        def reply(self, thread_url, text):
            raise AssertionError("never reached")

    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    would = post(game, "--dry-run").stdout
    monkeypatch.setattr(scheduled, "NETWORK", scheduled.Network(FAST.reader, FAST.poster,
                                                                lambda engine, http: Walled(http)))
    result = post(game)
    paste = game.parent / ".tally" / "game.paste.txt"
    assert (result.exit_code, result.stderr) == (8, "tally: error: 127.0.0.1: the login form asks "
                                                    "for a captcha: cannot log in automatically; "
                                                    f"the count is ready to paste from {paste}\n")
    assert would.startswith(paste.read_text(encoding="utf-8"))
    assert board.bot_posts() == []


# ---------------------------------------------------------------------------------------------
# A count the forum holds for a moderator (issue 13)

HELD_FIRST = ("held by the forum: the count sent to {url} waits for a moderator's approval; "
              "players see it once it is approved (ask the board's staff to exempt the bot's "
              "account): {why}\n")


def test_a_held_count_exits_10_on_every_run_until_it_shows_then_it_is_posted(board, game,
                                                                             monkeypatch):
    board.moderated = True
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    first = post(game)
    assert (first.exit_code, first.stdout) == (10, HELD_FIRST.format(
        url=board.url, why="first count of day 1 (1 vote)"))
    assert board.bot_posts() == [] and len(board.queue) == 1
    at(monkeypatch, "2026-01-15 11:05")
    again = post(game)
    assert (again.exit_code, again.stdout) == (
        10, "held by the forum: the count sent at 11:00 still waits for a moderator's approval "
            "and is not in the thread; nothing was posted (nothing changed since the count "
            "posted at 11:00)\n")
    assert len(board.queue) == 1  # never sent into the queue twice
    (queued,) = board.queue
    board.approve(queued)
    at(monkeypatch, "2026-01-15 11:10")
    shown = post(game)
    assert (shown.exit_code, shown.stdout) == (6, "nothing to post: nothing changed since the "
                                                  "count posted at 11:00 (the held count is now "
                                                  f"in the thread as post {queued.id})\n")
    (row,) = store_rows(game)
    assert (row.state, row.post_id, row.note) == ("posted", str(queued.id),
                                                  f"approved: in the thread as post {queued.id}")


def test_a_changed_count_goes_into_the_queue_the_same_one_never(board, game, monkeypatch):
    board.moderated = True
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    assert post(game).exit_code == 10
    at(monkeypatch, "2026-01-15 11:10")
    board.add_post("Carol", "vote: Dan")
    soon = post(game)  # changed, but too soon: still the held count's line, exit 10
    assert (soon.exit_code, soon.stdout) == (
        10, "held by the forum: the count sent at 11:00 still waits for a moderator's approval "
            "and is not in the thread; nothing was posted (changed, but the last count was 10 "
            "min ago (min_interval 30))\n")
    at(monkeypatch, "2026-01-15 11:40")
    second = post(game)
    assert (second.exit_code, second.stdout) == (10, HELD_FIRST.format(
        url=board.url, why="1 vote change since the count posted at 11:00"))
    assert len(board.queue) == 2 and board.bot_posts() == []
    assert [(r.state, r.note) for r in store_rows(game)] == [("posted", "awaiting moderation")] * 2


# ---------------------------------------------------------------------------------------------
# A slow forum: the run's time limit (issue 17)


def test_a_run_on_a_slow_forum_ends_within_its_time_limit(board, game, monkeypatch):
    """Each answer takes 30 s of the board's clock; the run may take 100 s: it stops with one
    line and exit 4 before the reply, and the next cron run finds no lock held."""
    clock = board.form_clock
    board.slow = 30.0
    monkeypatch.setattr(scheduled, "NETWORK", scheduled.Network(
        reader=lambda: Fetcher(delay=0, retries=1, clock=clock.clock),
        poster=lambda session: Fetcher(session=session, delay=0, retries=1, clock=clock.clock),
        run_limit=100, clock=clock.clock))
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    result = post(game)
    assert result.exit_code == 4, result.output
    # read the thread (30 s), the login form (60), log in (90): the reply form comes too late
    assert result.stderr == ("tally: error: 127.0.0.1: no complete answer within 100 s (the "
                             f"run's time limit): {board.root}/posting.php?mode=reply&f=2&t=7\n")
    assert board.bot_posts() == [] and board.requests_to("POST /posting.php") == 0
    board.slow = 0.0
    again = post(game)  # the lock was let go; nothing half-written stops the next run
    assert again.exit_code == 0, again.output


def test_force_sends_a_held_count_again_when_the_gm_says_so(board, game, monkeypatch):
    """The moderators refused the held copy: only the GM's --force sends the same count again."""
    board.moderated = True
    at(monkeypatch, "2026-01-15 11:00")
    board.add_post("Alice", "vote: Bob")
    assert post(game).exit_code == 10
    board.queue.clear()  # refused by the moderators: it never shows
    at(monkeypatch, "2026-01-15 11:30")
    assert post(game).exit_code == 10 and board.queue == []
    again = post(game, "--force")
    assert (again.exit_code, again.stdout) == (10, HELD_FIRST.format(
        url=board.url, why="forced: the count held since 11:00 sent again"))
    assert len(board.queue) == 1
