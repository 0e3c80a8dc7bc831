"""Forumotion adapter: saved pages of every theme (fixtures/forumotion/), URLs, dates, errors,
and the tree reader's helpers rewritten for speed, against what they replace."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import casefiles
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import etree

from tally import times
from tally.adapters import forumotion
from tally.adapters.base import PageContext
from tally.adapters.forumotion import Forumotion, find_time, read_edit
from tally.adapters.html import parser_encoding
from tally.errors import NotAThreadPage, TruncatedPage

ENGINE = Forumotion()
CASES = casefiles.case_dirs("forumotion")
ERRORS = casefiles.FIXTURES / "forumotion" / "errors"
TOPIC = "https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia"
PAGE_3 = "https://laratonera.foroactivo.com/t245p30-votaciones-dia-1-quien-es-el-espia"


def _ctx(url: str = TOPIC, fetched: str = "2016-01-20T22:30:00Z",
         zone: str = "Europe/Madrid") -> PageContext:
    return PageContext(url=url, fetched_at=times.parse_iso(fetched), zone=zone)


# --- saved pages ------------------------------------------------------------------------------


def test_every_theme_has_a_case() -> None:
    names = {p.name for p in CASES}
    assert {"espia-phpbb3-es", "loups-phpbb2-fr", "punbb-en", "invision-es", "modernbb-fr",
            "awesomebb-en"} <= names


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_case(case_dir: Path) -> None:
    casefiles.check_case(ENGINE, case_dir)


@pytest.mark.parametrize(("case", "theme"), [
    ("espia-phpbb3-es", "phpbb3"), ("loups-phpbb2-fr", "phpbb2"), ("punbb-en", "punbb"),
    ("invision-es", "invision"), ("modernbb-fr", "modernbb"), ("awesomebb-en", "awesomebb"),
])
def test_theme_detected_from_the_skeleton(case: str, theme: str) -> None:
    saved = casefiles.load_case(casefiles.FIXTURES / "forumotion" / case).pages[0]
    assert f"theme: {theme}" in ENGINE.parse_page(saved.data, saved.ctx).notes


def test_espia_pages_link_and_count() -> None:
    case = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "espia-phpbb3-es")
    first, second = (ENGINE.parse_page(p.data, p.ctx) for p in case.pages)
    assert first.title == "Votaciones Día 1 - ¿Quién es el Espía?"
    assert first.thread_id == "245"
    assert first.next_url == case.pages[1].ctx.url
    assert second.next_url is None
    # The 22:00 deadline post and the 22:01 one keep their minute (E1).
    times_shown = {p.author: p.created_at for p in second.posts}
    assert times_shown["Moriarty"] == datetime(2016, 1, 18, 21, 0, tzinfo=UTC)
    assert times_shown["Lestrade"] == datetime(2016, 1, 18, 21, 1, tzinfo=UTC)


def test_staff_edit_on_irene_adlers_post() -> None:
    case = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "espia-phpbb3-es")
    page = ENGINE.parse_page(case.pages[0].data, case.pages[0].ctx)
    irene = next(p for p in page.posts if p.author == "Irene Adler")
    assert irene.edit is not None
    assert irene.edit.text == "Última edición por Zven el Miér 20 Ene 2016, 09:19, editado 1 vez"
    assert irene.author != irene.edit.editor


def test_hidden_block_without_post_is_a_note_not_an_empty_post() -> None:
    case = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "loups-phpbb2-fr")
    page = ENGINE.parse_page(case.pages[1].data, case.pages[1].ctx)
    assert "506" not in [p.id for p in page.posts]
    assert any("post 506 (#6) is hidden" in note for note in page.notes)
    assert all(p.body.own for p in page.posts)


def test_iso_8859_1_page_reads_accents() -> None:
    case = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "loups-phpbb2-fr")
    assert b"charset=iso-8859-1" in case.pages[0].data and "é".encode() not in case.pages[0].data
    page = ENGINE.parse_page(case.pages[0].data, case.pages[0].ctx)
    assert page.posts[2].edit is not None and page.posts[2].edit.text.startswith("Dernière édition")


def test_per_page_from_the_pagination_js_wins_over_the_context() -> None:
    case = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "espia-phpbb3-es")
    saved = case.pages[1]
    ctx = PageContext(saved.ctx.url, saved.ctx.fetched_at, saved.ctx.zone, per_page=15)
    page = ENGINE.parse_page(saved.data, ctx)
    assert page.number == 2 and [p.position for p in page.posts] == [6, 7, 8, 9]


def test_post_found_by_class_when_the_template_is_overridden() -> None:
    html = """<html><head><title>t</title><script src="https://illiweb.com/rs3/x.js"></script>
    </head><body><section class="my-post post--77"><div class="who"><a href="/u9-zven">Zven</a>
    </div><p class="author">Hoy a las 21:58</p><div class="content"><div>voto: Moriarty</div>
    </div></section></body></html>"""
    page = ENGINE.parse_page(html.encode(), _ctx())
    (post,) = page.posts
    assert (post.id, post.author, post.author_id) == ("77", "Zven", "9")
    assert post.created_at == datetime(2016, 1, 20, 20, 58, tzinfo=UTC)
    assert post.body.own == "voto: Moriarty"


# --- URLs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    TOPIC, PAGE_3, "https://www.werewolf-club.net/t9-day-1-votes#122",
    "http://loups-garous.forumactif.com/t88p4-jour-2-votes", "https://foro.example.org/t5",
    "https://foro.example.org/viewtopic?t=5&start=15",
])
def test_accepts_topic_urls(url: str) -> None:
    assert ENGINE.accepts(url)


@pytest.mark.parametrize("url", [
    "https://laratonera.foroactivo.com/f12-quien-es-el-espia",
    "https://laratonera.foroactivo.com/u5",
    "https://forum.example.org/viewtopic.php?t=123",
    "https://www.jeuxvideo.com/forums/42-51-74793440-1-0-1-0-kira.htm",
    "not a url",
])
def test_rejects_other_urls(url: str) -> None:
    assert not ENGINE.accepts(url)


def test_thread_key_is_the_same_for_every_page() -> None:
    assert ENGINE.thread_key(TOPIC) == ENGINE.thread_key(PAGE_3 + "#3111")
    assert ENGINE.thread_key(TOPIC) == "laratonera.foroactivo.com/t245"


def test_page_url_and_page_number_both_ways() -> None:
    assert ENGINE.page_url(PAGE_3, 1) == TOPIC
    assert ENGINE.page_url(TOPIC, 3) == PAGE_3
    assert ENGINE.page_url(TOPIC, 2, per_page=5).endswith("/t245p5-votaciones-dia-1-quien-es-el-espia")
    assert ENGINE.page_number(PAGE_3) == 3
    assert ENGINE.page_number(TOPIC) == 1
    assert ENGINE.page_number("https://laratonera.foroactivo.com/t245p10-x", per_page=5) == 3
    for n in (1, 2, 7):
        assert ENGINE.page_number(ENGINE.page_url(TOPIC, n, 4), 4) == n


def test_engine_facts() -> None:
    assert (ENGINE.name, ENGINE.label, ENGINE.default_zone, ENGINE.default_per_page) == (
        "forumotion", "Forumotion", "Europe/Madrid", 15)


# --- dates ------------------------------------------------------------------------------------

FETCHED_LOCAL = datetime(2016, 1, 20, 23, 30)  # what local_now gives for the espia fetch


@pytest.mark.parametrize(("text", "wall"), [
    ("Mensaje por Irene Adler Dom 17 Ene 2016, 12:02", datetime(2016, 1, 17, 12, 2)),
    ("Lun 18 Jan 2016 - 21:58", datetime(2016, 1, 18, 21, 58)),
    ("Sun 17 Jan 2016, 12:02", datetime(2016, 1, 17, 12, 2)),
    ("Sun Jan 17, 2016 12:02 pm", datetime(2016, 1, 17, 12, 2)),
    ("Sun Jan 17, 2016 12:02 am", datetime(2016, 1, 17, 0, 2)),
    ("Mer 12 Juin 2024 - 21:00", datetime(2024, 6, 12, 21, 0)),
    ("Hoy a las 21:58", datetime(2016, 1, 20, 21, 58)),
    ("Ayer a las 21:58", datetime(2016, 1, 19, 21, 58)),
    ("Aujourd'hui à 21:58", datetime(2016, 1, 20, 21, 58)),
    ("Aujourd’hui à 21:58", datetime(2016, 1, 20, 21, 58)),
    ("Hier à 21:58", datetime(2016, 1, 19, 21, 58)),
    ("Today at 12:02", datetime(2016, 1, 20, 12, 2)),
    ("Yesterday at 12:02", datetime(2016, 1, 19, 12, 2)),
    ("Sujet: Re: vote du 17 Ene 2016, 12:00  Miér 20 Ene 2016, 22:01", datetime(2016, 1, 20, 22, 1)),
])
def test_date_forms(text: str, wall: datetime) -> None:
    shown = find_time(text, FETCHED_LOCAL)
    assert shown is not None and shown.naive == wall


def test_relative_dates_follow_the_fetch_time_in_the_boards_zone() -> None:
    # 23:30 UTC on 20 Jan is already 21 Jan in Madrid: "Hoy" is the 21st there.
    local = times.local_now(times.parse_iso("2016-01-20T23:30:00Z"), "Europe/Madrid")
    shown = find_time("Hoy a las 00:10", local)
    assert shown is not None and shown.naive == datetime(2016, 1, 21, 0, 10)


@pytest.mark.parametrize("text", ["Mensaje por Sherlock", "Lun 32 Ene 2016, 12:00",
                                  "17 Foo 2016, 12:00"])
def test_no_date(text: str) -> None:
    assert find_time(text, FETCHED_LOCAL) is None


# --- edit markers -----------------------------------------------------------------------------


@pytest.mark.parametrize(("line", "editor", "edited_at", "count"), [
    ("Última edición por Zven el Miér 20 Ene 2016, 09:19, editado 1 vez", "Zven",
     datetime(2016, 1, 20, 8, 19, tzinfo=UTC), 1),
    ("Última edición por Irene Adler el Hoy a las 21:05, editado 3 veces", "Irene Adler",
     datetime(2016, 1, 20, 20, 5, tzinfo=UTC), 3),
    ("Dernière édition par Corbeau le Mer 20 Jan 2016 - 9:19, édité 1 fois", "Corbeau",
     datetime(2016, 1, 20, 8, 19, tzinfo=UTC), 1),
    ("Last edited by Host Vic on Sun 17 Jan 2016, 12:02; edited 2 times in total", "Host Vic",
     datetime(2016, 1, 17, 11, 2, tzinfo=UTC), 2),
])
def test_edit_markers(line: str, editor: str, edited_at: datetime, count: int) -> None:
    edit = read_edit(line, _ctx(), FETCHED_LOCAL)
    assert edit is not None
    assert (edit.editor, edit.edited_at, edit.times, edit.text) == (editor, edited_at, count, line)


def test_text_that_is_not_an_edit_marker() -> None:
    assert read_edit("Last edited by nobody, just kidding.", _ctx(), FETCHED_LOCAL) is None


# --- errors -----------------------------------------------------------------------------------


def _read(name: str) -> bytes:
    return (ERRORS / name).read_bytes()


def test_truncated_page() -> None:
    with pytest.raises(TruncatedPage) as caught:
        ENGINE.parse_page(_read("truncated.html"), _ctx())
    assert str(caught.value) == (
        f"Forumotion: {TOPIC}: truncated page (no closing </html>; cut download?)")


@pytest.mark.parametrize(("name", "what"), [
    ("login.html", "login wall: the forum asks to log in"),
    ("message.html", ("no post--ID posts; the forum says: "
                      "Le sujet ou message que vous recherchez n'existe pas.")),
    ("prosilver.html", "no Forumotion markup; another engine's page?"),
])
def test_not_a_thread_page(name: str, what: str) -> None:
    with pytest.raises(NotAThreadPage) as caught:
        ENGINE.parse_page(_read(name), _ctx())
    assert str(caught.value) == f"Forumotion: {TOPIC}: not a thread page ({what})"


def test_looks_like() -> None:
    assert ENGINE.looks_like(casefiles.load_case(CASES[0]).pages[0].data)
    assert not ENGINE.looks_like(_read("prosilver.html"))


def test_post_without_a_date_names_the_post() -> None:
    html = """<html><body><script src="https://illiweb.com/x.js"></script><div class="post post--12">
    <a href="/u3">Watson</a><div class="content"><div>voto: Moriarty</div></div></div></body></html>"""
    with pytest.raises(NotAThreadPage, match=r"^Forumotion: .*: not a thread page \(post 12: no date"):
        ENGINE.parse_page(html.encode(), _ctx())


def test_signature_after_the_message_belongs_to_its_own_post() -> None:
    # Each post's signature block sits after its message (§1.2); the page is searched once for
    # "sig" classes, so each must land on the post that holds it, and a post without one
    # must not borrow its neighbour's.
    def post(pid: str, name: str, uid: str, text: str, signature: str) -> str:
        sig = f'<div class="signature_div">{signature}</div>' if signature else ""
        return (f'<div class="post post--{pid}"><p class="author">por <a href="/u{uid}">{name}'
                f'</a> Hoy a las 21:{pid[-2:]}</p><div class="content"><div>{text}</div></div>'
                f"{sig}</div>")

    html = ('<html><head><title>t</title><script src="https://illiweb.com/rs3/x.js"></script>'
            "</head><body>"
            + post("101", "Zven", "2", "voto: Moriarty", "El que calla otorga")
            + post("102", "Watson", "3", "voto: Zven", "")
            + post("103", "Irene", "4", "voto: Watson", "Mi firma<br>segunda línea")
            + "</body></html>")
    page = ENGINE.parse_page(html.encode(), _ctx())
    assert [(p.author, p.body.own, p.body.signature) for p in page.posts] == [
        ("Zven", "voto: Moriarty", "El que calla otorga"),
        ("Watson", "voto: Zven", ""),
        ("Irene", "voto: Watson", "Mi firma\nsegunda línea"),
    ]


# --- helpers rewritten for speed, against what they replace ------------------------------------

LOUPS = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "loups-phpbb2-fr").pages[0].data
WINDOWS_1252 = [bytes([b]) for b in range(256) if b not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)]


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(WINDOWS_1252), st.sampled_from([
    b"<p>", b"</p>", b"<b title='\x92\xe9'>", b"</b>", b"&nbsp;", b"&#146;", b"\r\n", b"\x00",
    b"<script>var x = '\x80';</script>", b"<meta charset=utf-8>", b"\xef\xbb\xbf"])),
    max_size=20), st.floats(min_value=0, max_value=1))
def test_windows_1252_pages_parse_as_libxml2_reads_them(pieces: list[bytes], where: float) -> None:
    # _parse() hands libxml2 such pages as UTF-8 (decoded by Python's table, html.parser_input):
    # where every byte is defined, the tree must be the one libxml2 builds through iconv.
    at = int(where * len(LOUPS))
    data = LOUPS[:at] + b"".join(pieces) + LOUPS[at:]
    as_declared = etree.fromstring(data, parser=forumotion.parser(parser_encoding(data)))
    if as_declared is None:  # libxml2 gave up on the page: _parse() reads it as an empty one
        as_declared = etree.fromstring(b"<html></html>")
    assert etree.tostring(forumotion._parse(data)) == etree.tostring(as_declared)


def test_an_undefined_windows_1252_byte_loses_no_post() -> None:
    """libxml2's iconv stopped at an undefined byte (0x81) and dropped the rest of the page,
    posts included, without an error; it is read as browsers read it, U+0081."""
    case = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "loups-phpbb2-fr")
    saved = case.pages[0]
    original = ENGINE.parse_page(saved.data, saved.ctx)
    last = original.posts[-1]
    data = saved.data.replace(b"post--" + last.id.encode(), b"\x81 post--" + last.id.encode(), 1)
    assert data != saved.data
    page = ENGINE.parse_page(data, saved.ctx)
    assert [(p.id, p.author, p.created_at, p.body) for p in page.posts] == [
        (p.id, p.author, p.created_at, p.body) for p in original.posts]


CLASS_VALUES = st.lists(st.sampled_from(
    ["name", "postdetails", "poster-profile", "content", "posthead", "entry-content", "vote",
     "post-date", "x", "names", "\tcontent", "content\n", " ", "post-content"]), max_size=3)
TAGS = ["span", "div", "p", "h2", "dt", "dl", "h4", "aside"]


@st.composite
def classed_markup(draw: st.DrawFn, depth: int = 0) -> str:
    """Nested elements of the theme paths' tags and class names (blanks included)."""
    children = draw(st.lists(classed_markup(depth + 1), max_size=3)) if depth < 3 else []
    tag = draw(st.sampled_from(TAGS))
    value = " ".join(draw(CLASS_VALUES))
    return f'<{tag} class="{value}">t{"".join(children)}</{tag}>'


@settings(max_examples=200, deadline=None)
@given(st.lists(classed_markup(), min_size=1, max_size=3))
def test_theme_paths_find_what_the_class_predicates_find(parts: list[str]) -> None:
    # Each theme path reaches its elements through their class attributes (_classed): it must
    # find what `descendant::tag[_c(name)]` finds from every element.
    c = forumotion._c
    by_predicate = {
        forumotion._classed("span", "name"): f"descendant::span[{c('name')}]",
        forumotion._classed("span", "postdetails", unless="poster-profile"):
            f"descendant::span[{c('postdetails')} and not({c('poster-profile')})]",
        forumotion._classed("div", "content") + "/div[1]": f"descendant::div[{c('content')}]/div[1]",
        forumotion._classed("div", "posthead") + "/h2": f"descendant::div[{c('posthead')}]/h2",
        forumotion._classed("div", "content") + "/descendant::dt":
            f"descendant::div[{c('content')}]/descendant::dt",
        forumotion._classed("div", "entry-content") + f"/div[not({c('vote')})][1]/div[1]":
            f"descendant::div[{c('entry-content')}]/div[not({c('vote')})][1]/div[1]",
    }
    compiled = [(etree.XPath(path), etree.XPath(reference))
                for path, reference in by_predicate.items()]
    root = forumotion._parse(f"<html><body>{''.join(parts)}</body></html>".encode())
    for path, reference in compiled:
        for element in root.iter():
            assert path(element) == reference(element)


HIDDEN_PIECES = st.sampled_from([
    '<div class="post post--11"><p>a</p></div>', '<div class="post post--12"><p>b</p></div>',
    '<a href="#" onclick="return showHiddenMessage(21);">show</a>',
    '<a href="javascript:showHiddenMessage(22)" id="hidden-title--22">show</a>',
    '<span onclick="showHiddenMessage(23)">not a link</span>', '<b id="hidden-title--24">x</b>',
    '<b id="x-hidden-title--25">x</b>', '<a href="showHiddenMessage" id="hidden-title--26">x</a>',
    '<a onclick="showHiddenMessage(11)">names a post</a>', '<p>', '</p>',
    '<a href="showHiddenMessage(27)"><i onclick="showHiddenMessage(28)">i</i></a>',
])
# What _hidden_blocks() and _slots() searched before one search served both (_hidden_mentions).
_HIDDEN_ATTRS = etree.XPath(
    "/descendant::a/@href[contains(., 'showHiddenMessage')]"
    " | /descendant::a/@onclick[contains(., 'showHiddenMessage')]"
    " | /descendant::*/@id[starts-with(., 'hidden-title--')]")
_SLOT_ATTRS = etree.XPath(
    "/descendant::*/@class[contains(., 'post--')]"
    " | /descendant::*/@href[contains(., 'showHiddenMessage(') or contains(., 'hidden-title--')]"
    " | /descendant::*/@onclick[contains(., 'showHiddenMessage(') or contains(., 'hidden-title--')]"
    " | /descendant::*/@id[contains(., 'showHiddenMessage(') or contains(., 'hidden-title--')]")


@settings(max_examples=200, deadline=None)
@given(st.lists(HIDDEN_PIECES, max_size=10))
def test_hidden_blocks_and_slots_as_the_attribute_searches_find_them(pieces: list[str]) -> None:
    root = forumotion._parse(f"<html><body>{''.join(pieces)}</body></html>".encode())
    elements = forumotion._post_elements(root)
    mentions = forumotion._hidden_mentions(root)
    hidden = forumotion._hidden_blocks(mentions)
    expected: dict[str, str] = {}
    for node in forumotion._parents(_HIDDEN_ATTRS(root)):
        raw = " ".join(filter(None, (node.get("href"), node.get("onclick"), node.get("id"))))
        if match := forumotion._HIDDEN_REF.search(raw):
            holder = node.getparent() if node.getparent() is not None else node
            expected.setdefault(match.group(1) or match.group(2),
                                forumotion.collapse(forumotion._text(holder)))
    assert hidden == expected
    orphans = set(hidden) - set(elements)
    keys = [forumotion._slot_key(node, elements, orphans)
            for node in forumotion._parents(_SLOT_ATTRS(root))]
    expected_slots = list(dict.fromkeys(key for key in keys if key)) if orphans else list(elements)
    assert [key for key, _ in forumotion._slots(root, elements, hidden, mentions)] == expected_slots
