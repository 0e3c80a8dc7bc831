"""tally.crawl: fetch as little as the store allows, lose nothing, count nothing twice."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from itertools import permutations
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit, urlunsplit

import pytest
import requests
from casefiles import fixture_module
from fakeengine import T0, FakeEngine, FakeForum
from pytest_httpserver import HTTPServer
from requests.adapters import HTTPAdapter
from requests.models import PreparedRequest
from werkzeug import Request, Response

from tally import adapters
from tally.adapters.base import PageContext
from tally.assemble import assemble
from tally.crawl import read_stored_thread, read_thread
from tally.errors import InputError, NotAThreadPage, TruncatedPage
from tally.fetch import Fetcher
from tally.model import Body, Page, Post
from tally.saved import read_saved_pages, saved_page_url
from tally.store import Store

ENGINE = FakeEngine()
ZONE = "Europe/Madrid"


@pytest.fixture
def server() -> Iterator[HTTPServer]:
    running = HTTPServer(host="127.0.0.1")
    running.start()
    yield running
    running.clear()
    running.stop()


@pytest.fixture
def forum(server: HTTPServer) -> FakeForum:
    thread = FakeForum(per_page=5)
    thread.add(12)  # pages: 1-5, 6-10, 11-12

    def serve(request: Request) -> Response:
        number = int(request.args.get("page", "1"))
        return Response(thread.render(number), content_type="text/html; charset=utf-8")

    server.expect_request("/thread/7").respond_with_handler(serve)
    return thread


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "game.sqlite") as opened:
        yield opened


def run(server: HTTPServer, store: Store | None, **options: object) -> tuple[object, list[str]]:
    """One read of the thread; returns it and the pages the server was asked for."""
    before = len(server.log)
    thread = read_thread(server.url_for("/thread/7"), ENGINE, zone=ZONE, store=store,
                         fetcher=Fetcher(delay=0, retries=1), **options)  # type: ignore[arg-type]
    asked = [request.args.get("page", "1") for request, _ in server.log[before:]]
    return thread, asked


def ids(thread: object) -> list[str]:
    return [post.id for post in thread.posts]  # type: ignore[attr-defined]


def numbers(*pids: int) -> list[str]:
    return [str(pid) for pid in pids]


# ---------------------------------------------------------------------------------------------
# Online with the store


def test_first_run_reads_page_one_then_the_pages_from_the_last_down(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    seen: list[tuple[int, int | None]] = []
    thread, asked = run(server, store, progress=lambda done, total: seen.append((done, total)))
    # Page 1 says there are 3 pages; then 3, 2 and 1 again, highest first (issue 3).
    assert asked == ["1", "3", "2", "1"]
    assert ids(thread) == numbers(*range(1, 13))
    assert [post.position for post in thread.posts] == list(range(1, 13))
    assert thread.engine == "fake"
    assert thread.url == server.url_for("/thread/7")
    assert thread.vanished == frozenset() and dict(thread.history) == {}
    assert seen == [(1, 4), (2, 4), (3, 4), (4, 4)]  # reads done, reads planned
    assert store.last_page("thread=7") == 3
    assert [page.page for page in store.latest("thread=7")] == [1, 2, 3]
    # Page 1 read again with the same bytes in the same crawl: its first read stands for both.
    assert [version.page for version in store.versions("thread=7")] == [1, 3, 2]


def test_rerun_with_one_new_page_fetches_exactly_two(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    run(server, store)
    forum.add(4)  # 13-15 fill page 3, 16 opens page 4
    thread, asked = run(server, store)
    assert asked == ["4", "3"]  # page 4 says it is the last; then page 3, read after it
    assert ids(thread) == numbers(*range(1, 17))
    assert thread.fetched_at == max(v.fetched_at for v in store.versions("thread=7"))


def test_rerun_with_nothing_new_fetches_only_the_last_page(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    first, _ = run(server, store)
    again, asked = run(server, store)
    assert asked == ["4"]  # the forum shows page 3 for page 4: that is the fresh page 3
    assert ids(again) == ids(first)
    assert again.vanished == frozenset() and dict(again.history) == {}


def test_rerun_with_nothing_new_on_a_forum_that_says_404_past_the_end_fetches_two(
    server: HTTPServer, store: Store
) -> None:
    thread = FakeForum(per_page=5)
    thread.add(12)

    def serve(request: Request) -> Response:
        number = int(request.args.get("page", "1"))
        if number > thread.pages:
            return Response("no such page", status=404)
        return Response(thread.render(number), content_type="text/html; charset=utf-8")

    server.expect_request("/thread/7").respond_with_handler(serve)
    first, _ = run(server, store)
    again, asked = run(server, store)
    assert asked == ["4", "3"]  # page 4 refused (not stored), then the last known page
    assert ids(again) == ids(first) == numbers(*range(1, 13))
    assert [v.page for v in store.versions("thread=7")] == [1, 3, 2, 3]
    thread.add(4)  # 13-15 fill page 3, 16 opens page 4
    grown, asked = run(server, store)
    assert asked == ["4", "3"]
    assert ids(grown) == numbers(*range(1, 17))


def test_a_deletion_between_the_two_reads_of_a_rerun_loses_nothing(
    server: HTTPServer, store: Store
) -> None:
    thread = FakeForum(per_page=5)
    thread.add(12)
    served: list[int] = []
    delete_after: list[int] = []  # delete this post right after the first page served

    def serve(request: Request) -> Response:
        number = int(request.args.get("page", "1"))
        served.append(number)
        body = thread.render(number)
        if delete_after and len(served) == 1:
            thread.delete(delete_after.pop())
        return Response(body, content_type="text/html; charset=utf-8")

    server.expect_request("/thread/7").respond_with_handler(serve)
    run(server, store)
    thread.add(6)  # page 3: 11-15, page 4: 16-18
    del served[:]
    delete_after.append(3)  # right after page 4 goes out: 16 moves onto page 3
    after, asked = run(server, store)
    # Page 3 read after the deletion shows 16 where it now is; read first to last, page 4
    # after page 3 would have shown 17, 18 only and 16 would be lost. Page 3 no longer starts
    # with 11 as its stored copy did: something went below it, so pages 2 and 1 are read
    # again, down to the page that starts where it did (1), and the deletion is seen.
    assert asked == ["4", "3", "2", "1"]
    assert ids(after) == numbers(*range(1, 19))
    sixteen = next(post for post in after.posts if post.id == "16")
    assert sixteen.page_url.endswith("?page=3") and sixteen.position == 15
    assert after.vanished == frozenset({"3"})


def test_a_snapshot_reads_from_the_last_known_page_down_to_page_one(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    run(server, store)
    before = len(server.log)
    read = read_stored_thread(server.url_for("/thread/7"), ENGINE, zone=ZONE, store=store,
                              fetcher=Fetcher(delay=0, retries=1), every_page=True)
    assert [request.args.get("page", "1") for request, _ in server.log[before:]] == \
        ["3", "2", "1"]
    assert len(read.fetched) == 3 and ids(read.thread) == numbers(*range(1, 13))


class CountlessEngine(FakeEngine):
    """The fake engine on a board whose pages do not say how many there are: "next" links and
    the page number of the address only."""

    def parse_page(self, data: bytes, ctx: PageContext) -> Page:
        page = super().parse_page(data, ctx)
        return replace(page, number=self.page_number(ctx.url), count=None)


def test_without_page_counts_the_first_crawl_climbs_then_reads_down_again(
    server: HTTPServer, store: Store
) -> None:
    thread = FakeForum(per_page=5)
    thread.add(12)
    served: list[int] = []

    def serve(request: Request) -> Response:
        number = int(request.args.get("page", "1"))
        served.append(number)
        body = thread.render(number)
        if served == [1, 2]:
            thread.delete(3)  # after page 2 went out: 6 moves onto page 1, 11 onto page 2
        return Response(body, content_type="text/html; charset=utf-8")

    server.expect_request("/thread/7").respond_with_handler(serve)
    url = server.url_for("/thread/7")
    engine = CountlessEngine()
    first = read_thread(url, engine, zone=ZONE, store=store, fetcher=Fetcher(delay=0, retries=1))
    # Up by the "next" links to learn where the thread ends, then down again from there.
    assert served == [1, 2, 3, 2, 1]
    assert ids(first) == numbers(*range(1, 13))
    thread.add(4)  # 13-16: page 3 is 12-16 now, 17 is not there yet
    thread.add(1)  # 17 opens page 4
    del served[:]
    again = read_thread(url, engine, zone=ZONE, store=store, fetcher=Fetcher(delay=0, retries=1))
    assert served == [4, 3]  # page-number addresses: page 4 is asked for directly
    assert ids(again) == numbers(*range(1, 18))


class OffsetEngine(FakeEngine):
    """The fake engine addressing pages by offset (?start=), as phpBB and Invision's st= do."""

    def page_url(self, url: str, number: int, per_page: int | None = None) -> str:
        return f"{url.split('?', 1)[0]}?start={(number - 1) * (per_page or 20)}"

    def page_number(self, url: str, per_page: int | None = None) -> int:
        return int(parse_qs(urlsplit(url).query).get("start", ["0"])[0]) // (per_page or 20) + 1


def serve_by_offset(server: HTTPServer, thread: FakeForum, store: Store, link_tail: bytes = b""
                    ) -> tuple[list[int], Callable[[], list[str]]]:
    """Serve `thread` by offset (?start=N, clamped past the end like phpBB), its "next" links
    as offsets followed by `link_tail`; returns the offsets served and a read of the thread
    through `store` by OffsetEngine."""
    served: list[int] = []

    def serve(request: Request) -> Response:
        start = int(request.args.get("start", "0"))
        served.append(start)
        body = thread.render(start // thread.per_page + 1)
        body = re.sub(rb"\?page=(\d+)",
                      lambda m: b"?start=%d" % ((int(m[1]) - 1) * thread.per_page) + link_tail,
                      body)
        return Response(body, content_type="text/html; charset=utf-8")

    server.expect_request("/thread/7").respond_with_handler(serve)
    url = server.url_for("/thread/7")

    def read() -> list[str]:
        del served[:]
        return ids(read_thread(url, OffsetEngine(), zone=ZONE, store=store,
                               fetcher=Fetcher(delay=0, retries=1)))
    return served, read


def test_a_board_that_changed_its_page_size_is_read_again_from_page_one(
    server: HTTPServer, store: Store
) -> None:
    thread = FakeForum(per_page=5)
    thread.add(12)
    served, read = serve_by_offset(server, thread, store)

    assert read() == numbers(*range(1, 13))
    assert served == [0, 10, 5, 0]  # the page size, 5, from page 1's "next" link
    thread.per_page = 3  # the board shows 3 posts a page now
    thread.add(3)  # 15 posts: 5 pages
    # Page 4 by the stored addresses (start=15) is page 5 now (the last): the addresses are
    # stale, so the thread is read as a first crawl reads it, at the new size.
    assert read() == numbers(*range(1, 16))
    assert served == [15, 0, 12, 9, 6, 3, 0]


def test_a_post_approved_below_the_last_page_is_found_by_the_addresses_the_forum_gave(
    server: HTTPServer, store: Store
) -> None:
    # The forum's links carry a session id, so no page size can be told from them and no
    # address computed: the page below the last is read at the address stored for it.
    thread = FakeForum(per_page=5)
    thread.add(12)
    thread.hold(7)
    served, read = serve_by_offset(server, thread, store, b"&amp;sid=5f3a")

    assert read() == numbers(1, 2, 3, 4, 5, 6, *range(8, 13))
    assert served == [0, 5, 10, 5, 0]  # up by the "next" links, then down again
    thread.approve(7)
    assert read() == numbers(*range(1, 13))
    assert served == [10, 5]  # the stored last page, then the one below it: in step


def test_offline_gives_the_online_result_without_the_network(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    run(server, store)
    forum.add(4)
    online, _ = run(server, store)
    before = len(server.log)
    offline = read_thread(server.url_for("/thread/7"), ENGINE, zone=ZONE, store=store,
                          fetcher=None, offline=True)
    assert len(server.log) == before
    assert offline == online


def test_offline_with_nothing_stored_says_what_to_do(tmp_path: Path) -> None:
    path = tmp_path / "empty.sqlite"
    with Store(path) as empty, pytest.raises(InputError) as caught:
        read_thread("http://forum.example/thread/7", ENGINE, zone=ZONE, store=empty,
                    fetcher=None, offline=True)
    assert str(caught.value) == (
        f"no snapshot of http://forum.example/thread/7 in {path}; run without --offline first")


def test_a_deletion_shifts_a_post_onto_an_earlier_page_and_nothing_is_lost(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    run(server, store)
    forum.delete(3)  # 6 moves to page 1, 11 moves to page 2
    forum.add(1)  # 13
    thread, asked = run(server, store)
    # Clamped: the new page 3 shows 12, 13. Its stored copy started with 11, so something
    # went below it: page 2 (7-11, stored 6-10) is read again, then page 1, which starts
    # with 1 as before.
    assert asked == ["4", "2", "1"]
    assert ids(thread) == numbers(*range(1, 14))  # C6: 3 is kept, a deletion may postdate a deadline
    assert thread.vanished == frozenset({"3"})
    eleven = next(post for post in thread.posts if post.id == "11")
    assert eleven.page_url.endswith("?page=2") and eleven.position == 10


def test_a_post_deleted_between_its_neighbours_is_kept_and_listed(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    forum.add(2)  # page 3: 11-14
    run(server, store)
    forum.delete(12)
    forum.add(1)  # page 3: 11, 13, 14, 15
    thread, asked = run(server, store)
    assert asked == ["4"]
    assert ids(thread) == numbers(*range(1, 16))  # C6: kept, a deletion may postdate a deadline
    assert thread.vanished == frozenset({"12"})


def test_a_post_approved_mid_thread_after_a_run_is_read_by_the_next_run(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    forum.hold(7)  # in the moderation queue: pages 1-5, 6 8 9 10 11, 12
    first, _ = run(server, store)
    assert "7" not in ids(first)
    forum.approve(7)  # shown in its place: 8-11 move up, 11 onto page 3
    thread, asked = run(server, store)
    # Page 3 (page 4 clamped) starts with 11, its stored copy with 12: a post came in below
    # it. Page 2 is read again and starts with 6 as before: the crawl stops there.
    assert asked == ["4", "2"]
    assert ids(thread) == numbers(*range(1, 13))
    assert [post.position for post in thread.posts] == list(range(1, 13))
    assert thread.vanished == frozenset()


def test_a_hidden_post_shown_again_is_read_and_nothing_else_is_fetched_when_nothing_moved(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    forum.add(3)  # 15 posts: three full pages
    run(server, store)
    forum.hold(2)  # hidden by a moderator: 6 moves onto page 1, 11 onto page 2
    forum.add(1)  # 16: page 3 is 12-16 now
    again, asked = run(server, store)
    assert asked == ["4", "2", "1"]  # page 4 clamped to 3 (12-16, stored 11-15): down to 1
    assert again.vanished == frozenset({"2"})
    forum.approve(2)  # shown again: each post moves back up, 16 opens page 4
    shown, asked = run(server, store)
    assert asked == ["4", "3", "2", "1"]  # page 1 starts with 1 as it did: no further
    assert ids(shown) == numbers(*range(1, 17)) and shown.vanished == frozenset()
    assert [post.position for post in shown.posts] == list(range(1, 17))
    forum.add(1)  # 17, nothing else moved: the stored last page starts as it did
    _, asked = run(server, store)
    assert asked == ["5"]  # clamped to page 4, the fresh read of the last page


def test_a_full_reread_after_a_deletion_lists_it_once(
    server: HTTPServer, forum: FakeForum, tmp_path: Path
) -> None:
    with Store(tmp_path / "a.sqlite") as store:
        run(server, store)
    forum.delete(3)
    with Store(tmp_path / "a.sqlite") as store:  # a fresh thread view: page 1 fetched again
        store.save(Fetcher(delay=0).get(server.url_for("/thread/7")), "thread=7", 1)
        thread = read_thread(server.url_for("/thread/7"), ENGINE, zone=ZONE, store=store,
                             fetcher=None, offline=True)
    assert ids(thread) == numbers(*range(1, 13))
    assert thread.vanished == frozenset({"3"})
    assert ids(thread).count("6") == 1  # 6 is on page 1 and (stored) page 2: one post


def test_an_edit_between_fetches_keeps_the_old_text_in_history(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    run(server, store)
    forum.edit(12, "##vote bob")
    thread, _ = run(server, store)
    post = next(post for post in thread.posts if post.id == "12")
    assert post.body.own == "##vote bob"
    (old,) = thread.history["12"]
    assert old.body.own == "post 12"
    assert old.fetched_at is not None and post.fetched_at is not None
    assert old.fetched_at < post.fetched_at


def test_a_page_past_the_end_is_stored_as_the_page_it_shows(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    run(server, store)
    forum.delete(11)
    forum.delete(12)  # only two pages left; asking for page 4 shows page 2
    thread, asked = run(server, store)
    assert asked == ["4"]
    assert ids(thread) == numbers(*range(1, 13))
    assert [v.page for v in store.versions("thread=7")] == [1, 3, 2, 2]


def test_a_cut_page_is_stored_as_evidence_then_skipped_once_replaced(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    run(server, store)
    good = forum.render
    forum.render = lambda number: good(number)[:-40]  # type: ignore[method-assign]
    with pytest.raises(TruncatedPage):
        run(server, store)
    assert len(store.versions("thread=7")) == 4  # saved before the parser complained
    offline = read_thread(server.url_for("/thread/7"), ENGINE, zone=ZONE, store=store,
                          fetcher=None, offline=True)  # the earlier good page 3 still serves
    assert ids(offline) == numbers(*range(1, 13))
    assert any("stored page 3" in note and "ends early" in note for note in offline.notes)
    forum.render = good  # type: ignore[method-assign]
    thread, asked = run(server, store)
    assert asked == ["4"]
    assert ids(thread) == numbers(*range(1, 13))
    assert any("stored page 3" in note and "skipped" in note for note in thread.notes)


def test_a_page_with_no_readable_version_fails_offline(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    good = forum.render
    forum.render = lambda number: good(number)[:-40]  # type: ignore[method-assign]
    with pytest.raises(TruncatedPage):
        run(server, store)
    with pytest.raises(TruncatedPage, match="Fake: .*page ends early"):
        read_thread(server.url_for("/thread/7"), ENGINE, zone=ZONE, store=store, fetcher=None,
                    offline=True)


def test_without_a_store_everything_is_fetched(server: HTTPServer, forum: FakeForum) -> None:
    thread, asked = run(server, None)
    assert asked == ["1", "3", "2", "1"]
    assert ids(thread) == numbers(*range(1, 13))


# ---------------------------------------------------------------------------------------------
# --from DIR


def save_pages(forum: FakeForum, folder: Path, names: dict[int, str], canonical: bool = False
               ) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for number, name in names.items():
        data = forum.render(number)
        if canonical:
            link = f'<link rel="canonical" href="http://f/thread/7?page={number}">'.encode()
            data = data.replace(b"<head>", b"<head>" + link)
        (folder / name).write_bytes(data)


def test_saved_pages_in_any_order_and_twice_give_the_same_thread(tmp_path: Path) -> None:
    forum = FakeForum(per_page=5)
    forum.add(12)
    at = datetime(2026, 11, 21, 8, 0, tzinfo=UTC)
    save_pages(forum, tmp_path / "a", {1: "1.html", 2: "2.html", 3: "3.html"}, canonical=True)
    save_pages(forum, tmp_path / "b", {3: "a.htm", 1: "b.HTML", 2: "c.html"}, canonical=True)
    save_pages(forum, tmp_path / "b", {2: "copy of page 2.html"}, canonical=True)
    (tmp_path / "b" / "c_files").mkdir()  # what a browser saves beside the page
    (tmp_path / "b" / "c_files" / "frame.html").write_bytes(b"<html>ad</html>")
    (tmp_path / "b" / "notes.txt").write_text("not a page")
    read = [read_saved_pages(tmp_path / name, ENGINE, zone=ZONE, url="http://f/thread/7",
                             fetched_at=at) for name in ("a", "b")]
    assert read[0] == read[1]
    assert ids(read[0]) == numbers(*range(1, 13))
    assert read[0].fetched_at == at
    assert dict(read[1].history) == {} and read[1].vanished == frozenset()
    assert read[0].posts[0].permalink == "http://f/thread/7?page=1#p1"


def test_saved_pages_take_their_fetch_time_from_the_file(tmp_path: Path) -> None:
    forum = FakeForum(per_page=5)
    forum.add(7)
    save_pages(forum, tmp_path, {1: "p1.html", 2: "p2.html"})
    saved = datetime(2026, 11, 21, 8, 30, tzinfo=UTC)
    for offset, name in enumerate(("p1.html", "p2.html")):
        stamp = (saved + timedelta(minutes=offset)).timestamp()
        os.utime(tmp_path / name, (stamp, stamp))
    thread = read_saved_pages(tmp_path, ENGINE, zone=ZONE)
    assert thread.fetched_at == saved + timedelta(minutes=1)
    assert thread.posts[0].fetched_at == saved
    assert thread.url == str(tmp_path / "p1.html")  # no canonical link, no browser comment


def test_saved_pages_engine_is_sniffed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    forum = FakeForum(per_page=5)
    forum.add(3)
    save_pages(forum, tmp_path, {1: "p.html"})
    monkeypatch.setattr(adapters, "sniff", lambda data: ENGINE if ENGINE.looks_like(data) else None)
    assert read_saved_pages(tmp_path, None, zone=ZONE).engine == "fake"


def test_an_empty_folder_is_an_input_error(tmp_path: Path) -> None:
    (tmp_path / "x_files").mkdir()
    with pytest.raises(InputError) as caught:
        read_saved_pages(tmp_path, ENGINE, zone=ZONE)
    assert str(caught.value) == f"{tmp_path}: no saved pages (*.html, *.htm) in this folder"


def test_a_saved_file_that_is_not_a_thread_page_is_named(tmp_path: Path) -> None:
    forum = FakeForum(per_page=5)
    forum.add(3)
    save_pages(forum, tmp_path, {1: "p1.html"})
    (tmp_path / "login.html").write_bytes(b'<html><body class="fake-forum">Log in</body></html>')
    with pytest.raises(NotAThreadPage) as caught:
        read_saved_pages(tmp_path, ENGINE, zone=ZONE)
    assert str(caught.value).startswith(f"{tmp_path / 'login.html'}: Fake: ")
    assert "not a thread page (no posts)" in str(caught.value)


def test_an_unknown_page_without_an_engine_is_named(tmp_path: Path) -> None:
    (tmp_path / "page.html").write_bytes(b"<html><body>my blog</body></html>")
    with pytest.raises(NotAThreadPage) as caught:
        read_saved_pages(tmp_path, None, zone=ZONE)
    assert str(caught.value).startswith(f"{tmp_path / 'page.html'}: not a thread page")


@pytest.mark.parametrize(
    ("head", "expected"),
    [
        (b'<link rel="canonical" href="https://f.example/viewtopic.php?t=1&amp;start=10">',
         "https://f.example/viewtopic.php?t=1&start=10"),
        (b"<LINK href='https://f.example/t1p20-kira' REL=canonical />",
         "https://f.example/t1p20-kira"),
        (b"<!-- saved from url=(0031)https://f.example/thread/7?p=2 -->",
         "https://f.example/thread/7?p=2"),
        (b"<!-- saved from url=(0019)https://f.example/t-->", "https://f.example/t"),
        (b'<link rel="stylesheet" href="x.css">', None),
    ],
)
def test_saved_page_url(head: bytes, expected: str | None) -> None:
    assert saved_page_url(b"<html><head>" + head + b"</head><body></body></html>") == expected


# ---------------------------------------------------------------------------------------------
# assemble


def post(pid: str, position: int, text: str = "", minute: int = 0) -> Post:
    return Post(id=pid, position=position, permalink=f"#p{pid}", author="ann", author_id=None,
                created_at=T0 + timedelta(minutes=minute or position), time_text="", zone=ZONE,
                body=Body(own=text or f"post {pid}"))


def page(number: int, count: int, *posts: Post) -> Page:
    return Page(url=f"http://f/thread/7?page={number}", number=number, count=count, posts=posts)


def at(minutes: int) -> datetime:
    return T0 + timedelta(hours=1, minutes=minutes)


def test_assemble_is_the_same_for_any_order_of_its_pages() -> None:
    versions = [
        (page(1, 2, post("1", 1), post("2", 2)), at(0)),
        (page(2, 2, post("3", 3), post("4", 4)), at(1)),
        (page(2, 2, post("3", 3), post("4", 4, "edited")), at(5)),
        (page(1, 2, post("1", 1), post("2", 2)), at(6)),
    ]
    results = [assemble(list(order), "u", "fake") for order in permutations(versions)]
    assert all(result == results[0] for result in results)
    assert results[0].posts[3].body.own == "edited"
    assert [p.body.own for p in results[0].history["4"]] == ["post 4"]


def test_assemble_orders_by_position_then_time_then_numeric_id() -> None:
    thread = assemble([(page(1, 1, post("10", 2, minute=5), post("9", 2, minute=5),
                                 post("8", 2, minute=4), post("1", 1)), at(0))], "u", "fake")
    assert ids(thread) == ["1", "8", "9", "10"]


def test_assemble_newest_fetch_wins_and_positions_follow_it() -> None:
    thread = assemble([
        (page(2, 2, post("6", 6), post("7", 7)), at(0)),
        (page(1, 2, post("1", 1), post("6", 5, "moved up")), at(3)),
    ], "u", "fake")
    six = next(p for p in thread.posts if p.id == "6")
    assert (six.position, six.body.own, six.fetched_at) == (5, "moved up", at(3))
    assert six.page_url == "http://f/thread/7?page=1"
    assert "6" not in thread.vanished  # it moved to an earlier page; it did not vanish
    assert thread.fetched_at == at(3)


def test_assemble_lists_a_post_missing_between_shown_neighbours() -> None:
    thread = assemble([
        (page(1, 1, post("1", 1), post("2", 2), post("3", 3)), at(0)),
        (page(1, 1, post("1", 1), post("3", 2)), at(9)),
    ], "u", "fake")
    assert ids(thread) == ["1", "2", "3"]
    assert thread.vanished == frozenset({"2"})


def test_assemble_a_page_showing_only_later_posts_proves_nothing() -> None:
    thread = assemble([
        (page(2, 2, post("6", 6), post("7", 7)), at(0)),
        (page(2, 2, post("7", 6), post("8", 7)), at(9)),  # 6 may have moved to page 1
    ], "u", "fake")
    assert thread.vanished == frozenset()


def test_assemble_the_last_page_stands_for_what_follows() -> None:
    thread = assemble([
        (page(3, 3, post("11", 11), post("12", 12)), at(0)),
        (page(3, 3, post("11", 11)), at(9)),  # the last post was deleted
    ], "u", "fake")
    assert thread.vanished == frozenset({"12"})
    assert ids(thread) == ["11", "12"]


# ---------------------------------------------------------------------------------------------
# Real markup: an adapter's fixture pages served over HTTP (once that adapter and case exist)


class ToLocal(HTTPAdapter):
    """Sends every request to the local test server, whatever host the page links to."""

    def __init__(self, netloc: str) -> None:
        super().__init__()
        self.netloc = netloc

    def send(self, request: PreparedRequest, **options: Any) -> requests.Response:
        parts = urlsplit(request.url or "")
        request.url = urlunsplit(parts._replace(scheme="http", netloc=self.netloc))
        return super().send(request, **options)


@pytest.mark.parametrize(("engine_name", "case_name"), [("phpbb", "kira-en"), ("discuz", "trigger-utf8")])
def test_crawl_of_real_fixture_pages(
    engine_name: str, case_name: str, server: HTTPServer, store: Store,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import casefiles

    case_dir = casefiles.FIXTURES / engine_name / case_name
    engine = adapters.engines().get(engine_name)
    if engine is None or not (case_dir / "case.toml").exists():
        pytest.skip(f"adapters/{engine_name}.py or fixtures/{engine_name}/{case_name} not there yet")
    case = casefiles.load_case(case_dir)
    per_page = case.meta.get("per_page")
    by_number = {engine.page_number(p.ctx.url, per_page): p for p in case.pages}
    # Which page of the thread each request got (the server's own numbering may differ: it
    # reads offsets with the engine's default page size), "404" past the end.
    rank = {number: place for place, number in enumerate(sorted(by_number), start=1)}
    served: list[int | str] = []

    def serve(request: Request) -> Response:
        number = engine.page_number(request.url, per_page)
        served.append(rank.get(number, "404"))
        if number not in by_number:
            return Response("no such page", status=404)
        return Response(by_number[number].data, content_type="text/html")

    server.expect_request(re.compile(".*")).respond_with_handler(serve)
    session = requests.Session()
    for scheme in ("http://", "https://"):  # nothing leaves the machine
        session.mount(scheme, ToLocal(f"127.0.0.1:{server.port}"))
    monkeypatch.setenv("TALLY_NOW", case.meta["fetched_at"])  # relative dates as the case reads

    def read() -> Any:
        return read_thread(case.pages[0].ctx.url, engine, zone=case.meta["zone"], store=store,
                           fetcher=Fetcher(delay=0, retries=1, session=session),
                           language=case.meta.get("language"), per_page=per_page)

    thread = read()
    last = len(by_number)
    assert last > 1
    # Page 1 tells how many pages there are; then the last page down to page 1 again.
    assert served == [1, *range(last, 0, -1)]
    wanted = [post for page in case.expected["pages"] for post in page.get("posts", [])]
    got = {post.id: post for post in thread.posts}
    assert [post.id for post in thread.posts] == [post["id"] for post in wanted]
    for want in wanted:
        casefiles.check_post(got[want["id"]], want, f"{engine_name}/{case_name} via crawl")
    del served[:]
    again = read()
    assert served == ["404", last]  # this server says 404 past the end: then the last page
    assert [post.id for post in again.posts] == [post.id for post in thread.posts]


# ---------------------------------------------------------------------------------------------
# A post deleted between two page fetches of one crawl, in real engines' markup (issue 3): the
# pages are rendered live by the fixture generators from a thread that loses a post right after
# page 1 is served, so the first post of page 2 moves onto page 1, which is not fetched again.




class LiveThread:
    """A thread of `rows` (stable post ids) that a local server renders page by page."""

    def __init__(self, engine_name: str, per_page: int) -> None:
        import casefiles

        self.engine_name = engine_name
        self.per_page = per_page
        self.held: list[Any] = []
        if engine_name == "phpbb":  # phpBB 3.3 prosilver, the kira-en generator
            self.gen = fixture_module(casefiles.FIXTURES / "phpbb" / "kira-en" / "make_pages.py",
                                  "kira_pages_live")
            self.gen.PER_PAGE = per_page
            self.rows: list[Any] = list(enumerate(self.gen.POSTS[:12]))
            self.spare: list[Any] = list(enumerate(self.gen.POSTS))[12:]
            self.url = "/viewtopic.php?f=3&t=412"
            self.ids = [str(self.gen.FIRST_ID + index) for index, _ in self.rows]
        else:  # IPB 3.4, Russian, the mafia-ipb3-ru generator (absolute links to its board)
            self.gen = fixture_module(casefiles.FIXTURES / "invision" / "mafia-ipb3-ru" /
                                  "make_pages.py", "mafia_pages_live")
            self.rows = list(self.gen.POSTS[:12])
            self.spare = list(self.gen.POSTS[12:])
            self.url = self.gen.TOPIC
            self.ids = [str(row["pid"]) for row in self.rows]

    def delete(self, position: int) -> None:
        del self.rows[position - 1]

    def hold(self, position: int) -> None:
        """The post at `position` waits in the moderation queue: not shown."""
        self.held.append(self.rows.pop(position - 1))

    def approve(self) -> None:
        """The held posts are shown, each in its place by post id (mid-thread)."""
        self.rows = sorted(self.rows + self.held, key=self._id)
        self.held = []

    def _id(self, row: Any) -> int:
        return row[0] if self.engine_name == "phpbb" else int(row["pid"])

    def add(self, count: int) -> None:
        """Posts written after the first ones (the generator's next posts, as they come)."""
        self.rows += self.spare[:count]
        del self.spare[:count]

    def render(self, number: int) -> bytes:
        count = -(-len(self.rows) // self.per_page)
        number = min(number, count)
        start = (number - 1) * self.per_page
        shown = self.rows[start:start + self.per_page]
        if self.engine_name == "phpbb":
            html = self.gen.page_html(number, count,
                                      [self.gen.post_html(index, row) for index, row in shown])
        else:  # IPB 3 numbers the posts as it shows them ("#n"), so a deletion renumbers them
            self.gen.POSTS = [dict(row, n=n) for n, row in enumerate(self.rows, start=1)]
            self.gen.PAGES = tuple(self.gen.TOPIC if n == 1 else f"{self.gen.TOPIC}page-{n}"
                                   for n in range(1, count + 1))
            self.gen.PAGE_OF = [(s, min(s + self.per_page, len(self.rows)))
                                for s in range(0, len(self.rows), self.per_page)]
            html = self.gen.page_html(number)
        return html.encode("utf-8")


def serve_live(server: HTTPServer, engine: Any, live: LiveThread,
               after: Callable[[list[int]], None] | None = None
               ) -> tuple[list[int], str, requests.Session]:
    """Serve `live` page by page; returns the page numbers served (in order), the thread's URL
    and a session that keeps the pages' own absolute links (IPB 3) on the local server.
    `after(served)` runs once each page is rendered: the thread may change between fetches."""
    served: list[int] = []

    def serve(request: Request) -> Response:
        served.append(engine.page_number(request.url, live.per_page))
        body = live.render(served[-1])
        if after is not None:
            after(served)
        return Response(body, content_type="text/html; charset=utf-8")

    server.expect_request(re.compile(".*")).respond_with_handler(serve)
    session = requests.Session()
    for scheme in ("http://", "https://"):
        session.mount(scheme, ToLocal(f"127.0.0.1:{server.port}"))
    url = server.url_for(live.url) if live.engine_name == "phpbb" else live.url
    return served, url, session


@pytest.mark.parametrize("engine_name", ["phpbb", "invision"])
def test_a_post_deleted_between_two_page_fetches_loses_nothing_and_counts_nothing_twice(
    engine_name: str, server: HTTPServer, store: Store,
) -> None:
    engine = adapters.get(engine_name)
    live = LiveThread(engine_name, per_page=5)  # pages: 1-5, 6-10, 11-12

    def delete_after_page_one(served: list[int]) -> None:
        if served == [1]:
            live.delete(3)  # right after page 1 went out: post 6 moves onto page 1

    served, url, session = serve_live(server, engine, live, delete_after_page_one)
    thread = read_thread(url, engine, zone="Europe/Moscow", store=store,
                         fetcher=Fetcher(delay=0, retries=1, session=session), per_page=5)
    got = [post.id for post in thread.posts]
    assert sorted(got) == sorted(live.ids), f"served pages {served}"  # none lost (C6: the
    assert len(got) == len(set(got))  # deleted one is kept), none twice


@pytest.mark.parametrize("engine_name", ["phpbb", "invision"])
def test_a_vote_approved_from_the_moderation_queue_after_a_run_is_counted_by_the_next_run(
    engine_name: str, server: HTTPServer, store: Store,
) -> None:
    engine = adapters.get(engine_name)
    live = LiveThread(engine_name, per_page=5)  # pages: 1-5, 6-10, 11-12
    everyone = list(live.ids)
    live.hold(7)  # a post on page 2 waits for a moderator
    served, url, session = serve_live(server, engine, live)

    def read() -> list[Post]:
        del served[:]
        return list(read_thread(url, engine, zone="Europe/Moscow", store=store,
                                fetcher=Fetcher(delay=0, retries=1, session=session),
                                per_page=5).posts)

    assert [post.id for post in read()] == everyone[:6] + everyone[7:]
    live.approve()
    posts = read()
    assert [post.id for post in posts] == everyone  # the approved post, in its place
    assert [post.position for post in posts] == list(range(1, 13))
    assert served[-1] == 2 and 1 not in served  # down to page 2, which starts as it did


@pytest.mark.parametrize("engine_name", ["phpbb", "invision"])
def test_reruns_find_the_page_after_the_last_without_the_page_size_in_the_game_file(
    engine_name: str, server: HTTPServer, store: Store,
) -> None:
    # phpBB addresses pages by offset (start=): the page size comes from the forum's own
    # "next" links, then from the addresses stored; IPB 3's page-N addresses need none.
    engine = adapters.get(engine_name)
    live = LiveThread(engine_name, per_page=5)  # pages: 1-5, 6-10, 11-12
    served, url, session = serve_live(server, engine, live)

    def read() -> list[str]:
        del served[:]
        thread = read_thread(url, engine, zone="Europe/Moscow", store=store,
                             fetcher=Fetcher(delay=0, retries=1, session=session))
        return [post.id for post in thread.posts]

    assert read() == live.ids and served == [1, 3, 2, 1]
    live.add(4)  # 13-15 fill page 3, 16 opens page 4
    assert read() == [str(pid) for pid in _live_ids(live)] and served == [4, 3]
    assert read() == [str(pid) for pid in _live_ids(live)] and served == [5]  # shown as page 4


def _live_ids(live: LiveThread) -> list[str]:
    if live.engine_name == "phpbb":
        return [str(live.gen.FIRST_ID + index) for index, _ in live.rows]
    return [str(row["pid"]) for row in live.rows]


def test_history_keeps_when_a_silent_edit_was_first_seen(
    server: HTTPServer, forum: FakeForum, store: Store
) -> None:
    """A then B then B again: the first sighting of B stays in history, so a count whose
    deadline falls between the two sightings of B judges B, not A (C6)."""
    run(server, store)  # 12 reads "post 12"
    forum.edit(12, "##vote bob")
    _, _ = run(server, store)  # first sighting of the edit
    thread, _ = run(server, store)  # the same text again, later
    post = next(post for post in thread.posts if post.id == "12")
    old, first_of_edit = thread.history["12"]
    assert (old.body.own, first_of_edit.body.own, post.body.own) == (
        "post 12", "##vote bob", "##vote bob")
    assert old.fetched_at < first_of_edit.fetched_at < post.fetched_at  # type: ignore[operator]
    # A post whose text never changed has no history, however often it was read.
    assert "11" not in thread.history


# ---------------------------------------------------------------------------------------------
# A crawl killed midway (issue 16): a real `tally count` process, a real SIGKILL, a real local
# server; the store knows what the killed crawl did not finish and the next run finishes it.

KIRA = Path(__file__).resolve().parent.parent / "fixtures" / "phpbb" / "kira-en"


def kira_game(folder: Path, url: str) -> Path:
    """The kira-en game file, its thread on the local server."""
    text = (KIRA / "game.toml").read_text(encoding="utf-8")
    game = folder / "game.toml"
    game.write_text(text.replace("https://forum.example.org/viewtopic.php?f=3&t=412", url),
                    encoding="utf-8")
    return game


def wait_for(check: Callable[[], bool], what: str, limit: float = 60.0) -> None:
    """Poll a condition on shared state (another process's store rows), not a clock's guess:
    the limit only bounds a run that would otherwise hang, nothing is timed."""
    import time

    deadline = time.monotonic() + limit
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.02)


def stored_pages(path: Path) -> list[int]:
    import sqlite3

    if not path.exists():
        return []
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return [row[0] for row in db.execute("SELECT page FROM versions ORDER BY id")]
    except sqlite3.OperationalError:  # the schema is not there yet
        return []


def test_a_crawl_killed_midway_leaves_no_hole_for_the_next_run(tmp_path: Path) -> None:
    import json
    import signal
    import subprocess
    import sys
    import threading

    from typer.testing import CliRunner

    from tally.cli import app

    pages = {n: (KIRA / f"page-{n}.html").read_bytes() for n in range(1, 5)}
    asked: list[int] = []
    release = threading.Event()
    page_2_asked = threading.Event()

    def serve(request: Request) -> Response:
        number = int(request.args.get("start", "0")) // 15 + 1
        asked.append(number)
        if number == 2 and not release.is_set():
            page_2_asked.set()
            release.wait(120)  # page 2 is slow: the crawl is killed while waiting for it
        return Response(pages[min(number, 4)], content_type="text/html; charset=UTF-8")

    server = HTTPServer(host="127.0.0.1", threaded=True)
    server.expect_request("/viewtopic.php").respond_with_handler(serve)
    server.start()
    try:
        game = kira_game(tmp_path, server.url_for("/viewtopic.php") + "?f=3&t=412")
        store = tmp_path / "s.sqlite"
        env = {**os.environ, "TALLY_STORE": ""}
        command = [sys.executable, "-m", "tally", "count", str(game), "--store", str(store),
                   "--format", "json"]
        # cwd: from the checkout's root, `-m tally` would find ./tally before the installed one
        # (no tally.adapters there unless the install is editable).
        killed = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, cwd=tmp_path,
                                  stderr=subprocess.PIPE)
        try:
            assert page_2_asked.wait(60), "gave up waiting for the request for page 2"
            wait_for(lambda: stored_pages(store) == [1, 4, 3], "pages 1, 4, 3 in the store")
            killed.send_signal(signal.SIGKILL)
            assert killed.wait(30) == -signal.SIGKILL
        finally:
            if killed.poll() is None:
                killed.kill()
            killed.communicate()
        release.set()

        # Offline, the hole is known: no count.
        offline = CliRunner().invoke(app, ["count", str(game), "--store", str(store),
                                           "--offline"])
        assert offline.exit_code == 3
        assert "page 2 of 4 missing" in offline.output

        # Online, the next run reads down to where the killed crawl meant to go.
        del asked[:]
        again = subprocess.run(command, env=env, capture_output=True, timeout=300, cwd=tmp_path)
        assert again.returncode == 0, again.stderr.decode()
        # Page 5 (the forum shows page 4: nothing new), then 3, 2 and 1 again.
        assert asked == [5, 3, 2, 1]
        counted = json.loads(again.stdout)
        assert (counted["counts"][0]["player"], counted["counts"][0]["votes"]) == ("Dan", 4)
        assert (counted["outcome"]["result"], counted["outcome"]["player"]) == ("eliminated",
                                                                                "Dan")
        # And that crawl is finished: a third run reads only the tail.
        del asked[:]
        third = subprocess.run(command, env=env, capture_output=True, timeout=300, cwd=tmp_path)
        assert third.returncode == 0, third.stderr.decode()
        assert asked == [5]
    finally:
        release.set()
        server.clear()
        server.stop()
