"""phpBB thread pages: phpBB 3.0-3.3 prosilver and subsilver2, phpBB 2 subSilver (FORUMS.md §2).

One engine serves every board running phpBB; a board is data (zone, posts per page). Templates
are overridden freely by boards, so a post is found by its id (`div#p{ID}.post` on prosilver,
`a[name=p{ID}]` beside `b.postauthor` on subsilver2, `span.name > a[name=ID]` on subSilver) and
every other part is looked up with fallbacks.

Times: from 3.2 on, `<time datetime>` carries the machine time in UTC and wins over the display
text (DESIGN.md "Time"); a display text that disagrees with it by more than a minute is noted.
Older pages only show display text in the board's zone ("Sun Jan 17, 2016 12:02 pm",
"Dom 17 Ene 2016, 12:02", "Today, 12:02", "5 minutes ago"), read by a tolerant tokenizer
rather than one strptime format per board, then localised by tally.times.

Three modules: adapters/phpbb_layout.py finds the posts and where each style puts their parts,
adapters/phpbb_parts.py reads what a part says (times, edit notices, quotes, signatures), and
this one is the engine: URLs, pages, pagination and one post put together.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import chain
from math import gcd
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from lxml.html import HtmlElement

from tally import times
from tally.adapters.base import Engine, PageContext, reading_post
from tally.adapters.html import (
    block_text,
    closes_document,
    collapse,
    first,
    first_id,
    has_class_xpath,
    parser_encoding,
    split_body,
)
from tally.adapters.phpbb_layout import _MAY_NUMBER, Parts, _before_reason, _page_of, _post_elements
from tally.adapters.phpbb_parts import (
    _CLOCK,
    _SIG_RULE,
    _parse,
    _profile_link,
    _text,
    classify,
    read_aside,
    read_edit,
    read_quote,
    read_shown_time,
    split_signature,
)
from tally.errors import ForumError, TruncatedPage
from tally.model import Body, EditMarker, Page, Post, msg, msg_clauses, msg_n

# ---------------------------------------------------------------------------------------------
# URLs (§2.1 pagination, §2.4 sid and HTTrack)

_VIEWTOPIC = re.compile(r"^viewtopic[\w-]*\.(?:php\d?|html?)$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class TopicUrl:
    scheme: str
    host: str
    path: str
    query: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str | None:
        for name, value in self.query:
            if name == key:
                return value
        return None


def split_topic_url(url: str) -> TopicUrl | None:
    parts = urlsplit(url.strip())
    if not _VIEWTOPIC.match(parts.path.rsplit("/", 1)[-1]):
        return None
    query = tuple((k, v) for k, v in parse_qsl(parts.query.replace("&amp;", "&"))
                  if k != "sid")
    topic = TopicUrl(parts.scheme, parts.netloc, parts.path, query)
    return topic if (topic.get("t") or topic.get("p") or "").isdigit() else None


def _start(topic: TopicUrl) -> int:
    start = topic.get("start") or "0"
    return int(start) if start.isdecimal() else 0  # isdigit() takes "²", int() does not


# ---------------------------------------------------------------------------------------------
# Page-level markers: detection, login walls, information pages, other engines


_FOREIGN = (  # (bytes marker, what the page is) for a clear NotAThreadPage message
    (rb"illiweb.com", "a Forumotion page"), (rb"forumactif", "a Forumotion page"),
    (rb"foroactivo", "a Forumotion page"), (rb"forumotion", "a Forumotion page"),
    (rb"Discuz!", "a Discuz! page"), (rb"discuz_uid", "a Discuz! page"),
    (rb"ipsLayout", "an Invision page"), (rb"ipbwrapper", "an Invision page"),
    (rb"jeuxvideo.com", "a jeuxvideo.com page"),
)
_LOGIN_TEXT = re.compile(
    r"You need to be registered and logged in|Sorry, but you must be registered|"
    r"requires you to be registered and logged in|"
    r"Debe(?:s)? estar registrado|Necesita(?:s)? estar registrado|You must login", re.IGNORECASE)
_FOOTER_ZONE = re.compile(  # 3.2+ "All times are UTC-03:00"; 3.0 "… UTC + 1 hour [ DST ]"
    r"(?:All times are|Todos los horarios son|Les heures sont|Heures au format|"
    r"Tutti gli orari sono)\s*"
    r"(?:UTC|GMT)(?:\s*[+\-−]\s*\d{1,2}(?::?\d{2})?(?:\s*(?:hours?|horas?|heures?|ore?)\b)?)?"
    r"(?:\s*\[[^\]]*\])?", re.IGNORECASE)
_TAGS = re.compile(r"<[^>]*>")
_FOOTER_MARKERS = (b"All times are", b"Todos los horarios", b"Les heures sont",
                   b"Heures au format", b"Tutti gli orari")
_FOOTER_TAIL = 8192
_START = re.compile(r"[?&](?:amp;)?start=(\d+)")
_MESSAGE_BOX = ("//div[@id='message']", "//div[contains(@class, 'panel')][.//h2]",
                "//table[contains(@class, 'forumline')]//span[contains(@class, 'gen')]")


# ---------------------------------------------------------------------------------------------
# The engine


class PhpBB(Engine):
    name = "phpbb"
    label = "phpBB"
    default_per_page = 10  # 3.x default posts_per_page; phpBB 2's is 15 (§2.1, §2.2)

    # URLs ---------------------------------------------------------------------------------

    def accepts(self, url: str) -> bool:
        return split_topic_url(url) is not None

    def _topic(self, url: str) -> TopicUrl:
        topic = split_topic_url(url)
        if topic is None:
            raise self.not_a_thread_url(url, "phpBB viewtopic URL")
        return topic

    def thread_key(self, url: str) -> str:
        """"t={id}"; a bare post link (?p=) has no topic id until the page is read."""
        topic = self._topic(url)
        tid = topic.get("t")
        return f"t={tid}" if tid else f"p={topic.get('p')}"

    def topic_id(self, url: str) -> str | None:
        """A post link (?p=) names no topic: the page says which one it is."""
        topic = split_topic_url(url)
        return topic.get("t") if topic else None

    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        return self._topic_page_url(self._topic(url), number, per_page)

    def _topic_page_url(self, topic: TopicUrl, number: int, per_page: int | None) -> str:
        keep = [(k, v) for k, v in topic.query if k in ("f", "t")] or \
               [(k, v) for k, v in topic.query if k == "p"]
        keep.append(("start", str((max(number, 1) - 1) * (per_page or self.default_per_page))))
        return urlunsplit((topic.scheme, topic.host, topic.path, urlencode(keep), ""))

    def page_number(self, url: str, per_page: int | None = None) -> int:
        return _start(self._topic(url)) // (per_page or self.default_per_page) + 1

    def normalise_url(self, url: str) -> str:
        """Drop the fragment and the guest session id (§2.4: `&sid=` on every link)."""
        parts = urlsplit(url.split("#", 1)[0])
        query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k != "sid"]
        return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), ""))

    def looks_like(self, data: bytes) -> bool:
        head = data[:200_000]
        if any(marker in head for marker, _ in _FOREIGN):
            return False
        if rb'id="phpbb"' in head or rb"id='phpbb'" in head:
            return True
        return (b"viewtopic.php" in head and b"postprofile" in head) or \
            (b"bodyline" in head and b"postbody" in head) or \
            (b"postauthor" in head and b"postbody" in head)  # subsilver2

    # Pages --------------------------------------------------------------------------------

    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        encoding = parser_encoding(data)
        root = _parse(data, encoding)
        elements, flavour, pagination = _post_elements(root)
        truncated = not closes_document(data, 1024)  # a cut download ends early
        if not elements:
            if truncated and self.looks_like(data):
                raise TruncatedPage(f"{self.label}: {ctx.url}: page is cut off before its first "
                                    "post (no closing </html>)")
            raise self.not_a_thread(ctx, self._why_no_posts(root, data))
        if truncated:
            raise TruncatedPage(f"{self.label}: {ctx.url}: page is cut off after post "
                                f"{list(elements)[-1]} (no closing </html>)")
        boxes = Pagination.read(pagination)
        per_page = ctx.per_page or boxes.per_page(ctx.url) or \
            (15 if flavour == "subsilver" else self.default_per_page)
        topic = split_topic_url(ctx.url)  # once: the page number, next page and thread id use it
        number, count = self._number_and_count(boxes, topic, per_page)
        reader = _PostReader(self, ctx, flavour)
        offset = (number - 1) * per_page
        posts, notes = [], list(_between_posts(elements) if flavour == "prosilver" else ())
        for i, (pid, (element, parts)) in enumerate(elements.items()):
            if "hidden" in parts:  # keeps its place: later posts' positions count it
                notes.append(msg("post {post}: hidden on this page, not read ({shown})", post=pid,
                                 shown=collapse(_text(parts['hidden']))[:160]))
                continue
            try:
                post = reader.read(pid, element, parts, offset + i + 1)
            except Exception as exc:
                reading_post(exc, pid)
                raise
            notes.extend(_post_notes(post, parts))
            posts.append(post)
        return Page(url=ctx.url, number=number, count=count, posts=tuple(posts),
                    thread_id=_thread_id(root, boxes), title=_title(root),
                    next_url=self._next_url(boxes, ctx.url, topic, number, count, per_page),
                    notes=_footer_notes(data, encoding, ctx) + tuple(notes),
                    utc_offset=_footer_offset(data, encoding))

    def _why_no_posts(self, root: HtmlElement, data: bytes) -> str:
        text = collapse(_text(root))
        if root.xpath("//form[@id='login']") or _LOGIN_TEXT.search(text):
            return "login page: the thread needs a logged-in account"
        for marker, what in _FOREIGN:
            if marker in data:
                return f"{what}, not phpBB"
        if self.looks_like(data):
            box = first(root, _MESSAGE_BOX)
            if box is not None:
                return f"forum message: {collapse(_text(box))[:160]}"
            if root.find(".//div[@class='page-number']") is not None:
                # viewtopic_print.html (view=print): its posts carry no ids, so no post could
                # be told from another across saves; 466 such pages in a real board's mirror.
                return ("the printable view (view=print), whose posts have no ids: save the "
                        "topic's normal pages instead")
            return "phpBB page without posts"
        return "no phpBB markup found"

    def _number_and_count(self, boxes: Pagination, topic: TopicUrl | None,
                          per_page: int) -> tuple[int, int | None]:
        """Page x of y from the pagination text, else the active item, else start= (§2.1)."""
        if boxes.shown:
            return boxes.shown
        count = max(boxes.numbers) if boxes.numbers else None
        if boxes.active:
            return boxes.active, max(count or 0, boxes.active)
        number = _start(topic) // per_page + 1 if topic else 1
        return number, max(count, number) if count else None

    def _next_url(self, boxes: Pagination, url: str, topic: TopicUrl | None, number: int,
                  count: int | None, per_page: int) -> str | None:
        if boxes.next_href:
            return self.normalise_url(urljoin(url, boxes.next_href))
        if count is not None and number < count and topic:
            return self._topic_page_url(topic, number + 1, per_page)
        return None


@dataclass(frozen=True, slots=True)
class Pagination:
    """What the page's pagination boxes say (prosilver div.pagination, subSilver span.nav)."""

    shown: tuple[int, int] | None  # "Page x of y"
    active: int | None  # li.active span (3.1+)
    numbers: tuple[int, ...]  # page numbers shown as links or current
    links: str  # the hrefs of the links holding start=, one a line (their values: per_page)
    next_href: str | None  # a[rel=next]

    @classmethod
    def read(cls, boxes: list[HtmlElement]) -> Pagination:
        shown: tuple[int, int] | None = None
        active: int | None = None
        next_href: str | None = None
        numbers: list[int] = []
        links: list[str] = []
        paged = False  # a link read so far holds a start= value
        for box in boxes:
            text = _text(box)
            found = None if shown else _page_of(text)
            if found:
                number, count = (int(g) for g in found.groups() if g is not None)
                shown = (number, count)
            # A box without a digit has no page number in it: only its links' hrefs count.
            tags = ("a", "span", "strong", "b", "li") if _MAY_NUMBER.search(text) else ("a",)
            box_links: list[str] = []
            for item in box.iter(*tags):
                tag = item.tag
                if tag == "li":
                    if active is None and "active" in (item.get("class") or "").split():
                        label = collapse(_text(item))
                        active = int(label) if label.isdecimal() else None
                    continue
                label = item.text
                if label:
                    label = label.strip()
                    if label.isdecimal() and len(label) < 6:  # not "²": int() refuses it
                        numbers.append(int(label))
                href = item.get("href") if tag == "a" else None
                if href:
                    if "start=" in href:  # _START's literal: most links have none
                        box_links.append(href)
                    if next_href is None and item.get("rel") == "next":
                        next_href = href
            if box_links:  # one _START search per box, not per link
                links.append("\n".join(box_links))
                paged = paged or _START.search(links[-1]) is not None
            # prosilver repeats the same box above and below the posts: once one box has
            # given "Page x of y" and its links, the next adds nothing (subSilver splits them
            # over two boxes, so it reads on).
            if shown and numbers and paged:
                break
        return cls(shown, active, tuple(numbers), "\n".join(links), next_href)

    def per_page(self, url: str) -> int | None:
        """The step between the start= values of the links and the URL (greatest common
        divisor); read only when the game file gives no page size. No _START match spans
        the line break between two hrefs."""
        step = 0
        for start in _START.findall(f"{self.links}\n{url}"):
            step = gcd(step, int(start))
        return step or None



_TOPIC_IN = re.compile(r"[?&](?:amp;)?t=(\d+)")
_TOOL_LINKS = ("mode=reply", "view=print", "watch=topic", "mode=email")


def _thread_id(root: HtmlElement, boxes: Pagination) -> str | None:
    """The topic id the page itself shows (issue 16: a page served for another topic must be
    caught), never the requested URL's; None when the page names none. Where the template names
    the topic, in the order of trust: the canonical link (3.1+), then the first of the "Post a
    reply" button, the print/watch/email links and the topic title's link (3.1+ h2.topic-title
    > a, subsilver2 h2 > a, phpBB 2 a.maintitle), which all come before the posts, so the walk
    stops long before the messages (whose links a member may point at any topic); then the
    pagination links."""
    head = root.find("head")
    links = head.iterchildren("link") if head is not None else ()
    canonical = (link.get("href") or "" for link in links if link.get("rel") == "canonical")
    return first_id(chain(canonical, _topic_links(root), (boxes.links,)), _TOPIC_IN)


def _topic_links(root: HtmlElement) -> Iterator[str]:
    """The hrefs of the "Post a reply" button, the print/watch/email links and the title's link,
    in page order (before the posts: the search stops long before a member's links)."""
    for anchor in root.iter("a"):
        href = anchor.get("href")
        if not href or "t=" not in href:
            continue
        parent = anchor.getparent()
        if any(tool in href for tool in _TOOL_LINKS) or "maintitle" in (anchor.get(
                "class") or "") or (parent is not None and parent.tag == "h2"):
            yield href


def _post_notes(post: Post, parts: Parts) -> tuple[str, ...]:
    """What the audit's "Reading the thread" says of a post shown otherwise than as a post
    (issue 13): a soft-deleted post a moderator sees, a post hidden for this account."""
    placeholder = parts.get("ignore")
    if placeholder is None and not post.deleted:
        return ()
    shown = collapse(_text(placeholder))[:160] if placeholder is not None else None
    if post.deleted:
        return (msg("post {post}: deleted on the forum, shown to moderators ({shown}); read as "
                    "deleted", post=post.id, shown=shown) if shown is not None else
                msg("post {post}: deleted on the forum, shown to moderators; read as deleted",
                    post=post.id),)
    return (msg("post {post}: hidden for this account ({shown}); read from the copy the page "
                "still holds", post=post.id, shown=shown) if shown is not None else
            msg("post {post}: hidden for this account; read from the copy the page still holds",
                post=post.id),)


_BETWEEN_SILENT = frozenset(("hr", "br", "script", "noscript", "style"))


def _between_posts(posts: dict[str, tuple[HtmlElement, Parts]]) -> tuple[str, ...]:
    """What a style or an extension put between the posts (phpBB Advertisement Management's
    div.phpbb-ads-center, a sponsor's fake post): skipped, and named once for the audit
    (issue 13). Only the siblings between the first and the last post are looked at, on
    prosilver (a table style's rows between posts are the posts' own)."""
    elements = [element for element, _parts in posts.values()]
    if len(elements) < 2:
        return ()
    members = set(elements)
    last = elements[-1]
    skipped = []
    for sibling in elements[0].itersiblings():
        if sibling is last:
            break
        tag = sibling.tag
        if sibling in members or not isinstance(tag, str) or tag in _BETWEEN_SILENT or \
                (tag == "a" and not len(sibling) and not (sibling.text or "").strip()):
            continue  # posts, dividers, the a#unread anchor
        classes = ".".join((sibling.get("class") or "").split())
        what = f"{tag}.{classes}" if classes else tag
        text = collapse(_text(sibling))
        skipped.append(f"{what} {text[:60]!r}" if text else what)
    if not skipped:
        return ()
    counted = {what: skipped.count(what) for what in skipped}  # in page order, each once
    said = msg_clauses(*(what if n == 1 else msg_n("{block} ({n} time)", "{block} ({n} times)",
                                                   block=what, n=n)
                         for what, n in counted.items()))
    return (msg("skipped between the posts, not posts: {blocks}", blocks=said),)


def _title(root: HtmlElement) -> str | None:
    """h2.topic-title (3.1+), the first h2 (3.0), a.maintitle (phpBB 2), else <title>."""
    for element in root.iter("h2", "a"):
        classes = element.get("class") or ""
        if element.tag == "h2" or "maintitle" in classes:
            return collapse(_text(element)) or None
    heading = root.find(".//title")
    return collapse(_text(heading)) if heading is not None else None


def _footer_notes(data: bytes, encoding: str, ctx: PageContext) -> tuple[str, ...]:
    """§2.4: the footer's "All times are UTC-03:00" is a check on the game file's zone."""
    at = _last_footer_marker(data)
    if at < 0:
        return ()
    window = data[at: at + 600].decode(encoding, "replace")
    found = _FOOTER_ZONE.search(_TAGS.sub(" ", window))
    if not found:
        return ()
    shown = collapse(found.group(0))
    offset = times.to_local(ctx.fetched_at, ctx.zone).utcoffset() or timedelta()
    stated = _stated_offset(shown)
    if stated is not None and stated != offset:
        hours = offset.total_seconds() / 3600
        return (msg("footer says '{shown}', but {zone} was UTC{offset} at fetch time",
                    shown=shown, zone=ctx.zone, offset=format(hours, "+g")),)
    return (msg("footer says '{shown}'", shown=shown),)


def _footer_offset(data: bytes, encoding: str) -> timedelta | None:
    """The offset the footer says the page's times are in (Page.utc_offset), if it says one."""
    at = _last_footer_marker(data)
    if at < 0:
        return None
    found = _FOOTER_ZONE.search(_TAGS.sub(" ", data[at: at + 600].decode(encoding, "replace")))
    return _stated_offset(collapse(found.group(0))) if found else None


def _last_footer_marker(data: bytes) -> int:
    """Where the last footer marker starts (-1: none). The footer is near the end: search the
    tail first; a marker found there is later than any before it, so the whole page is searched
    only when the tail has none."""
    tail = max(0, len(data) - _FOOTER_TAIL)
    at = max(data.rfind(marker, tail) for marker in _FOOTER_MARKERS)
    if at < 0 and tail:
        at = max(data.rfind(marker) for marker in _FOOTER_MARKERS)
    return at


def _stated_offset(text: str) -> timedelta | None:
    found = re.search(r"(?:UTC|GMT)\s*(?:(?P<sign>[+\-−])\s*(?P<h>\d{1,2})(?::?(?P<m>\d{2}))?)?",
                      text)
    if not found:
        return None
    summer = timedelta(hours=1) if "[" in text else timedelta()  # 3.0 "[ DST ]" adds an hour
    if not found["sign"]:
        return summer
    minutes = int(found["h"]) * 60 + int(found["m"] or 0)
    return timedelta(minutes=-minutes if found["sign"] in "-−" else minutes) + summer


# ---------------------------------------------------------------------------------------------
# One post


# subSilver has two span.postdetails: "Joined: …" beside the name, the post's date beside it.
_P_AUTHOR = (f".//p[{has_class_xpath('author')}]",
             (".//span[contains(@class, 'postdetails')]"
             "[not(ancestor::td[1][.//span[contains(@class, 'name')]])]"))
_PROFILE_NAME = (f".//dl[{has_class_xpath('postprofile')}]//dt//a[contains(@class, 'username')]",
                 (f".//dl[{has_class_xpath('postprofile')}]//dt//a[contains(@href, 'viewprofile')]"
                 "[normalize-space()]"),
                 f".//dl[{has_class_xpath('postprofile')}]//dt//strong",
                 f".//p[{has_class_xpath('author')}]//strong",
                 ".//span[contains(@class, 'name')]//b",
                 ".//span[contains(@class, 'name')]//strong")
# subSilver's bbcode.tpl closes span.postbody around each quote table and reopens it after, so
# the message is the cell holding the postbody spans, not the first span (§2.2).
_MESSAGE = (f".//div[{has_class_xpath('content')}]", ".//td[span[contains(@class, 'postbody')]]",
            ".//span[contains(@class, 'postbody')]")
_USER_ID = re.compile(r"[?&](?:amp;)?u=(\d+)")
_LABEL = re.compile(r"^[^\W\d]+(?:\s+[^\W\d]+)*:\s*")  # "Posted: ", "Publicado: "


@dataclass(frozen=True, slots=True)
class ShownTime:
    text: str
    utc: datetime
    notes: tuple[str, ...]


class _PostReader:
    """Reads the posts of one page; holds what every post needs (engine, context, flavour)."""

    def __init__(self, engine: PhpBB, ctx: PageContext, flavour: str) -> None:
        self.engine = engine
        self.ctx = ctx
        self.flavour = flavour
        self.fetched_local = times.local_now(ctx.fetched_at, ctx.zone)
        self.base = urljoin(ctx.url, "viewtopic.php")
        self.parts: Parts = {}

    def _fail(self, post_id: str, what: str) -> Exception:
        return ForumError(f"{self.engine.label}: {self.ctx.url}: post {post_id}: {what}")

    def read(self, post_id: str, scope: HtmlElement, parts: Parts, position: int) -> Post:
        self.parts = parts
        message = self._part(scope, "content", _MESSAGE)
        if message is None:
            raise TruncatedPage(f"{self.engine.label}: {self.ctx.url}: post {post_id} has no "
                                "message (cut download or changed template)")
        author, author_id = self._author(post_id, scope)
        shown = self._time(post_id, scope, author)
        body = split_body(message, classify, read_quote, read_aside)
        body = self._with_signature(body, scope)
        return Post(
            id=post_id,
            position=position,
            permalink=self.base + self._permalink_query(post_id),
            author=author,
            author_id=author_id,
            created_at=shown.utc,
            time_text=shown.text,
            zone=self.ctx.zone,
            body=body,
            edit=self._edit(post_id, scope),
            fetched_at=self.ctx.fetched_at,
            page_url=self.ctx.url,
            deleted=self._deleted(scope),
            notes=shown.notes,
        )

    def _permalink_query(self, post_id: str) -> str:
        anchor = post_id if self.flavour == "subsilver" else f"p{post_id}"
        return f"?p={post_id}#{anchor}"

    def _part(self, scope: HtmlElement, kind: str, fallback: tuple[str, ...]) -> HtmlElement | None:
        """The part found by the page pass; searched in the post when the pass missed it (a
        moved template part). Optional parts (edit notice, signature) are read from the pass
        alone: absent is their usual state. subsilver2's pass searched all the post's rows
        already: its fallback would be another post's."""
        found = self.parts.get(kind)
        if found is not None or self.flavour == "subsilver2":
            return found
        return first(scope, fallback)

    def _author(self, post_id: str, scope: HtmlElement) -> tuple[str, str | None]:
        """Profile link a.username(-coloured) with u=; guests/deleted users as plain text."""
        found = self.parts.get("name")
        if found is None and self.flavour != "subsilver2":
            found = _profile_name(self.parts.get("profile"))
            if found is None:
                found = first(scope, _PROFILE_NAME)
        name = collapse(_text(found)) if found is not None else ""
        if found is None or not name:
            raise self._fail(post_id, "no author name (changed template?)")
        link = found if found.tag == "a" else _profile_link(found)
        if link is None and self.flavour == "subsilver":
            link = _subsilver_profile_link(scope)
        elif link is None:
            link = self.parts.get("user_link")  # subsilver2's profile button
        user = _USER_ID.search(link.get("href", "")) if link is not None else None
        return name, user.group(1) if user else None

    def _time(self, post_id: str, scope: HtmlElement, author: str) -> ShownTime:
        box = self._part(scope, "author", _P_AUTHOR)
        if box is None:
            raise self._fail(post_id, "no date line (p.author / span.postdetails / Posted:)")
        machine = _machine_element(box)
        if machine is not None:
            return self._machine_time(machine.get("datetime", ""), collapse(_text(machine)))
        text = _posted_text(box) if self.flavour == "subsilver2" else _date_text(box, author)
        naive = read_shown_time(text, self.fetched_local)
        if naive is None:
            raise self._fail(post_id, f"cannot read the date {text!r}")
        localised = times.localise(naive, self.ctx.zone)
        return ShownTime(text, localised.utc, (localised.note,) if localised.note else ())

    def _machine_time(self, stamp: str, text: str) -> ShownTime:
        """<time datetime> wins (DESIGN.md "Time"); a display text more than a minute away
        from it, read in the board's zone, is reported."""
        utc = times.parse_iso(stamp)
        if _shows(text, times.to_local(utc, self.ctx.zone)):
            return ShownTime(text, utc, ())
        naive = read_shown_time(text, self.fetched_local)
        if naive is None:
            return ShownTime(text, utc, ())
        shown = times.localise(naive, self.ctx.zone).utc
        if abs(shown - utc) <= timedelta(minutes=1):
            return ShownTime(text, utc, ())
        note = msg("shown time '{text}' reads as {shown} UTC in {zone}, but the page's machine "
                   "time is {machine} UTC; the machine time was used", text=text,
                   shown=shown.strftime("%Y-%m-%d %H:%M"), zone=self.ctx.zone,
                   machine=utc.strftime("%Y-%m-%d %H:%M:%S"))
        return ShownTime(text, utc, (note,))

    def _edit(self, post_id: str, scope: HtmlElement) -> EditMarker | None:
        notice = self.parts.get("notice")
        if notice is None or not collapse(_text(notice)):
            return None
        link = _profile_link(notice)
        editor = collapse(_text(link)) if link is not None else None
        edit = read_edit(_before_reason(notice), editor, self.fetched_local, self.ctx.zone)
        if edit is not None and edit.edited_at is None:
            # An edit after the deadline voids or moves a vote (V-rules): an edit whose time
            # is not known would be counted as made in time. Stop, as for a post's own date.
            raise self._fail(post_id, f"cannot read the time of its edit notice {edit.text!r}")
        return edit

    def _with_signature(self, body: Body, scope: HtmlElement) -> Body:
        if self.flavour == "subsilver":
            return split_signature(body)
        signature = self.parts.get("signature")
        if signature is None or body.signature:
            return body
        text = block_text(signature)
        if self.flavour == "subsilver2":  # "<br />_________________<br />{SIGNATURE}"
            text = text.partition(_SIG_RULE)[2].strip("\n")
        return replace(body, signature=text)

    def _deleted(self, scope: HtmlElement) -> bool:
        """Soft-deleted posts shown to moderators (3.1+) carry class `deleted` or a notice."""
        return "deleted" in (scope.get("class") or "").split() or "deleted" in self.parts


def _machine_element(box: HtmlElement) -> HtmlElement | None:
    """The first <time datetime> inside the date line (3.2+), or None."""
    for element in box.iterdescendants("time"):
        if element.get("datetime") is not None:
            return element
    return None


def _shows(text: str, local: datetime) -> bool:
    """A quick "the display text agrees" test: it holds the local clock time (12- or 24-hour)
    and day number. Most posts pass it, sparing the tokenizer (DESIGN.md "Performance")."""
    spaced = " " + text
    minute = f"{local.minute:02d}"
    if f" {local.hour % 12 or 12}:{minute}" not in spaced and f" {local.hour:02d}:{minute}" not in spaced:
        return False
    return f" {local.day:02d}" in spaced or f" {local.day}" in text


def _profile_name(profile: HtmlElement | None) -> HtmlElement | None:
    """dl.postprofile > dt: a.username / a.username-coloured, else a plain <strong> (guests)."""
    if profile is None:
        return None
    fallback = None
    for link in profile.iter("a"):
        if "username" in (link.get("class") or ""):
            return link
        if fallback is None and "viewprofile" in (link.get("href") or "") and link.text:
            fallback = link  # 3.0: a plain profile link in the dt
    if fallback is not None:
        return fallback
    term = profile.find("dt")
    return term.find(".//strong") if term is not None else None


def _subsilver_profile_link(row: HtmlElement) -> HtmlElement | None:
    """subSilver puts the profile button in the row after the post's row (§2.2)."""
    following = row.getnext()
    if following is None or _holds_post_anchor(following):
        return None
    return _profile_link(following)


def _holds_post_anchor(row: HtmlElement) -> bool:
    """Whether `row` starts another post (span.name > a[name]); a walk, not an XPath per post."""
    for span in row.iterdescendants("span"):
        if "name" in (span.get("class") or "") and any(
                link.get("name") is not None for link in span.iterchildren("a")):
            return True
    return False


def _posted_text(box: HtmlElement) -> str:
    """subsilver2's "<b>Posted:</b> DATE&nbsp;": the text after the box's last bold label
    (French packs write "Posté :"; the label is never read)."""
    labels = list(box.iter("b", "strong"))
    text = collapse(_text_after(labels[-1]) if labels else _text(box))
    clock = _CLOCK.search(text)
    return text[: clock.end()] if clock else text


def _text_after(element: HtmlElement) -> str:
    """The text that follows `element` inside its parent."""
    pieces = [element.tail or ""]
    for sibling in element.itersiblings():
        pieces.append(_text(sibling))
        pieces.append(sibling.tail or "")
    return "".join(pieces)


def _date_text(box: HtmlElement, author: str) -> str:
    """3.0/3.1 print the date as bare text after "by <strong>X</strong> » " (any language);
    subSilver's span.postdetails reads "Posted: DATE  Post subject: …" (§2.1, §2.2)."""
    text = collapse(_text(box))
    if "»" in text:
        text = text.rsplit("»", 1)[1]
    elif author and author in text:
        text = text.split(author, 1)[1]
    text = _LABEL.sub("", text.strip(" :-–|,"), count=1)
    clock = _CLOCK.search(text)
    return text[: clock.end()].strip() if clock else text.strip()
