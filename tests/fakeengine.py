"""A tiny forum engine and forum for crawl tests, independent of the real adapters.

Markup (made up for these tests, not a real engine's):
    <html><body class="fake-forum"><div class="pages">Page 2 of 3</div>
    <div class="post" data-id="12" data-pos="12" data-author="ann" data-time="2026-11-20T10:00:00Z">
      text</div> ... <a rel="next" href="...">  </body></html>
URLs: http://host/thread/7?page=N.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from html import escape
from urllib.parse import parse_qs, urlsplit

import lxml.html

from tally.adapters.base import Engine, PageContext
from tally.errors import TruncatedPage
from tally.model import Body, Page, Post

T0 = datetime(2026, 11, 20, 10, 0, tzinfo=UTC)


class FakeEngine(Engine):
    name = "fake"
    label = "Fake"

    def accepts(self, url: str) -> bool:
        return "/thread/" in url

    def thread_key(self, url: str) -> str:
        return "thread=" + urlsplit(url).path.rsplit("/", 1)[-1]

    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        base = url.split("?", 1)[0]
        return base if number == 1 else f"{base}?page={number}"

    def page_number(self, url: str, per_page: int | None = None) -> int:
        return int(parse_qs(urlsplit(url).query).get("page", ["1"])[0])

    def looks_like(self, data: bytes) -> bool:
        return b'class="fake-forum"' in data

    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        if not data.rstrip().endswith(b"</html>"):
            raise TruncatedPage(f"{self.label}: {ctx.url}: the page ends early")
        root = lxml.html.fromstring(data)
        nodes = root.xpath('//div[@class="post"]')
        if not nodes:
            raise self.not_a_thread(ctx, "no posts")
        numbers = re.search(r"Page (\d+) of (\d+)", root.findtext('.//div[@class="pages"]') or "")
        number, count = (int(numbers[1]), int(numbers[2])) if numbers else (1, None)
        next_link = root.xpath('//a[@rel="next"]/@href')
        return Page(
            url=ctx.url,
            number=number,
            count=count,
            posts=tuple(self._post(node, ctx) for node in nodes),
            next_url=str(next_link[0]) if next_link else None,
        )

    def _post(self, node: lxml.html.HtmlElement, ctx: PageContext) -> Post:
        created = datetime.fromisoformat(node.get("data-time"))
        return Post(
            id=node.get("data-id"),
            position=int(node.get("data-pos")),
            permalink=f"{ctx.url}#p{node.get('data-id')}",
            author=node.get("data-author"),
            author_id=None,
            created_at=created,
            time_text=node.get("data-time"),
            zone=ctx.zone,
            body=Body(own=node.text_content().strip()),
            fetched_at=ctx.fetched_at,
            page_url=ctx.url,
        )


@dataclass
class FakeForum:
    """A thread that can grow, lose posts and have posts edited; renders pages like a forum."""

    per_page: int = 5
    posts: list[tuple[int, str, str]] = field(default_factory=list)  # (id, author, text)
    next_links: bool = True
    base: str = "/thread/7"
    held: dict[int, tuple[int, str, str]] = field(default_factory=dict)  # the moderation queue

    def add(self, count: int, author: str = "ann") -> None:
        start = max((pid for pid, _, _ in self.posts), default=0) + 1
        for pid in range(start, start + count):
            self.posts.append((pid, author, f"post {pid}"))

    def delete(self, pid: int) -> None:
        self.posts = [post for post in self.posts if post[0] != pid]

    def hold(self, pid: int) -> None:
        """Put a post in the moderation queue: not shown, its place kept for its approval."""
        self.held.update((post[0], post) for post in self.posts if post[0] == pid)
        self.delete(pid)

    def approve(self, pid: int) -> None:
        """Show a held post, where its id places it: in the middle of the thread."""
        self.posts = sorted([*self.posts, self.held.pop(pid)])

    def edit(self, pid: int, text: str) -> None:
        self.posts = [(i, a, text if i == pid else t) for i, a, t in self.posts]

    @property
    def pages(self) -> int:
        return max(1, -(-len(self.posts) // self.per_page))

    def render(self, number: int) -> bytes:
        number = min(number, self.pages)  # like phpBB: a page past the end shows the last one
        first = (number - 1) * self.per_page
        shown = self.posts[first:first + self.per_page]
        rows = "".join(
            f'<div class="post" data-id="{pid}" data-pos="{first + i + 1}" '
            f'data-author="{escape(author)}" data-time="{(T0 + timedelta(minutes=pid)):%Y-%m-%dT%H:%M:%SZ}">'
            f"{escape(text)}</div>\n"
            for i, (pid, author, text) in enumerate(shown)
        )
        more = (
            f'<a rel="next" href="{self.base}?page={number + 1}">next</a>'
            if self.next_links and number < self.pages else ""
        )
        return (
            f'<html><head><title>t</title></head><body class="fake-forum">'
            f'<div class="pages">Page {number} of {self.pages}</div>\n{rows}{more}</body></html>'
        ).encode()
