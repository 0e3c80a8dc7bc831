"""Invision Power Board: IPB 3.x, IPS 4.x and Invision Community 5, detected from the page
(FORUMS.md section 5).

Both versions serve many boards; the Russian virtual-mafia board of the rulebooks runs IPB 3.4
(rulebooks/mafia-virtual.ru.txt: "Отправлено 09 October 2017 - 23:20").

One reader serves both versions; where each keeps a post's parts is data (`Markup`, in
adapters/invision_markup.py): compiled XPath queries, each asked once per post. The versions
differ in:

- IPB 3.x (5.1): `div.post_block#post_id_{pid}`, "#n" permalink, `abbr.published[title]` (ISO
  with offset), body `div.post.entry-content`, edit notice `p.edit`, pagination "Страница x из y".
- IPS 4.x (5.2): `article#elComment_{id}`, `<time datetime>` in UTC, body
  `div[data-role=commentContent]`, edit line "Изменено … пользователем X" / "Edited … by X",
  pagination `ul.ipsPagination[data-pages]`; positions are counted from the page offset.
- Invision Community 5 keeps IPS 4's `article#elComment_{id}` and commentContent; the rest is
  found by the IPS 4 markup's fallbacks (`a.ipsUsername`, `div.ipsEntry__meta` time,
  `li.ipsPagination__active`). Its "first post" layout repeats the topic's first post above
  the feed on every page: read on page 1 only (`_featured_first_post`).
- IP.Board 1.x/2.x (posts as table rows around `div.postcolor`) is recognised and refused.

What sits between the posts and is not one (the board's ad code, IPS 4's advertisement blocks,
the guest sign-in prompt) is skipped and said in Page.notes, which reach the audit's "Reading
the thread" (issue 13); a block there that carries a post's parts but no post id stops the
reading (exit 4) rather than be dropped. Posts a moderator hid, queued or soft-deleted, and
posts of a user the viewer ignores, are posts: they are kept (hidden ones as `deleted`, so the
rules say so, C6) and noted.

A machine-readable time wins over the display text; a disagreement is kept as a post note
(DESIGN.md "Time"). Display texts, in Russian and English, are read by adapters/dates.py and
localised by tally.times.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cached_property
from itertools import chain
from typing import Any
from urllib.parse import urljoin

from lxml import etree
from lxml.html import HtmlElement

from tally import times
from tally.adapters import dates
from tally.adapters.base import Engine, PageContext, reading_post
from tally.adapters.html import (
    Aside,
    block_text,
    class_set,
    closes_document,
    collapse,
    first_id,
    parse_tree,
    parser_input,
    split_body,
)
from tally.adapters.invision_markup import (
    _ACTIVE_PAGE,
    _AD_CLASSES,
    _BETWEEN_POSTS_CHROME,
    _GUEST_WORDS,
    _IGNORED_PLACEHOLDER,
    _INACTIVE,
    _LOOKS_LIKE_A_POST,
    _NEXT_HREF,
    _PAGES_SHOWN,
    _TOPIC_IN_SOURCE,
    IPB3,
    IPS4,
    Markup,
    Query,
    _cls,
    _featured_first_post,
    _landmarks,
    _posts,
    _queries,
)
from tally.errors import ForumError, InputError, TruncatedPage
from tally.model import Body, EditMarker, Page, Post, Quote, msg

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
    return first_id((url,), _TOPIC_ID)


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



# Times as shown (FORUMS.md 5.1 clock_long and relative forms, 5.2 DateTime::html)

# US-English IPS 4 titles write "10/09/2017" month first; dotted Russian ones day first.
_READING = dates.Options(day_first=False)


@dataclass(slots=True)  # not frozen: read once per post, and a frozen __init__ costs a microsecond
class Shown:
    """A display time read as a naive wall time, with how precise the display is."""

    naive: datetime
    precision: timedelta  # how far the real time may be from `naive` and still show this text
    has_time: bool = True  # False for date-only displays ("9 октября, 2017")


def read_shown(text: str, fetched_local: datetime) -> Shown | None:
    """A display time of either version, in Russian or English; None when unreadable. Read
    by adapters/dates.py; a relative form gets a minute more slack (the fetch clock is not
    the server's)."""
    shown = dates.read(text, fetched_local, _READING)
    if shown is None:
        return None
    slack = timedelta(minutes=1) if shown.relative and shown.has_time else timedelta(seconds=1)
    return Shown(shown.at, shown.latest - shown.earliest + slack, shown.has_time)



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
# IPB 3's div.bbc_spoiler holds input.bbc_spoiler_show and div.bbc_spoiler_wrapper; skins that
# drop the outer div (forum.worldoftanks.eu, IPB 3.4) leave the wrapper as the spoiler
_SPOILER_CLASSES = frozenset(("spoiler", "bbc_spoiler", "bbc_spoiler_wrapper", "ipsSpoiler"))
# A quote's caption printed before it, outside it: IPB 2 div.quotetop, IPB 3.0-3.2 p.citation
_CAPTION_CLASSES = frozenset(("quotetop", "citation"))


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
    # IPB 2 div.quotemain after div.quotetop; IPB 3.0-3.2 div.blockquote > div.quote after its
    # caption p.citation ("X, on 18 July 2011 - 07:07, said:"); IPB 3.3+ and IPS 4 blockquote
    if element.tag == "blockquote" or "quotemain" in classes or "blockquote" in classes:
        return "quote"
    if classes & _SPOILER_CLASSES:
        return "spoiler"
    if element.tag == "pre" or "codemain" in classes:
        return "code"
    if "signature" in classes or element.get("data-role") == "memberSignature":
        return "signature"
    if (_is_edit_line(element) or "quotetop" in classes or "citation" in classes
            or "attach_wrap" in classes):
        return "drop"  # the edit notice is read on its own; a caption is read with its quote
    return None


def _citation_author(text: str) -> str | None:
    found = _CITATION.match(collapse(text))
    if not found:
        return None
    name = found.group("old") or found.group("old_en") or found.group("name")
    return collapse(name) if name else None


def _is_citation(element: HtmlElement) -> bool:
    return bool(class_set(element) & {"citation", "ipsQuote_citation"})


_CITATION_BLOCK = _queries(f"*[{_cls('citation')}][1]", f"*[{_cls('ipsQuote_citation')}][1]")
_SPOILER_CONTENT = _queries(f"descendant::*[{_cls('ipsSpoiler_contents')}][1]",
                            f"descendant::*[{_cls('bbc_spoiler_content')}][1]")


def _read_quote(element: HtmlElement) -> Quote:
    """A quote and its cited author: data attributes first, then the citation line."""
    author = element.get("data-ipsquote-username") or element.get("data-author")
    citation = _first(element, _CITATION_BLOCK)
    caption = element.getprevious()
    if not author and citation is not None:
        author = _citation_author(_text(citation))
    if not author and caption is not None and _CAPTION_CLASSES & class_set(caption):
        author = _citation_author(_text(caption))
    text = block_text(element, lambda e: _is_citation(e) or _classify(e) == "drop")
    return Quote(text=text, author=author or None)


def _read_spoiler(element: HtmlElement) -> str:
    content = _first(element, _SPOILER_CONTENT)
    return block_text(content if content is not None else element)



def _read_aside(element: HtmlElement) -> str:
    if class_set(element) & _SPOILER_CLASSES:
        return _read_spoiler(element)
    return block_text(element)


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


def _page_title(doc: HtmlElement) -> str:
    heading = _first(doc, _ERROR_HEADING)
    return collapse(_text(heading)) if heading is not None else ""


_ERROR_HEADING = _queries("(//*[@id='elError']//h1)[1]", "(//h1)[1]", "(//title)[1]")
_ERROR_BOX = etree.XPath("//*[@id='elError']")
_PASSWORD_FORM = etree.XPath("//form//input[@type='password']")
# IP.Board 1.x/2.x keep each message in div.postcolor (2.1+: id='post-N') inside table rows,
# with no element holding the whole post: recognised, so the error says which board it is
_OLD_IPB_POST = etree.XPath(f"(//div[{_cls('postcolor')}])[1]")

# ---------------------------------------------------------------------------------------------
# Small helpers over lxml

# XPath's string() is what lxml.html's text_content() runs, and works on the plain elements of
# parse_tree; itertext() yields piece by piece and is several times slower.
_text = etree.XPath("string()", smart_strings=False)


def _first(element: Any, query: Query) -> Any | None:
    """The first result of the first query (in order) that gives one: an element, an
    attribute value or a text; None for none (or for an empty string)."""
    if element is None:
        return None
    for path in query:
        found = path(element)
        if isinstance(found, list):
            if found:
                return found[0]
        elif found:
            return found
    return None


def _text_of(found: Any) -> str:
    """The collapsed text of an element or of a text/attribute result."""
    if found is None:
        return ""
    return collapse(found if isinstance(found, str) else _text(found))


def parse(data: bytes, encoding: str | None = None) -> HtmlElement:
    """html.parse_tree (plain elements: no per-node class lookup) without libxml2's id index:
    nothing here looks elements up by id, and building it costs about 5% of the parse. The
    charset is read as a browser reads it (html.parser_input)."""
    data, encoding = parser_input(data, encoding)
    parser = etree.HTMLParser(encoding=encoding, remove_comments=True, collect_ids=False)
    root = etree.fromstring(data, parser=parser)
    return root if root is not None else parse_tree(data)  # its fallback for an empty document


# ---------------------------------------------------------------------------------------------
# The engine


class Invision(Engine):
    name = "invision"
    label = "Invision"
    default_zone = "Europe/Moscow"
    default_per_page = IPB3.per_page  # IPS 4 uses 25 (IPS4_PER_PAGE)

    # -- URLs ------------------------------------------------------------------------------

    def accepts(self, url: str) -> bool:
        return url.startswith(("http://", "https://")) and _topic_id(url) is not None

    def thread_key(self, url: str) -> str:
        topic = _topic_id(url)
        if topic is None:
            raise self.not_a_thread_url(url, "topic URL (no showtopic= or /topic/N-)")
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
        doc = parse(data)
        markup, posts = _posts(doc)
        if not posts:  # why not: a challenge, another engine, a cut download, an error page
            self._check_bytes(data, ctx)
            raise self.not_a_thread(ctx, self._why_no_posts(doc))
        if not closes_document(data):
            raise self._truncated(data, ctx)
        reader = _Reader(self, markup, doc, _landmarks(doc), ctx)
        if markup is IPS4:
            posts = reader.featuring(_featured_first_post(doc, posts), posts)
        read = []
        for index, element in enumerate(posts):
            try:
                read.append(reader.post(element, index))
            except Exception as exc:
                reading_post(exc, element.get("id", "").removeprefix(markup.id_prefix))
                raise
        return Page(url=ctx.url, number=reader.number, count=reader.count(), posts=tuple(read),
                    thread_id=reader.topic_id(read), title=reader.title(),
                    next_url=reader.next_url(), notes=reader.notes(posts, read))

    def _check_bytes(self, data: bytes, ctx: PageContext) -> None:
        """Challenge pages and other engines first, then a cut download (base.py contract)."""
        head = data[:200_000].lower()
        if _CHALLENGE_MARK.search(head):  # then which one, in the order of _CHALLENGES
            who = next(who for mark, who in _CHALLENGES if mark in head)
            raise self.not_a_thread(ctx, f"challenge page: {who}")
        if not _marked(head):
            other = next((who for mark, who in _OTHER_ENGINES if mark in head), None)
            raise self.not_a_thread(
                ctx, f"a {other} page" if other else "no Invision markup")
        if not closes_document(data):
            raise self._truncated(data, ctx)

    def _truncated(self, data: bytes, ctx: PageContext) -> TruncatedPage:
        return TruncatedPage(
            f"{self.label}: {ctx.url}: truncated page (ends before </html> after {len(data)} bytes)")

    def _why_no_posts(self, doc: HtmlElement) -> str:
        text = collapse(_text(doc))
        code = _ERROR_CODE.search(text)
        if code or _ERROR_BOX(doc):
            suffix = f" [#{code.group(1) or code.group(2)}]" if code else ""
            return f"error page: {_page_title(doc)}{suffix}"
        denied = _NO_PERMISSION.search(text)
        if denied:
            return f"no permission: {denied.group(0)}"
        if _PASSWORD_FORM(doc):
            return f"login wall: {_page_title(doc)}"
        if _OLD_IPB_POST(doc):
            return "an IP.Board 1.x/2.x topic (div.postcolor posts in table rows): not read by tally"
        return "no posts found"


# ---------------------------------------------------------------------------------------------
# The reader: one page, one version's Markup


class _Reader:
    def __init__(self, engine: Invision, markup: Markup, root: HtmlElement,
                 marks: dict[str, list[HtmlElement]], ctx: PageContext) -> None:
        self.engine, self.markup, self.marks, self.ctx = engine, markup, marks, ctx
        self.root = root
        self.per_page = ctx.per_page or markup.per_page
        self.now = times.local_now(ctx.fetched_at, ctx.zone)
        self.shown_pages = next(filter(None, map(_pages_shown, marks.get("pages", ()))), None)
        self.number = (self.shown_pages and self.shown_pages[0]
                       or engine.page_number(ctx.url, self.per_page))
        self.featured: HtmlElement | None = None  # the first post repeated above the feed
        self.lead = 0  # posts before this page's feed that the page does not show

    def featuring(self, featured: HtmlElement | None, posts: list[HtmlElement]) -> list[HtmlElement]:
        """The posts to read when the topic's first post heads every page (IC5): read on page
        1, where it is post 1; on later pages left out (noted), the feed counted after it."""
        self.featured = featured
        if featured is None or self.number == 1:
            return posts
        self.lead = 1
        return posts[1:]

    # -- Page-level parts

    def count(self) -> int | None:
        if self.shown_pages:
            return self.shown_pages[1]
        # the stock templates print no pagination for a one-page topic (IPB 3 may say "1 из 1")
        return None if "pagination" in self.marks or "pages" in self.marks else 1

    def next_url(self) -> str | None:
        for item in self.marks.get("next", ()):
            if item.tag == "li" and not _INACTIVE & class_set(item):
                href = _NEXT_HREF(item)
                if href:
                    return self.absolute(href[0])
        return None

    def title(self) -> str | None:
        headings = [h for h in self.marks.get("title", ()) if h.tag == "h1"]
        if not headings:  # a skin without the class: the document's title
            headings = [self.root.find("head/title")]
        return next((_text_of(h) for h in headings if _text_of(h)), None)

    def topic_id(self, posts: list[Post]) -> str | None:
        """The topic this page shows, from the page itself (issue 16): the landmarks, then the
        posts' permalinks; None when the page says not."""
        values = [mark.get("href") or (mark.get("value") if mark.get("name") == "t"
                                       else mark.get("name")) or ""
                  for mark in self.marks.get("topic", ())]
        permalinks = (post.permalink for post in posts)
        return first_id((value.strip() for value in chain(values, permalinks)), _TOPIC_IN_SOURCE)

    def notes(self, elements: list[HtmlElement], posts: list[Post]) -> tuple[str, ...]:
        """What the page shows that is not a post, or a post not as its author wrote it."""
        notes = [self._post_note(element, post) for element, post in zip(elements, posts)]
        if self.lead and self.featured is not None:
            notes.append(msg("page {page}: the topic's first post {post} heads the page again "
                             "(Invision Community 5 'first post' layout): read on page 1",
                             page=self.number,
                             post=self.featured.get("id", "").removeprefix(self.markup.id_prefix)))
        notes += self._between_posts([e for e in elements if e is not self.featured])
        for prompt in self.marks.get("guest", ()):
            text = _snippet(prompt)
            if any(word in text for word in _GUEST_WORDS):
                notes.append(msg("a guest's view: skipped the sign-in prompt ('{text}'): not a "
                                 "post", text=text))
                break
        return tuple(note for note in notes if note)

    def _post_note(self, element: HtmlElement, post: Post) -> str:
        where = msg("page {page}: post {post} by {player}", page=self.number, post=post.id,
                    player=post.author)
        if post.deleted:
            marks = "/".join(sorted(class_set(element) & self.markup.hidden)) or "moderated"
            return msg("{where} is shown hidden, queued or deleted ({skin} {marks}): kept, its "
                       "text is not counted", where=where, skin=self.markup.version, marks=marks)
        previous = element.getprevious()
        while previous is not None and (previous.tag == "a" or (  # the post's anchors:
                previous.tag == "div" and not len(previous) and not previous.text)):  # IC5 div#comment-N
            previous = previous.getprevious()
        if (previous is not None and _IGNORED_PLACEHOLDER & class_set(previous)
                or any(_IGNORED_PLACEHOLDER & class_set(child) for child in element.iterchildren("div"))):
            return msg("{where} is collapsed for the viewer (an ignored user); read from the "
                       "page", where=where)
        return ""

    def _between_posts(self, elements: list[HtmlElement]) -> list[str]:
        """Notes on the blocks beside the posts; a post-like block without an id stops here."""
        notes: list[str] = []
        posts = set(elements)
        holders = {a for element in elements for a in element.iterancestors()}  # skin wrappers
        for parent in dict.fromkeys(element.getparent() for element in elements):
            for block in parent:
                if (block in posts or block in holders or not isinstance(block.tag, str)
                        or block.tag in _BETWEEN_POSTS_CHROME
                        or _IGNORED_PLACEHOLDER & class_set(block)):
                    continue
                if _LOOKS_LIKE_A_POST(block):
                    raise ForumError(
                        f"{self.engine.label}: {self.ctx.url}: a block between the posts has a "
                        f"post's parts but no post id ({_snippet(block)!r}); the page cannot be "
                        "read without it")
                text = _snippet(block)
                if not text and not len(block):
                    continue
                marked = " ".join(f"{e.get('class') or ''} {e.get('id') or ''} "
                                  f"{'advert' if e.get('data-ips-ad') is not None else ''}"
                                  for e in block.iter())  # IC5 div[data-ips-ad=topic_view]
                tag = f"<{block.tag} class={block.get('class') or ''!r}>"
                notes.append(msg("page {page}: skipped an advertisement between the posts ({tag} "
                                 "'{text}'): not a post", page=self.number, tag=tag, text=text)
                             if _AD_CLASSES.search(marked) else
                             msg("page {page}: skipped a block between the posts ({tag} '{text}'): "
                                 "not a post", page=self.number, tag=tag, text=text))
        return notes

    # -- One post

    def post(self, element: HtmlElement, index: int) -> Post:
        markup = self.markup
        post_id = element.get("id", "").removeprefix(markup.id_prefix)
        deleted = bool(markup.hidden & class_set(element))
        parts = self._stock_parts(element)
        message = parts.get("message")
        if message is None:  # a skin that moved the message: its edit line and signature too
            message = _first(element, markup.message)
            if message is None:
                raise self.fail(post_id, "no message body found")
            parts["edit"], parts["signature"] = (_first(message, markup.edit),
                                                 _first(message, markup.signature))
        body = split_body(message, _classify, _read_quote, read_aside=_read_aside)
        signature = parts.get("signature")
        if signature is not None and not body.signature:
            body = Body(own=body.own, bold=body.bold, quotes=body.quotes, spoilers=body.spoilers,
                        code=body.code, signature=block_text(signature))
        quote_data = _QuoteData(element)  # IPS 4's JSON, read only when a part is missing
        stock_author = parts.get("author")
        holder = stock_author if stock_author is not None else _first(element, markup.author)
        author = _text_of(holder) or str(quote_data.get("username") or "")
        if not author:
            raise self.fail(post_id, "no author name found")
        profile = next(stock_author.iterchildren("a"), None) if stock_author is not None else None
        if profile is None:
            profile = _first(element, markup.profile)
        author_id = (profile_id_of(profile.get("href"), profile.get("hovercard-id"))
                     if profile is not None else None)
        if author_id is None and quote_data.get("userid"):  # IPS 4 guests have no profile link
            author_id = str(quote_data.get("userid"))
        stamp = parts.get("stamp")
        created, time_text, notes = self._time(
            post_id, stamp if stamp is not None else _first(element, markup.stamp), quote_data,
            deleted)
        position, permalink = self._place(element, parts, post_id, index)
        ctx = self.ctx
        return Post(
            id=post_id, position=position, permalink=permalink, author=author,
            author_id=author_id, created_at=created, time_text=time_text, zone=ctx.zone,
            body=body, edit=self._edit(parts.get("edit")), fetched_at=ctx.fetched_at,
            page_url=ctx.url, deleted=deleted, notes=notes)

    def _stock_parts(self, element: HtmlElement) -> dict[str, HtmlElement]:
        """The parts found where the stock template puts them (the first of each; the last
        edit line, as the template prints it after the message)."""
        found: dict[str, HtmlElement] = {}
        by_tag = self.markup.parts_by_tag
        for hit in self.markup.stock(element):
            for part in by_tag.get(hit.tag, ()):
                if part.holds(hit):
                    if part.name not in found or part.name == "edit":
                        found[part.name] = hit
                    break
        return found

    def _time(self, post_id: str, stamp: HtmlElement | None, quote_data: _QuoteData,
              deleted: bool) -> tuple[datetime, str, tuple[str, ...]]:
        """The post time, its text as shown, and notes. The machine time wins (DESIGN.md "Time")."""
        if stamp is None:
            machine = (times.from_unix(quote_data.get("timestamp"))
                       if isinstance(quote_data.get("timestamp"), int) else None)
            if machine is None and deleted:
                note = msg("no post time shown for this deleted post; the fetch time stands in")
                return self.ctx.fetched_at, "", (note,)
            if machine is None:
                raise self.fail(post_id, "cannot read the post time ''")
            return machine, "", ()
        long_form = _TIME_LONG(stamp) if len(stamp) else None  # IC5: the long and short texts
        text = _POSTED_LABEL.sub("", collapse(_text(long_form[0] if long_form else stamp)))
        machine = iso(stamp.get(self.markup.machine))
        title = collapse(stamp.get("title") or "") if self.markup.machine != "title" else ""
        shown = tuple(t for t in (title, text) if t)
        if machine is not None and shown and shown[0] in self._stock_displays(machine):
            return machine, text, ()  # the display is the machine time to the minute: agreed
        created, notes = self.when(post_id, machine, shown)
        return created, text, notes

    def _stock_displays(self, machine: datetime) -> tuple[str, ...]:
        """The machine time as the stock skins print it with a clock: IPB 3's clock_long
        "09 October 2017 - 22:00" (English month names from strftime) and its relative
        "Сегодня, 22:00" / "Вчера, 22:00", IPS 4's titles "09.10.2017 22:00" (Russian) and
        "10/09/2017 10:00 PM" or "10/09/2017 10:00  PM" (US English; later 4.x print a
        two-digit year, "01/08/20 10:09  PM", which the date grammar does not read: the
        display text then stands in for it). A display equal to one of these reads as the
        machine time's minute, so it agrees and dates.read is spared."""
        local = times.to_local(machine, self.ctx.zone)
        clock = f"{local.hour:02d}:{local.minute:02d}"
        hour12, noon = f"{local.hour % 12 or 12:02d}:{local.minute:02d}", "PM" if local.hour >= 12 else "AM"
        days_ago = self.now.toordinal() - local.toordinal()
        relative = tuple(f"{word}, {clock}" for word in _DAY_WORDS.get(days_ago, ()))
        return (f"{local.day:02d} {_MONTHS[local.month - 1]} {local.year} - {clock}",
                f"{local.day:02d}.{local.month:02d}.{local.year} {clock}",
                f"{local.month:02d}/{local.day:02d}/{local.year} {hour12} {noon}",
                # real 4.2-4.4 boards print two spaces ('03/19/2018 04:22  AM', %X-like)
                f"{local.month:02d}/{local.day:02d}/{local.year} {hour12}  {noon}", *relative)

    def _place(self, element: HtmlElement, parts: dict[str, HtmlElement], post_id: str,
               index: int) -> tuple[int, str]:
        """The position ("#n" on IPB 3, else the page offset) and the permalink (the "#n"
        link, or IPS 4's date link ?do=findComment&comment=N)."""
        number = parts.get("number")
        if number is None:
            number = _first(element, self.markup.number)
        found = _POSITION.search(_text(number)) if number is not None else None
        position = int(found.group(1)) if found else (
            (self.number - 1) * self.per_page + self.lead + index + 1)
        href = number.get("href") if number is not None else None
        if self.markup.permalink:
            stamp = parts.get("stamp")
            link = stamp.getparent() if stamp is not None else None
            href = link.get("href") if link is not None else None
            if not _links_to(href, post_id):
                href = _first(element, self.markup.permalink)
            if not _links_to(href, post_id):
                href = None
        anchor = "entry" if self.markup is IPB3 else "comment-"
        return position, self.absolute(href) or f"{self.base_url}#{anchor}{post_id}"

    def _edit(self, line: HtmlElement | None) -> EditMarker | None:
        if line is None:
            return None
        if self.markup is IPB3:
            return self._ipb3_edit(line)
        return self._ips4_edit(line)

    def _ipb3_edit(self, line: HtmlElement) -> EditMarker:
        """"Сообщение отредактировал X: date" (lang edited_by), then an optional span.reason."""
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

    def _ips4_edit(self, line: HtmlElement) -> EditMarker | None:
        """"Изменено <time> пользователем X" (date_edited), the reason after a <br>."""
        strong = next(line.iterdescendants("strong"), None)
        notice = collapse(_text(strong if strong is not None else line))
        found = _EDIT_IPS4.match(notice)
        if not found:
            return None
        stamp = next(line.iterdescendants("time"), None)
        edited_at = iso(stamp.get("datetime")) if stamp is not None else None
        shown = collapse(block_text(line, _is_short_time))  # IC5's <time> holds two texts
        return EditMarker(text=shown, editor=found.group("editor"),
                          edited_at=edited_at or self.edit_date(found.group("date")))

    # -- Shared steps

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

    def when(self, post_id: str, machine: datetime | None, shown: tuple[str, ...],
             ) -> tuple[datetime, tuple[str, ...]]:
        """Machine time wins; the display text is checked against it (DESIGN.md "Time")."""
        text, reading = self._reading(shown)
        if machine is not None:
            if reading is not None and self._disagrees(machine, reading):
                return machine, (self._disagreement(machine, text, reading),)
            return machine, ()
        if reading is None:
            raise self.fail(post_id, f"cannot read the post time {shown[0] if shown else ''!r}")
        local = times.localise(reading.naive, self.ctx.zone)
        notes = [local.note] if local.note else []
        if not reading.has_time:
            notes.append(msg("the page shows no time of day ('{text}'); 00:00 assumed", text=text))
        return local.utc, tuple(notes)

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
        """Compared as wall times in the board's zone: in the hour clocks go back, "02:30" is
        shown for two instants, and either agrees with it."""
        wall = times.to_local(machine, self.ctx.zone).replace(tzinfo=None)
        if not reading.has_time:
            return wall.date() != reading.naive.date()
        return abs(wall - reading.naive) >= reading.precision

    def _disagreement(self, machine: datetime, text: str, reading: Shown) -> str:
        shown = reading.naive.strftime("%Y-%m-%d %H:%M" if reading.has_time else "%Y-%m-%d")
        return msg("time shown '{text}' reads {shown} in {zone}, but the page's machine time is "
                   "{machine} UTC; the machine time is used", text=text, shown=shown,
                   zone=self.ctx.zone, machine=machine.strftime("%Y-%m-%d %H:%M"))

    def edit_date(self, text: str) -> datetime | None:
        reading = read_shown(text, self.now)
        return times.localise(reading.naive, self.ctx.zone).utc if reading else None


_DAY_WORDS = {0: ("Сегодня", "Today"), 1: ("Вчера", "Yesterday")}  # IPB 3, days before the fetch
_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_POSTED_LABEL = re.compile(r"^(?:Отправлено|Posted)\s*")  # p.posted_info's label (lang posted)
_POSITION = re.compile(r"#\s*(\d+)")
# Invision Community 5's <time> holds span.ipsTime__long and span.ipsTime__short ("4 yr"): the
# display is the long one (DateTime::html)
_TIME_LONG = etree.XPath(f"span[{_cls('ipsTime__long')}][1]")


def _pages_shown(element: HtmlElement) -> tuple[int, int] | None:
    """(this page, the page count): IPS 4's ul[data-pages] and its active item, or IPB 3's
    "Страница 1 из 3" / "Page 1 of 3"."""
    pages = element.get("data-pages")
    if pages is not None:
        active = _ACTIVE_PAGE(element)
        number = _text_of(active[0]) if active else ""
        return (int(number), int(pages)) if number.isdigit() and pages.isdigit() else None
    found = _PAGES_SHOWN.search(_text_of(element))
    return (int(found.group(1)), int(found.group(2))) if found else None


def _is_short_time(element: HtmlElement) -> bool:
    return "ipsTime__short" in class_set(element)


def _links_to(href: str | None, post_id: str) -> bool:
    """Whether a link is the post's own: IPS 4's ?do=findComment&comment=N, Invision Community
    5's shareable URL …/#findComment-N (Comment::shareableUrl)."""
    return href is not None and (f"comment={post_id}" in href
                                 or href.endswith(f"#findComment-{post_id}"))


def _snippet(element: HtmlElement) -> str:
    """The start of what a block shows (scripts and styles left out; an image: its alt), for
    a note."""
    text = collapse(block_text(element)) or next(
        (f"image: {img.get('alt') or img.get('src')}" for img in element.iter("img")), "")
    return text if len(text) <= 80 else text[:77] + "..."


def _is_plain_absolute(href: str) -> bool:
    """Whether urljoin(base, href) is `href` itself whatever the base: an http(s) URL that
    urlsplit/urlunsplit give back unchanged (no empty "?", "#" or ";" parts they would drop,
    no tab or newline they remove, no bracketed or non-ASCII host they check)."""
    return (href.startswith(("http://", "https://")) and href.isascii()
            and not href.startswith(("http:///", "https:///"))  # no host: resolved on the base
            and not href.endswith(("?", "#")) and not _URL_ODD.search(href))


_URL_ODD = re.compile(r"\?#|[;\[\]\t\n\r]")
_PROFILE_ID = re.compile(r"showuser=(\d+)|/user/(\d+)-|/profile/(\d+)-")


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


class _QuoteData:
    """IPS 4's data-quoteData JSON (userid, username, timestamp), found and read on first use:
    a fallback for the author and the time, which most posts never need."""

    _HOLDER = etree.XPath("descendant::*[@data-quotedata][1]/@data-quotedata")

    def __init__(self, post: HtmlElement) -> None:
        self.post = post
        self.data: dict[str, Any] | None = None

    def get(self, key: str) -> Any:
        if self.data is None:
            found = self._HOLDER(self.post)
            try:
                data = json.loads(found[0]) if found else {}
            except ValueError:
                data = {}
            self.data = data if isinstance(data, dict) else {}
        return self.data.get(key)
