"""Forumotion adapter: saved and stock-template pages of every theme (fixtures/forumotion/),
the sponsored pseudo-post guests see (issue 13), the topic a page names (issue 16), URLs, dates,
edit notices, errors, and whole voting threads counted through `tally count --from`."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import casefiles
import pytest

from tally import times
from tally.adapters.base import PageContext
from tally.adapters.forumotion import Forumotion, find_time, read_edit
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
    # The board languages beyond es/fr/en (phpBB2 packs' wording, FORUMS.md §1.4).
    ("Última edição por Ana em Seg 18 Jan 2016 - 22:00, editado 2 vez(es)", "Ana",
     datetime(2016, 1, 18, 21, 0, tzinfo=UTC), 2),
    ("Editado pela última vez por Ana em Hoje às 14:02, num total de 1 vez", "Ana",
     datetime(2016, 1, 20, 13, 2, tzinfo=UTC), 1),
    ("Ultima modifica di Narratore il Lun 18 Gen 2016 - 22:00, modificato 1 volta in totale",
     "Narratore", datetime(2016, 1, 18, 21, 0, tzinfo=UTC), 1),
    ("Ultima modifica di Narratore il Oggi alle 09:00, modificato 3 volte in totale",
     "Narratore", datetime(2016, 1, 20, 8, 0, tzinfo=UTC), 3),
    ("Zuletzt bearbeitet von Spielleiter am Mo 18 Jan 2016 - 22:00, insgesamt 2-mal bearbeitet",
     "Spielleiter", datetime(2016, 1, 18, 21, 0, tzinfo=UTC), 2),
    ("Editado por última vez por Zven el Miér 20 Ene 2016, 09:19, editado 1 vez", "Zven",
     datetime(2016, 1, 20, 8, 19, tzinfo=UTC), 1),
    # The date without its year, as boards print edit dates of the current year.
    ("Dernière édition par Corbeau le Lun 18 Jan - 22:00, édité 2 fois", "Corbeau",
     datetime(2016, 1, 18, 21, 0, tzinfo=UTC), 2),
    # A name holding the word before the date: the editor runs to the last one.
    ("Dernière édition par Loup le Magnifique le Hier à 22:00, édité 1 fois",
     "Loup le Magnifique", datetime(2016, 1, 19, 21, 0, tzinfo=UTC), 1),
    ("Last edited by Host on Duty on Today at 2:02 pm; edited 1 time in total", "Host on Duty",
     datetime(2016, 1, 20, 13, 2, tzinfo=UTC), 1),
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


def test_a_quoted_date_line_and_edit_notice_are_not_the_posts() -> None:
    # C1: a quote holding a byline date and an edit notice says nothing of the quoting post.
    saved = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "espia-phpbb3-es").pages[0]
    original = ENGINE.parse_page(saved.data, saved.ctx)
    quoted = ('<div class="content clearfix">\n\t\t\t\t\t<div><blockquote><p class="author">por '
              "Zven Lun 18 Ene 2016, 23:59</p>Última edición por Zven el Lun 18 Ene 2016, 23:59, "
              "editado 9 veces</blockquote>")
    data = saved.data.decode().replace('<div class="content clearfix">\n\t\t\t\t\t<div>', quoted, 1)
    page = ENGINE.parse_page(data.encode(), saved.ctx)
    first, was = page.posts[0], original.posts[0]
    assert (first.created_at, first.edit, first.body.own) == (was.created_at, None, was.body.own)
    assert len(first.body.quotes) == 1


# --- real markup: pages rendered from the stock templates of every theme -----------------------

STOCK = [case for case in CASES if case.name.startswith("stock-")]
THEME_OF = {"subsilver": "phpbb2", "prosilver": "phpbb3", "punbb": "punbb", "invision": "invision",
            "modernbb": "modernbb", "awesomebb": "awesomebb", "mobile": "mobile"}
SPONSORED = {"es": "Contenido patrocinado", "fr": "Contenu sponsorisé", "en": "Sponsored content",
             "pt": "Conteúdo patrocinado", "it": "Contenuto sponsorizzato",
             "de": "Gesponserte Inhalte"}


def _pages(case_dir: Path) -> list[tuple[casefiles.CasePage, dict, object]]:
    case = casefiles.load_case(case_dir)
    wanted = {page["file"]: page for page in case.expected["pages"]}
    return [(saved, wanted[saved.file], ENGINE.parse_page(saved.data, saved.ctx))
            for saved in case.pages]


def test_every_theme_has_a_stock_voting_case() -> None:
    assert {f"stock-{theme}-es" for theme in THEME_OF} <= {case.name for case in STOCK}
    assert {"stock-subsilver-fr", "stock-modernbb-en"} <= {case.name for case in STOCK}


@pytest.mark.parametrize("case_dir", STOCK, ids=lambda p: p.name)
def test_stock_pages_skip_the_sponsored_post_and_say_so(case_dir: Path) -> None:
    theme, language = case_dir.name.split("-")[1:]
    for saved, want, page in _pages(case_dir):
        assert b'post--0"' in saved.data and SPONSORED[language].encode() in saved.data
        assert "0" not in [post.id for post in page.posts]
        assert f"theme: {THEME_OF[theme]}" in page.notes
        assert (f"skipped {SPONSORED[language]!r} (post 0, no author link, no date): the "
                "sponsored block Forumotion shows guests, not a post (§1.8)") in page.notes
        assert page.thread_id == want["thread_id"]


@pytest.mark.parametrize("case_dir", STOCK, ids=lambda p: p.name)
def test_stock_pages_name_their_topic_without_their_url(case_dir: Path) -> None:
    # Issue 16: the topic comes from the page itself (canonical link, permalinks, pagination,
    # previous/next topic links), not from the address it was saved from or asked for.
    for saved, want, _page in _pages(case_dir):
        elsewhere = PageContext("https://other.example.org/t77-otro-tema", saved.ctx.fetched_at,
                                saved.ctx.zone)
        assert ENGINE.parse_page(saved.data, elsewhere).thread_id == want["thread_id"]
        as_file = PageContext(f"/tmp/{saved.file}", saved.ctx.fetched_at, saved.ctx.zone)
        page = ENGINE.parse_page(saved.data, as_file)
        assert (page.thread_id, page.number) == (want["thread_id"], want["number"])


def test_a_page_that_names_no_topic_has_none() -> None:
    html = """<html><head><script src="https://illiweb.com/x.js"></script></head><body>
    <div class="post post--12"><p class="author">por <a href="/u3">Watson</a> Hoy a las 21:00</p>
    <div class="content"><div>voto: Moriarty</div></div></div></body></html>"""
    assert ENGINE.parse_page(html.encode(), _ctx()).thread_id is None


def _sponsored_block(inner: str) -> str:
    return (f'<div id="p0" class="post row1 post--0" style=""><div class="postbody">{inner}'
            '<div class="content clearfix"><div><div id="fa_ad_inpost"><ins class="adsbygoogle">'
            "</ins></div></div></div></div></div>")


def _one_post_page(extra: str) -> bytes:
    return ("""<html><head><script src="https://illiweb.com/x.js"></script></head><body id="phpbb">
    <div id="p12" class="post row2 post--12"><p class="author">por <a href="/u3">Watson</a>
    Hoy a las 21:00</p><div class="content"><div>voto: Moriarty</div></div></div>"""
            + extra + "</body></html>").encode()


def test_a_post_0_with_a_profile_link_is_not_skipped() -> None:
    # Strict (issue 13): only a block with id 0, no profile link AND no date is the
    # sponsored block; this one is read as a post, and its missing date stops the count.
    data = _one_post_page(_sponsored_block('<p class="author">por <a href="/u4">Lestrade</a></p>'))
    with pytest.raises(NotAThreadPage) as caught:
        ENGINE.parse_page(data, _ctx())
    assert str(caught.value) == (f"Forumotion: {TOPIC}: not a thread page (post 0: cannot read "
                                 "the date in 'por Lestrade')")


def test_a_real_post_without_a_date_or_link_still_stops_the_count() -> None:
    block = _sponsored_block('<p class="author">por Contenido patrocinado</p>')
    data = _one_post_page(block.replace("post--0", "post--13").replace('"p0"', '"p13"'))
    with pytest.raises(NotAThreadPage) as caught:
        ENGINE.parse_page(data, _ctx())
    assert str(caught.value) == (f"Forumotion: {TOPIC}: not a thread page (post 13: cannot read "
                                 "the date in 'por Contenido patrocinado')")


def test_the_sponsored_block_takes_no_place_in_the_thread() -> None:
    page = ENGINE.parse_page(_one_post_page(_sponsored_block(
        '<p class="author">por Contenido patrocinado</p>')), replace_url(PAGE_3))
    assert [(p.id, p.position) for p in page.posts] == [("12", 31)]


def replace_url(url: str) -> PageContext:
    return PageContext(url, times.parse_iso("2016-01-20T22:30:00Z"), "Europe/Madrid", per_page=15)


@pytest.mark.parametrize(("text", "wall"), [
    ("Hoy a las 21:58", datetime(2016, 1, 20, 21, 58)),
    ("Ayer a las 10:05", datetime(2016, 1, 19, 10, 5)),
    ("Miér 20 Ene 2016, 09:19", datetime(2016, 1, 20, 9, 19)),
    ("Aujourd'hui à 09:19", datetime(2016, 1, 20, 9, 19)),
    ("Hier à 22:15", datetime(2016, 1, 19, 22, 15)),
    ("Lun 11 Mar 2024 - 21:00", datetime(2024, 3, 11, 21, 0)),
])
def test_the_stock_pages_date_forms(text: str, wall: datetime) -> None:
    shown = find_time(text, FETCHED_LOCAL)
    assert shown is not None and shown.naive == wall


def test_an_edit_notice_glued_to_the_last_line_keeps_the_vote() -> None:
    # AwesomeBB prints {EDITED_MESSAGE} inside the message (§1.4); its wrapper is unverified,
    # so a notice on the vote's own line must leave the vote in the body.
    html = """<html><head><link href="https://illiweb.com/awesomebb.css" rel="stylesheet"></head>
    <body id="top"><div class="post-wrap post--7"><div class="post-content">Voto: Moriarty
    Última edición por Zven el Miér 20 Ene 2016, 09:19, editado 1 vez</div><div class="post-footer">
    <span class="post-date">Lun 18 Ene 2016, 21:12</span></div><aside class="post-aside">
    <span class="post-author-name"><a href="/u5">Irene Adler</a></span></aside></div></body></html>"""
    (post,) = ENGINE.parse_page(html.encode(), _ctx()).posts
    assert post.body.own == "Voto: Moriarty"
    assert post.edit is not None and (post.edit.editor, post.edit.times) == ("Zven", 1)


def test_latin1_pages_read_as_browsers_read_them() -> None:
    # An ISO-8859-1 board holds what browsers sent it in windows-1252: 0x92 is ’, and a byte
    # windows-1252 leaves undefined (0x81) loses no post.
    saved = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "espia-phpbb3-es").pages[0]
    latin = (saved.data.decode("utf-8").replace("charset=utf-8", "charset=iso-8859-1")
             .replace("Lo tengo claro.", "Lo tengo claro, Moriarty’s.")
             .encode("cp1252", "xmlcharrefreplace"))
    assert b"iso-8859-1" in latin and b"\x92" in latin
    page = ENGINE.parse_page(latin, saved.ctx)
    assert any("Moriarty’s" in post.body.own for post in page.posts)
    undefined = ENGINE.parse_page(latin.replace(b"\x92", b"\x81"), saved.ctx)
    assert [p.id for p in undefined.posts] == [p.id for p in page.posts]


def test_a_byte_order_mark_changes_nothing() -> None:
    saved = casefiles.load_case(casefiles.FIXTURES / "forumotion" / "espia-phpbb3-es").pages[0]
    assert ENGINE.parse_page(b"\xef\xbb\xbf" + saved.data, saved.ctx) == ENGINE.parse_page(
        saved.data, saved.ctx)


# --- a GM counts a real Forumotion voting thread read as a guest, in each of the six themes ----
# Every espia case holds the same day (fixtures/forumotion/stock_pages.py, espia()): Zven opens
# at 21:00 and shows the format ("Voto: Nombre", a placeholder, C4); Irene "Voto: Moriarty"
# (edited by Zven, staff: kept), Sherlock quotes her and votes Lestrade, Watson's spoiler is not
# his vote (voto: Moriarty is), Mrs Hudson votes Moriarty, Moriarty votes Sherlock at 22:00
# (in time, E1/C7), Lestrade at 22:01 (late), Sherlock "Ayer" (the 19th) and Irene "Hoy" after
# the close. Each page ends with the sponsored block.

ESPIA = [case for case in STOCK if case.name.endswith("-es")]


def _count(case_dir: Path, *more: str):
    from typer.testing import CliRunner

    from tally.cli import app

    return CliRunner().invoke(app, [*more[:1], str(case_dir / "game.toml"), "--from",
                                    str(case_dir), "--fetched-at", "2016-01-20T22:30:00Z",
                                    *more[1:]])


@pytest.mark.parametrize("case_dir", ESPIA, ids=lambda p: p.name)
def test_a_guest_read_voting_thread_counts_in_every_theme(case_dir: Path) -> None:
    result = _count(case_dir, "count", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    base = int(casefiles.load_case(case_dir).expected["pages"][0]["thread_id"]) * 100
    assert {c["player"]: dict(zip(c["voters"], c["posts"])) for c in data["counts"]} == {
        "Moriarty": {"Irene Adler": str(base + 2), "Watson": str(base + 4),
                     "Mrs Hudson": str(base + 5)},
        "Lestrade": {"Sherlock": str(base + 3)},
        "Sherlock": {"Moriarty": str(base + 7)},
    }
    assert (data["outcome"]["result"], data["outcome"]["player"]) == ("eliminated", "Moriarty")
    assert data["not_voting"] == ["Lestrade"]
    verdicts = {v["post"]: v for v in data["verdicts"]}
    assert (verdicts[str(base + 8)]["verdict"], verdicts[str(base + 8)]["rule"]) == ("void", "E1")
    assert verdicts[str(base + 10)]["time"].startswith("2016-01-19T09:05")  # "Ayer a las 10:05"
    assert verdicts[str(base + 1)]["verdict"] == "not_a_vote"  # "Voto: Nombre" shows the format
    assert "0" not in verdicts


@pytest.mark.parametrize("case_dir", ESPIA, ids=lambda p: p.name)
def test_the_audit_and_gm_report_say_what_was_skipped(case_dir: Path) -> None:
    skipped = ("skipped 'Contenido patrocinado' (post 0, no author link, no date): the "
               "sponsored block Forumotion shows guests, not a post (§1.8)")
    for command in (("audit",), ("count", "--format", "text")):
        result = _count(case_dir, *command, "--lang", "en")  # the espia game's own is Spanish
        assert result.exit_code == 0, result.output
        section = result.stdout.split("Reading the thread:\n", 1)[1]
        assert f"  - {skipped}\n" in section
        assert result.stdout.count(skipped) == 1  # one line for both pages


def test_a_real_post_with_an_unreadable_date_stops_the_count_with_exit_4(tmp_path: Path) -> None:
    source = casefiles.FIXTURES / "forumotion" / "stock-prosilver-es"
    for item in source.iterdir():
        data = item.read_bytes()
        if item.name == "page-1.html":
            assert data.count(b"Lun 18 Ene 2016, 21:12") == 1
            data = data.replace(b"Lun 18 Ene 2016, 21:12", b"Lun 18 Foo 2016, 21:12")
        (tmp_path / item.name).write_bytes(data)
    result = _count(tmp_path, "count")
    assert result.exit_code == 4, result.output
    assert "not a thread page (post 30202: cannot read the date in 'por Irene Adler Lun 18 Foo " \
           "2016, 21:12')" in result.output
    assert len(result.output.strip().splitlines()) == 1


# --- boards whose edited templates dropped {MESSAGE}'s wrapper div ---------------------------


def _edited_template_page(theme_body: str, post: str) -> bytes:
    return (f"""<html><head><script src="https://illiweb.com/x.js"></script></head>
    <body{theme_body}>{post}</body></html>""").encode()


@pytest.mark.parametrize(("theme_body", "post"), [
    # phpBB3: div.content holds the message itself, starting with a [center] block.
    (' id="phpbb"', '<div id="p12" class="post row2 post--12"><p class="author">por '
     '<a href="/u3">Watson</a> Hoy a las 21:00</p><div class="content">'
     '<div align="center"><strong>Día 2</strong></div>Lo tengo claro.<br />Voto: Moriarty'
     '</div></div>'),
    # phpBB2: div.postbody holds the message itself, starting with a quote's wrapper div.
    ('', '<table class="bodylinewidth"><tr class="post post--12"><td><span class="name">'
     '<a name="12"></a><strong><a href="/u3">Watson</a></strong></span></td><td>'
     '<span class="postdetails">Tema: Re: Día 2 Hoy a las 21:00</span>'
     '<div class="postbody"><div><blockquote><cite>Zven escribió:</cite>Voto: Nombre'
     '</blockquote></div><strong>Voto: Moriarty</strong></div></td></tr></table>'),
])
def test_a_message_without_its_wrapper_div_is_read_whole(theme_body: str, post: str) -> None:
    # Before: the message's own first div was taken for the message, and the vote after it
    # was lost without a word.
    page = ENGINE.parse_page(_edited_template_page(theme_body, post), _ctx())
    (watson,) = page.posts
    assert "Voto: Moriarty" in watson.body.own
    assert "Voto: Nombre" not in watson.body.own


def test_the_stock_wrapper_beside_an_edit_notice_stays_the_message() -> None:
    # Invision prints {EDITED_MESSAGE} as bare text beside the wrapper (§1.4): not message text.
    post = ('<div id="p12" class="post post--12"><div class="postbody-head"><p class="author">'
            'por <a href="/u3">Watson</a> Hoy a las 21:00</p></div><div class="post-entry">'
            '<div>Voto: Moriarty</div><div class="clear"></div>Última edición por Zven el Hoy '
            'a las 21:30, editado 1 vez</div></div>')
    page = ENGINE.parse_page(_edited_template_page(' id="ipbwrapper"', post), _ctx())
    (watson,) = page.posts
    assert watson.body.own == "Voto: Moriarty"
    assert watson.edit is not None and watson.edit.editor == "Zven"


# --- a subject holding a date in the post's date line (phpBB2, PunBB) ------------------------

_SUBJECT_WITH_DATE = "Re: Día 1 - votos hasta Lun 18 Ene 2016, 22:00"


def _phpbb2_post(shown: str) -> str:
    return ('<table class="bodylinewidth"><tr class="post post--12"><td><span class="name">'
            '<a name="12"></a><strong><a href="/u3">Watson</a></strong></span></td><td>'
            '<span class="postdetails"><img src="https://illiweb.com/fa/empty.gif" alt="" />'
            f'Tema: {_SUBJECT_WITH_DATE}&nbsp; &nbsp;<img src="https://illiweb.com/fa/empty.gif"'
            f' alt="" />{shown}</span><div class="postbody"><div>Voto: Moriarty</div></div>'
            '</td></tr></table>')


def _punbb_post(shown: str) -> str:
    return ('<div class="pun"><div class="post post--12"><a name="12"></a><div class="postmain">'
            '<div id="p12" class="posthead"><h2><img src="https://illiweb.com/fa/empty.gif" '
            f'alt="" /> <a href="/t245-dia-1#12">{_SUBJECT_WITH_DATE}</a> {shown}</h2></div>'
            '<div class="postbody"><div class="user"><h4 class="username"><a href="/u3">Watson'
            '</a></h4></div><div class="post-entry"><div class="entry-content"><div><div>'
            'Voto: Moriarty</div></div></div></div></div></div></div>')


@pytest.mark.parametrize("post", [_phpbb2_post, _punbb_post], ids=["phpbb2", "punbb"])
def test_the_post_date_is_the_lines_last_not_the_subjects(post: Callable[[str], str]) -> None:
    page = ENGINE.parse_page(_edited_template_page("", post("Hoy a las 21:58")), _ctx())
    assert page.posts[0].created_at == datetime(2016, 1, 20, 20, 58, tzinfo=UTC)


@pytest.mark.parametrize("post", [_phpbb2_post, _punbb_post], ids=["phpbb2", "punbb"])
def test_an_unread_post_date_is_not_replaced_by_the_subjects(
        post: Callable[[str], str]) -> None:
    # Before: a date format not known ("20.01.16 21:58", two-digit year) let the subject's
    # "Lun 18 Ene 2016, 22:00" stand for the post's date, with exit 0: a vote moved two days
    # across the deadline. Now the post stops the count.
    with pytest.raises(NotAThreadPage) as caught:
        ENGINE.parse_page(_edited_template_page("", post("20.01.16 21:58")), _ctx())
    assert str(caught.value).startswith(f"Forumotion: {TOPIC}: not a thread page (post 12: "
                                        "cannot read the date in '")
    assert str(caught.value).endswith("Lun 18 Ene 2016, 22:00 20.01.16 21:58')")


def test_a_guests_post_on_the_mobile_version_is_named_without_the_by_word() -> None:
    post = ('<div id="p12" class="post-section row1 post--12"><div class="post-head">'
            '<div class="post-info"><div class="h3">Hoy a las 21:00</div>'
            '<div class="post-details">por Invitado Misterioso</div></div></div>'
            '<div class="post-content">Voto: Moriarty</div></div>')
    page = ENGINE.parse_page(_edited_template_page(' id="mpage-body-modern"', post), _ctx())
    assert "theme: mobile" in page.notes
    (guest,) = page.posts
    assert (guest.author, guest.author_id, guest.body.own) == (
        "Invitado Misterioso", None, "Voto: Moriarty")


def test_a_date_split_by_markup_that_ends_the_line_still_reads() -> None:
    post = ('<div id="p12" class="post row2 post--12"><p class="author">por <a href="/u3">'
            'Watson</a> <strong>Hoy</strong> a las 21:00</p><div class="content"><div>'
            'voto: Moriarty</div></div></div>')
    page = ENGINE.parse_page(_edited_template_page(' id="phpbb"', post), _ctx())
    assert page.posts[0].created_at == datetime(2016, 1, 20, 20, 0, tzinfo=UTC)
