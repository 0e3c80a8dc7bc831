"""phpBB adapter: saved pages (fixtures/phpbb/), URLs, dates, edit notices, errors."""

from __future__ import annotations

import random
import re
from datetime import datetime
from pathlib import Path

import casefiles
import pytest
from lxml import etree

from tally import times
from tally.adapters.base import PageContext
from tally.adapters.html import parser_encoding
from tally.adapters.phpbb import _MAY_NUMBER, PhpBB, _parse, read_edit, read_shown_time
from tally.errors import NotAThreadPage, TruncatedPage

ENGINE = PhpBB()
CASES = casefiles.case_dirs("phpbb")
ERRORS = casefiles.FIXTURES / "phpbb" / "errors"
KIRA = casefiles.FIXTURES / "phpbb" / "kira-en"
TOPIC = "https://forum.example.org/viewtopic.php?f=3&t=412"


def _ctx(url: str = TOPIC, fetched: str = "2016-01-18T03:20:00Z", zone: str = "UTC",
         per_page: int | None = None) -> PageContext:
    return PageContext(url=url, fetched_at=times.parse_iso(fetched), zone=zone, per_page=per_page)


def _kira_page(number: int) -> bytes:
    return (KIRA / f"page-{number}.html").read_bytes()


# --- saved pages ------------------------------------------------------------------------------


def test_every_flavour_has_a_case() -> None:
    assert {"kira-en", "spanish-30", "phpbb2-en", "subsilver2-en", "subsilver2-fr"} <= {p.name for p in CASES}


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_case(case_dir: Path) -> None:
    casefiles.check_case(ENGINE, case_dir)


def test_kira_thread_is_sixty_posts_in_order_with_permalinks() -> None:
    case = casefiles.load_case(KIRA)
    posts = [post for saved in case.pages for post in ENGINE.parse_page(saved.data, saved.ctx).posts]
    assert [p.position for p in posts] == list(range(1, 61))
    assert [p.created_at for p in posts] == sorted(p.created_at for p in posts)
    assert posts[2].permalink == "https://forum.example.org/viewtopic.php?p=5003#p5003"
    assert {p.author for p in posts} == {"Ryuk", "Alice", "Bob", "Carol", "Dan", "Eve", "Frank",
                                         "Grace", "Heidi", "Ivan", "Judy", "Watari"}


def test_kira_pages_link_and_count() -> None:
    case = casefiles.load_case(KIRA)
    pages = [ENGINE.parse_page(saved.data, saved.ctx) for saved in case.pages]
    assert [(p.number, p.count) for p in pages] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert [p.next_url for p in pages] == [f"{TOPIC}&start=15", f"{TOPIC}&start=30",
                                           f"{TOPIC}&start=45", None]
    assert {(p.thread_id, p.title) for p in pages} == {("412", "Kira Game 7 — Day 1")}
    assert pages[0].notes == ("footer says 'All times are UTC'",)


@pytest.mark.parametrize("label", ["²", "③", "٣"])
def test_a_page_link_in_other_digits_is_read_or_left_not_a_crash(label: str) -> None:
    """str.isdigit() takes "²" and "③", which int() refuses: such a label is no page number;
    Arabic-Indic "٣" is a decimal digit, read as 3."""
    data = _kira_page(1).replace(b'role="button">4</a>', f'role="button">{label}</a>'.encode(), 1)
    page = ENGINE.parse_page(data, _ctx(f"{TOPIC}&start=²"))
    assert (page.number, page.count, len(page.posts)) == (1, 4, 15)  # "1 / 4" is shown


def test_per_page_comes_from_the_links_or_the_game_file() -> None:
    # The board shows 15 per page; with no per_page given it is read off the start= links.
    page = ENGINE.parse_page(_kira_page(2), _ctx(f"{TOPIC}&start=15"))
    assert page.posts[0].position == 16
    # A page number shown on the page wins over a URL that says otherwise (?p= links).
    page = ENGINE.parse_page(_kira_page(3), _ctx("https://forum.example.org/viewtopic.php?p=5040"))
    assert (page.number, page.posts[0].position) == (3, 31)


def test_quoted_and_spoilered_votes_are_not_own_text() -> None:
    page = ENGINE.parse_page(_kira_page(4), _ctx(f"{TOPIC}&start=45"))
    quoting = page.posts[0]
    assert quoting.id == "5046"
    assert quoting.body.own == "Still not convinced by this."
    assert quoting.body.quotes[0].author == "Bob"
    assert "vote: Dan" in quoting.body.quotes[0].text
    assert "Sun Jan 17" not in quoting.body.quotes[0].text  # the cite's date is not quote text
    spoiler = ENGINE.parse_page(_kira_page(3), _ctx(f"{TOPIC}&start=30")).posts[11]
    assert (spoiler.id, spoiler.body.spoilers) == ("5042", ("vote: Judy",))
    assert "vote: Judy" not in spoiler.body.own


# --- a post in isolation ------------------------------------------------------------------------

POST = """<!DOCTYPE html><html><head><meta charset="utf-8"><title>T</title></head>
<body id="phpbb" class="section-viewtopic"><div id="page-body">
<h2 class="topic-title"><a href="./viewtopic.php?t=9">T</a></h2>
<div id="p77" class="post has-profile bg2{extra_class}"><div class="inner">
<dl class="postprofile" id="profile77"><dt><a href="./memberlist.php?mode=viewprofile&amp;u=5"
 class="username">Bob</a></dt></dl>
<div class="postbody"><div id="post_content77">
<p class="author"><span class="responsive-hide">by <strong><a href="./memberlist.php?mode=viewprofile&amp;u=5"
 class="username">Bob</a></strong> &raquo; </span>{date}</p>
<div class="content">{content}</div>{notice}
</div></div></div></div>
</div></body></html>"""


def _one_post(content: str = "hello", date: str = "Sun Jan 17, 2016 12:02 pm", notice: str = "",
              extra_class: str = "", **ctx: str):
    html = POST.format(content=content, date=date, notice=notice, extra_class=extra_class)
    page = ENGINE.parse_page(html.encode(), _ctx("https://f.example/viewtopic.php?t=9", **ctx))
    assert len(page.posts) == 1
    return page.posts[0]


def test_machine_time_wins_and_a_disagreeing_display_is_noted() -> None:
    post = _one_post(date='<time datetime="2016-01-17T12:02:41+00:00">Sun Jan 17, 2016 1:02 pm'
                          "</time>")
    assert post.created_at == datetime(2016, 1, 17, 12, 2, 41, tzinfo=times.UTC)
    assert post.time_text == "Sun Jan 17, 2016 1:02 pm"
    assert len(post.notes) == 1
    assert "'Sun Jan 17, 2016 1:02 pm'" in post.notes[0] and "machine time" in post.notes[0]


def test_machine_time_agreeing_in_the_board_zone_has_no_note() -> None:
    # 12:02 UTC is 13:02 in Madrid in January: the display text agrees.
    post = _one_post(date='<time datetime="2016-01-17T12:02:41+00:00">Dom 17 Ene 2016, 13:02'
                          "</time>", zone="Europe/Madrid")
    assert post.notes == ()


@pytest.mark.parametrize(("fetched", "shown", "utc"), [
    ("2016-01-20T10:00:00Z", "Today, 9:15 am", "2016-01-20T09:15:00Z"),
    ("2016-01-21T10:00:00Z", "Today, 9:15 am", "2016-01-21T09:15:00Z"),
    ("2016-01-20T10:00:00Z", "Yesterday, 11:58 pm", "2016-01-19T23:58:00Z"),
    ("2016-03-01T00:30:00Z", "Yesterday, 11:58 pm", "2016-02-29T23:58:00Z"),
    ("2016-01-20T10:00:00Z", "less than a minute ago", "2016-01-20T10:00:00Z"),
    ("2016-01-20T10:00:00Z", "7 minutes ago", "2016-01-20T09:53:00Z"),
])
def test_relative_dates_resolve_against_the_fetch_time(fetched: str, shown: str, utc: str) -> None:
    post = _one_post(date=shown, fetched=fetched)
    assert post.created_at == times.parse_iso(utc)
    assert post.time_text == shown


def test_relative_spanish_dates_use_the_board_zone() -> None:
    # Fetched 23:30 UTC = 00:30 on the 21st in Madrid: "Hoy" is the 21st there, "Ayer" the 20th.
    today = _one_post(date="Hoy, 00:10", fetched="2016-01-20T23:30:00Z", zone="Europe/Madrid")
    assert today.created_at == times.parse_iso("2016-01-20T23:10:00Z")
    yesterday = _one_post(date="Ayer, 23:50", fetched="2016-01-20T23:30:00Z",
                          zone="Europe/Madrid")
    assert yesterday.created_at == times.parse_iso("2016-01-20T22:50:00Z")


@pytest.mark.parametrize(("shown", "wall"), [
    ("Sun Jan 17, 2016 12:02 pm", datetime(2016, 1, 17, 12, 2)),
    ("Sun Jan 17, 2016 12:02 am", datetime(2016, 1, 17, 0, 2)),
    ("Dom 17 Ene 2016, 12:02", datetime(2016, 1, 17, 12, 2)),
    ("Dom Ene 17, 2016 12:02 pm", datetime(2016, 1, 17, 12, 2)),
    ("Mar 19 Ene 2016, 21:58", datetime(2016, 1, 19, 21, 58)),  # "Mar" is Tuesday, not March
    ("17 Jan 2016, 23:59:59", datetime(2016, 1, 17, 23, 59, 59)),
    ("2016-01-17 08:05", datetime(2016, 1, 17, 8, 5)),
])
def test_tolerant_date_tokenizer(shown: str, wall: datetime) -> None:
    assert read_shown_time(shown, datetime(2016, 2, 1, 12, 0)) == wall


def test_a_date_it_cannot_read_names_the_post() -> None:
    with pytest.raises(Exception, match=r"phpBB: https://f\.example/viewtopic\.php\?t=9: post 77: "
                                        r"cannot read the date 'whenever'"):
        _one_post(date="whenever")


def test_nested_quote_is_one_outer_quote() -> None:
    post = _one_post(content='<blockquote><div><cite>Ann wrote:</cite><blockquote><div><cite>Bob '
                             'wrote:</cite>vote: Cid</div></blockquote>inner reply</div>'
                             '</blockquote>vote: Dee')
    assert post.body.own == "vote: Dee"
    assert [q.author for q in post.body.quotes] == ["Ann"]
    assert "vote: Cid" in post.body.quotes[0].text and "inner reply" in post.body.quotes[0].text


def test_uncited_quote_code_and_bold_forms() -> None:
    post = _one_post(content='<blockquote class="uncited"><div>vote: Ann</div></blockquote>'
                             '<b>vote: Bo</b><br /><span style="font-weight: bold">##vote Cy</span>'
                             '<div class="codebox"><p>Code: <a href="#">Select all</a></p><pre>'
                             '<code>vote: Dee</code></pre></div>')
    assert post.body.own == "vote: Bo\n##vote Cy"
    assert post.body.bold == ("vote: Bo", "##vote Cy")
    assert post.body.quotes[0].author is None and post.body.code == ("vote: Dee",)


@pytest.mark.parametrize(("notice", "editor", "edited", "count"), [
    (('Last edited by <a href="./memberlist.php?mode=viewprofile&amp;u=2" class="username-coloured"'
     ' style="color: #00AA00;">Ryuk</a> on Sun Jan 17, 2016 4:05 pm, edited 3 times in total.'
     "<br /><strong>Reason:</strong> fixed tags"), "Ryuk", "2016-01-17T16:05:00Z", 3),
    ("Última edición por Zven el Miér 20 Ene 2016, 09:19, editado 1 vez en total.",
     "Zven", "2016-01-20T09:19:00Z", 1),
    ("Last edited by Alice on Sun Jan 17, 2016 12:10 pm; edited 2 times in total",
     "Alice", "2016-01-17T12:10:00Z", 2),
    ("Ultima edición por Pepe el Dom 17 Ene 2016, 12:10, editado 4 veces",
     "Pepe", "2016-01-17T12:10:00Z", 4),
])
def test_edit_notices_english_and_spanish(notice: str, editor: str, edited: str,
                                          count: int) -> None:
    post = _one_post(notice=f'<div class="notice">{notice}</div>')
    assert post.edit is not None
    assert (post.edit.editor, post.edit.edited_at, post.edit.times) == \
        (editor, times.parse_iso(edited), count)
    assert "edit" in post.edit.text.lower() or "edici" in post.edit.text.lower()


def test_read_edit_ignores_text_that_is_no_edit_notice() -> None:
    assert read_edit("This post was reported.", None, datetime(2016, 1, 1), "UTC") is None


def test_deleted_notice_marks_the_post_deleted_not_edited() -> None:
    post = _one_post(extra_class=" deleted", notice='<div class="post-notice deleted"><strong>This '
                     "post was deleted by Ryuk on Sun Jan 17, 2016 5:00 pm.</strong></div>")
    assert post.deleted is True and post.edit is None
    soft = _one_post(notice='<div class="notice post_deleted_msg">This post was deleted by Ryuk '
                            "on Sun Jan 17, 2016 5:00 pm.</div>")
    assert soft.deleted is True and soft.edit is None


def test_guest_author_has_no_account_id() -> None:
    html = POST.format(content="hi", date="Sun Jan 17, 2016 12:02 pm", notice="", extra_class="")
    html = html.replace('<a href="./memberlist.php?mode=viewprofile&amp;u=5"\n class="username">'
                        "Bob</a>", "Casper").replace(
        '<strong><a href="./memberlist.php?mode=viewprofile&amp;u=5"\n class="username">Bob</a>'
        "</strong>", "<strong>Casper</strong>")
    post = ENGINE.parse_page(html.encode(), _ctx("https://f.example/viewtopic.php?t=9")).posts[0]
    assert (post.author, post.author_id) == ("Casper", None)


def test_footer_zone_that_disagrees_with_the_game_file_is_noted() -> None:
    page = ENGINE.parse_page(_kira_page(1), _ctx(f"{TOPIC}&start=0", zone="America/Sao_Paulo"))
    assert page.notes == (("footer says 'All times are UTC', but America/Sao_Paulo was UTC-2 at "
                          "fetch time"),)


# --- URLs -------------------------------------------------------------------------------------


@pytest.mark.parametrize("url", [
    "https://forum.example.org/viewtopic.php?t=412",
    "https://forum.example.org/viewtopic.php?f=3&t=412&start=30",
    "https://forum.example.org/viewtopic.php?p=5003#p5003",
    "https://forum.example.org/community/games/viewtopic.php?f=3&t=412",
    "file:///mirror/forum.example.org/viewtopic4f2a.html?f=3&t=412&start=15",
])
def test_accepts_phpbb_topic_urls(url: str) -> None:
    assert ENGINE.accepts(url)


@pytest.mark.parametrize("url", [
    "https://forum.example.org/viewforum.php?f=3",
    "https://forum.example.org/viewtopic.php",
    "https://laratonera.foroactivo.com/t245-votaciones",
    "https://bbs.example.cn/forum.php?mod=viewthread&tid=8812",
])
def test_rejects_other_urls(url: str) -> None:
    assert not ENGINE.accepts(url)


def test_thread_key_page_url_and_page_number() -> None:
    url = "https://forum.example.org/viewtopic.php?f=3&t=412&start=30&sid=0123abcd#p5040"
    assert ENGINE.thread_key(url) == "t=412"
    assert ENGINE.thread_key("https://forum.example.org/viewtopic.php?p=5003") == "p=5003"
    assert ENGINE.page_number(url) == 4
    assert ENGINE.page_number(url, per_page=15) == 3
    assert ENGINE.page_number("https://forum.example.org/viewtopic.php?t=412") == 1
    assert ENGINE.page_url(url, 1, per_page=15) == f"{TOPIC}&start=0"
    assert ENGINE.page_url(url, 4, per_page=15) == f"{TOPIC}&start=45"
    assert ENGINE.page_url(url, 2) == f"{TOPIC}&start=10"  # phpBB 3 default: 10 per page


def test_normalise_url_strips_sid_and_fragment() -> None:
    url = "https://forum.example.org/viewtopic.php?f=3&sid=9f8e7d6c&t=412&start=15#p5020"
    assert ENGINE.normalise_url(url) == f"{TOPIC}&start=15"


# --- detection and errors ---------------------------------------------------------------------


def test_looks_like_phpbb_pages_only() -> None:
    assert ENGINE.looks_like(_kira_page(1))
    assert ENGINE.looks_like((casefiles.FIXTURES / "phpbb/phpbb2-en/page-1.html").read_bytes())
    assert not ENGINE.looks_like((ERRORS / "discuz.html").read_bytes())
    forumotion = casefiles.FIXTURES / "forumotion" / "espia-phpbb3-es" / "page-1.html"
    if forumotion.exists():  # Forumotion's phpBB3 theme also has body#phpbb: not ours
        assert not ENGINE.looks_like(forumotion.read_bytes())


@pytest.mark.parametrize(("name", "what"), [
    ("login.html", "login page: the thread needs a logged-in account"),
    ("notfound.html", "forum message: Information The requested topic does not exist."),
    ("discuz.html", "a Discuz! page, not phpBB"),
    ("print.html", "the printable view (view=print), whose posts have no ids: save the topic's "
                   "normal pages instead"),
])
def test_not_a_thread_page(name: str, what: str) -> None:
    with pytest.raises(NotAThreadPage) as caught:
        ENGINE.parse_page((ERRORS / name).read_bytes(), _ctx())
    assert str(caught.value) == f"phpBB: {TOPIC}: not a thread page ({what})"


def test_truncated_page() -> None:
    with pytest.raises(TruncatedPage) as caught:
        ENGINE.parse_page((ERRORS / "truncated.html").read_bytes(), _ctx(f"{TOPIC}&start=15"))
    assert str(caught.value) == (f"phpBB: {TOPIC}&start=15: page is cut off after post 5021 "
                                 "(no closing </html>)")


def test_a_post_cut_before_its_message_is_truncated_even_with_a_closing_tag() -> None:
    data = _kira_page(1)
    cut = data[: data.index(b'<div class="content">', data.index(b'id="p5015"'))] + b"</html>"
    with pytest.raises(TruncatedPage, match="post 5015 has no message"):
        ENGINE.parse_page(cut, _ctx(f"{TOPIC}&start=0"))


# --- phpBB 2 ------------------------------------------------------------------------------------


def test_phpbb2_quote_table_signature_and_staff_edit() -> None:
    case = casefiles.load_case(casefiles.FIXTURES / "phpbb" / "phpbb2-en")
    page = ENGINE.parse_page(case.pages[0].data, case.pages[0].ctx)
    by_id = {post.id: post for post in page.posts}
    quoting = by_id["305"]
    assert quoting.body.own == "Agreed.\n##vote Tom"
    assert [(q.author, q.text) for q in quoting.body.quotes] == [("Zoë", "##vote Tom")]
    staff = by_id["310"]
    assert staff.body.own == "##vote Tom" and staff.body.signature == "Rick - mafia since 2003"
    assert staff.edit is not None and staff.edit.editor == "Moderator"
    assert staff.permalink == "http://mafia.example.net/phpBB2/viewtopic.php?p=310#310"
    assert by_id["308"].author_id is None  # a guest has no profile button
    assert page.notes == ("footer says 'All times are GMT - 5 Hours'",)


def test_phpbb2_latin1_page_is_read_as_browsers_read_it() -> None:
    # An ISO-8859-1 board stores what browsers send it: windows-1252, where 0x92 is ’ and 0x80 €.
    case = casefiles.load_case(casefiles.FIXTURES / "phpbb" / "phpbb2-en")
    data = case.pages[0].data.replace(b"Tom's defence is weak.", b"Tom\x92s defence is weak \x80.")
    page = ENGINE.parse_page(data, case.pages[0].ctx)
    assert {p.id: p.body.own for p in page.posts}["306"] == "Tom’s defence is weak €."


# --- windows-1252 pages: decoded by Python's codec (html.parser_input), read as libxml2's iconv
# reads every defined byte; an undefined one as browsers read it, where iconv cut the page ------

PHPBB2 = casefiles.FIXTURES / "phpbb" / "phpbb2-en"
_CP1252_DEFINED = [byte for byte in range(0x80, 0x100) if byte not in (0x81, 0x8D, 0x8F, 0x90, 0x9D)]


def _as_libxml2_reads(data: bytes) -> bytes:
    """The tree libxml2 builds decoding the page itself (what _parse did before it decoded
    windows-1252 in Python), serialised."""
    parser = etree.HTMLParser(encoding=parser_encoding(data), remove_comments=True,
                              collect_ids=False)
    return etree.tostring(etree.fromstring(data, parser=parser))


def _phpbb2_page(number: int = 1) -> bytes:
    return (PHPBB2 / f"page-{number}.html").read_bytes()


def _scattered(data: bytes, seed: int, count: int, values: list[int]) -> bytes:
    """`count` bytes of the page overwritten with `values`, anywhere (tags, attributes, text)."""
    rng = random.Random(seed)
    out = bytearray(data)
    for _ in range(count):
        out[rng.randrange(len(out))] = rng.choice(values)
    return bytes(out)


_MESSAGE = b"Vote with ##vote Name."
_CP1252_PAGES = {
    "page 1": _phpbb2_page(1),
    "page 2": _phpbb2_page(2),
    "every defined byte in a message": _phpbb2_page().replace(
        _MESSAGE, bytes(_CP1252_DEFINED) + _MESSAGE),
    "curly quotes and euro in a name": _phpbb2_page().replace(b"<b>Zo\xeb</b>", b"<b>\x93Zo\x92\x80</b>"),
    "high bytes in attributes": _phpbb2_page().replace(b'class="row1"', b'class="row1 \xe9\x9f"'),
    "a NUL byte": _phpbb2_page().replace(_MESSAGE, b"a\x00b" + _MESSAGE),
    "a UTF-8 byte order mark": b"\xef\xbb\xbf" + _phpbb2_page(),
    "declared windows-1252": _phpbb2_page().replace(b"charset=iso-8859-1", b"charset=windows-1252"),
    **{f"scattered bytes, seed {seed}": _scattered(
        _phpbb2_page(1 + seed % 2), seed, 1 + seed * 3,
        [*_CP1252_DEFINED, 0x09, 0x0A, 0x0D, 0x22, 0x26, 0x27, 0x3C, 0x3D, 0x3E, 0x7F])
       for seed in range(40)},
}


@pytest.mark.parametrize("data", _CP1252_PAGES.values(), ids=_CP1252_PAGES.keys())
def test_windows_1252_page_parses_as_libxml2_decodes_it(data: bytes) -> None:
    assert etree.tostring(_parse(data, parser_encoding(data))) == _as_libxml2_reads(data)


def test_an_undefined_windows_1252_byte_loses_no_post() -> None:
    """libxml2's iconv stopped at 0x81 and dropped the rest of the page, later posts included,
    without an error. Browsers read each undefined byte as the C1 control of that number."""
    case = casefiles.load_case(PHPBB2)
    saved = case.pages[0]
    data = saved.data.replace(_MESSAGE, b"\x81\x9d" + _MESSAGE)
    assert len(etree.fromstring(data, etree.HTMLParser(encoding="cp1252"))[-1]) < 3  # iconv's cut
    page = ENGINE.parse_page(data, saved.ctx)
    original = ENGINE.parse_page(saved.data, saved.ctx)
    assert [p.id for p in page.posts] == [p.id for p in original.posts] and len(page.posts) == 15
    changed = [p for p, o in zip(page.posts, original.posts, strict=True) if p.body != o.body]
    assert len(changed) == 1 and "\x81\x9dVote with ##vote Name." in changed[0].body.own


def test_the_windows_1252_cases_reach_the_python_decoding() -> None:
    assert parser_encoding(_CP1252_PAGES["declared windows-1252"]) == "windows-1252"
    assert sum(parser_encoding(data) in ("cp1252", "windows-1252")
               for data in _CP1252_PAGES.values()) > 30


def test_only_boxes_without_any_digit_skip_the_page_number_reading() -> None:
    # Pagination reads page numbers (str.isdigit, _PAGE_OF's \d) only in boxes _MAY_NUMBER
    # finds something in: it must find every character either could take.
    digits = [chr(code) for code in range(0x110000)
              if chr(code).isdigit() or re.match(r"\d", chr(code))]
    assert len(digits) > 700
    assert all(_MAY_NUMBER.match(digit) for digit in digits)


# phpBB 2 language packs print the editor as plain text ("Zuletzt bearbeitet von X am …"): the
# editor was lost outside en/es/fr, and outside those and pt every notice was no edit at all.
STOCK_PHPBB2 = casefiles.FIXTURES / "phpbb" / "stock-phpbb2"
EN_PHPBB2_NOTICE = b"Last edited by Spike on Wed Nov 18, 2026 9:44 am; edited 1 time in total"


@pytest.mark.parametrize("notice", [
    "Zuletzt bearbeitet von Spike am 18.11.2026, 09:44, insgesamt 1-mal bearbeitet",
    "Laatst aangepast door Spike op wo 18 nov 2026 9:44; in totaal 1 keer bewerkt",
    "Ultima modifica di Spike il Mer Nov 18, 2026 9:44 am, modificato 1 volta in totale",
    "Última edição por Spike em Qua Nov 18, 2026 9:44 am, editado 1 vez no total",
])
def test_a_phpbb2_edit_notice_in_the_boards_language(notice: str) -> None:
    saved = casefiles.load_case(STOCK_PHPBB2).pages[0]
    assert EN_PHPBB2_NOTICE in saved.data
    page = ENGINE.parse_page(saved.data.replace(EN_PHPBB2_NOTICE, notice.encode("cp1252")),
                             saved.ctx)
    post = next(p for p in page.posts if p.id == "704")
    assert post.edit is not None
    assert (post.edit.editor, post.edit.edited_at.isoformat(), post.edit.times) == (
        "Spike", "2026-11-18T14:44:00+00:00", 1)
