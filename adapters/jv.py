"""jeuxvideo.com forum topics (FORUMS.md §3), where the Kira game is played.

Three markups are read, most robust first:

1. the 2026 front-end's embedded JSON, `window.jvc.forumsAppPayload="…"` (decoded by
   adapters/jv_payload.py): `listMessage`, `pagerView`, `topicId` (§3.3);
2. the 2026 HTML, `div.messageUser#message-{id}`, when a page carries no payload (§3.3);
3. the legacy "respeed" HTML, `div.bloc-message-forum[data-id]` (≈2015 → spring 2026, §3.2).

JV shows Paris wall time without any zone marker, with seconds ("02 juin 2026 à 22:25:06").

One reader per front-end: the payload is read from its JSON, each HTML through one parse of the
page and compiled queries, its differences (class names, where the id is, the pager) as data
(`Markup`: `MARKUP_2026`, `MARKUP_RESPEED`). Beside a payload the HTML is a canary (§3.3: the
payload is trusted): which messages it shows, always, and what each shows (time, author) for
the first and last message of the page, or for every message with `--strict`
(`PageContext.strict`). What sits between the messages and is not one (ad slots, placeholders of
deleted or hidden messages, login prompts) is skipped and named in `Page.notes`; a message that
cannot be read stops the count (exit 4). How each markup gives one message, its body and its
shown time, and what beside the messages is not one, is adapters/jv_messages.py; the payload's
decoding is adapters/jv_payload.py; this module is the engine: URLs, pages, the canary, the pager.

Positions are per view: JV numbers nothing, so a post's position is its place in the page
(`(page - 1) * 20 + index + 1`). Deleted messages vanish for normal users and the 20-message
windows shift (§3.4), so the same post can have another position in a moderator's view or after
a deletion: ids, never positions, identify posts.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar
from urllib.parse import urljoin, urlsplit, urlunsplit

from lxml import etree
from lxml.html import HtmlElement

from tally import times
from tally.adapters import dates
from tally.adapters.base import Engine, PageContext
from tally.adapters.html import (
    closes_document,
    collapse,
    first_id,
    text_of,
)
from tally.adapters.jv_messages import (
    _EDIT_TEXT,
    MARKUPS,
    HtmlMessages,
    Message,
    _fragments,
    _from_html,
    _from_payload_item,
    _parse,
    _payload_items,
    _text,
    full_date,
    html_messages,
    read_body,
    read_shown_time,
)
from tally.adapters.jv_payload import FORUM_LIST, Payload, read_payload
from tally.errors import ForumError, TruncatedPage
from tally.model import Body, EditMarker, Page, Post, msg

SITE = "https://www.jeuxvideo.com"

# ---------------------------------------------------------------------------------------------
# URLs (FORUMS.md §3.1): /forums/{mode}-{forumId}-{topicId}-{page}-0-1-0-{slug}.htm, mode 42
# (or 1 for old topics, whose ids are another numbering: the mode is part of the key).

_TOPIC_PATH = re.compile(r"^/forums/(1|42)-(\d+)-(\d+)-(\d+)-(\d+-\d+-\d+-[^/]*\.htm)$")


def _topic(url: str) -> re.Match[str] | None:
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if host != "jeuxvideo.com" and not host.endswith(".jeuxvideo.com"):
        return None
    return _TOPIC_PATH.match(parts.path)


# ---------------------------------------------------------------------------------------------
# Page-level markers (FORUMS.md §3.1, §3.4).

# Cloudflare's interstitial (§3.4). Its title and `_cf_chl_opt` only appear on the challenge
# itself; "challenge-platform" is also in the bot-detection script Cloudflare injects into normal
# pages, so it only counts on a page without any message.
_CLOUDFLARE_TITLE = re.compile(rb"<title>\s*Just a moment\.\.\.\s*</title>", re.IGNORECASE)
_CLOUDFLARE_WORDS = b"just a moment..."  # in any page the title regex matches, once lowercased
_CLOUDFLARE_MARKS = (b"_cf_chl_opt", b'id="challenge-form"')  # looked for where no message is
_CLOUDFLARE_SCRIPT = re.compile(rb"challenge-platform|cf-chl-", re.IGNORECASE)
_CHALLENGE = ("Cloudflare challenge \"Just a moment...\"; open the topic in a browser and save "
              "the page, or retry later")
_REFRESH_HOME = re.compile(
    rb"<meta[^>]+http-equiv=[\"']?refresh[^>]+url=['\"]?(?:https?://(?:www\.)?jeuxvideo\.com)?"
    rb"/forums\.htm", re.IGNORECASE)
_REFRESH_WORD = b"refresh"  # in any page _REFRESH_HOME matches, once lowercased
_LOOKS_LIKE = re.compile(
    rb"forumsAppPayload|bloc-message-forum|messageUser__msg|jeuxvideo\.com/forums/", re.IGNORECASE)
_TITLE_TAIL = re.compile(r"\s+sur le forum .*$|\s+-\s+jeuxvideo\.com$")


def title_of(title: str) -> str | None:
    """The topic's title in the page's <title> (collapsed), without the site's tail."""
    return _TITLE_TAIL.sub("", title) or None

# ---------------------------------------------------------------------------------------------
# JvCare links (FORUMS.md §3.4, §3.3): guests get <span class="JvCare {hex} …"> instead of
# <a href>; the URL is hex pairs over the alphabet below (TopicLive jvCake).

_JVCARE_ALPHABET = "0A12B34C56D78E9F"
_JVCARE_DIGITS = frozenset(_JVCARE_ALPHABET)
_JVCARE_TO_HEX = str.maketrans(_JVCARE_ALPHABET, "0123456789abcdef")


def decode_jvcare(classes: str) -> str | None:
    """The URL hidden in a JvCare class list, or None when there is none."""
    tokens = classes.split()
    if "JvCare" not in tokens or tokens.index("JvCare") + 1 >= len(tokens):
        return None
    code = tokens[tokens.index("JvCare") + 1]
    if len(code) % 2 or not _JVCARE_DIGITS.issuperset(code):
        return None
    # Each pair is one byte, the alphabet's positions being its hex digits; byte n is chr(n).
    return bytes.fromhex(code.translate(_JVCARE_TO_HEX)).decode("latin-1")


def link_of(element: HtmlElement) -> str | None:
    """An element's target: its href, or the URL its JvCare class hides."""
    return element.get("href") or decode_jvcare(element.get("class") or "")


# ---------------------------------------------------------------------------------------------
# A payload beside its HTML (§3.3), and the canary (issue 15): the HTML says the same.


@dataclass(frozen=True, slots=True)
class PayloadReading:
    messages: list[Message]
    page: list[str]  # page notes: messages only one of them shows
    posts: dict[str, list[str]]  # post id -> what the HTML shows otherwise


def read_beside_html(items: list[dict[str, Any]], html: HtmlMessages,
                     strict: bool) -> PayloadReading:
    """The payload's messages, their bodies read once: from the page's own copy of a message
    where the HTML shows it (the same markup as `renderedText`, already parsed), else from
    `renderedText`. The canary: which messages each shows, always (ids are attributes: cheap);
    for the first and last message shown in both, or for each with `strict`, the payload's
    `renderedText` is read too and the HTML's time, author and text compared with the
    payload's: where they differ the payload is used, and the post says so."""
    markup = html.markup
    shown = {markup.id_of(div): div for div in html.divs} if markup else {}
    ids = [str(item["id"]) for item in items]
    page: list[str] = []
    if shown and set(ids) != set(shown):
        only_payload = [i for i in ids if i not in shown]
        only_html = [i for i in shown if i not in set(ids)]
        page.append(msg("payload and HTML disagree on the posts (payload only: {payload}; HTML "
                        "only: {html}); the payload is trusted",
                        payload=", ".join(only_payload) or msg("none"),
                        html=", ".join(only_html) or msg("none")))
    parts = {i: markup.find_parts(shown[i]) for i in ids if i in shown} if markup else {}
    both = [i for i in ids if "text" in parts.get(i, {})]
    checked = set(both if strict else both[:1] + both[-1:])
    unread = [item for item in items if str(item["id"]) not in both or str(item["id"]) in checked]
    fragments = dict(zip([str(item["id"]) for item in unread],
                         _fragments([str(item.get("renderedText") or "") for item in unread]),
                         strict=True))
    messages: list[Message] = []
    posts: dict[str, list[str]] = {}
    for item, message_id in zip(items, ids, strict=True):
        of_html = parts.get(message_id, {})
        text = of_html.get("text")
        body = read_body(fragments[message_id]) if message_id in fragments else None
        shown_body = read_body(text) if text is not None and (body is None or
                                                              message_id in checked) else None
        message = _from_payload_item(item, body or shown_body)  # type: ignore[arg-type]
        messages.append(message)
        if message_id in checked:
            notes = _disagreements(message, of_html, shown_body)
            if notes:
                posts[message_id] = notes
    return PayloadReading(messages, page, posts)


def _disagreements(message: Message, parts: dict[str, HtmlElement], shown_body: Body | None
                   ) -> list[str]:
    """What the HTML shows of a message otherwise than the payload (the canary's findings)."""
    notes: list[str] = []
    time_text = _text(parts.get("date"))
    if time_text and time_text != message.time_text:
        notes.append(msg("the page shows '{shown}' where the payload says '{payload}'; the "
                         "payload is used", shown=time_text, payload=message.time_text))
    author = _text(parts.get("author"))
    if author and author != message.author:
        notes.append(msg("the page shows the author '{shown}' where the payload says "
                         "'{payload}'; the payload is used", shown=author, payload=message.author))
    if shown_body is not None and shown_body != message.body:
        notes.append(msg("the page shows the text '{shown}' where the payload says '{payload}'; "
                         "the payload is used", shown=shown_body.own[:80],
                         payload=message.body.own[:80]))
    return notes


def _holds_messages(data: bytes) -> bool:
    """Whether the page holds a message marker of either markup: a challenge page holds none,
    and on a topic page a member quoting a challenge's mark is not a challenge. On a topic page
    the search stops at the first message, where the challenge marks' would read it all."""
    return any(markup.marker in data for markup in MARKUPS)


# ---------------------------------------------------------------------------------------------
# Pagination in the HTML (FORUMS.md §3.2 div.bloc-liste-num-page; §3.3 .pagination__…).

_CURRENT_CLASSES = frozenset(("page-active", "pagination__item--current"))
_XML_SPACES = re.compile(r"[ \t\n\r]+")  # what XPath's normalize-space() collapses
_PAGE_IN_URL = re.compile(r"/forums/(?:1|42)-\d+-\d+-(\d+)-")
_DIGITS = re.compile(r"^\d+$")

# Where a page names its topic (issue 16): /forums/{mode}-{forum}-{topic}-{page}-… (§3.1) in its
# head's links, or `code={forum}|{topic}` in the app links of real 2026 pages.
_TOPIC_IN_URL = re.compile(r"/forums/(?:1|42)-\d+-(\d+)-\d+-")
_APP_TOPIC = re.compile(r"/open/topic\?code=\d+(?:%7C|\|)(\d+)$", re.IGNORECASE)
_HEAD_LINKS = etree.XPath("head/link[@rel='canonical' or @rel='alternate']/@href"
                          " | head/meta[@property='og:url']/@content", smart_strings=False)
# Pager and breadcrumb links (guests get JvCare spans), in document order; never a member's link
# in a message, which may name another topic.
_TOPIC_LINKS = etree.XPath(
    "descendant::*[contains(@class, 'bloc-pagi-default') or contains(@class, 'pagination') or "
    "contains(@class, 'breadcrumb')]/descendant-or-self::*[@href or contains(@class, 'JvCare')]")


def _pager_view(payload: Payload | None) -> dict[str, Any]:
    view = payload.data.get("pagerView") if payload else None
    return view if isinstance(view, dict) else {}


def _pager(root: HtmlElement, data: bytes) -> HtmlElement | None:
    for markup in MARKUPS:  # the pager of either front-end, whichever markup the posts use
        if markup.pager_marker in data:
            found = markup.pager(root)
            if found is not None:
                return found
    return None


def _current_item(pager: HtmlElement) -> HtmlElement | None:
    """The current page's item: the first descendant whose class list holds a current-page
    class, as `descendant::*[has_class_xpath(…) or …]` finds it (that XPath costs about three
    times this walk over a pager's handful of elements)."""
    for element in pager.iterdescendants(etree.Element):  # elements only, as XPath's *
        names = element.get("class") or ""
        # The substrings first: JvCare page links carry long class lists, rarely split.
        if ("page-active" in names or "pagination__item--current" in names) and not (
                _CURRENT_CLASSES.isdisjoint(_XML_SPACES.split(names))):
            return element
    return None


def _pager_numbers(pager: HtmlElement) -> Iterator[int]:
    """Every page number the pager names, in its texts or in its (JvCare) links."""
    for element in pager.iter():
        if not isinstance(element.tag, str):
            continue
        text = (element.text or "").strip()
        if _DIGITS.match(text):
            yield int(text)
        target = link_of(element)
        found = _PAGE_IN_URL.search(target or "")
        if found:
            yield int(found.group(1))


# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Reading:
    ctx: PageContext
    label: str
    number: int
    per_page: int
    fetched_local: datetime
    site: str  # scheme and host of the page, for permalinks

    @property
    def where(self) -> str:
        return f"{self.label}: {self.ctx.url}"


class JV(Engine):
    name: ClassVar[str] = "jv"
    label: ClassVar[str] = "jeuxvideo.com"
    default_zone: ClassVar[str] = "Europe/Paris"  # JV shows Paris time, with no zone marker
    default_per_page: ClassVar[int] = 20  # FORUMS.md §3.1

    # -- URLs ----------------------------------------------------------------------------------

    def accepts(self, url: str) -> bool:
        return _topic(url) is not None

    def _topic(self, url: str) -> re.Match[str]:
        found = _topic(url)
        if found is None:
            raise self.not_a_thread_url(url, "jeuxvideo.com topic URL "
                                        "(/forums/42-{forum}-{topic}-{page}-0-1-0-{slug}.htm)")
        return found

    def thread_key(self, url: str) -> str:
        found = self._topic(url)
        return f"{found.group(1)}-{found.group(2)}-{found.group(3)}"

    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        found = self._topic(url)
        mode, forum, topic, _, rest = found.groups()
        parts = urlsplit(url)
        path = f"/forums/{mode}-{forum}-{topic}-{max(1, number)}-{rest}"
        return urlunsplit(parts._replace(path=path, query="", fragment=""))

    def page_number(self, url: str, per_page: int | None = None) -> int:
        return max(1, int(self._topic(url).group(4)))

    def looks_like(self, data: bytes) -> bool:
        return bool(_LOOKS_LIKE.search(data))

    # -- pages ---------------------------------------------------------------------------------

    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        self._refuse_non_topics(data, ctx)
        where = f"{self.label}: {ctx.url}"
        payload, payload_problem = read_payload(data)
        root = _parse(data)
        html = html_messages(root, data, where, alone=payload is None)
        if payload is None and not html.divs:
            raise self.not_a_thread(ctx, self._why_not_a_thread(root, data, payload_problem))
        notes = [payload_problem] if payload_problem else []
        shown: dict[str, list[str]] = {}
        if payload is not None:
            items, skipped = _payload_items(payload.data["listMessage"], where)
            beside = read_beside_html(items, html, ctx.strict)
            messages, shown = beside.messages, beside.posts
            notes += skipped + beside.page
        else:
            messages = []
            for div in html.divs:
                read = _from_html(div, html.markup, where)  # type: ignore[arg-type]
                if isinstance(read, str):  # a placeholder, not a message: why, as a note
                    notes.append(read)
                else:
                    messages.append(read)
        notes += html.skipped
        if not messages:
            raise self.not_a_thread(ctx, "the topic's message list is empty")
        pager_view = _pager_view(payload)
        pager = None if pager_view else _pager(root, data)
        number = self._number(pager_view, pager, ctx)
        reading = _Reading(ctx, self.label, number, ctx.per_page or self.default_per_page,
                           times.local_now(ctx.fetched_at, ctx.zone), self._site(ctx.url))
        posts = tuple(self._post(m, index, reading, shown.get(m.id, ()))
                      for index, m in enumerate(messages))
        count, next_url = self._paging(pager_view, pager, reading)
        return Page(url=ctx.url, number=number, count=count, posts=posts,
                    thread_id=self._thread_id(payload, root), title=self._title(root),
                    next_url=next_url, notes=tuple(notes))

    def _refuse_non_topics(self, data: bytes, ctx: PageContext) -> None:
        """Challenge and redirect pages are small and complete: name them before truncation."""
        head = data[:8192].lower()  # the regexes ignore case; a literal test on this skips them
        if (_CLOUDFLARE_WORDS in head[:4096] and _CLOUDFLARE_TITLE.search(data[:4096])
                or not _holds_messages(data) and any(m in data for m in _CLOUDFLARE_MARKS)):
            raise self.not_a_thread(ctx, _CHALLENGE)
        if _REFRESH_WORD in head and _REFRESH_HOME.search(data[:8192]):
            raise self.not_a_thread(ctx, "the topic does not exist: JV redirects to forums.htm")
        if not closes_document(data):
            raise TruncatedPage(f"{self.label}: {ctx.url}: truncated page "
                                "(the document ends before </html>)")

    def _why_not_a_thread(self, root: HtmlElement, data: bytes, payload_problem: str | None
                          ) -> str:
        if payload_problem == FORUM_LIST:  # first: real pages carry Cloudflare's script too
            return "a forum's list of topics, not a topic; save a page of the topic itself"
        if _CLOUDFLARE_SCRIPT.search(data):
            return _CHALLENGE
        title = collapse(root.findtext(".//title") or "")
        if self.looks_like(data):
            return f"no message in the page, titled {title!r}" if title else "no message in the page"
        return "no JV message markup; the page looks like another forum's"

    # -- one post ------------------------------------------------------------------------------

    def _post(self, message: Message, index: int, reading: _Reading,
              shown: Iterable[str]) -> Post:
        notes: list[str] = []
        if not message.author:
            raise ForumError(f"{reading.where}: post {message.id}: no author")
        created_at = self._time(message, reading, notes)
        notes += shown  # what the HTML shows otherwise (the canary)
        return Post(
            id=message.id,
            position=(reading.number - 1) * reading.per_page + index + 1,
            permalink=f"{reading.site}/forums/message/{message.id}",
            author=message.author,
            author_id=message.author_id,
            created_at=created_at,
            time_text=message.time_text,
            zone=reading.ctx.zone,
            body=message.body,
            edit=self._edit(message, reading, notes),
            fetched_at=reading.ctx.fetched_at,
            page_url=reading.ctx.url,
            deleted=message.deleted,
            notes=tuple(notes),
        )

    def _time(self, message: Message, reading: _Reading, notes: list[str]) -> datetime:
        exact = full_date(message.time_title) if message.time_title else None
        if exact is None:
            # The usual full date, read as `read_shown_time` would read it first: the text is
            # collapsed already, and its "’" -> "'" cannot change what `_FULL` matches.
            exact = full_date(message.time_text)
        if exact is not None:  # absolute: no note to add
            return self._localise(exact, reading, notes)
        shown = read_shown_time(message.time_text, reading.fetched_local)
        if shown is None:
            raise ForumError(f"{reading.where}: post {message.id}: cannot read the time "
                             f"{message.time_text!r}")
        if shown.relative:
            notes.append(msg("relative time '{shown}' read against the fetch time {fetched} "
                             "({zone})", shown=message.time_text, zone=reading.ctx.zone,
                             fetched=reading.fetched_local.strftime("%Y-%m-%d %H:%M:%S")))
        if shown.dated_only:
            notes.append(msg("time '{shown}' gives no time of day; read as 00:00:00",
                             shown=message.time_text))
        return self._localise(shown.at, reading, notes)

    @staticmethod
    def _localise(wall: datetime, reading: _Reading, notes: list[str]) -> datetime:
        local = times.localise(wall, reading.ctx.zone)
        if local.note:
            notes.append(local.note)
        return local.utc

    def _edit(self, message: Message, reading: _Reading, notes: list[str]) -> EditMarker | None:
        """"Message édité le 02 juin 2026 à 22:29:23 par Pseudo" (§3.2, §3.3); K4/K5 judge it."""
        if not message.edit_text:
            return None
        found = _EDIT_TEXT.search(message.edit_text)
        editor = message.editor or (collapse(found.group(2)) if found else "") or None
        # The stock notice's date alone, in one match; any other wording is searched for.
        wall = (dates.stock_date(found.group(1)) if found else None) or full_date(message.edit_text)
        if wall is None:
            notes.append(msg("edit notice without a readable date: '{notice}'",
                             notice=message.edit_text))
            return EditMarker(text=message.edit_text, editor=editor)
        return EditMarker(text=message.edit_text, editor=editor,
                          edited_at=self._localise(wall, reading, notes))

    # -- page chrome ---------------------------------------------------------------------------

    @staticmethod
    def _site(url: str) -> str:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https") and (parts.hostname or "").endswith("jeuxvideo.com"):
            return f"{parts.scheme}://{parts.netloc}"
        return SITE  # a saved page read from a file path

    def _number(self, pager_view: dict[str, Any], pager: HtmlElement | None,
                ctx: PageContext) -> int:
        if str(pager_view.get("currentPage", "")).isdigit():
            return int(pager_view["currentPage"])
        current = _current_item(pager) if pager is not None else None
        if current is not None and _DIGITS.match(collapse(text_of(current))):
            return int(collapse(text_of(current)))
        return self.page_number(ctx.url) if self.accepts(ctx.url) else 1

    def _paging(self, pager_view: dict[str, Any], pager: HtmlElement | None,
                reading: _Reading) -> tuple[int | None, str | None]:
        """Pages in the topic and the next page's URL: pagerView first, else the HTML pager."""
        if pager_view:
            stated = str(pager_view.get("pageCount"))
            following = pager_view.get("next") or {}
            href = following.get("url") if isinstance(following, dict) else None
            return (int(stated) if stated.isdigit() else None,
                    urljoin(reading.ctx.url, href) if href else None)
        if pager is None:
            count: int | None = 1 if reading.number == 1 else None  # one page: JV shows no pager
        else:
            count = max([reading.number, *_pager_numbers(pager)])
        if count is None or reading.number >= count or not self.accepts(reading.ctx.url):
            return count, None
        return count, self.page_url(reading.ctx.url, reading.number + 1)

    @staticmethod
    def _thread_id(payload: Payload | None, root: HtmlElement) -> str | None:
        """The topic the page itself names (issue 16), never the URL it was asked at: the
        payload's `topicId`, else the topic links of the page's head (canonical, the mobile
        alternate, og:url, the app links' `code={forum}|{topic}`), else its pager's or
        breadcrumb's links (JvCare ones decoded). None when the page names no topic."""
        if payload is not None and str(payload.data.get("topicId") or "").isdigit():
            return str(payload.data["topicId"])
        return (first_id(_HEAD_LINKS(root), _TOPIC_IN_URL, _APP_TOPIC)
                or first_id((link_of(element) or "" for element in _TOPIC_LINKS(root)),
                            _TOPIC_IN_URL))

    @staticmethod
    def _title(root: HtmlElement) -> str | None:
        """From <title>, "… sur le forum X - date - jeuxvideo.com" (cheaper than a search)."""
        return title_of(collapse(root.findtext("head/title") or root.findtext(".//title") or ""))
