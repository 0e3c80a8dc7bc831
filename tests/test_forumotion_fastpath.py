"""Forumotion's fast path (stock pages read from their bytes) against the tree path.

The fast path may decline a page (None: the tree path reads it); when it answers, its Page must
be the tree path's, field for field. Checked on every saved page, on mutated copies of the
stock pages (what admins' templates, members' markup and odd pages do to them), and on
generated message markup.
"""

from __future__ import annotations

import re
from pathlib import Path

import casefiles
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mutations import Mutation, declined_in_messages, sub, to_latin1

from tally.adapters import forumotion, forumotion_fast
from tally.adapters.base import PageContext
from tally.adapters.forumotion import Forumotion
from tally.errors import NotAThreadPage

ENGINE = Forumotion()
CASES = casefiles.case_dirs("forumotion")
SAVED = [(f"{case.name}/{page.file}", page.data, page.ctx)
         for case in CASES for page in casefiles.load_case(case).pages]
# The stock pages the fast path is written for: it must read them.
STOCK = {"espia-phpbb3-es/page-1.html", "espia-phpbb3-es/page-2.html",
         "modernbb-fr/page-1.html"}
STOCK_PAGES = [(name, data, ctx) for name, data, ctx in SAVED if name in STOCK]


def same_or_declined(data: bytes, ctx: PageContext) -> str:
    """'fast' when the fast path answered with the tree path's Page, 'declined' when it did
    not answer; fails when it answered otherwise."""
    fast = forumotion_fast.fast_page(ENGINE, data, ctx)
    try:
        tree = ENGINE.tree_page(data, ctx)
    except NotAThreadPage:
        assert fast is None, "the fast path read a page the tree path refuses"
        return "declined"
    if fast is None:
        return "declined"
    assert fast.posts == tree.posts
    assert fast == tree
    return "fast"


@pytest.mark.parametrize(("name", "data", "ctx"), SAVED, ids=[s[0] for s in SAVED])
def test_saved_pages(name: str, data: bytes, ctx: PageContext) -> None:
    outcome = same_or_declined(data, ctx)
    if name in STOCK:
        assert outcome == "fast", "the fast path declined a stock page"


def test_every_stock_page_is_in_the_fixtures() -> None:
    assert {name for name, _data, _ctx in SAVED} >= STOCK


def test_parse_page_takes_the_fast_path(monkeypatch: pytest.MonkeyPatch) -> None:
    name, data, ctx = STOCK_PAGES[0]
    monkeypatch.setattr(ENGINE, "tree_page", lambda *_: pytest.fail("tree path taken"))
    assert ENGINE.parse_page(data, ctx).posts


# --- mutations of the stock pages ---------------------------------------------------------------
# Each one rewrites the page's bytes; the fast path must still agree with the tree path or
# decline. `reads` says whether it must still read the page (the mutation is stock markup).

def in_messages(snippet: bytes, count: int = 1) -> Mutation:
    """`snippet` at the end of the first `count` messages ({MESSAGE} is the div after
    div.content)."""
    return sub(rb'(<div class="content[^"]*">\s*<div>)', rb"\1" + snippet.replace(b"\\", b"\\\\"),
               count)


def in_signature(snippet: bytes) -> Mutation:
    return sub(rb'(<div class="signature_div" id="sig[0-9]+">)', rb"\1" + snippet)


def after_content(snippet: bytes) -> Mutation:
    """`snippet` where {EDITED_MESSAGE} is: after the message's div.content."""
    return sub(rb'(<div class="content[^"]*">\s*<div>.*?</div>\s*</div>)', rb"\1" + snippet)


def in_rank(snippet: bytes) -> Mutation:
    return sub(rb"(<dd>)([^<]*)(</dd>)", rb"\1\2" + snippet + rb"\3")


MUTATIONS: dict[str, tuple[Mutation, bool]] = {
    # Members' markup the fast path reads.
    "nested quote": (in_messages(b"<blockquote><cite>A escribi\xc3\xb3:</cite><blockquote>"
                                 b"<cite>B escribi\xc3\xb3:</cite>Voto: X</blockquote>no</blockquote>"),
                     True),
    "code holding </div> as text": (in_messages(
        b'<dl class="codebox"><dt>C\xc3\xb3digo:</dt><dd><code>&lt;/div&gt; voto: X</code></dd></dl>'),
        True),
    "spoiler divs": (in_messages(b'<div class="spoiler"><div class="spoiler_content">'
                                 b"<div>voto: X</div></div></div>"), True),
    "bold and line breaks": (in_messages(b"<b>Voto:</b> X<br>y<br/><strong>z</strong>", 5), True),
    "entities in a message": (in_messages(b"caf&eacute; &amp; &lt;b&gt; &#8364; &#39;", 3), True),
    "reference spelling a letter": (in_messages(b"&#x41;"), False),
    "endless references": (in_messages(b"&#" + b"1" * 5000 + b"; &#x" + b"f" * 5000 + b";"),
                           False),
    "unclosed inline tags": (in_messages(b"<b><i>voto: X"), True),
    "stray inline end tag": (in_messages(b"</span></b>voto: X"), True),
    "marker in a member's text": (in_messages(b'class="post--123" post--4567 #3101'), False),
    "post class in a member's markup": (in_messages(b'<div class="post post--9999">x</div>'),
                                         False),
    "author box in a message": (in_messages(
        b'<div class="postprofile"><dl><dt><a href="/u99">Mallory</a></dt></dl></div>'), False),
    "signature in a message": (in_messages(b'<div class="signature_div">firma</div>'), False),
    "date line in a quote": (in_messages(b'<blockquote><p class="author">por Zven Lun 18 Ene '
                                         b"2016, 23:59</p>Voto: X</blockquote>"), False),
    "edit notice quoted": (in_messages(b"<blockquote>\xc3\x9altima edici\xc3\xb3n por Zven el Lun "
                                       b"18 Ene 2016, 23:59, editado 9 veces</blockquote>"), False),
    "edit notice as the message's last line": (in_messages(
        b"voto: X<br>\xc3\x9altima edici\xc3\xb3n por Zven el Lun 18 Ene 2016, 23:59, editado 2 "
        b"veces"), False),
    "comment in a message": (in_messages(b"<!-- <div> -->voto: X"), False),
    **declined_in_messages(in_messages),
    "deeply nested divs": (in_messages(b"<div>" * 6 + b"x" + b"</div>" * 6), False),
    "numeric reference spelling a class": (in_messages(b'<div class="post&#45;-9">x</div>'),
                                           False),
    # Edit notices.
    "edit notice by staff": (after_content(
        b'<div class="edit">\xc3\x9altima edici\xc3\xb3n por Zven el Mar 19 Ene 2016, 10:00, '
        b"editado 2 veces</div>"), False),
    "bare edit notice": (after_content(
        b"<br /><br />\xc3\x9altima edici\xc3\xb3n por Zven el Hoy a las 10:00, editado 1 vez"),
        False),
    "edit notice in the signature": (in_signature(
        b"Last edited by Zven on Today at 10:00; edited 4 times in total"), False),
    "edit notice in a rank": (in_rank(
        b" Last edited by Zven on Today at 10:00; edited 4 times in total"), False),
    "signature class in the notice's place": (after_content(
        b'<div class="signature">otra firma</div>'), False),
    "signature class in a rank": (in_rank(b'<span class="signature">x</span>'), False),
    "no edit notice": (sub(rb'<div class="edit">[^<]*</div>|<span class="edit">[^<]*</span>|'
                           rb"Derni[^<]*fois", b"", 0), True),
    # The chrome: what admins change in the templates.
    "extra wrapper div": (sub(rb'(<div class="postbody">)', rb'\1<div class="wrap">'), False),
    "attributes reordered": (sub(rb'<div id="p([0-9]+)" class="([^"]*)"',
                                 rb'<div class="\2" id="p\1"'), False),
    "single-quoted post class": (sub(rb"class=\"(post [^\"]*)\"", rb"class='\1'"), False),
    "upper-case post tag": (sub(rb'<div id="p([0-9]+)"', rb'<DIV id="p\1"'), False),
    "comment in the chrome": (sub(rb'(<h2 class="topic-title">)', rb"<!-- x -->\1"), False),
    "post group class": (sub(rb'(class="post [^"]*post--[0-9]+)"', rb'\1 post-group-2"', 0),
                         True),
    "no style attribute": (sub(rb'(class="post [^"]*post--[0-9]+") style=""', rb"\1", 0), True),
    "reputation votes (phpBB3)": (sub(
        rb'(<div class="clearfix"></div>)',
        rb'\1\n<div class="vote gensmall">\n<div class="vote-button"><a href="/post?p=1&amp;'
        rb'mode=vote&amp;plus=1">+</a></div>\n<div class="vote-bar" title="100% de 2 votos">'
        rb'<div class="vote-bar-plus" style="height:10px;"></div></div>\n<div title="x" '
        rb'class="vote-no-bar">----</div>\n</div>', 0), True),
    "reputation votes (ModernBB)": (sub(
        rb'(<div class="topic-date">[^<]*)',
        rb'\1<div class="vote"><a href="/post?p=1&amp;mode=vote&amp;plus=1" '
        rb'class="ion-thumbsup"></a>\n<div class="vote-bar" title="100% de 2 votos">'
        rb'<div class="vote-bar-desc">100% de 2 votos</div><div class="vote-bars">'
        rb'<div class="vote-bar-plus" style="width:10px;"></div></div></div></div>\n', 0),
        True),
    "online2 comment": (sub(rb'(<div class="postprofile" id="profile[0-9]+">)',
                            rb'\1\n<!-- div class="online2"></div-->', 0), True),
    "link ending with the post's anchor before the title": (sub(
        rb'(?s)(<div id="p([0-9]+)".*?<ul class="profile-icons">)',
        rb'\1<li><a href="/report#\2">x</a></li>'), False),
    "guest post": (sub(rb'<a href="/u[0-9]+(-[^"]*)?">((?:<[^a/][^>]*>)*)([^<]+)', rb"\2\3", 0),
                   False),
    "hidden post block": (sub(rb"(<div id=\"p)", rb'<div class="post row1"><p>x <a href="#" '
                              rb'onclick="return showHiddenMessage(123);">ver</a></p></div>\1'),
                          False),
    "post ids repeated": (sub(rb"post--31([0-9]{2})", rb"post--3101", 0), False),
    # The page.
    "truncated": (lambda data: data[: len(data) // 2], False),
    "no pagination script": (sub(rb"(?s)<script[^>]*>\s*//<!\[CDATA\[\s*var agt.*?</script>", b"",
                                 0), False),
    "page title as text in a script": (sub(rb"(<body[^>]*>)", rb"\1<script>'page-title'</script>"),
                                       False),
    "body implied by the head": (sub(rb"(<head>)", rb"\1<div>x</div>"), False),
    "byte-order mark": (lambda data: b"\xef\xbb\xbf" + data, False),
    "ISO-8859-1": (to_latin1, True),
    "windows-1252": (sub(b"charset=utf-8", b"charset=windows-1252"), False),
    "broken UTF-8": (in_messages(b"\xff\xfe"), False),
    "phpBB2 skeleton class elsewhere": (sub(rb"(<body[^>]*>)", rb'\1<div class="bodylinewidth">'
                                            rb"</div>"), False),
    "PunBB skeleton class": (sub(rb"(<body[^>]*>)", rb'\1<div class="pun">x</div>'), False),
    "Invision skeleton id": (sub(rb"(<body[^>]*>)", rb'\1<div id="ipbwrapper">x</div>'), False),
    "a word holding a skeleton class": (in_messages(b"el punto: voto X"), True),
    "no-break spaces and an ampersand in the byline": (sub(
        rb'(<p class="author">)', rb"\1&nbsp;&amp;&nbsp;", 0), True),
    "no-break space without its semicolon in the byline": (sub(
        rb'(<p class="author">)', rb"\1&nbsp", 0), False),
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


def test_pages_without_their_url_are_read_by_the_tree() -> None:
    _name, data, ctx = STOCK_PAGES[0]
    saved = PageContext(str(Path("page-1.html")), ctx.fetched_at, ctx.zone)
    assert same_or_declined(data, saved) == "declined"


# --- generated markup -------------------------------------------------------------------------

TAGS = ["b", "i", "strong", "em", "span", "div", "p", "br", "li", "ul", "blockquote", "cite",
        "dl", "dt", "dd", "a", "font", "td", "tr", "table", "u", "code", "pre", "h3", "img"]
PIECES = st.one_of(
    st.sampled_from(["voto: X", " ", "Voto a <b>Y</b>", "&amp;", "&nbsp;", "&lt;/div&gt;",
                     "caf\u00e9", "\n", "\r", "\r\n", "\x00", "<br>", "<br />", "</br>", "<3",
                     "Hoy a las 10:00", "x", "<b/>", "&#39;", "&eacute;", "&bogus;", "& ",
                     '<span style="font-weight: bold">', '<span style="color: red">',
                     '<a href="/u5">', '<a href="/t1?a=1&amp;b=2">', '<img src="x.png" />']),
    st.builds(lambda t, upper: f"<{t.upper() if upper else t}>", st.sampled_from(TAGS),
              st.booleans()),
    st.builds(lambda t: f"</{t}>", st.sampled_from(TAGS)),
    st.builds(lambda t, c: f'<{t} class="{c}">', st.sampled_from(["div", "span", "dl"]),
              st.sampled_from(["codebox", "spoiler", "quote", "signature_div", "hidecode",
                               "spoiler_content", "vote", "x"])),
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=14), st.integers(min_value=0, max_value=len(STOCK_PAGES) - 1))
def test_generated_messages(pieces: list[str], which: int) -> None:
    _name, data, ctx = STOCK_PAGES[which]
    snippet = "".join(pieces).encode("utf-8")
    same_or_declined(in_messages(snippet, 2)(data), ctx)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, min_size=1, max_size=6), st.floats(min_value=0, max_value=1),
       st.integers(min_value=0, max_value=len(STOCK_PAGES) - 1))
def test_generated_markup_anywhere(pieces: list[str], where: float, which: int) -> None:
    """Markup dropped at any place of a stock page, chrome included (at a tag's start)."""
    _name, data, ctx = STOCK_PAGES[which]
    starts = [m.start() for m in re.finditer(rb"<", data)]
    at = starts[int(where * (len(starts) - 1))]
    mutated = data[:at] + "".join(pieces).encode("utf-8") + data[at:]
    try:
        same_or_declined(mutated, ctx)
    except NotAThreadPage:
        pass



# --- helpers rewritten for speed, against what they replace ------------------------------------

CHILDREN = st.lists(st.sampled_from([
    "<dt>A escribi\u00f3:</dt>", "<cite>B wrote:</cite>", "<div><cite>C</cite></div>",
    "<div>no cite</div>", '<span class="cite">D</span>', '<span class="x\tcite">E</span>',
    '<span class="x\fcite">F</span>', "<dd>text</dd>", "<!-- c -->", "text", "<b>G<i>H</i></b>",
    "<dt><b>I</b> J</dt>"]), max_size=6)


@settings(max_examples=300, deadline=None)
@given(CHILDREN)
def test_caption_is_the_xpath_caption(children: list[str]) -> None:
    html = f"<html><body><dl>{''.join(children)}</dl></body></html>".encode()
    element = forumotion._parse(html).find("body")[0]
    by_xpath = forumotion.first(element, ("./dt", "./cite", "./div/cite",
                                          f"./*[{forumotion._c('cite')}]"))
    expected = forumotion.collapse(str(forumotion._TEXT(by_xpath))) if by_xpath is not None else ""
    assert forumotion._caption(element) == expected


@settings(max_examples=200, deadline=None)
@given(CHILDREN)
def test_text_is_string(children: list[str]) -> None:
    root = forumotion._parse(f"<html><body><p>{''.join(children)}</p></body></html>".encode())
    for element in root.iter():
        assert forumotion._text(element) == str(forumotion._TEXT(element))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["showHiddenMessage(", "showHiddenMessage(12)", "hidden-title--",
                                 "hidden-title--7", "idden", "h", "idden-title--3", "x", "(",
                                 "showHidden", "Message(4", "--5"]), max_size=8))
def test_hidden_calls_found_as_the_regex_finds_them(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    assert forumotion.calls_hidden(data) == bool(forumotion._HIDDEN_BYTES.search(data))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["t", "p", "1", "23", "x", "s", "tart", "start", "p4", "t5", "tp"]),
                max_size=10))
def test_offset_links_found_as_the_regex_finds_them(pieces: list[str]) -> None:
    data = "".join(pieces).encode()
    assert forumotion_fast._names_an_offset(data) == bool(forumotion_fast._OFFSET_LINK.search(data))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from([
    "\u00daltima edici\u00f3n por X el Hoy a las 10:00, editado 1 vez", "<br>", "<b>", "</b>",
    "<span>", "</span>", "<div>", "</div>", " edited ", "texto", "dition", "<i>x</i>"]),
    max_size=10))
def test_notice_holders_are_the_xpath_holders(pieces: list[str]) -> None:
    html = f"<html><body><div>{''.join(pieces)}</div></body></html>".encode()
    notice = forumotion._parse(html).find("body")[0]
    expected = []
    for text in forumotion._EDIT_WORDS(notice):
        holder = text.getparent()
        expected.append(holder.getparent() if text.is_tail else holder)
    assert forumotion_fast._notice_holders(notice, None) == expected[::-1]


def test_latin1_pages_read_as_browsers_read_them() -> None:
    # An ISO-8859-1 board holds what browsers sent it in windows-1252: 0x92 is ’. Both paths
    # read it so; a byte windows-1252 leaves undefined sends the page to the tree.
    name, data, ctx = STOCK_PAGES[0]
    latin = (data.decode("utf-8").replace("charset=utf-8", "charset=iso-8859-1")
             .replace("Lo tengo claro.", "Lo tengo claro, Moriarty’s.")
             .encode("cp1252", "xmlcharrefreplace"))
    assert b"iso-8859-1" in latin and b"\x92" in latin
    fast = forumotion_fast.fast_page(ENGINE, latin, ctx)
    assert fast is not None and fast == ENGINE.tree_page(latin, ctx)
    assert any("Moriarty’s" in post.body.own for post in fast.posts)
    undefined = latin.replace(b"\x92", b"\x81")
    assert forumotion_fast.fast_page(ENGINE, undefined, ctx) is None
    loups = next(d for n, d, _ in SAVED if n == "loups-phpbb2-fr/page-1.html")
    assert b"m'accuses" in loups
    tree = ENGINE.tree_page(loups.replace(b"m'accuses", b"m\x92accuses"), next(
        c for n, _, c in SAVED if n == "loups-phpbb2-fr/page-1.html"))
    assert any("m’accuses" in post.body.own for post in tree.posts)
