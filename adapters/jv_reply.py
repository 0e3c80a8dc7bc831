"""Reply on jeuxvideo.com (FORUMS.md §3.3, §3.4) with a session the GM supplies.

JV's login form carries a captcha in practice, so tally does not log in there: `login` succeeds
only when the session already shows the bot connected (a cookie the GM copied from a browser),
else it says that no automatic post is possible. `reply` reads the topic page's
`forumsAppPayload` (formSession, ajaxToken, topicId, forumId; decoded by the reading adapter)
and sends the multipart POST /forums/message/add the site's own script sends (text, topicId,
forumId, group=1, messageId=undefined, every fs_* key, ajax_hash). The JSON answer holds
`messageId`/`id` or `redirectUrl` (…#post_ID) on success, an `erreur`/`errors` list otherwise.

A Cloudflare challenge (`cf-mitigated` header, "Just a moment..." page) or a Turnstile captcha
(`.js-captcha`) means a human must post: CannotPostHere. JV's flood wording is UNVERIFIED
(§3.4: only "Vous postez trop vite." in a synthetic test), so it is matched loosely.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import urljoin

from tally.adapters.html import collapse, parse_document_as_browser
from tally.adapters.jv import JV, read_payload
from tally.adapters.reply import Credentials, Replier, Reply
from tally.errors import (
    CannotPostHere,
    Challenged,
    FloodLimit,
    ForumError,
    InputError,
    SessionExpired,
)
from tally.fetch import Response

LABEL = "jeuxvideo.com"
ADD_MESSAGE = "/forums/message/add"
_TO_PASTE = "cannot post automatically here"  # the run adds where the count is left to paste
LOGIN_NEEDS_CAPTCHA = f"{LABEL}: login needs a captcha: {_TO_PASTE}"
CLOUDFLARE = f"{LABEL}: Cloudflare challenge: {_TO_PASTE}"
CAPTCHA = f"{LABEL}: the forum asks for a captcha: {_TO_PASTE}"

_CHALLENGE_MARKS = (b"just a moment...", b"challenge-platform", b"cf-chl", b"_cf_chl_opt")
# Turnstile inside the posting form (jvchat-fork): a .js-captcha block holding the widget.
_CAPTCHA_WIDGET = ("//*[contains(concat(' ', normalize-space(@class), ' '), ' js-captcha ')]"
                   "[.//*[@data-sitekey or contains(@class, 'turnstile')] or @data-sitekey"
                   " or .//script[contains(@src, 'turnstile')]]")
_LOGOUT = "//a[contains(@href, 'logout') or contains(@href, 'deconnexion')]"
_POST_ANCHOR = re.compile(r"#post_(\d+)")
_FLOOD = re.compile(r"trop vite|patiente|attend|délai|flood", re.IGNORECASE)
_SECONDS = re.compile(r"(\d+)\s*(?:secondes?|sec\b|s\b)", re.IGNORECASE)
_LOGIN_WORDS = re.compile(r"connect|connexion|identifi", re.IGNORECASE)


class JVReplier(Replier):
    name = "jv"
    password_login = False  # the GM supplies the session cookie; tally never logs in here

    def logged_in(self, page: bytes, account: str) -> bool:
        payload, _ = read_payload(page)
        if payload is not None and "isUserConnected" in payload.data:
            return bool(payload.data["isUserConnected"])
        root = parse_document_as_browser(page)
        return any(account.casefold() in collapse(a.text_content()).casefold()
                   or "logout" in (a.get("href") or "") for a in root.xpath(_LOGOUT))

    def login(self, thread_url: str, credentials: Credentials) -> None:
        """Only a session the GM supplied (its cookie) can post: JV's login wants a captcha."""
        page = self._topic_page(thread_url)
        if not self.logged_in(page.body, credentials.account):
            raise CannotPostHere(LOGIN_NEEDS_CAPTCHA)

    def reply(self, thread_url: str, text: str) -> Reply:
        page = self._topic_page(thread_url)
        payload, problem = read_payload(page.body)
        if payload is None:
            raise ForumError(f"{LABEL}: {thread_url}: no forumsAppPayload on the topic page"
                             + (f" ({problem})" if problem else ""))
        data = payload.data
        if not data.get("isUserConnected"):
            raise SessionExpired(f"{LABEL}: the session is no longer connected")
        if parse_document_as_browser(page.body).xpath(_CAPTCHA_WIDGET):
            raise CannotPostHere(CAPTCHA)
        session = data.get("formSession")
        if not isinstance(session, dict) or not data.get("ajaxToken"):
            raise ForumError(f"{LABEL}: {thread_url}: the topic page offers no posting form "
                             "(locked topic, or the account may not post)")
        fields = [("text", text), ("topicId", str(data.get("topicId") or _topic_id(thread_url))),
                  ("forumId", str(data.get("forumId") or "")), ("group", "1"),
                  ("messageId", "undefined"),
                  *((str(key), str(value)) for key, value in session.items()),
                  ("ajax_hash", str(data["ajaxToken"]))]
        try:
            answer = self.http.post(
                urljoin(page.url, ADD_MESSAGE), {},
                files={name: (None, value) for name, value in fields},
                headers={"X-Requested-With": "XMLHttpRequest", "Accept": "application/json"})
        except Challenged:  # the fetcher read Cloudflare's cf-mitigated header (§3.4)
            raise CannotPostHere(CLOUDFLARE) from None
        return _read_answer(answer, page.url)

    def _topic_page(self, thread_url: str) -> Response:
        _topic_id(thread_url)  # a clear error for a URL that is not a JV topic
        try:
            page = self.http.get(thread_url)
        except Challenged:
            raise CannotPostHere(CLOUDFLARE) from None
        if _challenged(page):
            raise CannotPostHere(CLOUDFLARE)
        return page


def _read_answer(answer: Response, topic_url: str) -> Reply:
    if _challenged(answer):
        raise CannotPostHere(CLOUDFLARE)
    try:
        result = json.loads(answer.body.decode("utf-8"))
    except ValueError:
        raise ForumError(f"{LABEL}: HTTP {answer.status}: the answer to the post is not "
                         "JSON; the post may not exist") from None
    if not isinstance(result, dict):
        raise ForumError(f"{LABEL}: an unexpected answer to the post: {str(result)[:100]}")
    errors = _errors(result)
    if errors:
        words = " ".join(errors)[:200]
        if "captcha" in words.casefold():
            raise CannotPostHere(CAPTCHA)
        if _FLOOD.search(words):
            seconds = _SECONDS.search(words)
            raise FloodLimit(f"{LABEL}: too soon after the last post: {words}",
                             float(seconds.group(1)) if seconds else None)
        if _LOGIN_WORDS.search(words):
            raise SessionExpired(f"{LABEL}: the session is no longer connected: {words}")
        raise ForumError(f"{LABEL}: the reply was refused: {words}")
    redirect = str(result.get("redirectUrl") or "")
    anchor = _POST_ANCHOR.search(redirect)
    post_id = str(result.get("messageId") or result.get("id") or (anchor.group(1) if anchor else ""))
    if not post_id:
        raise ForumError(f"{LABEL}: the answer to the post names no message; it may exist")
    url = urljoin(topic_url, redirect) if redirect else urljoin(topic_url, f"/forums/message/{post_id}")
    return Reply(post_id, url)


def _errors(result: dict[str, Any]) -> list[str]:
    """The `erreur` / `errors` list (strings, or objects with a message), flattened."""
    found: list[str] = []
    for key in ("erreur", "errors", "error"):
        value = result.get(key)
        items = value if isinstance(value, list) else [value] if value else []
        for item in items:
            if isinstance(item, dict):
                item = item.get("message") or item.get("text") or json.dumps(item, ensure_ascii=False)
            if item:
                found.append(collapse(str(item)))
    return found


def _challenged(response: Response) -> bool:
    """Cloudflare's answer instead of the site's (§3.4): the cf-mitigated header when the
    fetcher keeps it, else the challenge page's own marks."""
    if any(name.lower() == "cf-mitigated" for name in response.headers):
        return True
    head = response.body[:20_000].lower()
    return any(mark in head for mark in _CHALLENGE_MARKS)


def _topic_id(thread_url: str) -> str:
    try:
        return JV().thread_key(thread_url).split("-")[2]
    except InputError:
        raise InputError(f"{LABEL}: {thread_url}: not a jeuxvideo.com topic URL") from None
