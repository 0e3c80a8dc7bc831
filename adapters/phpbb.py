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
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import chain
from math import gcd
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

from lxml import etree
from lxml import html as lxml_html
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
    first,
    first_id,
    has_class_xpath,
    parser_encoding,
    parser_input,
    split_body,
)
from tally.errors import ForumError, TruncatedPage
from tally.model import Body, EditMarker, Page, Post, Quote, msg, msg_clauses, msg_n

# The text under an element, as html.text_of gives it (no comments, no processing
# instructions), in one libxml2 call: several times faster than joining itertext() on the
# date lines, names and pagination boxes read on every page (DESIGN.md "Performance").
_string = etree.XPath("string()", smart_strings=False)


def _text(element: HtmlElement) -> str:
    """_string's text; an element with no children (a name link, a <time>, an empty notice)
    holds only its .text, read without the XPath call (about ten times cheaper)."""
    if len(element):
        return _string(element)
    return element.text or ""


def _parse(data: bytes, encoding: str) -> HtmlElement:
    """html.parse_tree without libxml2's id index: nothing here looks elements up by id, and
    building the index costs about 5% of the parse (DESIGN.md "Performance"). `encoding` is
    html.parser_encoding's; html.parser_input decodes a windows-1252 page (every ISO-8859-1
    board) as browsers do."""
    data, encoding = parser_input(data, encoding)
    parser = etree.HTMLParser(encoding=encoding, remove_comments=True, collect_ids=False)
    root = etree.fromstring(data, parser=parser)
    return root if root is not None else lxml_html.document_fromstring(b"<html></html>")


# ---------------------------------------------------------------------------------------------
# Shown times (FORUMS.md §2.1 date formats, §2.2 phpBB 2): read by the shared reader of
# adapters/dates.py, which knows every language pack's names and relative forms.

# Where the date line's date ends: its clock (the rest of a subSilver line is the subject).
_CLOCK = re.compile(
    r"(?<![\d:])(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?(?:\s*(?P<ampm>[ap])\.?\s?m\b\.?)?",
    re.IGNORECASE,
)


def read_shown_time(text: str, fetched_local: datetime) -> datetime | None:
    """The naive wall time a phpBB date text shows ("Sun Jan 17, 2016 12:02 pm", "Dom 17 Ene
    2016, 12:02", "Today, 12:02", "5 minutes ago"), or None when it shows none."""
    shown = dates.find_last(text, fetched_local)
    return shown.at if shown is not None else None


# ---------------------------------------------------------------------------------------------
# Edit notices (§2.1 EDITED_TIMES_TOTAL, Spanish packs; §2.2 phpBB 2)

_EDIT = re.compile(
    r"(?:last\s+edited\s+by|[úu]ltima\s+edici[óo]n\s+por|derni[èe]re\s+[ée]dition\s+par"
    # de, nl, it, pt packs: the editor is plain text on phpBB 2 pages (a link on 3.x)
    r"|zuletzt\s+(?:ge[äa]ndert|bearbeitet)\s+von|laatst\s+(?:gewijzigd|aangepast|bewerkt)\s+door"
    r"|ultima\s+modifica\s+di|[úu]ltima\s+edi[çc][ãa]o\s+por)\s+"
    r"(?P<editor>.+?)\s+(?:on|el|le|am|op|il|em)\s+(?P<date>.+?)\s*[,;]\s*"
    r"(?:edited|editado|[ée]dit[ée]|insgesamt|in\s+totaal|modificato)\s+(?P<times>\d+)",
    re.IGNORECASE,
)
# The verb of every language pack's EDITED_TIMES_TOTAL (phpBB 3.x packs: ru "Последний раз
# редактировалось X Пн май 04, 2020 10:00 am, всего редактировалось 1 раз.", de "Zuletzt
# geändert von X am …, insgesamt 2-mal geändert.", nl "Laatst gewijzigd door X op …, 2 keer
# totaal gewijzigd.", pl "Ostatnio zmieniony … przez X, łącznie zmieniany 2 razy.", it "Ultima
# modifica di X il …", pt "Última edição por X em …", ro "Ultima oară modificat … de către X",
# tr "En son … tarihinde X tarafından … 2 kere düzenlendi.", no "Sist redigert av"; phpBB 2
# packs: tr "… tarafından … tarihinde değiştirildi", nl "Laatst aangepast door"). A
# div.notice without one (prosilver's "Last bumped by X on …") is no edit.
_EDIT_WORDS = re.compile(
    r"edited|edici[óo]n|editado|[ée]dit|edição|редактир|редагов|ge[äa]ndert|bearbeitet|"
    r"gewijzigd|bewerkt|zmienion|zmieniany|edytowan|modific|düzenlen|redigert|redigerad|"
    r"upraven|upravil|编辑|編輯|編集|промян|промен|değiştir|aangepast|"
    # Packs no fixture shows yet (da, hu, fi, el, et, lt, lv, sl, hr/sr, id, vi, ko, ar, he, fa,
    # th): a notice of theirs read as no edit would count an edited vote as unedited (K4).
    r"redigeret|szerkeszt|muokan|επεξεργ|muutis|redagav|labo|uredi|uređ|diubah|s[ửu]a|수정|"
    r"عدل|تعديل|נערך|ویرایش|แก้ไข",
    re.IGNORECASE)


def read_edit(notice: str, editor_link: str | None, fetched_local: datetime,
              zone: str) -> EditMarker | None:
    """An EditMarker from the notice text; None when the text is no edit notice.

    Packs put the editor, the date and the count in any order; the count is the last number
    of every pack's wording, the date is read once the editor's name is taken out (a name may
    hold digits)."""
    text = collapse(notice)
    found = _EDIT.search(text)
    if found is None:
        if not _EDIT_WORDS.search(text):
            return None
        rest = text.replace(editor_link, " ") if editor_link else text
        times_found = re.search(r"(\d+)\D*$", rest)
        shown = read_shown_time(rest, fetched_local)
        return EditMarker(text=text, editor=editor_link,
                          edited_at=times.localise(shown, zone).utc if shown else None,
                          times=int(times_found.group(1)) if times_found else None)
    shown = read_shown_time(found["date"], fetched_local)
    return EditMarker(
        text=text,
        editor=editor_link or found["editor"].strip(),
        edited_at=times.localise(shown, zone).utc if shown else None,
        times=int(found["times"]),
    )


# ---------------------------------------------------------------------------------------------
# Message bodies: quotes, code, spoilers, signature (§2.1 bbcode.html, §2.2 bbcode.tpl)

_QUOTE_TABLE = etree.XPath(
    "./tr/td[contains(@class, 'quote')] | ./tbody/tr/td[contains(@class, 'quote')]")
_CODE_TABLE = etree.XPath(
    "./tr/td[contains(@class, 'code')] | ./tbody/tr/td[contains(@class, 'code')]")
_CITE = etree.XPath("./cite | ./div/cite")
_WROTE = re.compile(
    r"^\s*(?P<author>.+?)\s+(?:wrote|escribi[óo]|a\s+[ée]crit|ha\s+scritto|scrisse|escreveu|"
    r"schrieb|(?:на)?писала?|schreef|napisał|napisal|yazdı|a\s+scris|napsal|написа|写道|寫道)\b",
    re.IGNORECASE)
_DROP_CLASSES = frozenset(("attachbox", "inline-attachment", "notice", "post-notice"))
# subsilver2's bbcode.html writes a caption div, then the block as its next sibling.
_CAPTIONED: dict[str, Aside] = {
    "quotecontent": "quote", "codecontent": "code", "quotetitle": "drop", "codetitle": "drop",
    "attachtitle": "drop", "attachcontent": "drop"}


def classify(element: HtmlElement) -> Aside | None:
    tag = element.tag
    if tag == "blockquote" or (tag == "table" and _QUOTE_TABLE(element)):
        return "quote"
    raw = element.get("class")
    if not raw and tag != "table" and tag != "details":
        return None  # every other block is known by its class (called on every child element)
    classes = frozenset((raw or "").split())
    if tag == "div" and not classes.isdisjoint(_CAPTIONED):
        return next(_CAPTIONED[name] for name in classes if name in _CAPTIONED)
    if "codebox" in classes or (tag == "table" and _CODE_TABLE(element)):
        return "code"
    if tag == "details" or "spoil" in (element.get("class") or "").lower():
        return "spoiler"  # no stock spoiler BBCode: extensions use spoiler*/spoil* classes
    if "signature" in classes:
        return "signature"
    if classes & _DROP_CLASSES or (tag == "span" and "gensmall" in classes):
        return "drop"  # attachments, notices; subSilver's edit notice span in the message cell
    return None


def _profile_link(element: HtmlElement) -> HtmlElement | None:
    """The first link to a member's profile under `element`; a walk, not an XPath, on the few
    nodes of a name cell, caption or notice (several times cheaper)."""
    for link in element.iterdescendants("a"):
        if "mode=viewprofile" in (link.get("href") or ""):
            return link
    return None


def _quote_author(header: HtmlElement | None) -> str | None:
    if header is None:
        return None
    link = _profile_link(header)
    if link is not None:  # 3.2+: <cite><a href="memberlist…">Bob</a> wrote: …</cite>
        return collapse(_text(link)) or None
    found = _WROTE.match(collapse(_text(header)))
    return found["author"] if found else None


def read_quote(element: HtmlElement) -> Quote:
    """A prosilver blockquote (cite inside), a subSilver quote table ("X wrote:" row) or a
    subsilver2 div.quotecontent (its caption "X wrote:" is the div.quotetitle before it)."""
    if element.tag == "table":
        cell = _QUOTE_TABLE(element)[0]
        header = first(element, ("./tr[1]/td", "./tbody/tr[1]/td"))
        return Quote(text=block_text(cell), author=_quote_author(header))
    if element.tag == "div":
        caption = element.getprevious()
        if caption is not None and "quotetitle" in class_set(caption):
            return Quote(text=block_text(element), author=_quote_author(caption))
    cites = _CITE(element)
    cite = cites[0] if cites else None
    text = block_text(element, lambda child: child is cite)
    return Quote(text=text, author=_quote_author(cite))


def read_aside(element: HtmlElement) -> str:
    """Spoiler, code and signature text without their captions ("Code: Select all", buttons)."""
    if "codebox" in class_set(element):
        code = first(element, (".//pre", ".//code"))
        if code is not None:
            return block_text(code)
    return block_text(element)


_SIG_RULE = "_________________"  # phpBB 2 appends "<br />_________________<br />{signature}"


def split_signature(body: Body) -> Body:
    own, rule, signature = body.own.partition(_SIG_RULE)
    if not rule:
        return body
    return replace(body, own=own.rstrip("\n"), signature=signature.strip("\n"))


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
_PAGE_OF = re.compile(
    r"(?:Page|P[áa]gina|Seite|Strona)\s+(\d+)\s+(?:of|de|di|von|sur|z)\s+(\d+)"
    r"|(?<![\d/])(\d+)\s*/\s*(\d+)(?![\d/])", re.IGNORECASE)

# What a text needs to hold a page number: a character str.isdigit() may take (every \d of
# _PAGE_OF is one): 0-9, the Latin-1 ¹²³, or a character past Latin-1. Most pagination boxes
# (subSilver's "Back to top" on every post, "View previous topic", &nbsp;) hold none.
_MAY_NUMBER = re.compile("[0-9\xb2\xb3\xb9\u0100-\U0010ffff]")


def _page_of(text: str) -> re.Match[str] | None:
    """"Page x of y" (or "x / y") in a box's text; a text with no digit is spared the search."""
    return _PAGE_OF.search(collapse(text)) if _MAY_NUMBER.search(text) else None

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
            raise ForumError(f"{self.label}: {url}: not a phpBB viewtopic URL")
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


# "profile", "author", "content", "notice", "deleted", "signature"; subsilver2 adds "name",
# "user_link" and "hidden" (a post shown as a one-line notice: ignored author, deleted post).
Parts = dict[str, HtmlElement]

# Posts and their parts are found by plain element walks (DESIGN.md "Performance": several
# times faster than XPath class tests here); a part a template moved is searched per post.
# _part_kind checks the exact class tokens.
_PART_WORDS = re.compile("post|content|notice|signature|author|ignore")
_POST_ID = re.compile(r"p\d+$")


def _part_kind(tag: str, class_attr: str) -> str | None:
    classes = class_attr.split()
    if tag == "dl":
        return "profile" if "postprofile" in classes else None
    if tag == "p" and "author" in classes:
        return "author"
    if "post_deleted_msg" in classes or "post-notice" in classes:
        return "deleted" if "post_deleted_msg" in classes or "deleted" in classes else None
    if tag == "div" and "ignore" in classes:
        return "ignore"  # "This post was made by X who is on your ignore list" / "deleted by"
    for kind in ("content", "notice", "signature"):
        if kind in classes:
            return kind
    return None


def _parts_of(post: HtmlElement) -> Parts:
    """The first element of each kind inside one post."""
    parts: Parts = {}
    search = _PART_WORDS.search
    for element in post.iterdescendants("div", "dl", "p"):
        classes = element.get("class")
        if classes and search(classes):
            kind = _part_kind(element.tag, classes)
            if kind is not None and kind not in parts:
                parts[kind] = element
    return parts


def _landmarks(root: HtmlElement) -> tuple[dict[str, tuple[HtmlElement, Parts]], list[HtmlElement]]:
    """One walk: prosilver posts (div#p{ID}.post) with their parts, and the pagination boxes
    (prosilver div.pagination; subSilver span.nav / td.nav: "Page 1 of 2", "Goto page")."""
    posts: dict[str, tuple[HtmlElement, Parts]] = {}
    boxes = []
    for element in root.iter("div", "span", "td"):
        classes = element.get("class")
        if not classes:
            continue
        element_id = element.get("id") if "post" in classes else None  # most are not posts
        if element_id and _POST_ID.match(element_id) and "post" in classes.split():
            parts = _parts_of(element)
            if "ignore" in parts and "content" not in parts:
                parts["hidden"] = parts["ignore"]  # 3.0: the placeholder replaces the post
            posts.setdefault(element_id[1:], (element, parts))
        elif "pagination" in classes or "nav" in classes:
            tokens = classes.split()
            if "pagination" in tokens or (element.tag != "div" and "nav" in tokens):
                boxes.append(element)
    return posts, boxes


def _subsilver_parts(row: HtmlElement) -> Parts:
    """§2.2: span.name > b (author), the span.postdetails that is not the "Joined: …" one beside
    the name (date), the cell holding span.postbody (message), span.gensmall after it (edit)."""
    parts: Parts = {}
    for span in row.iter("span"):
        classes = span.get("class")
        if not classes:
            continue
        if "name" in classes and "name" not in parts and "name" in classes.split():
            parts["name"] = next(span.iter("b"), span)
        elif "postdetails" in classes and "author" not in parts and not _beside_name(span):
            parts["author"] = span
        elif "postbody" in classes and "content" not in parts:
            parts["content"] = span.getparent()
        elif "gensmall" in classes and "notice" not in parts and \
                span.getparent() is parts.get("content"):
            parts["notice"] = span
    return parts


def _beside_name(span: HtmlElement) -> bool:
    cell = span.getparent()
    while cell is not None and cell.tag != "td":
        cell = cell.getparent()
    if cell is None:
        return False
    for child in cell.iterchildren("span"):
        if "name" in (child.get("class") or "").split():
            return True
    return False


def _post_elements(root: HtmlElement) -> tuple[dict[str, tuple[HtmlElement, Parts]], str,
                                               list[HtmlElement]]:
    """Post id -> (post element, its parts), in page order, the template family and the
    pagination boxes."""
    posts, boxes = _landmarks(root)
    if posts:
        return posts, "prosilver", boxes
    # The table styles mark posts by named anchors: one walk finds them for both.
    anchors = [anchor for anchor in root.iter("a") if anchor.get("name")]
    rows = _subsilver_posts(anchors)
    if rows:
        return rows, "subsilver", boxes
    return _subsilver2_posts(anchors), "subsilver2", _with_page_links(boxes)


def _subsilver_posts(anchors: list[HtmlElement]) -> dict[str, tuple[HtmlElement, Parts]]:
    """Post id -> (row, parts) for each span.name > a[name=ID] (§2.2), in page order."""
    rows: dict[str, tuple[HtmlElement, Parts]] = {}
    for anchor in anchors:
        name = anchor.get("name")
        if name.isdigit() and _in_name_span(anchor):
            row = next(anchor.iterancestors("tr"), None)
            if row is not None:
                rows[name] = (row, _subsilver_parts(row))
    return rows


def _in_name_span(anchor: HtmlElement) -> bool:
    """span[contains(@class, 'name')] > a, as a test of the anchor's parent."""
    parent = anchor.getparent()
    return parent is not None and parent.tag == "span" and "name" in (parent.get("class") or "")


# subsilver2 (phpBB 3.0-3.2's table style, viewtopic_body.html): each post is a table.tablebg
# of a header row (<a name="p{ID}">, b.postauthor, td.gensmall "<b>Posted:</b> DATE"), a body
# row (td.profile, then div.postbody, the signature as a .postbody after "_________________",
# the edit notice) and a footer row (the profile button, memberlist.php?mode=viewprofile&u=ID).
# A hidden post (ignored author, 3.1+ soft-deleted) is a header row of one td.gensmall only.


def _subsilver2_posts(anchors: list[HtmlElement]) -> dict[str, tuple[HtmlElement, Parts]]:
    """Post id -> (header row, parts), in page order, from the page's named anchors; empty when
    no header row has a b.postauthor (the page is another style's)."""
    heads: dict[str, HtmlElement] = {}
    for anchor in anchors:
        name = anchor.get("name")
        if _POST_ID.match(name):
            row = _header_row(anchor)
            if row is not None:
                heads.setdefault(name[1:], row)
    names = {pid: _postauthor(row) for pid, row in heads.items()}
    if not any(name is not None for name in names.values()):
        return {}
    starts = set(heads.values())
    return {pid: (row, _subsilver2_parts(_post_rows(row, starts), names[pid]))
            for pid, row in heads.items()}


def _header_row(anchor: HtmlElement) -> HtmlElement | None:
    """The row holding a post anchor; None for an anchor in a message or signature (a
    user's)."""
    for up in anchor.iterancestors():
        if up.tag == "tr":
            return up
        if "postbody" in (up.get("class") or ""):
            return None
    return None


def _post_rows(head: HtmlElement, starts: set[HtmlElement]) -> list[HtmlElement]:
    """The header row and the rows after it, up to the next post's header row."""
    rows = [head]
    for row in head.itersiblings("tr"):
        if row in starts:
            break
        rows.append(row)
    return rows


def _postauthor(row: HtmlElement) -> HtmlElement | None:
    for bold in row.iter("b"):
        if "postauthor" in (bold.get("class") or "").split():
            return bold
    return None


def _subsilver2_parts(rows: list[HtmlElement], name: HtmlElement | None) -> Parts:
    """The parts of one post's rows; `name` is the header row's b.postauthor."""
    content, footer = None, []
    for at, row in enumerate(rows):
        content = _first_postbody(row)
        if content is not None:
            footer = rows[at + 1:]
            break
    if name is None and content is None:
        cells = rows[0].findall("td")
        if len(cells) == 1:
            return {"hidden": cells[0]}
    parts: Parts = {}
    if name is not None:
        parts["name"] = name
        label = _posted_label(rows[0], name)
        if label is not None:
            parts["author"] = label.getparent()
    if content is not None:
        parts["content"] = content
        parts.update(_after_message(content))
        link = next((a for row in footer for a in row.iter("a")
                     if "mode=viewprofile" in (a.get("href") or "")), None)
        if link is not None:
            parts["user_link"] = link
    return parts


def _first_postbody(row: HtmlElement) -> HtmlElement | None:
    for element in row.iter("div", "span"):
        classes = element.get("class")
        if classes and "postbody" in classes and "postbody" in classes.split():
            return element
    return None


def _posted_label(head: HtmlElement, name: HtmlElement) -> HtmlElement | None:
    """The last bold label of the header row, "<b>Posted:</b>": the date follows it (the
    subject, user text, comes before it)."""
    inside = set(name.iter()) if len(name) else None  # bold inside a name is no label
    label = None
    for bold in head.iter("b", "strong"):
        if bold is not name and (inside is None or bold not in inside):
            label = bold
    return label


def _after_message(content: HtmlElement) -> Parts:
    """The signature and the edit notice among what follows the message in its cell (§2.1
    wording; with a reason, the notice is in a table.tablebg of td.row3 > span.gensmall), also
    when a board wrapped the message in more divs. Other span.gensmall there (bump notice,
    download notice, attachment sizes) are not edits."""
    parts: Parts = {}
    element = content
    while True:
        for sibling in element.itersiblings():
            classes = sibling.get("class")
            if classes and "postbody" in classes.split() and \
                    collapse(_text(sibling)).startswith(_SIG_RULE):
                parts.setdefault("signature", sibling)
            elif "notice" not in parts and (sibling.tag == "span" or sibling.tag == "table"):
                notice = _edit_span(sibling)
                if notice is not None:
                    parts["notice"] = notice
        parent = element.getparent()
        if parent is None or parent.tag == "td":
            return parts
        element = parent


def _before_reason(notice: HtmlElement) -> str:
    """The notice's text up to the <br> after it: prosilver writes the edit reason after one
    ("<br><strong>Reason:</strong> <em>…</em>"), and a reason's numbers or dates are no part of
    the edit count or time (phpBB 2 puts two <br> before its notice)."""
    if notice.find(".//br") is None:
        return _text(notice)
    pieces = [notice.text or ""]
    for child in notice:
        if child.tag == "br" and "".join(pieces).strip():
            break
        pieces.append(_text(child))
        pieces.append(child.tail or "")
    return "".join(pieces)


def _edit_span(element: HtmlElement) -> HtmlElement | None:
    """`element` itself when it is an edit notice span, or the notice in its td.row3."""
    tag = element.tag
    if tag == "span":
        return element if _is_edit_notice(element) else None
    if tag != "table":
        return None
    return next((span for span in element.iter("span")
                 if "row3" in (span.getparent().get("class") or "").split()
                 and _is_edit_notice(span)), None)


def _is_edit_notice(span: HtmlElement) -> bool:
    classes = (span.get("class") or "").split()
    return "gensmall" in classes and "error" not in classes and \
        _EDIT_WORDS.search(_text(span)) is not None


def _with_page_links(boxes: list[HtmlElement]) -> list[HtmlElement]:
    """subsilver2 shows "Page 1 of 3" in a td.nav and the page links (with start=) in the
    td.gensmall cells beside it."""
    out = []
    for box in boxes:
        out.append(box)
        if box.tag == "td" and _page_of(_text(box)):
            out.extend(box.itersiblings("td"))
    return out


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
