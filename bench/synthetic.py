"""Large synthetic threads for every engine, built from the saved fixture pages (bench only).

A fixture page is a real template with a handful of posts; a realistic page has a full window
of them (Forumotion 15, JV 20, IPB 3 20, IPS 4 25, Discuz 10 by default, and boards raise it).
Each thread here keeps one fixture page's chrome and fills every page with copies of that
page's own posts, each copy under a new post id, so the parse + extract / lxml ratio is
measured on page sizes a forum serves rather than on trimmed fixtures.

The knowledge of where a post starts lives here, not in the adapters: the bench must not use
the code it measures to build its input.
"""

from __future__ import annotations

import base64
import gzip
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path

from lxml import etree

from tally.adapters.base import PageContext

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import casefiles  # noqa: E402  (tests/ holds the fixture loader)

_HOLE = "<!--tally-bench-posts-->"


@dataclass(frozen=True)
class Template:
    """One fixture page to grow: where its posts are and how their ids are written."""

    engine: str
    case: str
    page: int  # index into the case's pages
    posts: str  # XPath of the post elements
    id_attr: str  # attribute holding the post id
    id_prefix: str  # ... after this prefix
    per_page: int  # posts on a full page of this board


TEMPLATES = (
    Template("forumotion", "espia-phpbb3-es", 0, "//div[contains(@class, 'post--')]",
             "id", "p", 15),
    Template("jv", "kira-2026", 0, "//div[@id][contains(@class, 'messageUser')]",
             "id", "message-", 20),
    Template("jv", "legacy", 0, "//div[@data-id][contains(@class, 'bloc-message-forum')]",
             "data-id", "", 20),
    Template("discuz", "trigger-utf8", 0, "id('postlist')/div[starts-with(@id, 'post_')]",
             "id", "post_", 10),
    Template("invision", "mafia-ipb3-ru", 0, "//div[starts-with(@id, 'post_id_')]",
             "id", "post_id_", 20),
    Template("invision", "ips4-ru", 0, "//article[starts-with(@id, 'elComment_')]",
             "id", "elComment_", 25),
)


def _units(root: etree._Element, template: Template) -> list[tuple[str, list[etree._Element]]]:
    """Each post with the anchor or comment right before it that names it (JV's span#post_ID,
    IPS 4's a#comment-ID, IPB 3's <!--post:ID-->)."""
    out = []
    for element in root.xpath(template.posts):
        post_id = (element.get(template.id_attr) or "").removeprefix(template.id_prefix)
        nodes = [element]
        before = element.getprevious()
        if before is not None and post_id in (before.get("id") or str(before.text or "")):
            nodes.insert(0, before)
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


def thread(template: Template, posts: int) -> Iterator[tuple[bytes, PageContext]]:
    """The pages of a `posts`-post thread grown from `template`, with their parse contexts."""
    case = casefiles.load_case(casefiles.FIXTURES / template.engine / template.case)
    saved = case.pages[template.page]
    root = etree.fromstring(saved.data, etree.HTMLParser(encoding="utf-8"))
    units = _units(root, template)
    parent = units[0][1][0].getparent()
    parent.insert(parent.index(units[0][1][0]), etree.Comment(_HOLE[4:-3]))
    rows = []
    for post_id, nodes in units:
        rows.append((post_id, "".join(_serialise(n) for n in nodes)))
        for node in nodes:
            node.getparent().remove(node)  # tails go with them: they belong to the post
    chrome = etree.tostring(root, method="html", encoding="unicode",
                            doctype="<!DOCTYPE html>")
    items = _payload_items(saved.data)
    first_id = 10_000_000
    ctx = replace(saved.ctx, per_page=template.per_page)
    for number in range(1, -(-posts // template.per_page) + 1):
        start = (number - 1) * template.per_page
        ids = range(first_id + start, first_id + min(start + template.per_page, posts))
        html, payload = [], []
        for new in ids:
            old, row = rows[new % len(rows)]
            html.append(_renumber(row, old, new))
            if old in items:
                payload.append({**items[old], "id": new})
        page = chrome.replace(_HOLE, "".join(html))
        if items:
            page = _payload_page(page, payload)
        yield page.encode("utf-8"), ctx
