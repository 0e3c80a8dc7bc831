"""Forumotion (Forumactif, Foroactivo/forosactivos, forumotion.com and custom domains).

One engine, six stock themes (FORUMS.md §1.1): phpBB2, phpBB3, PunBB, Invision, ModernBB and
AwesomeBB, told apart by the page skeleton. Admins edit templates freely (§1.8), so a post is
found by its `post--ID` class (§1.2, on every theme), its author by the `/u{id}` profile link,
and each theme only says where to look first for the date line and the message.

Dates are display text only (§1.3): "Dom 17 Ene 2016, 12:02", "Lun 18 Jan 2016 - 21:58",
"Aujourd'hui à 21:58", "Hoy a las 21:58", "Yesterday at 12:02"... read as naive wall time in
the board's zone and localised by tally.times.

parse_page() tries the fast path first (forumotion_fast: stock pages read from their bytes);
the tree reader here reads every page it declines.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from functools import partial
from math import gcd
from urllib.parse import urljoin, urlsplit

from lxml import etree
from lxml import html as lxml_html
from lxml.html import HtmlElement

from tally import times
from tally.adapters import dates
from tally.adapters.base import Engine, PageContext
from tally.adapters.html import (
    Aside,
    block_text,
    class_set,
    collapse,
    first,
    has_class_xpath,
    parser_input,
    split_body,
)
from tally.errors import TruncatedPage
from tally.model import Body, EditMarker, Page, Post, Quote


def _c(name: str) -> str:
    """has_class_xpath(name), with a cheap substring test first: the concat/normalize-space
    test costs far more, and most elements of a post fail the substring test already."""
    return f"contains(@class, '{name}') and {has_class_xpath(name)}"


# The text of an element, as "".join(itertext()) gives it but read by libxml2 in one go
# (several times faster than building the string from Python).
_TEXT = etree.XPath("string()")


def _text(element: HtmlElement) -> str:
    if not len(element):  # a leaf: its text is all of it, without an XPath run
        return element.text or ""
    return str(_TEXT(element))


_PARSERS = threading.local()  # lxml parsers are not to be shared between threads


def _parse(data: bytes) -> HtmlElement:
    """parse_tree(data), with one parser per charset and thread (building a parser costs a
    tenth of parsing a small page) and without the id index, which nothing here reads. A
    windows-1252 page is decoded as browsers do (html.parser_input)."""
    data, charset = parser_input(data)
    root = etree.fromstring(data, parser=parser(charset))
    if root is None:
        return lxml_html.document_fromstring(b"<html></html>")
    return root


def parser(charset: str) -> etree.HTMLParser:
    """The HTML parser for `charset` on this thread (see _parse)."""
    parsers = _PARSERS.__dict__.setdefault("by_charset", {})
    found = parsers.get(charset)
    if found is None:
        found = parsers[charset] = etree.HTMLParser(encoding=charset, remove_comments=True,
                                                    collect_ids=False)
    return found


# ---------------------------------------------------------------------------------------------
# Themes (FORUMS.md §1.1, §1.2): where each stock viewtopic_body puts the author, date, message.


def _paths(*xpaths: str) -> tuple[etree.XPath, ...]:
    """Compiled once. Paths use `descendant::` rather than `.//` (descendant-or-self::node()/
    child::), which makes libxml2 visit every text node too and costs about twice as much."""
    return tuple(etree.XPath(path) for path in xpaths)


def _ca(name: str) -> str:
    """_c(name) for a class attribute node itself (`.`)."""
    return f"contains(., '{name}') and contains(concat(' ', normalize-space(.), ' '), ' {name} ')"


def _classed(tag: str, name: str, unless: str | None = None) -> str:
    """An XPath step to the `tag` descendants whose class list holds `name` (and not `unless`),
    through their class attributes: `descendant::tag[_c(name)]` tests @class from every `tag`,
    building a node-set each time, and costs about a quarter more."""
    test = _ca(name) + (f" and not({_ca(unless)})" if unless else "")
    return f"descendant::{tag}/@class[{test}]/.."


@dataclass(frozen=True, slots=True)
class Theme:
    name: str
    author: tuple[etree.XPath, ...]  # containers holding the poster's name (and /u link)
    date: tuple[etree.XPath, ...]  # containers whose text ends with {POST_DATE(_NEW)}
    message: tuple[etree.XPath, ...]  # the element holding {MESSAGE}


THEMES: dict[str, Theme] = {
    "phpbb2": Theme(
        "phpbb2",
        author=_paths(_classed("span", "name")),
        date=_paths(_classed("span", "postdetails", unless="poster-profile")),
        message=_paths(_classed("div", "postbody") + "/div[1]"),
    ),
    "phpbb3": Theme(
        "phpbb3",
        author=_paths(_classed("div", "postprofile") + "/descendant::dt",
                      _classed("p", "author")),
        date=_paths(_classed("p", "author")),
        message=_paths(_classed("div", "content") + "/div[1]"),
    ),
    "punbb": Theme(
        "punbb",
        author=_paths(_classed("h4", "username")),
        date=_paths(_classed("div", "posthead") + "/h2", _classed("div", "posthead")),
        message=_paths(
            _classed("div", "entry-content") + f"/div[not({_c('vote')})][1]/div[1]",
            _classed("div", "entry-content"),
        ),
    ),
    "invision": Theme(
        "invision",
        author=_paths(_classed("dl", "postprofile-details"), _classed("div", "postprofile")),
        date=_paths(_classed("div", "postbody-head") + "/" + _classed("p", "author"),
                    _classed("p", "author")),
        message=_paths(_classed("div", "post-entry") + "/div[1]"),
    ),
    "modernbb": Theme(
        "modernbb",
        author=_paths(_classed("div", "postprofile-name"),
                      _classed("div", "postprofile") + "/descendant::dt"),
        date=_paths(_classed("div", "topic-date")),
        message=_paths(_classed("div", "content") + "/div[1]"),
    ),
    "awesomebb": Theme(
        "awesomebb",
        author=_paths(_classed("span", "post-author-name"), _classed("aside", "post-aside")),
        date=_paths(_classed("span", "post-date"), _classed("div", "post-footer")),
        message=_paths(_classed("div", "post-content")),
    ),
}


def detect_theme(root: HtmlElement, data: bytes | None = None) -> str | None:
    """The stock theme from the page skeleton (FORUMS.md §1.1, fam.js order), or None.
    `data`, the page's bytes, lets a page without "post-wrap" skip the whole-page scan."""
    body = root.find("body")
    body_id = (body.get("id") if body is not None else None) or ""
    classes, ids, links = _skeleton(root, data is None or b"post-wrap" in data)
    if "bodylinewidth" in classes:
        return "phpbb2"
    if body_id == "phpbb" or "fa_edge" in ids:
        return "phpbb3"
    if "pun" in classes:
        return "punbb"
    if "ipbwrapper" in ids:
        return "invision"
    if body_id == "modernbb":
        return "modernbb"
    if "awesomebb" in links or "post-wrap" in classes:
        return "awesomebb"
    return None


def _skeleton(root: HtmlElement, post_wrap: bool) -> tuple[set[str], set[str], str]:
    """Class names, ids and stylesheet links of the page's outer layout (one pass each)."""
    values = _OUTER_CLASSES(root) + (_POST_WRAP_CLASSES(root) if post_wrap else [])
    classes = {c for value in values for c in value.split()}
    return classes, set(_OUTER_IDS(root)), " ".join(_STYLESHEETS(root)).lower()


def _strings(path: str) -> etree.XPath:
    """A compiled XPath whose strings are plain str: no element behind each one to build."""
    return etree.XPath(path, smart_strings=False)


# Skeleton markers sit high in the tree (body's first levels), where a scan is cheap.
_OUTER_CLASSES = _strings("/html/body/@class | /html/body/*/@class | /html/body/*/*/@class")
# ...but AwesomeBB's post-wrap may sit anywhere: a whole-page scan, run only when the bytes
# hold the word.
_POST_WRAP_CLASSES = _strings("//div[contains(@class, 'post-wrap')][1]/@class")
_OUTER_IDS = _strings("/html/body/*/@id | /html/body/*/*/@id")
_STYLESHEETS = _strings("/html/head/link/@href")


def _theme_order(theme: str | None) -> tuple[Theme, ...]:
    """The detected theme first, then every other one: overridden templates mix them (§1.8)."""
    head = (THEMES[theme],) if theme else ()
    return head + tuple(t for t in THEMES.values() if t.name != theme)


# Each theme's order, built once rather than for every page.
_THEME_ORDERS = {name: _theme_order(name) for name in (*THEMES, None)}


# ---------------------------------------------------------------------------------------------
# Dates (FORUMS.md §1.3): the board's date format is configurable; these cover the stock forms.

@dataclass(frozen=True, slots=True)
class ShownTime:
    text: str  # as shown ("Dom 17 Ene 2016, 12:02")
    naive: datetime  # wall time in the board's zone


def find_time(text: str, fetched_local: datetime) -> ShownTime | None:
    """The LAST date-and-time in `text`: it ends the header line, after a subject that may
    itself hold a date (phpBB2's "Tema: … {POST_DATE}"). Read by adapters/dates.py."""
    shown = dates.find_last(text, fetched_local)
    return ShownTime(shown.text, shown.at) if shown is not None else None


# ---------------------------------------------------------------------------------------------
# Edit notice (FORUMS.md §1.4): phpBB2 wording, in the board's language.

EDIT_RE = re.compile(
    r"(?:[ÚU]ltima\s+edici[óo]n\s+por|Derni[èe]re\s+[ée]dition\s+par|Last\s+edited\s+by"
    r"|[ÚU]ltima\s+edi[çc][ãa]o\s+por)\s+(?P<editor>.+?)\s+(?:el|le|on|em)\s+(?P<when>.+?)"
    r"\s*[,;]\s*(?:editado|[ée]dit[ée]|edited)\s+(?P<times>\d+)\s+"
    r"(?:vez|veces|fois|times?|vezes)\b",
    re.IGNORECASE,
)

# What every EDIT_RE match holds ("… 2 veces"), under the same case rules: a search that
# starts only at digits, so it rules out most lines far faster than EDIT_RE itself.
_EDIT_HINT = re.compile(r"\d\s+(?:ve[zc]|fois|time)", re.IGNORECASE)


def read_edit(line: str, ctx: PageContext, fetched_local: datetime) -> EditMarker | None:
    if not _EDIT_HINT.search(line):
        return None
    match = EDIT_RE.search(line)
    if not match:
        return None
    shown = find_time(match.group("when"), fetched_local)
    edited_at = times.localise(shown.naive, ctx.zone).utc if shown else None
    return EditMarker(
        text=collapse(line),
        editor=collapse(match.group("editor")),
        edited_at=edited_at,
        times=int(match.group("times")),
    )


# ---------------------------------------------------------------------------------------------
# Message blocks (FORUMS.md §1.5): dl.codebox quotes/code, dl.spoiler, dl.hidecode, and the
# blockquote forms of newer templates.

_CODE_CAPTION = re.compile(r"^(code|c[óo]digo|codice|код)\s*:?$", re.IGNORECASE)
_QUOTE_CAPTION = re.compile(
    r"^(?P<author>.+?)\s+(?:escribi[óo]|a\s+[ée]crit|wrote|ha\s+scritto|escreveu|написал\(?а?\)?)"
    r"\s*:?$",
    re.IGNORECASE,
)
_SIGNATURE_CLASSES = frozenset(("signature_div", "sig-content", "post-signature", "signature"))
_SPOILER_CLASSES = frozenset(("spoiler", "hidecode", "spoiler_content", "spoiler-content"))
_DROP_CLASSES = frozenset(("attachbox", "vote"))


def _caption(element: HtmlElement) -> str:
    """The text of a block's caption: its first dt child, else cite child, else cite in a div
    child, else child of class "cite" (what first() finds by XPath, in one pass over the
    children: this runs for every quote and code box)."""
    found: list[HtmlElement | None] = [None, None, None, None]
    for child in element:
        tag = child.tag
        if tag == "dt":
            found[0] = found[0] if found[0] is not None else child
        elif tag == "cite":
            found[1] = found[1] if found[1] is not None else child
        elif tag == "div" and found[2] is None:
            found[2] = next(child.iterchildren("cite"), None)
        if found[3] is None and tag.__class__ is str and _has_class(child, "cite"):
            found[3] = child
    caption = next((c for c in found if c is not None), None)
    return collapse(_text(caption)) if caption is not None else ""


# Text nodes that may start an edit notice (§1.4 wordings), found by libxml2 in one pass.
# Every word holds "di": testing it first spares most text nodes the five tests.
_EDIT_WORDS = etree.XPath(
    "descendant::text()[contains(., 'di')][contains(., 'dición') or contains(., 'dicion')"
    " or contains(., 'dition') or contains(., 'edited') or contains(., 'dição')]"
)
EDIT_WORD = re.compile("dición|dicion|dition|edited|dição")
PROFILE_LINK = re.compile(r"/u(\d+)(?:[-/?#]|$)")  # /u{id} or /u{id}-slug (§1.2)
_MAYBE_BLOCK_TAGS = frozenset(("blockquote", "pre", "code"))


def classify(element: HtmlElement) -> Aside | None:
    tag = element.tag
    if tag not in _MAYBE_BLOCK_TAGS and not element.get("class"):
        return None  # the common case, kept cheap: most message markup has no class
    classes = class_set(element)
    if classes & _SIGNATURE_CLASSES:
        return "signature"
    if classes & _SPOILER_CLASSES:
        return "spoiler"
    if classes & _DROP_CLASSES:
        return "drop"
    if tag == "dl" and "codebox" in classes:
        return "code" if _CODE_CAPTION.match(_caption(element)) else "quote"
    if tag == "blockquote" or (tag in ("div", "td") and "quote" in classes):
        return "quote"
    if tag in ("pre", "code") or "codebox" in classes or "code" in classes:
        return "code"
    return None


def _caption_node(element: HtmlElement) -> bool:
    # dd.spoiler_closed may hold the spoiler's text itself (§1.5 is unsure): keep it.
    return element.tag in ("dt", "cite") or "cite" in (element.get("class") or "").split()


def read_quote(element: HtmlElement) -> Quote:
    """A quote's text (nested quotes included) and its cited author ("Zven escribió:")."""
    match = _QUOTE_CAPTION.match(_caption(element))
    return Quote(
        text=block_text(element, _caption_node),
        author=collapse(match.group("author")) if match else None,
    )


def read_aside(element: HtmlElement) -> str:
    return block_text(element, _caption_node)


# ---------------------------------------------------------------------------------------------
# URLs (FORUMS.md §1.6): /t{id}-{slug}, page N at /t{id}p{(N-1)*K}-{slug}.

TOPIC_PATH = re.compile(r"^/t(?P<id>\d+)(?:p(?P<start>\d+))?(?:-(?P<slug>[^/?#]*))?$")
VIEWTOPIC = re.compile(r"^/viewtopic$")
_PAGES_JS = re.compile(r"start\s*=\s*\(start\s*>\s*(\d+)\)\s*\?\s*\1\s*:\s*start;")
_PER_PAGE_JS = re.compile(r"start\s*=\s*\(start\s*-\s*1\)\s*\*\s*(\d+);")
_POST_CLASS = re.compile(r"(?:^|\s)post--(\d+)(?:\s|$)")
_HIDDEN_BYTES = re.compile(rb"showHiddenMessage\(\d+\)|hidden-title--\d+")
_HIDDEN_REF = re.compile(r"showHiddenMessage\((\d+)\)|hidden-title--(\d+)")


@dataclass(frozen=True, slots=True)
class TopicUrl:
    base: str  # scheme://host
    topic: str
    start: int
    slug: str


def split_topic_url(url: str) -> TopicUrl | None:
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None
    match = TOPIC_PATH.match(parts.path)
    if match:
        return TopicUrl(f"{parts.scheme}://{parts.netloc.lower()}", match["id"],
                        int(match["start"] or 0), match["slug"] or "")
    query = dict(p.partition("=")[::2] for p in parts.query.split("&") if p)
    if VIEWTOPIC.match(parts.path) and query.get("t", "").isdigit():
        start = int(query["start"]) if query.get("start", "").isdigit() else 0
        return TopicUrl(f"{parts.scheme}://{parts.netloc.lower()}", query["t"], start, "")
    return None


# ---------------------------------------------------------------------------------------------
# The engine

# What a Forumotion page names (its CDN, its brands), for looks_like().
_MARKERS = (b"illiweb.com", b"forumotion", b"forumactif", b"foroactivo", b"forosactivos")


class Forumotion(Engine):
    name = "forumotion"
    label = "Forumotion"
    default_zone = "Europe/Madrid"
    default_per_page = 15

    # -- URLs -------------------------------------------------------------------------------

    def accepts(self, url: str) -> bool:
        return split_topic_url(self.normalise_url(url)) is not None

    def _topic(self, url: str) -> TopicUrl:
        topic = split_topic_url(self.normalise_url(url))
        if topic is None:
            raise ValueError(f"{self.label}: {url}: not a Forumotion topic URL (/t123-slug)")
        return topic

    def thread_key(self, url: str) -> str:
        topic = self._topic(url)
        return f"{urlsplit(topic.base).netloc}/t{topic.topic}"

    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        return self._page_of(self._topic(url), number, per_page)

    def _page_of(self, topic: TopicUrl, number: int, per_page: int | None = None) -> str:
        start = (max(number, 1) - 1) * (per_page or self.default_per_page)
        offset = f"p{start}" if start else ""
        return f"{topic.base}/t{topic.topic}{offset}-{topic.slug}"

    def page_number(self, url: str, per_page: int | None = None) -> int:
        return self._topic(url).start // (per_page or self.default_per_page) + 1

    def looks_like(self, data: bytes) -> bool:
        head = data[:200_000]
        if any(m in head for m in _MARKERS):  # as most pages spell them: no lower-case copy
            return True
        head = head.lower()
        return any(m in head for m in _MARKERS) or (
            b"post--" in head and b"showhiddenmessage" in head
        )

    # -- parsing ----------------------------------------------------------------------------

    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        # The closing tag in the last 8 KiB, searched from the end (where it is) before any
        # lower-case copy is made.
        if (data.rfind(b"</html", max(len(data) - 8192, 0)) < 0
                and b"</html" not in data[-8192:].lower()):
            raise TruncatedPage(
                f"{self.label}: {ctx.url}: truncated page (no closing </html>; cut download?)"
            )
        if not self.looks_like(data):
            raise self.not_a_thread(ctx, "no Forumotion markup; another engine's page?")
        return forumotion_fast.fast_page(self, data, ctx) or self.tree_page(data, ctx)

    def tree_page(self, data: bytes, ctx: PageContext) -> Page:
        """parse_page() by the page's whole tree: what any page gets, and stock pages too when
        the fast path (forumotion_fast) is not sure of them."""
        root = _parse(data)
        signatures: list[HtmlElement] = []
        elements = _post_elements(root, signatures)
        if not elements:
            raise self.not_a_thread(ctx, _why_no_posts(root))
        topic = split_topic_url(self.normalise_url(ctx.url))
        resolve = _Resolver(ctx.url)
        text = data.decode("utf-8", "replace") if b"do_pagination_start" in data else ""
        linked = _once(partial(_linked_starts, root, resolve))  # read only if needed
        per_page = (js_per_page(text) or ctx.per_page
                    or _per_page_from_links(topic, linked) or self.default_per_page)
        number = self._number(topic, root, per_page)
        count = self._count(text, number, per_page, len(elements), linked)
        theme = detect_theme(root, data)
        reader = PostReader(self, ctx, theme, data, resolve)
        posts, notes = reader.read_all(root, elements, (number - 1) * per_page, signatures)
        return Page(
            url=ctx.url,
            number=number,
            count=count,
            posts=tuple(posts),
            thread_id=topic.topic if topic else _thread_input(root),
            title=_title(root),
            next_url=self.next_url(topic, number, count, per_page),
            notes=(f"theme: {theme or 'unknown (custom templates)'}",) + tuple(notes),
        )

    def _number(self, topic: TopicUrl | None, root: HtmlElement, per_page: int) -> int:
        """The page's number: from its URL (`topic`), else from the page itself."""
        if topic is None:  # a saved file: ask the page where it sits
            canonical = root.xpath("//link[@rel='canonical']/@href | //meta[@property='og:url']/@content")
            topic = split_topic_url(str(canonical[0])) if canonical else None
        if topic:
            return topic.start // per_page + 1
        # No address to read it from: the pagination shows the current page as a bare bold
        # number ("Página <strong>2</strong> de 2", "… 1, <b>2</b>") in every theme.
        for shown in _CURRENT_PAGE(root):
            text = shown.strip().rstrip(".")
            if text.isdigit():
                return int(text)
        return 1

    def _count(self, text: str, number: int, per_page: int, posts: int,
               linked: Callable[[], list[int]]) -> int | None:
        """Pages in the thread: the pagination JS (§1.6), else the highest page linked, else
        one page when the page has no pagination and is not full (crawler.js stop rule)."""
        pages = js_pages(text)
        if pages:
            return max(pages, number)
        starts = linked()
        if any(starts):
            return max(max(starts) // per_page + 1, number)
        return number if posts < per_page else None

    def next_url(self, topic: TopicUrl | None, number: int, count: int | None,
                 per_page: int) -> str | None:
        """The next page's URL; `topic` is the page's URL split (None: no topic URL)."""
        if count is None or number >= count or topic is None:
            return None
        return self._page_of(topic, number + 1, per_page)


def _per_page_from_links(topic: TopicUrl | None, linked: Callable[[], list[int]]) -> int | None:
    """Posts per page when no JS says it (overridden pagination): the offsets in the page's
    own URL (`topic`) and its pagination links are multiples of it (§1.6)."""
    starts = [s for s in (topic.start if topic else 0, *linked()) if s]
    return gcd(*starts) if starts else None


def _thread_input(root: HtmlElement) -> str | None:
    """The thread id a page without its topic URL names in its forms (input name="t")."""
    found = root.xpath("//input[@name='t']/@value")
    return str(found[0]) if found else None


def js_per_page(text: str) -> int | None:
    """Posts per page, as the pagination JS says (§1.6)."""
    return _js_int(_PER_PAGE_JS, text)


def js_pages(text: str) -> int | None:
    """Pages in the thread, as the pagination JS says (§1.6)."""
    return _js_int(_PAGES_JS, text)


def _js_int(pattern: re.Pattern[str], text: str) -> int | None:
    found = pattern.search(text)
    return int(found.group(1)) if found else None


_CURRENT_PAGE = etree.XPath(
    "/descendant::*[contains(@class, 'pagination')"
    " or (contains(@class, 'gensmall') and starts-with(normalize-space(.), 'P'))]"
    "/descendant-or-self::*[self::b or self::strong][not(ancestor::a)]/text()")
# Every link's href: filtering them in Python costs less than XPath's contains() on each.
_LINK_HREFS = _strings("/descendant::a/@href")


def _linked_starts(root: HtmlElement, resolve: _Resolver) -> list[int]:
    """The start offsets of the topic pages the page links to (pagination, §1.6)."""
    starts = []
    read: dict[str, int | None] = {}  # a page links to the same pages many times over
    for href in _LINK_HREFS(root):
        if href not in read:
            read[href] = (resolve.topic_start(href) if ("/t" in href or "t=" in href)
                          and _may_name_a_topic(href) else None)
        start = read[href]
        if start is not None:
            starts.append(start)
    return starts


def _once(read: Callable[[], list[int]]) -> Callable[[], list[int]]:
    """`read`, run at first call only (functools.cache costs more to set up, per page)."""
    done: list[list[int]] = []

    def once() -> list[int]:
        if not done:
            done.append(read())
        return done[0]
    return once


def _may_name_a_topic(href: str) -> bool:
    """False when `href`, resolved, cannot be a topic URL: its last path segment (which
    resolving keeps, dot segments aside) is neither /t{id}... nor /viewtopic. This keeps the
    costly urljoin off menus, profiles and avatars."""
    path = href.split("#", 1)[0].split("?", 1)[0]
    last = path.rsplit("/", 1)[-1]
    return (last in ("", ".", "..", "viewtopic") or ":" in last
            or (last[:1] == "t" and last[1:2].isdigit()))


def _title(root: HtmlElement) -> str | None:
    """The first h1.page-title, else h1.cattitle, else h1, else the <title>. A page has few
    h1 elements: iterating them beats three whole-page XPath scans."""
    headings = list(root.iter("h1"))
    heading = _first_with_class(headings, "page-title")
    if heading is None:
        heading = _first_with_class(headings, "cattitle")
    if heading is None:
        heading = headings[0] if headings else next(root.iter("title"), None)
    if heading is None:
        return None
    return collapse(_text(heading)) or None


def _first_with_class(elements: list[HtmlElement], name: str) -> HtmlElement | None:
    return next((e for e in elements if _has_class(e, name)), None)


_BLANKS = re.compile(r"[ \t\n\r]+")


def _has_class(element: HtmlElement, name: str) -> bool:
    """has_class_xpath(name) in Python: the class list split on XPath's blanks."""
    value = element.get("class") or ""
    return name in value and name in _BLANKS.split(value)


def _post_elements(root: HtmlElement,
                   signatures: list | None = None) -> dict[str, HtmlElement]:
    """Each displayed post by its `post--ID` class (§1.2), first element per id: phpBB2 puts
    the class on two table rows, the second being the contact bar. `signatures`, when given,
    receives the elements whose class holds "sig", in document order: the same pass over the
    page's class attributes finds them, instead of one search per post (`_signatures`)."""
    found: dict[str, HtmlElement] = {}
    for value in _POST_OR_SIG_CLASS_ATTRS(root):
        if "post--" in value:
            match = _POST_CLASS.search(value)
            if match and match.group(1) not in found:
                found[match.group(1)] = value.getparent()
        if signatures is not None and "sig" in value:
            signatures.append(value.getparent())
    return found


# Selecting the @class values and stepping up is twice as fast as testing @class on every
# element (//*[contains(@class, ...)]), which also visits every text node.
_POST_OR_SIG_CLASS_ATTRS = etree.XPath(
    "/descendant::*/@class[contains(., 'post--') or contains(., 'sig')]")


def _signatures(candidates: list[HtmlElement], posts: set[int]) -> dict[int, list[HtmlElement]]:
    """The "sig" class elements under each post (by id() of the post element), in document
    order: what `descendant::*/@class[contains(., 'sig')]` finds from each post, nested posts
    included, for one page-wide search."""
    by_post: dict[int, list[HtmlElement]] = {}
    for node in candidates:
        for ancestor in node.iterancestors():
            if id(ancestor) in posts:
                by_post.setdefault(id(ancestor), []).append(node)
    return by_post


def _why_no_posts(root: HtmlElement) -> str:
    """Name what the page is instead: a login wall, a challenge, or the forum's message."""
    if root.xpath("//form[contains(@action, 'login')]//input[@type='password']"):
        return "login wall: the forum asks to log in"
    title = collapse(" ".join(root.xpath("//title//text()"))).lower()
    if "just a moment" in title or root.xpath("//*[@id='challenge-form' or @id='cf-wrapper']"):
        return "challenge page: the forum's protection asks for a browser check"
    message = first(root, (f"//*[{_c('message')}]", f"//*[{_c('panel')}]//p", "//td[@class='row1']"))
    said = collapse(_text(message))[:120] if message is not None else ""
    return f"no post--ID posts; the forum says: {said}" if said else "no post--ID posts"


class PostReader:
    """Reads the posts of one page; holds what every post needs (engine, context, themes)."""

    def __init__(self, engine: Forumotion, ctx: PageContext, theme: str | None,
                 data: bytes, resolve: _Resolver | None = None) -> None:
        self.engine = engine
        self.data = data
        self.posts: set[int] = set()  # id() of each post element, for _edit_holders
        self.signatures: dict[int, list[HtmlElement]] = {}  # "sig" class elements by post
        self.ctx = ctx
        self.themes = _THEME_ORDERS[theme]
        self.fetched_local = times.local_now(ctx.fetched_at, ctx.zone)
        self.resolve = resolve or _Resolver(ctx.url)

    def read_all(self, root: HtmlElement, elements: dict[str, HtmlElement], offset: int,
                 signatures: list[HtmlElement]) -> tuple[list[Post], list[str]]:
        mentions = _hidden_mentions(root) if calls_hidden(self.data) else []
        hidden = _hidden_blocks(mentions)
        self.posts = {id(e) for e in elements.values()}
        self.signatures = _signatures(signatures, self.posts)
        posts: list[Post] = []
        notes: list[str] = []
        position = offset
        for slot_id, element in _slots(root, elements, hidden, mentions):
            position += 1
            if element is None:  # a postrow.hidden block with no post behind it
                notes.append(f"post {slot_id} (#{position}) is hidden on the page and has no "
                             f"text to read: {hidden[slot_id]}")
                continue
            posts.append(self.read(slot_id, element, position, hidden.get(slot_id)))
        return posts, notes

    def _find(self, element: HtmlElement, field: str) -> HtmlElement | None:
        for theme in self.themes:
            for path in getattr(theme, field):
                found = path(element)
                if found:
                    return found[0]
        return None

    def _fail(self, post_id: str, what: str) -> Exception:
        return self.engine.not_a_thread(self.ctx, f"post {post_id}: {what}")

    def read(self, post_id: str, element: HtmlElement, position: int,
             hidden_text: str | None) -> Post:
        author, author_id = self._author(post_id, element)
        shown = self._time(post_id, element)
        localised = times.localise(shown.naive, self.ctx.zone)
        message = self._find(element, "message")
        if message is None:
            raise self._fail(post_id, "no message element (template changed?)")
        body = split_body(message, classify, read_quote, read_aside)
        body, edit = self._edit(body, element, message)
        return self.compose(post_id, position, (author, author_id), shown, localised,
                            self._signature(body, element, message), edit,
                            self._permalink(post_id, element), hidden_text)

    def compose(self, post_id: str, position: int, author: tuple[str, str | None],
                shown: ShownTime, localised: times.Localised, body: Body,
                edit: EditMarker | None, permalink: str, hidden_text: str | None = None) -> Post:
        """The Post from its parts, as both the tree path and the fast path read them."""
        notes: tuple[str, ...] = (localised.note,) if localised.note else ()
        if hidden_text is not None:
            notes += (f"hidden on the page (postrow.hidden): {hidden_text}",)
        return Post(
            id=post_id,
            position=position,
            permalink=permalink,
            author=author[0],
            author_id=author[1],
            created_at=localised.utc,
            time_text=shown.text,
            zone=self.ctx.zone,
            body=body,
            edit=edit,
            fetched_at=self.ctx.fetched_at,
            page_url=self.ctx.url,
            deleted=False,
            notes=notes,
        )

    def _author(self, post_id: str, element: HtmlElement) -> tuple[str, str | None]:
        """Name and account id from the /u{id} profile link (§1.2, Lalf), guests by name."""
        box = self._find(element, "author")
        for scope in (box, element):
            if scope is not None and (found := _profile_link(scope)):
                return found
        name = collapse(_text(box)) if box is not None else ""
        if not name:
            raise self._fail(post_id, "no author")
        return name, None

    def _time(self, post_id: str, element: HtmlElement) -> ShownTime:
        header = ""
        for theme in self.themes:
            for path in theme.date:
                for box in path(element):
                    text = collapse(_text(box))
                    shown = find_time(text, self.fetched_local)
                    if shown:
                        return shown
                    header = header or text
        if header:  # strict: a date line it cannot read is named, never guessed
            raise self._fail(post_id, f"cannot read the date in {header[-120:]!r}")
        raise self._fail(post_id, "no date found in the post header")

    def _edit(self, body: Body, element: HtmlElement,
              message: HtmlElement) -> tuple[Body, EditMarker | None]:
        """The edit notice: after the message on most themes, inside it on AwesomeBB (§1.4)."""
        if found := self.edit_ending(body):
            return found
        holders = reversed(_edit_holders(element, self.posts))
        return body, self.last_edit(
            block_text(h).split("\n") for h in holders
            # inside the message: a quoted notice is someone else's (C1)
            if not (h is message or message in h.iterancestors()))

    def edit_ending(self, body: Body) -> tuple[Body, EditMarker] | None:
        """The body without its last line, when that line is the edit notice (AwesomeBB)."""
        before, _, last = body.own.rpartition("\n")
        if edit := read_edit(last, self.ctx, self.fetched_local):
            return replace(body, own=before), edit
        return None

    def last_edit(self, texts: Iterable[list[str]]) -> EditMarker | None:
        """The first edit notice in the lines of each holder's text, last line first."""
        for lines in texts:
            for line in reversed(lines):
                if edit := read_edit(line, self.ctx, self.fetched_local):
                    return edit
        return None

    def _signature(self, body: Body, element: HtmlElement, message: HtmlElement) -> Body:
        if body.signature:
            return body
        for sig in self.signatures.get(id(element), ()):  # filtered by classify()
            if classify(sig) == "signature" and message not in sig.iterancestors():
                return replace(body, signature=read_aside(sig))
        return body

    def _permalink(self, post_id: str, element: HtmlElement) -> str:
        anchor = f"#{post_id}"
        for link in element.iterdescendants("a"):  # a post has few links: cheaper than XPath
            href = link.get("href")
            if href is not None and href.endswith(anchor):
                return self.resolve(href)
        return f"{self.engine.normalise_url(self.ctx.url)}#{post_id}"


def _profile_link(scope: HtmlElement) -> tuple[str, str] | None:
    """The first /u{id} link under `scope` with a name in it: (name, account id)."""
    for link in scope.iterdescendants("a"):  # .//a[@href], without an XPath run
        href = link.get("href")
        match = PROFILE_LINK.search(href) if href is not None else None
        if match and (name := collapse(_text(link))):
            return name, match.group(1)
    return None


_PLAIN_PATH = re.compile(r"(?:/[^/?#;.\x00-\x20\x7f]+)+")
_WEB = ("http", "https")


class _Resolver:
    """urljoin(base, href), with the common case made cheap: an absolute path of plain
    segments (no dot or empty segment, no query, params or blanks) is the base's
    scheme://host followed by the path itself, fragment kept as is."""

    def __init__(self, base: str) -> None:
        self.base = base
        self._prefix: str | None = None  # urljoin(base, "/") without its "/": read once
        self._topic_host: bool | None = None  # is prefix() an http(s)://host? read once

    def __call__(self, href: str) -> str:
        path, hash_, fragment = href.partition("#")
        if not _PLAIN_PATH.fullmatch(path) or "\t" in fragment or "\n" in fragment \
                or "\r" in fragment or not fragment:
            return urljoin(self.base, href)
        return self.prefix() + href

    def prefix(self) -> str:
        if self._prefix is None:
            parts = urlsplit(self.base)  # an http(s) base joins "/" as its scheme://host/
            self._prefix = (f"{parts.scheme}://{parts.netloc}" if parts.scheme in _WEB
                            else urljoin(self.base, "/")[:-1])
        return self._prefix

    def topic_start(self, href: str) -> int | None:
        """split_topic_url(urljoin(base, href)).start, or None when that is no topic URL.
        A plain path resolves to itself on the base's host: match it without building the
        URL and splitting it again."""
        path = href.partition("#")[0]
        if not _PLAIN_PATH.fullmatch(path):
            topic = split_topic_url(urljoin(self.base, href))
            return topic.start if topic is not None else None
        if self._topic_host is None:
            self._topic_host = split_topic_url(self.prefix() + "/t1") is not None
        match = TOPIC_PATH.match(path) if self._topic_host else None
        return int(match["start"] or 0) if match else None


def _edit_holders(element: HtmlElement, posts: set[int]) -> list[HtmlElement]:
    """Elements holding edit-notice words whose nearest enclosing post is `element`.

    Most posts have none: one regex over the post's text rules them out before libxml2 looks
    at the text nodes one by one (the slow part, even scoped to the post)."""
    if not EDIT_WORD.search(_TEXT(element)):
        return []
    found: list[HtmlElement] = []
    for text in _EDIT_WORDS(element):
        holder = text.getparent()
        if text.is_tail and holder is not None:
            holder = holder.getparent()
        if holder is None:
            continue
        for ancestor in holder.iterancestors():
            if id(ancestor) in posts:
                if ancestor is element:  # not a post nested inside this one
                    found.append(holder)
                break
    return found


def _hidden_mentions(root: HtmlElement) -> list[HtmlElement]:
    """The elements whose attributes may name a hidden post, in document order: what both
    _hidden_blocks() and _slots() look through (one search for the two)."""
    return list(_parents(_HIDDEN_MENTIONS(root)))


def _hidden_blocks(mentions: list[HtmlElement]) -> dict[str, str]:
    """postrow.hidden blocks by post id: the showHiddenMessage(ID) link and its text (§1.2).
    `mentions`: _hidden_mentions(), empty when the page calls no showHiddenMessage(id) (every
    page defines the function; few call it with a number)."""
    found: dict[str, str] = {}
    for node in mentions:
        if not _hidden_link(node):
            continue
        raw = " ".join(filter(None, (node.get("href"), node.get("onclick"), node.get("id"))))
        match = _HIDDEN_REF.search(raw)
        if match:
            post_id = match.group(1) or match.group(2)
            holder = node.getparent() if node.getparent() is not None else node
            found.setdefault(post_id, collapse(_text(holder)))
    return found


def calls_hidden(data: bytes) -> bool:
    """_HIDDEN_BYTES.search(data), found from "idden", in both its words: a pattern that starts
    with a literal is searched far faster than _HIDDEN_BYTES, which has no literal prefix to
    look for. What precedes "idden" ("showH", "h") is checked on each rare hit."""
    for tail in _HIDDEN_TAILS.finditer(data):  # no hit can hide another: none holds "idden"
        at = tail.start()
        head = b"showH" if tail.start(1) >= 0 else b"h"
        if at >= len(head) and data.startswith(head, at - len(head)):
            return True
    return False


# _HIDDEN_BYTES from the second letter of its words on.
_HIDDEN_TAILS = re.compile(rb"idden(?:(Message\(\d+\))|-title--\d)")


def _hidden_link(node: HtmlElement) -> bool:
    """Whether the element makes a hidden-post link: a link whose href or onclick calls
    showHiddenMessage, or an element whose id starts with hidden-title--."""
    if node.tag == "a" and ("showHiddenMessage" in (node.get("href") or "")
                            or "showHiddenMessage" in (node.get("onclick") or "")):
        return True
    return (node.get("id") or "").startswith("hidden-title--")


# The attributes that may name a hidden post, in document order: those of hidden-post links
# (_hidden_link), and every other one _slot_key can read a post place from (one of the three
# holds "showHiddenMessage(" or "hidden-title--"). Both words hold "idden": one test rules
# out most attributes.
_HIDDEN_MENTIONS = etree.XPath(
    "/descendant::*/@href[contains(., 'idden')]"
    "[contains(., 'showHiddenMessage') or contains(., 'hidden-title--')]"
    " | /descendant::*/@onclick[contains(., 'idden')]"
    "[contains(., 'showHiddenMessage') or contains(., 'hidden-title--')]"
    " | /descendant::*/@id[contains(., 'idden')]"
    "[contains(., 'showHiddenMessage(') or contains(., 'hidden-title--')]"
)
# Two lists of elements merged in document order.
_IN_PAGE_ORDER = etree.XPath("$first | $second")


def _parents(attributes: list) -> Iterator[HtmlElement]:
    """The elements carrying XPath attribute results, each once, in document order."""
    last = None
    for value in attributes:
        node = value.getparent()
        if node is not last:
            last = node
            yield node


def _slots(root: HtmlElement, elements: dict[str, HtmlElement], hidden: dict[str, str],
           mentions: list[HtmlElement]) -> Iterator[tuple[str, HtmlElement | None]]:
    """Every post place on the page in order: displayed posts, and hidden blocks without one
    (they still take a place in the page offset, §1.8)."""
    orphans = set(hidden) - set(elements)
    if not orphans:
        yield from elements.items()
        return
    seen: set[str] = set()
    # The only nodes _slot_key can name: the posts, and the hidden blocks' mentions.
    for node in _IN_PAGE_ORDER(root, first=list(elements.values()), second=mentions):
        key = _slot_key(node, elements, orphans)
        if key and key not in seen:
            seen.add(key)
            yield key, elements.get(key)


def _slot_key(node: HtmlElement, elements: dict[str, HtmlElement], orphans: set[str]) -> str | None:
    if not isinstance(node.tag, str):
        return None
    match = _POST_CLASS.search(node.get("class") or "")
    if match and elements.get(match.group(1)) is node:
        return match.group(1)
    raw = " ".join(filter(None, (node.get("href"), node.get("onclick"), node.get("id"))))
    hidden = _HIDDEN_REF.search(raw)
    key = (hidden.group(1) or hidden.group(2)) if hidden else None
    return key if key in orphans else None


# The fast path reads stock pages for parse_page() and imports this module: last, so that
# whichever of the two is imported first finds every name here defined.
from tally.adapters import forumotion_fast  # noqa: E402
