"""Login and fast reply on Discuz! X boards (FORUMS.md §4.3), as the game's bot.

Login: the form of member.php?mod=logging&action=login (formhash, referer, username, password,
questionid, answer, loginsubmit). Reply: the thread page's fast-reply form `#fastpostform`
(formhash, posttime, usesig, subject) POSTed to its action with `inajax=1`, so the answer is a
small XML document whose CDATA calls succeedhandle_fastpost(url, words, {'pid':'ID', …}) or
errorhandle_fastpost(words, …).

GBK/BIG5 boards (§4.4): a browser sends a form in the page's charset, and Discuz reads it so:
the form is encoded in the charset the page declares (characters outside it become numeric
references, which Discuz keeps), and every answer is decoded by the charset it declares.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit

from lxml.html import HtmlElement

from tally import times
from tally.adapters.discuz import Discuz
from tally.adapters.html import (
    browser_codec,
    collapse,
    parse_document_as_browser,
)
from tally.adapters.reply import (
    Credentials,
    Replier,
    Reply,
    encode_form,
    page_charset,
)
from tally.errors import FloodLimit, ForumError, InputError, LoginError, SessionExpired
from tally.fetch import Response

LABEL = "Discuz!"
LOGIN_PAGE = "member.php?mod=logging&action=login"

_UID = re.compile(r"""discuz_uid\s*=\s*['"](\d+)['"]""")
_LOGOUT = "//a[contains(@href, 'action=logout')]"
_MEMBER_NAME = "//*[contains(@class, 'vwmy')]//a"  # the header's "欢迎 bot" link
_JS_FID = re.compile(r"""\bfid\s*=\s*parseInt\(\s*['"](\d+)['"]""")
_CDATA = re.compile(r"<!\[CDATA\[(.*?)\]\]>", re.DOTALL)
_JS_STRING = r"'((?:[^'\\]|\\.)*)'"
_SUCCEED = re.compile(rf"succeedhandle_\w+\(\s*{_JS_STRING}\s*,\s*{_JS_STRING}\s*,\s*\{{(.*?)\}}")
_ERROR = re.compile(rf"errorhandle_\w+\(\s*{_JS_STRING}")
_JS_PARAM = re.compile(r"""['"]?(\w+)['"]?\s*:\s*['"]?([^'",}]*)""")
_PID_IN_URL = re.compile(r"[?&#]pid=?(\d+)|#pid(\d+)")
_TAGS = re.compile(r"<[^>]+>")
# lang_message.php wording (§4.3); 審核/間隔/時 are the BIG5 packs' forms.
_FLOOD = re.compile(r"间隔少于\s*(\d+)\s*秒|間隔少於\s*(\d+)\s*秒")
_HOURLY = re.compile(r"每小[时時]限制")
_MODERATED = re.compile(r"需要[审審][核覈]")
_LOGIN_WORDS = re.compile(r"登录|登錄|登陆")
_LOGIN_OK = re.compile(r"欢迎您回来|歡迎您回來")


class DiscuzReplier(Replier):
    name = "discuz"

    def logged_in(self, page: bytes, account: str) -> bool:
        root = parse_document_as_browser(page)
        text = page[:20_000].decode("latin-1")  # the discuz_uid line is ASCII, in the head
        uid = _UID.search(text)
        member = (uid is not None and uid.group(1) != "0") or bool(root.xpath(_LOGOUT))
        names = [collapse(a.text_content()) for a in root.xpath(_MEMBER_NAME)]
        # Usernames cannot contain spaces (§4.4), so the header link is the name itself.
        return member and (not names or account.casefold() in (n.casefold() for n in names))

    def login(self, thread_url: str, credentials: Credentials) -> None:
        host = urlsplit(thread_url).netloc
        page = self.http.get(urljoin(thread_url, LOGIN_PAGE))
        root = parse_document_as_browser(page.body)
        form = next((f for f in root.iter("form") if f.xpath(".//input[@name='password']")), None)
        if form is None:
            if self.logged_in(page.body, credentials.account):
                return
            raise ForumError(f"{LABEL}: {host}: no login form at {LOGIN_PAGE}")
        fields = _hidden_fields(form)
        fields.update(username=credentials.account, password=credentials.password,
                      questionid=fields.get("questionid") or "0", answer="",
                      loginsubmit="true")
        action = urljoin(page.url, form.get("action") or f"{LOGIN_PAGE}&loginsubmit=yes")
        body, headers = encode_form(fields, page_charset(page))
        answer = self.http.post(action, body, headers=headers)
        words = _answer_words(answer)
        if _LOGIN_OK.search(words) or self.logged_in(answer.body, credentials.account):
            return
        if self.logged_in(self.http.get(thread_url).body, credentials.account):
            return
        raise LoginError(f"{LABEL}: {host}: login refused for {credentials.account}"
                         + (f" ({words})" if words else ""))

    def reply(self, thread_url: str, text: str) -> Reply:
        host = urlsplit(thread_url).netloc
        page = self.http.get(thread_url)
        root = parse_document_as_browser(page.body)
        uid = _UID.search(page.body[:20_000].decode("latin-1"))
        if not ((uid and uid.group(1) != "0") or root.xpath(_LOGOUT)):
            raise SessionExpired(f"{LABEL}: {host}: the session is no longer logged in")
        action, fields = self._fast_reply_form(root, page, thread_url)
        fields.update(message=text, replysubmit="true")
        fields.setdefault("usesig", "1")
        fields.setdefault("subject", "  ")
        if not fields.get("posttime"):
            fields["posttime"] = str(int(times.now().timestamp()))
        body, headers = encode_form(fields, page_charset(page))
        answer = self.http.post(_with_query(action, inajax="1", handlekey="fastpost"), body,
                                headers=headers)
        return _read_answer(answer, host)

    def _fast_reply_form(self, root: HtmlElement, page: Response,
                         thread_url: str) -> tuple[str, dict[str, str]]:
        """The fast-reply form's action and hidden fields; built from formhash, fid and tid
        when the theme has no #fastpostform (fast reply off, a custom template)."""
        host = urlsplit(thread_url).netloc
        form = next(iter(root.xpath("//form[@id='fastpostform']")), None)
        if form is not None and form.get("action"):
            return urljoin(page.url, form.get("action")), _hidden_fields(form)
        formhash = root.xpath("//input[@name='formhash']/@value")
        tid = _thread_id(thread_url)
        fid = _JS_FID.search(page.body[:200_000].decode("latin-1"))
        if not formhash or fid is None:
            raise ForumError(f"{LABEL}: {host}: thread {tid} shows no reply form (closed, or the "
                             "bot may not reply there)")
        action = urljoin(page.url, f"forum.php?mod=post&action=reply&fid={fid.group(1)}&tid={tid}"
                                   "&extra=&replysubmit=yes")
        return action, {"formhash": str(formhash[0])}


def _read_answer(answer: Response, host: str) -> Reply:
    """succeedhandle_… -> the post id (visible=False when it waits for a moderator: the post
    exists, so it is not an error, and it must not be sent again);
    errorhandle_… -> FloodLimit, SessionExpired or ForumError with the forum's words."""
    text = _decoded(answer)
    succeeded = _SUCCEED.search(text)
    if succeeded:
        url, words, params = succeeded.groups()
        values = dict(_JS_PARAM.findall(params))
        pid = values.get("pid") or _pid_in(url)
        words = _plain(words)
        address = urljoin(answer.url, url.replace("\\/", "/")) if url else None
        return Reply(pid or None, address, visible=not _MODERATED.search(words))
    failed = _ERROR.search(text)
    words = _plain(failed.group(1)) if failed else _answer_words(answer)
    if not failed and "回复发布成功" in words:  # a plain message page (inajax ignored)
        pid = _pid_in(text)
        if pid:
            return Reply(pid, None)
    flood = _FLOOD.search(words)
    if flood:
        raise FloodLimit(f"{LABEL}: {host}: too soon after the last post: {words}",
                         float(flood.group(1) or flood.group(2)))
    if _HOURLY.search(words):
        raise ForumError(f"{LABEL}: {host}: the forum's hourly limit on replies: {words}")
    if _MODERATED.search(words):  # a plain message page: the post exists, its id unsaid
        return Reply(_pid_in(text), None, visible=False)
    if _LOGIN_WORDS.search(words):
        raise SessionExpired(f"{LABEL}: {host}: the session is no longer logged in: {words}")
    raise ForumError(f"{LABEL}: {host}: the reply was refused: {words or 'no message'}")


def _decoded(response: Response) -> str:
    try:
        return response.body.decode(browser_codec(page_charset(response)), "replace")
    except LookupError:  # a label Python does not know: Discuz's own default
        return response.body.decode("utf-8", "replace")


def _answer_words(response: Response) -> str:
    """The forum's words in an answer: the inajax CDATA, or the message page's #messagetext."""
    text = _decoded(response)
    cdata = _CDATA.search(text)
    if cdata:
        failed, succeeded = _ERROR.search(cdata.group(1)), _SUCCEED.search(cdata.group(1))
        if failed:
            return _plain(failed.group(1))
        return _plain(succeeded.group(2) if succeeded else cdata.group(1))
    root = parse_document_as_browser(response.body)
    for box in root.xpath("//div[@id='messagetext']//p | //div[@id='messagetext'] | "
                          "//*[contains(@class, 'alert_error')]"):
        words = collapse(box.text_content())
        if words:
            return words[:200]
    return ""


def _hidden_fields(form: HtmlElement) -> dict[str, str]:
    return {field.get("name"): field.get("value") or "" for field in
            form.xpath(".//input[@type='hidden' and @name]")}


def _with_query(url: str, **extra: str) -> str:
    parts = urlsplit(url)
    query: Sequence[tuple[str, str]] = parse_qsl(parts.query, keep_blank_values=True)
    present = {name for name, _ in query}
    added = [(name, value) for name, value in extra.items() if name not in present]
    return parts._replace(query=urlencode([*query, *added])).geturl()


def _thread_id(thread_url: str) -> str:
    try:
        return Discuz().thread_key(thread_url).removeprefix("tid=")
    except InputError:
        raise InputError(f"{LABEL}: {thread_url}: not a Discuz! thread URL") from None


def _pid_in(text: str) -> str | None:
    found = _PID_IN_URL.search(text)
    return (found.group(1) or found.group(2)) if found else None


def _plain(words: str) -> str:
    """A JS string's words on one line: tags gone, escapes undone."""
    return collapse(_TAGS.sub(" ", words.replace("\\'", "'").replace("\\n", " ")))[:200]
