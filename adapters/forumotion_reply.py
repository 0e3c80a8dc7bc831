"""Login and reply on Forumotion boards (FORUMS.md §1.7), as the game's bot.

Login: POST /login with username, password, login=ok, autologin (the cookie jar keeps the
session). Reply: the topic page's quick-reply form gives the hidden `tid` (and whatever else the
theme puts there); POST /post with mode=reply, t, message, post. The answer is a message page
whose `.message` block links the new post (/viewtopic?t=…&p=ID#ID or /t123p15-slug#ID), or a
redirect straight to it.

UNVERIFIED in FORUMS.md, so read tolerantly: the logged-in marks (the `_userdata` JS object,
the logout link), the refused-login wording, the flood wording (phpBB 2's "so soon after your
last" family, as Forumotion descends from it) and the words of a reply held for a moderator's
approval (the phpBB family's, _HELD). An answer that is none of these is a ForumError.
"""

from __future__ import annotations

import re
from urllib.parse import urljoin, urlsplit

from lxml.html import HtmlElement

from tally.adapters.forumotion import TopicUrl, split_topic_url
from tally.adapters.html import collapse, parse_document_as_browser
from tally.adapters.reply import Credentials, Replier, Reply, encode_form, page_charset
from tally.errors import FloodLimit, ForumError, InputError, LoginError, SessionExpired

LABEL = "Forumotion"

# Every page carries `_userdata["session_logged_in"] = 1;` and `_userdata["username"] = "…";`
# for members (used by community scripts as _userdata.session_logged_in); quoted keys or not.
_LOGGED_IN_JS = re.compile(r"""session_logged_in["'\]]*\s*[:=]\s*["']?1\b""")
_USERNAME_JS = re.compile(r"""_userdata\[?["']?username["'\]]*\s*[:=]\s*"((?:[^"\\]|\\.)*)\"""")
_LOGOUT = "//a[contains(@href, 'logout')]"
# The confirmation's link to the new post: /viewtopic?t=1&p=ID#ID, /t1p15-slug#ID, /t1-slug#ID.
_POST_LINK = re.compile(r"(?:[?&]p=(\d+))|#(\d+)$")
# phpBB 2 Flood_Error and its translations (Forumotion keeps phpBB 2 wording; UNVERIFIED).
_FLOOD = re.compile(
    r"flood|so soon after your last|si rapidement apr[èe]s|tan pronto despu[ée]s|"
    r"così presto|t[ãa]o cedo ap[óo]s", re.IGNORECASE)
# A post held for a moderator's approval. Forumotion's own wording is UNVERIFIED (FORUMS.md
# §1.7 names none); these are the phpBB family's POST_STORED_MOD phrases in the boards' languages
# (phpBB 3 language packs: en, es, fr, pt, it), matched only in the answer's message block.
_HELD = re.compile(
    r"approved by a moderator|requiere aprobaci[oó]n|aprobad[oa] por un moderador|"
    r"approuvé par un modérateur|aprovad[ao] por um moderador|approvato da un moderatore",
    re.IGNORECASE)
_SECONDS = re.compile(r"(\d+)\s*(?:seconds?|secondes?|segundos?|secondi|s\b)", re.IGNORECASE)
_MESSAGE_BOX = ("//*[contains(@class, 'message')][.//a or .//p or text()]",
                "//div[@id='message']", "//*[contains(@class, 'panel')]")


class ForumotionReplier(Replier):
    name = "forumotion"

    def logged_in(self, page: bytes, account: str) -> bool:
        text = page.decode("utf-8", "replace")
        shown = _USERNAME_JS.search(text)
        if _LOGGED_IN_JS.search(text):
            return shown is None or shown.group(1).casefold() == account.casefold()
        # No _userdata (an old or edited template): the logout link names the member,
        # "Déconnexion [ bot ]" / "Log out [ bot ]".
        root = parse_document_as_browser(page)
        return any(account.casefold() in collapse(link.text_content()).casefold()
                   for link in root.xpath(_LOGOUT))

    def login(self, thread_url: str, credentials: Credentials) -> None:
        base = _topic(thread_url).base
        answer = self.http.post(f"{base}/login", [
            ("username", credentials.account), ("password", credentials.password),
            ("autologin", "on"), ("redirect", ""), ("login", "ok"),
        ])
        if self.logged_in(answer.body, credentials.account):
            return
        # The answer may be a redirect target that is not a member page (a portal): ask again.
        if self.logged_in(self.http.get(f"{base}/").body, credentials.account):
            return
        reason = _forum_words(parse_document_as_browser(answer.body))
        raise LoginError(f"{LABEL}: {urlsplit(base).netloc}: login refused for "
                         f"{credentials.account}" + (f" ({reason})" if reason else ""))

    def reply(self, thread_url: str, text: str) -> Reply:
        topic = _topic(thread_url)
        host = urlsplit(topic.base).netloc
        page = self.http.get(thread_url)
        root = parse_document_as_browser(page.body)
        # Never post as a guest: boards may let guests reply (the session ran out meanwhile).
        if not _LOGGED_IN_JS.search(page.body.decode("utf-8", "replace")) and not root.xpath(_LOGOUT):
            raise SessionExpired(f"{LABEL}: {host}: the session is no longer logged in")
        form = _reply_form(root)
        if form is None:
            raise ForumError(f"{LABEL}: {host}: topic {topic.topic} shows no reply form "
                             "(locked, or the bot may not reply there)")
        fields = _hidden_fields(form)
        fields.update(mode="reply", t=fields.get("t") or topic.topic, message=text, post="1")
        body, headers = encode_form(fields, page_charset(page))  # older boards: ISO-8859-1
        answer = self.http.post(urljoin(page.url, form.get("action") or "/post"), body,
                                headers=headers)
        return self._read_answer(answer.url, answer.body, host)

    def _read_answer(self, url: str, body: bytes, host: str) -> Reply:
        found = _post_link(url)
        if found:  # redirected straight to the new post
            return Reply(found, url)
        root = parse_document_as_browser(body)
        if _HELD.search(_forum_words(root)):  # it exists, in the queue: its id is not shown
            return Reply(None, None, visible=False)
        # Only the confirmation's own link: the page's widgets ("latest topics") link posts too,
        # and an error page must never read as a success.
        for href in root.xpath("//*[contains(@class, 'message')]//a/@href"):
            post_id = _post_link(href)
            if post_id and ("viewtopic" in href or re.search(r"/t\d+", href)):
                return Reply(post_id, urljoin(url, href))
        words = _forum_words(root)
        if _FLOOD.search(words):
            seconds = _SECONDS.search(words)
            raise FloodLimit(f"{LABEL}: {host}: too soon after the last post: {words}",
                             float(seconds.group(1)) if seconds else None)
        if root.xpath("//input[@name='password']"):
            raise SessionExpired(f"{LABEL}: {host}: the session is no longer logged in")
        raise ForumError(f"{LABEL}: {host}: the reply was refused: {words or 'no message'}")


def _topic(thread_url: str) -> TopicUrl:
    topic = split_topic_url(thread_url.split("#", 1)[0])
    if topic is None:
        raise InputError(f"{LABEL}: {thread_url}: not a Forumotion topic URL (/t123-slug)")
    return topic


def _reply_form(root: HtmlElement) -> HtmlElement | None:
    """The quick-reply form: the one holding the hidden `tid` (§1.7), else one posting to /post
    with a message box."""
    for form in root.iter("form"):
        if form.xpath(".//input[@name='tid']"):
            return form
    for form in root.iter("form"):
        if "/post" in (form.get("action") or "") and form.xpath(".//textarea[@name='message']"):
            return form
    return None


def _hidden_fields(form: HtmlElement) -> dict[str, str]:
    return {field.get("name"): field.get("value") or "" for field in
            form.xpath(".//input[@type='hidden' and @name]")}


def _post_link(href: str) -> str | None:
    found = _POST_LINK.search(href)
    return (found.group(1) or found.group(2)) if found else None


def _forum_words(root: HtmlElement) -> str:
    """The forum's message on an answer page (error or notice), one line, short."""
    for path in _MESSAGE_BOX:
        for box in root.xpath(path):
            words = collapse(box.text_content())
            if words:
                return words[:200]
    return ""
