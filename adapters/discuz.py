"""Discuz! X (3.x) thread pages (FORUMS.md §4), the engine of the Chinese trigger-killer games.

A page holds one `div#post_{pid}` per floor, each with `table#pid{pid}`: the author in
`div.authi > a.xw1`, the floor in `strong > a#postnum{pid}`, the time in
`em#authorposton{pid}` ("发表于 2009-8-16 20:46", or a relative form inside
`<span title="absolute">`), the message in `td#postmessage_{pid}`. Older and regional boards
serve GBK or BIG5: the page is decoded by the charset it declares.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from itertools import chain
from typing import ClassVar
from urllib.parse import parse_qsl, urlencode, urljoin, urlsplit, urlunsplit

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
    has_class_xpath,
    parse_tree_as_browser,
    split_body,
    string_of,
)
from tally.errors import ForumError, TruncatedPage
from tally.model import Body, EditMarker, Page, Post, Quote, msg, msg_clauses, msg_n

# ---------------------------------------------------------------------------------------------
# URLs (FORUMS.md §4.2): forum.php?mod=viewthread&tid=&page=, the rewrite form
# thread-{tid}-{page}-{prevpage}.html, and findpost permalinks (forum.php?mod=redirect or the
# older redirect.php); viewthread.php?tid= is the pre-X form still served by migrated boards.

_REWRITE = re.compile(r"thread-(\d+)-(\d+)-(\d+)\.html$")
_QUERY_SCRIPTS = ("forum.php", "viewthread.php", "redirect.php")


def _query(url: str) -> tuple[str, dict[str, str]]:
    """The script name of a URL's path and its query parameters."""
    parts = urlsplit(url)
    return parts.path.rsplit("/", 1)[-1], dict(parse_qsl(parts.query, keep_blank_values=True))


def _tid(url: str) -> str | None:
    parts = urlsplit(url)
    rewrite = _REWRITE.search(parts.path)
    if rewrite:
        return rewrite.group(1)
    script, query = _query(url)
    if script not in _QUERY_SCRIPTS:
        return None
    if script == "forum.php" and query.get("mod") == "viewthread" or script == "viewthread.php":
        return query.get("tid") or None
    if query.get("goto") == "findpost" and (script == "redirect.php" or query.get("mod") == "redirect"):
        return query.get("ptid") or None
    return None


def _page_number(url: str) -> int:
    rewrite = _REWRITE.search(urlsplit(url).path)
    if rewrite:
        return max(1, int(rewrite.group(2)))
    page = _query(url)[1].get("page", "")
    return max(1, int(page)) if page.isdigit() else 1


# ---------------------------------------------------------------------------------------------
# Times (FORUMS.md §4.1 "Date", function_core.php dgmdate): absolute "Y-n-j H:i[:s]"; relative
# forms for the last week, always in the forum's zone. Traditional-character packs (BIG5
# boards) write 鐘/時 where simplified ones write 钟/时.

_CLOCK_SLACK = timedelta(minutes=2)  # server clock vs. fetch clock, when comparing the two
_POSTED_LABEL = re.compile(r"^(?:发表于|發表於)\s*")  # simplified and traditional packs
_NO_ANCHOR = datetime(2000, 1, 1)  # absolute times need no fetch time: relative ones are refused


def absolute_time(text: str) -> datetime | None:
    """An absolute "Y-n-j H:i[:s]" time (a title attribute, an edit marker's date)."""
    shown = dates.read(text, _NO_ANCHOR)
    return shown.at if shown is not None and not shown.relative and shown.has_time else None


def read_shown_time(text: str, fetched_local: datetime) -> dates.ShownTime | None:
    """Read a display time, absolute or relative ("刚刚", "N 分钟前", "半小时前", "昨天 20:46",
    "N 天前"), against the fetch wall time, with the shared reader of adapters/dates.py."""
    return dates.read(text, fetched_local)


# ---------------------------------------------------------------------------------------------
# Edit markers and quote headers (FORUMS.md §4.1): "本帖最后由 桃花 于 2009-8-16 20:46 编辑",
# as <i class="pstatus"> (X) or as bracketed plain text "[ … ]" (Discuz 6/7 and migrated posts).
# Quote headers: "X 发表于 2009-8-16 20:40" (X), "原帖由 X 于 2009-8-16 20:40 发表" (6/7).

_DATE_TEXT = r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}\s+\d{1,2}:\d{2}(?::\d{2})?"
# Traditional-character packs (BIG5 and TC_UTF8 boards) write "本帖最後由 X 於 2009-4-11 21:41 編輯"
# and "X 發表於": seen on real boards' saved pages in public code. Before, their edits were missed.
_EDIT = re.compile(
    rf"\[?\s*本帖最[后後]由\s*(\S+?)\s*[于於]\s*({_DATE_TEXT})\s*[编編][辑輯]\s*\]?")
_QUOTE_HEAD = (
    re.compile(rf"^(\S+)\s+(?:发表于|發表於)\s+(?:{_DATE_TEXT}|\S+)"),
    re.compile(rf"^原帖由\s*(\S+?)\s*[于於]\s*{_DATE_TEXT}\s*[发發]表"),
)
# The stock floor names (install_data.sql `postnocustom`: one a line, first line = floor 1). A
# board may set its own list (game file thread.floor_names, PageContext.floor_names): it
# replaces this one, as the admin setting does; floors past the list show "N#".
STOCK_FLOOR_NAMES = ("楼主", "沙发", "板凳", "地板")
# The same stock names as the traditional-character editions print them.
_TRADITIONAL_FLOOR_NAMES = ("樓主", "沙發", "板凳", "地板")
_DIGITS = re.compile(r"\d+")
# attackevasive interstitial titles (source/language/lang_security.php).
_CC_TITLES = ("页面重载开启", "频繁刷新限制", "代理服务器访问限制")
_POST_ID = re.compile(r"^post_(\d+)$")
# Look-ups go through libxml2's id index (XPath id()) wherever the template names an element by
# id, and through one compiled scan per post otherwise: walking every div of every post in
# Python, or scanning the whole page, costs more than parsing it (DESIGN.md "Performance").
_BY_ID = etree.XPath("id($id)")
_POST_WRAPPERS = (
    etree.XPath("id('postlist')/div[starts-with(@id, 'post_')]"),
    etree.XPath("//div[starts-with(@id, 'post_')]"),  # a theme that wraps the list differently
)
# The touch template (template/default/touch/forum/viewthread.htm, what a phone is served and a
# GM may save): div.plc#pid{pid} > div.display.pi > ul.authi (li.grey: em floor, b > a author;
# li.grey.rela: the time) and div.message.
_TOUCH_POSTS = etree.XPath(
    f"//div[starts-with(@id, 'pid')][{has_class_xpath('plc')}][div[{has_class_xpath('display')}]]")
_TOUCH_PARTS = etree.XPath(f"./div[{has_class_xpath('display')}]/ul[{has_class_xpath('authi')}]/li"
                           f" | ./div[{has_class_xpath('display')}]/div[{has_class_xpath('message')}]")
_TOUCH_ID = re.compile(r"^pid(\d+)$")
_MOBILE_SHIELD = etree.XPath(
    f"following-sibling::div[1]/div[{has_class_xpath('pbody')}]/div[{has_class_xpath('mes')}]"
    f"/div[{has_class_xpath('xi1')}]")
_LEFT_AUTHI_LINKS = etree.XPath("id($favatar)//div[contains(@class, 'authi')]/a")
_ANY_AUTHI_LINKS = etree.XPath(".//div[contains(@class, 'authi')]/a")
# The signature row of table#pid{pid} (viewthread_node.htm: td.plc.plm > div.sign).
_SIGNS = etree.XPath("id($table)/tr/td/div[contains(@class, 'sign')]"
                     " | id($table)/tbody/tr/td/div[contains(@class, 'sign')]")
_LOCKED = etree.XPath("descendant::div[contains(@class, 'locked')]")
# lang_template.php message_banned "作者被禁止或删除 内容自动屏蔽", message_single_banned
# "该帖被管理员或版主屏蔽" (and the traditional-character packs): content shielded by the forum.
_BANNED = re.compile("屏蔽|禁止|刪除|删除")
_FAVATAR_PI = etree.XPath(f".//div[{has_class_xpath('favatar')}]/div[{has_class_xpath('pi')}]")
# The pager's class token as a page can write it (alone, first, last, or in single quotes).
_PAGER_MARKS = (b'"pg"', b'"pg ', b' pg"', b"'pg'", b" pg ")
_PAGERS = (
    etree.XPath("id('pgt')//div[@class='pg']"),
    etree.XPath(f"//div[{has_class_xpath('pg')}]"),
)
_LOOKS_LIKE = re.compile(
    rb"Discuz!|discuz_uid|id=\"postmessage_\d+\"|STYLEID\s*=\s*'", re.IGNORECASE
)


_HIDDEN_STYLE = re.compile(r"display\s*:\s*none", re.IGNORECASE)


def _has(element: HtmlElement, name: str) -> bool:
    return name in class_set(element)


def _classify(element: HtmlElement) -> Aside | None:
    """Which Discuz blocks inside a message are not the author's own voice."""
    tag = element.tag
    if tag == "i" and _has(element, "pstatus"):
        return "drop"  # the edit marker: read on its own (FORUMS.md §4.1)
    if tag == "ignore_js_op":
        return "drop"  # attachment boxes and their tooltips
    parent = element.getparent() if tag == "h2" else None
    if (parent is not None and _has(parent, "message")) or (
            tag == "span" and {"grey", "quote"} <= class_set(element)):
        # touch: a reply's subject above its message; the "warned" notice (warn_get)
        return "drop"
    if tag == "font" or tag == "span":
        # The anti-scraping jammer (防采集, function_discuzcode.php jammer()): random text at
        # every line break, in a font.jammer the style paints in the page's background colour
        # or a span display:none. No reader sees it; left in, it glued itself to the vote line
        # after it ("8 f! W5 a( @0 d* a投票 月下独酌") and the vote was lost.
        if (tag == "font" and _has(element, "jammer")) or (
                tag == "span" and _HIDDEN_STYLE.search(element.get("style") or "")):
            return "drop"
        return None
    if tag != "div":
        return None
    classes = class_set(element)
    if "quote" in classes and "grey" not in classes:
        return "quote"
    if "blockcode" in classes:
        return "code"
    if "showhide" in classes or any("spoiler" in c for c in classes):
        return "spoiler"  # [hide] content shown to those who replied; spoiler plugins
    if classes & {"locked", "attach_nopermission", "attach_tips", "a_pr", "tip"} or \
            {"grey", "quote"} <= classes:  # touch: notices in a message (admin_message_banned)
        return "drop"  # hidden-content notices, the guest login tip, ads (guesttipsinthread)
    return None


def _aside_chrome(element: HtmlElement) -> bool:
    # The [hide] title (<h4>本帖隐藏的内容</h4>) and the code box's "复制代码" button.
    return element.tag == "h4" or "copycode" in (element.get("onclick") or "")


def _aside_text(element: HtmlElement) -> str:
    return block_text(element, _aside_chrome)


def _read_quote(element: HtmlElement) -> Quote:
    inner = element.find("blockquote")
    text = block_text(inner if inner is not None else element)
    head, _, rest = text.partition("\n")
    for pattern in _QUOTE_HEAD:
        found = pattern.match(head)
        if found:
            return Quote(text=rest, author=found.group(1))
    return Quote(text=text)


# ---------------------------------------------------------------------------------------------


def _first_found(root: HtmlElement, paths: tuple[etree.XPath, ...]) -> list[HtmlElement]:
    for path in paths:
        found = path(root)
        if found:
            return found
    return []


def _floor_numbers(names: tuple[str, ...]) -> dict[str, int]:
    """Floor name -> floor number; the first name is floor 1 (postnocustom's order)."""
    floors: dict[str, int] = {}
    for number, name in enumerate(names, start=1):
        floors.setdefault(name.strip(), number)
    return floors


# The stock names in either script: a simplified or a traditional edition's default.
_STOCK_FLOORS = {**_floor_numbers(STOCK_FLOOR_NAMES), **_floor_numbers(_TRADITIONAL_FLOOR_NAMES)}


def _post_wrappers(root: HtmlElement) -> list[tuple[HtmlElement, str]]:
    """The post wrappers div#post_{pid}, in page order."""
    return [(div, m.group(1)) for div in _first_found(root, _POST_WRAPPERS)
            if (m := _POST_ID.match(div.get("id", "")))]


def _by_id(root: HtmlElement, id_: str) -> HtmlElement | None:
    found = _BY_ID(root, id=id_)
    return found[0] if found else None


@dataclass(frozen=True, slots=True)
class _PostMarkup:
    """The elements of one post that the reading needs (FORUMS.md §4.1)."""

    div: HtmlElement
    pid: str
    floor_link: HtmlElement | None  # strong > a#postnum{pid}
    stamp: HtmlElement | None  # em#authorposton{pid}
    message: HtmlElement | None  # td#postmessage_{pid}
    authi_links: list[HtmlElement]  # the links of div.authi (the left column's first)
    notice: str | None = None  # touch: a div.grey.quote in place of the message (shielded)
    sticky: bool = False  # touch: a stickied copy of a later floor (settop.png)

    @classmethod
    def of(cls, root: HtmlElement, div: HtmlElement, pid: str) -> _PostMarkup:
        links = _LEFT_AUTHI_LINKS(root, favatar=f"favatar{pid}") or _ANY_AUTHI_LINKS(div)
        markup = cls(div, pid, _by_id(root, f"postnum{pid}"), _by_id(root, f"authorposton{pid}"),
                     _by_id(root, f"postmessage_{pid}"), links)
        user = None if links else _by_id(root, f"pid{pid}")
        return markup if user is None or not _has(user, "bm_user") else markup._mobile(user)

    def _mobile(self, user: HtmlElement) -> _PostMarkup:
        """The basic mobile template (template/default/mobile/forum/viewthread.htm): the floor
        and author in div.bm_user#pid{pid} ("<em>5</em>#" or the floor's name as bare text,
        then the author link), the time in em#authorposton{pid}, the message in
        div#postmessage_{pid}, a shielded message as div.mes > div.xi1."""
        links = [a for a in user.iterchildren("a") if "uid=" in (a.get("href") or "")]
        floor = next(user.iterchildren("em"), None)
        if floor is None or (links and floor.getparent().index(floor) > user.index(links[0])):
            floor = etree.Element("em")
            floor.text = collapse(user.text or "")  # "楼主": postno's name, as bare text
        notice = None
        if self.message is None:
            # The template closes div#post_{pid} before the message's div.pbody.
            shield = next(iter(_MOBILE_SHIELD(self.div)), None)
            notice = collapse(string_of(shield)) if shield is not None else None
        return replace(self, floor_link=floor, authi_links=links, notice=notice)

    @classmethod
    def of_touch(cls, div: HtmlElement, pid: str) -> _PostMarkup:
        floor = stamp = message = None
        links: list[HtmlElement] = []
        for part in _TOUCH_PARTS(div):
            if part.tag == "div":
                message = part
            elif "rela" in class_set(part):
                stamp = part
            elif floor is None:
                floor = part.find("em")
                links = [a for b in part.iter("b") for a in b.iter("a")]
        sticky = floor is not None and any(
            "settop" in (img.get("src") or "") for img in floor.iter("img"))
        notice = None
        if message is not None:
            blocks = [e for e in message if e.tag == "div"]
            shield = next((e for e in blocks if {"grey", "quote"} <= class_set(e)), None)
            if shield is not None and len(blocks) == 1 and not collapse(
                    "".join(message.itertext()).replace(string_of(shield), "")):
                notice, message = collapse(string_of(shield)), None
        return cls(div, pid, floor, stamp, message, links, notice, sticky)

    def blocks(self, path: etree.XPath, name: str, within: HtmlElement | None = None) -> list[str]:
        """The texts of the div.{name} blocks of the post (or of its message)."""
        return [collapse(string_of(e)) for e in path(within if within is not None else self.div)
                if _has(e, name)]


@dataclass(frozen=True, slots=True)
class _Reading:
    """What reading one page needs besides the tree."""

    ctx: PageContext
    number: int
    per_page: int
    tid: str | None
    fetched_local: datetime
    directory: str  # the page URL's folder, for the template's relative links
    floors: dict[str, int]  # the board's floor names -> floor number

    def resolve(self, href: str) -> str:
        """An absolute URL for a link of the page (most are "forum.php?…", relative)."""
        if "://" in href or href.startswith(("/", "?", "#")):
            return urljoin(self.ctx.url, href)
        return self.directory + href


class Discuz(Engine):
    name: ClassVar[str] = "discuz"
    label: ClassVar[str] = "Discuz!"
    default_zone: ClassVar[str] = "Asia/Shanghai"  # timeoffset default 8 (FORUMS.md §4.4)
    default_per_page: ClassVar[int] = 10  # postperpage default (FORUMS.md §4.2)

    # -- URLs ----------------------------------------------------------------------------------

    def accepts(self, url: str) -> bool:
        return _tid(url) is not None

    def thread_key(self, url: str) -> str:
        tid = _tid(url)
        if tid is None:
            raise self.not_a_thread_url(url, "Discuz! thread URL")
        return f"tid={tid}"

    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        tid = self.thread_key(url).removeprefix("tid=")
        parts = urlsplit(url)
        rewrite = _REWRITE.search(parts.path)
        if rewrite:
            path = parts.path[: rewrite.start()] + f"thread-{tid}-{number}-{rewrite.group(3)}.html"
            return urlunsplit(parts._replace(path=path, fragment=""))
        script, query = _query(url)
        if script == "forum.php" and query.get("mod") == "viewthread" or script == "viewthread.php":
            query["page"] = str(number)
            return urlunsplit(parts._replace(query=urlencode(query), fragment=""))
        # A findpost permalink: address the thread itself, beside the script that served it.
        target = "viewthread.php?" if script == "redirect.php" else "forum.php?mod=viewthread&"
        return urljoin(url, f"{target}tid={tid}&page={number}")

    def page_number(self, url: str, per_page: int | None = None) -> int:
        return _page_number(url)

    def looks_like(self, data: bytes) -> bool:
        return bool(_LOOKS_LIKE.search(data))

    # -- pages ---------------------------------------------------------------------------------

    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        if not closes_document(data):
            raise TruncatedPage(
                f"{self.label}: {ctx.url}: truncated page (the document ends before </html>)"
            )
        root = parse_tree_as_browser(data)  # plain elements: no per-node class lookup
        posts_divs = _post_wrappers(root)
        touch = [] if posts_divs else [
            (div, m.group(1)) for div in _TOUCH_POSTS(root) if (m := _TOUCH_ID.match(div.get("id", "")))]
        if not posts_divs and not touch:
            raise self.not_a_thread(ctx, self._why_not_a_thread(root, data))
        # helper_page::multi prints the pager as class="pg"; without one (a one-page thread)
        # the page is spared the search of every div (DESIGN.md "Performance").
        pager = next(iter(_first_found(root, _PAGERS)), None) if any(
            mark in data for mark in _PAGER_MARKS) else None
        number = self._current_page(pager, ctx.url)
        markups = [_PostMarkup.of(root, div, pid) for div, pid in posts_divs] or [
            _PostMarkup.of_touch(div, pid) for div, pid in touch]
        shown_tid = _page_tid(root, markups, pager)  # the page's own word (issue 16)
        tid = shown_tid or _tid(ctx.url)
        reading = _Reading(ctx, number, ctx.per_page or self.default_per_page, tid,
                           times.local_now(ctx.fetched_at, ctx.zone), urljoin(ctx.url, "."),
                           _floor_numbers(ctx.floor_names) if ctx.floor_names else _STOCK_FLOORS)
        posts: list[Post] = []
        notes: list[str] = []
        for index, markup in enumerate(markups):
            try:
                post = self._read_post(markup, index, reading, notes)
            except Exception as exc:
                reading_post(exc, markup.pid)
                raise
            if post is not None:
                posts.append(post)
        if not posts:
            raise self.not_a_thread(ctx, "the post list holds no readable post")
        notes.extend(_skipped_blocks(data))
        return Page(
            url=ctx.url,
            number=number,
            count=self._page_count(pager, number),
            posts=tuple(posts),
            thread_id=shown_tid,
            title=self._title(root),
            next_url=self._next_url(pager, ctx.url),
            notes=tuple(notes),
        )

    def _why_not_a_thread(self, root: HtmlElement, data: bytes) -> str:
        message = root.find(".//div[@id='messagetext']")
        if message is not None:
            paragraph = message.find("p")
            text = collapse(string_of(paragraph if paragraph is not None else message))
            login = root.find(".//div[@id='messagelogin']") is not None or "登录" in text
            return f"{'login required' if login else 'message page'}: {text}"
        title = collapse(root.findtext(".//title") or "")
        scripts = " ".join(s.text or "" for s in root.iter("script"))
        if title in _CC_TITLES or "document.location.reload" in scripts:
            return f"CC-defence interstitial: {title or 'reload script'}"
        if self.looks_like(data):
            return "no post (div#post_…) in the page"
        return "no Discuz! post list; the page looks like another engine's"

    # -- one post ------------------------------------------------------------------------------

    def _read_post(self, markup: _PostMarkup, index: int, reading: _Reading,
                   page_notes: list[str]) -> Post | None:
        ctx, pid, floor_link, stamp = reading.ctx, markup.pid, markup.floor_link, markup.stamp
        notes: list[str] = []
        if markup.sticky or floor_link is not None and floor_link.find("em[@class]") is not None \
                and "replystick" in class_set(floor_link.find("em[@class]")):
            # A stickied reply repeats a later floor at the top of the page (FORUMS.md §4.1).
            page_notes.append(msg("post {post}: stickied copy of a later floor, read where it "
                                  "stands", post=pid))
            return None
        author_link = self._author_link(markup.authi_links)
        if stamp is None and author_link is None:
            # The "post deleted" stub: a floor number and nothing else to read.
            page_notes.append(msg("post {post}: shown as deleted, with no author or time",
                                  post=pid))
            return None
        if stamp is None:
            raise ForumError(f"{self.label}: {ctx.url}: post {pid}: no time (em#authorposton{pid})")
        author, author_id = self._author(markup.div, author_link, pid, ctx)
        created_at, time_text = self._time(stamp, pid, reading, notes)
        position = self._position(floor_link, pid, index, reading, notes)
        body, edit, deleted = self._body(markup, reading, notes, page_notes)
        return Post(
            id=pid,
            position=position,
            permalink=self._permalink(floor_link, pid, reading),
            author=author,
            author_id=author_id,
            created_at=created_at,
            time_text=time_text,
            zone=ctx.zone,
            body=body,
            edit=edit,
            fetched_at=ctx.fetched_at,
            page_url=ctx.url,
            deleted=deleted,
            notes=tuple(notes),
        )

    @staticmethod
    def _author_link(links: list[HtmlElement]) -> HtmlElement | None:
        for link in links:  # authoronleft: the bold name link in the left column
            if _has(link, "xw1"):
                return link
        for link in links:  # authoronleft off: the name link beside the date
            href = link.get("href") or ""
            if "uid=" in href or "space-uid-" in href:
                return link
        return None

    def _author(self, div: HtmlElement, link: HtmlElement | None, pid: str,
                ctx: PageContext) -> tuple[str, str | None]:
        if link is not None:
            found = re.search(r"uid[=-](\d+)", link.get("href") or "")
            return collapse(string_of(link)), found.group(1) if found else None
        # Anonymous posts and deleted members: the name is plain text in the left column.
        for pi in _FAVATAR_PI(div):
            name = collapse(pi.text or "") or collapse(string_of(pi))
            if name:
                return name.split()[0], None
        raise ForumError(f"{self.label}: {ctx.url}: post {pid}: no author (div.authi > a.xw1)")

    def _time(self, stamp: HtmlElement, pid: str, reading: _Reading,
              notes: list[str]) -> tuple[datetime, str]:
        # The touch template's li.rela holds the "收藏"/"管理" links before the time: its own text.
        own = (stamp.text or "") + "".join(c.tail or "" for c in stamp) if stamp.tag == "li" \
            else string_of(stamp)
        shown_text = _POSTED_LABEL.sub("", collapse(own))
        span = next((s for s in stamp.iter("span") if s.get("title")), None)
        machine = absolute_time(span.get("title", "")) if span is not None else None
        shown = read_shown_time(shown_text, reading.fetched_local)
        if machine is not None:
            if shown is not None and not (
                    shown.earliest - _CLOCK_SLACK <= machine <= shown.latest + _CLOCK_SLACK):
                notes.append(msg("shown time '{shown}' disagrees with the page's title time "
                                 "{title}; the title time is used", shown=shown_text,
                                 title=machine.strftime("%Y-%m-%d %H:%M:%S")))
            wall = machine
        elif shown is not None:
            wall = shown.at
            if shown.relative:
                read = msg("relative time '{shown}' read against the fetch time {fetched} (no "
                           "title time in the page)", shown=shown_text,
                           fetched=reading.fetched_local.strftime("%Y-%m-%d %H:%M:%S"))
                notes.append(read if shown.precise else
                             msg_clauses(read, msg("it gives no exact time")))
        else:
            raise ForumError(f"{self.label}: {reading.ctx.url}: post {pid}: "
                             f"cannot read the time {shown_text!r}")
        local = times.localise(wall, reading.ctx.zone)
        if local.note:
            notes.append(local.note)
        return local.utc, shown_text

    def _position(self, link: HtmlElement | None, pid: str, index: int, reading: _Reading,
                  notes: list[str]) -> int:
        """The floor the page shows: "N#", else one of the board's floor names (T1: floor
        triggers hang on it). A name the board does not declare is an error, never a guess."""
        text = collapse(string_of(link)) if link is not None else ""
        digits = _DIGITS.search(text)
        if digits:
            return int(digits.group())
        if text in reading.floors:
            return reading.floors[text]
        if text:
            declared = "the game file's thread.floor_names" if reading.ctx.floor_names \
                else "the stock names"
            raise ForumError(
                f"{self.label}: {reading.ctx.url}: post {pid}: floor name {text!r} is not one of "
                f"{declared} ({', '.join(reading.floors)}); list the board's floor names, "
                "first = floor 1, in thread.floor_names")
        counted = (reading.number - 1) * reading.per_page + index + 1
        notes.append(msg("floor not shown: position {position} counted from the page order "
                         "(page {page}, {per_page} a page)", position=counted,
                         page=reading.number, per_page=reading.per_page))
        return counted

    def _permalink(self, link: HtmlElement | None, pid: str, reading: _Reading) -> str:
        href = link.get("href", "") if link is not None else ""
        if "findpost" in href:
            return reading.resolve(href)
        # The first floor links the thread itself: give it a findpost link like the others.
        tid = reading.tid or ""
        return reading.resolve(f"forum.php?mod=redirect&goto=findpost&ptid={tid}&pid={pid}")

    def _body(self, markup: _PostMarkup, reading: _Reading, notes: list[str],
              page_notes: list[str]) -> tuple[Body, EditMarker | None, bool]:
        message = markup.message
        if message is None:
            locked = [markup.notice] if markup.notice else markup.blocks(_LOCKED, "locked")
            if not locked:
                raise ForumError(f"{self.label}: {reading.ctx.url}: post {markup.pid}: "
                                 f"no message (td#postmessage_{markup.pid})")
            if not _BANNED.search(locked[0]):
                # "此帖仅作者可见" (replies shown to their author and the thread's only), a
                # password or a price: a real post whose words this viewer cannot read. Any
                # vote in it would be lost: stop rather than count without it.
                raise ForumError(f"{self.label}: {reading.ctx.url}: post {markup.pid}: its "
                                 f"message is hidden from this viewer ({locked[0]}); read the "
                                 "thread with an account that can see it (the thread's author)")
            # Shielded by the forum (a banned author, a moderator): the floor stays, its text is
            # gone; as for a deleted post, an earlier saved copy may still show it (C6).
            notes.append(msg("hidden by the forum: {shown}", shown=locked[0]))
            page_notes.append(msg("post {post}: message hidden by the forum ({shown}): no text "
                                  "to count; read as deleted", post=markup.pid, shown=locked[0]))
            return Body(own=""), None, True
        for text in markup.blocks(_LOCKED, "locked", within=message):
            if text:  # [hide] content this viewer may not see
                notes.append(msg("part of the message is hidden from this viewer: {shown}",
                                 shown=text))
                page_notes.append(msg("post {post}: part of the message is hidden from this "
                                      "viewer ({shown}); the rest is read", post=markup.pid,
                                      shown=text))
        markers = [collapse(string_of(i)) for i in message.iter("i") if _has(i, "pstatus")]
        body = split_body(message, _classify, _read_quote, _aside_text)
        own, written = self._strip_edit_text(body.own)
        signs = _SIGNS(markup.div, table=f"pid{markup.pid}")
        signature = next((block_text(e) for e in signs if _has(e, "sign")), "")
        body = replace(body, own=own, signature=signature or body.signature)
        return body, self._edit_marker(markers + written, reading), False

    @staticmethod
    def _strip_edit_text(own: str) -> tuple[str, list[str]]:
        """Take bracketed or plain edit notices out of the author's own text."""
        found = [collapse(m.group(0)) for m in _EDIT.finditer(own)]
        if not found:
            return own, []
        lines = (line.strip() for line in _EDIT.sub("", own).split("\n"))
        return "\n".join(line for line in lines if line), found

    def _edit_marker(self, texts: list[str], reading: _Reading) -> EditMarker | None:
        best: tuple[datetime, EditMarker] | None = None
        for text in texts:
            found = _EDIT.search(text)
            if not found:
                continue
            wall = absolute_time(found.group(2))
            if wall is None:
                continue
            edited = times.localise(wall, reading.ctx.zone).utc
            marker = EditMarker(text=text.strip("[] "), editor=found.group(1), edited_at=edited)
            if best is None or edited >= best[0]:
                best = (edited, marker)
        return best[1] if best else None

    # -- page chrome ---------------------------------------------------------------------------

    @staticmethod
    def _current_page(pager: HtmlElement | None, url: str) -> int:
        if pager is not None:
            current = pager.find("strong")
            if current is not None and (current.text or "").strip().isdigit():
                return int((current.text or "").strip())
        return _page_number(url)

    @staticmethod
    def _page_count(pager: HtmlElement | None, number: int) -> int | None:
        if pager is None:
            return 1 if number == 1 else None  # no pager: the thread fits on one page
        # Page links ("2", "... 12" on a.last), the current <strong>, and "共 N 页" / " / N 页".
        texts = [string_of(e) for e in pager.iter("a", "strong", "span")]
        texts += [e.get("title", "") for e in pager.iter("span")]
        numbers = [int(n) for text in texts for n in _DIGITS.findall(text)]
        return max(numbers + [number])

    @staticmethod
    def _next_url(pager: HtmlElement | None, url: str) -> str | None:
        if pager is None:
            return None
        link = next((a for a in pager.iter("a") if _has(a, "nxt") and a.get("href")), None)
        return urljoin(url, link.get("href")) if link is not None else None

    @staticmethod
    def _title(root: HtmlElement) -> str | None:
        subject = root.find(".//span[@id='thread_subject']")
        if subject is not None:
            return collapse(string_of(subject)) or None
        title = collapse(root.findtext(".//title") or "")
        return title.split(" - ")[0] or None


# Where the template names the thread (issue 16), in the order of trust: the fast reply form, the
# floor links (the first floor links the thread, the others findpost with ptid=), the "only this
# author" links, the pager, the canonical link, the breadcrumb, the printable link. Links inside
# messages are never read: a member may link any thread. The floor and author links are the
# ones the post reading found already (by id), so no search of the page runs for them.
_FASTPOST = etree.XPath("id('fastpostform')/@action", smart_strings=False)
_TID_LATER = (
    etree.XPath("//link[@rel='canonical']/@href", smart_strings=False),
    etree.XPath(f"//div[{has_class_xpath('postlist')}]/h2/a/@href", smart_strings=False),  # touch
    etree.XPath("id('thread_subject')/@href", smart_strings=False),  # the basic mobile template
    etree.XPath("id('pt')//a/@href", smart_strings=False),
    etree.XPath("//a[contains(@href, 'action=printable')]/@href", smart_strings=False),
)
_TID_IN = re.compile(r"[?&](?:amp;)?p?tid=(\d+)|thread-(\d+)-\d+-\d+\.html")


def _page_tid(root: HtmlElement, markups: list[_PostMarkup],
              pager: HtmlElement | None) -> str | None:
    """The thread id the page itself shows; None when it names none."""
    hrefs: list[str] = list(_FASTPOST(root))
    hrefs += [m.floor_link.get("href") or "" for m in markups if m.floor_link is not None]
    hrefs += [link.get("href") or "" for m in markups for link in m.authi_links
              if "authorid=" in (link.get("href") or "")]
    if pager is not None:
        hrefs += [link.get("href") or "" for link in pager.iterchildren("a")]
    later = (href for place in _TID_LATER for href in place(root))
    return first_id(chain(hrefs, later), _TID_IN)


# Blocks of a guest's page that are no post and no part of a message (FORUMS.md §4.4,
# viewthread_node.htm's ad tags as adshow() prints them, viewthread_node_body.htm's guest tip):
# named for the audit. Counted in the page's bytes, where the templates print them literally:
# a walk of every div of the post list cost a seventh of the reading (DESIGN.md "Performance").
_SKIPPED = ((b'<div class="a_pt"', msg("ad above a message (a_pt)")),
            (b'<div class="a_pr"', msg("ad beside a message (a_pr)")),
            (b"attach_nopermission attach_tips", msg("the guest login tip")),
            (b'<div class="a_pb"', msg("ad below a message (a_pb)")),
            (b'<div class="a_p"', msg("ad between posts (a_p)")))


def _skipped_blocks(data: bytes) -> tuple[str, ...]:
    found = []
    for marker, name in _SKIPPED:
        count = data.count(marker)
        if count:
            found.append(name if count == 1 else
                         msg_n("{block}, {n} time", "{block}, {n} times", block=name, n=count))
    return (msg("skipped, not posts: {blocks}", blocks=msg_clauses(*found)),) if found else ()
