"""Invision Power Board: IPB 3.x and IPS 4.x, detected from the page (FORUMS.md section 5).

Both versions serve many boards; the Russian virtual-mafia board of the rulebooks runs IPB 3.4
(rulebooks/mafia-virtual.ru.txt: "Отправлено 09 October 2017 - 23:20").

- IPB 3.x (5.1): `div.post_block#post_id_{pid}`, "#n" permalink, `abbr.published[title]` (ISO
  with offset), body `div.post.entry-content`, edit notice `p.edit`, pagination "Страница x из y".
- IPS 4.x (5.2): `article#elComment_{id}`, `<time datetime>` in UTC, body
  `div[data-role=commentContent]`, edit line "Изменено … пользователем X" / "Edited … by X",
  pagination `ul.ipsPagination[data-pages]`; positions are counted from the page offset.

A machine-readable time wins over the display text; a disagreement is kept as a post note
(DESIGN.md "Time"). Display texts are read with the helpers of tally.times, in Russian and English.

One reader per version reads every page (issue 15: the byte-level fast path is retired).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property, lru_cache
from typing import Any
from urllib.parse import urljoin

from lxml import etree
from lxml.html import HtmlElement

from tally import times
from tally.adapters import dates
from tally.adapters.base import Engine, PageContext
from tally.adapters.html import (
    Aside,
    block_text,
    class_set,
    collapse,
    has_class_xpath,
    parse_tree,
    parser_input,
    split_body,
)
from tally.errors import ForumError, InputError, TruncatedPage
from tally.model import Body, EditMarker, Page, Post, Quote

# ---------------------------------------------------------------------------------------------
# XPath, compiled once: compiling on every call made parsing several times slower than lxml's
# own parse (DESIGN.md "Performance" asks for at least half its speed).


@lru_cache(maxsize=256)
def _compiled(path: str) -> etree.XPath:
    return etree.XPath(path)


# XPath's string() is what lxml.html's text_content() runs, and works on the plain elements of
# parse_tree; itertext() yields piece by piece and is several times slower.
_text = etree.XPath("string()", smart_strings=False)


def _has_class(name: str) -> str:
    """has_class_xpath behind a plain contains(): the exact test runs only on the few elements
    whose class attribute holds the name at all."""
    return f"contains(@class, '{name}') and {has_class_xpath(name)}"


def _all(element: HtmlElement, path: str) -> list[Any]:
    result = _compiled(path)(element)
    return result if isinstance(result, list) else [result]


def _find(element: HtmlElement, paths: tuple[str, ...]) -> Any | None:
    """The first match of the first path (in order) that matches anything."""
    return _find_by(element, paths)[0]


def _find_by(element: HtmlElement, paths: tuple[str, ...]) -> tuple[Any | None, int]:
    """_find, and the index of the path that matched (len(paths) for none)."""
    for index, path in enumerate(paths):
        found = _all(element, path)
        if found:
            return found[0], index
    return None, len(paths)


_INDEXED_ATTRS = frozenset(("itemprop", "data-role", "data-quotedata", "data-excludequote",
                  "data-entry-pid", "hovercard-id"))

# Blocks of a post whose inside is never read: the profile pane, the buttons, the message body
# (read by split_body) and the signature (read whole).
UNREAD_BLOCKS = frozenset(("author_info", "post_controls", "cAuthorPane_info",
                            "ipsComment_controls", "entry-content", "signature", "ipsLikeBar"))


class _Index:
    """The first element of each class, tag and marker attribute in one post: one walk of the
    post's subtree instead of a dozen XPath queries (the speed goal of DESIGN.md)."""

    def __init__(self, root: HtmlElement) -> None:
        self.by_class: dict[str, HtmlElement] = {}
        self.by_tag: dict[str, HtmlElement] = {}
        self.by_attr: dict[tuple[str, str | None], HtmlElement] = {}
        self.by_id_prefix: dict[str, HtmlElement] = {}
        # (element, may descend): the children of a block whose inside is never read are
        # indexed, not walked (a message: its blocks are split_body's business, only the edit
        # line is ours). One flat loop: this walk is still the largest part of a post's cost.
        stack: list[tuple[HtmlElement, bool]] = [(root, True)]
        pop, push = stack.pop, stack.extend
        while stack:
            element, walk = pop()
            tag = element.tag
            if tag.__class__ is not str:  # comments, processing instructions
                continue
            if tag not in self.by_tag:
                self.by_tag[tag] = element
            items = element.items()
            descend = self._add_attributes(element, items) if items else True
            if walk:  # document order: the first child is popped first
                push([(child, descend) for child in reversed(element)])

    def _add_attributes(self, element: HtmlElement, items: list[tuple[str, str]]) -> bool:
        """Index the classes and marker attributes of one element; False when its inside is
        not worth walking."""
        descend = True
        for attr, value in items:
            if attr == "class":
                names = value.split()
                for name in names:
                    if name not in self.by_class:
                        self.by_class[name] = element
                if not UNREAD_BLOCKS.isdisjoint(names):
                    descend = False
            elif attr == "id":
                if "_" in value:
                    self.by_id_prefix.setdefault(value.split("_", 1)[0] + "_", element)
            elif attr in _INDEXED_ATTRS:
                self.by_attr.setdefault((attr, None), element)
                self.by_attr.setdefault((attr, value), element)
                if value == "commentContent" or value == "commentText":
                    descend = False
        return descend

    def cls(self, name: str, tag: str | None = None) -> HtmlElement | None:
        found = self.by_class.get(name)
        return found if found is not None and (tag is None or found.tag == tag) else None

    def attr(self, name: str, value: str | None = None) -> HtmlElement | None:
        return self.by_attr.get((name, value))


# The message bodies by their marker attribute (besides the classes of UNREAD_BLOCKS).
_BODY_MARKS = frozenset(("commentContent", "commentText"))
_ELEMENTS = etree.Element  # iter() filter: elements only, no processing instructions


class _Wanted:
    """What one version's post reading looks up: classes, and attributes by name and value."""

    def __init__(self, classes: tuple[str, ...], attrs: tuple[str, ...]) -> None:
        self.classes = frozenset(classes)
        self.marks = self.classes | UNREAD_BLOCKS  # one isdisjoint() passes most elements
        self.attrs = attrs  # must hold the body markers a version uses (itemprop, data-role)


def _scan(root: HtmlElement, wanted: _Wanted) -> dict[object, HtmlElement]:
    """The first element of each wanted class and each wanted attribute (by name: key
    (name, None), and by (name, value)), in the order and scope of _Index's walk.

    _Index reads every attribute of every element: this is the per-post hot path, so it reads
    the class and the few attributes asked for, and walks with lxml's C iterator, jumping over
    the inside of each block whose inside is never read (the message above all)."""
    found: dict[object, HtmlElement] = {}
    elements = root.iter(_ELEMENTS)
    for element in elements:
        if not _note(element, found, wanted):
            continue
        for child in element:  # an unread block's children are looked at, not walked
            if child.tag.__class__ is str:
                _note(child, found, wanted)
        last = _last_inside(element)
        if last is not element:
            for skipped in elements:  # the same iterator: the loop goes on after `last`
                if skipped is last:
                    break
    return found


def _note(element: HtmlElement, found: dict[object, HtmlElement], wanted: _Wanted) -> bool:
    """Record `element` under its wanted classes and attributes; True for an unread block."""
    unread = False
    value = element.get("class")
    if value:
        names = value.split()
        if not wanted.marks.isdisjoint(names):
            for name in names:
                if name in wanted.classes and name not in found:
                    found[name] = element
            unread = not UNREAD_BLOCKS.isdisjoint(names)
    for attr in wanted.attrs:
        value = element.get(attr)
        if value is not None:
            if (attr, None) not in found:
                found[attr, None] = element
            if (attr, value) not in found:
                found[attr, value] = element
            if value in _BODY_MARKS:
                unread = True
    return unread


def _last_inside(element: HtmlElement) -> HtmlElement:
    """The last element of `element`'s subtree in document order (itself when it has none)."""
    while len(element):
        child = element[-1]
        if child.tag.__class__ is not str:  # a trailing processing instruction
            child = next((c for c in reversed(element) if c.tag.__class__ is str), None)
            if child is None:
                break
        element = child
    return element


def _either(*candidates: HtmlElement | None) -> HtmlElement | None:
    """The first candidate found (elements must not be truth-tested: lxml warns)."""
    return next((c for c in candidates if c is not None), None)


def _inner(element: HtmlElement | None, tag: str) -> HtmlElement | None:
    """The first `tag` element inside `element` (itself excluded)."""
    if element is None:
        return None
    return next((e for e in element.iterdescendants(tag)), None)


IPS4_PER_PAGE = 25  # forums_posts_per_page default (FORUMS.md 5.2)

# ---------------------------------------------------------------------------------------------
# URLs (FORUMS.md 5.1/5.2 "Pagination"): the page marker keeps the style of the URL it came in.

_TOPIC_ID = re.compile(r"[?&]showtopic=(\d+)|/topic/(\d+)(?:-|/|$)")
_PAGE_MARKERS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("furl_st", re.compile(r"/page__st__(\d+)")),  # IPB 3 (older): offset in the path
    ("furl_dash", re.compile(r"/page-(\d+)")),  # IPB 3: /topic/1-slug/page-2
    ("path", re.compile(r"/page/(\d+)")),  # IPS 4 (later): /topic/1-slug/page/2/
    ("query_page", re.compile(r"[?&]page=(\d+)")),
    ("query_st", re.compile(r"[?&]st=(\d+)")),
)


def _topic_id(url: str) -> str | None:
    found = _TOPIC_ID.search(url)
    return (found.group(1) or found.group(2)) if found else None


def _strip_query_param(url: str, name: str) -> str:
    url = re.sub(rf"([?&]){name}=\d+&?", r"\1", url)
    return url.rstrip("?&")


def _strip_page(url: str) -> str:
    url = re.sub(r"/page__st__\d+/?|/page-\d+/?|/page/\d+/?", "/", url)
    for name in ("page", "st"):
        url = _strip_query_param(url, name)
    return url


def _with_query(url: str, param: str) -> str:
    return f"{url}{'&' if '?' in url else '?'}{param}"


# ---------------------------------------------------------------------------------------------
# Times as shown (FORUMS.md 5.1 clock_long and relative forms, 5.2 DateTime::html)

# US-English IPS 4 titles write "10/09/2017" month first; dotted Russian ones day first.
_READING = dates.Options(day_first=False)


@dataclass(slots=True)  # not frozen: read once per post, and a frozen __init__ costs a microsecond
class Shown:
    """A display time read as a naive wall time, with how precise the display is."""

    naive: datetime
    precision: timedelta  # how far the real time may be from `naive` and still show this text
    has_time: bool = True  # False for date-only displays ("9 октября, 2017")


_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_MINUTE = timedelta(minutes=1)  # a display to the minute, and the second of slack read_shown adds
_RELATIVE_MINUTE = timedelta(seconds=119)  # the same read against the fetch clock: a minute more
_DAY_WORDS = {0: ("Сегодня, ", "Today, "), 1: ("Вчера, ", "Yesterday, ")}  # days before the fetch
_TWO_DIGITS = tuple(f"{n:02d}" for n in range(100))  # "%02d", looked up: formatting costs more


def read_shown(text: str, fetched_local: datetime) -> Shown | None:
    """A display time of either version, in Russian or English; None when unreadable. Read
    by adapters/dates.py; a relative form gets a minute more slack (the fetch clock is not
    the server's)."""
    shown = dates.read(text, fetched_local, _READING)
    if shown is None:
        return None
    slack = timedelta(minutes=1) if shown.relative and shown.has_time else timedelta(seconds=1)
    return Shown(shown.at, shown.latest - shown.earliest + slack, shown.has_time)


# ---------------------------------------------------------------------------------------------
# Body blocks of both versions (FORUMS.md 5.1 quotes/edit, 5.2 quotes/spoilers/edit line)

_EDIT_IPB3 = re.compile(r"^(?:Сообщение отредактировал|This post has been edited by)\s+(.+)$", re.DOTALL)
_EDIT_IPS4 = re.compile(
    r"^(?:Изменено|Edited)\s+(?P<date>.+?)\s+(?:пользователем|by)\s+(?P<editor>.+?)"
    r"(?:\s+\((?P<reason>[^()]*)\))?$", re.DOTALL)
_CITATION = re.compile(
    r"^(?:Цитата\s*\((?P<old>[^@)]+?)\s*(?:@[^)]*)?\)"  # IPB 2/3 "Цитата(X @ date)"
    r"|Quote\s*\((?P<old_en>[^@)]+?)\s*(?:@[^)]*)?\)"
    r"|(?P<name>.+?)(?:,\s+on\s+.+?,|\s+\(.+?\))?\s+(?:сказал|писал|said|wrote)\w*\s*:?)",
    re.DOTALL)
_SPOILER_CLASSES = frozenset(("spoiler", "bbc_spoiler", "ipsSpoiler"))


def _is_edit_line(element: HtmlElement) -> bool:
    if element.tag == "p" and "edit" in class_set(element):
        return True
    return element.get("data-excludequote") is not None


def _classify(element: HtmlElement) -> Aside | None:
    value = element.get("class")
    if not value:  # most elements of a message: only the tag and two attributes can tell
        if element.tag == "blockquote":
            return "quote"
        if element.tag == "pre":
            return "code"
        if element.get("data-role") == "memberSignature":
            return "signature"
        return "drop" if element.get("data-excludequote") is not None else None
    classes = frozenset(value.split())
    if element.tag == "blockquote" or "quotemain" in classes:
        return "quote"
    if classes & _SPOILER_CLASSES:
        return "spoiler"
    if element.tag == "pre" or "codemain" in classes:
        return "code"
    if "signature" in classes or element.get("data-role") == "memberSignature":
        return "signature"
    if _is_edit_line(element) or "quotetop" in classes or "attach_wrap" in classes:
        return "drop"  # the edit notice is read on its own; quotetop is its quote's caption
    return None


def _citation_author(text: str) -> str | None:
    found = _CITATION.match(collapse(text))
    if not found:
        return None
    name = found.group("old") or found.group("old_en") or found.group("name")
    return collapse(name) if name else None


def _is_citation(element: HtmlElement) -> bool:
    return bool(class_set(element) & {"citation", "ipsQuote_citation"})


def _read_quote(element: HtmlElement) -> Quote:
    """A quote and its cited author: data attributes first, then the citation line."""
    author = element.get("data-ipsquote-username") or element.get("data-author")
    citation = _find(element, (f"./*[{_has_class('citation')}]",
                               f"./*[{_has_class('ipsQuote_citation')}]"))
    caption = element.getprevious()
    if not author and citation is not None:
        author = _citation_author(_text(citation))
    if not author and caption is not None and "quotetop" in class_set(caption):
        author = _citation_author(_text(caption))
    text = block_text(element, lambda e: _is_citation(e) or _classify(e) == "drop")
    return Quote(text=text, author=author or None)


def _read_spoiler(element: HtmlElement) -> str:
    content = _find(element, (f".//*[{_has_class('ipsSpoiler_contents')}]",
                              f".//*[{_has_class('bbc_spoiler_content')}]"))
    return block_text(content if content is not None else element)


# ---------------------------------------------------------------------------------------------
# Not-a-thread pages (FORUMS.md 5: error pages with codes, login walls, no-permission notices)

_ERROR_CODE = re.compile(r"\[#([0-9A-Z]+(?:/\d+)?)\]|(?:Код ошибки|Error code):?\s*([0-9A-Z]+/\d+)")
_NO_PERMISSION = re.compile(
    r"Вы не можете просматривать эту тему|You (?:do not|don't) have permission to view this")
_CHALLENGES = ((b"cf-chl", "Cloudflare"), (b"challenge-platform", "Cloudflare"),
               (b"ddos-guard", "DDoS-Guard"))
# Whether any mark of _CHALLENGES occurs, in one scan: a regex led by one literal byte runs a
# tight loop, where three substring searches over a page cost as much as reading two posts.
_CHALLENGE_MARK = re.compile(rb"-(?:(?<=cf-)chl|(?<=challenge-)platform|(?<=ddos-)guard)")
_OTHER_ENGINES = ((b"phpbb", "phpBB"), (b"discuz", "Discuz!"), (b"forumotion", "Forumotion"),
                  (b"forumactif", "Forumotion"), (b"jeuxvideo.com", "JV"))
_INVISION_MARKS = (b"ipboard_body", b"ipb.vars", b"ipsapp", b"ipslayout", b"invision power",
                   b"invisioncommunity", b"elcomment_", b"post_id_")


def _marked(head: bytes) -> bool:
    """Whether the lowered head of a page carries an Invision mark. The marks sit near the top
    (the body tag, the first scripts): the first few kilobytes are looked at first, then the
    whole head, so a page missing the first marks is not scanned once per mark."""
    start = head[:8192]
    return any(mark in start for mark in _INVISION_MARKS) or any(mark in head for mark in _INVISION_MARKS)


# Both versions' post blocks, and IPB 3's soft-deleted originals, in one scan of the id
# attributes (a name test on @id is far cheaper for libxml2 than a predicate on every element).
_POST_IDS = etree.XPath(
    "descendant::*/@id[starts-with(., 'elComment_') or starts-with(., 'post_id_')"
    " or starts-with(., 'postsDeleteShow_')]/..")


@dataclass(frozen=True, slots=True)
class _Posts:
    ips4: list[HtmlElement]  # `article#elComment_N`, in page order
    ipb3: list[HtmlElement]  # `#post_id_N`, in page order; empty when IPS 4 posts exist
    hiding: frozenset[HtmlElement]  # IPB 3 posts holding a `postsDeleteShow_` block


def _post_elements(doc: HtmlElement) -> _Posts:
    """The post blocks of the page; IPS 4 wins when present."""
    found = _POST_IDS(doc)
    ids = [(e, e.get("id", "")) for e in found]
    ips4 = [e for e, i in ids if e.tag == "article" and i.startswith("elComment_")]
    ipb3 = [] if ips4 else [e for e, i in ids if i.startswith("post_id_")]
    return _Posts(ips4, ipb3, _holders([e for e, i in ids if i.startswith("postsDeleteShow_")],
                                       frozenset(ipb3)))


def _holders(blocks: list[HtmlElement], posts: frozenset[HtmlElement]) -> frozenset[HtmlElement]:
    """The posts that hold any of `blocks`: only their reading looks such a block up."""
    return frozenset(a for block in blocks for a in block.iterancestors() if a in posts)


def _page_title(doc: HtmlElement) -> str:
    heading = _find(doc, ("//*[@id='elError']//h1", "//h1", "//title"))
    return collapse(_text(heading)) if heading is not None else ""


# ---------------------------------------------------------------------------------------------
# The engine


def parse(data: bytes, encoding: str | None = None) -> HtmlElement:
    """html.parse_tree (plain elements: no per-node class lookup) without libxml2's id index:
    nothing here looks elements up by id, and building it costs about 5% of the parse. The
    charset is read as a browser reads it (html.parser_input)."""
    data, encoding = parser_input(data, encoding)
    parser = etree.HTMLParser(encoding=encoding, remove_comments=True, collect_ids=False)
    root = etree.fromstring(data, parser=parser)
    return root if root is not None else parse_tree(data)  # its fallback for an empty document


class Invision(Engine):
    name = "invision"
    label = "Invision"
    default_zone = "Europe/Moscow"
    default_per_page = 20  # IPB 3 display_max_posts; IPS 4 uses 25 (IPS4_PER_PAGE)

    # -- URLs ------------------------------------------------------------------------------

    def accepts(self, url: str) -> bool:
        return url.startswith(("http://", "https://")) and _topic_id(url) is not None

    def thread_key(self, url: str) -> str:
        topic = _topic_id(url)
        if topic is None:
            raise InputError(f"{self.label}: {url}: not a topic URL (no showtopic= or /topic/N-)")
        return f"topic={topic}"

    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        url = self.normalise_url(url)
        style = next((style for style, marker in _PAGE_MARKERS if marker.search(url)), None)
        base = _strip_page(url)
        if number <= 1:
            return base
        offset = (number - 1) * (per_page or self.default_per_page)
        if style in ("furl_st", "furl_dash", "path"):
            base = base.rstrip("/") + "/"
            path = {"furl_st": f"page__st__{offset}", "furl_dash": f"page-{number}",
                    "path": f"page/{number}/"}[style]
            head, sep, query = base.partition("?") if "?/" not in base else (base, "", "")
            return f"{head}{path}{sep}{query}"
        if style == "query_st":
            return _with_query(base, f"st={offset}")
        return _with_query(base, f"page={number}")  # read by IPB 3 and IPS 4 alike

    def page_number(self, url: str, per_page: int | None = None) -> int:
        url = self.normalise_url(url)
        for style, marker in _PAGE_MARKERS:
            found = marker.search(url)
            if found:
                value = int(found.group(1))
                if style in ("furl_st", "query_st"):
                    return value // (per_page or self.default_per_page) + 1
                return max(value, 1)
        return 1

    def looks_like(self, data: bytes) -> bool:
        return _marked(data[:200_000].lower())

    # -- Pages -----------------------------------------------------------------------------

    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        self._check_bytes(data, ctx)
        doc = parse(data)
        found = _post_elements(doc)
        if not found.ips4 and not found.ipb3:
            raise self.not_a_thread(ctx, self._why_no_posts(doc))
        reader = (Ips4Reader(self, doc, ctx) if found.ips4
                  else Ipb3Reader(self, doc, ctx, found.hiding))
        posts = tuple(reader.post(element, index)
                      for index, element in enumerate(found.ips4 or found.ipb3))
        return self.page(reader, posts, ctx)

    def page(self, reader: _Reader, posts: tuple[Post, ...], ctx: PageContext) -> Page:
        return Page(
            url=ctx.url,
            number=reader.number,
            count=reader.count(),
            posts=posts,
            thread_id=_topic_id(ctx.url),
            title=reader.title(),
            next_url=reader.next_url(),
        )

    def _check_bytes(self, data: bytes, ctx: PageContext) -> bytes:
        """Challenge pages and other engines first, then a cut download (base.py contract); the
        page's lower-cased head is given back."""
        head = data[:200_000].lower()  # lowered once: on a saved page this costs as much as a post
        if _CHALLENGE_MARK.search(head):  # then which one, in the order of _CHALLENGES
            who = next(who for mark, who in _CHALLENGES if mark in head)
            raise self.not_a_thread(ctx, f"challenge page: {who}")
        if not _marked(head):
            other = next((who for mark, who in _OTHER_ENGINES if mark in head), None)
            raise self.not_a_thread(
                ctx, f"a {other} page" if other else "no Invision markup")
        if b"</html>" not in data[-4096:].lower():
            raise TruncatedPage(
                f"{self.label}: {ctx.url}: truncated page (ends before </html> after {len(data)} bytes)")
        return head

    def _why_no_posts(self, doc: HtmlElement) -> str:
        text = collapse(_text(doc))
        code = _ERROR_CODE.search(text)
        if code or _all(doc, "//*[@id='elError']"):
            suffix = f" [#{code.group(1) or code.group(2)}]" if code else ""
            return f"error page: {_page_title(doc)}{suffix}"
        denied = _NO_PERMISSION.search(text)
        if denied:
            return f"no permission: {denied.group(0)}"
        if _all(doc, "//form//input[@type='password']"):
            return f"login wall: {_page_title(doc)}"
        return "no posts found"


# ---------------------------------------------------------------------------------------------
# Per-version readers: where each version keeps a post's parts. Shared steps live in _Reader.


class _Reader:
    per_page: int

    def __init__(self, engine: Invision, doc: HtmlElement, ctx: PageContext) -> None:
        self.engine, self.doc, self.ctx = engine, doc, ctx
        self.now = times.local_now(ctx.fetched_at, ctx.zone)
        self.number = self.shown_number() or engine.page_number(ctx.url, self.per_page)

    # Page-level parts, per version
    def shown_number(self) -> int | None:
        raise NotImplementedError

    def count(self) -> int | None:
        raise NotImplementedError

    def next_url(self) -> str | None:
        raise NotImplementedError

    def title(self) -> str | None:
        heading = self.title_heading[0]
        return collapse(_text(heading)) or None if heading is not None else None

    @cached_property
    def title_heading(self) -> tuple[HtmlElement | None, int]:
        """The element the title is read from, and which of the paths found it."""
        return _find_by(self.doc, (f"descendant::h1[{_has_class('ipsType_pagetitle')}]",
                                   f"descendant::h1[{_has_class('ipsType_pageTitle')}]",
                                   "descendant::title"))

    def post(self, element: HtmlElement, index: int) -> Post:
        raise NotImplementedError

    # Shared steps
    def fail(self, post_id: str, what: str) -> ForumError:
        return ForumError(f"{self.engine.label}: {self.ctx.url}: post {post_id}: {what}")

    def absolute(self, href: str | None) -> str | None:
        if not href:
            return None
        if _is_plain_absolute(href):
            return href  # what urljoin would give back, without parsing two URLs
        return urljoin(self.ctx.url, href)

    @cached_property
    def base_url(self) -> str:
        """The page's URL without page markers: the base of made-up permalinks."""
        return self.engine.normalise_url(self.ctx.url)

    def body(self, post_id: str, message: HtmlElement | None) -> Body:
        if message is None:
            raise self.fail(post_id, "no message body found")
        return split_body(message, _classify, _read_quote, read_aside=_read_aside)

    def signature(self, body: Body, found: HtmlElement | None) -> Body:
        """Both versions print the signature after the message, outside it."""
        if found is None or body.signature:
            return body
        return Body(own=body.own, bold=body.bold, quotes=body.quotes, spoilers=body.spoilers,
                    code=body.code, signature=block_text(found))

    def when(self, post_id: str, machine: datetime | None, shown: tuple[str, ...],
             ) -> tuple[datetime, tuple[str, ...]]:
        """Machine time wins; the display text is checked against it (DESIGN.md "Time")."""
        text, reading = (machine is not None and self._stock_reading(machine, shown)
                         or self._reading(shown))
        if machine is not None:
            if reading is not None and self._disagrees(machine, reading):
                return machine, (self._disagreement(machine, text, reading),)
            return machine, ()
        if reading is None:
            raise self.fail(post_id, f"cannot read the post time {shown[0] if shown else ''!r}")
        local = times.localise(reading.naive, self.ctx.zone)
        notes = [local.note] if local.note else []
        if not reading.has_time:
            notes.append(f"the page shows no time of day ({text!r}); 00:00 assumed")
        return local.utc, tuple(notes)

    def _stock_reading(self, machine: datetime, shown: tuple[str, ...],
                       ) -> tuple[str, Shown] | None:
        """What _reading gives when the first display is the machine time to the minute, as
        the stock skins print it with a clock (IPB 3's clock_long "09 October 2017 - 22:00" or
        "Вчера, 22:00", IPS 4's titles "28.12.2017 21:00" and "10/09/2017 09:20 PM"):
        dates.read reads those forms to the minute (tests/test_invision_fastpath.py holds the
        two alike), and most posts show one."""
        if not shown:
            return None
        local = times.to_local(machine, self.ctx.zone)
        year, month, day, hour, minute = local.year, local.month, local.day, local.hour, local.minute
        if not 1970 <= year < 2100:
            return None
        text, two = shown[0], _TWO_DIGITS
        if text.endswith("M"):  # a US-English title, "10/09/2017 09:20 PM"
            if text != (f"{two[month]}/{two[day]}/{year} "
                        f"{two[hour % 12 or 12]}:{two[minute]} {'PM' if hour >= 12 else 'AM'}"):
                return None
            precision = _MINUTE
        elif text[-5:] != f"{two[hour]}:{two[minute]}":
            return None
        elif (text[:-5] == f"{two[day]} {_MONTHS[month - 1]} {year} - "
                or text[:-5] == f"{two[day]}.{two[month]}.{year} "):
            precision = _MINUTE
        elif text[:-5] in _DAY_WORDS.get(self.now.toordinal() - local.toordinal(), ()):
            precision = _RELATIVE_MINUTE
        else:
            return None
        return text, Shown(datetime(year, month, day, hour, minute), precision)

    def _reading(self, shown: tuple[str, ...]) -> tuple[str, Shown | None]:
        """The first display that reads with a clock, else the first that reads at all (a
        date-only display is the less precise); later displays are not read."""
        first: tuple[str, Shown | None] = ("", None)
        for text in shown:
            reading = read_shown(text, self.now) if text else None
            if reading is not None:
                if reading.has_time:
                    return text, reading
                if first[1] is None:
                    first = (text, reading)
        return first

    def _disagrees(self, machine: datetime, reading: Shown) -> bool:
        shown = times.localise(reading.naive, self.ctx.zone).utc
        if not reading.has_time:
            return times.to_local(machine, self.ctx.zone).date() != reading.naive.date()
        return abs(machine - shown) >= reading.precision

    def _disagreement(self, machine: datetime, text: str, reading: Shown) -> str:
        shown = reading.naive.strftime("%Y-%m-%d %H:%M" if reading.has_time else "%Y-%m-%d")
        return (f"time shown {text!r} reads {shown} in {self.ctx.zone}, but the page's machine "
                f"time is {machine:%Y-%m-%d %H:%M} UTC; the machine time is used")

    def edit_date(self, text: str) -> datetime | None:
        reading = read_shown(text, self.now)
        return times.localise(reading.naive, self.ctx.zone).utc if reading else None


def _is_plain_absolute(href: str) -> bool:
    """Whether urljoin(base, href) is `href` itself whatever the base: an http(s) URL that
    urlsplit/urlunsplit give back unchanged (no empty "?", "#" or ";" parts they would drop,
    no tab or newline they remove, no bracketed or non-ASCII host they check)."""
    return (href.startswith(("http://", "https://")) and href.isascii()
            and not href.startswith(("http:///", "https:///"))  # no host: resolved on the base
            and not href.endswith(("?", "#")) and not _URL_ODD.search(href))


_URL_ODD = re.compile(r"\?#|[;\[\]\t\n\r]")


def _read_aside(element: HtmlElement) -> str:
    if class_set(element) & _SPOILER_CLASSES:
        return _read_spoiler(element)
    return block_text(element)


_PROFILE_ID = re.compile(r"showuser=(\d+)|/user/(\d+)-|/profile/(\d+)-")


def _profile_id(link: HtmlElement | None) -> str | None:
    if link is None:
        return None
    return profile_id_of(link.get("href"), link.get("hovercard-id"))


def profile_id_of(href: str | None, hovercard: str | None) -> str | None:
    found = _PROFILE_ID.search(href or "")
    if found:
        return next(group for group in found.groups() if group)
    return hovercard or None


def iso(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return times.parse_iso(text)
    except InputError:
        return None  # an odd title is not fatal: the display text is read instead


_POSTED_LABELS = ("Отправлено", "Posted")  # p.posted_info's label, before the abbr
_POSTED_LABEL = re.compile(rf"^(?:{'|'.join(_POSTED_LABELS)})\s*")
_POSITION = re.compile(r"#\s*(\d+)")  # \s matches what collapse() folds: no collapse needed


# What each version's post reading looks up (see _scan; the classes of _Index.cls calls).
_IPB3_WANTED = _Wanted(("entry-content", "post", "signature", "published", "posted_info",
                        "author", "post_id", "edit"), ("itemprop",))
_IPS4_WANTED = _Wanted(("ipsComment_meta", "cAuthorPane_author"), ("data-role", "data-excludequote"))


def tagged(element: HtmlElement | None, tag: str) -> HtmlElement | None:
    """_Index.cls with a tag: the first element of a class counts only if it has that tag."""
    return element if element is not None and element.tag == tag else None


class Ipb3Reader(_Reader):
    """IPB 3.x, skin_topic.php `post` and `softDeletedPostBit` (FORUMS.md 5.1)."""

    per_page = Invision.default_per_page

    def __init__(self, engine: Invision, doc: HtmlElement, ctx: PageContext,
                 hiding: frozenset[HtmlElement]) -> None:
        self.hiding = hiding
        super().__init__(engine, doc, ctx)

    @cached_property
    def pagination_text(self) -> tuple[int, int] | None:
        """"Страница 1 из 3" / "Page 1 of 3" (li.pagejump; p.no_pages on a one-page topic)."""
        for element in _all(self.doc, f"descendant::li[{_has_class('pagejump')}]"
                                      f" | descendant::p[{_has_class('no_pages')}]"):
            found = re.search(r"(\d+)\s+(?:из|of)\s+(\d+)", collapse(_text(element)))
            if found:
                return int(found.group(1)), int(found.group(2))
        return None

    def shown_number(self) -> int | None:
        shown = self.pagination_text
        if shown:
            return shown[0]
        active = _find(self.doc, (f"descendant::li[{_has_class('page')} and {_has_class('active')}]",))
        text = collapse(_text(active)) if active is not None else ""
        return int(text) if text.isdigit() else None

    def count(self) -> int | None:
        shown = self.pagination_text
        if shown:
            return shown[1]
        last = _find(self.doc, (f"descendant::li[{_has_class('last')}]/a/@href",))
        if last is not None:
            return self.engine.page_number(str(last), self.per_page)
        return None if _all(self.doc, f"//*[{_has_class('pagination')}]") else 1

    def next_url(self) -> str | None:
        link = self.next_link[0]
        return self.absolute(str(link)) if link is not None else None

    @cached_property
    def next_link(self) -> tuple[str | None, int]:
        """The next page's href, and which of the paths found it."""
        return _find_by(self.doc, (f"descendant::li[{_has_class('next')}]/a/@href",
                                   "descendant::a[@rel='next']/@href"))

    def post(self, element: HtmlElement, index: int) -> Post:
        post_id = element.get("id", "").removeprefix("post_id_")
        found = _scan(element, _IPB3_WANTED)
        # A soft-deleted post shows its original only inside postsDeleteShow_ (moderator view).
        shown = _Index(element).by_id_prefix.get("postsDeleteShow_") if element in self.hiding else None
        scope = _scan(shown, _IPB3_WANTED) if shown is not None else found
        message = _either(tagged(scope.get("entry-content"), "div"),
                          scope.get(("itemprop", "commentText")), tagged(scope.get("post"), "div"))
        body = self.signature(self.body(post_id, message), found.get("signature"))
        abbr = _either(tagged(scope.get("published"), "abbr"), scope.get("posted_info"))
        link = _inner(found.get("post_id"), "a")
        if link is None:  # no span.post_id: the data-entry-pid link, looked up only then
            link = _Index(element).attr("data-entry-pid", post_id)
        author_link = _inner(found.get("author"), "a")
        if author_link is None:  # a skin without span.author: the hovercard, then the h3
            author_link = _Index(element).attr("hovercard-id")
        holder = author_link if author_link is not None else _Index(element).by_tag.get("h3")
        return self.finish(
            post_id, index, body=body,
            deleted=bool(class_set(element) & {"moderated", "hidden"}) or shown is not None,
            stamp=None if abbr is None else (abbr.get("title"), _text(abbr)),
            number=None if link is None else (_text(link), link.get("href")),
            author=collapse(_text(holder)) if holder is not None else "",
            author_id=_profile_id(author_link), edit=tagged(scope.get("edit"), "p"))

    def finish(self, post_id: str, index: int, *, body: Body, deleted: bool,
               stamp: tuple[str | None, str] | None, number: tuple[str, str | None] | None,
               author: str, author_id: str | None, edit: HtmlElement | None) -> Post:
        """A post from what both paths read: the abbr's title and text, the "#n" link's text
        and href, the author's name and account id, the edit line."""
        time_text = collapse(stamp[1]) if stamp is not None else ""
        if time_text.startswith(_POSTED_LABELS):
            time_text = _POSTED_LABEL.sub("", time_text)
        created, notes = self._created(post_id, stamp, time_text, deleted)
        position, permalink = self._position(number, post_id, index)
        if not author:
            raise self.fail(post_id, "no author name found")
        ctx = self.ctx
        return Post(
            id=post_id, position=position, permalink=permalink, author=author,
            author_id=author_id, created_at=created, time_text=time_text, zone=ctx.zone,
            body=body, edit=self._edit(edit), fetched_at=ctx.fetched_at, page_url=ctx.url,
            deleted=deleted, notes=notes)

    def _position(self, number: tuple[str, str | None] | None, post_id: str, index: int,
                  ) -> tuple[int, str]:
        """The "#n" permalink gives both the position and the permalink."""
        found = _POSITION.search(number[0]) if number is not None else None
        position = int(found.group(1)) if found else (self.number - 1) * self.per_page + index + 1
        href = self.absolute(number[1]) if number is not None else None
        return position, href or f"{self.base_url}#entry{post_id}"

    def _created(self, post_id: str, stamp: tuple[str | None, str] | None, time_text: str,
                 deleted: bool) -> tuple[datetime, tuple[str, ...]]:
        if stamp is None and deleted:
            note = "no post time shown for this deleted post; the fetch time stands in"
            return self.ctx.fetched_at, (note,)
        return self.when(post_id, iso(stamp[0] if stamp is not None else None), (time_text,))

    def _edit(self, line: HtmlElement | None) -> EditMarker | None:
        if line is None:
            return None
        reason = next((e for e in line.iterdescendants() if "reason" in class_set(e)), None)
        notice = block_text(line, lambda e: e is reason).split("\n")[0]
        found = _EDIT_IPB3.match(notice)
        editor, edited_at = None, None
        if found:  # "X: date": the name may hold ": ", the date never starts the remainder
            rest = found.group(1)
            for cut in (m.start() for m in re.finditer(r":\s", rest)):
                edited_at = self.edit_date(rest[cut + 1:])
                if edited_at is not None:
                    editor = rest[:cut].strip()
                    break
        return EditMarker(text=collapse(_text(line)), editor=editor, edited_at=edited_at)


class Ips4Reader(_Reader):
    """IPS 4.x, forums theme.xml postContainer and commentEditLine (FORUMS.md 5.2)."""

    def __init__(self, engine: Invision, doc: HtmlElement, ctx: PageContext) -> None:
        self.per_page = ctx.per_page or IPS4_PER_PAGE
        self.pagination = _find(doc, (f"descendant::ul[{_has_class('ipsPagination')}]",))
        super().__init__(engine, doc, ctx)

    def shown_number(self) -> int | None:
        if self.pagination is None:
            return None
        active = _find(self.pagination, (f"descendant::li[{_has_class('ipsPagination_active')}]",))
        if active is None:
            return None
        link = _find(active, ("./a",))
        value = (link.get("data-page") if link is not None else None) or collapse(_text(active))
        return int(value) if value.isdigit() else None

    def count(self) -> int | None:
        if self.pagination is None:
            return 1  # the stock template prints no pagination for a one-page topic
        pages = self.pagination.get("data-pages") or ""
        return int(pages) if pages.isdigit() else None

    def next_url(self) -> str | None:
        if self.pagination is None:
            return None
        item = _find(self.pagination, (f"descendant::li[{_has_class('ipsPagination_next')}]",))
        if item is None or "ipsPagination_inactive" in class_set(item):
            return None
        link = _find(item, ("./a",))
        return self.absolute(link.get("href")) if link is not None else None

    def post(self, element: HtmlElement, index: int) -> Post:
        post_id = element.get("id", "").removeprefix("elComment_")
        found = _scan(element, _IPS4_WANTED)
        quote_data = _QuoteData(element)  # the JSON is read only when a field is missing
        message = found.get(("data-role", "commentContent"))
        body = self.signature(self.body(post_id, message), found.get(("data-role", "memberSignature")))
        stamp = _inner(found.get("ipsComment_meta"), "time")
        machine = iso(stamp.get("datetime")) if stamp is not None else None
        if machine is None and isinstance(quote_data.get("timestamp"), int):
            machine = times.from_unix(quote_data.get("timestamp"))
        pane = found.get("cAuthorPane_author")
        if pane is None:  # a theme without the class: the aside's heading
            pane = _inner(_Index(element).by_tag.get("aside"), "h3")
        link = _inner(pane, "a")
        author = collapse(_text(link if link is not None else pane)) if pane is not None else ""
        author_id = _profile_id(link)
        if author_id is None:  # guests have no profile link
            userid = quote_data.get("userid")
            author_id = str(userid) if userid else None
        return self.finish(
            post_id, index, body=body, machine=machine,
            stamp=None if stamp is None else (stamp.get("title"), _text(stamp)),
            author=author or str(quote_data.get("username") or ""), author_id=author_id,
            permalink=self._permalink(element, post_id),
            edit=found.get(("data-excludequote", None)),
            deleted="ipsModerated" in class_set(element))

    def finish(self, post_id: str, index: int, *, body: Body, machine: datetime | None,
               stamp: tuple[str | None, str] | None, author: str, author_id: str | None,
               permalink: str | None, edit: HtmlElement | None, deleted: bool) -> Post:
        """A post from what both paths read: the <time>'s title and text, the author's name
        and account id, the permalink's href, the edit line."""
        time_text = collapse(stamp[1]) if stamp is not None else ""
        shown = (collapse(stamp[0] or ""), time_text) if stamp is not None else ()
        created, notes = self.when(post_id, machine, shown)
        if not author:
            raise self.fail(post_id, "no author name found")
        ctx = self.ctx
        return Post(
            id=post_id, position=(self.number - 1) * self.per_page + index + 1,
            permalink=self.absolute(permalink) or f"{self.base_url}#comment-{post_id}",
            author=author, author_id=author_id, created_at=created, time_text=time_text,
            zone=ctx.zone, body=body, edit=self._edit(edit), fetched_at=ctx.fetched_at,
            page_url=ctx.url, deleted=deleted, notes=notes)

    @staticmethod
    def _permalink(element: HtmlElement, post_id: str) -> str | None:
        """The href of the post's first link to itself (?do=findComment&comment=N)."""
        wanted = f"comment={post_id}"
        return next((a.get("href") for a in element.iter("a")
                     if wanted in (a.get("href") or "")), None)

    def _edit(self, line: HtmlElement | None) -> EditMarker | None:
        if line is None:
            return None
        strong = _inner(line, "strong")
        notice = collapse(_text(strong if strong is not None else line))
        found = _EDIT_IPS4.match(notice)
        if not found:
            return None
        stamp = _inner(line, "time")
        edited_at = iso(stamp.get("datetime")) if stamp is not None else None
        return EditMarker(text=collapse(_text(line)), editor=found.group("editor"),
                          edited_at=edited_at or self.edit_date(found.group("date")))


class _QuoteData:
    """A post's data-quoteData, found and read on first use: most posts never need it."""

    def __init__(self, post: HtmlElement) -> None:
        self.post = post
        self.data: dict[str, Any] | None = None

    def get(self, key: str) -> Any:
        if self.data is None:
            self.data = _quote_data(_Index(self.post).attr("data-quotedata"))
        return self.data.get(key)


def _quote_data(holder: HtmlElement | None) -> dict[str, Any]:
    """IPS 4's data-quoteData JSON (userid, username, timestamp): a fallback for author and time."""
    try:
        data = json.loads(holder.get("data-quotedata") or "") if holder is not None else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}
