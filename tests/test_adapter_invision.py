"""Invision (IPB 3.x / IPS 4.x) adapter: saved pages in fixtures/invision/, URLs, times, errors."""

from __future__ import annotations

import json
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


# ---------------------------------------------------------------------------------------------
# What is not a post (issue 13): skipped and said in Page.notes, or refused when it may be a post

IPS4_AD = (b"<div class='ipsAdvertisement ipsSpacer_both ipsSpacer_half'><ul class='ipsList_inline "
           b"ipsType_center ipsList_reset ipsList_noSpacing'><li class='ipsAdvertisement_large'>"
           b"<a href='https://oboroten.example.ru/index.php?app=core&amp;module=system&amp;"
           b"controller=redirect&amp;do=advertisement&amp;ad=3' target='_blank' rel='nofollow'>"
           b"<img src='https://oboroten.example.ru/uploads/ad.png' alt='\xd0\xa0\xd0\xb5\xd0\xba"
           b"\xd0\xbb\xd0\xb0\xd0\xbc\xd0\xb0'> \xd0\x9a\xd1\x83\xd0\xbf\xd0\xb8\xd1\x82\xd0\xb5"
           b" \xd1\x81\xd0\xbb\xd0\xbe\xd0\xbd\xd0\xb0</a></li></ul></div>")  # "Купите слона"


def _after_first_post(data: bytes, marker: bytes, block: bytes) -> bytes:
    """`block` inserted right before the second post's `marker`."""
    first = data.index(marker)
    second = data.index(marker, first + 1)
    return data[:second] + block + data[second:]


def test_ips4_advertisement_between_posts_is_skipped_and_noted() -> None:
    """theme.xml topic: after the first post, `{$advertisement|raw}` (advertisementImage:
    div.ipsAdvertisement): no post is lost, none is added, and the page says what it skipped."""
    saved = _first_page("ips4-ru")
    data = _after_first_post(saved.data, b"<a id='comment-", IPS4_AD)
    original = ENGINE.parse_page(saved.data, saved.ctx)
    page = ENGINE.parse_page(data, saved.ctx)
    assert _reading(page) == _reading(original)
    assert [n for n in page.notes if "advertisement" in n] == [
        "page 1: skipped an advertisement between the posts (<div class='ipsAdvertisement "
        "ipsSpacer_both ipsSpacer_half'> 'Купите слона'): not a post"]


def test_ipb3_ad_code_between_posts_is_skipped_and_noted() -> None:
    """IPB 3 prints the board's ad_code_topic_view_code after the first post's <hr />: any
    HTML (here AdSense)."""
    saved = _first_page("mafia-ipb3-ru")
    ad = (b"<div class='google_ad'><ins class='adsbygoogle' data-ad-client='ca-pub-1'></ins>"
          b"<script>(adsbygoogle = window.adsbygoogle || []).push({});</script>"
          b"\xd0\xa0\xd0\xb5\xd0\xba\xd0\xbb\xd0\xb0\xd0\xbc\xd0\xb0</div>")  # "Реклама"
    data = _after_first_post(saved.data, b"<!--post:", ad)
    page = ENGINE.parse_page(data, saved.ctx)
    assert _reading(page) == _reading(ENGINE.parse_page(saved.data, saved.ctx))
    assert "page 1: skipped an advertisement between the posts (<div class='google_ad'> 'Реклама'): " \
           "not a post" in page.notes


def test_a_post_without_its_id_between_the_posts_stops_the_reading() -> None:
    """Strict: a block with a post's time and text but no post id is not skipped (a vote
    could be in it): the page is refused, exit 4."""
    saved = _first_page("ips4-ru")
    start = saved.data.index(b"<article ")
    second = saved.data.index(b"<article ", start + 1)
    end = saved.data.index(b"</article>", second) + len(b"</article>")
    stripped = re.sub(rb"id='elComment_\d+'", b"id='x'", saved.data[second:end], count=1)
    data = saved.data[:second] + stripped + saved.data[end:]
    with pytest.raises(ForumError, match=r"^Invision: https://oboroten\.example\.ru/topic/915-"
                                        r"mafiya-12-novogodnyaya-golosovanie/: a block between "
                                        r"the posts has a post's parts but no post id") as caught:
        ENGINE.parse_page(data, saved.ctx)
    assert caught.value.exit_code == 4


def test_ips4_ignored_user_is_read_from_the_hidden_post_and_noted() -> None:
    """postContainer: a user the viewer ignores gets div.ipsComment_ignored ("Вы игнорируете
    …") and the article itself, hidden (ipsHide): the post is still read."""
    saved = _first_page("ips4-ru")
    placeholder = ("<div class='ipsComment ipsComment_ignored ipsType_light' id='elIgnoreComment_3004'"
                   " data-ignoreCommentID='elComment_3004' data-ignoreUserID='7'>Вы игнорируете "
                   "контент от Лиса. <a href='#elIgnoreComment_3004_menu'>Опции</a></div>").encode()
    data = saved.data.replace(b"<a id='comment-3004'></a>", placeholder + b"<a id='comment-3004'></a>", 1)
    data = data.replace(b"id='elComment_3004' class='cPost ipsBox ", b"id='elComment_3004' class='cPost ipsBox ipsHide ", 1)
    page = ENGINE.parse_page(data, saved.ctx)
    assert _reading(page) == _reading(ENGINE.parse_page(saved.data, saved.ctx))
    post = next(p for p in page.posts if p.id == "3004")
    assert f"page 1: post 3004 by {post.author} is collapsed for the viewer (an ignored user); " \
           "read from the page" in page.notes


def test_hidden_posts_are_kept_and_noted() -> None:
    """A post a moderator hid is a post (C6 needs to know it was there): kept, deleted, noted."""
    page = _pages("ips4-ru")[0]
    hidden = [post for post in page.posts if post.deleted]
    assert [p.id for p in hidden] == ["3022"]
    assert page.notes == ("page 1: post 3022 by Сова is shown hidden, queued or deleted (IPS 4 "
                          "ipsModerated): kept, its text is not counted",)


def test_guest_sign_in_prompt_is_noted() -> None:
    saved = _first_page("mafia-ipb3-ru")
    button = ("<ul class='topic_buttons'><li class='disabled'><span>Авторизуйтесь для ответа в "
              "теме</span></li></ul>").encode()
    data = saved.data.replace(b"<ul class='topic_buttons'>", button + b"<ul class='topic_buttons'>", 1)
    page = ENGINE.parse_page(data, saved.ctx)
    assert "a guest's view: skipped the sign-in prompt ('Авторизуйтесь для ответа в теме'): " \
           "not a post" in page.notes


# ---------------------------------------------------------------------------------------------
# Which topic a page shows, from the page itself (issue 16)


def test_thread_id_comes_from_the_page_not_from_the_url_it_was_read_at() -> None:
    saved = _first_page("mafia-ipb3-ru")
    elsewhere = casefiles.PageContext(url="https://mafia.example.ru/topic/77-other/",
                                      fetched_at=saved.ctx.fetched_at, zone=saved.ctx.zone)
    assert ENGINE.parse_page(saved.data, elsewhere).thread_id == "4821"
    saved4 = _first_page("ips4-en")
    assert ENGINE.parse_page(saved4.data, elsewhere).thread_id == "77"


@pytest.mark.parametrize(("cut", "want"), [
    ((), "4821"),  # the canonical link
    ((rb"<link rel=\"canonical\"[^>]*>",), "4821"),  # the forms' t
    ((rb"<link rel=\"canonical\"[^>]*>", rb"<input type='hidden' name='t'[^>]*>"), "4821"),  # permalinks
])
def test_thread_id_from_each_place_the_page_says_it(cut: tuple[bytes, ...], want: str) -> None:
    saved = _first_page("mafia-ipb3-ru")
    data = saved.data
    for pattern in cut:
        data, found = re.subn(pattern, b"", data)
        assert found, pattern
    assert ENGINE.parse_page(data, saved.ctx).thread_id == want


def test_thread_id_is_none_when_the_page_does_not_say() -> None:
    data = _ipb3("<p>x</p>", "<abbr class='published' title='2017-10-09T23:20:00+03:00'>"
                 "09 October 2017 - 23:20</abbr>").replace(b"showtopic=9&amp;", b"")
    ctx = PageContext(url="https://board.example.com/index.php?showtopic=9", fetched_at=FETCHED,
                      zone="Europe/London")
    assert ENGINE.parse_page(data, ctx).thread_id is None


# ---------------------------------------------------------------------------------------------
# End to end on the real-markup guest pages: the count, and what the reader skipped in the GM
# report's "Reading the thread"

GUEST_IPB3 = casefiles.FIXTURES / "invision" / "ipb3-guest-ru"


def test_mafia_ru_day_counted_from_the_ipb3_guest_pages() -> None:
    """fixtures/invision/ipb3-guest-ru/README.md: Азазелло 4, Бегемот 3, Воланд 1; Гелла's
    second vote void (R2); Азазелло leaves (R3). The ad code and the sign-in prompt are
    skipped and said."""
    from typer.testing import CliRunner

    from tally.cli import app

    result = CliRunner().invoke(app, ["count", str(GUEST_IPB3 / "game.toml"), "--from",
                                      str(GUEST_IPB3), "--fetched-at", "2017-10-11T18:58:00Z",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [(c["player"], c["votes"], c["voters"]) for c in report["counts"]] == [
        ("Азазелло", 4, ["Маргарита", "Бегемот", "Гелла", "Мастер"]),
        ("Бегемот", 3, ["Воланд", "Коровьев", "Азазелло"]),
        ("Воланд", 1, ["Берлиоз"])]
    assert (report["outcome"]["result"], report["outcome"]["player"], report["outcome"]["rule"]) == (
        "eliminated", "Азазелло", "R3")
    assert any("910209" in flag["message"] and flag["rule"] == "R2" for flag in report["gm"]["flags"])
    assert report["gm"]["reading"] == [
        "page 1: skipped an advertisement between the posts (<div class='ad_topic_view'> "
        "'Реклама'): not a post",
        "a guest's view: skipped the sign-in prompt ('Авторизуйтесь для ответа в теме'): not a post"]

    text = CliRunner().invoke(app, ["count", str(GUEST_IPB3 / "game.toml"), "--from", str(GUEST_IPB3),
                                    "--fetched-at", "2017-10-11T18:58:00Z", "--format", "text",
                                    "--lang", "en"])  # the mafia-ru game's own is Russian
    assert text.exit_code == 0, text.output
    reading = text.stdout.split("Reading the thread:\n", 1)[1]
    assert reading.startswith("  - page 1: skipped an advertisement between the posts")


def test_ips4_guest_pages_say_what_they_skipped() -> None:
    """fixtures/invision/ips4-guest-ru (real theme.xml markup): the advertisement after the
    first post and the sign-in teaser are skipped and said; seven posts read, none lost."""
    pages = _pages("ips4-guest-ru")
    assert [len(page.posts) for page in pages] == [5, 2]
    assert {page.thread_id for page in pages} == {"7341"}
    assert pages[0].notes == (
        "page 1: skipped an advertisement between the posts (<div class='ipsAdvertisement "
        "ipsSpacer_both ipsSpacer_half'> 'image: Реклама'): not a post",
        "a guest's view: skipped the sign-in prompt ('Создайте аккаунт или войдите для "
        "комментирования'): not a post")
    assert pages[1].notes == pages[0].notes[1:]


def test_ipb3_queued_and_soft_deleted_rows_are_kept_and_noted() -> None:
    """skin_topic.php: a queued post (class moderated, a moderator's view) and the
    softDeletedPostBit row ("Сообщение удалено …") are posts: kept as deleted, noted."""
    page = _pages("mafia-ipb3-ru")[0]
    assert [(p.id, p.author) for p in page.posts if p.deleted] == [("900180", "Алоизий"),
                                                                  ("900193", "Соков")]
    assert page.notes == (
        "page 1: post 900180 by Алоизий is shown hidden, queued or deleted (IPB 3 moderated): "
        "kept, its text is not counted",
        "page 1: post 900193 by Соков is shown hidden, queued or deleted (IPB 3 moderated): "
        "kept, its text is not counted")


def test_ipb3_ignored_user_is_read_from_the_hidden_post_wrap_and_noted() -> None:
    """skin_topic.php `post`: for an ignored user IPB 3 prints div.post_ignore ("Это сообщение
    скрыто, так как вы решили игнорировать сообщения от …") and hides the post_wrap."""
    saved = _first_page("mafia-ipb3-ru")
    placeholder = ("<div class='post_ignore'>Это сообщение скрыто, так как вы решили игнорировать "
                   "сообщения от Воланд. <a href='#entry900102' style='display: none' "
                   "id='unhide_post_900102'>Показать?</a></div>").encode()
    marker = b"<a id='entry900102'></a>"
    assert marker in saved.data
    data = saved.data.replace(marker, marker + placeholder, 1)
    page = ENGINE.parse_page(data, saved.ctx)
    assert _reading(page) == _reading(ENGINE.parse_page(saved.data, saved.ctx))
    assert "page 1: post 900102 by Воланд is collapsed for the viewer (an ignored user); read " \
           "from the page" in page.notes


# ---------------------------------------------------------------------------------------------
# The reader skips the date grammar when a display is the machine time in a stock form: that
# must be exactly when the grammar would find them agreeing (no note, the machine time).

from datetime import timedelta  # noqa: E402
from zoneinfo import ZoneInfo  # noqa: E402

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from lxml import html as lxml_html  # noqa: E402

from tally.adapters import invision  # noqa: E402


def _reader(zone: str, fetched_at: datetime):
    ctx = PageContext(url=TOPIC, fetched_at=fetched_at, zone=zone)
    root = lxml_html.document_fromstring("<html><body></body></html>")
    return invision._Reader(ENGINE, invision.IPB3, root, {}, ctx)


@settings(max_examples=300, deadline=None)
@given(machine=st.datetimes(min_value=datetime(1995, 1, 1), max_value=datetime(2035, 1, 1),
                            timezones=st.just(UTC)),
       zone=st.sampled_from(["Europe/Moscow", "Europe/Berlin", "America/New_York", "UTC"]),
       later=st.timedeltas(min_value=timedelta(0), max_value=timedelta(days=3)))
def test_stock_displays_are_those_the_date_grammar_agrees_with(machine: datetime, zone: str,
                                                                later: timedelta) -> None:
    reader = _reader(zone, machine + later)
    for display in reader._stock_displays(machine):
        assert reader.when("1", machine, (display,)) == (machine, ()), display
    local = machine.astimezone(ZoneInfo(zone))
    off_by_one = f"{local.day:02d}.{local.month:02d}.{local.year} {(local.hour + 2) % 24:02d}:{local.minute:02d}"
    assert off_by_one not in reader._stock_displays(machine)


@pytest.mark.parametrize("machine", [datetime(2017, 10, 29, 0, 30, tzinfo=UTC),  # 02:30 CEST
                                     datetime(2017, 10, 29, 1, 30, tzinfo=UTC)])  # 02:30 CET
def test_a_display_in_the_hour_clocks_go_back_agrees_with_either_instant(machine: datetime) -> None:
    reader = _reader("Europe/Berlin", machine + timedelta(hours=5))
    assert reader.when("1", machine, ("29 October 2017 - 02:30",)) == (machine, ())
    assert reader.when("1", machine, ("29 October 2017 - 03:45",))[1] != ()  # a real disagreement


# ---------------------------------------------------------------------------------------------
# Invision Community 5 (fixtures/invision/ic5-ru, rendered from the real 5.0.14 templates)

IC5 = casefiles.FIXTURES / "invision" / "ic5-ru"
_IC5_HEADER_POST = re.compile(rb"<!-- First post of modern view -->.*?</article>", re.DOTALL)


def test_ic5_first_post_heading_every_page_is_read_once() -> None:
    """The "first post" topic layout prints post 70101 above the feed on both pages; it is
    post 1 of page 1 and is left out of page 2, said so; the feed's positions follow it."""
    pages = _pages("ic5-ru")
    ids = [post.id for page in pages for post in page.posts]
    assert ids == [str(cid) for cid in range(70101, 70109)]
    assert [post.position for page in pages for post in page.posts] == list(range(1, 9))
    teaser = ("a guest's view: skipped the sign-in prompt ('Создайте аккаунт или войдите для "
              "комментирования'): not a post")
    assert pages[1].notes == (
        "page 2: the topic's first post 70101 heads the page again (Invision Community 5 "
        "'first post' layout): read on page 1",
        "page 2: skipped a block between the posts (<ul class='ipsTopicMeta'> '9 часов спустя'): "
        "not a post", teaser)
    assert pages[0].notes == ("page 1: skipped an advertisement between the posts "
                              "(<div class=''> 'image: Реклама'): not a post", teaser)


def test_ic5_feed_only_pages_read_the_name_and_follow_the_pagination() -> None:
    """Without the header post (the board's other topic layout) every post is in the feed: the
    name is the userLink's text, not the heading's "Name Group", and page 1 links page 2 by
    ipsPagination__next (li.ipsPagination__active says which page this is)."""
    loaded = casefiles.load_case(IC5)
    first, second = (ENGINE.parse_page(_IC5_HEADER_POST.sub(b"", page.data, count=1), page.ctx)
                     for page in loaded.pages)
    assert [(p.id, p.author, p.author_id) for p in first.posts[:2]] == [
        ("70102", "Воланд", "14"), ("70103", "Маргарита", "22")]
    assert (first.number, first.count, first.next_url) == (
        1, 2, "https://mafia-klub.example.ru/topic/412-den-2-golosovanie/page/2/")
    assert (second.number, second.count, second.next_url) == (2, 2, None)
    assert second.title == "День 2. Голосование"


def test_ic5_hidden_post_is_kept_and_noted() -> None:
    """postContainer adds ipsModerated to a hidden post (a moderator's view): kept, deleted."""
    saved = casefiles.load_case(IC5).pages[1]
    data = saved.data.replace(b'id="elComment_70107" class="\n\t\tipsEntry js-ipsEntry ',
                              b'id="elComment_70107" class="\n\t\tipsEntry js-ipsEntry ipsModerated ', 1)
    assert data != saved.data
    page = ENGINE.parse_page(data, saved.ctx)
    assert [(p.id, p.deleted) for p in page.posts] == [
        ("70106", False), ("70107", True), ("70108", False)]
    assert ("page 2: post 70107 by Гелла is shown hidden, queued or deleted (IPS 4 ipsModerated): "
            "kept, its text is not counted") in page.notes


# ---------------------------------------------------------------------------------------------
# IPS 4.7 (fixtures/invision/ips47-guest-ru: the structure of a real saved 4.7 topic page)

GUEST_IPS47 = casefiles.FIXTURES / "invision" / "ips47-guest-ru"


def test_mafia_ru_day_counted_from_the_ips47_guest_pages() -> None:
    """fixtures/invision/ips47-guest-ru/README.md: Азазелло 4, Бегемот 3; Гелла's second
    vote void (R2); Берлиоз's 21:05 vote late, so he did not vote (R9); Азазелло leaves (R3).
    The quote of Воланд's vote and Азазелло's joke vote in a spoiler count for nobody."""
    from typer.testing import CliRunner

    from tally.cli import app

    result = CliRunner().invoke(app, ["count", str(GUEST_IPS47 / "game.toml"), "--from",
                                      str(GUEST_IPS47), "--fetched-at", "2024-03-12T18:30:00Z",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [(c["player"], c["votes"], c["voters"]) for c in report["counts"]] == [
        ("Азазелло", 4, ["Маргарита", "Бегемот", "Гелла", "Мастер"]),
        ("Бегемот", 3, ["Воланд", "Коровьев", "Азазелло"])]
    assert (report["outcome"]["result"], report["outcome"]["player"], report["outcome"]["rule"]) == (
        "eliminated", "Азазелло", "R3")
    flags = {(flag["rule"], flag["message"]) for flag in report["gm"]["flags"]}
    assert any(rule == "R2" and "81008" in message for rule, message in flags)
    assert any(rule == "R9" and "Берлиоз" in message and "81010" in message for rule, message in flags)
    assert report["gm"]["reading"] == [
        "page 1: skipped an advertisement between the posts (<div class='ipsAdvertisement "
        "ipsSpacer_both ipsSpacer_half'> 'image: Реклама'): not a post",
        "a guest's view: skipped the sign-in prompt ('Создайте аккаунт или войдите для "
        "комментирования'): not a post"]


def test_mafia_ru_day_counted_from_the_ic5_guest_pages() -> None:
    """fixtures/invision/ic5-ru: the GM's first post heads both pages and is read once; Азазелло
    4, Бегемот 2 (Воланд's second post at 21:05 is after the deadline); Азазелло leaves (R3)."""
    from typer.testing import CliRunner

    from tally.cli import app

    result = CliRunner().invoke(app, ["count", str(IC5 / "game.toml"), "--from", str(IC5),
                                      "--fetched-at", "2024-03-12T18:30:00Z", "--format", "json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert [(c["player"], c["votes"], c["voters"]) for c in report["counts"]] == [
        ("Азазелло", 4, ["Маргарита", "Бегемот", "Коровьев", "Гелла"]),
        ("Бегемот", 2, ["Воланд", "Азазелло"])]
    assert (report["outcome"]["result"], report["outcome"]["player"]) == ("eliminated", "Азазелло")


@pytest.mark.parametrize("case", [GUEST_IPS47, IC5], ids=["ips47", "ic5"])
def test_a_missing_page_2_is_not_a_count(case: Path) -> None:
    """Both versions' pages say "2 pages" (ul.ipsPagination[data-pages] and its active item):
    a folder holding page 1 alone is refused (exit 3, issue 16), not counted without page 2."""
    import shutil
    import tempfile

    from typer.testing import CliRunner

    from tally.cli import app

    with tempfile.TemporaryDirectory() as folder:
        for name in ("game.toml", "page-1.html"):
            shutil.copy(case / name, folder)
        result = CliRunner().invoke(app, ["count", f"{folder}/game.toml", "--from", folder,
                                          "--fetched-at", "2024-03-12T18:30:00Z"])
    assert result.exit_code == 3, result.output
    assert "page 2 of 2 missing" in result.output


# ---------------------------------------------------------------------------------------------
# IP.Board 3.0-3.2 quotes: the caption p.citation before div.blockquote > div.quote
# (admin/sources/classes/bbcode/custom/defaults.php `_buildOutput` of IP.Board 3.1.2, in
# jianun/federatednetworks@2cb773b subdomains/support/httpdocs/; English bbc_full_cite
# "%s, on %s, said:"), as a real 3.1/3.2 board serves it: before, the quoted vote was read as
# the quoting player's own

_IPB31_QUOTE = (
    "<p class='citation'><a class='snapback' rel='citation' href='http://mafia-club.example.ru/"
    "index.php?app=forums&amp;module=forums&amp;section=findpost&amp;pid=910202'><img src='"
    "http://mafia-club.example.ru/public/style_images/master/snapback.png' alt='View Post' /></a>"
    "Воланд, on 10 October 2017 - 23:05, said:</p><div class=\"blockquote\"><div class='quote'>"
    "Бегемот</div></div><br />").encode()


@pytest.mark.parametrize("caption", [True, False], ids=["with-citation", "quote-only"])
def test_ipb31_quote_is_not_the_players_own_text(caption: bool) -> None:
    saved = casefiles.load_case(GUEST_IPB3).pages[0]
    stock = ("<blockquote class='ipsBlockquote' data-author=\"Воланд\" data-cid=\"910202\" "
             "data-time=\"1507665900\"><p>Бегемот</p></blockquote><br />").encode()
    assert stock in saved.data
    quote = _IPB31_QUOTE if caption else _IPB31_QUOTE[_IPB31_QUOTE.index(b"<div class=\"block"):]
    page = ENGINE.parse_page(saved.data.replace(stock, quote, 1), saved.ctx)
    post = next(p for p in page.posts if p.id == "910203")
    assert "Бегемот" not in post.body.own and "said" not in post.body.own
    assert "Азазелло" in post.body.own
    assert [(q.author, q.text) for q in post.body.quotes] == [
        ("Воланд" if caption else None, "Бегемот")]


def test_ipb2_topic_page_is_named_not_misread() -> None:
    """IP.Board 1.x/2.x (no saved page of one was found in a public repository; the shape of a
    forumer.com IPB 2.0 post: table rows, span.normalname, span.postdetails "Posted:",
    div.postcolor): not read, and the error says what the page is (exit 4), never a count."""
    data = ("<html><head><title>Mafia -> Day 2</title></head><body>"
            "<!--Begin Msg Number 388658--><table width='100%' border='0' cellspacing='1' "
            "cellpadding='3'><tr><td valign='middle' class='row4' width='1%'><a name='entry388658'>"
            "</a><span class='normalname'><a href='http://mafia.example.ru/index.php?showuser=57'>"
            "Воланд</a></span></td><td class='row4' valign='top' width='99%'><span class='postdetails'>"
            "<b><a title='Show the link to this post' href='#' onclick='link_to_post(388658); return "
            "false;'>Posted:</a></b> August 26, 2007 08:59 am</span></td></tr><tr><td valign='top' "
            "class='post2'></td><td width='100%' valign='top' class='post2'><div class='postcolor'>"
            "Бегемот</div></td></tr></table><div class='copyright'>Powered by Invision Power Board"
            "</div></body></html>").encode()
    with pytest.raises(NotAThreadPage, match=r"not a thread page \(an IP.Board 1.x/2.x topic"):
        ENGINE.parse_page(data, PageContext(url=TOPIC, fetched_at=datetime(2007, 8, 27, tzinfo=UTC),
                                            zone="Europe/Moscow"))


def test_a_post_above_the_feed_without_the_first_post_mark_is_not_left_out() -> None:
    """Only the post IC5 marks data-ips-first-post is taken for the repeated first post: a post
    above the feed without the mark is not dropped from page 2 (its header <time> then stops
    the reading, exit 4, as any block beside the posts that looks like a post)."""
    saved = casefiles.load_case(IC5).pages[1]
    data = saved.data.replace(b" data-ips-first-post>", b">", 1)
    assert data != saved.data
    with pytest.raises(ForumError, match="a block between the posts has a post's parts but no post id"):
        ENGINE.parse_page(data, saved.ctx)


@pytest.mark.parametrize(("url", "post"), [
    ("https://mafia-klub.example.ru/topic/412-den-2-golosovanie/page/2/#findComment-70109", "70109"),
    ("https://mafia-klub.example.ru/topic/412-den-2-golosovanie/?do=findComment&comment=70109", "70109"),
    ("https://forum.mafia-virt.example.ru/topic/8812-den-4-golosovanie/page/2/#comment-81011", "81011"),
    ("http://mafia-club.example.ru/index.php?showtopic=5120&view=findpost&p=910213", "910213")])
def test_the_reply_finds_the_new_post_in_each_versions_redirect(url: str, post: str) -> None:
    """Where a reply lands: IC5 redirects to the shareable URL …/page/N/#findComment-ID
    (Comment::shareableUrl), IPS 4 to ?do=findComment&comment=ID or #comment-ID, IPB 3 to
    view=findpost&p=ID."""
    from tally.adapters.invision_reply import _NEW_POST

    found = _NEW_POST.search(url)
    assert found is not None and next(g for g in found.groups() if g) == post


def test_ic5_classic_layout_reads_the_author_column() -> None:
    """The "classic" post layout (postContainer: forums_post 'classic') adds the author column
    aside.ipsEntry__author-column, with an online dot inside h3.ipsEntry__username and the
    group as div.ipsEntry__group, before the post header: the same names and ids are read."""
    saved = casefiles.load_case(IC5).pages[1]
    column = ('<aside data-ips-hook="topicAuthorColumn" class="ipsEntry__author-column">'
              '<div data-ips-hook="postUserPhoto" class="ipsAvatarStack"></div>'
              '<h3 data-ips-hook="postUsername" class="ipsEntry__username"><span class="ipsOnline" '
              'data-ipstooltip title="Сейчас на сайте"></span>{link}</h3>'
              '<div data-ips-hook="postUserGroup" class="ipsEntry__group">Игроки</div>'
              '<ul data-ips-hook="postUserStats" class="ipsEntry__authorStats ipsEntry__authorStats--minimal">'
              '<li data-i-el="posts"><span><span data-i-el="number">154</span>'
              '<span data-i-el="label">сообщения</span></span></li></ul></aside>\n')
    text = saved.data.decode()
    posts = re.findall(r'(<article data-ips-hook="postWrapper" id="elComment_\d+" class="\s*'
                       r'ipsEntry js-ipsEntry  ipsEntry--)simple(.*?>)\n(<aside)', text, re.DOTALL)
    assert len(posts) == 4  # the header's first post and the three of the feed
    classic = re.sub(
        r'(<article data-ips-hook="postWrapper" id="elComment_\d+" class="\s*ipsEntry js-ipsEntry  '
        r'ipsEntry--)simple(.*?>)\n(<aside.*?<h3 data-ips-hook="postUsername" class="ipsEntry__username">'
        r'\s*(<a [^>]*class="ipsUsername"[^>]*>[^<]*</a>))',
        lambda m: f"{m.group(1)}post{m.group(2)}\n{column.format(link=m.group(4))}{m.group(3)}",
        text, flags=re.DOTALL)
    assert classic.count("ipsEntry__author-column") == 4
    page = ENGINE.parse_page(classic.encode(), saved.ctx)
    assert _reading(page) == _reading(ENGINE.parse_page(saved.data, saved.ctx))
    assert [(p.author, p.author_id) for p in page.posts] == [
        ("Азазелло", "18"), ("Гелла", "40"), ("Воланд", "14")]


# ---------------------------------------------------------------------------------------------
# A custom IPB 3.4 skin: the structure of forum.worldoftanks.eu's topic pages (2022) as a
# scraper project's notes quote them: div.post_block__colored.post_block, the author as plain
# text in span.author (no profile link), the date in h3 (span.posted_info, not p), the "#n"
# link to page__pid__N#entryN, and spoilers as input.bbc_spoiler_show + div.bbc_spoiler_wrapper
# without IPB's outer div.bbc_spoiler. Invented content.

_WOT_POST = """
<div class='post_block__colored post_block hentry clear clearfix ' id='post_id_{pid}'>
<div itemscope itemtype="http://schema.org/UserComments" class='post_wrap' >
    <h3 class='row2'>
            <span itemprop="creator name" class="author vcard b-author b-author">{author}
                <span class='b-author_shadow'></span>
            </span>
        <span class='post_id right ipsType_small desc blend_links'>
                <a itemprop="replyToUrl" href='http://forum.example.eu/index.php?/topic/7841-day-2-vote/page__pid__{pid}#entry{pid}' rel='bookmark' title='Day 2 voteLink to post #{n}'>
            #{n}
            </a>
        </span>
        <span class='posted_info b-posted_info desc lighter ipsType_small'>
            Posted <abbr class="published" itemprop="commentTime" title="{iso}">{shown}</abbr>
        </span>
    </h3>
    <div class='author_info'><div class='user_details'><ul class='basic_info'><li class='group_title'>Players</li></ul></div></div>
    <div class='post_body'>
        <div itemprop="commentText" class='post entry-content '>
           {body}
        </div>
    </div>
</div>
</div>"""


def test_ipb3_custom_skin_without_the_outer_spoiler_div() -> None:
    posts = "".join(_WOT_POST.format(pid=pid, author=author, n=n, iso=iso, shown=shown, body=body)
                    for pid, author, n, iso, shown, body in [
        ("18962124", "Alice", 1, "2022-05-11T15:30:00+00:00", "11 May 2022 - 04:30 PM", "Day 2 starts."),
        ("18962125", "Nishi_Kinuyo", 2, "2022-05-11T15:41:01+00:00", "11 May 2022 - 04:41 PM",
         '<input type="button" class="bbc_spoiler_show" value="Show "><div class="bbc_spoiler_wrapper">'
         '<div class="bbc_spoiler_content" style="display:none;">vote: Bob</div></div><br />vote: Carol')])
    data = ("<!DOCTYPE html><html><head><title>Day 2 vote - Games - Example forum</title><script>"
            "ipb.vars['board_url'] = 'http://forum.example.eu';</script></head><body id='ipboard_body'>"
            f"{posts}</body></html>").encode()
    page = ENGINE.parse_page(data, PageContext(
        url="http://forum.example.eu/index.php?/topic/7841-day-2-vote/",
        fetched_at=datetime(2022, 5, 12, tzinfo=UTC), zone="Europe/London"))
    post = page.posts[1]
    assert (post.id, post.position, post.author, post.author_id) == ("18962125", 2, "Nishi_Kinuyo", None)
    assert post.created_at == datetime(2022, 5, 11, 15, 41, 1, tzinfo=UTC)
    assert post.permalink == ("http://forum.example.eu/index.php?/topic/7841-day-2-vote/"
                              "page__pid__18962125#entry18962125")
    assert post.body.own == "vote: Carol" and post.body.spoilers == ("vote: Bob",)
    assert page.thread_id == "7841"


def test_ic5_ignored_user_is_read_from_the_hidden_post_and_noted() -> None:
    """postContainer: for a user the viewer ignores IC5 prints div.ipsEntry--ignored ("Вы
    игнорируете сообщения %s.") before the post's anchors and hides the post (ipsHide)."""
    saved = casefiles.load_case(IC5).pages[1]
    anchor = b'<a id="findComment-70107"></a>'
    placeholder = ('<div class="ipsEntry ipsEntry--ignored" id="elIgnoreComment_70107" '
                   'data-ignorecommentid="elComment_70107" data-ignoreuserid="40">Вы игнорируете '
                   'сообщения Гелла. <button type="button" id="elIgnoreComment_70107" popovertarget='
                   '"elIgnoreComment_70107_menu" data-action="ignoreOptions" title="Параметры">Параметры'
                   '</button></div>\n').encode()
    hidden = b'id="elComment_70107" class="\n\t\tipsEntry js-ipsEntry  ipsEntry--simple '
    assert anchor in saved.data and hidden in saved.data
    data = saved.data.replace(anchor, placeholder + anchor, 1).replace(hidden, hidden + b"ipsHide ", 1)
    page = ENGINE.parse_page(data, saved.ctx)
    assert _reading(page) == _reading(ENGINE.parse_page(saved.data, saved.ctx))
    assert ("page 2: post 70107 by Гелла is collapsed for the viewer (an ignored user); read from "
            "the page") in page.notes
    assert not any("Вы игнорируете" in note for note in page.notes)
