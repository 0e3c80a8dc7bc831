"""jeuxvideo.com's fast path (a page's HTML read from its bytes) against the tree path.

The byte scan may decline a page (the tree then reads its HTML); when it answers, the Page must
be the tree path's, field for field: a legacy page's posts, a 2026 page's check of its payload
against the HTML (which posts, which shown times), pagers and titles. Checked on every saved
page, on mutated copies of the stock pages (what templates, members' markup and odd pages do to
them), and on generated markup.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import casefiles
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutations import Mutation, declined_in_messages, sub, to_latin1

from tally.adapters import jv, jv_scan
from tally.adapters.base import PageContext
from tally.adapters.jv import JV
from tally.errors import ForumError

ENGINE = JV()
CASES = casefiles.case_dirs("jv")
SAVED = [(f"{case.name}/{page.file}", page.data, page.ctx)
         for case in CASES for page in casefiles.load_case(case).pages]
# The stock pages the fast path is written for: it must read them.
LEGACY = {"legacy/page-1.html", "legacy/page-2.html"}
PAYLOAD = {"kira-2026/page-1.html", "kira-2026/page-2.html"}
HTML_2026 = {"html2026-nopayload/page-3.html"}  # the 2026 HTML alone, with its <nav> pagers
LEGACY_PAGES = [saved for saved in SAVED if saved[0] in LEGACY]
PAYLOAD_PAGES = [saved for saved in SAVED if saved[0] in PAYLOAD]
HTML_2026_PAGES = [saved for saved in SAVED if saved[0] in HTML_2026]
STOCK_PAGES = LEGACY_PAGES + PAYLOAD_PAGES + HTML_2026_PAGES


def answers(data: bytes) -> bool:
    """Whether the byte scan reads the page's HTML (else the tree does)."""
    payload, _problem = jv.read_payload(data)
    return jv_scan.html_from_bytes(data, payload, jv._pager_view(payload)) is not None


def same_or_declined(data: bytes, ctx: PageContext) -> str:
    """'fast' when the byte scan answered and the Page is the tree path's, 'declined' when it
    did not answer; fails when it answered otherwise. Errors must be the tree path's too."""
    try:
        tree = ENGINE.tree_page(data, ctx)
    except ForumError as exc:
        with pytest.raises(type(exc)) as caught:
            ENGINE.parse_page(data, ctx)
        assert str(caught.value) == str(exc)
        return "error"
    if not answers(data):
        return "declined"
    page = ENGINE.parse_page(data, ctx)
    assert page.posts == tree.posts
    assert page == tree
    return "fast"


@pytest.mark.parametrize(("name", "data", "ctx"), SAVED, ids=[s[0] for s in SAVED])
def test_saved_pages(name: str, data: bytes, ctx: PageContext) -> None:
    outcome = same_or_declined(data, ctx)
    if name in LEGACY | PAYLOAD | HTML_2026:
        assert outcome == "fast", "the fast path declined a stock page"


def test_every_stock_page_is_in_the_fixtures() -> None:
    assert {name for name, _data, _ctx in SAVED} >= LEGACY | PAYLOAD | HTML_2026


def test_parse_page_builds_no_tree_for_stock_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jv, "_parse", lambda *_: pytest.fail("the page's tree was built"))
    for _name, data, ctx in STOCK_PAGES:
        assert ENGINE.parse_page(data, ctx).posts


# --- mutations of the stock pages ---------------------------------------------------------------
# Each one rewrites the page's bytes; the fast path must still agree with the tree path or
# decline. `reads` says whether it must still read the page (the mutation is stock markup).

_TEXTS = rb'(<div class="(?:txt-msg[^"]*|messageUser__msg[^"]*)">)'


def in_messages(snippet: bytes, count: int = 1) -> Mutation:
    """`snippet` at the start of the first `count` message texts (the HTML ones: a payload
    page's check of its HTML never reads them)."""
    return sub(_TEXTS, rb"\1" + snippet.replace(b"\\", b"\\\\"), count)


def in_headers(snippet: bytes, count: int = 1) -> Mutation:
    """`snippet` in the first `count` message headers, before the date element."""
    return sub(rb'(<(?:div|span|a)[^>]*class="[^"]*(?:bloc-date-msg|messageUser__date)[ "])',
               snippet.replace(b"\\", b"\\\\") + rb"\1", count)


def in_pager_navs(rewrite: Mutation) -> Mutation:
    """`rewrite` applied to each 2026 pager <nav>, start and end tags included."""
    def mutate(data: bytes) -> bytes:
        return re.sub(rb'(?s)<nav class="pagination".*?</nav>', lambda m: rewrite(m.group()), data)
    return mutate


def around_messages(before: bytes, after: bytes) -> Mutation:
    """Markup around each message's <div> (its end found by the anchor of the next one)."""
    def mutate(data: bytes) -> bytes:
        data = re.sub(rb'(<div class="(?:bloc-message-forum|messageUser) [^"]*"[^>]*>)',
                      lambda m: before + m.group(1), data)
        return re.sub(rb"(</div>\s*)(<span id=\"post_)", lambda m: m.group(1) + after + m.group(2),
                      data)
    return mutate


MUTATIONS: dict[str, tuple[Mutation, bool]] = {
    # Members' markup the fast path reads.
    "nested quote": (in_messages(
        b'<blockquote class="blockquote-jv"><p>Le 12 janvier 2016 \xc3\xa0 04:20:11 X a \xc3\xa9crit :'
        b'</p><blockquote class="blockquote-jv"><p>vote: Y</p></blockquote><p>vote: Z</p>'
        b"</blockquote>"), True),
    "code holding </div> as text": (in_messages(
        b'<pre class="pre-jv"><code class="code-jv">&lt;/div&gt; vote: X</code></pre>'), True),
    "spoiler block": (in_messages(
        b'<div class="bloc-spoil-jv"><input type="checkbox" class="open-spoil"><label '
        b'class="barre-head"><span class="txt-spoil">Spoil</span></label><div class="contenu-spoil">'
        b"<p>vote: X</p></div></div>"), True),
    "bold and line breaks": (in_messages(b"<p><strong>vote:</strong> X<br />y<br>z</p>", 5), True),
    "entities in a message": (in_messages(b"<p>caf&eacute; &amp; &lt;b&gt; &#8364; &#39;</p>", 3),
                              True),
    "unclosed inline tags": (in_messages(b"<b><i>vote: X"), True),
    "stray inline end tag": (in_messages(b"</span></b>vote: X"), True),
    "quote header date in a message": (in_messages(
        b"<p>Le 12 janvier 2016 \xc3\xa0 04:00:05 Ryuk-MJ a \xc3\xa9crit :</p>"), True),
    "markers in a member's text": (in_messages(
        b'<p>class="bloc-message-forum" data-id="1" txt-msg bloc-date-msg messageUser__date '
        b"bloc-liste-num-page</p>"), False),
    "message markup in a member's text": (in_messages(
        b'<div class="bloc-message-forum" data-id="1"><div class="txt-msg">x</div></div>'), False),
    "date element in a message": (in_messages(
        b'<div class="bloc-date-msg">01 janvier 2020 \xc3\xa0 00:00:00</div>'), False),
    "edit notice in a message": (in_messages(
        b'<div class="info-edition-msg">Message \xc3\xa9dit\xc3\xa9 le 01 janvier 2020 \xc3\xa0 '
        b"00:00:00 par X</div>"), False),
    "signature in a message": (in_messages(b'<div class="signature-msg"><p>sig</p></div>'), False),
    "comment in a message": (in_messages(b"<!-- <div> -->vote: X"), False),
    "comment holding a message": (in_messages(
        b'<!-- <div class="bloc-message-forum " data-id="7"><div class="txt-msg">x</div></div> -->'),
        False),
    **declined_in_messages(in_messages),
    "deeply nested divs": (in_messages(b"<div>" * 20 + b"x" + b"</div>" * 20), False),
    "numeric reference spelling a class": (in_messages(b'<div class="txt&#45;msg">x</div>'),
                                           False),
    "broken UTF-8": (in_messages(b"\xff\xfe"), False),
    # The header: names, dates, edit notices.
    "comment in a header": (in_headers(b"<!-- x -->"), False),
    "closed block in a header": (in_headers(b'<div class="x"><span>y</span></div>'), True),
    "unbalanced end div in a header": (in_headers(b"</div>"), False),
    "script in a header": (in_headers(b"<script>'</div>'</script>"), False),
    "markup in the date": (sub(rb'((?:bloc-date-msg|messageUser__date)">\s*(?:<a [^>]*>)?)'
                               rb"([0-9]+ )", rb"\1<b>\2</b>", 3), True),
    "entity in the date": (sub(rb"(\d{2} [a-z\xc3\xa9\xbb]+ \d{4} )\xc3\xa0", rb"\1&agrave;", 2),
                           False),
    "entity in an author's name": (sub(rb'(bloc-pseudo-msg[^"]*"[^>]*>\s*)([A-Za-z])', rb"\1&amp;\2"),
                                   False),
    "blank between two tags in a name": (sub(rb'(bloc-pseudo-msg[^"]*"[^>]*>)(\s*)([^<\s]+)',
                                             rb"\1<b>\3</b> <i>x</i>"), False),
    "title on the date": (sub(rb'class="bloc-date-msg"', b'class="bloc-date-msg" '
                              b'title="12 janvier 2016 \xc3\xa0 04:00:00"', 2), True),
    "entity in the date's title": (sub(rb'class="bloc-date-msg"', b'class="bloc-date-msg" '
                                       b'title="12 janvier 2016 &agrave; 04:00:00"'), False),
    "guest author and date (JvCare spans)": (sub(
        rb'<a href="https://www.jeuxvideo.com/profil/[^"]*" target="_blank" class="(bloc-pseudo-msg '
        rb'[^"]*)">([^<]*)</a>', rb'<span class="JvCare 1F4A \1" target="_blank">\2</span>', 0),
        True),
    "editor link as a JvCare span": (sub(
        rb'(info-edition-msg">[^<]*)<a href="[^"]*" target="_blank" class="lien-jv">([^<]*)</a>',
        rb'\1<span class="JvCare 1F4A" target="_blank">\2</span>', 0), True),
    "edit notice by staff": (sub(rb'(<div class="txt-msg[^"]*">.*?</div>)',
                                 b'\\1<div class="info-edition-msg">Message \xc3\xa9dit\xc3\xa9 le '
                                 b"12 janvier 2016 \xc3\xa0 23:00:00 par <a href=\"/profil/ryuk-mj\" "
                                 b'class="lien-jv">Ryuk-MJ</a></div>', 3), True),
    "no edit notice": (sub(rb'<div class="info-edition-msg">.*?</div>', b"", 0), True),
    "edit notice without editor link": (sub(rb'(<div class="info-edition-msg">[^<]*)<a [^>]*>'
                                            rb"([^<]*)</a>", rb"\1\2", 0), True),
    "signature after the edit notice": (sub(rb'(<div class="info-edition-msg">.*?</div>)',
                                            rb'\1<div class="signature-msg"><p>sig</p></div>'),
                                        False),
    "deleted message": (sub(rb'class="bloc-message-forum "', b'class="bloc-message-forum '
                            b'msg-supprime"', 2), True),
    # The chrome: what template changes do to it.
    "extra wrapper div": (around_messages(b'<div class="wrap">', b"</div>"), True),
    "attributes reordered": (sub(rb'<div class="(bloc-message-forum [^"]*|messageUser [^"]*)" '
                                 rb'((?:data-)?id="[^"]*")>', rb'<div \2 class="\1">', 0), True),
    "single-quoted message class": (sub(rb'class="(bloc-message-forum [^"]*|messageUser [^"]*)"',
                                        rb"class='\1'"), False),
    "repeated class attribute": (sub(rb'class="(bloc-message-forum [^"]*|messageUser [^"]*)"',
                                     rb'class="x" class="\1"'), False),
    "upper-case message tag": (sub(rb'<div class="(bloc-message-forum|messageUser) ',
                                   rb'<DIV class="\1 '), False),
    "upper-case chrome divs": (sub(rb'<div class="(bloc-contenu|messageUser__main)">(\s*<div '
                                   rb'class="(?:txt-msg|messageUser__msg)[^"]*">.*?</div>\s*)</div>',
                                   rb'<DIV class="\1">\2</DIV>', 0), True),
    "comment in the chrome": (sub(rb'(<div class="(?:bloc-header|messageUser__header)">)',
                                  rb"<!-- x -->\1"), False),
    "comment before the list": (sub(rb"(<span id=\"post_)", rb"<!-- <div> -->\1"), False),
    "marker in a script": (sub(rb"(</head>)", rb"<script>var m = 'bloc-message-forum messageUser';"
                               rb"</script>\1"), False),
    "message between two messages": (sub(rb"(<span id=\"post_)",
                                         rb'<div class="bloc-message-forum " data-id="5"><div '
                                         rb'class="txt-msg">x</div></div>\1'), False),
    "message without an id": (sub(rb' data-id="[0-9]+"', b"", 1), False),
    "nested message": (sub(rb"</div>\s*</div>\s*(<span id=\"post_)", rb"</div>\1"), False),
    "message id attribute twice": (sub(rb'( data-id="[0-9]+")', rb'\1 data-id="1"'), False),
    # The page.
    "truncated": (lambda data: data[: len(data) // 2], False),
    "no pager": (sub(rb'<div class="bloc-liste-num-page">.*?</div>', b"", 0), True),
    "JvCare pager links": (sub(rb'<a href="[^"]*" class="lien-jv">(\d+)</a>',
                               rb'<span class="JvCare 1F4A lien-jv">\1</span>', 0), True),
    "pager class on a link": (sub(rb'(<div class="bloc-pagi-default">)',
                                  rb'<a class="bloc-liste-num-page" href="/x">1</a>\1'), False),
    "2026 pager class in a message": (in_messages(b'<span class="pagination__item">2</span>'),
                                      False),
    # The 2026 pager: the parent of its first item, a <nav> of flat items (§3.3).
    "2026 pager item as a link": (sub(rb'<span class="JvCare [0-9A-F]+ (pagination__item)">(\d+)'
                                      rb"</span>", rb'<a href="/forums/42-1-2-\2-0-1-0-x.htm" '
                                      rb'class="\1">\2</a>'), True),
    "2026 pager without a current item": (sub(rb" pagination__item--current", b"", 0), True),
    "2026 pager in upper case": (in_pager_navs(lambda nav: re.sub(rb"(</?)nav", rb"\1NAV", nav)),
                                 True),
    "2026 pager item after its nav": (sub(rb"(pagination__item--current\">\d+</span>\s*</nav>)",
                                          rb'\1<span class="pagination__item">9</span>'), False),
    "2026 pager item holding markup": (sub(rb'(pagination__item--current">)(\d+)', rb"\1<b>\2</b>"),
                                       False),
    "2026 pager item in a span": (sub(rb'(<span class="pagination__item pagination__item--current">'
                                      rb"\d+</span>)", rb"<span>\1</span>"), False),
    "2026 pager item before the pager": (sub(rb'(<nav class="pagination")',
                                             rb'<span class="pagination__item">9</span>\1'), False),
    "2026 pager in a div": (in_pager_navs(lambda nav: re.sub(rb"(</?)nav", rb"\1div", nav)), False),
    "2026 pager with a JvCare link": (sub(rb'<nav class="pagination"',
                                          rb'<nav class="JvCare 1F4A pagination"', 0), False),
    "2026 pager self-closed": (sub(rb'(<nav class="pagination"[^>]*)>', rb"\1/>"), False),
    "2026 pager in a comment": (sub(rb'(<nav class="pagination")', b'<!-- <nav><span class="'
                                    b'pagination__item">9</span></nav> -->\\1'), False),
    "comment in the title": (sub(rb"<title>", b"<title><!-- x -->"), False),
    "comment before the title": (sub(rb"<title>", b"<!-- t --><title>"), True),
    "entity in the title": (sub(rb"(<title>[^<]*) sur", rb"\1 &amp; sur"), False),
    "byte-order mark": (lambda data: b"\xef\xbb\xbf" + data, False),
    "ISO-8859-1": (to_latin1, False),
    "CRLF line ends": (lambda data: data.replace(b"\n", b"\r\n"), True),
}


@pytest.mark.parametrize("mutation", MUTATIONS, ids=list(MUTATIONS))
@pytest.mark.parametrize(("name", "data", "ctx"), STOCK_PAGES, ids=[s[0] for s in STOCK_PAGES])
def test_mutated_stock_pages(name: str, data: bytes, ctx: PageContext, mutation: str) -> None:
    mutate, reads = MUTATIONS[mutation]
    mutated = mutate(data)
    if mutated == data:
        pytest.skip("nothing to mutate on this page")
    outcome = same_or_declined(mutated, ctx)
    if reads:
        assert outcome == "fast", "the fast path declined stock markup"


# --- a payload page's HTML ----------------------------------------------------------------------
# Beside a payload the HTML is only checked: which posts it shows, at which times.


def payload_page(number: int) -> tuple[bytes, PageContext]:
    _name, data, ctx = PAYLOAD_PAGES[number - 1]
    return data, ctx


def test_a_message_only_the_html_shows_is_noted() -> None:
    data, ctx = payload_page(2)
    extra = (b'<div class="messageUser" id="message-999"><span class="messageUser__date">02 juin '
             b"2026 \xc3\xa0 06:00:00</span></div>")
    mutated = data.replace(b'<div id="listMessages"', extra + b'<div id="listMessages"', 1)
    assert same_or_declined(mutated, ctx) == "fast"
    assert "HTML only: 999" in ENGINE.parse_page(mutated, ctx).notes[0]


def test_a_hidden_message_is_left_to_the_tree() -> None:
    data, ctx = payload_page(1)  # its payload holds 1312400590, deleted: not in the HTML
    hidden = (b'<div class="messageUser" id="message-1312400590"><span class="messageUser__date">'
              b"02 juin 2026 \xc3\xa0 06:00:00</span></div>")
    for where in (b'<div id="listMessages"', b'<span id="post_1312400302"'):
        for wrap in ((b"<!-- ", b" -->"), (b"<script>'", b"'</script>"),
                     (b"<img alt='", b"'>")):
            mutated = data.replace(where, wrap[0] + hidden + wrap[1] + where, 1)
            assert mutated != data
            assert same_or_declined(mutated, ctx) == "declined"


@pytest.mark.parametrize("number", [1, 2])
def test_a_shown_time_that_disagrees_is_noted_either_way(number: int) -> None:
    data, ctx = payload_page(number)
    mutated = re.sub(rb'(messageUser__date">\d{2} [^<]* )(\d{2})', rb"\1 23", data, count=1)
    assert mutated != data
    assert same_or_declined(mutated, ctx) == "fast"
    assert any("the page shows" in note for post in ENGINE.parse_page(mutated, ctx).posts
               for note in post.notes)


# --- generated markup ---------------------------------------------------------------------------

TAGS = ["b", "i", "strong", "em", "span", "div", "p", "br", "li", "ul", "blockquote", "a",
        "pre", "code", "td", "tr", "table", "u", "img", "label", "input", "h3"]
CLASSES = ["txt-msg", "bloc-date-msg", "bloc-pseudo-msg", "info-edition-msg", "signature-msg",
           "bloc-message-forum", "messageUser", "messageUser__date", "messageUser__msg",
           "bloc-spoil-jv", "contenu-spoil", "blockquote-jv", "JvCare 1F4A", "lien-jv", "x"]
PIECES = st.one_of(
    st.sampled_from(["vote: X", " ", "Je vote <b>Y</b>", "&amp;", "&nbsp;", "&lt;/div&gt;",
                     "caf\u00e9", "\n", "<br>", "<br />", "12 janvier 2016 \u00e0 04:00:05",
                     "<!-- c -->", "x"]),
    st.builds(lambda t, upper: f"<{t.upper() if upper else t}>", st.sampled_from(TAGS),
              st.booleans()),
    st.builds(lambda t: f"</{t}>", st.sampled_from(TAGS)),
    st.builds(lambda t, c: f'<{t} class="{c}">', st.sampled_from(["div", "span", "a", "p"]),
              st.sampled_from(CLASSES)),
)
ALL_STOCK = STOCK_PAGES


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(PIECES, max_size=14),
       which=st.integers(min_value=0, max_value=len(ALL_STOCK) - 1))
def test_generated_messages(pieces: list[str], which: int) -> None:
    _name, data, ctx = ALL_STOCK[which]
    snippet = "".join(pieces).encode("utf-8")
    same_or_declined(in_messages(snippet, 2)(data), ctx)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pieces=st.lists(PIECES, min_size=1, max_size=6), where=st.floats(min_value=0, max_value=1),
       which=st.integers(min_value=0, max_value=len(ALL_STOCK) - 1))
def test_generated_markup_anywhere(pieces: list[str], where: float, which: int) -> None:
    """Markup dropped at any place of a stock page, chrome included (at a tag's start)."""
    _name, data, ctx = ALL_STOCK[which]
    starts = [m.start() for m in re.finditer(rb"<", data)]
    at = starts[int(where * (len(starts) - 1))]
    mutated = data[:at] + "".join(pieces).encode("utf-8") + data[at:]
    same_or_declined(mutated, ctx)


# --- spans checked in one search ---------------------------------------------------------------

SPAN_PIECES = st.sampled_from([b"<", b">", b"/", b"!", b" ", b"div", b"span", b"script", b"td", b"x",
                               b"<div>", b"</div>", b"<p>", b"</p>", b"<!-- c -->", b'"', b"<>"])


@settings(max_examples=300, deadline=None)
@given(pieces=st.lists(SPAN_PIECES, max_size=12),
       cuts=st.lists(st.integers(min_value=0, max_value=60), max_size=6))
def test_spans_checked_together_are_checked_each(pieces: list[bytes], cuts: list[int]) -> None:
    """`_require_plain_spans` declines exactly when `_require_plain_markup` declines a span."""
    low = b"".join(pieces)
    bounds = sorted(min(cut, len(low)) for cut in cuts)
    spans = list(zip(bounds[::2], bounds[1::2], strict=False))

    def plain(check: Callable[[], None]) -> bool:
        try:
            check()
        except jv_scan._Unsure:
            return False
        return True

    each = all(plain(lambda s=s, e=e: jv_scan._require_plain_markup(low, s, e)) for s, e in spans)
    assert plain(lambda: jv_scan._require_plain_spans(low, spans)) == each


# --- templates ----------------------------------------------------------------------------------
# After one message of a shape is read by search, the next ones are read by a template of it,
# kept from page to page: a page must read the same with templates or without.


@pytest.mark.parametrize(("name", "data", "ctx"), STOCK_PAGES, ids=[s[0] for s in STOCK_PAGES])
def test_pages_read_alike_with_templates_or_without(name: str, data: bytes, ctx: PageContext,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(jv_scan, "_TEMPLATES", {})
    monkeypatch.setattr(jv_scan, "_COMPILED", {})
    cold = ENGINE.parse_page(data, ctx)
    searched: list[int] = []
    search = jv_scan._by_search

    def counted(*args: object) -> object:
        searched.append(1)
        return search(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(jv_scan, "_by_search", counted)
    assert ENGINE.parse_page(data, ctx) == cold == ENGINE.tree_page(data, ctx)
    assert not searched, "a message of a shape read before was searched again"


def test_templates_of_other_pages_do_not_change_a_reading() -> None:
    for _name, data, ctx in STOCK_PAGES:
        ENGINE.parse_page(data, ctx)  # templates of every shape
    for name, data, ctx in SAVED:
        assert same_or_declined(data, ctx) in ("fast", "declined", "error"), name


# --- edit notices -------------------------------------------------------------------------------

MONTHS = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
          "octobre", "novembre", "décembre"]


@given(day=st.integers(0, 39), month=st.sampled_from(MONTHS), year=st.integers(990, 2100),
       hour=st.integers(0, 25), minute=st.integers(0, 61), second=st.sampled_from(["", ":07", ":61"]),
       editor=st.sampled_from(["Near_", "Ryuk Shinigami", "12:00", ""]))
def test_an_edit_notice_date_reads_as_the_shared_reader_reads_it(
        day: int, month: str, year: int, hour: int, minute: int, second: str, editor: str) -> None:
    text = f"Message édité le {day:02d} {month} {year} à {hour:02d}:{minute:02d}{second} par {editor}"
    found = jv._EDIT_TEXT.search(text)
    assert found is not None
    assert (jv.dates.stock_date(found.group(1)) or jv.full_date(text)) == jv.full_date(text)
