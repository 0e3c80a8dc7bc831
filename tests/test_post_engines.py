"""`tally post` end to end on the engines other than phpBB: JV with the session the GM supplies,
a Discuz board that holds replies for a moderator, and Cloudflare in front of a phpBB board.

The JV and Discuz forums are tests/fakeforums.py's (their public address routed to 127.0.0.1 for
both the guest that reads and the bot that posts); each test checks the line the GM reads, the
exit code, and what the forum holds.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import keyring
import pytest
import requests
from fakeforums import NAMES, PASSWORD, FakeDiscuz, FakeJV
from fakephpbb import FAST, FakePhpBB, write_game
from keyring.backends.fail import Keyring as NoKeyring
from typer.testing import CliRunner

from tally import scheduled
from tally.adapters.jv import JV
from tally.adapters.jv_reply import JVReplier
from tally.cli import app
from tally.fetch import Fetcher
from tally.store import Store


def routed(forum: FakeDiscuz | FakeJV) -> scheduled.Network:
    return scheduled.Network(
        reader=lambda: Fetcher(delay=0, retries=1, session=forum.route(requests.Session())),
        poster=lambda session: Fetcher(session=forum.route(session), delay=0, retries=1))


def post(game: Path, *args: str):
    return CliRunner().invoke(app, ["post", str(game), *args])


@pytest.fixture(autouse=True)
def no_secrets(monkeypatch) -> Iterator[None]:
    """No password anywhere: neither the environment nor a keyring."""
    for name in ("TALLY_PASSWORD", "TALLY_ACCOUNT", "TALLY_STORE", "TALLY_COOKIE"):
        monkeypatch.delenv(name, raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(NoKeyring())
    yield
    keyring.set_keyring(previous)


# ---------------------------------------------------------------------------------------------
# jeuxvideo.com: the GM's session cookie, never a password

JV_GAME = f"""title = "Kira partie 3"
preset = "majority"
timezone = "Europe/Paris"

[thread]
url = "{FakeJV.public}{FakeJV.topic_path}"
engine = "jv"

[[players]]
name = "Light"

[[players]]
name = "Misa"

[[players]]
name = "Near"

[[days]]
number = 1
start = "2026-06-01 09:00"
deadline = "2026-06-05 22:00"

[posting]
account = "{NAMES['jv']}"
"""


@pytest.fixture
def jv(monkeypatch) -> Iterator[FakeJV]:
    with FakeJV() as forum:
        forum.add_post("Misa", "vote: Light")
        monkeypatch.setattr(scheduled, "NETWORK", routed(forum))
        monkeypatch.setenv("TALLY_NOW", "2026-06-02T23:00:00+02:00")
        yield forum


@pytest.fixture
def jv_game(tmp_path: Path) -> Path:
    path = tmp_path / "game.toml"
    path.write_text(JV_GAME, encoding="utf-8")
    return path


def files(game: Path) -> tuple[Path, Path]:
    return game.parent / ".tally" / "game.cookies", game.parent / ".tally" / "game.paste.txt"


def supply(jv: FakeJV, game: Path, monkeypatch) -> str:
    sid = jv.gm_session()
    monkeypatch.setenv("TALLY_COOKIE", f"coniunctio={sid}; _ga=GA1.2.3")
    saved = post(game, "--cookie-from-env")
    cookie_file, _ = files(game)
    assert (saved.exit_code, saved.stdout) == (0, "saved the session cookies coniunctio, _ga for "
                                                  f"www.jeuxvideo.com to {cookie_file} (mode "
                                                  "0600)\n")
    assert sid not in saved.output
    return sid


def test_jv_posts_with_the_cookie_the_gm_supplied_and_never_asks_a_password(jv, jv_game,
                                                                            monkeypatch):
    sid = supply(jv, jv_game, monkeypatch)
    cookie_file, _ = files(jv_game)
    assert os.stat(cookie_file).st_mode & 0o777 == 0o600
    assert {c["name"]: c["value"] for c in json.loads(cookie_file.read_text())}["coniunctio"] == sid
    monkeypatch.delenv("TALLY_COOKIE")
    result = post(jv_game)
    assert result.exit_code == 0, result.output
    mine = jv.replies()
    assert result.stdout == (f"posted the count to {FakeJV.public}{FakeJV.topic_path} as post "
                             f"{mine[0].post_id}: first count of day 1 (1 vote)\n")
    assert "Light" in mine[0].text and sid not in result.output
    assert post(jv_game).stdout.startswith("nothing to post: nothing changed")  # found, not resent
    assert len(jv.replies()) == 1


def test_jv_without_a_cookie_says_how_to_supply_one_and_ready_to_paste_once(jv, jv_game):
    result = post(jv_game)
    cookie_file, paste = files(jv_game)
    assert result.exit_code == 8
    assert result.stderr == (
        "tally: error: jeuxvideo.com: login needs a captcha: cannot post automatically here; no "
        f"session cookie in {cookie_file}: supply the bot's from a browser: `TALLY_COOKIE='name="
        "value; …' tally post game.toml --cookie-from-env`; the count is ready to paste from "
        f"{paste}\n")
    assert result.stderr.count("ready to paste") == 1
    assert "vote count" in paste.read_text(encoding="utf-8").lower()
    assert jv.replies() == [] and not [r for r in jv.requests if r.method == "POST"]


def test_jv_expired_session_keeps_the_gms_cookie_file(jv, jv_game, monkeypatch):
    supply(jv, jv_game, monkeypatch)
    cookie_file, paste = files(jv_game)
    before = cookie_file.read_bytes()
    jv.expire_sessions()
    result = post(jv_game)
    assert result.exit_code == 8
    assert result.stderr == (
        "tally: error: jeuxvideo.com: login needs a captcha: cannot post automatically here; the "
        f"session cookie in {cookie_file} is no longer logged in: supply a fresh one from a "
        "browser: `TALLY_COOKIE='name=value; …' tally post game.toml --cookie-from-env`; the "
        f"count is ready to paste from {paste}\n")
    assert cookie_file.read_bytes() == before  # the GM's file: never deleted nor rewritten
    assert jv.replies() == []


def test_jv_session_ending_at_the_reply_is_cannot_post_and_the_row_failed(jv, jv_game,
                                                                          monkeypatch):
    supply(jv, jv_game, monkeypatch)
    cookie_file, paste = files(jv_game)
    before = cookie_file.read_bytes()

    class EndsAfterLogin(JVReplier):
        def login(self, thread_url, credentials):
            super().login(thread_url, credentials)
            jv.expire_sessions()  # the GM logged out in the browser meanwhile

    monkeypatch.setattr(scheduled, "NETWORK", scheduled.Network(
        routed(jv).reader, routed(jv).poster, lambda engine, http: EndsAfterLogin(http)))
    result = post(jv_game)
    assert result.exit_code == 8
    assert result.stderr == (
        "tally: error: jeuxvideo.com: the session is no longer connected: cannot post "
        f"automatically here; the session cookie in {cookie_file} is no longer logged in: "
        "supply a fresh one from a browser: `TALLY_COOKIE='name=value; …' tally post game.toml "
        f"--cookie-from-env`; the count is ready to paste from {paste}\n")
    assert cookie_file.read_bytes() == before
    key = JV().thread_key(FakeJV.public + FakeJV.topic_path)
    with Store(jv_game.parent / ".tally" / "game.sqlite") as store:
        assert [row.state for row in store.posted(key, 1)] == ["failed"]


def test_jv_cloudflare_on_the_reply_is_one_line_with_the_paste_file(jv, jv_game, monkeypatch):
    supply(jv, jv_game, monkeypatch)
    _, paste = files(jv_game)
    jv.faults.add("cloudflare")
    result = post(jv_game)
    assert (result.exit_code, result.stderr) == (
        8, "tally: error: jeuxvideo.com: Cloudflare challenge: cannot post automatically here; "
           f"the count is ready to paste from {paste}\n")
    assert jv.replies() == []


@pytest.mark.parametrize("value, line", [
    (None, "TALLY_COOKIE is not set: put the bot's session cookie in it as a browser sends it, "
           "e.g. TALLY_COOKIE='name=value; name2=value2'"),
    ("coniunctio", "TALLY_COOKIE: part 1 is not name=value (expected 'name=value; "
                   "name2=value2')"),
    ("a=1; s3cr3t-v4lue", "TALLY_COOKIE: part 2 is not name=value (expected 'name=value; "
                          "name2=value2')"),
])
def test_cookie_from_env_refuses_what_is_not_a_cookie_without_echoing_it(jv_game, monkeypatch,
                                                                         value, line):
    if value is not None:
        monkeypatch.setenv("TALLY_COOKIE", value)
    result = post(jv_game, "--cookie-from-env")
    assert (result.exit_code, result.stderr) == (3, f"tally: error: {line}\n")
    assert "s3cr3t" not in result.output and not files(jv_game)[0].exists()


# ---------------------------------------------------------------------------------------------
# Discuz: a reply held for a moderator is posted once, never again into the queue

DISCUZ_GAME = f"""title = "推理杀人 第7局"
preset = "majority"
timezone = "Asia/Shanghai"

[thread]
url = "{FakeDiscuz.public}/forum.php?mod=viewthread&tid={FakeDiscuz.tid}"
engine = "discuz"

[[players]]
name = "Misa"

[[players]]
name = "Light"

[[players]]
name = "Near"

[[days]]
number = 1
start = "2009-08-16 09:00"
deadline = "2009-08-18 22:00"

[posting]
account = "{NAMES['discuz']}"
"""


def test_discuz_moderation_exits_10_until_approved_and_is_never_sent_again(tmp_path,
                                                                          monkeypatch):
    monkeypatch.setenv("TALLY_PASSWORD", PASSWORD)
    game = tmp_path / "game.toml"
    game.write_text(DISCUZ_GAME, encoding="utf-8")
    with FakeDiscuz() as forum:
        forum.add_post("Misa", "vote: Light")
        forum.faults.add("moderation")
        monkeypatch.setattr(scheduled, "NETWORK", routed(forum))
        monkeypatch.setenv("TALLY_NOW", "2009-08-16T21:00:00+08:00")
        held = post(game)
        (queued,) = forum.replies()
        assert (held.exit_code, held.stdout) == (
            10, f"held by the forum: the count sent to {FakeDiscuz.public}/forum.php?mod="
                f"viewthread&tid=7 as post {queued.post_id} waits for a moderator's approval; "
                "players see it once it is approved (ask the board's staff to exempt the bot's "
                "account): first count of day 1 (1 vote)\n")
        with Store(tmp_path / ".tally" / "game.sqlite") as store:
            (row,) = store.posted("tid=7", 1)
        assert (row.state, row.post_id, row.note) == ("posted", str(queued.post_id),
                                                      "awaiting moderation")
        monkeypatch.setenv("TALLY_NOW", "2009-08-16T22:00:00+08:00")
        again = post(game)
        assert (again.exit_code, again.stdout) == (
            10, "held by the forum: the count sent at 21:00 still waits for a moderator's "
                "approval and is not in the thread; nothing was posted (nothing changed since "
                "the count posted at 21:00)\n")
        assert len(forum.replies()) == 1  # the queue holds one copy
        forum.approve(queued.post_id)
        monkeypatch.setenv("TALLY_NOW", "2009-08-16T22:10:00+08:00")
        shown = post(game)
        assert shown.exit_code == 6, shown.output
        with Store(tmp_path / ".tally" / "game.sqlite") as store:
            (row,) = store.posted("tid=7", 1)
        assert row.note == f"approved: in the thread as post {queued.post_id}"


# ---------------------------------------------------------------------------------------------
# Cloudflare in front of a phpBB board: reading is a forum error, posting leaves the paste file


@pytest.fixture
def board(tmp_path, monkeypatch) -> Iterator[tuple[FakePhpBB, Path]]:
    from fakephpbb import BOT_PASSWORD

    monkeypatch.setenv("TALLY_PASSWORD", BOT_PASSWORD)
    monkeypatch.setenv("TALLY_NOW", "2026-01-15T11:00:00+01:00")
    monkeypatch.setattr(scheduled, "NETWORK", FAST)
    running = FakePhpBB().start()
    running.add_post("Alice", "vote: Bob")
    yield running, write_game(tmp_path, running.url)
    running.stop()


def test_a_challenge_on_the_thread_is_a_forum_error_for_count(board):
    forum, game = board
    forum.fail_next("GET /viewtopic.php", "challenge")
    result = CliRunner().invoke(app, ["count", str(game)])
    assert (result.exit_code, result.stderr) == (4, "tally: error: 127.0.0.1: Cloudflare "
                                                    "challenge: a browser is needed\n")
    assert forum.requests_to("GET /viewtopic.php") == 1  # never retried


def test_a_challenge_on_the_reply_form_is_cannot_post_with_the_paste_file(board):
    forum, game = board
    forum.fail_next("GET /posting.php", "challenge")
    result = post(game)
    paste = game.parent / ".tally" / "game.paste.txt"
    assert (result.exit_code, result.stderr) == (
        8, "tally: error: 127.0.0.1: Cloudflare challenge: a browser is needed: cannot post "
           f"automatically here; the count is ready to paste from {paste}\n")
    assert forum.bot_posts() == [] and paste.is_file()
