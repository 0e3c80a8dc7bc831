"""Login and reply on Invision boards, as the game's bot: IPB 3.x (FORUMS.md §5.1) and IPS 4.x
(§5.2), told apart by the thread page itself.

- IPB 3: login POSTs index.php?app=core&module=global&section=login&do=process (auth_key,
  ips_username, ips_password, rememberMe); the reply is the fast-reply form
  `#ips_fastReplyForm` (app, module, section, do=reply_post_do, f, t, st, auth_key,
  fast_reply_used, editor field `Post`). Success redirects to the post: …#entryID or
  view=findpost&p=ID.
- IPS 4: login POSTs the /login/ form (csrfKey, auth, password, remember_me,
  _processLogin=usernamepassword); the reply is the comment form `commentform_{id}` posted back
  to the topic (csrfKey, commentform_{id}_submitted=1, _contentReply=1, editor field
  topic_comment_{id}). Success redirects to ?do=findComment&comment=ID (then to #comment-ID).
  A board that signs in only through another site (no password form) cannot be posted to.

Failures come back as the page with an error block. The flood wordings are from the language
packs (§5.1 "передышку в %s секунд", §5.2 "подождите %s секунд"); the English ones and the
error blocks' classes are UNVERIFIED, hence the tolerant phrase lists below.
"""

from __future__ import annotations

import html
import re
from urllib.parse import urljoin, urlsplit

from lxml.html import HtmlElement

from tally.adapters.html import collapse, parse_document_as_browser
from tally.adapters.invision import Invision
from tally.adapters.reply import Credentials, Replier, Reply, encode_form, page_charset
from tally.errors import (
    CannotPostHere,
    FloodLimit,
    ForumError,
    InputError,
    LoginError,
    SessionExpired,
)
from tally.fetch import Response

LABEL = "Invision"
IPB3_LOGIN = "index.php?app=core&module=global&section=login"

_IPS4_MARKS = (b"ipsApp", b"csrfKey", b'data-role="commentContent"', b"data-role='commentContent'")
# IPB 3: ipb.vars['member_id'] = parseInt( 1 ); IPS 4 states memberID in its JS settings.
_MEMBER_ID = re.compile(rb"""member_?id['"]?[\s\]),:=]*(?:parseInt\(\s*)?['"]?(\d+)""", re.I)
_LOGOUT = "//a[contains(@href, 'do=logout') or contains(@href, '/logout')]"
_MEMBER_LINK = "//a[@id='user_link' or @id='elUserLink']"
_BOARD_URL = re.compile(r"""ipb\.vars\['board_url'\]\s*=\s*['"]([^'"]+)['"]""")
# The new post in the final URL of the redirect chain (IPB 3 #entryID / findpost p=ID / pid=ID;
# IPS 4 comment=ID / #comment-ID; Invision Community 5's shareable URL #findComment-ID).
_NEW_POST = re.compile(r"#entry(\d+)|[?&]p=(\d+)|[?&]pid=(\d+)|[?&]comment=(\d+)|#comment-(\d+)"
                       r"|#findComment-(\d+)")
_FLOOD = re.compile(r"передышк|подождите|лимит на отправку|flood|wait\s+\d+\s+seconds|"
                    r"must wait|too soon", re.IGNORECASE)
_SECONDS = re.compile(r"(\d+)\s*(?:секунд|сек\b|seconds?)", re.IGNORECASE)
_ERROR_BLOCKS = ("//*[contains(@class, 'message') and contains(@class, 'error')]",
                 "//*[contains(@class, 'ipsMessage_error')]",
                 "//*[@data-role='commentFormError' or contains(@class, 'ipsType_warning')]",
                 "//*[@id='elError' or @id='elErrorMessage']",
                 "//*[contains(@class, 'error')]")
_INLINE_MESSAGE = re.compile(r"ipb\.templates\['inlineMsg'\]\s*=\s*\"((?:[^\"\\]|\\.)*)\"")
_HELD_WORDS = re.compile(r"премодераци|ожидает утверждения|проверена модератором|"
                         r"approv\w* by a moderator|awaiting approval", re.IGNORECASE)
_LOGIN_WORDS = re.compile(r"войти|вход|войдите|sign in|log in|not logged", re.IGNORECASE)


class InvisionReplier(Replier):
    name = "invision"

    def logged_in(self, page: bytes, account: str) -> bool:
        root = parse_document_as_browser(page)
        names = [collapse(a.text_content()) for a in root.xpath(_MEMBER_LINK)]
        if names:
            return any(account.casefold() == name.casefold() for name in names)
        member = _MEMBER_ID.search(page[:100_000])
        return (member is not None and member.group(1) != b"0") or bool(root.xpath(_LOGOUT))

    def login(self, thread_url: str, credentials: Credentials) -> None:
        host = _host(thread_url)
        page = self.http.get(thread_url)
        if self.logged_in(page.body, credentials.account):
            return
        if _is_ips4(page.body):
            answer = self._login_ips4(thread_url, credentials)
        else:
            answer = self._login_ipb3(thread_url, page, credentials)
        if self.logged_in(answer.body, credentials.account):
            return
        if self.logged_in(self.http.get(thread_url).body, credentials.account):
            return
        words = _error_words(parse_document_as_browser(answer.body))
        raise LoginError(f"{LABEL}: {host}: login refused for {credentials.account}"
                         + (f" ({words})" if words else ""))

    def _login_ipb3(self, thread_url: str, page: Response, credentials: Credentials) -> Response:
        login = self.http.get(urljoin(_ipb3_root(thread_url, page.body), IPB3_LOGIN))
        form = _password_form(parse_document_as_browser(login.body))
        if form is None:
            raise ForumError(f"{LABEL}: {_host(thread_url)}: no login form at {login.url}")
        fields = _hidden_fields(form)
        fields.update(ips_username=credentials.account, ips_password=credentials.password,
                      rememberMe="1")
        action = urljoin(login.url, form.get("action") or f"{IPB3_LOGIN}&do=process")
        body, headers = encode_form(fields, page_charset(login))
        return self.http.post(action, body, headers=headers)

    def _login_ips4(self, thread_url: str, credentials: Credentials) -> Response:
        login = self.http.get(_ips4_root(thread_url) + "login/")
        form = _password_form(parse_document_as_browser(login.body))
        if form is None:
            raise CannotPostHere(f"{LABEL}: {_host(thread_url)}: the board has no username and "
                                 "password login form: cannot post automatically here")
        fields = _hidden_fields(form)
        fields.setdefault("_processLogin", "usernamepassword")
        fields.update(auth=credentials.account, password=credentials.password, remember_me="1")
        body, headers = encode_form(fields, page_charset(login))
        return self.http.post(urljoin(login.url, form.get("action") or login.url), body,
                              headers=headers)

    def reply(self, thread_url: str, text: str) -> Reply:
        host = _host(thread_url)
        page = self.http.get(thread_url)
        root = parse_document_as_browser(page.body)
        member = _MEMBER_ID.search(page.body[:100_000])
        if not ((member and member.group(1) != b"0") or root.xpath(_LOGOUT)
                or root.xpath(_MEMBER_LINK)):
            raise SessionExpired(f"{LABEL}: {host}: the session is no longer logged in")
        topic = _topic_id(thread_url)
        if _is_ips4(page.body):
            form, editor, text = _ips4_form(root, topic), f"topic_comment_{topic}", _ips4_html(text)
        else:
            form, editor = _ipb3_form(root), "Post"
        if form is None:
            raise ForumError(f"{LABEL}: {host}: topic {topic} shows no reply form (closed, or "
                             "the bot may not reply there)")
        fields = _hidden_fields(form)
        fields[editor] = text
        if editor == "Post":
            fields.setdefault("submit", "1")
        action = urljoin(page.url, form.get("action") or page.url)
        body, headers = encode_form(fields, page_charset(page))  # Russian boards: windows-1251
        answer = self.http.post(action, body, headers=headers)
        return _read_answer(answer, action, host)


def _read_answer(answer: Response, action: str, host: str) -> Reply:
    # Success is a redirect to the new post; an answer at the form's own address is the form
    # coming back with an error block.
    found = _NEW_POST.search(answer.url) if answer.url != action else None
    post_id = next(g for g in found.groups() if g) if found else None
    root = parse_document_as_browser(answer.body)
    if answer.url != action and _held(answer.body, root, post_id):
        return Reply(post_id, answer.url if post_id else None, visible=False)
    if post_id:
        return Reply(post_id, answer.url)
    words = _error_words(root)
    if _FLOOD.search(words):
        seconds = _SECONDS.search(words)
        raise FloodLimit(f"{LABEL}: {host}: too soon after the last post: {words}",
                         float(seconds.group(1)) if seconds else None)
    if _password_form(root) is not None or (words and _LOGIN_WORDS.search(words)):
        raise SessionExpired(f"{LABEL}: {host}: the session is no longer logged in")
    raise ForumError(f"{LABEL}: {host}: the reply was refused: {words or 'no post id came back'}")


def _held(page: bytes, root: HtmlElement, post_id: str | None) -> bool:
    """The post went into the moderation queue (the forum's or the member's premoderation).

    IPB 3 redirects to the topic without the post's id (showtopic=T&st=N) and shows its
    'moderate_post' words as the next page's inline message, ipb.templates['inlineMsg']
    (classPost.php, publicOutput.php redirectScreen; ru "Ваше сообщение должно пройти
    премодерацию, прежде чем будет доступно всем.", istvgames-forum lang_cache
    forums_public_post.php; the English wording is UNVERIFIED). IPS 4 redirects to the comment,
    which its author sees marked `ipsModerated` ("Этот комментарий ожидает утверждения
    модератором", dc1911-forum theme.xml and the Russian pack's comment_awaiting_approval)."""
    inline = _INLINE_MESSAGE.search(page[:300_000].decode("utf-8", "replace"))
    if inline and _HELD_WORDS.search(html.unescape(inline.group(1))):
        return True
    if post_id is None:
        return False
    for article in root.xpath(f"//article[@id='elComment_{post_id}']"):
        if "ipsModerated" in (article.get("class") or "").split() or \
                _HELD_WORDS.search(collapse(article.text_content())):
            return True
    return False


def _is_ips4(page: bytes) -> bool:
    head = page[:300_000]
    return any(mark in head for mark in _IPS4_MARKS)


def _ipb3_form(root: HtmlElement) -> HtmlElement | None:
    forms = root.xpath("//form[@id='ips_fastReplyForm']") or root.xpath(
        "//form[.//input[@name='do' and @value='reply_post_do']]")
    return forms[0] if forms else None


def _ips4_form(root: HtmlElement, topic: str) -> HtmlElement | None:
    forms = root.xpath(f"//form[.//input[@name='commentform_{topic}_submitted']]") or root.xpath(
        "//form[.//input[@name='_contentReply']]")
    return forms[0] if forms else None


def _ips4_html(text: str) -> str:
    """The IPS 4 editor field holds HTML: a plain-text count keeps its lines as paragraphs
    (BBCode inside is left to the board's parser). Text already in HTML goes as it is."""
    if text.lstrip().startswith("<"):
        return text
    return "".join(f"<p>{html.escape(line) or '&nbsp;'}</p>" for line in text.split("\n"))


def _password_form(root: HtmlElement) -> HtmlElement | None:
    forms = root.xpath("//form[.//input[@type='password']]")
    return forms[0] if forms else None


def _hidden_fields(form: HtmlElement) -> dict[str, str]:
    return {field.get("name"): field.get("value") or "" for field in
            form.xpath(".//input[@type='hidden' and @name]")}


def _error_words(root: HtmlElement) -> str:
    for path in _ERROR_BLOCKS:
        for block in root.xpath(path):
            words = collapse(block.text_content())
            if words:
                return words[:200]
    return ""


def _topic_id(thread_url: str) -> str:
    try:
        return Invision().thread_key(thread_url).removeprefix("topic=")
    except InputError:
        raise InputError(f"{LABEL}: {thread_url}: not an Invision topic URL") from None


def _host(url: str) -> str:
    return urlsplit(url).netloc


def _ipb3_root(thread_url: str, page: bytes) -> str:
    """The board's root: ipb.vars['board_url'] when the page states it, else the URL's."""
    stated = _BOARD_URL.search(page[:100_000].decode("utf-8", "replace"))
    if stated:
        return stated.group(1).rstrip("/") + "/"
    return _ips4_root(thread_url).replace("index.php?/", "")


def _ips4_root(thread_url: str) -> str:
    """The part of a topic URL before topic/ (keeping index.php?/ on boards without rewriting)."""
    head, marker, _ = thread_url.partition("topic/")
    if marker:
        return head
    return urljoin(thread_url, "./")
