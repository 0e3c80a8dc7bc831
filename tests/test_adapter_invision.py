"""Invision (IPB 3.x / IPS 4.x) adapter: saved pages in fixtures/invision/, URLs, times, errors."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import casefiles
import pytest

from tally.adapters.base import PageContext
from tally.adapters.invision import Invision, read_shown
from tally.errors import ForumError, NotAThreadPage, TruncatedPage

ENGINE = Invision()
ERRORS = casefiles.FIXTURES / "invision" / "errors"
TOPIC = "https://mafia.example.ru/topic/4821-golosovanie-den-2/"


# ---------------------------------------------------------------------------------------------
# Saved pages, field by field (fixtures/invision/<case>/expected.json)


@pytest.mark.parametrize("path", casefiles.case_dirs("invision"), ids=lambda p: p.name)
def test_case(path: Path) -> None:
    casefiles.check_case(ENGINE, path)


def test_the_three_cases_exist() -> None:
    names = {path.name for path in casefiles.case_dirs("invision")}
    assert {"mafia-ipb3-ru", "ips4-ru", "ips4-en"} <= names


def _pages(case: str) -> list:
    loaded = casefiles.load_case(casefiles.FIXTURES / "invision" / case)
    return [ENGINE.parse_page(page.data, page.ctx) for page in loaded.pages]


def test_ipb3_pagination_walks_the_thread() -> None:
    pages = _pages("mafia-ipb3-ru")
    assert [p.next_url for p in pages] == [f"{TOPIC}page-2", f"{TOPIC}page-3", None]
    assert [p.thread_id for p in pages] == ["4821"] * 3
    assert pages[0].title == "Голосование. День 2"
    positions = [post.position for page in pages for post in page.posts]
    assert positions == list(range(1, 46))


def test_ipb3_permalink_and_profile() -> None:
    first_post = _pages("mafia-ipb3-ru")[0].posts[0]
    assert first_post.permalink == f"{TOPIC}#entry900101"
    assert (first_post.author, first_post.author_id) == ("Despina", "1")


def test_ips4_positions_continue_from_the_page_offset() -> None:
    pages = _pages("ips4-ru")
    assert [post.position for post in pages[1].posts] == [9, 10, 11, 12]
    assert pages[0].next_url == "https://oboroten.example.ru/topic/915-mafiya-12-novogodnyaya-golosovanie/?page=2"
    assert pages[0].posts[1].permalink.endswith("?do=findComment&comment=3004")


def test_staff_edit_keeps_editor_and_reason_text() -> None:
    post = _pages("mafia-ipb3-ru")[0].posts[7]
    assert post.edit is not None
    assert post.edit.editor == "Despina"
    assert "исправлена опечатка в нике" in post.edit.text
    assert post.body.own == "Азазелло"


# ---------------------------------------------------------------------------------------------
# URLs: IPB 3 query/offset/friendly forms and IPS 4 ?page= and /page/N/ forms


@pytest.mark.parametrize("url", [
    "https://mafia.example.ru/index.php?showtopic=4821",
    "https://mafia.example.ru/index.php?showtopic=4821&st=40",
    f"{TOPIC}page-2",
    "https://mafia.example.ru/index.php?/topic/4821-golosovanie-den-2/page__st__20",
    "https://oboroten.example.ru/topic/915-mafiya-12/?page=2",
    "https://werewolf.example.com/topic/77-game-12-day-3-lynch/page/2/",
])
def test_accepts_and_keys_topic_urls(url: str) -> None:
    assert ENGINE.accepts(url)
    assert ENGINE.thread_key(url) in {"topic=4821", "topic=915", "topic=77"}


@pytest.mark.parametrize("url", [
    "https://forum.example.org/viewtopic.php?f=2&t=4821",
    "https://bbs.example.cn/forum.php?mod=viewthread&tid=88231",
    "https://laratonera.foroactivo.com/t123-votaciones",
    "https://mafia.example.ru/index.php?showforum=12",
])
def test_refuses_other_urls(url: str) -> None:
    assert not ENGINE.accepts(url)


def test_thread_key_is_the_same_on_every_page() -> None:
    keys = {ENGINE.thread_key(ENGINE.page_url(TOPIC, n)) for n in (1, 2, 3)}
    assert keys == {"topic=4821"}


@pytest.mark.parametrize(("url", "number", "per_page", "want"), [
    (TOPIC, 1, None, TOPIC),
    (TOPIC, 3, None, f"{TOPIC}?page=3"),
    (f"{TOPIC}page-2#entry900200", 3, None, f"{TOPIC}page-3"),
    (f"{TOPIC}page-3", 1, None, TOPIC),
    ("https://mafia.example.ru/index.php?showtopic=4821", 2, None,
     "https://mafia.example.ru/index.php?showtopic=4821&page=2"),
    ("https://mafia.example.ru/index.php?showtopic=4821&st=20", 3, None,
     "https://mafia.example.ru/index.php?showtopic=4821&st=40"),
    ("https://mafia.example.ru/index.php?showtopic=4821&st=20", 1, None,
     "https://mafia.example.ru/index.php?showtopic=4821"),
    ("https://mafia.example.ru/index.php?/topic/4821-x/page__st__20", 4, 20,
     "https://mafia.example.ru/index.php?/topic/4821-x/page__st__60"),
    ("https://oboroten.example.ru/topic/915-m/?page=2", 5, 25,
     "https://oboroten.example.ru/topic/915-m/?page=5"),
    ("https://werewolf.example.com/topic/77-g/page/2/", 3, 25,
     "https://werewolf.example.com/topic/77-g/page/3/"),
])
def test_page_url(url: str, number: int, per_page: int | None, want: str) -> None:
    assert ENGINE.page_url(url, number, per_page) == want
    assert ENGINE.page_number(want, per_page) == number


@pytest.mark.parametrize(("url", "per_page", "want"), [
    (TOPIC, None, 1),
    (f"{TOPIC}page-7", None, 7),
    ("https://mafia.example.ru/index.php?showtopic=4821&st=40", None, 3),
    ("https://mafia.example.ru/index.php?showtopic=4821&st=40", 10, 5),
    ("https://mafia.example.ru/index.php?showtopic=4821&page=4#entry12", None, 4),
    ("https://oboroten.example.ru/topic/915-m/?page=2", None, 2),
    ("https://werewolf.example.com/topic/77-g/page/6/", None, 6),
])
def test_page_number(url: str, per_page: int | None, want: int) -> None:
    assert ENGINE.page_number(url, per_page) == want


# ---------------------------------------------------------------------------------------------
# Display times: every form, against a fixed fetch time (Monday 15 January 2018, 22:30 local)

NOW = datetime(2018, 1, 15, 22, 30)


@pytest.mark.parametrize(("text", "want", "has_time"), [
    ("09 October 2017 - 23:20", datetime(2017, 10, 9, 23, 20), True),  # IPB 3 clock_long
    ("09 October 2017 - 11:20 PM", datetime(2017, 10, 9, 23, 20), True),
    ("Сегодня, 21:05", datetime(2018, 1, 15, 21, 5), True),
    ("Вчера, 23:20", datetime(2018, 1, 14, 23, 20), True),
    ("Today, 11:20 PM", datetime(2018, 1, 15, 23, 20), True),
    ("Yesterday, 09:05 AM", datetime(2018, 1, 14, 9, 5), True),
    ("минуту назад", datetime(2018, 1, 15, 22, 29), True),
    ("5 минут назад", datetime(2018, 1, 15, 22, 25), True),
    ("2 часа назад", datetime(2018, 1, 15, 20, 30), True),
    ("1 minute ago", datetime(2018, 1, 15, 22, 29), True),
    ("5 minutes ago", datetime(2018, 1, 15, 22, 25), True),
    ("an hour ago", datetime(2018, 1, 15, 21, 30), True),
    ("Только что", NOW, True),
    ("Just now", NOW, True),
    ("Вчера в 21:58", datetime(2018, 1, 14, 21, 58), True),  # IPS 4
    ("Yesterday at 9:58 PM", datetime(2018, 1, 14, 21, 58), True),
    ("Пятница в 18:40", datetime(2018, 1, 12, 18, 40), True),
    ("Monday at 8:00 AM", datetime(2018, 1, 8, 8, 0), True),  # a week back, not today
    ("9 октября", datetime(2017, 10, 9), False),  # later in the year than "now": last year
    ("5 января", datetime(2018, 1, 5), False),
    ("9 октября, 2017", datetime(2017, 10, 9), False),
    ("October 9, 2017", datetime(2017, 10, 9), False),
    ("March 20", datetime(2017, 3, 20), False),
    ("09.10.2017 23:20", datetime(2017, 10, 9, 23, 20), True),  # IPS 4 title, Russian locale
    ("10/09/2017 09:20  PM", datetime(2017, 10, 9, 21, 20), True),  # IPS 4 title, US English
])
def test_read_shown(text: str, want: datetime, has_time: bool) -> None:
    shown = read_shown(text, NOW)
    assert shown is not None, text
    assert (shown.naive, shown.has_time) == (want, has_time)


@pytest.mark.parametrize("text", ["", "когда-то", "31 February 2017 - 10:00", "Funday at 9:00"])
def test_unreadable_display_times(text: str) -> None:
    assert read_shown(text, NOW) is None


# ---------------------------------------------------------------------------------------------
# Inline IPB 3 pages for what the fixtures do not show: English wording, older quotes, no title

FETCHED = datetime(2017, 10, 11, 8, 0, tzinfo=UTC)


def _ipb3(post_body: str, posted: str, edit: str = "") -> bytes:
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8" /><title>Day 2</title>
<script type='text/javascript'>ipb.vars['board_url'] = 'https://board.example.com';</script></head>
<body id='ipboard_body'><div id='ipbwrapper'>
<p class='pagination no_pages left'>Page 1 of 1</p>
<div class='post_block hentry clear clearfix ' id='post_id_77'><a id='entry77'></a>
<div class='post_wrap'><h3 class='row2'>
<span class='post_id right'><a itemprop="replyToUrl" href='https://board.example.com/index.php?showtopic=9&amp;#entry77'>#1</a></span>
<span itemprop="creator name" class="author vcard"><a hovercard-id="5" href='https://board.example.com/index.php?showuser=5'>Jane Doe</a></span></h3>
<div class='post_body'><p class='posted_info'>Posted {posted}</p>
<div itemprop="commentText" class='post entry-content'>{post_body}<br />{edit}</div></div></div></div>
</div></body></html>""".encode()


def _parse_one(data: bytes, zone: str = "Europe/London"):
    ctx = PageContext(url="https://board.example.com/index.php?showtopic=9", fetched_at=FETCHED,
                      zone=zone)
    page = ENGINE.parse_page(data, ctx)
    assert (page.number, page.count, len(page.posts)) == (1, 1, 1)
    return page.posts[0]


def test_english_ipb3_edit_and_relative_time_without_title() -> None:
    post = _parse_one(_ipb3(
        "<p>vote: Badger</p>", "<abbr class='published'>Today, 08:15 AM</abbr>",
        "<p class='edit'>This post has been edited by Jane Doe: Today, 08:20 AM<br />"
        "<span class='reason'>typo</span></p>"))
    assert (post.author, post.author_id) == ("Jane Doe", "5")
    assert post.created_at == datetime(2017, 10, 11, 7, 15, tzinfo=UTC)  # BST
    assert post.edit is not None
    assert (post.edit.editor, post.edit.edited_at) == (
        "Jane Doe", datetime(2017, 10, 11, 7, 20, tzinfo=UTC))
    assert post.body.own == "vote: Badger"


def test_old_quotetop_quote_names_its_author() -> None:
    post = _parse_one(_ipb3(
        "<div class='quotetop'>Цитата(Фагот @ 9.10.2017, 23:05)</div>"
        "<div class='quotemain'>голосую за Азазелло</div>Азазелло тоже",
        "<abbr class='published' title='2017-10-09T23:20:00+03:00'>09 October 2017 - 23:20</abbr>"),
        zone="Europe/Moscow")
    assert [(q.author, q.text) for q in post.body.quotes] == [("Фагот", "голосую за Азазелло")]
    assert post.body.own == "Азазелло тоже"
    assert post.notes == ()


def test_display_time_in_a_dst_gap_is_reported() -> None:
    post = _parse_one(_ipb3("<p>x</p>", "<abbr class='published'>26 March 2017 - 01:30</abbr>"))
    assert post.created_at == datetime(2017, 3, 26, 1, 30, tzinfo=UTC)
    assert any("DST gap" in note for note in post.notes)


def test_post_without_a_readable_time_names_the_post() -> None:
    with pytest.raises(ForumError, match=r"^Invision: https://board\.example\.com/index\.php\?"
                                        r"showtopic=9: post 77: cannot read the post time"):
        _parse_one(_ipb3("<p>x</p>", "<abbr class='published'>someday</abbr>"))


# ---------------------------------------------------------------------------------------------
# Pages that are not thread pages, and cut downloads

ERROR_URL = "https://mafia.example.ru/topic/4821-golosovanie-den-2/"


def _ctx() -> PageContext:
    return PageContext(url=ERROR_URL, fetched_at=FETCHED, zone="Europe/Moscow")


@pytest.mark.parametrize(("file", "what"), [
    ("login-ipb3.html", "login wall: Вход"),
    ("noperm-ipb3.html", "no permission: Вы не можете просматривать эту тему"),
    ("notfound-ips4.html", "error page: Извините, мы не можем найти это! [#2F173/1]"),
    ("challenge-cloudflare.html", "challenge page: Cloudflare"),
    ("phpbb-prosilver.html", "a phpBB page"),
])
def test_not_a_thread_page(file: str, what: str) -> None:
    with pytest.raises(NotAThreadPage) as caught:
        ENGINE.parse_page((ERRORS / file).read_bytes(), _ctx())
    assert str(caught.value) == f"Invision: {ERROR_URL}: not a thread page ({what})"


def test_invision_page_without_posts_is_not_an_empty_page() -> None:
    data = _ipb3("<p>x</p>", "").replace(b"post_id_77", b"something_else")
    with pytest.raises(NotAThreadPage, match=r"not a thread page \(no posts found\)$"):
        ENGINE.parse_page(data, _ctx())


def test_truncated_page() -> None:
    data = (ERRORS / "truncated-ipb3.html").read_bytes()
    with pytest.raises(TruncatedPage) as caught:
        ENGINE.parse_page(data, _ctx())
    assert str(caught.value) == (
        f"Invision: {ERROR_URL}: truncated page (ends before </html> after {len(data)} bytes)")


def test_looks_like() -> None:
    for case in casefiles.case_dirs("invision"):
        for page in casefiles.load_case(case).pages:
            assert ENGINE.looks_like(page.data), page.file
    assert not ENGINE.looks_like((ERRORS / "phpbb-prosilver.html").read_bytes())


def test_an_undefined_byte_on_a_latin_1_board_loses_no_post() -> None:
    """An ISO-8859-1 board is read as windows-1252; libxml2's iconv stopped at a byte that
    table leaves undefined (0x81) and dropped the rest of the page, later posts included."""
    saved = casefiles.load_case(casefiles.FIXTURES / "invision" / "ips4-en").pages[0]
    latin = re.sub(rb"charset=([\"']?)utf-8", rb"charset=\1iso-8859-1", saved.data, flags=re.I)
    marker = b"data-role='commentContent'"
    first = latin.index(marker)
    cut = latin.index(b">", first) + 1
    holed = latin[:cut] + b"\x81" + latin[cut:]
    original = ENGINE.parse_page(saved.data, saved.ctx)
    page = ENGINE.parse_page(holed, saved.ctx)
    assert len(page.posts) == len(original.posts) > 1
    assert [(p.id, p.author, p.created_at) for p in page.posts] == [
        (p.id, p.author, p.created_at) for p in original.posts]
    assert "\x81" in page.posts[0].body.own  # as browsers read it: U+0081


# ---------------------------------------------------------------------------------------------
# Behaviours once checked through the retired byte-level fast path (issue 15), now checked on
# the one reader: what a real board changes in the stock markup must not change the reading.

SAVED = [(f"{case.name}/{page.file}", page) for case in casefiles.case_dirs("invision")
         for page in casefiles.load_case(case).pages]


def _reading(page) -> list[tuple]:
    return [(p.id, p.position, p.author, p.author_id, p.created_at, p.body, p.edit, p.deleted)
            for p in page.posts]


@pytest.mark.parametrize(("name", "saved"), SAVED, ids=[name for name, _ in SAVED])
def test_windows_1251_page_reads_as_its_utf8_original(name: str, saved) -> None:
    """Old Russian boards serve windows-1251: the same posts, names and texts come out."""
    text = saved.data.decode("utf-8")
    if any(ord(c) > 0x7F and c.encode("cp1251", "replace") == b"?" for c in text):
        pytest.skip("characters windows-1251 cannot hold")
    text = re.sub(r"charset=[\"']?utf-8", "charset=windows-1251", text, count=1, flags=re.I)
    assert "windows-1251" in text
    original = ENGINE.parse_page(saved.data, saved.ctx)
    assert _reading(ENGINE.parse_page(text.encode("cp1251"), saved.ctx)) == _reading(original)


@pytest.mark.parametrize(("name", "saved"), SAVED, ids=[name for name, _ in SAVED])
def test_lxml_serialised_page_reads_the_same(name: str, saved) -> None:
    """The page as a browser or lxml writes it back (double quotes, lower-cased attribute
    names, <br>): the same posts."""
    from lxml import etree
    root = etree.fromstring(saved.data, etree.HTMLParser(encoding="utf-8"))
    again = etree.tostring(root, method="html", encoding="utf-8", doctype="<!DOCTYPE html>")
    original = ENGINE.parse_page(saved.data, saved.ctx)
    assert _reading(ENGINE.parse_page(again, saved.ctx)) == _reading(original)


def _first_page(case: str):
    return casefiles.load_case(casefiles.FIXTURES / "invision" / case).pages[0]


def test_group_formatted_name_is_read_as_the_plain_name() -> None:
    """Boards colour a group's names (`<span style=color>`, bold): the name is the text."""
    saved = _first_page("mafia-ipb3-ru")
    data = saved.data.replace(b'<span itemprop="name">Despina</span>',
                              b"<span itemprop=\"name\"><span style='color:red'><strong>Des</strong>"
                              b"pina</span></span>", 1)
    post = ENGINE.parse_page(data, saved.ctx).posts[0]
    assert (post.author, post.author_id) == ("Despina", "1")


def test_ipb3_guest_header_and_extra_wrapper_keep_the_post() -> None:
    saved = _first_page("mafia-ipb3-ru")
    data = saved.data.replace(b"<h3 class='row2'>", b"<h3 class='guest row2'>", 1)
    data = re.sub(rb"(<div class='post_block[^>]*>)", rb"<div class='wrap'>\1", data, count=1)
    data = data.replace(b"<!--post:900102-->", b"</div><!--post:900102-->", 1)
    page = ENGINE.parse_page(data, saved.ctx)
    assert _reading(page) == _reading(ENGINE.parse_page(saved.data, saved.ctx))


def test_time_without_its_machine_title_is_read_from_the_display() -> None:
    """A skin edit that drops the abbr's ISO title: the display "09 October 2017 - 22:00" is
    read in the board's zone (Moscow), to the same instant."""
    saved = _first_page("mafia-ipb3-ru")
    data = re.sub(rb' title="\d{4}-[^"]*"', b"", saved.data, count=1)
    post = ENGINE.parse_page(data, saved.ctx).posts[0]
    assert post.created_at == datetime(2017, 10, 9, 19, 0, tzinfo=UTC)
    assert post.time_text == "09 October 2017 - 22:00"
