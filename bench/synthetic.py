"""Large synthetic threads for every engine, built from saved real-markup pages (bench only).

A fixture page is a real template with a handful of posts; a realistic page has a full window
of them (15-25 on the boards tally reads). Each thread here repeats saved pages: page N of the
thread keeps the chrome of one saved page (taken in turn when a template names several) and is
filled with copies of that page's own posts, each copy under a new post id, so the parse +
extract / lxml ratio is measured on page sizes a forum serves rather than on trimmed fixtures
(issue 15: the speed target is measured on full-size pages).

The knowledge of where a post starts lives here, not in the adapters: the bench must not use
the code it measures to build its input. Each engine's owner keeps its templates below.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from pathlib import Path

from lxml import etree

from tally.adapters.base import PageContext

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import casefiles  # noqa: E402  (tests/ holds the fixture loader)

_HOLE = "<!--tally-bench-posts-->"


@dataclass(frozen=True)
class Template:
    """Saved pages to grow: where their posts are and how their ids are written."""

    label: str  # the bench row's name: engine and variant
    engine: str
    case: str
    posts: str  # XPath of the post elements
    id_of: str  # XPath (a string) of the post id's text, on the post element ...
    per_page: int  # posts on a full page of this board
    id_pattern: str = r"(\d+)"  # ... and the id in it (group 1)
    pages: tuple[int, ...] = (0,)  # indexes of the case's pages used in turn
    trailing: int = 0  # sibling elements after a post element that belong to it (table rows)
    encoding: str = "utf-8"  # the saved pages' charset, kept on the thread's pages
    # The engine's part of a real thread: marks places in the parsed page to fill per page and
    # per post (prepare), then fills them (dress_page, dress_post); see the phpBB ones below.
    prepare: Callable[[etree._Element], None] | None = None
    dress_page: Callable[[str, int, int, int], str] | None = None  # (html, number, count, pp)
    dress_post: Callable[[str, int, int], str] | None = None  # (html, new id, index in thread)
    url: Callable[[int, int], str] | None = None  # (number, per_page) -> the page's URL
    extra: dict[str, object] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------
# phpBB 3 on real pages (fixtures/phpbb/dostips-32: an HTTrack mirror of a phpBB 3.2 board,
# AllanStyle-SUBSILVER, a prosilver derivative). Repeating the pages as saved would give every
# page the same page number and every post the times of 2014-2018 in page order; a real game
# thread has its page's own pagination and times that grow, and vote lines in bold. So the
# pagination boxes, the canonical link and each post's date text are rewritten in the board's
# own markup and format, every fifth post opens with a bold vote line (bbcode.html's
# strong.text-strong), and every third post gets prosilver's signature block
# (viewtopic_body.html: div#sig{ID}.signature): the mirrored board shows none.

PHPBB_TOPIC = "https://www.dostips.com/forum/viewtopic.php?f=3&t=6044"
PHPBB_START = datetime(2018, 10, 1, 9, 0)
_PAGINATION = "tally-bench-pagination"
_DATE = "TALLYBENCHDATE"
_VOTE = "TALLYBENCHVOTE"
_SIGNATURE = "TALLYBENCHSIGNATURE"


def _phpbb_prepare(root: etree._Element) -> None:
    for box in root.xpath("//div[contains(concat(' ', @class, ' '), ' pagination ')]"):
        for child in list(box):
            box.remove(child)
        box.text = None
        box.append(etree.Comment(_PAGINATION))
    for link in root.xpath("//link[@rel='canonical']"):
        link.set("href", "TALLYBENCHCANONICAL")
    for post in root.xpath("//div[starts-with(@id, 'p')][contains(@class, 'post')]"):
        author = post.xpath(".//p[contains(@class, 'author')]")
        if author:
            spans = author[0].xpath("./span[contains(@class, 'responsive-hide')]")
            if spans:
                spans[-1].tail = _DATE + "\n\t\t\t"
        content = post.xpath(".//div[@class='content']")
        if content:
            content[0].text = _VOTE + (content[0].text or "")
            content[0].addnext(etree.Comment(_SIGNATURE))
            content[0].tail, content[0].getnext().tail = None, content[0].tail


def _phpbb_url(number: int, per_page: int) -> str:
    return f"{PHPBB_TOPIC}&start={(number - 1) * per_page}"


def _phpbb_pagination(number: int, count: int, per_page: int) -> str:
    """prosilver pagination.html for page `number` of `count` (li.active span, a[rel=next])."""
    def link(n: int, label: str, extra: str = "") -> str:
        return (f'<li{extra}><a class="button" href="./viewtopic.php?f=3&amp;t=6044&amp;'
                f'start={(n - 1) * per_page}" role="button">{label}</a></li>')
    items: list[str] = []
    shown = sorted({1, number - 1, number, number + 1, count} & set(range(1, count + 1)))
    for before, n in zip([0, *shown], shown):
        if n > before + 1 and before:
            items.append('<li class="ellipsis" role="separator"><span>…</span></li>')
        items.append(f'<li class="active"><span>{n}</span></li>' if n == number else link(n, str(n)))
    if number < count:
        items.append(link(number + 1, '<span class="sr-only">Next</span>', ' class="arrow next"')
                     .replace('role="button"', 'rel="next" role="button"'))
    return (f"\n\t\t\t{count * per_page} posts\n\t\t\t<ul>\n"
            f'<li class="dropdown-container dropdown-button-control dropdown-page-jump page-jump">'
            f'<a class="button button-icon-only dropdown-trigger" href="#" title="Click to jump to '
            f'page…" role="button"><span class="sr-only">Page <strong>{number}</strong> of '
            f"<strong>{count}</strong></span></a></li>\n" + "\n".join(items) + "\n\t</ul>\n")


def _phpbb_dress_page(html: str, number: int, count: int, per_page: int) -> str:
    html = html.replace("<!--" + _PAGINATION + "-->", _phpbb_pagination(number, count, per_page))
    return html.replace("TALLYBENCHCANONICAL", _phpbb_url(number, per_page).replace("&", "&amp;"))


# The members who post on the saved pages: the game's players.
PHPBB_VOTERS = ("dbenham", "bars143", "foxidrive", "aGerman", "brinda", "misol101", "penpen",
                "Aacini", "flywire", "sst", "pieh-ejdsch", "MarioZac", "Compo")


def _phpbb_dress_post(html: str, new_id: int, index: int) -> str:
    when = PHPBB_START + timedelta(seconds=37 * index)
    html = html.replace(_DATE, f"{when.day:02d} {when:%b %Y %H:%M}")
    vote = ""
    if index % 5 == 0:
        target = PHPBB_VOTERS[(index // 5) % len(PHPBB_VOTERS)]
        vote = f'<strong class="text-strong">vote: {target}</strong><br>'
    html = html.replace(_VOTE, vote)
    signature = ""
    if index % 3 == 0:
        signature = (f'<div id="sig{new_id}" class="signature">Regards, <a href="https://www.'
                     'dostips.com/" class="postlink">DosTips</a> &ndash; a forum all about DOS '
                     "Batch</div>")
    return html.replace("<!--" + _SIGNATURE + "-->", signature)


# ---------------------------------------------------------------------------------------------
# The rows of the bench: one per engine variant (issue 15)

TEMPLATES = (
    Template("phpBB 3 prosilver (real pages)", "phpbb", "dostips-32",
             "//div[starts-with(@id, 'p')][contains(concat(' ', @class, ' '), ' post ')]",
             "string(@id)", 15, pages=(0, 1, 2), prepare=_phpbb_prepare,
             dress_page=_phpbb_dress_page, dress_post=_phpbb_dress_post, url=_phpbb_url),
    # phpBB 3.3 and 2: pages rendered from the stock templates (fixtures/phpbb/stock_pages.py,
    # stock_tables.py); the 3.3 guest page keeps its ad blocks in the chrome.
    Template("phpBB 3.3 prosilver (stock)", "phpbb", "stock-prosilver-33",
             "//div[starts-with(@id, 'p')][contains(concat(' ', @class, ' '), ' post ')]",
             "string(@id)", 20),
    Template("phpBB 2 subSilver", "phpbb", "stock-phpbb2",
             "//tr[td/span[@class='name']/a[@name]]", "string(td/span[@class='name']/a/@name)",
             15, pages=(0, 1), trailing=2, encoding="windows-1252"),
    # Forumotion: pages rendered from each theme's stock templates (fixtures/forumotion/
    # stock_pages.py, Etana/template); the sponsored block (post 0) stays in the chrome.
    Template("Forumotion phpBB2", "forumotion", "stock-subsilver-es",
             "//tr[contains(concat(' ', @class, ' '), ' post ')]", "string(@class)", 15,
             id_pattern=r"post--([1-9]\d*)", pages=(0, 1), trailing=1),
    *(Template(f"Forumotion {label}", "forumotion", f"stock-{theme}-es",
               "//*[contains(@class, 'post--')]", "string(@class)", 15,
               id_pattern=r"post--([1-9]\d*)", pages=(0, 1))
      for label, theme in (("phpBB3", "prosilver"), ("PunBB", "punbb"), ("Invision", "invision"),
                           ("ModernBB", "modernbb"), ("AwesomeBB", "awesomebb"))),
    # JV 2026 on real pages (fixtures/jv/real-2026: two guest pages of a real topic, their
    # JvCare chrome, ad slots and payload), taking turns.
    Template("jeuxvideo.com 2026 (real pages)", "jv", "real-2026",
             "//div[@id][contains(@class, 'messageUser')]", "string(@id)", 20, pages=(0, 1)),
    Template("jeuxvideo.com legacy", "jv", "legacy",
             "//div[@data-id][contains(@class, 'bloc-message-forum')]", "string(@data-id)", 20),
    # Discuz: a guest's page rendered from the stock X3.4 templates (fixtures/discuz/
    # stock_pages.py: guest tip, ads on every floor), in UTF-8 and as a GBK edition serves it.
    Template("Discuz UTF-8", "discuz", "stock-x34-utf8",
             "id('postlist')/div[starts-with(@id, 'post_')]", "string(@id)", 15),
    Template("Discuz GBK", "discuz", "stock-x34-gbk",
             "id('postlist')/div[starts-with(@id, 'post_')]", "string(@id)", 15, encoding="gbk"),
    # Invision: guest pages rendered from the real IPB 3.4 skin and IPS 4.1 theme
    # (fixtures/invision/*-guest-ru/make_pages.py); a post's <hr /> goes with it, the ad code
    # and scripts stay in the chrome (once a page, as the boards print them).
    Template("Invision IPB 3", "invision", "ipb3-guest-ru",
             "//div[starts-with(@id, 'post_id_')]", "string(@id)", 20, pages=(0, 1),
             trailing=1),
    Template("Invision IPS 4", "invision", "ips4-guest-ru",
             "//article[starts-with(@id, 'elComment_')]", "string(@id)", 25, pages=(0, 1)),
)


def template(label_or_engine: str) -> list[Template]:
    """The templates whose label or engine is `label_or_engine` (bench --engine)."""
    return [t for t in TEMPLATES if label_or_engine in (t.engine, t.label)]


# ---------------------------------------------------------------------------------------------
# Growing a thread


def _units(root: etree._Element, tpl: Template) -> list[tuple[str, list[etree._Element]]]:
    """Each post with the anchor or comment right before it that names it (JV's span#post_ID,
    IPS 4's a#comment-ID, IPB 3's <!--post:ID-->) and its trailing rows."""
    out = []
    id_of = etree.XPath(tpl.id_of, smart_strings=False)
    pattern = re.compile(tpl.id_pattern)
    for element in root.xpath(tpl.posts):
        found = pattern.search(id_of(element))
        if found is None:
            continue
        post_id = found.group(1)
        nodes = [element]
        before = element.getprevious()
        if before is not None and post_id in (before.get("id") or str(before.text or "")):
            nodes.insert(0, before)
        after = element
        for _ in range(tpl.trailing):
            after = after.getnext()
            if after is None:
                break
            nodes.append(after)
        out.append((post_id, nodes))
    return out


def _serialise(node: etree._Element) -> str:
    return etree.tostring(node, method="html", encoding="unicode", with_tail=True)


def _renumber(html: str, old: str, new: int) -> str:
    return re.sub(rf"(?<!\d){re.escape(old)}(?!\d)", str(new), html)


def _payload_page(page: str, items: list[dict]) -> str:
    """JV 2026: the same messages in the embedded forumsAppPayload (base64 of gzip'd JSON)."""
    found = re.search(r'forumsAppPayload="([^"]*)"', page)
    if not found:
        return page
    data = json.loads(gzip.decompress(base64.b64decode(found.group(1))))
    data["listMessage"] = items
    blob = base64.b64encode(gzip.compress(json.dumps(data).encode("utf-8"))).decode("ascii")
    return page[: found.start(1)] + blob + page[found.end(1):]


def _payload_items(page: bytes) -> dict[str, dict]:
    found = re.search(rb'forumsAppPayload="([^"]*)"', page)
    if not found:
        return {}
    data = json.loads(gzip.decompress(base64.b64decode(found.group(1))))
    return {str(item["id"]): item for item in data.get("listMessage", [])}


@dataclass
class _Source:
    chrome: str
    rows: list[tuple[str, str]]
    items: dict[str, dict]
    ctx: PageContext


def _source(tpl: Template, saved: casefiles.CasePage, floor_names: tuple[str, ...]) -> _Source:
    root = etree.fromstring(saved.data, etree.HTMLParser(encoding=tpl.encoding))
    if tpl.prepare is not None:
        tpl.prepare(root)
    units = _units(root, tpl)
    if not units:
        raise ValueError(f"{tpl.label}: no posts found by {tpl.posts!r} in {saved.file}")
    parent = units[0][1][0].getparent()
    parent.insert(parent.index(units[0][1][0]), etree.Comment(_HOLE[4:-3]))
    rows = []
    for post_id, nodes in units:
        rows.append((post_id, "".join(_serialise(n) for n in nodes)))
        for node in nodes:
            node.getparent().remove(node)  # tails go with them: they belong to the post
    chrome = etree.tostring(root, method="html", encoding="unicode", doctype="<!DOCTYPE html>")
    ctx = replace(saved.ctx, per_page=tpl.per_page, floor_names=floor_names)
    return _Source(chrome, rows, _payload_items(saved.data), ctx)


def thread(tpl: Template, posts: int) -> Iterator[tuple[bytes, PageContext]]:
    """The pages of a `posts`-post thread grown from `tpl`, with their parse contexts."""
    case = casefiles.load_case(casefiles.FIXTURES / tpl.engine / tpl.case)
    names = tuple(case.meta.get("floor_names", ()))  # a board setting (Discuz)
    sources = [_source(tpl, case.pages[i], names) for i in tpl.pages]
    first_id = 10_000_000
    count = -(-posts // tpl.per_page)
    for number in range(1, count + 1):
        source = sources[(number - 1) % len(sources)]
        start = (number - 1) * tpl.per_page
        html, payload = [], []
        for index in range(start, min(start + tpl.per_page, posts)):
            new = first_id + index
            old, row = source.rows[index % len(source.rows)]
            row = _renumber(row, old, new)
            if tpl.dress_post is not None:
                row = tpl.dress_post(row, new, index)
            html.append(row)
            if old in source.items:
                payload.append({**source.items[old], "id": new})
        page = source.chrome.replace(_HOLE, "".join(html))
        if tpl.dress_page is not None:
            page = tpl.dress_page(page, number, count, tpl.per_page)
        if source.items:
            page = _payload_page(page, payload)
        ctx = source.ctx
        if tpl.url is not None:
            ctx = replace(ctx, url=tpl.url(number, tpl.per_page))
        yield page.encode(tpl.encoding, "xmlcharrefreplace"), ctx


def write_thread(tpl: Template, posts: int, folder: Path) -> int:
    """Write the thread's pages into `folder` as page-N.html (for `tally count --from`);
    return the number of pages."""
    number = 0
    for number, (data, _ctx) in enumerate(thread(tpl, posts), start=1):
        (folder / f"page-{number}.html").write_bytes(data)
    return number


PHPBB_GAME = """# The bench's game on the real-pages phpBB thread (bench/synthetic.py)
title = "bench"
preset = "majority"
timezone = "Etc/GMT+6"            # the board's footer: "All times are UTC-06:00"

[thread]
url = "{url}"
engine = "phpbb"

{players}
[[days]]
number = 1
start = "{start}"
deadline = "{deadline}"
"""


def write_phpbb_game(folder: Path, posts: int) -> Path:
    """The game file for the real-pages phpBB thread: the voters are its players; day 1 spans
    the thread."""
    players = "".join(f'[[players]]\nname = "{name}"\n\n' for name in PHPBB_VOTERS)
    end = PHPBB_START + timedelta(seconds=37 * posts + 3600)
    path = folder / "game.toml"
    path.write_text(PHPBB_GAME.format(url=PHPBB_TOPIC, players=players,
                                      start=f"{PHPBB_START:%Y-%m-%d %H:%M:%S}",
                                      deadline=f"{end:%Y-%m-%d %H:%M:%S}"), encoding="utf-8")
    return path
