"""A local phpBB 2.0.23 board (subSilver, ISO-8859-1) on 127.0.0.1 for the scheduled-run tests.

The state, faults and flood rule are FakePhpBB's (tests/fakephpbb.py); what differs is phpBB 2's
own flow (FORUMS.md §2.2, phpbb/phpbb 2.0.x login.php, posting.php, functions_post.php):

- sessions in the phpbb2mysql_sid cookie; login.php takes username, password, autologin and
  login, and answers a good login with a redirect to index.php, a bad one with message_die's
  box ("You have specified an incorrect or inactive username, or an invalid password.");
- no ucp.php (404), no form token and no post review; the reply form (name="post") carries the
  session id as a hidden `sid`, and a form whose sid is not the session's gets
  "Invalid Session. Please resubmit the form." above the form;
- a guest asking for posting.php is redirected to login.php?redirect=posting.php&...;
- flood: message_die with 2.0's Flood_Error wording; success: "Your message has been entered
  successfully." with a refresh to viewtopic.php?p=ID#ID;
- pages are served in ISO-8859-1 and forms read in it, as PHP did: a reply sent in UTF-8 comes
  out as mojibake, and numeric references (&#8212;) are kept as characters (prepare_message).

Pages use the subSilver rows of fixtures/phpbb/phpbb2-en/make_pages.py, read by the real parser.
"""

from __future__ import annotations

import html
import re
import secrets
from dataclasses import dataclass

from casefiles import FIXTURES, fixture_module
from fakephpbb import FakePhpBB, Session, _Handler

from tally import times

pages = fixture_module(FIXTURES / "phpbb" / "phpbb2-en" / "make_pages.py", "phpbb2_pages")

TOPIC_ID = 7
COOKIE = "phpbb2mysql"
FLOOD_ERROR = "You cannot make another post so soon after your last; please try again in a short while."
LOGIN_ERROR = "You have specified an incorrect or inactive username, or an invalid password."
SESSION_INVALID = "Invalid Session. Please resubmit the form."
TOPIC_LOCKED = "This topic is locked: you cannot edit posts or make replies."


@dataclass
class FakePhpBB2(FakePhpBB):
    per_page: int = 15
    zone: str = "America/New_York"
    locked: bool = False

    @property
    def url(self) -> str:
        return f"{self.root}/viewtopic.php?t={TOPIC_ID}"


class _Handler2(_Handler):
    board: FakePhpBB2
    cookie = COOKIE
    charset = "iso-8859-1"

    def guest_cookies(self, sid: str) -> list[str]:
        return [f"{COOKIE}_data=a%3A0%3A%7B%7D; path=/", f"{COOKIE}_sid={sid}; path=/"]

    def _route(self, page: str, method: str, query: dict[str, str], fields: dict[str, str],
               sid: str, cookies: list[str]) -> tuple[int, str, list[str], list[tuple[str, str]]]:
        if page == "viewtopic.php" and method == "GET":
            return 200, self._topic(query, sid), cookies, []
        if page == "index.php":
            return 200, page_html(self.board, "Index", "<p>Forum index</p>", self._user(sid)), \
                cookies, []
        if page == "login.php":
            return self._login2(method, fields, sid, cookies)
        if page == "posting.php":
            return self._posting2(method, query, fields, sid, cookies)
        return 404, "<html><body>Not Found</body></html>", cookies, []

    def _topic(self, query: dict[str, str], sid: str) -> str:
        board = self.board
        count = max(1, -(-len(board.posts) // board.per_page))
        start = int(query.get("start", "0") or 0)
        number = min(start // board.per_page + 1, count)
        shown = board.posts[(number - 1) * board.per_page: number * board.per_page]
        users = {name: uid for name, (uid, _) in board.users.items()}
        rows = "".join(
            pages.row((number - 1) * board.per_page + i, (p.id, p.author, p.html, ""),
                      when=times.to_local(p.at, board.zone).replace(tzinfo=None), users=users)
            for i, p in enumerate(shown))
        return pages.page_html(number, count, rows, topic=TOPIC_ID,
                               account=account_link(self._user(sid), sid))

    def _login2(self, method: str, fields: dict[str, str], sid: str,
                cookies: list[str]) -> tuple[int, str, list[str], list[tuple[str, str]]]:
        board = self.board
        if method == "GET" or "login" not in fields:
            return 200, login_page(board, self._user(sid)), cookies, []
        name = fields.get("username", "")
        uid, password = board.users.get(name, (None, None))
        if uid is None or fields.get("password") != password:
            box = message_box("Information", f'{LOGIN_ERROR}<br /><br />Click <a href="login.php'
                              '?redirect=">Here</a> to return to login')
            return 200, page_html(board, "Information", box, None,
                                  refresh="3;url=login.php?redirect="), cookies, []
        board.sessions.pop(sid, None)
        sid = secrets.token_hex(16)
        board.sessions[sid] = Session(uid=uid)
        board.logins += 1
        cookies = [f"{COOKIE}_data=a%3A2%3A%7Bs%3A11%3A%22autologinid%22%3B; path=/",
                   f"{COOKIE}_sid={sid}; path=/"]
        return 302, "", cookies, [("Location", f"{board.root}/index.php")]

    def _posting2(self, method: str, query: dict[str, str], fields: dict[str, str], sid: str,
                  cookies: list[str]) -> tuple[int, str, list[str], list[tuple[str, str]]]:
        board = self.board
        user = self._user(sid)
        mode = fields.get("mode") or query.get("mode")
        if mode != "reply":
            return 404, "<html><body>Not Found</body></html>", cookies, []
        if user is None:
            where = f"{board.root}/login.php?redirect=posting.php&mode=reply&t={TOPIC_ID}"
            return 302, "", cookies, [("Location", where)]
        if board.locked:
            return 200, page_html(board, "Information", message_box("Information", TOPIC_LOCKED),
                                  user), cookies, []
        if method == "GET":
            return 200, posting_page(board, sid, user, ""), cookies, []
        if fields.get("sid") != sid:
            return 200, posting_page(board, sid, user, SESSION_INVALID), cookies, []
        uid = board.users[user][0]
        now = board.clock()
        previous = board.last_post_at.get(uid)
        if previous is not None and (now - previous).total_seconds() < board.flood_interval:
            return 200, page_html(board, "Information", message_box("Information", FLOOD_ERROR),
                                  user), cookies, []
        post = board._store(user, prepare_message(fields.get("message", "")), now)
        link = f"viewtopic.php?p={post.id}#{post.id}"
        box = message_box("Information", "Your message has been entered successfully.<br /><br />"
                          f'Click <a href="{link}">Here</a> to view your message<br /><br />'
                          'Click <a href="viewforum.php?f=4">Here</a> to return to the forum')
        return 200, page_html(board, "Information", box, user, refresh=f"3;url={link}"), \
            cookies, []


FakePhpBB2.handler = _Handler2


# ---------------------------------------------------------------------------------------------
# Markup (subSilver)


def prepare_message(text: str) -> str:
    """phpBB 2's prepare_message with HTML off: &, <, >, " escaped, except numeric references
    (&#8212;), then [b], [u] and [url] as subSilver's bbcode.tpl writes them, and line breaks
    as <br />."""
    out = re.sub(r"&(?!#[0-9]+;)", "&amp;", text).replace("<", "&lt;").replace(">", "&gt;")
    out = out.replace('"', "&quot;")
    out = re.sub(r"\[b\](.*?)\[/b\]", r'<span style="font-weight: bold">\1</span>', out, flags=re.S)
    out = re.sub(r"\[u\](.*?)\[/u\]", r'<span style="text-decoration: underline">\1</span>', out,
                 flags=re.S)
    out = re.sub(r"\[url=([^\]]+)\](.*?)\[/url\]", r'<a href="\1" target="_blank" class="postlink">\2</a>',
                 out, flags=re.S)
    return out.replace("\n", "<br />")


def account_link(user: str | None, sid: str) -> str:
    if user is None:
        return pages.LOG_IN
    return f'<a href="login.php?logout=true&amp;sid={sid}" class="mainmenu">Log out [ {html.escape(user)} ]</a>'


def message_box(title: str, text: str) -> str:
    """message_body.tpl: what message_die shows."""
    return f"""<table class="forumline" width="100%" cellspacing="1" cellpadding="4" border="0">
	<tr><th class="thHead" height="25" valign="middle"><span class="tableTitle">{title}</span></th></tr>
	<tr><td class="row1" align="center"><table width="100%" cellspacing="0" cellpadding="1" border="0">
		<tr><td>&nbsp;</td></tr>
		<tr><td align="center"><span class="gen">{text}</span></td></tr>
		<tr><td>&nbsp;</td></tr>
	</table></td></tr>
</table>"""


def page_html(board: FakePhpBB2, title: str, body: str, user: str | None,
              refresh: str = "") -> str:
    meta = f'<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
    return f"""<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
<html dir="ltr">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=iso-8859-1">
{meta}
<title>Mafia Hideout :: {title}</title>
</head>
<body bgcolor="#E5E5E5" text="#000000" link="#006699" vlink="#5493B4">
<table width="100%" cellspacing="0" cellpadding="10" border="0" align="center"><tr><td class="bodyline">
<span class="mainmenu">&nbsp;{account_link(user, "")}&nbsp;</span>
{body}
</td></tr></table>
</body>
</html>
"""


def login_page(board: FakePhpBB2, user: str | None) -> str:
    body = """<form action="login.php" method="post" target="_top">
<table width="100%" cellpadding="4" cellspacing="1" border="0" class="forumline" align="center">
  <tr><th height="25" class="thHead" nowrap="nowrap">Please enter your username and password to log in.</th></tr>
  <tr><td class="row1"><table border="0" cellpadding="3" cellspacing="1" width="100%">
	<tr><td width="45%" align="right"><span class="gen">Username:</span></td>
		<td><input type="text" class="post" name="username" size="25" maxlength="40" value="" /></td></tr>
	<tr><td align="right"><span class="gen">Password:</span></td>
		<td><input type="password" class="post" name="password" size="25" maxlength="32" /></td></tr>
	<tr align="center"><td colspan="2"><span class="gen">Log me on automatically each visit: <input type="checkbox" name="autologin" /></span></td></tr>
	<tr align="center"><td colspan="2"><input type="hidden" name="redirect" value="" /><input type="submit" name="login" class="mainoption" value="Log in" /></td></tr>
  </table></td></tr>
</table>
</form>"""
    return page_html(board, "Log in", body, user)


def posting_page(board: FakePhpBB2, sid: str, user: str, error: str) -> str:
    error_html = ""
    if error:
        error_html = ('<table class="forumline" width="100%" cellspacing="1" cellpadding="4" '
                      f'border="0" align="center"><tr><td><span class="gen">{error}</span>'
                      '</td></tr></table><br clear="all" />')
    body = f"""{error_html}<form action="posting.php" method="post" name="post" onsubmit="return checkForm(this)">
<table border="0" cellpadding="3" cellspacing="1" width="100%" class="forumline">
	<tr><th class="thHead" colspan="2" height="25"><b>Post a reply</b></th></tr>
	<tr><td class="row1" width="22%"><span class="gen"><b>Subject</b></span></td>
		<td class="row2" width="78%"><input type="text" name="subject" size="45" maxlength="60" style="width:450px" tabindex="2" class="post" value="" /></td></tr>
	<tr><td class="row1" valign="top"><span class="gen"><b>Message body</b></span></td>
		<td class="row2"><textarea name="message" rows="15" cols="35" wrap="virtual" style="width:450px" tabindex="3" class="post"></textarea></td></tr>
	<tr><td class="row1" valign="top"><span class="gen"><b>Options</b></span></td>
		<td class="row2"><span class="gen"><input type="checkbox" name="disable_smilies" /> Disable Smilies in this post<br />
		<input type="checkbox" name="attach_sig" checked="checked" /> Attach signature</span></td></tr>
	<tr><td class="catBottom" colspan="2" align="center" height="28"><input type="hidden" name="sid" value="{sid}" /><input type="hidden" name="mode" value="reply" /><input type="hidden" name="t" value="{TOPIC_ID}" /><input type="submit" tabindex="5" name="preview" class="mainoption" value="Preview" />&nbsp;<input type="submit" accesskey="s" tabindex="6" name="post" class="mainoption" value="Submit" /></td></tr>
</table>
</form>"""
    return page_html(board, "Post a reply", body, user)
