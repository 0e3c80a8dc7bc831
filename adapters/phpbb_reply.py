"""Login and reply on phpBB 3.x and 2.0.x (FORUMS.md §2.1, §2.2), through the posting seam.

    login:  GET ucp.php?mode=login ─► wait ─► POST username, password, autologin, login,
            redirect, sid, creation_time, form_token (every hidden field of the form)
    reply:  GET posting.php?mode=reply&t=T ─► read form_token, creation_time,
            topic_cur_post_id, lastclick (if present) ─► wait ─► POST message, subject, post

The wait: phpBB's check_form_key rejects a form submitted in the same second it was made (the
difference must be non-zero) and one older than form_token_lifetime (7200 s); the form is
submitted a little over a second after it arrived, so the forum's clock has moved on.

What the answer to the reply says (phpBB 3.3 language/en):
- "This message has been posted successfully." with a refresh to viewtopic.php?p=ID#pID: the id;
- FLOOD_ERROR "You cannot make another post so soon after your last.": FloodLimit;
- "Post review": someone posted since the form was made (topic_cur_post_id). Nothing was
  posted; the count may be stale, so the replier does not resubmit it: it raises ThreadMovedOn
  and the run counts again with the new posts, then replies with a fresh count;
- the login box: the session expired (SessionExpired; the run logs in once and retries);
- FORM_INVALID, or any other error box: ForumError quoting it.

phpBB 2 (subSilver, §2.2) has no ucp.php: login.php takes username, password, autologin and
login; the reply form (name="post") carries the session id as a hidden `sid`, no form token (so
no wait) and no post review. Its answers: "Your message has been entered successfully." with a
refresh to viewtopic.php?p=ID#ID; Flood_Error "You cannot make another post so soon after your
last; please try again in a short while."; Session_invalid "Invalid Session. Please resubmit the
form." (the session changed: logged in again once). Both send forms in the page's charset, as a
browser does: phpBB 2 boards often serve ISO-8859-1.

Never in a message or a log: the password, a cookie, or a URL's sid.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

import lxml.html
from lxml.html import HtmlElement

from tally.adapters.html import block_text, collapse, parse_document_as_browser
from tally.adapters.phpbb import split_topic_url
from tally.adapters.reply import Credentials, Replier, Reply, encode_form, page_charset
from tally.errors import (
    CannotPostHere,
    FloodLimit,
    ForumError,
    LoginError,
    SessionExpired,
    ThreadMovedOn,
)
from tally.fetch import Response

FORM_WAIT = 1.1  # seconds between receiving a form and submitting it (same-second rejection)

_FLOOD = re.compile(r"You cannot make another post so soon after your last", re.IGNORECASE)
_REVIEW = re.compile(r"At least one new post has been made to this topic|Post review",
                     re.IGNORECASE)
# POST_STORED (3.x) and Stored (2.0), in the packs a board may run: en, es, fr, ru.
_POSTED = re.compile(r"This message has been posted successfully|Your message has been entered "
                     r"successfully|ha sido publicado correctamente|a été publié"
                     r"|Сообщение было успешно отправлено\.", re.IGNORECASE)
# POST_STORED_MOD (3.x; 2.0 has no approval queue): the post exists but waits for a moderator.
# en phpbb/phpbb language/en/posting.php; es "El mensaje ha sido guardado pero requiere
# aprobación." (Aeronaut/carpe-viam.org language/es/posting.php); fr "… doit être approuvé par
# un modérateur afin d'être visible publiquement." (qiaeru/phpbb-language-fr); ru "… должно быть
# одобрено модератором до того, как будет отображено на конференции." (reactos/web
# forum/language/ru/posting.php). Checked before _POSTED: "submitted successfully" and
# "успешно отправлено" begin these sentences too.
_HELD = re.compile(r"will need to be approved by a moderator|pero requiere aprobaci[oó]n"
                   r"|approuvé par un modérateur|одобрено модератором", re.IGNORECASE)
_SESSION_INVALID = re.compile(r"Invalid Session\. Please resubmit the form", re.IGNORECASE)
_POST_LINK = re.compile(r"viewtopic\.php\?(?:[^\"'<>\s]*?&(?:amp;)?)?p=(\d+)")
_CAPTCHA = re.compile(rb"g-recaptcha|h-captcha|cf-turnstile|name=\"confirm_code\"|"
                      rb"class=\"captcha", re.IGNORECASE)
_BUTTONS = frozenset(("preview", "save", "load", "cancel", "delete", "full_editor",
                      "add_file", "addfile", "refresh_vc"))


class PhpBBReplier(Replier):
    name = "phpbb"

    def __init__(self, http, sleep: Callable[[float], None] | None = None) -> None:  # type: ignore[no-untyped-def]
        super().__init__(http)
        # The form-age wait goes through the Http's clock (tally.fetch.Clock), so a test's fake
        # clock, shared with its fake board, makes it instant.
        self.sleep = sleep or getattr(http, "sleep", None) or time.sleep

    # -- the seam ------------------------------------------------------------------------------

    def logged_in(self, page: bytes, account: str) -> bool:
        """A logged-in phpBB page links ucp.php?mode=logout (phpBB 2: login.php?logout=true);
        the header names the account (3.1+ li#username_logged_in, 3.0 "Logout [ name ]",
        2.0 "Log out [ name ]"). A template that names it nowhere is taken at its logout link."""
        if b"mode=logout" not in page and b"logout=true" not in page:
            return False
        root = _html(page)
        wanted = account.casefold()
        header = next((el for el in root.iter("li", "div") if el.get("id") ==
                       "username_logged_in"), None)
        if header is not None:
            return wanted in " ".join(header.text_content().split()).casefold()
        logouts = [a for a in root.iter("a") if _is_logout(a.get("href") or "")]
        named = [a for a in logouts if "[" in a.text_content()]
        if named:
            return any(wanted in a.text_content().casefold() for a in named)
        return bool(logouts)

    def login(self, thread_url: str, credentials: Credentials) -> None:
        host = _host(thread_url)
        page = self._login_page(thread_url)
        if self.logged_in(page.body, credentials.account):
            return
        if _CAPTCHA.search(page.body):
            raise CannotPostHere(f"{host}: the login form asks for a captcha: cannot log in "
                                 "automatically")
        root = _html(page.body)
        form = _form(root, "login")
        if form is None:
            form = _form_with(root, "password")
        if form is None:
            raise ForumError(f"{host}: no login form at {_public(page.url)}")
        fields = _fields(form)
        fields.update({"username": credentials.account, "password": credentials.password,
                       "autologin": "on", "login": "Login"})
        if "creation_time" in fields:
            self.sleep(FORM_WAIT)  # check_form_key('login'): not in the form's own second
        body, headers = encode_form(fields, page_charset(page))
        answer = self.http.post(_action(form, page.url), data=body, headers=headers)
        _check_status(answer, host, "logging in")
        if self.logged_in(answer.body, credentials.account):
            return
        if _CAPTCHA.search(answer.body):
            raise CannotPostHere(f"{host}: the forum asks for a captcha at login: cannot log in "
                                 "automatically")
        why = _error_text(_html(answer.body)) or "no reason given"
        raise LoginError(f"{host}: the forum refused the login of {credentials.account}: {why}")

    def reply(self, thread_url: str, text: str) -> Reply:
        host = _host(thread_url)
        topic = split_topic_url(thread_url)
        if topic is None or not topic.get("t"):
            raise ForumError(f"{host}: {_public(thread_url)}: a reply needs the topic id (t=)")
        query = [("mode", "reply")] + [(k, topic.get(k) or "") for k in ("f", "t") if topic.get(k)]
        page = self.http.get(urljoin(_board(thread_url), "posting.php?" + urlencode(query)))
        _check_status(page, host, "opening the reply form")
        root = _html(page.body)
        form = _form(root, "postform")
        if form is None:
            form = _form(root, "post")  # phpBB 2's reply form has only a name
        if form is None:
            raise self._no_form(root, page.body, host, topic.get("t") or "")
        fields = _fields(form)
        fields["message"] = text
        fields["post"] = "Submit"
        if "creation_time" in fields:
            self.sleep(FORM_WAIT)  # check_form_key('posting'): the same second is rejected
        body, headers = encode_form(fields, page_charset(page))
        answer = self.http.post(_action(form, page.url), data=body, headers=headers)
        _check_status(answer, host, "posting")
        return self._read_answer(answer, host)

    def _login_page(self, thread_url: str) -> Response:
        """ucp.php?mode=login (3.x), else login.php (2.0, which has no ucp.php)."""
        board = _board(thread_url)
        try:
            return self.http.get(urljoin(board, "ucp.php?mode=login"))
        except ForumError as missing:
            try:
                return self.http.get(urljoin(board, "login.php"))
            except ForumError:
                raise missing from None

    # -- reading the forum's answers -----------------------------------------------------------

    def _no_form(self, root: HtmlElement, body: bytes, host: str, topic: str) -> ForumError:
        if _form_with(root, "password") is not None:
            return SessionExpired(f"{host}: the bot's session expired (the reply form asks to "
                                  "log in)")
        if _CAPTCHA.search(body):
            return CannotPostHere(f"{host}: the reply form asks for a captcha: cannot post "
                                  "automatically")
        why = _error_text(root) or "no reply form"
        return ForumError(f"{host}: cannot reply to topic {topic}: {why}")

    def _read_answer(self, answer: Response, host: str) -> Reply:
        text = answer.body.decode("utf-8", "replace")
        root = _html(answer.body)
        if _HELD.search(_message_text(root)):
            # trigger_error(POST_STORED_MOD) with a refresh to the topic (no post id: the post
            # is not in the topic for the bot, phpBB includes/functions_posting.php submit_post)
            return Reply(_post_id_in(answer.url) or _refresh_post_id(root), None, visible=False)
        if _POSTED.search(_message_text(root)) or _post_id_in(answer.url):
            post_id = _post_id_in(answer.url) or _refresh_post_id(root) or _link_post_id(text)
            url = None
            if post_id:
                url = urljoin(answer.url, f"viewtopic.php?p={post_id}#p{post_id}")
            return Reply(post_id, _public(url) if url else None)
        if _FLOOD.search(text):
            raise FloodLimit(f"{host}: the forum refused the post: You cannot make another post "
                             "so soon after your last (flood limit); nothing was posted")
        if _SESSION_INVALID.search(text):
            raise SessionExpired(f"{host}: the forum no longer takes the bot's session (Invalid "
                                 "Session); nothing was posted")
        if _REVIEW.search(text):
            raise ThreadMovedOn(f"{host}: new posts arrived while replying (post review); "
                                "nothing was posted")
        if _form_with(root, "password") is not None and _form(root, "postform") is None:
            raise SessionExpired(f"{host}: the bot's session expired while posting")
        if _CAPTCHA.search(answer.body):
            raise CannotPostHere(f"{host}: the forum asks for a captcha to post: cannot post "
                                 "automatically")
        why = _error_text(root) or "no confirmation in the answer"
        raise ForumError(f"{host}: the forum did not take the post: {why}")


# ---------------------------------------------------------------------------------------------
# Forms and pages


def _html(body: bytes) -> HtmlElement:
    """The page decoded as a browser does (its declared charset, UTF-8 by default): the answer's
    words are matched in the board's language."""
    try:
        return parse_document_as_browser(body or b"<html></html>")
    except (ValueError, lxml.etree.ParserError):
        return lxml.html.fromstring(b"<html></html>")


def _form(root: HtmlElement, form_id: str) -> HtmlElement | None:
    for form in root.iter("form"):
        if form.get("id") == form_id or form.get("name") == form_id:
            return form
    return None


def _form_with(root: HtmlElement, input_type: str) -> HtmlElement | None:
    for form in root.iter("form"):
        if any((i.get("type") or "").lower() == input_type for i in form.iter("input")):
            return form
    return None


def _fields(form: HtmlElement) -> dict[str, str]:
    """Hidden fields, text fields and ticked boxes, as a browser would send them (no buttons)."""
    fields: dict[str, str] = {}
    for field in form.iter("input", "textarea"):
        name = field.get("name")
        if not name or name in _BUTTONS:
            continue
        kind = (field.get("type") or "text").lower()
        if field.tag == "textarea":
            fields[name] = field.text or ""
        elif kind in ("hidden", "text"):
            fields[name] = field.get("value") or ""
        elif kind in ("checkbox", "radio") and field.get("checked") is not None:
            fields[name] = field.get("value") or "on"
    return fields


def _action(form: HtmlElement, page_url: str) -> str:
    return urljoin(page_url, (form.get("action") or "").replace("&amp;", "&"))


def _error_text(root: HtmlElement) -> str:
    """phpBB's error boxes: p.error / div.error (forms), the message panel (trigger_error)."""
    for element in root.iter("p", "div", "dd"):
        if "error" in (element.get("class") or "").split():
            text = " ".join((element.text_content() or "").split())
            if text:
                return text[:200]
    message = root.find(".//div[@id='message']")
    if message is not None:
        return collapse(block_text(message))[:200]  # "Information" heading, then the words
    for table in root.iter("table"):  # phpBB 2's message_die box: table.forumline span.gen
        if "forumline" in (table.get("class") or "").split():
            for span in table.iter("span"):
                text = collapse(block_text(span))  # its lines are <br />-separated
                if text and "gen" in (span.get("class") or "").split():
                    return text[:200]
    return ""


def _message_text(root: HtmlElement) -> str:
    """The words of an answer page: prosilver's message panel (trigger_error), else the page."""
    message = root.find(".//div[@id='message']")
    return collapse(block_text(message if message is not None else root))


def _is_logout(href: str) -> bool:
    return "mode=logout" in href or "logout=true" in href


def _refresh_post_id(root: HtmlElement) -> str | None:
    for meta in root.iter("meta"):
        if (meta.get("http-equiv") or "").lower() == "refresh":
            found = _POST_LINK.search(meta.get("content") or "")
            if found:
                return found.group(1)
    return None


def _link_post_id(text: str) -> str | None:
    found = _POST_LINK.search(text)
    return found.group(1) if found else None


def _post_id_in(url: str) -> str | None:
    parts = urlsplit(url)
    if "viewtopic" not in parts.path:
        return None
    value = dict(parse_qsl(parts.query)).get("p")
    return value if value and value.isdigit() else None


def _check_status(response: Response, host: str, doing: str) -> None:
    if response.status >= 400:
        raise ForumError(f"{host}: HTTP {response.status} while {doing}")


def _board(thread_url: str) -> str:
    """The board's folder (where viewtopic.php, ucp.php and posting.php live)."""
    return urljoin(thread_url, "./")


def _host(url: str) -> str:
    return urlsplit(url).hostname or url


def _public(url: str) -> str:
    """The URL without a session id (§2.4: phpBB appends sid= when cookies do not stick)."""
    parts = urlsplit(url)
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "sid"]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))
