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

Stock IPB 3.4 and IPS 4.1 post markup is first read by a fast path (end of the module): regexes
over the bytes find each post's chrome, and only the page chrome plus the messages go to lxml.
Anything off the stock templates makes it decline, and the page is read by the tree path.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
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
    declared_charset,
    has_class_xpath,
    parse_tree,
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
_UNREAD_BLOCKS = frozenset(("author_info", "post_controls", "cAuthorPane_info",
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
                if not _UNREAD_BLOCKS.isdisjoint(names):
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


# The message bodies by their marker attribute (besides the classes of _UNREAD_BLOCKS).
_BODY_MARKS = frozenset(("commentContent", "commentText"))
_ELEMENTS = etree.Element  # iter() filter: elements only, no processing instructions


class _Wanted:
    """What one version's post reading looks up: classes, and attributes by name and value."""

    def __init__(self, classes: tuple[str, ...], attrs: tuple[str, ...]) -> None:
        self.classes = frozenset(classes)
        self.marks = self.classes | _UNREAD_BLOCKS  # one isdisjoint() passes most elements
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
            unread = not _UNREAD_BLOCKS.isdisjoint(names)
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


def _parse(data: bytes, encoding: str | None = None) -> HtmlElement:
    """html.parse_tree (plain elements: no per-node class lookup) without libxml2's id index:
    nothing here looks elements up by id, and building it costs about 5% of the parse."""
    parser = etree.HTMLParser(encoding=encoding or declared_charset(data), remove_comments=True,
                              collect_ids=False)
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
        head = self._check_bytes(data, ctx)
        page = self._fast_page(data, ctx, head)
        if page is not None:
            return page
        doc = _parse(data)
        found = _post_elements(doc)
        if not found.ips4 and not found.ipb3:
            raise self.not_a_thread(ctx, self._why_no_posts(doc))
        reader = (_Ips4Reader(self, doc, ctx) if found.ips4
                  else _Ipb3Reader(self, doc, ctx, found.hiding))
        posts = tuple(reader.post(element, index)
                      for index, element in enumerate(found.ips4 or found.ipb3))
        return self._page(reader, posts, ctx)

    def _fast_page(self, data: bytes, ctx: PageContext, head: bytes) -> Page | None:
        """The page read from its bytes (see "The fast path" below); None when the scan cannot
        be sure to read it as the tree path does."""
        encoding = declared_charset(data)
        codec = _FAST_CODECS.get(encoding)
        if codec is None or b"\x00" in data:
            return None
        try:
            if codec != "utf-8":  # libxml2 reads a bad UTF-8 byte alone, but cuts text at a bad
                data.decode(codec)  # byte of these; the scan decodes what it reads strictly
            low = head if len(head) == len(data) else data.lower()
            ips4 = b"elComment_" in data  # IPS 4 posts win, as in _post_elements
            chrome = _scan_posts(data, low, ips4, codec)
            reader, cut = self._fast_reader(data, ctx, chrome, encoding, ips4, with_tail=False)
            page = self._page(reader, (), ctx)
            if any(low.find(word, chrome[-1].end) >= 0 for word in _tail_words(reader)):
                reader, cut = self._fast_reader(data, ctx, chrome, encoding, ips4, with_tail=True)
                page = self._page(reader, (), ctx)
            blocks = iter(cut)
            posts = tuple(reader.fast_post(post, index, next(blocks),
                                           next(blocks) if post.signature else None)
                          for index, post in enumerate(chrome))
        except (_Unsure, UnicodeDecodeError):
            return None
        return replace(page, posts=posts)

    def _fast_reader(self, data: bytes, ctx: PageContext, chrome: list[Any], encoding: str,
                     ips4: bool, with_tail: bool,
                     ) -> tuple[_Ipb3Reader | _Ips4Reader, list[HtmlElement]]:
        """The reader of the cut page (see _cut_page), and its messages and signatures."""
        doc, cut = _cut_page(data, chrome, encoding, with_tail)
        reader = _Ips4Reader(self, doc, ctx) if ips4 else _Ipb3Reader(self, doc, ctx, frozenset())
        return reader, cut

    def _page(self, reader: _Reader, posts: tuple[Post, ...], ctx: PageContext) -> Page:
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
        for mark, who in _CHALLENGES:
            if mark in head:
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
        local = times.to_local(machine, self.ctx.zone)
        if not shown or not 1970 <= local.year < 2100:
            return None
        text, hour, minute = shown[0], local.hour, local.minute
        if text.endswith("M"):  # a US-English title, "10/09/2017 09:20 PM"
            if text != (f"{local.month:02d}/{local.day:02d}/{local.year} "
                        f"{hour % 12 or 12:02d}:{minute:02d} {'PM' if hour >= 12 else 'AM'}"):
                return None
            precision = _MINUTE
        elif not text.endswith(f"{hour:02d}:{minute:02d}"):
            return None
        elif (text[:-5] == f"{local.day:02d} {_MONTHS[local.month - 1]} {local.year} - "
                or text[:-5] == f"{local.day:02d}.{local.month:02d}.{local.year} "):
            precision = _MINUTE
        elif text[:-5] in _DAY_WORDS.get((self.now.date() - local.date()).days, ()):
            precision = _RELATIVE_MINUTE
        else:
            return None
        return text, Shown(local.replace(second=0, microsecond=0, tzinfo=None, fold=0), precision)

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

    def make_post(self, **fields: object) -> Post:
        return Post(zone=self.ctx.zone, fetched_at=self.ctx.fetched_at, page_url=self.ctx.url,
                    **fields)  # type: ignore[arg-type]


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
    return _profile_id_of(link.get("href"), link.get("hovercard-id"))


def _profile_id_of(href: str | None, hovercard: str | None) -> str | None:
    found = _PROFILE_ID.search(href or "")
    if found:
        return next(group for group in found.groups() if group)
    return hovercard or None


def _iso(text: str | None) -> datetime | None:
    if not text:
        return None
    try:
        return times.parse_iso(text)
    except InputError:
        return None  # an odd title is not fatal: the display text is read instead


_POSTED_LABEL = re.compile(r"^(?:Отправлено|Posted)\s*")  # p.posted_info's label, before the abbr
_POSITION = re.compile(r"#\s*(\d+)")  # \s matches what collapse() folds: no collapse needed


# What each version's post reading looks up (see _scan; the classes of _Index.cls calls).
_IPB3_WANTED = _Wanted(("entry-content", "post", "signature", "published", "posted_info",
                        "author", "post_id", "edit"), ("itemprop",))
_IPS4_WANTED = _Wanted(("ipsComment_meta", "cAuthorPane_author"), ("data-role", "data-excludequote"))


def _tagged(element: HtmlElement | None, tag: str) -> HtmlElement | None:
    """_Index.cls with a tag: the first element of a class counts only if it has that tag."""
    return element if element is not None and element.tag == tag else None


class _Ipb3Reader(_Reader):
    """IPB 3.x, skin_topic.php `post` and `softDeletedPostBit` (FORUMS.md 5.1)."""

    per_page = Invision.default_per_page

    def __init__(self, engine: Invision, doc: HtmlElement, ctx: PageContext,
                 hiding: frozenset[HtmlElement]) -> None:
        self.hiding = hiding
        super().__init__(engine, doc, ctx)

    @cached_property
    def _pagination_text(self) -> tuple[int, int] | None:
        """"Страница 1 из 3" / "Page 1 of 3" (li.pagejump; p.no_pages on a one-page topic)."""
        for element in _all(self.doc, f"descendant::li[{_has_class('pagejump')}]"
                                      f" | descendant::p[{_has_class('no_pages')}]"):
            found = re.search(r"(\d+)\s+(?:из|of)\s+(\d+)", collapse(_text(element)))
            if found:
                return int(found.group(1)), int(found.group(2))
        return None

    def shown_number(self) -> int | None:
        shown = self._pagination_text
        if shown:
            return shown[0]
        active = _find(self.doc, (f"descendant::li[{_has_class('page')} and {_has_class('active')}]",))
        text = collapse(_text(active)) if active is not None else ""
        return int(text) if text.isdigit() else None

    def count(self) -> int | None:
        shown = self._pagination_text
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
        message = _either(_tagged(scope.get("entry-content"), "div"),
                          scope.get(("itemprop", "commentText")), _tagged(scope.get("post"), "div"))
        body = self.signature(self.body(post_id, message), found.get("signature"))
        abbr = _either(_tagged(scope.get("published"), "abbr"), scope.get("posted_info"))
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
            author_id=_profile_id(author_link), edit=_tagged(scope.get("edit"), "p"))

    def fast_post(self, chrome: _Ipb3Chrome, index: int, message: HtmlElement,
                  signature: HtmlElement | None) -> Post:
        edit = _ipb3_edit_line(message, signature) if chrome.marked else None
        return self.finish(
            chrome.post_id, index, body=self.signature(self.body(chrome.post_id, message), signature),
            deleted=chrome.deleted, stamp=chrome.stamp, number=chrome.number,
            author=chrome.author, author_id=chrome.author_id, edit=edit)

    def finish(self, post_id: str, index: int, *, body: Body, deleted: bool,
               stamp: tuple[str | None, str] | None, number: tuple[str, str | None] | None,
               author: str, author_id: str | None, edit: HtmlElement | None) -> Post:
        """A post from what both paths read: the abbr's title and text, the "#n" link's text
        and href, the author's name and account id, the edit line."""
        time_text = _POSTED_LABEL.sub("", collapse(stamp[1])) if stamp is not None else ""
        created, notes = self._created(post_id, stamp, time_text, deleted)
        position, permalink = self._position(number, post_id, index)
        if not author:
            raise self.fail(post_id, "no author name found")
        return self.make_post(
            id=post_id, position=position, permalink=permalink, author=author,
            author_id=author_id, created_at=created, time_text=time_text, body=body,
            edit=self._edit(edit), deleted=deleted, notes=notes)

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
        return self.when(post_id, _iso(stamp[0] if stamp is not None else None), (time_text,))

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


class _Ips4Reader(_Reader):
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
        machine = _iso(stamp.get("datetime")) if stamp is not None else None
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

    def fast_post(self, chrome: _Ips4Chrome, index: int, message: HtmlElement,
                  signature: HtmlElement | None) -> Post:
        edit = _ips4_edit_line(message, signature) if chrome.marked else None
        return self.finish(
            chrome.post_id, index, body=self.signature(self.body(chrome.post_id, message), signature),
            machine=chrome.machine, stamp=chrome.stamp, author=chrome.author,
            author_id=chrome.author_id, permalink=chrome.permalink, edit=edit,
            deleted=chrome.deleted)

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
        return self.make_post(
            id=post_id, position=(self.number - 1) * self.per_page + index + 1,
            permalink=self.absolute(permalink) or f"{self.base_url}#comment-{post_id}",
            author=author, author_id=author_id, created_at=created, time_text=time_text,
            body=body, edit=self._edit(edit), deleted=deleted, notes=notes)

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
        edited_at = _iso(stamp.get("datetime")) if stamp is not None else None
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


# ---------------------------------------------------------------------------------------------
# The fast path (DESIGN.md "Performance"): stock posts read from the page's bytes.
#
# A tree of the whole page, walked post by post, costs several times lxml's bare parse. Here each
# post must match its version's stock markup (the skeletons below, as the skins print them); its
# chrome (id, "#n" link or permalink, author, time) is read from the match. What must be read as
# HTML, the messages and signatures, is cut out whole and parsed in one go with the rest of the
# page (pagination, title), each in a numbered wrapper where its post's chrome was, then read by
# the tree path's own code (`finish`, `body`, `signature`, `_edit`). The parts of the chrome a
# board fills in itself (profile pane, buttons) are gaps of plain markup that must hold none of
# the classes and roles the tree path looks for. Whatever the scan is not sure of sends the page
# to the tree path: markup off the skeleton, markup that hides tags (comments, scripts) or moves
# them (tables), a "<" in an attribute value, an entity other than a few plain ones, a charset
# lxml decodes otherwise. tests/test_invision_fastpath.py holds both paths to the same Page.


class _Unsure(Exception):
    """The byte scan cannot be sure to read the page as the tree path does."""


# Charsets whose Python codec reads every valid byte as libxml2 does.
_FAST_CODECS = {"utf-8": "utf-8", "utf8": "utf-8", "windows-1251": "cp1251", "cp1251": "cp1251",
                "koi8-r": "koi8_r"}

_SKELETON = re.compile(r"<(/?)([a-z0-9]+)((?:\s+[^\s=>]+(?:=\"[^\"]*\")?)*)\s*>|\{([^{}]*)\}|[^<{]+")
_SKELETON_ATTRIBUTE = re.compile(r"\s+([^\s=>]+)(?:=\"([^\"]*)\")?")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _names_pattern(names: list[str], any_case: bool = True) -> str:
    """Any of `names` (in any case, unless told), as a trie: a tag tried costs a few tests."""
    if "" in names:
        rest = [name for name in names if name]
        return f"(?:{_names_pattern(rest, any_case)})?" if rest else ""
    branches = []
    for first in sorted({name[0] for name in names}):
        letter = f"[{first}{first.upper()}]" if any_case and first.isalpha() else re.escape(first)
        branches.append(letter + _names_pattern([n[1:] for n in names if n[0] == first], any_case))
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _template(skeleton: str) -> re.Pattern[bytes]:
    """A regex for `skeleton` (stock markup, attributes double-quoted) however it is written:
    either quote around a value, attribute names as written or lower-cased, any whitespace
    between tags, `<br>` or `<br />`. Placeholders: `{name}` captures a whole attribute value or
    a text (`{name:regex}` with its own pattern, `{name:name}` a name in phrasing tags), `{*}`
    skips one (or part of a value), `{name~tag tag}` captures a gap: markup without those tags
    (in any case), `{@name}` marks a place. An attribute written `name?=` may be absent."""
    out: list[str] = []  # whitespace is allowed before each tag (a mark after one is at its end)
    for piece in _SKELETON.finditer(skeleton.strip()):
        closing, tag, attributes, placeholder = piece.groups()
        if tag and closing:
            out.append(rf"\s*+</{tag}\s*+>")
        elif tag:
            out.append(rf"\s*+<{tag}" + "".join(map(_attribute_pattern,
                                                     _SKELETON_ATTRIBUTE.finditer(attributes))))
            out.append(r"\s*+/?>")
        elif placeholder is not None:
            out.append(_placeholder_pattern(placeholder))
        elif piece.group(0).strip():
            out.append(r"\s*+" + r"\s+".join(map(re.escape, piece.group(0).split())))
    return re.compile("".join(out).encode())


def _attribute_pattern(found: re.Match[str]) -> str:
    name, value = found.groups()
    optional = name.endswith("?")
    name = name.removesuffix("?")
    names = re.escape(name) if name == name.lower() else f"(?:{re.escape(name)}|{re.escape(name.lower())})"
    captured = [spec.partition(":")[0] for spec in _PLACEHOLDER.findall(value or "")
                if spec[0] not in "*@"]
    if value is None:
        pattern = rf"\s+{names}(?:=\"\"|='')?"
    elif captured:  # one group per capture, behind either quote (the other may not occur)
        quote = f"q_{captured[0]}"
        pattern = (rf"\s+{names}\s*=\s*(?P<{quote}>[\"'])" + _value_pattern(value, "\"'")
                   + rf"(?P={quote})")
    else:  # skipped whole or in part: either quote, the other may occur inside
        quoted = [_value_pattern(value, quote) for quote in "\"'"]
        pattern = rf"\s+{names}\s*=\s*(?:\"{quoted[0]}\"|'{quoted[1]}')"
    return f"(?:{pattern})?" if optional else pattern


def _value_pattern(value: str, quotes: str) -> str:
    """An attribute value's literal text and placeholders, inside quotes that `quotes` holds."""
    out: list[str] = []
    at = 0
    for found in _PLACEHOLDER.finditer(value):
        name, _, body = found.group(1).partition(":")
        body = body or f"[^{quotes}<>]*" + ("+" if found.end() == len(value) else "")
        out += (re.escape(value[at:found.start()]), f"(?:{body})" if name == "*" else f"(?P<{name}>{body})")
        at = found.end()
    return "".join(out) + re.escape(value[at:])


# A name as shown: text, maybe in the phrasing tags a board's group formatting puts around it
# (tags whose quoted values hold no "<"); read as string() reads it (_name_text).
_PHRASING = "(?:span|strong|b|em|i|u|s|font|small)"
_NAME_TEXT = (rf"(?:[^<>]++|</?{_PHRASING}(?=[\s/>])[^<>\"']*+(?:(?:\"[^\"<]*+\"|'[^'<]*+')"
              rf"[^<>\"']*+)*+>)*?")  # lazy: the tags closing the name's own element follow
_NAME_TAG = re.compile(rb"<[^<>\"']*+(?:(?:\"[^\"<]*+\"|'[^'<]*+')[^<>\"']*+)*+>")


def _name_text(raw: bytes | None, codec: str) -> str:
    """A captured name (`{name:name}`) as string() reads its element: the text, whitespace
    collapsed."""
    raw = raw or b""
    return collapse(_decoded(_NAME_TAG.sub(b"", raw) if b"<" in raw else raw, codec) or "")


def _placeholder_pattern(spec: str) -> str:
    if spec.startswith("@"):  # before a tag: past the whitespace that may precede it
        return rf"\s*+(?P<{spec[1:]}>)"
    name, gap, stops = spec.partition("~")
    if gap:  # text, and tags whose quoted values hold no "<" (an unmatched quote would run on
        # over what follows; no tag can hide in such a value)
        stop = _names_pattern(sorted(set(stops.split())))
        body = (rf"[^<]*+(?:<(?!/?{stop}[\s/>])[^<>\"']*+(?:(?:\"[^\"<]*+\"|'[^'<]*+')"
                rf"[^<>\"']*+)*+>[^<]*+)*+")
    else:
        name, _, body = name.partition(":")
        body = _NAME_TEXT if body == "name" else body or "[^<>]*+"
    return f"(?:{body})" if name == "*" else f"(?P<{name}>{body})"


# Entities read as libxml2 reads them in any version; any other "&" sends the page to the tree.
_PLAIN_ENTITY = re.compile(r"&(?:amp|lt|gt|quot|nbsp|#0*39|#x0*27);")
_ENTITY_TEXT = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&nbsp;": "\xa0"}


def _decoded(raw: bytes | None, codec: str) -> str | None:
    """A captured text or attribute value as lxml gives it."""
    if raw is None:
        return None
    text = raw.decode(codec)
    if "&" in text:
        if "&" in _PLAIN_ENTITY.sub("", text):
            raise _Unsure
        text = _PLAIN_ENTITY.sub(lambda e: _ENTITY_TEXT.get(e.group(0), "'"), text)
    if "\r" in text:  # the parser reads CR LF and CR as LF
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


# A comment or declaration that could hide a tag or end otherwise than it reads: a plain
# comment (no "<", ">" or "--" inside) is dropped alike by both parses.
_ODD_COMMENT = rb"!(?!--(?:(?!--)[^<>])*+-->)"

# Gaps: the markup a board fills into the chrome. The tree path must find nothing there that it
# looks for (a class, role or id it reads, one its page-level readers look for), nor any markup
# that hides or moves tags: raw text and odd comments, tables (libxml2 lets no </div> close an
# open cell), document-level tags, and h1 (the page title). Searched in the lower-cased page.
_GAP_HIDES = re.compile(rb"<(?:" + _ODD_COMMENT + rb"|\?|/?" + _names_pattern(
    "script style textarea title xmp iframe noembed noframes noscript plaintext template html "
    "head body frameset frame table caption colgroup col thead tbody tfoot tr td th h1".split(),
    any_case=False).encode() + rb"[\s/>])")
# The rest of the tag after each such attribute (a stricter test than its value alone); each
# pattern has a literal start, which the regex engine looks for fast.
_GAP_VALUES = tuple(re.compile(name + rb"\s*=([^>]*)") for name in (b"class", b"rel", b"data-role"))
_GAP_QUOTES = bytes.maketrans(b"\"'=", b"   ")
_PAGE_TOKENS = frozenset((b"pagejump", b"no_pages", b"page", b"active", b"last", b"next",
                          b"pagination", b"ipspagination", b"ipstype_pagetitle"))
_UNREAD_TOKENS = frozenset(name.lower().encode() for name in _UNREAD_BLOCKS)


def _check_gaps(low: bytes, spans: list[tuple[int, int]], tokens: frozenset[bytes],
                words: tuple[bytes, ...]) -> None:
    """A page's gaps (spans of the lower-cased page) must hold no hiding markup, no class,
    rel or role among `tokens` (lower-cased: a stricter test than the tree's), no word of
    `words`."""
    joined = b" ".join([low[a:b] for a, b in spans])
    if _GAP_HIDES.search(joined) or any(word in joined for word in words):
        raise _Unsure
    for name, pattern in zip((b"class", b"rel", b"data-role"), _GAP_VALUES):
        if name in joined and not tokens.isdisjoint(
                b" ".join(pattern.findall(joined)).translate(_GAP_QUOTES).split()):
            raise _Unsure


# A message or a signature: counted by its divs (libxml2's view when nothing hides a tag, no "<"
# sits in an attribute value and no table cell is open: libxml2 lets no </div> close one), then
# parsed as cut out (_cut_page checks the wrappers).
_DIV_EDGES = re.compile(rb"<(/?)div(?=[\s/>])[^>]*+>")
_HIDES = re.compile(rb"<(?:" + _ODD_COMMENT + rb"|\?|/?" + _names_pattern(
    "script style textarea title xmp iframe noembed noframes noscript plaintext template html "
    "head body frameset frame table caption colgroup col thead tbody tfoot tr td th".split(),
    any_case=False).encode() + rb"[\s/>])")
_LT_IN_VALUE = re.compile(rb"=\s*+(?:\"[^\"<]*+<|'[^'<]*+<)")  # apart: each has a literal start


def _block_end(low: bytes, start: int, tag_end: int) -> int:
    """Where the div whose start tag spans start..tag_end ends (in the lower-cased page)."""
    depth = 1
    for edge in _DIV_EDGES.finditer(low, tag_end):
        if edge.group(1):
            if edge.end() - edge.start() != 6 and edge.group(0)[5:-1].strip():
                raise _Unsure  # an end tag with more in it than its name
            depth -= 1
            if depth == 0:
                if (_HIDES.search(low, start, edge.end())
                        or _LT_IN_VALUE.search(low, start, edge.end())):
                    raise _Unsure
                return edge.end()
        elif edge.group(0).endswith(b"/>"):
            raise _Unsure  # libxml2 closes <div/> at once, a browser does not
        else:
            depth += 1
    raise _Unsure


# Skeleton pieces for the IPB 3 h3 header: its gaps take no element that would close it or hold
# a post part (moderator checkboxes and the like fit).
_IPB3_H3_STOPS = "div p h1 h2 h3 h4 h5 h6 ul ol li dl"
_IPB3_H3 = f"""
<h3 class="row2">{{h3_start~span {_IPB3_H3_STOPS}}}
<span class="post_id right ipsType_small desc blend_links">
<a itemprop="replyToUrl" data-entry-pid="{{*}}" href="{{permalink}}" rel="bookmark" title="{{*}}">{{number}}</a>
</span>{{h3_middle~span {_IPB3_H3_STOPS}}}
<span itemprop="creator name" class="author vcard"><a hovercard-ref="member" hovercard-id="{{hovercard}}" data-ipb="noparse" class="_hovertrigger url fn name " href="{{profile}}" title="{{*}}"><span itemprop="name">{{author:name}}</span></a></span>
{{h3_end~{_IPB3_H3_STOPS}}}</h3>"""
_IPB3_TIME = """
<p class="posted_info desc lighter ipsType_small">{*}<abbr class="published" itemprop="commentTime" title?="{title}">{shown}</abbr></p>
{@body}<div itemprop="commentText" class="post entry-content ">"""
_IPB3_START = """<div class="post_block hentry clear {state:[a-z ]*+}" id="post_id_{pid:[0-9]++}">
<a id="{*}"></a><div class="post_wrap">"""

# IPB 3.4 skin_topic.php `post` and `softDeletedPostBit` (FORUMS.md 5.1): up to the message's
# start tag, then what follows the message (the signature, when there is one, between).
_IPB3_HEAD = _template(_IPB3_START + _IPB3_H3 + """
<div class="author_info">{info~div}</div><div class="post_body">""" + _IPB3_TIME)
_IPB3_SOFT_HEAD = _template(_IPB3_START + _IPB3_H3 + """
<div class="post_body" id="postsDelete_{*}" style="{*}"><div class="post entry-content" style="{*}">{notice~div}</div></div>
<div id="postsDeleteShow_{*}" style="{*}"><div class="author_info">{info~div}</div><div class="post_body">""" + _IPB3_TIME)
_IPB3_LIKES_SKELETON = """<ul class="ipsList_inline ipsLikeBar right clearfix" id="{*}">{likes~ul div}</ul>"""
_IPB3_END_SKELETON = """<ul id="postControlsNormal_{*}" class="post_controls clear clearfix">{controls~ul div}</ul>
</div></div></div>"""
_IPB3_TAIL = _template(_IPB3_LIKES_SKELETON + _IPB3_END_SKELETON)  # no signature: one match
_IPB3_LIKES = _template(_IPB3_LIKES_SKELETON)
_IPB3_SIGNATURE = _template("""{@signature}<div class="signature" data-memberid="{*}">""")
_IPB3_END = _template(_IPB3_END_SKELETON)
_IPB3_SOFT_END = _template("""</div></div></div></div>""")

# IPS 4.1 forums theme.xml postContainer (FORUMS.md 5.2), the same way.
_IPS4_HEAD = _template(r"""
<article itemscope itemtype="http://schema.org/Comment" id="elComment_{pid:[0-9]++}" class="cPost ipsBox ipsComment ipsComment_parent ipsClearfix ipsClear ipsColumns ipsColumns_noSpacing ipsColumns_collapsePhone{state:[\w ]*+}">
<aside class="ipsComment_author cAuthorPane ipsColumn ipsColumn_medium ipsResponsive_hidePhone">
<h3 class="ipsType_sectionHead cAuthorPane_author ipsType_blendLinks ipsType_break" itemprop="creator" itemscope itemtype="http://schema.org/Person"><strong itemprop="name"><a href="{profile}" data-ipsHover data-ipsHover-target="{*}" title="{*}" class="ipsType_break">{author:name}</a></strong></h3>
<ul class="cAuthorPane_info ipsList_reset">{pane~ul div}</ul>
</aside>
<div class="ipsColumn ipsColumn_fluid">
<div id="comment-{*}_wrap" data-controller="core.front.core.comment" data-commentApp="forums" data-commentType="forums" data-commentID="{*}" data-quoteData="{*}" class="ipsComment_content ipsType_medium  ipsFaded_withHover">
<div class="ipsComment_meta ipsType_light">
<div class="ipsPos_right ipsType_light ipsType_reset ipsFaded ipsFaded_more ipsType_blendLinks">
<ul class="ipsList_inline ipsComment_tools">
<li><a class="ipsType_blendLinks" href="{permalink}" data-ipsTooltip title="#" data-ipsMenu data-ipsMenu-closeOnClick="false" id="elSharePost_{*}" data-role="shareComment"><i class="fa fa-share-alt"></i></a></li>
{tools~ul div}</ul>
</div>
<div class="ipsType_reset">
<a href="{*}" class="ipsType_blendLinks">{*}<time datetime="{datetime}" title="{title}" data-short="{*}">{shown}</time></a>
</div>
</div>
<div class="cPost_contentWrap ipsPad">
{@body}<div data-role="commentContent" class="ipsType_normal ipsType_richText ipsContained" data-controller="core.front.core.lightboxedImages">""")
_IPS4_CONTROLS_SKELETON = """<ul class="ipsComment_controls ipsClearfix" data-role="commentControls">{controls~ul div}</ul>"""
_IPS4_END_SKELETON = """</div></div></div></article>"""
_IPS4_TAIL = _template(_IPS4_CONTROLS_SKELETON + _IPS4_END_SKELETON)  # no signature: one match
_IPS4_CONTROLS = _template(_IPS4_CONTROLS_SKELETON)
_IPS4_SIGNATURE = _template("""{@signature}<div data-role="memberSignature" class="{*}">""")
_IPS4_END = _template(_IPS4_END_SKELETON)

# What the gaps must not hold (see _check_gaps), per version: the classes its reading looks for,
# the blocks whose inside it skips, the page-level readers' classes; ids and roles it reads.
_IPB3_GAP_TOKENS = frozenset((b"post_id", b"author", b"published", b"entry-content", b"signature",
                              b"edit")) | _UNREAD_TOKENS | _PAGE_TOKENS
_IPB3_GAP_WORDS = ()  # ids: _scan_posts counts them on the whole page
_IPS4_GAP_TOKENS = (frozenset((b"cauthorpane_author", b"ipscomment_meta", b"commentcontent", b"commenttext",
                               b"membersignature")) | _UNREAD_TOKENS | _PAGE_TOKENS)
_IPS4_GAP_WORDS = (b"excludequote",)  # an attribute name, in any case


@dataclass(slots=True)  # not frozen: a frozen __init__ costs a microsecond per post
class _Ipb3Chrome:
    """One IPB 3 post as the byte scan read it: what _Ipb3Reader.post finds in the tree."""

    post_id: str
    start: int
    end: int
    deleted: bool
    number: tuple[str, str | None]
    author: str
    author_id: str | None
    stamp: tuple[str | None, str]
    body: tuple[int, int]
    signature: tuple[int, int] | None
    marked: bool  # whether the message or signature may hold an edit line (_may_hold_edit_line)
    soft: bool  # a soft-deleted post, shown to a moderator


@dataclass(slots=True)
class _Ips4Chrome:
    """One IPS 4 post as the byte scan read it: what _Ips4Reader.post finds in the tree."""

    post_id: str
    start: int
    end: int
    deleted: bool
    machine: datetime
    stamp: tuple[str | None, str]
    author: str
    author_id: str
    permalink: str
    body: tuple[int, int]
    signature: tuple[int, int] | None
    marked: bool


def _may_hold_edit_line(low: bytes, spans: tuple[tuple[int, int] | None, ...],
                        words: tuple[bytes, ...]) -> bool:
    """Whether the message or signature (spans of the lower-cased page) may hold a child the
    tree path reads (the edit line): a word of `words`, or a character reference that could
    spell one. Most posts hold none, and their children need no look."""
    for span in spans:
        if span is not None:
            for word in words:
                if low.find(word, *span) >= 0:
                    return True
    return False


_IPB3_EDIT_WORDS = (b"edit", b"signature", b"&#")
_IPS4_EDIT_WORDS = (b"excludequote", b"membersignature", b"&#")
_IPB3_STATES = frozenset(("clearfix", "moderated", "hidden"))
_IPS4_STATES = frozenset(("ipsModerated",))


def _state(found: re.Match[bytes], allowed: frozenset[str]) -> frozenset[str]:
    """The post block's classes past the stock ones, when all are known ones."""
    state = frozenset(found.group("state").decode("ascii").split())
    if not state <= allowed:
        raise _Unsure
    return state


def _cut(low: bytes, found: re.Match[bytes], name: str) -> tuple[int, int]:
    """The span of the block whose start tag `found` ends with, marked `{@name}`."""
    return found.start(name), _block_end(low, found.start(name), found.end())


def _read_ipb3(data: bytes, low: bytes, start: int, codec: str, gaps: list[tuple[int, int]],
               ) -> _Ipb3Chrome:
    """The post's head up to the message, the message counted by its divs, then what follows:
    likes and buttons, a signature between them, or the soft-deleted post's end."""
    head = _IPB3_HEAD.match(data, start) or _IPB3_SOFT_HEAD.match(data, start)
    if head is None:
        raise _Unsure
    body = _cut(low, head, "body")
    gaps += (head.span("h3_start"), head.span("h3_middle"), head.span("h3_end"), head.span("info"),
             head.span("author"))  # a name's formatting tags must hold no marker either
    signature = None
    if head.re is _IPB3_SOFT_HEAD:
        gaps.append(head.span("notice"))
        end = _IPB3_SOFT_END.match(data, body[1])
    elif (end := _IPB3_TAIL.match(data, body[1])) is not None:
        gaps += (end.span("likes"), end.span("controls"))
    else:
        likes = _IPB3_LIKES.match(data, body[1])
        if likes is None:
            raise _Unsure
        found = _IPB3_SIGNATURE.match(data, likes.end())
        if found is not None:
            signature = _cut(low, found, "signature")
        end = _IPB3_END.match(data, signature[1] if signature else likes.end())
        if end is not None:
            gaps += (likes.span("likes"), end.span("controls"))
    if end is None:
        raise _Unsure
    state = _state(head, _IPB3_STATES)
    author = _name_text(head.group("author"), codec)
    if not author:
        raise _Unsure
    return _Ipb3Chrome(
        post_id=head.group("pid").decode("ascii"), start=start, end=end.end(),
        deleted=head.re is _IPB3_SOFT_HEAD or not state.isdisjoint(("moderated", "hidden")),
        number=(_decoded(head.group("number"), codec) or "",
                _decoded(head.group("permalink"), codec)),
        author=author,
        author_id=_profile_id_of(_decoded(head.group("profile"), codec),
                                 _decoded(head.group("hovercard"), codec)),
        stamp=(_decoded(head.group("title"), codec), _decoded(head.group("shown"), codec) or ""),
        body=body, signature=signature,
        marked=_may_hold_edit_line(low, (body, signature), _IPB3_EDIT_WORDS),
        soft=head.re is _IPB3_SOFT_HEAD)


def _read_ips4(data: bytes, low: bytes, start: int, codec: str, gaps: list[tuple[int, int]],
               ) -> _Ips4Chrome:
    """The post's head up to the message, the message counted by its divs, then the buttons,
    and a signature after them when there is one."""
    head = _IPS4_HEAD.match(data, start)
    if head is None:
        raise _Unsure
    body = _cut(low, head, "body")
    signature = None
    end = _IPS4_TAIL.match(data, body[1])
    if end is not None:
        buttons = end.span("controls")
    else:
        controls = _IPS4_CONTROLS.match(data, body[1])
        if controls is None:
            raise _Unsure
        buttons = controls.span("controls")
        found = _IPS4_SIGNATURE.match(data, controls.end())
        signature = _cut(low, found, "signature") if found is not None else None
        end = _IPS4_END.match(data, signature[1] if signature else controls.end())
        if end is None:
            raise _Unsure
    gaps += (head.span("pane"), head.span("tools"), head.span("author"), buttons)
    post_id = head.group("pid").decode("ascii")
    profile = _decoded(head.group("profile"), codec)
    permalink = _decoded(head.group("permalink"), codec)
    author = _name_text(head.group("author"), codec)
    author_id = _profile_id_of(profile, None)
    machine = _iso(_decoded(head.group("datetime"), codec))
    # The permalink is the post's first link to itself: the pane (a gap) and its author link
    # come before it.
    wanted = f"comment={post_id}"
    if (not author or author_id is None or machine is None or permalink is None
            or wanted not in permalink or wanted in (profile or "")
            or low.find(b"comment", *head.span("pane")) >= 0):
        raise _Unsure
    return _Ips4Chrome(
        post_id=post_id, start=start, end=end.end(),
        deleted="ipsModerated" in _state(head, _IPS4_STATES), machine=machine,
        stamp=(_decoded(head.group("title"), codec), _decoded(head.group("shown"), codec) or ""),
        author=author, author_id=author_id, permalink=permalink, body=body, signature=signature,
        marked=_may_hold_edit_line(low, (body, signature), _IPS4_EDIT_WORDS))


_IPB3_MARKER = re.compile(b"post_id_")
_IPS4_MARKER = re.compile(b"elComment_")


def _scan_posts(data: bytes, low: bytes, ips4: bool, codec: str) -> list[Any]:
    """Every post of the page, read at the tag holding each occurrence of its version's id
    marker: the marker must occur nowhere else, the posts must follow one another, and their
    gaps must hold nothing the tree path reads (checked once for the page)."""
    marker, read = (_IPS4_MARKER, _read_ips4) if ips4 else (_IPB3_MARKER, _read_ipb3)
    posts: list[Any] = []
    gaps: list[tuple[int, int]] = []
    for hit in marker.finditer(data):
        post = read(data, low, data.rfind(b"<", 0, hit.start()), codec, gaps)
        if posts and post.start < posts[-1].end or hit.start() - post.start > 200:
            raise _Unsure
        posts.append(post)
    if not posts:
        raise _Unsure
    if ips4:
        _check_gaps(low, gaps, _IPS4_GAP_TOKENS, _IPS4_GAP_WORDS)
    else:
        _check_gaps(low, gaps, _IPB3_GAP_TOKENS, _IPB3_GAP_WORDS)
        # Any element with such an id makes its post a soft-deleted one for the tree path.
        if data.count(b"postsDeleteShow_") != sum(post.soft for post in posts):
            raise _Unsure
    return posts


def _tail_words(reader: _Reader) -> tuple[bytes, ...]:
    """What, found after the last post, could change what `reader` read of the page without
    it. A page-level reader takes the first match in document order of the first of its paths
    that matches at all: the tail counts only for a reading that found nothing, or found it
    by a later path than one the tail could match."""
    words: list[bytes] = []
    if isinstance(reader, _Ipb3Reader):
        if reader._pagination_text is None:
            words += (b"pagejump", b"no_pages", b"active", b"last", b"pagination")
        if reader.next_link[1] > 0:
            words.append(b"next")  # li.next before a[rel=next]
    elif isinstance(reader, _Ips4Reader) and reader.pagination is None:
        words.append(b"ipspagination")
    if reader.title_heading[1] > 0:  # h1.ipsType_pagetitle before h1.ipsType_pageTitle, <title>
        words += (b"ipstype_page", b"<title")
    return tuple(words)


_CUT = etree.XPath("descendant::div[@data-tally-cut]")
_WHOLE_CUTS = etree.XPath("count(div[@data-tally-cut][count(node()) = 1 and div])")
# What may hold the posts: the page-level readers read the text of headings and pagination
# items, which would hold the posts' cut-out chrome too if the posts were inside one.
_POST_HOLDERS = frozenset(("div", "form", "main", "section", "body", "html"))


def _cut_page(data: bytes, posts: list[Any], encoding: str, with_tail: bool,
              ) -> tuple[HtmlElement, list[HtmlElement]]:
    """The page with each post's chrome cut out and its message and signature kept, each in a
    numbered wrapper, parsed in one go (what follows the last post only `with_tail`); the
    messages and signatures as elements, in order. Every post must be seen where the tree path
    sees it: what lies between the posts may hide one (an unclosed script)."""
    parts = [data[:posts[0].start]]
    count = 0
    for index, post in enumerate(posts):
        for span in (post.body, post.signature):
            if span is not None:
                parts += (b'<div data-tally-cut="%d">' % count, data[span[0]:span[1]], b"</div>")
                count += 1
        if index + 1 < len(posts):
            parts.append(data[post.end:posts[index + 1].start])
        elif with_tail:
            parts.append(data[post.end:])
    doc = _parse(b"".join(parts), encoding)
    wrappers = _CUT(doc)
    parent = wrappers[0].getparent() if len(wrappers) == count else None
    # Each wrapper a child of the same parent, holding the one div cut out and nothing else.
    if (parent is None or _WHOLE_CUTS(parent) != count
            or [wrapper.get("data-tally-cut") for wrapper in wrappers] != [str(n) for n in range(count)]):
        raise _Unsure  # a block did not parse as the element the scan cut out
    if any(holder.tag not in _POST_HOLDERS for holder in (parent, *parent.iterancestors())):
        raise _Unsure  # a page-level element (a heading, a pagination item) holding the posts
    return doc, [wrapper[0] for wrapper in wrappers]


def _ipb3_edit_line(message: HtmlElement, signature: HtmlElement | None) -> HtmlElement | None:
    """The tree path's first class-"edit" element past the chrome: _scan sees only the children
    of the message and of the signature."""
    line = None
    for child in message:
        classes = class_set(child)
        if "signature" in classes:
            raise _Unsure
        if line is None and "edit" in classes:
            line = child
    if line is None and signature is not None and any("edit" in class_set(c) for c in signature):
        raise _Unsure
    return _tagged(line, "p")


_EXCLUDED = etree.XPath("descendant::*[@data-excludequote]")


def _ips4_edit_line(message: HtmlElement, signature: HtmlElement | None) -> HtmlElement | None:
    """The tree path's first data-excludequote element past the chrome: a child of the message,
    or anything in the signature (whose inside _scan walks)."""
    line = None
    for child in message:
        if child.get("data-role") == "memberSignature":
            raise _Unsure
        if line is None and child.get("data-excludequote") is not None:
            line = child
    if line is None and signature is not None and _EXCLUDED(signature):
        raise _Unsure
    return line
