"""Invision fast path (adapters/invision_fast.py): it must read every page exactly as
the tree path does, or decline (None) and leave the page to it.

Each check compares the fast path's answer with the tree path's on the same bytes: the saved
pages (where it must not decline), the same pages with template overrides and hostile content
written into them, and random hostile fragments dropped anywhere (hypothesis).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import casefiles
import lxml.html
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tally.adapters.base import PageContext
from tally.adapters.invision import Invision, Ips4Reader
from tally.errors import ForumError, NotAThreadPage, TruncatedPage
from tally.model import Page

ENGINE = Invision()
PAGES = [(f"{case.name}/{page.file}", page.data, page.ctx)
         for case in casefiles.case_dirs("invision")
         for page in casefiles.load_case(case).pages]
IPB3 = [page for page in PAGES if b"post_id_" in page[1] and b"elComment_" not in page[1]]
IPS4 = [page for page in PAGES if b"elComment_" in page[1]]


def _outcome(read: Callable[[], Page | None]) -> object:
    """A page, None, or the error raised (type and message), for comparison."""
    try:
        return read()
    except (ForumError, NotAThreadPage, TruncatedPage) as error:
        return (type(error).__name__, str(error))


def tree_path(data: bytes, ctx: PageContext) -> object:
    engine = Invision()
    engine._fast_page = lambda *args: None  # type: ignore[method-assign]
    return _outcome(lambda: engine.parse_page(data, ctx))


def fast_path(data: bytes, ctx: PageContext) -> object:
    """The fast path's answer; the checks before it are the tree path's own."""
    try:
        head = ENGINE._check_bytes(data, ctx)
    except (NotAThreadPage, TruncatedPage):
        return None
    return _outcome(lambda: ENGINE._fast_page(data, ctx, head))


def assert_same_or_declined(data: bytes, ctx: PageContext) -> object:
    fast = fast_path(data, ctx)
    if fast is not None:
        assert fast == tree_path(data, ctx)
    return fast


# ---------------------------------------------------------------------------------------------
# Stock pages: the fast path answers, and answers as the tree path


@pytest.mark.parametrize(("name", "data", "ctx"), PAGES, ids=[page[0] for page in PAGES])
def test_stock_page_is_read_fast_and_the_same(name: str, data: bytes, ctx: PageContext) -> None:
    fast = fast_path(data, ctx)
    assert isinstance(fast, Page), f"{name}: the fast path declined a stock page"
    assert fast == tree_path(data, ctx)


@pytest.mark.parametrize(("name", "data", "ctx"), PAGES, ids=[page[0] for page in PAGES])
def test_lxml_serialised_page_is_read_fast(name: str, data: bytes, ctx: PageContext) -> None:
    """The same page as a browser or lxml writes it back: double quotes, lower-cased attribute
    names, <br> for <br />."""
    from lxml import etree
    root = etree.fromstring(data, etree.HTMLParser(encoding="utf-8"))
    again = etree.tostring(root, method="html", encoding="utf-8", doctype="<!DOCTYPE html>")
    assert isinstance(assert_same_or_declined(again, ctx), Page)


@pytest.mark.parametrize(("name", "data", "ctx"), PAGES, ids=[page[0] for page in PAGES])
def test_windows_1251_page_is_read_fast(name: str, data: bytes, ctx: PageContext) -> None:
    """Old Russian boards serve windows-1251: the scan decodes it as libxml2 does."""
    text = data.decode("utf-8")
    if any(ord(c) > 0x7F and c.encode("cp1251", "replace") == b"?" for c in text):
        pytest.skip("characters windows-1251 cannot hold")
    text = re.sub(r"charset=[\"']?utf-8", "charset=windows-1251", text, count=1, flags=re.I)
    if "windows-1251" not in text:
        text = text.replace("<head>", '<head><meta charset="windows-1251">', 1)
    assert isinstance(assert_same_or_declined(text.encode("cp1251"), ctx), Page)


# ---------------------------------------------------------------------------------------------
# Template overrides and hostile content: the same answer, or none


def _at_posts(data: bytes, pattern: bytes, repl: bytes, count: int = 1) -> bytes:
    return re.sub(pattern, repl, data, count=count)


MUTATIONS: dict[str, Callable[[bytes], bytes]] = {
    # template overrides
    "extra wrapper div around a post": lambda d: re.sub(
        rb"(<div class=['\"]post_block[^>]*>)", rb"<div class='wrap'>\1", d, count=1),
    "extra wrapper div around an article": lambda d: re.sub(
        rb"(<article )", rb"<div class='wrap'>\1", d, count=1),
    "attributes reordered": lambda d: re.sub(
        rb"<div class='post_block ([^']*)' id='(post_id_\d+)'>", rb"<div id='\2' class='post_block \1'>", d, count=1),
    "single quotes everywhere": lambda d: d.replace(b'"', b"'"),
    "upper-case tags": lambda d: re.sub(rb"<(/?)(div|span|a|p)([\s>])", lambda m: b"<" + m.group(1) + m.group(2).upper() + m.group(3), d),
    "upper-case attribute names": lambda d: d.replace(b" class=", b" CLASS="),
    "extra class on the author span": lambda d: d.replace(b'class="author vcard"', b'class="author vcard edit"', 1),
    "extra class on the message": lambda d: d.replace(b"entry-content '", b"entry-content signature'", 1),
    "moderated post": lambda d: d.replace(b"clearfix '", b"clearfix moderated'", 1),
    "unknown post state": lambda d: d.replace(b"clearfix '", b"clearfix selected'", 1),
    "no title on the time": lambda d: re.sub(rb' title="\d{4}-[^"]*"', b"", d, count=1),
    "moderator checkbox in the header": lambda d: d.replace(
        b"<h3 class='row2'>", b"<h3 class='row2'><input type='checkbox' class='post_mod right' value='1' />", 1),
    "more profile fields": lambda d: d.replace(
        b"<ul class='ipsList_data clearfix'>", b"<ul class='ipsList_data clearfix'><li><span class='ft'>Pol:</span><span class='fc'>M</span></li>", 1),
    "guest post header": lambda d: d.replace(b"<h3 class='row2'>", b"<h3 class='guest row2'>", 1),
    "group-formatted names": lambda d: d.replace(b">Despina</span>", b"><span style='color:red'><strong>Des</strong>pina</span></span>").replace(
        b'class="ipsType_break">Moderator Mike</a>', b'class="ipsType_break"><span style="color: green">Moderator Mike</span></a>'),
    "marker class in a name's formatting": lambda d: d.replace(b">Despina</span>", b"><span class='published'>Despina</span></span>", 1).replace(
        b'class="ipsType_break">Alice</a>', b'class="ipsType_break"><span data-role="commentContent">Alice</span></a>', 1),
    "unmatched quote in the buttons": lambda d: d.replace(b"title='\xd0\x9d\xd0\xb0\xd0\xb2".decode("unicode_escape").encode("latin-1"), b"title='\"", 1).replace(b"data-role='commentLoading'", b"data-role='commentLoading", 1),
    # markup that hides or moves tags inside a post
    "comment in the profile pane": lambda d: d.replace(b"<li class='group_title'>", b"<!-- </div> --><li class='group_title'>", 1),
    "class spelled with a character reference in the profile pane": lambda d: d.replace(
        b"<ul class='basic_info'>", "<p class='&#101;dit'>Сообщение отредактировал X: 09 October 2017 - "
        "23:40</p><ul class='basic_info'>".encode(), 1).replace(
        b"<ul class='cAuthorPane_info ipsList_reset'>", b"<ul class='cAuthorPane_info ipsList_reset'>"
        b"<li data-role='&#99;ommentContent'><p>x</p></li>", 1),
    "comment in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<!-- x -->"),
    "comment hiding a div end in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<!-- </div> -->"),
    "script in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<script>var a = '</div>';</script>"),
    "script in the buttons": lambda d: d.replace(b"<li class='top hide'>", b"<script>x()</script><li class='top hide'>", 1),
    "unclosed cell in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<table><tr><td>x"),
    "table in the profile pane": lambda d: d.replace(b"<ul class='basic_info'>", b"<table><tr><td>x</td></tr></table><ul class='basic_info'>", 1),
    "textarea in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<textarea></div></textarea>"),
    "self-closed div in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<div/>"),
    "stray div end in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1</div>"),
    "unclosed div in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<div>"),
    "div end inside an attribute": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<span title=\"</div>\">x</span>"),
    "body end tag in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1</body>"),
    # message content the fast path reads through lxml
    "nested quote": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)",
                                        rb"\1<blockquote class='ipsBlockquote' data-author='A'><blockquote class='ipsBlockquote' data-author='B'><p>vote X</p></blockquote><p>vote Y</p></blockquote>"),
    "code block holding a div end": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<pre class='prettyprint'>&lt;/div&gt;</pre>"),
    "post ids as text": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)",
                                            rb"\1<p>post_id_1 elComment_2 &lt;div id='post_id_9'&gt;</p>"),
    "look-alike markup as text": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)",
                                                     rb"\1<p>class=\"post--123 edit signature\" data-role=&quot;x&quot; &lt;/div&gt; 09 October 2017 - 22:00</p>"),
    "edit line added": lambda d: re.sub(
        rb"(entry-content '>.*?)(\s*</div>\s*<ul class='ipsList_inline ipsLikeBar)",
        lambda m: m.group(1) + "<p class='edit'>Сообщение отредактировал Despina: 09 October 2017 - "
        "23:40<br /><span class='reason'>staff</span></p>".encode() + m.group(2), d, count=1, flags=re.S),
    "edit line removed": lambda d: re.sub(rb"<p class='edit'>.*?</p>", b"", d, count=1, flags=re.S),
    "edit line in the signature": lambda d: d.replace(b'<div class="signature" data-memberid="1">', b'<div class="signature" data-memberid="1"><p class="edit">x</p>', 1),
    "IPS 4 edit line removed": lambda d: re.sub(rb"<span class='ipsType_reset ipsType_medium ipsType_light' data-excludeQuote>.*?</span>", b"", d, count=1, flags=re.S),
    "IPS 4 edit line in the signature": lambda d: d.replace(b'<div data-role="memberSignature"', b'<div data-role="memberSignature"><span data-excludeQuote>x</span', 1),
    "entity in a name": lambda d: d.replace(b">Despina</span>", b">Des&amp;pina</span>", 1).replace(b">\xd0\x9b\xd0\xb8\xd1\x81\xd0\xb0</a>", b">&#1051;&#1080;&#1089;&#1072;</a>", 1),
    "next link in a message on the last page": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<a rel='next' href='/x'>more</a>"),
    "pagination class in the buttons": lambda d: d.replace(b"<li class='top hide'>", b"<li class='next'><a href='/n'>n</a></li><li class='top hide'>", 1),
    "title heading in a message": lambda d: _at_posts(d, rb"(entry-content '>|commentContent'[^>]*>)", rb"\1<h1 class='ipsType_pagetitle'>T</h1>"),
    "no pagination at all": lambda d: re.sub(rb"<li class='pagejump[^>]*>.*?</li>|<ul class='ipsPagination'.*?</ul>", b"", d, flags=re.S),
    "post id in the buttons": lambda d: d.replace(b"<li class='top hide'>", b"<li id='post_id_1'></li><li class='top hide'>", 1),
    "truncated page": lambda d: d[: len(d) * 2 // 3],
    "truncated page with its end": lambda d: d[: len(d) * 2 // 3] + b"</div></body></html>",
    "NUL byte": lambda d: d.replace(b"<h3", b"\x00<h3", 1),
    "bad UTF-8": lambda d: d.replace(b"<h3", b"\xff<h3", 1),
}


@pytest.mark.parametrize("mutation", sorted(MUTATIONS), ids=sorted(MUTATIONS))
@pytest.mark.parametrize(("name", "data", "ctx"), PAGES, ids=[page[0] for page in PAGES])
def test_mutated_page_same_or_declined(mutation: str, name: str, data: bytes, ctx: PageContext) -> None:
    assert_same_or_declined(MUTATIONS[mutation](data), ctx)


@pytest.mark.parametrize("mutation", ["nested quote", "code block holding a div end",
                                      "look-alike markup as text", "edit line added",
                                      "edit line removed", "IPS 4 edit line removed",
                                      "moderated post", "no title on the time",
                                      "more profile fields", "comment in a message",
                                      "moderator checkbox in the header", "group-formatted names"])
@pytest.mark.parametrize(("name", "data", "ctx"), PAGES, ids=[page[0] for page in PAGES])
def test_harmless_changes_stay_fast(mutation: str, name: str, data: bytes, ctx: PageContext) -> None:
    """Content a real post holds (quotes, code, edits) keeps the page on the fast path."""
    mutated = MUTATIONS[mutation](data)
    assert isinstance(assert_same_or_declined(mutated, ctx), Page), f"{name}: declined"


def test_staff_edit_read_the_same() -> None:
    name, data, ctx = next(page for page in IPB3 if b"<span class='reason'>" in page[1])
    fast = fast_path(data, ctx)
    assert isinstance(fast, Page)
    staff = [post for post in fast.posts if post.edit and post.edit.editor and post.edit.editor != post.author]
    assert staff, "the fixture has a GM's edit with a reason"
    assert fast == tree_path(data, ctx)


def test_relative_and_soft_deleted_posts_are_read_fast() -> None:
    name, data, ctx = next(page for page in IPB3 if b"postsDeleteShow_" in page[1])
    fast = fast_path(data, ctx)
    assert isinstance(fast, Page)
    assert any(post.deleted for post in fast.posts)
    assert any(post.time_text.startswith("Вчера") for post in fast.posts)


def test_fetched_at_changes_relative_dates_alike() -> None:
    for _name, data, ctx in PAGES:
        later = replace(ctx, fetched_at=ctx.fetched_at.replace(year=ctx.fetched_at.year + 1))
        assert_same_or_declined(data, later)


# ---------------------------------------------------------------------------------------------
# Random hostile fragments anywhere in a page

FRAGMENTS = [
    b"<div>", b"</div>", b"<DIV>", b"</DIV >", b"<div/>", b"<!--", b"-->", b"<!-- x -->", b"<script>",
    b"</script>", b"<style>", b"<textarea>", b"<title>", b"<![CDATA[", b"<?x?>", b"<p>", b"</p>",
    b"<ul>", b"</ul>", b"<li class='next'>", b"<a rel='next' href='/n'>", b"<table><tr><td>", b"</td>",
    b"<h1 class='ipsType_pagetitle'>", b"<h3>", b"</h3>", b"<span>", b"</span>", b"<br />", b"'", b'"',
    b"<", b">", b"&", b"&#101;", b"&amp;", b"&nbsp;", b"\r\n", b" class='edit'", b" class='signature'",
    b" class='author'", b" class='published'", b" class='entry-content'", b" data-excludeQuote",
    b" data-role='commentContent'", b" data-role='memberSignature'", b"post_id_7", b"elComment_7",
    b"postsDeleteShow_7", b"<p class='edit'>x</p>", b"<abbr class='published' title='2017-01-01T00:00:00+03:00'>x</abbr>",
    b"<span data-excludeQuote><strong>Edited 1 by X</strong></span>", b"comment=", b"</body>", b"</html>",
    b"<blockquote>", b"</blockquote>", b"<time datetime='2017-01-01T00:00:00Z'>x</time>", b"\xff", b"\x00",
]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=st.sampled_from(PAGES), cuts=st.lists(
    st.tuples(st.floats(min_value=0, max_value=1), st.sampled_from(FRAGMENTS)), min_size=1, max_size=3))
def test_random_fragments_same_or_declined(page: tuple[str, bytes, PageContext],
                                           cuts: list[tuple[float, bytes]]) -> None:
    name, data, ctx = page
    for where, fragment in cuts:
        at = int(where * len(data))
        data = data[:at] + fragment + data[at:]
    assert_same_or_declined(data, ctx)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(page=st.sampled_from(PAGES), post=st.integers(min_value=0, max_value=30),
       offset=st.integers(min_value=0, max_value=3000), fragment=st.sampled_from(FRAGMENTS))
def test_random_fragment_inside_a_post_same_or_declined(page: tuple[str, bytes, PageContext], post: int,
                                                        offset: int, fragment: bytes) -> None:
    """Fragments dropped where the scan reads: inside a post's markup."""
    name, data, ctx = page
    starts = [m.start() for m in re.finditer(rb"post_id_\d|elComment_\d", data)]
    at = min(starts[post % len(starts)] + offset, len(data))
    assert_same_or_declined(data[:at] + fragment + data[at:], ctx)


# The stock displays the readers match without dates.read (_Reader._stock_reading): each must
# give what reading the display gives, in zones with and without DST changes.
ZONES = ["Europe/Moscow", "Europe/Berlin", "America/New_York", "UTC"]
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]


def _reader(zone: str, fetched_at: datetime) -> Any:
    ctx = replace(PAGES[0][2], zone=zone, fetched_at=fetched_at)
    return Ips4Reader(ENGINE, lxml.html.document_fromstring("<html><body></body></html>"), ctx)


def _displays(local: datetime) -> list[str]:
    clock = f"{local:%H:%M}"
    return [f"{local:%d} {MONTHS[local.month - 1]} {local.year} - {clock}", f"{local:%d.%m.%Y} {clock}",
            f"Сегодня, {clock}", f"Вчера, {clock}", f"Today, {clock}", f"Yesterday, {clock}",
            f"{local.day} {MONTHS[local.month - 1]} {local.year} - {clock}", f"{local:%m.%d.%Y} {clock}",
            f"{local:%d.%m.%Y} {local:%H}:{(local.minute + 1) % 60:02d}", f"{local:%d} {MONTHS[local.month % 12]} {local.year} - {clock}",
            f"{local:%m/%d/%Y %I:%M %p}", f"{local:%m/%d/%Y %I:%M} {'AM' if local.hour >= 12 else 'PM'}",
            f"{local:%d/%m/%Y %I:%M %p}"]


@settings(max_examples=400, deadline=None)
@given(machine=st.datetimes(min_value=datetime(1995, 1, 1), max_value=datetime(2035, 1, 1),
                            timezones=st.just(UTC)),
       zone=st.sampled_from(ZONES), later=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=3)),
       pick=st.integers(min_value=0, max_value=12))
def test_stock_displays_read_as_dates_read_reads_them(machine: datetime, zone: str, later: timedelta,
                                                      pick: int) -> None:
    reader = _reader(zone, machine + later)
    local = machine.astimezone(ZoneInfo(zone))
    for shown in ((_displays(local)[pick],), (_displays(local)[pick], "28 декабря, 2017")):
        stock = reader._stock_reading(machine, shown)
        if stock is not None:
            assert stock == reader._reading(shown)
        assert reader.when("1", machine, shown) == _plain_when(reader, machine, shown)


def test_stock_displays_around_dst_changes() -> None:
    """Times in the hour clocks go back (shown twice) and next to it, in both folds."""
    for zone, change in (("Europe/Berlin", datetime(2017, 10, 29, 1, 0, tzinfo=UTC)),
                         ("America/New_York", datetime(2017, 11, 5, 6, 0, tzinfo=UTC))):
        for minutes in range(-90, 150, 7):
            machine = change + timedelta(minutes=minutes, seconds=13)
            reader = _reader(zone, machine + timedelta(hours=5))
            local = machine.astimezone(ZoneInfo(zone))
            for display in _displays(local):
                assert reader.when("1", machine, (display,)) == _plain_when(reader, machine, (display,))


def test_stock_displays_are_most_posts() -> None:
    """The saved pages' posts mostly show a stock display: the shortcut is taken."""
    taken = total = 0
    for _name, data, ctx in PAGES:
        page = fast_path(data, ctx)
        assert isinstance(page, Page)
        reader = _reader(ctx.zone, ctx.fetched_at)
        for post in page.posts:
            total += 1
            taken += reader._stock_reading(post.created_at, (post.time_text,)) is not None
    assert taken >= total // 2


def _plain_when(reader: Any, machine: datetime, shown: tuple[str, ...]) -> object:
    """`when` without the stock shortcut."""
    text, reading = reader._reading(shown)
    if reading is not None and reader._disagrees(machine, reading):
        return machine, (reader._disagreement(machine, text, reading),)
    return machine, ()
