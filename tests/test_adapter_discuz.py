"""The Discuz! X adapter (FORUMS.md §4) on saved pages: fixtures/discuz/<case>/ and errors/."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

import casefiles
import pytest

from tally import times
from tally.adapters import for_url, sniff
from tally.adapters.base import PageContext
from tally.adapters.discuz import Discuz, read_shown_time
from tally.errors import ForumError, NotAThreadPage, TruncatedPage
from tally.model import Page

ENGINE = Discuz()
CASES = casefiles.case_dirs("discuz")
ERRORS = casefiles.FIXTURES / "discuz" / "errors"
BASE = "https://bbs.tuilisha.cn/"
FETCHED = times.parse_iso("2026-11-20T04:00:00Z")  # 12:00 in Shanghai
NOON = datetime(2026, 11, 20, 12, 0, 0)  # the same instant as a Shanghai wall time


def ctx(url: str = BASE + "forum.php?mod=viewthread&tid=88231&page=2",
        floor_names: tuple[str, ...] = ()) -> PageContext:
    return PageContext(url=url, fetched_at=FETCHED, zone="Asia/Shanghai", floor_names=floor_names)


class Board:
    """ENGINE reading a case's pages with the board's floor names from its case.toml (the
    game file's thread.floor_names), which casefiles.load_case does not pass on (yet)."""

    def __init__(self, case_dir: Path) -> None:
        meta = casefiles.load_case(case_dir).meta
        self.floor_names = tuple(meta.get("floor_names", ()))

    def parse_page(self, data: bytes, page_ctx: PageContext) -> Page:
        return ENGINE.parse_page(data, replace(page_ctx, floor_names=self.floor_names))

    def __getattr__(self, name: str) -> Any:
        return getattr(ENGINE, name)


# ---------------------------------------------------------------------------------------------
# Fixture cases, field by field


def test_there_are_cases() -> None:
    assert {p.name for p in CASES} >= {"trigger-utf8", "gbk-old", "postnocustom-utf8"}


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_case_pages(case_dir: Path) -> None:
    for saved, page in casefiles.check_case(Board(case_dir), case_dir):
        for post in page.posts:
            assert post.permalink.startswith(saved.ctx.url.split("/", 3)[0])
            assert f"pid={post.id}" in post.permalink


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_next_url_leads_to_the_next_saved_page(case_dir: Path) -> None:
    case = casefiles.load_case(case_dir)
    pages = [Board(case_dir).parse_page(saved.data, saved.ctx) for saved in case.pages]
    for page, following in zip(pages, case.pages[1:]):
        assert page.next_url == following.ctx.url
    assert pages[-1].next_url is None
    assert {page.thread_id for page in pages} == {ENGINE.thread_key(case.pages[0].ctx.url)[4:]}


def test_trigger_thread_floors_and_titles() -> None:
    case = casefiles.load_case(casefiles.FIXTURES / "discuz" / "trigger-utf8")
    pages = [ENGINE.parse_page(saved.data, saved.ctx) for saved in case.pages]
    floors = [post.position for page in pages for post in page.posts]
    # T1: floors are the forum's own numbers; the deleted floor 17 leaves a gap.
    assert floors == [n for n in range(1, 29) if n != 17]
    assert pages[0].posts[1].author == "阿飞" and pages[0].posts[1].position == 2  # 沙发
    assert pages[0].title == "【第七届触发杀】桃源村命案 投票帖"
    # A title span gives the exact time: no note; a bare relative time says how it was read.
    by_id = {post.id: post for page in pages for post in page.posts}
    assert by_id["2310480"].notes == ()
    assert by_id["2310569"].notes == (
        ("relative time '8 分钟前' read against the fetch time 2026-11-20 12:00:00 "
        "(no title time in the page)"),)


def test_gbk_fixture_really_is_gbk() -> None:
    data = (casefiles.FIXTURES / "discuz" / "gbk-old" / "page-1.html").read_bytes()
    with pytest.raises(UnicodeDecodeError):
        data.decode("utf-8")
    assert "本帖最后由".encode("gbk") in data


# ---------------------------------------------------------------------------------------------
# URLs (FORUMS.md §4.2)

THREAD = BASE + "forum.php?mod=viewthread&tid=88231&extra=page%3D1"


@pytest.mark.parametrize("url", [
    THREAD,
    BASE + "forum.php?mod=viewthread&tid=88231&extra=page%3D1&page=3",
    BASE + "thread-88231-3-1.html",
    BASE + "bbs/forum.php?mod=redirect&goto=findpost&ptid=88231&pid=2310520",
    BASE + "redirect.php?goto=findpost&pid=2310520&ptid=88231",
    BASE + "viewthread.php?tid=88231&page=2",
])
def test_accepts_every_thread_url_form(url: str) -> None:
    assert ENGINE.accepts(url)
    assert ENGINE.thread_key(url) == "tid=88231"
    assert for_url(url).name == "discuz"


@pytest.mark.parametrize("url", [
    BASE + "forum.php?mod=forumdisplay&fid=12",
    BASE + "forum.php?mod=viewthread",
    BASE + "home.php?mod=space&uid=20113",
    "https://forum.example/viewtopic.php?f=2&t=123",
])
def test_rejects_other_urls(url: str) -> None:
    assert not ENGINE.accepts(url)


def test_page_url_and_page_number_round_trip() -> None:
    page3 = ENGINE.page_url(THREAD, 3)
    assert page3 == BASE + "forum.php?mod=viewthread&tid=88231&extra=page%3D1&page=3"
    assert ENGINE.page_number(page3) == 3
    assert ENGINE.page_number(THREAD) == 1
    assert ENGINE.page_url(page3, 1).endswith("&page=1")
    rewrite = ENGINE.page_url(BASE + "thread-88231-1-2.html", 4)
    assert rewrite == BASE + "thread-88231-4-2.html"  # the "previous list page" part is kept
    assert ENGINE.page_number(rewrite) == 4
    assert ENGINE.page_number(BASE + "thread-88231-1-1.html") == 1


def test_page_url_from_permalinks() -> None:
    findpost = BASE + "bbs/forum.php?mod=redirect&goto=findpost&ptid=88231&pid=2310520"
    assert ENGINE.page_url(findpost, 2) == BASE + "bbs/forum.php?mod=viewthread&tid=88231&page=2"
    assert ENGINE.page_number(findpost) == 1
    old = BASE + "redirect.php?goto=findpost&pid=2310520&ptid=88231"
    assert ENGINE.page_url(old, 2) == BASE + "viewthread.php?tid=88231&page=2"


# ---------------------------------------------------------------------------------------------
# Times (FORUMS.md §4.1, §4.4): every relative form against a fixed fetch time


@pytest.mark.parametrize(("shown", "wall"), [
    ("刚刚", datetime(2026, 11, 20, 12, 0, 0)),
    ("45\u00a0秒前", datetime(2026, 11, 20, 11, 59, 15)),
    ("12\u00a0分钟前", datetime(2026, 11, 20, 11, 48, 0)),
    ("半小时前", datetime(2026, 11, 20, 11, 30, 0)),
    ("3\u00a0小时前", datetime(2026, 11, 20, 9, 0, 0)),
    ("昨天\u00a021:58", datetime(2026, 11, 19, 21, 58, 0)),
    ("前天\u00a009:12", datetime(2026, 11, 18, 9, 12, 0)),
    ("5\u00a0天前", datetime(2026, 11, 15, 0, 0, 0)),
    ("3 分鐘前", datetime(2026, 11, 20, 11, 57, 0)),  # BIG5 boards' traditional characters
    ("2009-8-16 20:46", datetime(2009, 8, 16, 20, 46, 0)),
    ("2009-8-16 20:46:33", datetime(2009, 8, 16, 20, 46, 33)),
])
def test_shown_time_forms(shown: str, wall: datetime) -> None:
    read = read_shown_time(shown, NOON)
    assert read is not None and read.at == wall


def test_relative_forms_name_their_span() -> None:
    half = read_shown_time("半小时前", NOON)
    days = read_shown_time("5 天前", NOON)
    assert half is not None and (half.earliest, half.latest) == (
        datetime(2026, 11, 20, 11, 0), datetime(2026, 11, 20, 11, 30))
    assert days is not None and not days.precise and days.latest == datetime(2026, 11, 15, 23, 59, 59)
    assert read_shown_time("上周", NOON) is None


def _post_html(pid: int = 501, floor: str = "<em>12</em><sup>#</sup>",
               stamp: str = "发表于 2026-11-17 10:20", message: str = "投票 桃花") -> str:
    return f"""<div id="post_{pid}"><table id="pid{pid}" class="plhin"><tr>
<td class="pls"><div id="favatar{pid}" class="pls favatar"><div class="pi"><div class="authi">
<a href="home.php?mod=space&amp;uid=20113" target="_blank" class="xw1">桃花</a></div></div></div></td>
<td class="plc"><div class="pi"><strong><a href="forum.php?mod=redirect&amp;goto=findpost&amp;ptid=88231&amp;pid={pid}" id="postnum{pid}">{floor}</a></strong>
<div class="pti"><div class="authi"><em id="authorposton{pid}">{stamp}</em></div></div></div>
<div class="pct"><div class="pcb"><div class="t_fsz"><table><tr><td class="t_f" id="postmessage_{pid}">{message}</td></tr></table></div></div></div>
</td></tr></table></div>"""


def _page(*posts: str, pager: str = "", charset: str = "utf-8") -> str:
    return (f'<html><head><meta http-equiv="Content-Type" content="text/html; charset={charset}" />'
            f'<title>投票帖 - 杀人游戏 - Powered by Discuz!</title></head><body><div id="ct">{pager}'
            f'<div id="postlist" class="pl bm">{"".join(posts)}</div></div></body></html>')


def _parse(html: str, charset: str = "utf-8", url: str | None = None):
    return ENGINE.parse_page(html.encode(charset), ctx(url) if url else ctx())


def test_title_time_wins_and_a_disagreement_is_noted() -> None:
    stamp = '发表于 <span title="2026-11-17 10:20:08">2&nbsp;天前</span>'
    post = _parse(_page(_post_html(stamp=stamp))).posts[0]
    assert post.created_at == times.parse_iso("2026-11-17T02:20:08Z")
    assert post.time_text == "2 天前"
    assert post.notes == (("shown time '2 天前' disagrees with the page's title time "
                          "2026-11-17 10:20:08; the title time is used"),)


def test_absolute_time_without_title_has_no_note() -> None:
    post = _parse(_page(_post_html())).posts[0]
    assert post.created_at == times.parse_iso("2026-11-17T02:20:00Z")
    assert post.notes == ()


# ---------------------------------------------------------------------------------------------
# Body: edit markers, quotes, hidden content


def test_edit_marker_forms_are_taken_out_of_the_text() -> None:
    pstatus = '<i class="pstatus"> 本帖最后由 版主老K 于 2026-11-18 16:02 编辑 </i><br />\n投票 老猫'
    post = _parse(_page(_post_html(message=pstatus))).posts[0]
    assert post.edit is not None
    assert (post.edit.text, post.edit.editor, post.edit.edited_at, post.edit.times) == (
        "本帖最后由 版主老K 于 2026-11-18 16:02 编辑", "版主老K",
        times.parse_iso("2026-11-18T08:02:00Z"), None)
    assert post.body.own == "投票 老猫"
    bracketed = "投票 老猫<br />\n<br />\n[ 本帖最后由 桃花 于 2009-8-16 20:46 编辑 ]"
    post = _parse(_page(_post_html(message=bracketed))).posts[0]
    assert post.edit is not None and post.edit.editor == "桃花"
    assert post.edit.edited_at == times.parse_iso("2009-08-16T12:46:00Z")
    assert post.body.own == "投票 老猫"


def test_unedited_post_has_no_marker() -> None:
    assert _parse(_page(_post_html())).posts[0].edit is None


def test_quote_header_is_not_the_post_date_and_names_the_author() -> None:
    quote = ('<div class="quote"><blockquote><font size="2"><a href="forum.php?mod=redirect&amp;goto=findpost&amp;pid=9&amp;ptid=88231">'
             '<font color="#999999">青蛙王子 发表于 2026-11-19 09:00</font></a></font><br />投票 老猫</blockquote></div><br />投票 小鱼儿')
    stamp = '发表于 <span title="2026-11-20 11:48:00">12&nbsp;分钟前</span>'
    post = _parse(_page(_post_html(stamp=stamp, message=quote))).posts[0]
    assert post.created_at == times.parse_iso("2026-11-20T03:48:00Z")
    assert [(q.author, q.text) for q in post.body.quotes] == [("青蛙王子", "投票 老猫")]
    assert post.body.own == "投票 小鱼儿"


def test_nested_quote_stays_inside_its_parent() -> None:
    nested = ('<div class="quote"><blockquote>老猫 发表于 2026-11-19 09:00<br />'
              '<div class="quote"><blockquote>桃花 发表于 2026-11-19 08:00<br />投票 阿飞</blockquote></div>'
              '同意</blockquote></div>投票 白菜')
    post = _parse(_page(_post_html(message=nested))).posts[0]
    assert [q.author for q in post.body.quotes] == ["老猫"]
    assert "投票 阿飞" in post.body.quotes[0].text
    assert post.body.own == "投票 白菜"


def test_banned_author_post_is_deleted() -> None:
    locked = _post_html().replace(
        '<div class="t_fsz"><table><tr><td class="t_f" id="postmessage_501">投票 桃花</td></tr></table></div>',
        '<div class="locked">该帖被屏蔽</div>')
    post = _parse(_page(locked)).posts[0]
    assert (post.deleted, post.body.own, post.author) == (True, "", "桃花")
    assert post.notes == ("hidden by the forum: 该帖被屏蔽",)


def test_a_shielded_message_is_named_for_the_audit() -> None:
    locked = _post_html().replace(
        '<div class="t_fsz"><table><tr><td class="t_f" id="postmessage_501">投票 桃花</td></tr></table></div>',
        '<div class="locked">提示: <em>作者被禁止或删除 内容自动屏蔽</em></div>')
    page = _parse(_page(locked))
    assert (page.posts[0].deleted, page.posts[0].body.own) == (True, "")
    assert page.notes == ("post 501: message hidden by the forum (提示: 作者被禁止或删除 内容自动屏蔽): "
                          "no text to count; read as deleted",)


@pytest.mark.parametrize("notice", ["此帖仅作者可见", "本帖为密码帖"])
def test_a_message_hidden_from_this_viewer_stops_the_count(notice: str) -> None:
    """lang_template.php message_ishidden_hiddenreplies, message_password_exists: the post is
    real and its words are not on the page; a vote in it would be lost."""
    hidden = _post_html().replace(
        '<div class="t_fsz"><table><tr><td class="t_f" id="postmessage_501">投票 桃花</td></tr></table></div>',
        f'<div class="locked">{notice}</div>')
    with pytest.raises(ForumError, match=f"post 501: its message is hidden from this viewer "
                                         f"\\({notice}\\); read the thread with an account"):
        _parse(_page(hidden))


def test_hidden_part_of_a_message_is_named_and_the_rest_read() -> None:
    message = '投票 阿飞<div class="locked">本帖隐藏的内容需要回复才可以浏览</div>'
    page = _parse(_page(_post_html(message=message)))
    assert page.posts[0].body.own == "投票 阿飞"
    assert page.notes == ("post 501: part of the message is hidden from this viewer "
                          "(本帖隐藏的内容需要回复才可以浏览); the rest is read",)


GUEST_TIP = ('<div class="attach_nopermission attach_tips"><div><h3><strong>马上注册，结交更多好友，'
             '享用更多功能，让你轻松玩转社区。</strong></h3><p>您需要 <a href="member.php?mod=logging&amp;'
             'action=login">登录</a> 才可以下载或查看，没有账号？<a href="member.php?mod=register">立即注册'
             '</a></p></div><span class="atips_close">x</span></div>')


def test_guest_tip_and_ads_are_no_part_of_a_message_and_are_named() -> None:
    """viewthread_node_body.htm: the guest tip and the a_pr ad inside the first message's cell;
    viewthread_node.htm: a_pt above, a_pb below the message, a_p after the first post."""
    first = _post_html(message=f'<div class="a_pr">广告: 投票 送礼</div>{GUEST_TIP}投票 桃花').replace(
        '<div class="pct">', '<div class="pct"><div class="a_pt">广告 投票 阿飞</div>').replace(
        "</div></div></div>\n</td>", '</div></div></div>\n<div class="a_pb">广告</div>'
        '<div class="a_p">广告</div></td>')
    second = _post_html(pid=502).replace('<div class="pct">', '<div class="pct"><div class="a_pt">'
                                         "广告</div>")
    page = _parse(_page(first, second))
    assert [p.body.own for p in page.posts] == ["投票 桃花", "投票 桃花"]
    assert page.notes == ("skipped, not posts: ad above a message (a_pt), 2 times; ad beside a "
                          "message (a_pr); the guest login tip; ad below a message (a_pb); "
                          "ad between posts (a_p)",)


def test_the_thread_id_comes_from_the_page_not_the_url() -> None:
    other = BASE + "forum.php?mod=viewthread&tid=77"
    page = _parse(_page(_post_html()), url=other)
    assert page.thread_id == "88231"  # the floor link's ptid
    fast = ('<form method="post" id="fastpostform" action="forum.php?mod=post&amp;action=reply&amp;'
            'fid=7&amp;tid=4242&amp;extra=&amp;replysubmit=yes&amp;infloat=yes"></form>')
    assert _parse(_page(_post_html()) .replace("</body>", fast + "</body>"), url=other).thread_id \
        == "4242"
    nameless = _post_html().replace("ptid=88231&amp;", "")
    assert _parse(_page(nameless), url=other).thread_id is None
    linked = _post_html(message='看 <a href="forum.php?mod=viewthread&amp;tid=999">这里</a>')
    assert _parse(_page(linked.replace("ptid=88231&amp;", "")), url=other).thread_id is None


def test_deleted_stub_and_stickied_copy_are_left_out_with_a_note() -> None:
    stub = ('<div id="post_777"><table id="pid777"><tbody><tr><td class="pls"></td><td class="plc">'
            '<div class="pi"><strong><a><em>13</em><sup>#</sup></a></strong></div>'
            '<div class="pct">该帖已被删除</div></td></tr></tbody></table></div>')
    sticky = _post_html(pid=900, floor='<em title="置顶回复" class="replystick vm">置顶</em> 来自 25#')
    page = _parse(_page(sticky, _post_html(pid=501), stub))
    assert [p.id for p in page.posts] == ["501"]
    assert page.notes == ("post 900: stickied copy of a later floor, read where it stands",
                          "post 777: shown as deleted, with no author or time")


POSTNOCUSTOM = casefiles.FIXTURES / "discuz" / "postnocustom-utf8"
BOARD_FLOORS = ("楼主", "沙发", "藤椅", "板凳", "报纸", "地板")


def test_the_boards_own_floor_names_give_floors_3_to_6() -> None:
    case = casefiles.load_case(POSTNOCUSTOM)
    assert case.meta["floor_names"] == list(BOARD_FLOORS)
    saved = case.pages[0]
    page = ENGINE.parse_page(saved.data, replace(saved.ctx, floor_names=BOARD_FLOORS))
    shown = {post.position: post.id for post in page.posts}
    # 板凳 and 地板 are floors 4 and 6 on this board, not the stock 3 and 4 (T1 floor triggers).
    assert [post.position for post in page.posts] == list(range(1, 11))
    assert [shown[n] for n in (3, 4, 5, 6)] == ["2310461", "2310463", "2310470", "2310474"]
    assert all(not post.notes for post in page.posts)


def test_without_the_boards_names_its_floor_name_is_an_error_naming_it() -> None:
    saved = casefiles.load_case(POSTNOCUSTOM).pages[0]
    with pytest.raises(ForumError) as caught:
        ENGINE.parse_page(saved.data, saved.ctx)  # no thread.floor_names: the stock names
    assert str(caught.value) == (
        "Discuz!: https://bbs.sharenet.example/forum.php?mod=viewthread&tid=90417: post 2310461: "
        "floor name '藤椅' is not one of the stock names (楼主, 沙发, 板凳, 地板, 樓主, 沙發); list the "
        "board's floor names, first = floor 1, in thread.floor_names")
    assert caught.value.exit_code == 4


def test_a_floor_name_the_board_does_not_declare_is_an_error() -> None:
    html = _page(_post_html(pid=1, floor="楼主"), _post_html(pid=2, floor="报纸"))
    with pytest.raises(ForumError, match=r"post 2: floor name '报纸' is not one of the game "
                                         r"file's thread.floor_names \(楼主, 沙发, 板凳\)"):
        ENGINE.parse_page(html.encode(), ctx(floor_names=("楼主", "沙发", "板凳")))


def test_stock_names_and_numbers_without_declared_names() -> None:
    page = _parse(_page(_post_html(pid=1, floor="板凳"), _post_html(pid=2, floor="地板"),
                        _post_html(pid=3, floor="<em>11</em><sup>#</sup>"),
                        _post_html(pid=4, floor="")))
    assert [p.position for p in page.posts] == [3, 4, 11, 14]
    assert page.posts[3].notes == ("floor not shown: position 14 counted from the page order "
                                   "(page 2, 10 a page)",)


# ---------------------------------------------------------------------------------------------
# Pager and charsets


def test_page_count_from_the_last_link_and_no_pager() -> None:
    pager = ('<div class="pg"><a href="forum.php?mod=viewthread&amp;tid=88231&amp;page=1" class="prev">&nbsp;&nbsp;</a>'
             '<a href="forum.php?mod=viewthread&amp;tid=88231&amp;page=1">1</a><strong>2</strong>'
             '<a href="forum.php?mod=viewthread&amp;tid=88231&amp;page=3">3</a>'
             '<a href="forum.php?mod=viewthread&amp;tid=88231&amp;page=12" class="last">... 12</a>'
             '<a href="forum.php?mod=viewthread&amp;tid=88231&amp;page=3" class="nxt">下一页</a></div>')
    page = _parse(_page(_post_html(), pager=pager))
    assert (page.number, page.count) == (2, 12)
    assert page.next_url == BASE + "forum.php?mod=viewthread&tid=88231&page=3"
    single = _parse(_page(_post_html()), url=THREAD)
    assert (single.number, single.count, single.next_url) == (1, 1, None)


@pytest.mark.parametrize(("declared", "codec"), [
    ("gb2312", "gb18030"),  # a gb2312 page still carries GBK-only characters such as 镕
    ("gbk", "gbk"),
    ("big5", "big5"),
])
def test_pages_are_decoded_by_their_declared_charset(declared: str, codec: str) -> None:
    name = "朱镕基" if codec != "big5" else "桃花園"
    html = _page(_post_html(message=f"投票 {name}")).replace("charset=utf-8", f"charset={declared}")
    if codec == "big5":  # a traditional-character board
        html = html.replace("发表于", "發表於").replace("杀人游戏", "殺人遊戲")
    post = ENGINE.parse_page(html.encode(codec), ctx()).posts[0]
    assert post.body.own == f"投票 {name}"


# ---------------------------------------------------------------------------------------------
# Pages that are not a thread page


def _error(name: str) -> tuple[bytes, PageContext]:
    return (ERRORS / name).read_bytes(), ctx(THREAD)


@pytest.mark.parametrize(("name", "what"), [
    ("message-notfound.html", "message page: 抱歉，指定的主题不存在或已被删除或正在被审核"),
    ("message-login.html", "login required: 您需要先登录才能继续本操作"),
    ("cc-defence.html", "CC-defence interstitial: 页面重载开启"),
    ("phpbb-prosilver.html", "no Discuz! post list; the page looks like another engine's"),
])
def test_not_a_thread_page(name: str, what: str) -> None:
    data, context = _error(name)
    with pytest.raises(NotAThreadPage) as raised:
        ENGINE.parse_page(data, context)
    assert str(raised.value) == f"Discuz!: {THREAD}: not a thread page ({what})"


def test_truncated_page() -> None:
    data, context = _error("truncated.html")
    with pytest.raises(TruncatedPage) as raised:
        ENGINE.parse_page(data, context)
    assert str(raised.value) == f"Discuz!: {THREAD}: truncated page (the document ends before </html>)"


def test_empty_post_list_is_not_a_thread_page() -> None:
    with pytest.raises(NotAThreadPage, match=r"not a thread page \(no post \(div#post_…\) in the page\)"):
        _parse(_page())


def test_sniffing_saved_pages() -> None:
    assert ENGINE.looks_like((casefiles.FIXTURES / "discuz" / "gbk-old" / "page-2.html").read_bytes())
    assert not ENGINE.looks_like((ERRORS / "phpbb-prosilver.html").read_bytes())
    engine = sniff((casefiles.FIXTURES / "discuz" / "trigger-utf8" / "page-1.html").read_bytes())
    assert engine is not None and engine.name == "discuz"


# ---------------------------------------------------------------------------------------------
# The stock X3.4 templates as a guest sees them (fixtures/discuz/stock-x34-*, issue 13)

STOCK = casefiles.FIXTURES / "discuz" / "stock-x34-utf8"


@pytest.mark.parametrize("folder", ["stock-x34-utf8", "stock-x34-gbk"])
def test_a_guests_stock_page_names_what_it_skipped(folder: str) -> None:
    saved = casefiles.load_case(casefiles.FIXTURES / "discuz" / folder).pages[0]
    page = ENGINE.parse_page(saved.data, saved.ctx)
    assert page.thread_id == "64127"
    assert [p.body.own for p in page.posts[1:]] == [
        "投票 阿飞", "投票 桃花", "", "投票 老猫", "投票 桃花"]  # no ad's words
    assert page.notes[0] == ("post 880104: message hidden by the forum (提示: 作者被禁止或删除 内容自动屏蔽): "
                             "no text to count; read as deleted")
    assert page.notes[2] == ("skipped, not posts: ad above a message (a_pt), 6 times; ad beside a "
                             "message (a_pr), 5 times; the guest login tip; ad below a message "
                             "(a_pb), 6 times; ad between posts (a_p), 6 times")


def test_the_reading_notes_reach_the_audit(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from tally.cli import app

    result = CliRunner().invoke(app, ["count", str(STOCK / "game.toml"), "--from", str(STOCK),
                                      "--fetched-at", "2026-11-20T04:00:00Z", "--format", "text",
                                      "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 0, result.output
    assert "桃花 (2): 阿飞, 小李" in result.stdout
    reading = result.stdout.split("Reading the thread:", 1)[1]
    assert "post 880104: message hidden by the forum" in reading
    assert "post 880106: part of the message is hidden from this viewer" in reading
    assert "the guest login tip" in reading and "ad between posts (a_p), 6 times" in reading


# --- a board serving another thread at the game's own address (issue 16), online -------------

TRIGGER = casefiles.FIXTURES / "discuz" / "trigger-utf8"  # tid 88231
STOCK_UTF8 = casefiles.FIXTURES / "discuz" / "stock-x34-utf8"  # tid 64127


@pytest.mark.parametrize(("address", "served", "charset", "other"), [
    ("/forum.php?mod=viewthread&tid=88231&extra=page%3D1", STOCK_UTF8 / "page-1.html", "utf-8",
     "page 1 is from topic 64127"),
    ("/thread-88231-1-1.html", STOCK_UTF8 / "page-1.html", "utf-8",  # the rewrite form
     "page 1 is from topic 64127"),
    ("/forum.php?mod=redirect&goto=findpost&ptid=88231&pid=1100001",  # a floor's permalink
     STOCK_UTF8 / "page-1.html", "utf-8", "page 1 is from topic 64127"),
    ("/forum.php?mod=viewthread&tid=88231&extra=page%3D1",  # Discuz! 7.2, GBK, page 2 of 200440
     casefiles.FIXTURES / "discuz" / "gbk-old" / "page-2.html", "gbk",
     "page 2 is from topic 200440"),
])
def test_a_board_answering_the_game_url_with_another_threads_page(
        address: str, served: Path, charset: str, other: str, tmp_path: Path, httpserver: Any,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The game's own address (whatever its form) serves another thread's page: the page's own
    fast reply form, floor links and pager say so. Exit 4 naming both threads, online and then
    offline from the store, as on phpBB; nothing counted."""
    from typer.testing import CliRunner

    from tally.cli import app
    from tally.fetch import Fetcher

    monkeypatch.setitem(Fetcher.__init__.__kwdefaults__, "delay", 0.0)
    httpserver.expect_request(address.split("?")[0]).respond_with_data(
        served.read_bytes(), content_type=f"text/html; charset={charset}")
    game = tmp_path / "game.toml"
    game.write_text((TRIGGER / "game.toml").read_text(encoding="utf-8").replace(
        "https://bbs.tuilisha.cn/forum.php?mod=viewthread&tid=88231&extra=page%3D1",
        httpserver.url_for(address)), encoding="utf-8")
    store = ["--store", str(tmp_path / "s.sqlite")]
    for extra, env in (([], {"TALLY_NOW": "2026-11-20T04:00:00Z"}), (["--offline"], None)):
        result = CliRunner().invoke(app, ["count", str(game), *store, *extra], env=env)
        assert result.exit_code == 4, result.output
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and f"{other}, not 88231" in lines[0], \
            result.stderr
        assert result.stdout == ""


# --- the anti-scraping jammer (防采集) ----------------------------------------------------------
# function_discuzcode.php jammer() (codersclub/DiscuzX @c555a4fa): at every line break of a
# message, either '<font class="jammer">RANDOM</font>' before it or '<span style="display:none">
# RANDOM</span>' after it; module.css paints .pcb .jammer in the background colour. As a real
# X2 board prints it (bbs.skykiwi.com, a saved page in public code; see fixtures/discuz/x2-jammer).
JAMMED = ('<i class="pstatus"> 本帖最后由 桃花 于 2026-11-17 10:30 编辑 </i><font class="jammer">7 @/ '
          "A5 |, [&nbsp;&nbsp;e/ H' k</font><br />\n<br />\n<span style=\"display:none\">8 f! W5 a( "
          "@0 d* a</span>投票 月下独酌<br />\n<span style=\"display:none\">7 s. b1 W6 \\+ I. }</span>"
          '<font class="jammer">0 T0 W- g2 v4 c</font><br />')


def test_the_jammers_random_text_is_no_part_of_a_message() -> None:
    post = _parse(_page(_post_html(message=JAMMED))).posts[0]
    # Before: "8 f! W5 a( @0 d* a投票 月下独酌": the vote no longer began its line.
    assert post.body.own == "投票 月下独酌"
    assert post.edit is not None and post.edit.editor == "桃花"


def test_a_players_own_hidden_span_is_no_vote_either() -> None:
    """Text no reader sees on the page is not the post's voice, as the jammer's."""
    post = _parse(_page(_post_html(message='投票 桃花<br /><span style="DISPLAY: none">投票 小鱼儿</span>'))).posts[0]
    assert post.body.own == "投票 桃花"


# --- the touch template (a phone's view) -----------------------------------------------------
TOUCH = casefiles.FIXTURES / "discuz" / "touch-x34-utf8"


def test_a_touch_page_names_what_it_left_out_and_its_relative_times() -> None:
    saved = casefiles.load_case(TOUCH).pages[0]
    page = ENGINE.parse_page(saved.data, saved.ctx)
    assert page.thread_id == "64130"
    assert "post 990201: stickied copy of a later floor, read where it stands" in page.notes
    yesterday = next(p for p in page.posts if p.id == "990103")
    assert yesterday.notes == ("relative time '昨天 20:12' read against the fetch time "
                               "2026-11-20 12:00:00 (no title time in the page)",)


def test_a_touch_message_hidden_from_this_viewer_stops_the_count() -> None:
    saved = casefiles.load_case(TOUCH).pages[0]
    data = saved.data.decode("utf-8").replace("作者被禁止或删除 内容自动屏蔽", "此帖仅作者可见")
    with pytest.raises(ForumError, match=r"post 990104: its message is hidden from this viewer"):
        ENGINE.parse_page(data.encode("utf-8"), saved.ctx)


def test_a_touch_post_without_its_time_stops_the_count() -> None:
    saved = casefiles.load_case(TOUCH).pages[0]
    data = saved.data.decode("utf-8").replace("昨天&nbsp;20:12", "", 1)
    with pytest.raises(ForumError, match=r"post 990103: cannot read the time ''"):
        ENGINE.parse_page(data.encode("utf-8"), saved.ctx)


# --- traditional-character editions (BIG5, TC_UTF8) -------------------------------------------
# As real boards print them (saved pages in public code): "本帖最後由 X 於 2020-2-5 14:46 編輯",
# the bracketed "[ 本帖最後由 skyfeather0 於 2009-4-11 21:41 編輯 ]", "X 發表於 …", 樓主/沙發.

def test_a_traditional_edit_marker_is_an_edit() -> None:
    message = ('<i class="pstatus"> 本帖最後由 桃花 於 2026-11-17 10:30 編輯 </i><br />\r\n投票 月下'
               "<br />\r\n[ 本帖最後由 桃花 於 2026-11-17 10:25 編輯 ]")
    post = _parse(_page(_post_html(message=message, stamp="發表於 2026-11-17 10:20",
                                   floor="沙發"))).posts[0]
    assert (post.position, post.body.own) == (2, "投票 月下")
    assert post.edit is not None and (post.edit.editor, post.edit.edited_at.isoformat()) == (
        "桃花", "2026-11-17T02:30:00+00:00")


def test_a_traditional_quote_names_its_author() -> None:
    quote = ('<div class="quote"><blockquote><font size="2"><font color="#999999">青蛙王子 發表於 '
             '2026-11-17 10:00</font></font><br />\r\n投票 桃花</blockquote></div><br />\r\n投票 月下')
    post = _parse(_page(_post_html(message=quote, floor="樓主"))).posts[0]
    assert (post.position, post.body.own) == (1, "投票 月下")
    assert [q.author for q in post.body.quotes] == ["青蛙王子"]


MOBILE = casefiles.FIXTURES / "discuz" / "mobile-x34-utf8"


def test_a_basic_mobile_page_says_its_thread_and_what_the_forum_shielded() -> None:
    saved = casefiles.load_case(MOBILE).pages[0]
    page = ENGINE.parse_page(saved.data, saved.ctx)
    assert page.thread_id == "64130"  # a#thread_subject
    assert page.notes == ("post 990104: message hidden by the forum (提示: 作者被禁止或删除 内容自动屏蔽): "
                          "no text to count; read as deleted",)


def test_a_basic_mobile_message_hidden_from_this_viewer_stops_the_count() -> None:
    saved = casefiles.load_case(MOBILE).pages[0]
    data = saved.data.decode("utf-8").replace("作者被禁止或删除 内容自动屏蔽", "此帖仅作者可见")
    with pytest.raises(ForumError, match=r"post 990104: its message is hidden from this viewer"):
        ENGINE.parse_page(data.encode("utf-8"), saved.ctx)


@pytest.mark.parametrize("folder", [TOUCH, MOBILE], ids=lambda p: p.name)
def test_a_thread_saved_from_a_phone_is_counted(folder: Path) -> None:
    """What a GM checks: the count. 桃花's vote carries the jammer's hidden text, 阿飞's reply a
    subject line and a quote of 桃花's vote, 老猫's message is shielded, 白菜 edited his."""
    import json

    from typer.testing import CliRunner

    from tally.cli import app

    result = CliRunner().invoke(app, ["count", str(folder / "game.toml"), "--from", str(folder),
                                      "--fetched-at", "2026-11-20T04:00:00Z", "-f", "json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [(c["player"], c["votes"], c["voters"]) for c in out["counts"]] == [
        ("阿飞", 1, ["桃花"]), ("桃花", 1, ["阿飞"]), ("老猫", 1, ["白菜"])]
    assert out["not_voting"] == ["老猫"] and out["outcome"]["result"] == "tie"
