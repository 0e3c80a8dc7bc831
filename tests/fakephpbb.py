"""A local phpBB 3.3 board on 127.0.0.1 for the scheduled-run tests (issue 5).

It serves one topic (f=2, t=7) in prosilver markup modelled on fixtures/phpbb/kira-en (the real
tally.adapters.phpbb parser reads it), and implements the login and reply flow of FORUMS.md
§2.1 the way phpBB 3.3 does it:

- sessions: a guest session cookie on the first visit (phpbb3_fake_sid), a new session id on
  login (plus the _u and _k autologin cookies); `expire_sessions()` forgets them all;
- form keys: form_token = sha1(creation_time + salt + form name + session id), checked like
  check_form_key: rejected in the second the form was made, after 7200 s, or for another
  session ("The submitted form was invalid. Try submitting again.");
- the reply form carries topic_cur_post_id and lastclick; a reply whose topic_cur_post_id is
  not the topic's last post gets the "Post review" page and is not posted;
- the flood interval (`flood_interval` seconds, board clock), with phpBB's exact FLOOD_ERROR;
- post approval (`moderated`): the bot's replies go into `queue` with phpBB's POST_STORED_MOD
  answer until `approve()` shows them;
- faults on demand (`fail_next`): "503", "429:<seconds>" (with Retry-After), "challenge"
  (403 with Cloudflare's cf-mitigated: challenge), "reset" (the
  connection closes with no answer, nothing done), "drop" (the post is stored, then the
  connection closes with no answer: accepted but the response lost).

Post times come from `clock` (default tally.times.now, so TALLY_NOW moves the board's clock
too); form keys use `form_clock` (PHP's time()), a tests/fakeclock.FakeClock shared with the
bot's Fetcher (BOARD_CLOCK, FAST), so the replier's form-age wait takes no real time.
BBCode in replies is rendered the way phpBB renders [b], [u], [size], [url] and line breaks.
"""

from __future__ import annotations

import hashlib
import html
import re
import secrets
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar
from urllib.parse import parse_qsl, urlsplit

from fakeclock import FakeClock
from typer.testing import CliRunner

from tally import scheduled, times
from tally.cli import app
from tally.fetch import Fetcher

FORUM_ID, TOPIC_ID = 2, 7
TITLE = "Mafia game 12 - Day 1"
COOKIE = "phpbb3_fake"
FLOOD_ERROR = "You cannot make another post so soon after your last."
FORM_INVALID = "The submitted form was invalid. Try submitting again."
REVIEW_EXPLAIN = ("At least one new post has been made to this topic. You may wish to review "
                  "your post in light of this.")
POST_STORED_MOD = ("This message has been submitted successfully, but it will need to be approved "
                   "by a moderator before it is publicly viewable.")  # language/en/posting.php
FORM_LIFETIME = 7200
BOT, BOT_PASSWORD = "TallyBot", "correct-horse-Battery-9"


@dataclass
class FakePost:
    id: int
    author: str
    uid: int
    at: datetime
    html: str


@dataclass
class Session:
    uid: int | None  # None: a guest
    last_click: int = 0


@dataclass
class FakePhpBB:
    """The board's state; `start()` serves it, `url` is the topic's address."""

    zone: str = "Europe/Paris"
    per_page: int = 10
    flood_interval: int = 15
    clock: Callable[[], datetime] = times.now
    users: dict[str, tuple[int, str]] = field(default_factory=dict)
    posts: list[FakePost] = field(default_factory=list)
    sessions: dict[str, Session] = field(default_factory=dict)
    faults: list[tuple[str, str]] = field(default_factory=list)
    log: list[str] = field(default_factory=list)  # "GET /viewtopic.php?...", one per request
    logins: int = 0
    last_post_at: dict[int, datetime] = field(default_factory=dict)
    salt: str = field(default_factory=lambda: secrets.token_hex(8))
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_id: int = 101
    form_clock: FakeClock = field(default_factory=lambda: BOARD_CLOCK)  # PHP's time()
    slow: float = 0.0  # seconds of form_clock each answer takes (a slow forum)
    moderated: bool = False  # the bot's replies wait for a moderator (no f_noapprove)
    queue: list[FakePost] = field(default_factory=list)  # replies awaiting approval: not shown

    def __post_init__(self) -> None:
        self.users.setdefault("Moderator", (2, "mod-password"))
        self.users.setdefault(BOT, (20, BOT_PASSWORD))
        self._server: ThreadingHTTPServer | None = None

    # -- running -------------------------------------------------------------------------------

    handler: ClassVar[type[BaseHTTPRequestHandler]]  # set below, once _Handler exists

    def start(self) -> FakePhpBB:
        board = self

        class Handler(self.handler):  # type: ignore[name-defined]
            pass

        Handler.board = board
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                         daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def __enter__(self) -> FakePhpBB:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def root(self) -> str:
        assert self._server is not None
        return f"http://127.0.0.1:{self._server.server_port}"

    @property
    def url(self) -> str:
        return f"{self.root}/viewtopic.php?f={FORUM_ID}&t={TOPIC_ID}"

    # -- what tests do -------------------------------------------------------------------------

    def add_user(self, name: str) -> None:
        self.users.setdefault(name, (100 + len(self.users), f"pw-{name}"))

    def add_post(self, author: str, text: str, at: datetime | None = None) -> FakePost:
        """A player's post: plain text, one line per line."""
        self.add_user(author)
        body = "<br />".join(html.escape(line) for line in text.split("\n"))
        with self.lock:
            return self._store(author, body, at or self.clock())

    def bot_posts(self) -> list[FakePost]:
        return [p for p in self.posts if p.author == BOT]

    def approve(self, post: FakePost) -> None:
        """A moderator approves a queued reply: it shows where its id places it."""
        with self.lock:
            self.queue.remove(post)
            self.posts = sorted([*self.posts, post], key=lambda p: p.id)

    def fail_next(self, request: str, fault: str) -> None:
        """The next request starting with `request` ("POST /posting.php") meets `fault`."""
        self.faults.append((request, fault))

    def expire_sessions(self) -> None:
        with self.lock:
            self.sessions.clear()

    def requests_to(self, prefix: str) -> int:
        return sum(1 for line in self.log if line.startswith(prefix))

    # -- internals -----------------------------------------------------------------------------

    def _store(self, author: str, body_html: str, at: datetime) -> FakePost:
        post = FakePost(self.next_id, author, self.users[author][0], at, body_html)
        self.next_id += 1
        self.posts.append(post)
        self.last_post_at[post.uid] = at
        return post

    def hold(self, author: str, fields: dict[str, str], at: datetime) -> str:
        """posting.php for a member without f_noapprove: the reply goes into the queue and the
        answer is trigger_error(POST_STORED_MOD + POST_APPROVAL_NOTIFY), refreshing in 10 s to
        the topic (no p=: the post is not in it; phpBB 3.3 posting.php, submit_post)."""
        post = FakePost(self.next_id, author, self.users[author][0], at,
                        bbcode_html(fields.get("message", "")))
        self.next_id += 1
        self.queue.append(post)
        self.last_post_at[post.uid] = at
        return (f'<meta http-equiv="refresh" content="10; url=./viewtopic.php?t={TOPIC_ID}" />'
                '<div class="panel" id="message"><div class="inner"><h2 class="message-title">'
                f"Information</h2><p>{POST_STORED_MOD} You will be notified when your post has "
                f'been approved.<br /><br /><a href="./viewforum.php?f={FORUM_ID}">Return to the '
                "forum last visited</a></p></div></div>")

    def form_token(self, creation: int, form: str, sid: str) -> str:
        return hashlib.sha1(f"{creation}{self.salt}{form}{sid}".encode()).hexdigest()

    def form_ok(self, fields: dict[str, str], form: str, sid: str) -> bool:
        """check_form_key: a token of this session, not from this very second, not too old."""
        created = fields.get("creation_time", "")
        if not created.isdigit():
            return False
        diff = int(self.form_clock.time()) - int(created)
        return (0 < diff <= FORM_LIFETIME
                and fields.get("form_token") == self.form_token(int(created), form, sid))


# ---------------------------------------------------------------------------------------------
# HTTP


class _Handler(BaseHTTPRequestHandler):
    board: FakePhpBB
    protocol_version = "HTTP/1.1"
    cookie = COOKIE  # the session cookies' prefix
    charset = "utf-8"

    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        self._handle("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._handle("POST")

    def _handle(self, method: str) -> None:
        board = self.board
        parts = urlsplit(self.path)
        query = dict(parse_qsl(parts.query))
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length).decode("latin-1") if length else ""
        fields = dict(parse_qsl(raw, encoding=self.charset))  # as the board's PHP reads it
        board.log.append(f"{method} {self.path}")
        board.form_clock.advance(board.slow)
        fault = self._fault(f"{method} {self.path}")
        if fault in ("reset",):
            return self._reset()
        if fault == "challenge":  # Cloudflare in front of the board (FORUMS.md §3.4)
            return self._send(403, b"<html><head><title>Just a moment...</title></head></html>",
                              extra=[("cf-mitigated", "challenge")])
        if fault and fault[:3] in ("503", "429"):
            wait = fault.split(":", 1)[1] if ":" in fault else "120"
            return self._send(int(fault[:3]), b"<html><body>Service busy</body></html>",
                              extra=[("Retry-After", wait)])
        sid, new_cookies = self._session()
        page = parts.path.rsplit("/", 1)[-1]
        with board.lock:
            status, body, new_cookies, extra = self._route(page, method, query, fields, sid,
                                                           new_cookies)
        if fault == "drop":  # the forum did the work; the answer never arrives
            return self._reset()
        self._send(status, body.encode(self.charset, "xmlcharrefreplace"), cookies=new_cookies,
                   extra=extra)

    def _route(self, page: str, method: str, query: dict[str, str], fields: dict[str, str],
               sid: str, cookies: list[str]) -> tuple[int, str, list[str], list[tuple[str, str]]]:
        """(status, page, cookies to set, extra headers) for one request."""
        if page == "viewtopic.php" and method == "GET":
            return 200, self._viewtopic(query, sid), cookies, []
        if page == "ucp.php" and query.get("mode") == "login":
            status, body, sid, cookies = self._login(method, fields, sid, cookies)
            return status, body, cookies, []
        if page == "posting.php" and query.get("mode") == "reply":
            status, body = self._posting(method, fields, sid)
            return status, body, cookies, []
        return 404, page_html("Information", "<p>The requested page does not exist.</p>", None,
                              sid), cookies, []

    def _fault(self, request: str) -> str | None:
        for index, (prefix, fault) in enumerate(self.board.faults):
            if request.startswith(prefix):
                del self.board.faults[index]
                return fault
        return None

    def _reset(self) -> None:
        """Close with an RST and no answer (SO_LINGER 0)."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                       struct.pack("ii", 1, 0))
        except OSError:
            pass

    def _send(self, status: int, body: bytes, cookies: list[str] | None = None,
              extra: list[tuple[str, str]] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", f"text/html; charset={self.charset.upper()}")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "private, no-cache=\"set-cookie\"")
        for cookie in cookies or ():
            self.send_header("Set-Cookie", cookie)
        for name, value in extra or ():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(body)

    def _session(self) -> tuple[str, list[str]]:
        """The request's session; a new guest session (and its cookie) when it has none."""
        jar = dict(part.strip().split("=", 1) for part in
                   (self.headers.get("Cookie") or "").split(";") if "=" in part)
        sid = jar.get(f"{self.cookie}_sid", "")
        with self.board.lock:
            if sid in self.board.sessions:
                return sid, []
            sid = secrets.token_hex(16)
            self.board.sessions[sid] = Session(uid=None)
        return sid, self.guest_cookies(sid)

    def guest_cookies(self, sid: str) -> list[str]:
        return [f"{COOKIE}_u=1; path=/; HttpOnly", f"{COOKIE}_k=; path=/; HttpOnly",
                f"{COOKIE}_sid={sid}; path=/; HttpOnly"]

    # -- pages ---------------------------------------------------------------------------------

    def _user(self, sid: str) -> str | None:
        uid = self.board.sessions[sid].uid if sid in self.board.sessions else None
        return next((name for name, (u, _) in self.board.users.items() if u == uid), None)

    def _viewtopic(self, query: dict[str, str], sid: str) -> str:
        board = self.board
        count = max(1, -(-len(board.posts) // board.per_page))
        if query.get("p", "").isdigit():
            index = next((i for i, p in enumerate(board.posts) if p.id == int(query["p"])), 0)
            number = index // board.per_page + 1
        else:
            start = int(query.get("start", "0") or 0)
            number = min(start // board.per_page + 1, count)  # phpBB clamps past the end
        shown = board.posts[(number - 1) * board.per_page: number * board.per_page]
        rows = "".join(post_html(board, p, i) for i, p in enumerate(shown))
        body = (f'<h2 class="topic-title"><a href="./viewtopic.php?t={TOPIC_ID}">{TITLE}</a>'
                f'</h2>\n<div class="action-bar bar-top">\n\t<a href="./posting.php?mode=reply'
                f'&amp;t={TOPIC_ID}" class="button" title="Post a reply"><span>Post Reply'
                f'</span></a>\n\t{pagination(board, number, count)}\n</div>\n{rows}\n'
                f'<div class="action-bar bar-bottom">\n\t{pagination(board, number, count)}'
                '\n</div>')
        return page_html(TITLE, body, self._user(sid), sid, board)

    def _login(self, method: str, fields: dict[str, str], sid: str,
               cookies: list[str]) -> tuple[int, str, str, list[str]]:
        board = self.board
        if method == "GET":
            return 200, login_page(board, sid, self._user(sid), ""), sid, cookies
        if not board.form_ok(fields, "login", sid):
            return 200, login_page(board, sid, None, FORM_INVALID), sid, cookies
        name = fields.get("username", "")
        if name not in board.users:
            why = "You have specified an incorrect username. Please check your username and try again."
            return 200, login_page(board, sid, None, why), sid, cookies
        uid, password = board.users[name]
        if fields.get("password") != password:
            why = "You have specified an incorrect password. Please check your password and try again."
            return 200, login_page(board, sid, None, why), sid, cookies
        board.sessions.pop(sid, None)
        sid = secrets.token_hex(16)
        board.sessions[sid] = Session(uid=uid)
        board.logins += 1
        key = secrets.token_hex(8) if fields.get("autologin") else ""
        cookies = [f"{COOKIE}_u={uid}; expires=Fri, 01-Jan-2038 00:00:00 GMT; path=/; HttpOnly",
                   f"{COOKIE}_k={key}; expires=Fri, 01-Jan-2038 00:00:00 GMT; path=/; HttpOnly",
                   f"{COOKIE}_sid={sid}; expires=Fri, 01-Jan-2038 00:00:00 GMT; path=/; HttpOnly"]
        body = ('<meta http-equiv="refresh" content="3; url=./index.php" />'
                '<div class="panel" id="message"><div class="inner"><h2 class="message-title">'
                'Information</h2><p>You have been successfully logged in.</p></div></div>')
        return 200, page_html("Login", body, name, sid, board), sid, cookies

    def _posting(self, method: str, fields: dict[str, str], sid: str) -> tuple[int, str]:
        board = self.board
        user = self._user(sid)
        if user is None:
            return 200, login_page(board, sid, None, "", reply_box=True)
        last_id = board.posts[-1].id if board.posts else 0
        if method == "GET":
            board.sessions[sid].last_click = int(board.form_clock.time())
            return 200, posting_page(board, sid, user, last_id, "")
        if not board.form_ok(fields, "posting", sid):
            return 200, posting_page(board, sid, user, last_id, FORM_INVALID)
        uid = board.users[user][0]
        now = board.clock()
        previous = board.last_post_at.get(uid)
        if previous is not None and (now - previous).total_seconds() < board.flood_interval:
            return 200, posting_page(board, sid, user, last_id, FLOOD_ERROR)
        if fields.get("topic_cur_post_id") != str(last_id):
            return 200, posting_page(board, sid, user, last_id, "", review=True)
        if board.moderated:
            return 200, page_html("Information", board.hold(user, fields, now), user, sid, board)
        post = board._store(user, bbcode_html(fields.get("message", "")), now)
        link = f"./viewtopic.php?p={post.id}#p{post.id}"
        body = (f'<meta http-equiv="refresh" content="3; url={link}" />'
                '<div class="panel" id="message"><div class="inner"><h2 class="message-title">'
                'Information</h2><p>This message has been posted successfully.<br /><br />'
                f'<a href="{link}">View your submitted message</a><br /><br />'
                f'<a href="./viewforum.php?f={FORUM_ID}">Return to the forum</a></p></div></div>')
        return 200, page_html("Information", body, user, sid, board)


FakePhpBB.handler = _Handler


# ---------------------------------------------------------------------------------------------
# Markup (prosilver 3.3, as in fixtures/phpbb/kira-en)


def bbcode_html(text: str) -> str:
    """phpBB's rendering of the BBCode tally writes."""
    out = html.escape(text, quote=False)
    out = re.sub(r"\[b\](.*?)\[/b\]", r'<strong class="text-strong">\1</strong>', out, flags=re.S)
    out = re.sub(r"\[u\](.*?)\[/u\]", r'<span style="text-decoration:underline">\1</span>', out,
                 flags=re.S)
    out = re.sub(r"\[size=(\d+)\](.*?)\[/size\]",
                 r'<span style="font-size:\1%;line-height:116%">\2</span>', out, flags=re.S)
    out = re.sub(r"\[url=([^\]]+)\](.*?)\[/url\]", r'<a href="\1" class="postlink">\2</a>', out,
                 flags=re.S)
    return out.replace("\n", "<br />")


def shown(board: FakePhpBB, at: datetime) -> str:
    local = times.to_local(at, board.zone)
    return local.strftime("%a %b %d, %Y ") + f"{local.hour % 12 or 12}:{local:%M} " + \
        ("am" if local.hour < 12 else "pm")


def username(board: FakePhpBB, name: str) -> str:
    uid = board.users[name][0]
    return f'<a href="./memberlist.php?mode=viewprofile&amp;u={uid}" class="username">{name}</a>'


def post_html(board: FakePhpBB, post: FakePost, index: int) -> str:
    at = post.at.astimezone(times.UTC)
    return f"""
		<div id="p{post.id}" class="post has-profile {"bg2" if index % 2 == 0 else "bg1"}">
		<div class="inner">
		<dl class="postprofile" id="profile{post.id}">
			<dt class="has-profile-rank no-avatar">{username(board, post.author)}</dt>
			<dd class="profile-rank">{"Bot" if post.author == BOT else "Player"}</dd>
		</dl>
		<div class="postbody">
			<div id="post_content{post.id}">
			<h3><a href="./viewtopic.php?p={post.id}#p{post.id}">Re: {TITLE}</a></h3>
			<p class="author">
				<a class="unread" href="./viewtopic.php?p={post.id}#p{post.id}" title="Post"><span class="sr-only">Post</span></a>
				<span class="responsive-hide">by <strong>{username(board, post.author)}</strong> &raquo; </span><time datetime="{at.isoformat()}">{shown(board, post.at)}</time>
			</p>
			<div class="content">{post.html}</div>
			</div>
		</div>
		</div>
	</div>
	<hr class="divider" />
"""


def pagination(board: FakePhpBB, number: int, count: int) -> str:
    def link(n: int) -> str:
        return f"./viewtopic.php?f={FORUM_ID}&amp;t={TOPIC_ID}&amp;start={(n - 1) * board.per_page}"

    items = []
    if number > 1:
        items.append(f'<li class="arrow previous"><a class="button button-icon-only" '
                     f'href="{link(number - 1)}" rel="prev" role="button">Previous</a></li>')
    for n in range(1, count + 1):
        items.append(f'<li class="active"><span>{n}</span></li>' if n == number else
                     f'<li><a class="button" href="{link(n)}" role="button">{n}</a></li>')
    if number < count:
        items.append(f'<li class="arrow next"><a class="button button-icon-only" '
                     f'href="{link(number + 1)}" rel="next" role="button">Next</a></li>')
    return (f'<div class="pagination">\n\t\t\t{len(board.posts)} posts\n\t\t\t<ul>\n\t\t\t'
            + "\n\t\t\t".join(items) + "\n\t\t\t</ul>\n\t\t</div>")


def page_html(title: str, body: str, user: str | None, sid: str,
              board: FakePhpBB | None = None) -> str:
    if user:
        account = (f'<li id="username_logged_in" class="rightside"><span class="username">'
                   f'{user}</span></li><li class="rightside"><a href="./ucp.php?mode=logout'
                   f'&amp;sid={sid}" title="Logout">Logout</a></li>')
    else:
        account = ('<li class="rightside"><a href="./ucp.php?mode=login" title="Login">'
                   '<span>Login</span></a></li>')
    offset = ""
    if board is not None:
        delta = times.to_local(board.clock(), board.zone).utcoffset()
        hours = int(delta.total_seconds() // 3600) if delta else 0
        offset = f"{hours:+03d}:00" if hours else ""
    return f"""<!DOCTYPE html>
<html dir="ltr" lang="en-gb">
<head>
<meta charset="utf-8" />
<title>{title} - Fake Mafia Board</title>
<link href="./styles/prosilver/theme/stylesheet.css?assets_version=31" rel="stylesheet">
</head>
<body id="phpbb" class="nojs notouch section-viewtopic ltr ">
<div id="wrap" class="wrap">
	<div id="page-header">
		<div class="navbar" role="navigation"><div class="inner">
			<ul id="nav-main" class="nav-main linklist" role="menubar">{account}</ul>
		</div></div>
	</div>
	<div id="page-body" class="page-body" role="main">
{body}
	</div>
<div id="page-footer" class="page-footer" role="contentinfo">
	<ul id="nav-footer" class="nav-footer linklist" role="menubar">
		<li class="rightside">All times are <span title="{board.zone if board else 'UTC'}">UTC{offset}</span></li>
	</ul>
	<div class="copyright"><p class="footer-row"><span class="footer-copyright">Powered by <a href="https://www.phpbb.com/">phpBB</a>&reg; Forum Software &copy; phpBB Limited</span></p></div>
</div>
</div>
</body>
</html>
"""


def login_page(board: FakePhpBB, sid: str, user: str | None, error: str,
               reply_box: bool = False) -> str:
    created = int(board.form_clock.time())
    explain = ('<p>You need to login in order to reply to topics within this forum.</p>'
               if reply_box else "")
    error_html = f'<div class="error">{error}</div>' if error else ""
    body = f"""<form action="./ucp.php?mode=login" method="post" id="login" data-focus="username">
<div class="panel"><div class="inner"><div class="content">
	<h2 class="login-title">Login</h2>{explain}
	<fieldset class="fields1">
	{error_html}
	<dl><dt><label for="username">Username:</label></dt>
		<dd><input type="text" tabindex="1" name="username" id="username" size="25" value="" class="inputbox autowidth" /></dd></dl>
	<dl><dt><label for="password">Password:</label></dt>
		<dd><input type="password" tabindex="2" id="password" name="password" size="25" class="inputbox autowidth" autocomplete="off" /></dd></dl>
	<dl><dd><label for="autologin"><input type="checkbox" name="autologin" id="autologin" tabindex="4" /> Remember me</label></dd>
		<dd><label for="viewonline"><input type="checkbox" name="viewonline" id="viewonline" tabindex="5" /> Hide my online status this session</label></dd></dl>
	<input type="hidden" name="creation_time" value="{created}" />
	<input type="hidden" name="form_token" value="{board.form_token(created, "login", sid)}" />
	<input type="hidden" name="sid" value="{sid}" />
	<input type="hidden" name="redirect" value="./index.php" />
	<dl><dt>&nbsp;</dt><dd><input type="submit" name="login" tabindex="6" value="Login" class="button1" /></dd></dl>
	</fieldset>
</div></div></div>
</form>"""
    return page_html("Login", body, user, sid, board)


def posting_page(board: FakePhpBB, sid: str, user: str, last_id: int, error: str,
                 review: bool = False) -> str:
    created = int(board.form_clock.time())
    error_html = f'<p class="error">{error}</p>' if error else ""
    review_html = ""
    if review:
        review_html = ('<h3 id="review"><span class="right-box"><a href="#postform">Skip to '
                       'post form</a></span>Post review</h3><p><strong>'
                       f'{REVIEW_EXPLAIN}</strong></p>')
    action = f"./posting.php?mode=reply&amp;f={FORUM_ID}&amp;t={TOPIC_ID}"
    body = f"""<h2 class="posting-title"><a href="./viewtopic.php?t={TOPIC_ID}">{TITLE}</a></h2>
<form id="postform" method="post" action="{action}" enctype="multipart/form-data">
{review_html}
<div class="panel" id="postingbox"><div class="inner">
	<h3>Post a reply</h3>
	<fieldset class="fields1">
	{error_html}
	<dl style="clear: left;"><dt><label for="subject">Subject:</label></dt>
		<dd><input type="text" name="subject" id="subject" size="45" maxlength="120" tabindex="2" value="Re: {TITLE}" class="inputbox autowidth" /></dd></dl>
	<div id="message-box" class="message-box">
		<textarea name="message" id="message" rows="15" cols="76" tabindex="4" class="inputbox"></textarea>
	</div>
	</fieldset>
	<fieldset class="submit-buttons">
		<input type="hidden" name="topic_cur_post_id" value="{last_id}" />
		<input type="hidden" name="lastclick" value="{created}" />
		<input type="hidden" name="creation_time" value="{created}" />
		<input type="hidden" name="form_token" value="{board.form_token(created, "posting", sid)}" />
		<input type="submit" tabindex="5" name="preview" value="Preview" class="button1" />&nbsp;
		<input type="submit" accesskey="s" tabindex="6" name="post" value="Submit" class="button1 default-submit-action" />&nbsp;
	</fieldset>
	<div id="options-panel"><fieldset class="fields1">
		<div><label for="attach_sig"><input type="checkbox" name="attach_sig" id="attach_sig" checked="checked" /> Attach a signature</label></div>
	</fieldset></div>
</div></div>
</form>
<h3 id="review">Topic review</h3>"""
    return page_html("Post a reply", body, user, sid, board)


# ---------------------------------------------------------------------------------------------
# The game file the tests use


def write_game(folder: Path, url: str, *, preset: str = "majority", posting: str = "",
               players: tuple[str, ...] = ("Alice", "Bob", "Carol", "Dan", "Eve"),
               extra: str = "", timezone: str = "Europe/Paris") -> Path:
    """A game on the fake board: day 1 from Thu 15 Jan 2026 09:00 to Sat 17 Jan 22:00, forum
    time (`timezone`)."""
    roster = "".join(f'\n[[players]]\nname = "{name}"\n' for name in players)
    text = f"""title = "Mafia game 12"
preset = "{preset}"
timezone = "{timezone}"
staff = ["Moderator"]

[thread]
url = "{url}"
engine = "phpbb"
{roster}
[[days]]
number = 1
start = "2026-01-15 09:00"
deadline = "2026-01-17 22:00"

[posting]
account = "{BOT}"
{posting}
{extra}
"""
    path = folder / "game.toml"
    path.write_text(text, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# The cron run the tests make

# The boards' clock (form ages): the bot's waits go through it, so a post costs no real time.
BOARD_CLOCK = FakeClock()
FAST = scheduled.Network(reader=lambda: Fetcher(delay=0, retries=1),
                         poster=lambda session: Fetcher(session=session, delay=0, retries=1,
                                                        clock=BOARD_CLOCK.clock))


def as_cron(monkeypatch) -> None:
    """What cron's environment gives `tally post`: the bot's password, no other setting; and a
    network without the polite delays."""
    monkeypatch.setattr(scheduled, "NETWORK", FAST)
    monkeypatch.setenv("TALLY_PASSWORD", BOT_PASSWORD)
    monkeypatch.delenv("TALLY_ACCOUNT", raising=False)
    monkeypatch.delenv("TALLY_STORE", raising=False)


def run_post(game: Path, *args: str):  # noqa: ANN201 - typer's own result type
    return CliRunner().invoke(app, ["post", str(game), *args])


def now_at(monkeypatch, local: str, offset: str) -> None:
    """Now is `local` ("2026-01-15 11:00", forum time at UTC`offset`) for tally and the board."""
    monkeypatch.setenv("TALLY_NOW", local.replace(" ", "T") + f":00{offset}")
