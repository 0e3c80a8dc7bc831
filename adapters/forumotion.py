"""Forumotion (Forumactif, Foroactivo/forosactivos, forumotion.com and custom domains).

One engine, six stock themes (FORUMS.md §1.1): phpBB2, phpBB3, PunBB, Invision, ModernBB and
AwesomeBB, told apart by the page skeleton. Admins edit templates freely (§1.8), so a post is
found by its `post--ID` class (§1.2, on every theme), its author by the `/u{id}` profile link,
and each theme only says where to look first for the author, the date line and the message:
the THEMES table below. One reader visits each post once through compiled XPath queries.

Dates are display text only (§1.3): "Dom 17 Ene 2016, 12:02", "Lun 18 Jan 2016 - 21:58",
"Aujourd'hui à 21:58", "Hoy a las 21:58", "Yesterday at 12:02"... read by adapters/dates.py as
naive wall time in the board's zone and localised by tally.times.

Guests see, at the end of each page, a "Contenido patrocinado" / "Sponsored content" block
rendered as post 0 (§1.8): it is skipped and named in the page's notes, which reach the
"Reading the thread" section of the GM report and the audit.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, replace
from datetime import datetime
from functools import cache
from math import gcd
from urllib.parse import urljoin, urlsplit

from lxml import etree
from lxml.html import HtmlElement

from tally import times
from tally.adapters import dates
from tally.adapters.base import Engine, PageContext
from tally.adapters.html import (
    Aside,
    block_text,
    class_set,
    closes_document,
    collapse,
    parser_input,
    split_body,
)
from tally.errors import TruncatedPage
from tally.model import Body, EditMarker, Page, Post, Quote, msg


def _classed(tag: str, name: str, unless: str | None = None) -> str:
    """An XPath step to the `tag` descendants whose class list holds `name` (and not `unless`).
    Reached through their class attributes: cheaper than testing @class from every `tag`."""
    def test(n: str) -> str:
        return f"contains(., '{n}') and contains(concat(' ', normalize-space(.), ' '), ' {n} ')"
    return f"descendant::{tag}/@class[{test(name)}{f' and not({test(unless)})' if unless else ''}]/.."


def _paths(*xpaths: str) -> tuple[etree.XPath, ...]:
    return tuple(etree.XPath(path) for path in xpaths)


# ---------------------------------------------------------------------------------------------
# Themes (FORUMS.md §1.1, §1.2, Etana/template src/<theme>/viewtopic_body.tpl): how the page
# skeleton names the theme, and where its postrow puts the poster, the date and {MESSAGE}.

@dataclass(frozen=True, slots=True)
class Theme:
    name: str
    skeleton: tuple[tuple[str, str], ...]  # (attribute, value) the stock overall_header prints
    author: tuple[etree.XPath, ...]  # containers of {POSTER_NAME} (and its /u link)
    date: tuple[etree.XPath, ...]  # containers whose text ends with {POST_DATE(_NEW)}
    message: tuple[etree.XPath, ...]  # the element holding {MESSAGE}
    byline: bool = False  # the author box reads "{L_TOPIC_BY} {POSTER_NAME}" ("por Zven")


# {MESSAGE}'s wrapper: the container's first BARE div. Not its first div: the Invision theme
# prints the post's reputation bar (div.vote, switch_vote_active) first in div.post-entry, and
# that bar taken for the message read every post of such a board as empty.
_WRAPPER = "/div[not(@class)][1]"

THEMES = (
    Theme("phpbb2", (("class", "bodylinewidth"),),
          author=_paths(_classed("span", "name")),
          date=_paths(_classed("span", "postdetails", unless="poster-profile")),
          message=_paths(_classed("div", "postbody") + _WRAPPER)),
    Theme("phpbb3", (("body id", "phpbb"), ("id", "fa_edge")),
          author=_paths(_classed("div", "postprofile") + "/descendant::dt",
                        _classed("p", "author")),
          date=_paths(_classed("p", "author")),
          message=_paths(_classed("div", "content") + _WRAPPER)),
    Theme("punbb", (("class", "pun"),),
          author=_paths(_classed("h4", "username")),
          date=_paths(_classed("div", "posthead") + "/h2", _classed("div", "posthead")),
          message=_paths(_classed("div", "entry-content") + _WRAPPER + _WRAPPER,
                         _classed("div", "entry-content"))),
    Theme("invision", (("id", "ipbwrapper"),),
          author=_paths(_classed("dl", "postprofile-details"), _classed("div", "postprofile")),
          date=_paths(_classed("div", "postbody-head") + "/" + _classed("p", "author"),
                      _classed("p", "author")),
          message=_paths(_classed("div", "post-entry") + _WRAPPER)),
    Theme("modernbb", (("body id", "modernbb"),),
          author=_paths(_classed("div", "postprofile-name"),
                        _classed("div", "postprofile") + "/descendant::dt"),
          date=_paths(_classed("div", "topic-date")),
          message=_paths(_classed("div", "content") + _WRAPPER)),
    # The mobile version served to phones (Etana/template src/mobile): pages a GM saved on one.
    Theme("mobile", (("body id", "mpage-body-modern"),),
          author=_paths(_classed("div", "post-details")),
          date=_paths(_classed("div", "post-info") + "/" + _classed("div", "h3")),
          message=_paths(_classed("div", "post-content")), byline=True),
    # AwesomeBB's body has no id of its own (<body id="top">): its posts' div.post-wrap.
    Theme("awesomebb", (("class", "post-wrap"),),
          author=_paths(_classed("span", "post-author-name"), _classed("aside", "post-aside")),
          date=_paths(_classed("span", "post-date"), _classed("div", "post-footer")),
          message=_paths(_classed("div", "post-content"))),
)


def detect_theme(data: bytes) -> str | None:
    """The stock theme from the page skeleton (§1.1, in fam.js's order), or None."""
    return next((theme.name for theme in THEMES
                 if any(_names(data, attribute, value) for attribute, value in theme.skeleton)),
                None)


def _names(data: bytes, attribute: str, value: str) -> bool:
    """Whether a tag of the page has `value` in its `attribute` ("body id": the body's id).
    The value is searched as a literal (fast), then the tag around each hit is checked."""
    tag, _, name = attribute.rpartition(" ")
    inside = re.compile(rf"""<{tag or '[a-z]'}[^>]*\s{name}\s*=\s*["']?(?:[^"'>]*\s)?$""".encode(),
                        re.IGNORECASE)
    for hit in re.finditer(rf"""{value}(?=[\s"'>])""".encode(), data):
        start = data.rfind(b"<", max(hit.start() - 2000, 0), hit.start())
        if start >= 0 and inside.match(data, start, hit.start()):
            return True
    return False


def _theme_order(name: str | None) -> tuple[Theme, ...]:
    """The detected theme first, then every other one: overridden templates mix them (§1.8)."""
    return tuple(sorted(THEMES, key=lambda theme: theme.name != name))


_THEME_ORDERS = {name: _theme_order(name) for name in (*(t.name for t in THEMES), None)}

# Every post--ID element (§1.2), through the page's class attributes.
_POSTS = etree.XPath("/descendant::*/@class[contains(., 'post--')]/..")
_POST_CLASS = re.compile(r"(?:^|\s)post--(\d+)(?:\s|$)")
_POST_IDS = re.compile(rb"post--(\d+)")
# What every §1.4 wording of an edit notice holds (es, fr, en, pt, it, de), searched in a line's
# text (EDIT_WORD) and, for the text nodes that may start a notice, in the tree (_EDIT_WORDS).
_EDIT_STEMS = ("dición", "dicion", "dition", "edited", "ditado", "dição", "dicao", "modifica",
               "bearbeitet")
_EDIT_WORDS = etree.XPath(
    f"descendant::text()[{' or '.join(f'contains(., {stem!r})' for stem in _EDIT_STEMS)}]")
# postrow.hidden placeholders: the showHiddenMessage(ID) link / #hidden-title--ID (§1.2).
_HIDDEN_MENTIONS = etree.XPath(
    "/descendant::*/@href[contains(., 'showHiddenMessage(')]/.."
    " | /descendant::*/@onclick[contains(., 'showHiddenMessage(')]/.."
    " | /descendant::*/@id[starts-with(., 'hidden-title--')]/..")
# Every page defines showHiddenMessage and names #hidden-title-- in its script; only a page
# with a hidden post calls it with a number. Searched from "idden": a literal is found fast.
_HIDDEN_BYTES = re.compile(rb"idden(?:Message\(\d|-title--\d)")
_HIDDEN_REF = re.compile(r"showHiddenMessage\((\d+)\)|hidden-title--(\d+)")
_CANONICAL = etree.XPath("/html/head/link[@rel='canonical']/@href"
                         " | /html/head/meta[@property='og:url']/@content", smart_strings=False)
_TOPIC_INPUT = etree.XPath("//input[@name='t']/@value", smart_strings=False)
_LINKS = etree.XPath("/descendant::a/@href[contains(., '/t') or contains(., 't=')]",
                     smart_strings=False)
_TEXT = etree.XPath("string()", smart_strings=False)
_HEADINGS = etree.XPath("preceding::h1")
# The current page's bold number in the pagination, wherever a theme puts {PAGINATION}; it
# always starts with the "go to page" link: '<a href="javascript:Pagination();">Aller à la
# page</a> : <b>1</b>, <a href="/t6p15-…">2</a>' (Etana/template var/PAGINATION.md).
_CURRENT_PAGE = etree.XPath(
    "/descendant::*[contains(@class, 'pagination') or contains(@class, 'paging')"
    " or (contains(@class, 'gensmall') and starts-with(normalize-space(.), 'P'))]"
    "/descendant-or-self::*[self::b or self::strong][not(ancestor::a)]/text()"
    " | /descendant::a[starts-with(@href, 'javascript:Pagination')]"
    "/following-sibling::*[self::b or self::strong][1]/text()")
_LOGIN_FORM = etree.XPath("//form[contains(@action, 'login')]//input[@type='password']")
_CHALLENGE = etree.XPath("//*[@id='challenge-form' or @id='cf-wrapper']")
_FORUM_MESSAGE = _paths("//*[contains(concat(' ', normalize-space(@class), ' '), ' message ')]",
                        "//*[contains(concat(' ', normalize-space(@class), ' '), ' panel ')]//p",
                        "//td[@class='row1']")


def _text(element: HtmlElement) -> str:
    return element.text or "" if not len(element) else _TEXT(element)


# ---------------------------------------------------------------------------------------------
# Dates (§1.3) and the edit notice (§1.4, phpBB2 wording in the board's language)

@dataclass(frozen=True, slots=True)
class ShownTime:
    text: str  # as shown ("Dom 17 Ene 2016, 12:02")
    naive: datetime  # wall time in the board's zone


def find_time(text: str, fetched_local: datetime) -> ShownTime | None:
    """The LAST date-and-time in `text`: it ends the header line, after a subject that may
    itself hold a date (phpBB2's "Tema: … {POST_DATE}")."""
    shown = dates.find_last(text, fetched_local)
    return ShownTime(shown.text, shown.at) if shown is not None else None


# The phpBB2 wording each language pack gives {EDITED_MESSAGE} (§1.4): "<lead> {editor}
# <on> {date}, <edited> {n} <times>". The editor is matched greedily up to the LAST <on> word
# before a date: a name may hold the word ("Loup le Magnifique le Lun 18 Jan - 22:00"), a
# date never does. Dates may drop the year ("le Lun 18 Jan - 22:00") or be relative.
_EDIT_LEADS = {
    "es": r"[ÚU]ltima\s+edici[óo]n\s+por|Editado\s+por\s+[úu]ltima\s+vez\s+por",
    "fr": r"Derni[èe]re\s+[ée]dition\s+par",
    "en": r"Last\s+edited\s+by",
    "pt": r"[ÚU]ltima\s+edi[çc][ãa]o\s+por|Editado\s+pela\s+[úu]ltima\s+vez\s+por",
    "it": r"Ultima\s+modifica\s+di",
    "de": r"Zuletzt\s+bearbeitet\s+von",
}
EDIT_RE = re.compile(
    rf"(?:{'|'.join(_EDIT_LEADS.values())})\s+(?P<editor>.+)\s+(?:el|le|on|em|il|am)\s+"
    r"(?P<when>(?:(?!\s(?:el|le|on|em|il|am)\s).)+?)\s*[,;]\s*"
    r"(?:(?:editado|[ée]dit[ée]|edited|modificato)\s+(?P<times>\d+)\s+"
    r"(?:vez|veces|fois|times?|vezes|volt[ae])\b"
    r"|num\s+total\s+de\s+(?P<total>\d+)\s+vez"
    r"|insgesamt\s+(?P<mal>\d+)[-\s]?mal\s+bearbeitet)",
    re.IGNORECASE,
)
EDIT_WORD = re.compile("|".join(_EDIT_STEMS))


def read_edit(line: str, ctx: PageContext, fetched_local: datetime) -> EditMarker | None:
    match = EDIT_RE.search(line) if EDIT_WORD.search(line) else None
    if not match:
        return None
    shown = find_time(match.group("when"), fetched_local)
    return EditMarker(
        text=collapse(line[match.start():]),
        editor=collapse(match.group("editor")),
        edited_at=times.localise(shown.naive, ctx.zone).utc if shown else None,
        times=int(match.group("times") or match.group("total") or match.group("mal")),
    )


# ---------------------------------------------------------------------------------------------
# Message blocks (§1.5): dl.codebox quotes/code, dl.spoiler, dl.hidecode, blockquote + cite.

_CODE_CAPTION = re.compile(r"^(code|c[óo]digo|codice|код)\s*:?$", re.IGNORECASE)
_QUOTE_CAPTION = re.compile(
    r"^(?P<author>.+?)\s+(?:escribi[óo]|a\s+[ée]crit|wrote|ha\s+scritto|escreveu|schrieb"
    r"|написал\(?а?\)?)"
    r"\s*:?$", re.IGNORECASE)
_CAPTION = etree.XPath("(dt | cite | div/cite | *[contains(concat(' ', normalize-space(@class),"
                       " ' '), ' cite ')])[1]")
_SIGNATURE_CLASSES = frozenset(("signature_div", "sig-content", "post-signature", "signature"))
_SPOILER_CLASSES = frozenset(("spoiler", "hidecode", "spoiler_content", "spoiler-content"))
_DROP_CLASSES = frozenset(("attachbox", "vote"))
PROFILE_LINK = re.compile(r"/u(\d+)(?:[-/?#]|$)")  # /u{id} or /u{id}-slug (§1.2)


def _caption(element: HtmlElement) -> str:
    found = _CAPTION(element)
    return collapse(_text(found[0])) if found else ""


def classify(element: HtmlElement) -> Aside | None:
    tag = element.tag
    if tag not in ("blockquote", "pre", "code") and not element.get("class"):
        return None  # most message markup has no class
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
    return Quote(text=block_text(element, _caption_node),
                 author=collapse(match.group("author")) if match else None)


def read_aside(element: HtmlElement) -> str:
    return block_text(element, _caption_node)


# ---------------------------------------------------------------------------------------------
# URLs (§1.6): /t{id}-{slug}, page N at /t{id}p{(N-1)*K}-{slug}; /viewtopic?t=ID&start=K.

TOPIC_PATH = re.compile(r"^/t(?P<id>\d+)(?:p(?P<start>\d+))?(?:-(?P<slug>[^/?#]*))?$")
_PAGES_JS = re.compile(r"start\s*=\s*\(start\s*>\s*(\d+)\)\s*\?\s*\1\s*:\s*start;")
_PER_PAGE_JS = re.compile(r"start\s*=\s*\(start\s*-\s*1\)\s*\*\s*(\d+);")
_TOPIC_JS = re.compile(r"\['',\s*'t(\d+)p'\s*\+\s*start")  # do_pagination_start's target


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
    return _split_path(f"{parts.scheme}://{parts.netloc.lower()}", parts.path, parts.query)


def _split_path(base: str, path: str, query: str) -> TopicUrl | None:
    if match := TOPIC_PATH.match(path):
        return TopicUrl(base, match["id"], int(match["start"] or 0), match["slug"] or "")
    fields = dict(p.partition("=")[::2] for p in query.split("&") if p)
    if path == "/viewtopic" and fields.get("t", "").isdigit():
        start = int(fields["start"]) if fields.get("start", "").isdigit() else 0
        return TopicUrl(base, fields["t"], start, "")
    return None


def _topic_of_link(href: str, base: str) -> TopicUrl | None:
    """The topic a link names (relative links resolved against the page), or None. Most links
    of a page (menus, profiles, images) are ruled out by a substring test, and a link from the
    site's root (/t12p15-slug) is read without resolving it."""
    if "/t" not in href and "t=" not in href:
        return None
    if href.startswith("/") and not href.startswith("//"):
        path, _, query = href.partition("#")[0].partition("?")
        return _split_path("", path, query)
    return split_topic_url(urljoin(base if "://" in base else "https://saved.invalid/", href))


# ---------------------------------------------------------------------------------------------
# The engine

# What a Forumotion page names (its CDN, its brands), for looks_like().
_MARKERS = (b"illiweb.com", b"forumotion", b"forumactif", b"foroactivo", b"forosactivos")


class Forumotion(Engine):
    name = "forumotion"
    label = "Forumotion"
    default_zone = "Europe/Madrid"
    default_per_page = 15

    def accepts(self, url: str) -> bool:
        return split_topic_url(self.normalise_url(url)) is not None

    def _topic(self, url: str) -> TopicUrl:
        topic = split_topic_url(self.normalise_url(url))
        if topic is None:
            raise self.not_a_thread_url(url, "Forumotion topic URL (/t123-slug)")
        return topic

    def thread_key(self, url: str) -> str:
        topic = self._topic(url)
        return f"{urlsplit(topic.base).netloc}/t{topic.topic}"

    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        return self._page_of(self._topic(url), number, per_page)

    def _page_of(self, topic: TopicUrl, number: int, per_page: int | None = None) -> str:
        start = (max(number, 1) - 1) * (per_page or self.default_per_page)
        return f"{topic.base}/t{topic.topic}{f'p{start}' if start else ''}-{topic.slug}"

    def page_number(self, url: str, per_page: int | None = None) -> int:
        return self._topic(url).start // (per_page or self.default_per_page) + 1

    def looks_like(self, data: bytes) -> bool:
        head = data[:200_000]
        if any(m in head for m in _MARKERS):  # as most pages spell them: no lower-case copy
            return True
        head = head.lower()
        return any(m in head for m in _MARKERS) or (
            b"post--" in head and b"showhiddenmessage" in head)

    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        if not closes_document(data, 8192):
            raise TruncatedPage(
                f"{self.label}: {ctx.url}: truncated page (no closing </html>; cut download?)")
        if not self.looks_like(data):
            raise self.not_a_thread(ctx, "no Forumotion markup; another engine's page?")
        root = _parse(data)
        posts = _post_elements(root, data)
        if not posts:
            raise self.not_a_thread(ctx, _why_no_posts(root))
        topic = split_topic_url(self.normalise_url(ctx.url))
        script = _pagination_script(data)

        @cache
        def links(topic_id: str | None = None) -> list[tuple[str, TopicUrl]]:
            """The page's topic links (of `topic_id` only, when given): read when needed."""
            if topic_id is not None:
                return [(href, t) for href, t in links() if t.topic == topic_id]
            return [(href, t) for href in _LINKS(root) if (t := _topic_of_link(href, ctx.url))]

        # The topic the page itself names (issue 16), not the URL it was asked for; then only
        # its own links count (pagination): a post may link another topic's pages.
        own = (_named_topic(root, script) or _linked_topic(set(posts), links())
               or _form_topic(root))
        per_page = (_js_int(_PER_PAGE_JS, script) or ctx.per_page
                    or _per_page_from_links(topic, links(own)) or self.default_per_page)
        number = _number(topic, root, per_page)
        theme = detect_theme(data)
        reader = PostReader(self, ctx, theme, posts)
        read, notes = reader.read_all(root, data, (number - 1) * per_page)
        count = _count(script, number, per_page, len(posts), lambda: links(own))
        return Page(
            url=ctx.url,
            number=number,
            count=count,
            posts=tuple(read),
            thread_id=own,
            title=_title(root, next(iter(posts.values()))),
            next_url=(self._page_of(topic, number + 1, per_page)
                      if topic and count and number < count else None),
            notes=(msg("theme: {theme}", theme=theme) if theme
                   else msg("theme: unknown (custom templates)"), *notes),
        )


_PARSERS = threading.local()  # lxml parsers are not to be shared between threads


def _parse(data: bytes) -> HtmlElement:
    """The page's tree, with one parser per charset and thread and no id index (nothing here
    reads it). A windows-1252 page is decoded as browsers do (html.parser_input)."""
    data, charset = parser_input(data)
    parsers = _PARSERS.__dict__.setdefault("by_charset", {})
    if charset not in parsers:
        parsers[charset] = etree.HTMLParser(encoding=charset, remove_comments=True,
                                            collect_ids=False)
    root = etree.fromstring(data, parser=parsers[charset])
    return root if root is not None else etree.fromstring(b"<html></html>", etree.HTMLParser())


def _post_elements(root: HtmlElement, data: bytes) -> dict[str, HtmlElement]:
    """Each displayed post by its `post--ID` class (§1.2), first element per id (phpBB2 puts
    the class on two table rows, the second being the contact bar). Stock templates print the
    posts as siblings: the first one and its siblings are taken when they hold every post--ID
    the page's bytes name; else (overridden templates) every element of the page is looked at."""
    first = next((e for e in root.iter("div", "tr") if "post--" in (e.get("class") or "")), None)
    candidates = [first, *first.itersiblings()] if first is not None else []
    posts = _by_id(candidates)
    if set(posts) != {i.decode() for i in _POST_IDS.findall(data)}:
        posts = _by_id(_POSTS(root))
    return posts


def _by_id(elements: Iterable[HtmlElement]) -> dict[str, HtmlElement]:
    posts: dict[str, HtmlElement] = {}
    for element in elements:
        if match := _POST_CLASS.search(element.get("class") or ""):
            posts.setdefault(match.group(1), element)
    return posts


def _why_no_posts(root: HtmlElement) -> str:
    """Name what the page is instead: a login wall, a challenge, or the forum's message."""
    if _LOGIN_FORM(root):
        return "login wall: the forum asks to log in"
    title = collapse(" ".join(root.xpath("//title//text()"))).lower()
    if "just a moment" in title or _CHALLENGE(root):
        return "challenge page: the forum's protection asks for a browser check"
    message = next((found[0] for path in _FORUM_MESSAGE if (found := path(root))), None)
    said = collapse(_text(message))[:120] if message is not None else ""
    return f"no post--ID posts; the forum says: {said}" if said else "no post--ID posts"


def _pagination_script(data: bytes) -> str:
    """The body of the do_pagination_start() function (§1.6), "" when the page has none."""
    at = data.find(b"function do_pagination_start")
    return data[at:at + 2000].decode("utf-8", "replace") if at >= 0 else ""


def _js_int(pattern: re.Pattern[str], script: str) -> int | None:
    found = pattern.search(script)
    return int(found.group(1)) if found else None


def _per_page_from_links(topic: TopicUrl | None,
                         links: list[tuple[str, TopicUrl]]) -> int | None:
    """Posts per page when no JS says it (overridden pagination): the offsets in the page's
    own URL and its pagination links are multiples of it (§1.6)."""
    starts = [s for s in (topic.start if topic else 0, *(t.start for _, t in links)) if s]
    return gcd(*starts) if starts else None


def _number(topic: TopicUrl | None, root: HtmlElement, per_page: int) -> int:
    """The page's number: from its URL, else its canonical link, else the pagination's bold
    current number ("Página <strong>2</strong> de 2", "… 1, <b>2</b>") in every theme."""
    if topic is None:
        canonical = _CANONICAL(root)
        topic = split_topic_url(canonical[0]) if canonical else None
    if topic:
        return topic.start // per_page + 1
    shown = (text.strip().rstrip(".") for text in _CURRENT_PAGE(root))
    return next((int(text) for text in shown if text.isdigit()), 1)


def _count(script: str, number: int, per_page: int, posts: int,
           links: Callable[[], list[tuple[str, TopicUrl]]]) -> int | None:
    """Pages in the thread: the pagination JS (§1.6), else the highest page linked, else one
    page when the page has no pagination and is not full (crawler.js stop rule)."""
    if pages := _js_int(_PAGES_JS, script):
        return max(pages, number)
    if starts := [t.start for _, t in links() if t.start]:
        return max(max(starts) // per_page + 1, number)
    return number if posts < per_page else None


def _named_topic(root: HtmlElement, script: str) -> str | None:
    """The topic the page names in its head (canonical link, og:url) or pagination script
    (do_pagination_start's '/t{id}p'+start, §1.6)."""
    canonical = _CANONICAL(root)
    if canonical and (topic := split_topic_url(canonical[0])):
        return topic.topic
    found = _TOPIC_JS.search(script)
    return found.group(1) if found else None


def _linked_topic(ids: set[str], links: list[tuple[str, TopicUrl]]) -> str | None:
    """The topic of a post's permalink (/t{id}-slug#{post id}), else of a pagination link
    (/t{id}p{K}-), else of the previous/next topic links (/viewtopic?t={this}&view=next)."""
    tests = (lambda href, t: href.rpartition("#")[2] in ids, lambda href, t: t.start,
             lambda href, t: "view=" in href)
    return next((t.topic for test in tests for href, t in links if test(href, t)), None)


def _form_topic(root: HtmlElement) -> str | None:
    """The topic of the page's moderation or reply form (input name="t")."""
    form = _TOPIC_INPUT(root)
    return form[0] if form and form[0].isdigit() else None


def _title(root: HtmlElement, first_post: HtmlElement) -> str | None:
    """The topic's title: of the h1 headings before the first post (the header may have the
    site's name in another), the page-title or cattitle one, else the last; else <title>."""
    headings = _HEADINGS(first_post)
    classed = (h for h in headings if {"page-title", "cattitle"} & set((h.get("class") or "").split()))
    heading = next(classed, headings[-1] if headings else next(root.iter("title"), None))
    return collapse(_text(heading)) or None if heading is not None else None


# ---------------------------------------------------------------------------------------------
# The posts

class PostReader:
    """Reads the posts of one page; holds what every post needs (engine, context, themes)."""

    def __init__(self, engine: Forumotion, ctx: PageContext, theme: str | None,
                 posts: dict[str, HtmlElement]) -> None:
        self.engine = engine
        self.ctx = ctx
        self.themes = _THEME_ORDERS[theme]
        self.fetched_local = times.local_now(ctx.fetched_at, ctx.zone)
        parts = urlsplit(ctx.url)  # scheme://host of a web page, "" for a saved file
        self.site = f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") else ""
        self.posts = posts
        self.post_nodes = {id(e) for e in posts.values()}

    def read_all(self, root: HtmlElement, data: bytes, offset: int) -> tuple[list[Post], list[str]]:
        """Every post of the page in order, and notes on what is not one (§1.8)."""
        hidden = _hidden_blocks(root) if _HIDDEN_BYTES.search(data) else {}
        posts: list[Post] = []
        notes: list[str] = []
        position = offset
        for post_id, element in _slots(root, self.posts, hidden):
            if element is not None and (title := self.pseudo_post(post_id, element)) is not None:
                notes.append(msg("skipped '{title}' (post 0, no author link, no date): the "
                                 "sponsored block Forumotion shows guests, not a post (§1.8)",
                                 title=title))
                continue
            position += 1
            if element is None:  # a postrow.hidden block with no post behind it
                notes.append(msg("post {post} (#{position}) is hidden on the page and has no "
                                 "text to read: {shown}", post=post_id, position=position,
                                 shown=hidden[post_id]))
                continue
            posts.append(self.read(post_id, element, position, hidden.get(post_id)))
        return posts, notes

    def _find(self, element: HtmlElement, field: str) -> HtmlElement | None:
        for theme in self.themes:
            for path in getattr(theme, field):
                if found := path(element):
                    return found[0]
        return None

    def _fail(self, post_id: str, what: str) -> Exception:
        return self.engine.not_a_thread(self.ctx, f"post {post_id}: {what}")

    def pseudo_post(self, post_id: str, element: HtmlElement) -> str | None:
        """The title of the sponsored pseudo-post guests see at the end of a page (§1.8: post
        id 0, no profile link, no date), or None. Strict: anything else is read as a post, and
        a real post without a readable date stops the count."""
        if post_id != "0" or _profile_link(element) or self._shown(element)[0] is not None:
            return None
        return self._author_box(element)[1]

    def read(self, post_id: str, element: HtmlElement, position: int,
             hidden_text: str | None) -> Post:
        shown, header, byline = self._shown(element)
        if shown is None:  # strict: a date line it cannot read is named, never guessed
            raise self._fail(post_id, f"cannot read the date in {header[-120:]!r}" if header
                             else "no date found in the post header")
        # The byline ("por {POSTER_NAME} {POST_DATE}") links the poster on most themes.
        author, author_id = (byline is not None and _profile_link(byline)) or self._author(
            post_id, element)
        localised = times.localise(shown.naive, self.ctx.zone)
        message = self._find(element, "message")
        if message is None:
            raise self._fail(post_id, "no message element (template changed?)")
        message = _whole_message(message, element)
        body, edit = self._edit(split_body(message, classify, read_quote, read_aside),
                                element, message)
        notes: tuple[str, ...] = (localised.note,) if localised.note else ()
        if hidden_text is not None:
            notes += (msg("hidden on the page (postrow.hidden): {shown}", shown=hidden_text),)
        return Post(
            id=post_id,
            position=position,
            permalink=self._permalink(post_id, element),
            author=author,
            author_id=author_id,
            created_at=localised.utc,
            time_text=shown.text,
            zone=self.ctx.zone,
            body=self._signature(body, element, message),
            edit=edit,
            fetched_at=self.ctx.fetched_at,
            page_url=self.ctx.url,
            deleted=False,
            notes=notes,
        )

    def _author_box(self, element: HtmlElement) -> tuple[HtmlElement | None, str]:
        """The element holding {POSTER_NAME}, and the name it shows (a guest's: no link)."""
        for theme in self.themes:
            for path in theme.author:
                if found := path(element):
                    name = collapse(_text(found[0]))
                    # The board's "by" word comes first: a name never starts with it there.
                    return found[0], name.partition(" ")[2] if theme.byline else name
        return None, ""

    def _author(self, post_id: str, element: HtmlElement) -> tuple[str, str | None]:
        """Name and account id from the /u{id} profile link (§1.2, Lalf), guests by name."""
        box, name = self._author_box(element)
        for scope in (box, element):
            if scope is not None and (found := _profile_link(scope)):
                return found
        if not name:
            raise self._fail(post_id, "no author")
        return name, None

    def _shown(self, element: HtmlElement) -> tuple[ShownTime | None, str, HtmlElement | None]:
        """The post's date, the text of its line (the first date line's when none reads), and
        the element holding it."""
        header = ""
        for theme in self.themes:
            for path in theme.date:
                for box in path(element):
                    text = collapse(_text(box))
                    last = _trailing_text(box)
                    if _CLOCKISH.search(last):
                        # The templates print {POST_DATE} last on its line, after the subject
                        # (phpBB2, PunBB) that may hold a date of its own ("Votos hasta Lun 18
                        # Ene 2016, 22:00"): the date is read there, or from the whole line
                        # when it ends the line ("por X <b>Hoy</b> a las 21:00"); a clock there
                        # that does not read is never a reason to take the subject's date.
                        shown = find_time(last, self.fetched_local)
                        if shown is None and (whole := find_time(text, self.fetched_local)):
                            shown = whole if text.endswith(whole.text) else None
                        return (shown, text, box) if shown else (None, text, None)
                    if shown := find_time(text, self.fetched_local):
                        return shown, text, box
                    header = header or text
        return None, header, None

    def _edit(self, body: Body, element: HtmlElement,
              message: HtmlElement) -> tuple[Body, EditMarker | None]:
        """The edit notice: after the message on most themes, inside it on AwesomeBB, where it
        ends the body's last line (§1.4)."""
        before, _, last = body.own.rpartition("\n")
        if edit := read_edit(last, self.ctx, self.fetched_local):
            kept = last[:EDIT_RE.search(last).start()].strip()  # type: ignore[union-attr]
            return replace(body, own="\n".join(filter(None, (before, kept)))), edit
        for text, holder in reversed(_edit_holders(element, self.post_nodes)):
            if holder is message or message in holder.iterancestors():
                continue  # inside the message: a quoted notice is someone else's (C1)
            # The notice is most often one text node; else its holder's lines, last first.
            for line in (text, *reversed(block_text(holder).split("\n"))):
                if edit := read_edit(line, self.ctx, self.fetched_local):
                    return body, edit
        return body, None

    def _signature(self, body: Body, element: HtmlElement, message: HtmlElement) -> Body:
        """The signature block after the message (§1.2): a later sibling of the message or of
        one of its ancestors inside the post (AwesomeBB's is inside: split_body took it)."""
        if body.signature:
            return body
        for holder in (message, *message.iterancestors()):
            if holder is element:
                break
            for sibling in holder.itersiblings():
                if not _SIGNATURE_CLASSES.isdisjoint((sibling.get("class") or "").split()):
                    return replace(body, signature=read_aside(sibling))
        return body

    def _permalink(self, post_id: str, element: HtmlElement) -> str:
        anchor = f"#{post_id}"
        for link in element.iterdescendants("a"):
            href = link.get("href")
            if href is not None and href.endswith(anchor):
                # The common case, a link from the site's root, without urljoin's cost.
                rooted = href.startswith("/") and not href.startswith("//") and self.site
                return self.site + href if rooted else urljoin(self.ctx.url, href)
        return f"{self.engine.normalise_url(self.ctx.url)}#{post_id}"


# What may stand beside {MESSAGE}'s wrapper in the stock templates (§1.2): attachments, the
# reputation vote, the signature, the edit notice, float clearers.
_BESIDE_MESSAGE = frozenset(("attachbox", "vote", "clear", "edited-message", "signature_div",
                             "sig-content", "post-signature", "signature"))


def _whole_message(message: HtmlElement, post: HtmlElement) -> HtmlElement:
    """The element holding all of {MESSAGE}. The stock templates wrap it in a bare <div>, the
    first div of its container, which THEMES picks; a board whose edited template dropped that
    wrapper has the message's own first div picked instead (a [center] block, a quote), and
    the rest of the message (a vote line) would be lost without a word. When text stands
    beside the picked div in its container, other than what the templates put there, the
    container is the message."""
    parent = message.getparent()
    if message.get("class") is not None or parent is None or parent is post:
        return message  # a classed container (AwesomeBB's div.post-content) is the message
    stray = [parent.text or ""] + [child.tail or "" for child in parent]
    stray += [_text(child) for child in parent if child is not message
              and isinstance(child.tag, str) and child.tag not in ("script", "style")
              and _BESIDE_MESSAGE.isdisjoint((child.get("class") or "").split())]
    words = collapse(" ".join(stray))
    return parent if words and collapse(EDIT_RE.sub(" ", words)) else message


_CLOCKISH = re.compile(r"\d{1,2}\s*[:hH.]\s*\d{2}")


def _trailing_text(box: HtmlElement) -> str:
    """The last run of text standing directly in `box` (not inside a child): where the
    templates put the date, after the subject link or the poster's name."""
    runs = [box.text, *(child.tail for child in box)]
    return next((collapse(run) for run in reversed(runs) if run and run.strip()), "")


def _profile_link(scope: HtmlElement) -> tuple[str, str] | None:
    """The first /u{id} link under `scope` with a name in it: (name, account id)."""
    for link in scope.iterdescendants("a"):
        href = link.get("href")
        if href and (match := PROFILE_LINK.search(href)) and (name := collapse(_text(link))):
            return name, match.group(1)
    return None


def _edit_holders(element: HtmlElement, posts: set[int]) -> list[tuple[str, HtmlElement]]:
    """Text nodes with edit-notice words, and their holders, whose nearest enclosing post is
    `element`. Most posts have none: one regex over the post's text rules them out first."""
    if not EDIT_WORD.search(_TEXT(element)):
        return []
    found: list[tuple[str, HtmlElement]] = []
    for text in _EDIT_WORDS(element):
        holder = text.getparent()
        if text.is_tail and holder is not None:
            holder = holder.getparent()
        # The mobile version prints the notice as bare text in the post element itself.
        nearest = None if holder is None else holder if id(holder) in posts else next(
            (a for a in holder.iterancestors() if id(a) in posts), None)
        if nearest is element:  # not a post nested inside this one
            found.append((str(text), holder))
    return found


def _hidden_blocks(root: HtmlElement) -> dict[str, str]:
    """postrow.hidden placeholders by post id, with their text (§1.2, §1.8)."""
    found: dict[str, str] = {}
    for node in _HIDDEN_MENTIONS(root):
        raw = " ".join(filter(None, (node.get("href"), node.get("onclick"), node.get("id"))))
        if match := _HIDDEN_REF.search(raw):
            holder = node.getparent() if node.getparent() is not None else node
            found.setdefault(match.group(1) or match.group(2), collapse(_text(holder)))
    return found


def _slots(root: HtmlElement, posts: dict[str, HtmlElement],
           hidden: dict[str, str]) -> Iterator[tuple[str, HtmlElement | None]]:
    """Every post place on the page in order: displayed posts, and hidden placeholders without
    one (they still take a place in the page offset, §1.8)."""
    if not set(hidden) - set(posts):
        yield from posts.items()
        return
    seen: set[str] = set()
    for node in root.iter():
        match = _POST_CLASS.search(node.get("class") or "") if isinstance(node.tag, str) else None
        key = match.group(1) if match and posts.get(match.group(1)) is node else None
        if key is None and isinstance(node.tag, str):
            raw = " ".join(filter(None, (node.get("href"), node.get("onclick"), node.get("id"))))
            ref = _HIDDEN_REF.search(raw) if raw else None
            key = (ref.group(1) or ref.group(2)) if ref else None
            key = key if key in hidden and key not in posts else None
        if key and key not in seen:
            seen.add(key)
            yield key, posts.get(key)
