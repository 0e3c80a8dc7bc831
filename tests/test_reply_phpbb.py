"""phpBB login and reply (adapters/phpbb_reply.py) against the local phpBB 3.3 board
(tests/fakephpbb.py), and replayed from a scrubbed cassette (fixtures/cassettes/reply-phpbb.yaml).

Each test says what a GM would see: the post on the board (or none), the post id the run gets
back, or the one-line error.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import requests
import vcr
from fakeclock import FakeClock
from fakephpbb import BOT, BOT_PASSWORD, FLOOD_ERROR, FORM_INVALID, FORM_LIFETIME, FakePhpBB

from tally import adapters, crawl, times
from tally.adapters.phpbb_reply import FORM_WAIT, PhpBBReplier
from tally.adapters.reply import Credentials, replier_for
from tally.errors import (
    FloodLimit,
    ForumError,
    LoginError,
    OutcomeUnknown,
    SessionExpired,
    ThreadMovedOn,
)
from tally.fetch import Fetcher, Response

CASSETTE = Path(__file__).resolve().parents[1] / "fixtures" / "cassettes" / "reply-phpbb.yaml"
BOT_LOGIN = Credentials(BOT, BOT_PASSWORD)


@pytest.fixture
def board() -> Iterator[FakePhpBB]:
    """The board with its own PHP clock; the bot's Fetcher waits on the same one (bot())."""
    running = FakePhpBB(form_clock=FakeClock()).start()
    running.add_post("Moderator", "Day 1 starts now.")
    running.add_post("Alice", "vote: Bob")
    yield running
    running.stop()


def bot(board: FakePhpBB) -> PhpBBReplier:
    """The replier as `tally post` makes it, its Fetcher on the board's clock: the form-age
    wait moves that clock, no real time passes."""
    http = Fetcher(session=requests.Session(), delay=0, retries=1, clock=board.form_clock.clock)
    replier = replier_for("phpbb", http)
    assert isinstance(replier, PhpBBReplier)
    return replier


def test_login_and_reply_posts_once_and_gives_the_post_id(board):
    replier = bot(board)
    replier.login(board.url, BOT_LOGIN)
    reply = replier.reply(board.url, "[b]Vote count[/b]\nBob (1): Alice")
    mine = board.bot_posts()
    assert len(mine) == 1 and reply.post_id == str(mine[0].id)
    assert reply.url == f"{board.root}/viewtopic.php?p={mine[0].id}#p{mine[0].id}"
    # Both forms were submitted after a wait of over a second (same-second rejection, §2.1),
    # through the Fetcher's clock.
    assert board.form_clock.sleeps == [FORM_WAIT, FORM_WAIT] and FORM_WAIT > 1
    # The real phpBB parser reads the post back from the board's prosilver page.
    thread = crawl.read_thread(board.url, adapters.get("phpbb"), zone="Europe/Paris",
                               store=None, fetcher=Fetcher(delay=0))
    last = thread.posts[-1]
    assert (last.id, last.author, last.position) == (str(mine[0].id), BOT, 3)
    assert last.body.own == "Vote count\nBob (1): Alice" and last.body.bold == ("Vote count",)


def test_the_board_rejects_a_form_sent_in_its_own_second(board):
    replier = bot(board)
    replier.login(board.url, BOT_LOGIN)
    replier.sleep = lambda seconds: None  # no wait: the board's clock stays in the form's second
    with pytest.raises(ForumError) as refused:
        replier.reply(board.url, "too fast")
    assert str(refused.value) == f"127.0.0.1: the forum did not take the post: {FORM_INVALID}"
    assert board.bot_posts() == []


def test_the_board_rejects_a_form_older_than_its_lifetime(board):
    session = requests.Session()
    session.get(f"{board.root}/ucp.php?mode=login")
    sid = session.cookies["phpbb3_fake_sid"]
    created = int(board.form_clock.time()) - FORM_LIFETIME - 100
    answer = session.post(f"{board.root}/ucp.php?mode=login", data={
        "username": BOT, "password": BOT_PASSWORD, "login": "Login", "sid": sid,
        "creation_time": str(created), "form_token": board.form_token(created, "login", sid)})
    assert FORM_INVALID in answer.text and board.logins == 0


def test_wrong_password_is_a_login_error_that_never_repeats_it(board):
    with pytest.raises(LoginError) as refused:
        bot(board).login(board.url, Credentials(BOT, "not-the-password-42"))
    assert str(refused.value) == ("127.0.0.1: the forum refused the login of TallyBot: You have "
                                  "specified an incorrect password. Please check your password "
                                  "and try again.")
    assert refused.value.exit_code == 7
    assert "not-the-password-42" not in repr(refused.value)


def test_post_review_returns_control_without_posting(board):
    replier = bot(board)
    replier.login(board.url, BOT_LOGIN)
    wait = replier.sleep

    def someone_posts_meanwhile(seconds: float) -> None:
        board.add_post("Dan", "vote: Alice")
        wait(seconds)

    replier.sleep = someone_posts_meanwhile
    with pytest.raises(ThreadMovedOn) as moved:
        replier.reply(board.url, "a count that missed Dan's vote")
    assert str(moved.value) == ("127.0.0.1: new posts arrived while replying (post review); "
                                "nothing was posted")
    assert board.bot_posts() == []
    replier.sleep = wait
    assert replier.reply(board.url, "a fresh count").post_id == str(board.posts[-1].id)


def test_flood_limit_is_reported_and_nothing_posted(board):
    replier = bot(board)
    replier.login(board.url, BOT_LOGIN)
    board.last_post_at[board.users[BOT][0]] = board.clock()  # the bot posted just now
    with pytest.raises(FloodLimit) as flood:
        replier.reply(board.url, "again")
    assert FLOOD_ERROR.rstrip(".") in str(flood.value)
    assert str(flood.value).endswith("(flood limit); nothing was posted")
    assert board.bot_posts() == []


def test_expired_session_is_reported_as_such(board):
    replier = bot(board)
    replier.login(board.url, BOT_LOGIN)
    board.expire_sessions()
    with pytest.raises(SessionExpired) as expired:
        replier.reply(board.url, "count")
    assert str(expired.value) == "127.0.0.1: the bot's session expired (the reply form asks to log in)"
    replier.login(board.url, BOT_LOGIN)
    assert replier.reply(board.url, "count").post_id == str(board.bot_posts()[0].id)


def test_logged_in_tells_a_bot_page_from_a_guest_page(board):
    replier = bot(board)
    replier.login(board.url, BOT_LOGIN)
    mine = replier.http.get(board.url).body
    guest = requests.get(board.url).content
    assert replier.logged_in(mine, BOT) and not replier.logged_in(guest, BOT)
    assert not replier.logged_in(mine, "Alice")


@pytest.mark.parametrize("fault,error,posted", [
    ("503", FloodLimit, 0),  # "not now": nothing was posted
    ("429:30", FloodLimit, 0),
    ("reset", OutcomeUnknown, 0),  # the answer is lost: the post may exist (here it does not)
    ("drop", OutcomeUnknown, 1),  # the board stored it, then the connection died
])
def test_faults_on_the_reply_post(board, fault, error, posted):
    replier = bot(board)
    replier.login(board.url, BOT_LOGIN)
    board.fail_next("POST /posting.php", fault)
    with pytest.raises(error) as failed:
        replier.reply(board.url, "count")
    assert len(board.bot_posts()) == posted
    message = str(failed.value)
    assert "\n" not in message and message.startswith("127.0.0.1: ")
    if fault == "429:30":
        assert message == "127.0.0.1: HTTP 429 on posting (Retry-After 30 s); nothing was posted"


# ---------------------------------------------------------------------------------------------
# The cassette (recorded by fixtures/cassettes/record_reply_phpbb.py from the fake board)


def test_cassette_replays_login_and_reply():
    replier = replier_for("phpbb", Fetcher(session=requests.Session(), delay=0, retries=1))
    assert isinstance(replier, PhpBBReplier)
    replier.sleep = lambda seconds: None  # replayed answers: no form clock to respect
    url = "https://forum.example.org/viewtopic.php?f=2&t=7"
    with vcr.use_cassette(str(CASSETTE), record_mode="none", match_on=["method", "uri"]) as tape:
        replier.login(url, Credentials(BOT, "any password: the cassette has none"))
        reply = replier.reply(url, "[b]Vote count, day 1[/b]")
    assert reply.post_id == "103"
    assert reply.url == "https://forum.example.org/viewtopic.php?p=103#p103"
    assert [r.method for r in tape.requests] == ["GET", "POST", "GET", "POST"]


def test_cassette_holds_no_password_cookie_or_session_id():
    text = CASSETTE.read_text(encoding="utf-8")
    assert BOT_PASSWORD not in text
    assert "phpbb3_fake_sid=" not in text and "Set-Cookie" not in text and "Cookie" not in text
    assert "127.0.0.1" not in text
    # The recorded login still shows the fields the replier sent, the password scrubbed.
    assert "password=SCRUBBED" in text and "username=TallyBot" in text


# ---------------------------------------------------------------------------------------------
# A reply held for a moderator (issue 13)


def test_a_reply_held_for_approval_is_not_visible_and_has_no_post_id(board):
    board.moderated = True
    replier = bot(board)
    replier.login(board.url, BOT_LOGIN)
    reply = replier.reply(board.url, "[b]Vote count[/b]")
    assert (reply.post_id, reply.url, reply.visible) == (None, None, False)
    assert board.bot_posts() == [] and len(board.queue) == 1


def _answer(message: str, refresh: str = "./viewtopic.php?t=7") -> Response:
    """posting.php's trigger_error page (prosilver message panel) in the board's language."""
    body = (f'<html><head><meta http-equiv="refresh" content="10; url={refresh}" /></head><body>'
            '<div class="panel" id="message"><div class="inner"><h2 class="message-title">'
            f'Information</h2><p>{message}<br /><br /><a href="./viewforum.php?f=2">…</a></p>'
            "</div></div></body></html>").encode()
    return Response("https://forum.example.org/posting.php?mode=reply&t=7", 200,
                    {"Content-Type": "text/html; charset=UTF-8"}, body, times.now())


# POST_STORED_MOD in the packs a board may run (sources in adapters/phpbb_reply.py).
HELD = {
    "en": "This message has been submitted successfully, but it will need to be approved by a "
          "moderator before it is publicly viewable. You will be notified when your post has "
          "been approved.",
    "es": "El mensaje ha sido guardado pero requiere aprobación.",
    "fr": "Le message a été envoyé mais il doit être approuvé par un modérateur afin d’être "
          "visible publiquement.",
    "fr-2": "Ce message a été publié avec succès, mais il devra être approuvé par un modérateur "
            "avant qu’il soit visible par tous.",
    "ru": "Сообщение было успешно отправлено, но должно быть одобрено модератором до того, как "
          "будет отображено на конференции. Вы будете уведомлены об одобрении вашего сообщения.",
}
# POST_STORED (3.0 shows it with a refresh to the post), same packs.
STORED = {
    "en": "This message has been posted successfully.",
    "es": "Este mensaje ha sido publicado correctamente.",
    "fr": "Le message a été publié.",
    "ru": "Сообщение было успешно отправлено.",
}


@pytest.mark.parametrize("language", sorted(HELD))
def test_the_held_answer_is_read_in_each_language(language):
    reply = PhpBBReplier(None)._read_answer(_answer(HELD[language]), "forum.example.org")
    assert (reply.post_id, reply.visible) == (None, False)


@pytest.mark.parametrize("language", sorted(STORED))
def test_the_posted_answer_is_read_in_each_language(language):
    answer = _answer(STORED[language], "./viewtopic.php?f=2&amp;p=104#p104")
    reply = PhpBBReplier(None)._read_answer(answer, "forum.example.org")
    assert (reply.post_id, reply.url, reply.visible) == (
        "104", "https://forum.example.org/viewtopic.php?p=104#p104", True)


def test_an_unknown_answer_is_an_error_not_a_post_without_an_id():
    answer = _answer("The board is temporarily unavailable.")
    with pytest.raises(ForumError) as caught:
        PhpBBReplier(None)._read_answer(answer, "forum.example.org")
    assert str(caught.value) == ("forum.example.org: the forum did not take the post: "
                                 "Information The board is temporarily unavailable. …")
