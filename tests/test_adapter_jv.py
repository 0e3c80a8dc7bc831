"""The jeuxvideo.com adapter (FORUMS.md §3) on saved pages: fixtures/jv/<case>/ and errors/."""

from __future__ import annotations

import base64
import gzip
import json
import re
from dataclasses import replace
from datetime import datetime
from pathlib import Path

import casefiles
import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from tally import times
from tally.adapters import base, dates, jv
from tally.adapters.base import PageContext
from tally.adapters.html import has_class_xpath
from tally.adapters.jv import JV, decode_jvcare, full_date, read_shown_time
from tally.errors import ForumError, InputError, NotAThreadPage, TruncatedPage

ENGINE = JV()
CASES = casefiles.case_dirs("jv")
JV_DIR = casefiles.FIXTURES / "jv"
ERRORS = JV_DIR / "errors"
TOPIC = "https://www.jeuxvideo.com/forums/42-51-74125893-{}-0-1-0-kira-partie-12-jour-3-votes.htm"
FETCHED = times.parse_iso("2026-06-03T03:30:00Z")  # 05:30 in Paris (CEST)
PARIS_NOW = datetime(2026, 6, 3, 5, 30, 0)  # the same instant as a Paris wall time
PAYLOAD = re.compile(rb'forumsAppPayload="([^"]*)"')


def ctx(url: str = TOPIC.format(1)) -> PageContext:
    return PageContext(url=url, fetched_at=FETCHED, zone="Europe/Paris")


def kira_page(number: int = 1) -> bytes:
    return (JV_DIR / "kira-2026" / f"page-{number}.html").read_bytes()


def with_payload(data: bytes, payload: bytes) -> bytes:
    return PAYLOAD.sub(lambda _m: b'forumsAppPayload="' + payload + b'"', data, count=1)


def payload_json(data: bytes) -> dict:
    found = PAYLOAD.search(data)
    assert found is not None
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))


def post_summary(data: bytes) -> list[tuple]:
    page = ENGINE.parse_page(data, ctx())
    return [(p.id, p.author, p.author_id, p.created_at, p.body, p.edit, p.deleted) for p in page.posts]


# ---------------------------------------------------------------------------------------------
# Fixture cases, field by field


def test_there_are_cases() -> None:
    assert {p.name for p in CASES} >= {"kira-2026", "legacy", "html2026-nopayload", "real-2026",
                                       "real-2026-html", "kira-real-2026", "legacy-guest-2025"}


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_case_pages(case_dir: Path) -> None:
    for _saved, page in casefiles.check_case(ENGINE, case_dir):
        for post in page.posts:
            assert post.zone == "Europe/Paris"
            assert post.permalink == f"https://www.jeuxvideo.com/forums/message/{post.id}"


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_next_url_leads_to_the_next_page(case_dir: Path) -> None:
    case = casefiles.load_case(case_dir)
    for saved in case.pages:
        page = ENGINE.parse_page(saved.data, saved.ctx)
        following = None if page.number == page.count else ENGINE.page_url(saved.ctx.url, page.number + 1)
        assert page.next_url == following, saved.file


@pytest.mark.parametrize("case_dir", CASES, ids=lambda p: p.name)
def test_thread_id_is_the_topic_the_page_names(case_dir: Path) -> None:
    """Issue 16: read from the page (payload topicId, head links, pager links), not from the
    URL it was asked at: a page saved under another topic's URL still names its own topic."""
    case = casefiles.load_case(case_dir)
    topic_id = ENGINE.thread_key(case.pages[0].ctx.url).split("-")[2]
    elsewhere = "https://www.jeuxvideo.com/forums/42-51-11111111-1-0-1-0-autre-topic.htm"
    for saved in case.pages:
        assert ENGINE.parse_page(saved.data, saved.ctx).thread_id == topic_id
        assert ENGINE.parse_page(saved.data, replace(saved.ctx, url=elsewhere)).thread_id == topic_id


def test_titles() -> None:
    kira = ENGINE.parse_page(kira_page(), ctx())
    legacy_case = casefiles.load_case(JV_DIR / "legacy")
    legacy = ENGINE.parse_page(legacy_case.pages[0].data, legacy_case.pages[0].ctx)
    assert kira.title == "Kira - Partie 12 - Jour 3 (votes)"
    assert legacy.title == "Kira - Partie 3 - Jour 2 (votes)"


# ---------------------------------------------------------------------------------------------
# The 2026 payload (FORUMS.md §3.3)


def test_kira_fixture_carries_a_gzip_payload_with_a_deleted_message() -> None:
    found = PAYLOAD.search(kira_page())
    assert found is not None and base64.b64decode(found.group(1))[:2] == b"\x1f\x8b"
    items = payload_json(kira_page())["listMessage"]
    deleted = [str(item["id"]) for item in items if item["stateMessage"] == "msg-deleted"]
    assert deleted == ["1312400590"]
    assert b'id="message-1312400590"' not in kira_page()  # the HTML does not show it


def test_payload_and_html_disagreeing_on_posts_is_noted_and_the_payload_wins() -> None:
    page = ENGINE.parse_page(kira_page(), ctx())
    assert "1312400590" in [post.id for post in page.posts]
    assert page.notes == (("payload and HTML disagree on the posts (payload only: 1312400590; "
                          "HTML only: none); the payload is trusted"),)
    assert ENGINE.parse_page(kira_page(2), ctx(TOPIC.format(2))).notes == ()


@pytest.mark.parametrize("form", ["base64", "json-string", "json-object"])
def test_older_payload_forms_read_the_same(form: str) -> None:
    raw = json.dumps(payload_json(kira_page()), ensure_ascii=False).encode("utf-8")
    if form == "base64":
        changed = with_payload(kira_page(), base64.b64encode(raw))
    elif form == "json-string":  # JSON inside a JS string literal
        changed = with_payload(kira_page(), json.dumps(raw.decode("utf-8"))[1:-1].encode("utf-8"))
    else:  # window.jvc.forumsAppPayload={…};
        changed = PAYLOAD.sub(lambda _m: b"forumsAppPayload=" + raw, kira_page(), count=1)
    assert post_summary(changed) == post_summary(kira_page())


def test_the_payload_reads_the_same_with_orjson_or_json(monkeypatch: pytest.MonkeyPatch) -> None:
    """orjson only speeds the payload's JSON up (issue 15): without it, json reads the same."""
    from tally.adapters import jv_payload

    with_orjson = post_summary(kira_page())
    monkeypatch.setattr(jv_payload, "orjson", None)
    assert post_summary(kira_page()) == with_orjson


def test_a_payload_json_takes_and_orjson_refuses_is_read_as_json_reads_it() -> None:
    """NaN is no JSON, but json (and JV's own JavaScript) take it: the payload still reads."""
    raw = json.dumps(payload_json(kira_page()), ensure_ascii=False)
    raw = raw.replace('"listMessage"', '"score": NaN, "listMessage"', 1).encode("utf-8")
    changed = with_payload(kira_page(), base64.b64encode(gzip.compress(raw)))
    assert post_summary(changed) == post_summary(kira_page())


def test_unreadable_payload_falls_back_to_the_html_with_a_note() -> None:
    page = ENGINE.parse_page(with_payload(kira_page(), b"H4sI!!not-base64"), ctx())
    assert len(page.posts) == 19  # the HTML, without the deleted message
    assert page.notes == ("forumsAppPayload unreadable (Error); HTML used",)
    assert page.count == 2 and page.number == 1  # from the HTML pager
    assert page.posts[4].edit is not None and page.posts[4].edit.editor == "Near_"
    assert page.posts[0].author_id is None  # the HTML names no account id


@pytest.mark.parametrize("quoted", [b"forumsAppPayload", b"window.jvc.forumsAppPayload=&quot;x&quot;;",
                                    b"window.jvc.forumsAppPayload = H4sI"])
def test_a_member_quoting_the_payload_name_does_not_hide_the_payload(quoted: bytes) -> None:
    """The name in a message (before the page's script) is text, not the payload."""
    data = kira_page().replace(b'<p class="message__p">', b'<p class="message__p">' + quoted + b" ", 1)
    page = ENGINE.parse_page(data, ctx())
    assert len(page.posts) == 20  # the payload's, the deleted message included
    assert page.notes == ENGINE.parse_page(kira_page(), ctx()).notes


def shifted(data: bytes, shown: bytes, new: bytes = b"05:15:33") -> bytes:
    """The page with one message's shown time ("02 juin 2026 à {shown}") changed in the HTML."""
    old = b'messageUser__date">02 juin 2026 \xc3\xa0 ' + shown
    assert data.count(old) == 1
    return data.replace(old, b'messageUser__date">02 juin 2026 \xc3\xa0 ' + new)


def time_notes(page) -> dict[str, tuple[str, ...]]:
    return {post.id: post.notes for post in page.posts if post.notes}


# The canary (issue 15): the first and last messages shown in both are checked on every run,
# every message with --strict (PageContext.strict).
@pytest.mark.parametrize(("shown", "index"), [(b"05:00:12", 0), (b"22:33:16", 18)])
def test_a_first_or_last_message_shown_otherwise_is_always_noted(shown: bytes, index: int) -> None:
    page = ENGINE.parse_page(shifted(kira_page(), shown), ctx())
    post = [p for p in page.posts if p.id != "1312400590"][index]  # 0590: in the payload only
    assert time_notes(page) == {post.id: (
        f"the page shows '02 juin 2026 à 05:15:33' where the payload says "
        f"'02 juin 2026 à {shown.decode()}'; the payload is used",)}
    assert post.time_text == f"02 juin 2026 à {shown.decode()}"  # the payload is trusted


def test_a_middle_message_shown_otherwise_is_noted_only_under_strict() -> None:
    data = shifted(kira_page(), b"05:14:33")
    assert time_notes(ENGINE.parse_page(data, ctx())) == {}
    page = ENGINE.parse_page(data, replace(ctx(), strict=True))
    post = page.posts[1]
    assert post.created_at == times.parse_iso("2026-06-02T03:14:33Z")
    assert time_notes(page) == {post.id: (
        "the page shows '02 juin 2026 à 05:15:33' where the payload says "
        "'02 juin 2026 à 05:14:33'; the payload is used",)}


def test_an_author_shown_otherwise_is_noted() -> None:
    first = ENGINE.parse_page(kira_page(2), ctx(TOPIC.format(2))).posts[0]
    name = f'messageUser__label">{first.author}<'.encode()
    data = kira_page(2).replace(name, name.replace(first.author.encode(), b"Imposteur"), 1)
    assert data != kira_page(2)
    page = ENGINE.parse_page(data, ctx(TOPIC.format(2)))
    assert page.posts[0].author == first.author
    assert page.posts[0].notes == (f"the page shows the author 'Imposteur' where the payload "
                                   f"says {first.author!r}; the payload is used",)


def test_strict_changes_nothing_on_pages_that_agree() -> None:
    for number in (1, 2):
        url = TOPIC.format(number)
        assert ENGINE.parse_page(kira_page(number), replace(ctx(url), strict=True)) == \
            ENGINE.parse_page(kira_page(number), ctx(url))


def test_an_empty_message_list_is_not_a_thread() -> None:
    empty = dict(payload_json(kira_page(2)), listMessage=[])
    data = re.sub(rb'<div id="listMessages".*?</main>', b"</main>", kira_page(2), flags=re.DOTALL)
    data = with_payload(data, base64.b64encode(gzip.compress(json.dumps(empty).encode())))
    with pytest.raises(NotAThreadPage) as caught:
        ENGINE.parse_page(data, ctx(TOPIC.format(2)))
    assert str(caught.value) == (f"jeuxvideo.com: {TOPIC.format(2)}: not a thread page "
                                 "(the topic's message list is empty)")


def test_a_post_whose_time_cannot_be_read_names_the_post() -> None:
    raw = payload_json(kira_page(2))
    raw["listMessage"][2]["publishedDate"] = "bientôt"
    data = with_payload(kira_page(2), base64.b64encode(gzip.compress(json.dumps(raw).encode())))
    with pytest.raises(ForumError, match=r"^jeuxvideo\.com: .*-2-0-1-0-.*: post 1312401357: "
                                         r"cannot read the time 'bientôt'$"):
        ENGINE.parse_page(data, ctx(TOPIC.format(2)))


def payload_page(items: list[dict], data: bytes | None = None) -> bytes:
    raw = dict(payload_json(kira_page(2)), listMessage=items)
    return with_payload(data or kira_page(2), base64.b64encode(gzip.compress(json.dumps(raw).encode())))


@pytest.mark.parametrize("number", [1, 2])
def test_a_comment_in_the_chrome_changes_nothing(number: int) -> None:
    data = kira_page(number)
    commented = data.replace(b"<title>", b"<!-- ad slot --><title>", 1)
    assert commented != data
    assert ENGINE.parse_page(commented, ctx(TOPIC.format(number))) == \
        ENGINE.parse_page(data, ctx(TOPIC.format(number)))


def test_an_html_time_written_with_markup_or_entities_is_still_compared() -> None:
    shown = b'messageUser__date">02 juin 2026 \xc3\xa0 05:00:12'
    bold = kira_page().replace(shown, b'messageUser__date"><b>02 juin 2026 \xc3\xa0 05:15:33</b>', 1)
    assert ENGINE.parse_page(bold, ctx()).posts[0].notes == (
        ("the page shows '02 juin 2026 à 05:15:33' where the payload says "
         "'02 juin 2026 à 05:00:12'; the payload is used"),)
    entity = kira_page().replace(shown, b'messageUser__date">02 juin 2026 &agrave; 05:00:12', 1)
    assert ENGINE.parse_page(entity, ctx()).posts[0].notes == ()  # the same text, as shown


def test_a_date_outside_its_message_is_not_the_message_s_date() -> None:
    data = kira_page(2)
    start = re.search(rb'<div class="messageUser[^>]*>', data)
    assert start is not None
    stray = b'</div><span class="messageUser__date">01 janvier 2020 \xc3\xa0 00:00:00</span><div>'
    data = data[:start.end()] + stray + data[start.end():]
    page = ENGINE.parse_page(data, ctx(TOPIC.format(2)))
    assert not any("the page shows" in note for post in page.posts for note in post.notes)
    assert page.posts == ENGINE.parse_page(kira_page(2), ctx(TOPIC.format(2))).posts


def test_an_html_message_the_payload_lacks_is_noted_even_outside_plain_markup() -> None:
    extra = (b'<div id="message-999" data-x=\'1\' class="messageUser">'
             b'<span class="messageUser__date">02 juin 2026 \xc3\xa0 06:00:00</span></div>')
    data = kira_page(2).replace(b'<div id="listMessages"', extra + b'<div id="listMessages"', 1)
    assert ENGINE.parse_page(data, ctx(TOPIC.format(2))).notes == (
        ("payload and HTML disagree on the posts (payload only: none; HTML only: 999); "
         "the payload is trusted"),)


@pytest.mark.parametrize("broken", [
    "<div><p>vote: Rem",  # a block left open
    "vote: Rem</div></div><p>stray",  # more closed than opened
    "<table><tr><td>vote: Rem",
    "<!-- vote: Rem",  # an open comment
])
def test_each_payload_message_is_read_on_its_own_even_when_one_is_broken(broken: str) -> None:
    """Under --strict every message's renderedText is read (in one parse for the page): a
    broken one does not spill into its neighbours."""
    items = payload_json(kira_page(2))["listMessage"][:3]
    items[1] = dict(items[1], renderedText=broken)
    strict = replace(ctx(TOPIC.format(2)), strict=True)
    page = ENGINE.parse_page(payload_page(items), strict)
    alone = [ENGINE.parse_page(payload_page([item]), strict).posts[0].body for item in items]
    assert [post.body for post in page.posts] == alone
    assert page.posts[2].body.own == alone[2].own != ""
    assert "where the payload says" in page.posts[1].notes[0]  # the page shows another text


def test_a_text_the_html_shows_otherwise_is_noted_first_and_last_always_middle_under_strict() -> None:
    """A message the page shows is read once, from the page's copy (the same markup as its
    renderedText); the canary reads renderedText too for the first and last message (every
    message under --strict) and uses the payload's where they differ."""
    items = payload_json(kira_page(2))["listMessage"]
    for index in (0, 2, len(items) - 1):
        changed = [dict(item) for item in items]
        changed[index]["renderedText"] = '<p class="message__p">vote: Near_</p>'
        data = payload_page(changed)
        normal = ENGINE.parse_page(data, ctx(TOPIC.format(2))).posts[index]
        strict = ENGINE.parse_page(data, replace(ctx(TOPIC.format(2)), strict=True)).posts[index]
        assert strict.body.own == "vote: Near_"
        assert strict.notes[-1].endswith("where the payload says 'vote: Near_'; the payload is used")
        if index == 2:  # a middle message: the page's copy, unchecked
            assert normal.body.own != "vote: Near_" and normal.notes == ()
        else:
            assert normal == strict


# ---------------------------------------------------------------------------------------------
# URLs (FORUMS.md §3.1)


@pytest.mark.parametrize("url", [
    TOPIC.format(1),
    TOPIC.format(7) + "#post_1312400187",
    "http://www.jeuxvideo.com/forums/1-51-1234567-3-0-1-0-vieux-topic.htm",
    "https://m.jeuxvideo.com/forums/42-51-74125893-2-0-1-0-kira-partie-12-jour-3-votes.htm",
])
def test_accepts_topic_urls(url: str) -> None:
    assert ENGINE.accepts(url)


@pytest.mark.parametrize("url", [
    "https://www.jeuxvideo.com/forums/0-51-0-1-0-1-0-blabla-18-25-ans.htm",  # a forum's list
    "https://www.jeuxvideo.com/forums/message/1312400187",
    "https://www.jeuxvideo.com.evil.example/forums/42-51-74125893-1-0-1-0-x.htm",
    "https://forum.example/viewtopic.php?t=418",
])
def test_rejects_other_urls(url: str) -> None:
    assert not ENGINE.accepts(url)


def test_thread_key_is_the_same_for_every_page_and_keeps_the_mode() -> None:
    keys = {ENGINE.thread_key(TOPIC.format(n)) for n in (1, 2, 17)}
    assert keys == {"42-51-74125893"}
    assert ENGINE.thread_key("https://www.jeuxvideo.com/forums/1-51-1234567-3-0-1-0-x.htm") \
        == "1-51-1234567"
    with pytest.raises(InputError, match="not a jeuxvideo.com topic URL"):
        ENGINE.thread_key("https://www.jeuxvideo.com/forums.htm")


def test_page_url_and_page_number_both_ways() -> None:
    assert ENGINE.page_url(TOPIC.format(1) + "#post_1", 3) == TOPIC.format(3)
    assert ENGINE.page_url(TOPIC.format(5), 1) == TOPIC.format(1)
    old = "http://www.jeuxvideo.com/forums/1-51-1234567-1-0-1-0-vieux-topic.htm"
    assert ENGINE.page_url(old, 12) == "http://www.jeuxvideo.com/forums/1-51-1234567-12-0-1-0-vieux-topic.htm"
    for number in (1, 2, 40):
        assert ENGINE.page_number(ENGINE.page_url(TOPIC.format(1), number)) == number
    assert ENGINE.page_number(TOPIC.format(0)) == 1


def test_looks_like() -> None:
    for case_dir in CASES:
        for saved in casefiles.load_case(case_dir).pages:
            assert ENGINE.looks_like(saved.data), saved.file
    assert not ENGINE.looks_like((ERRORS / "phpbb-prosilver.html").read_bytes())


# ---------------------------------------------------------------------------------------------
# Times (FORUMS.md §3.2/§3.3: "02 juin 2026 à 22:25:06", Paris wall time)


@pytest.mark.parametrize(("text", "wall"), [
    ("02 juin 2026 à 22:25:06", datetime(2026, 6, 2, 22, 25, 6)),
    ("12 janvier 2016 à 22:01:03", datetime(2016, 1, 12, 22, 1, 3)),
    ("1er février 2026 à 08:00", datetime(2026, 2, 1, 8, 0, 0)),
    ("Le 03 août 2025 à 00:00:59 Pseudo a écrit :", datetime(2025, 8, 3, 0, 0, 59)),
    ("31 décembre 2025 à 23:59:59", datetime(2025, 12, 31, 23, 59, 59)),
])
def test_full_dates(text: str, wall: datetime) -> None:
    assert full_date(text) == wall


@pytest.mark.parametrize("text", ["32 juin 2026 à 10:00:00", "02 brumaire 2026 à 10:00:00", "02 juin"])
def test_not_full_dates(text: str) -> None:
    assert full_date(text) is None


# The stock header date is read in one match; every other text by the shared reader. Both
# must agree, including on what they refuse.
@pytest.mark.parametrize("text", [
    "02 juin 2026 à 22:25:06", "2 juin 2026 à 22:25", "31 juin 2026 à 10:00:00",
    "29 février 2025 à 10:00:00", "29 février 2024 à 10:00:00", "02 juin 2026 à 24:00:00",
    "02 juin 2026 à 23:60:00", "02 juin 0999 à 10:00:00", "02 JUIN 2026 à 10:00:00",
    "02 mars 2026 à 10:00:00", "02 Févr 2026 à 10:00:00", "02 brumaire 2026 à 10:00:00",
])
def test_stock_dates_read_as_the_shared_reader_reads_them(text: str) -> None:
    shown = dates.find_first(text, datetime(2000, 1, 1))
    assert full_date(text) == (shown.at if shown is not None else None)


@pytest.mark.parametrize(("shown", "utc", "note"), [
    ("29 mars 2026 à 01:59:59", "2026-03-29T00:59:59Z", None),
    ("29 mars 2026 à 02:30:00", "2026-03-29T01:30:00Z", "does not exist in Europe/Paris"),
    ("29 mars 2026 à 03:00:00", "2026-03-29T01:00:00Z", None),
    ("25 octobre 2026 à 01:59:59", "2026-10-24T23:59:59Z", None),
    ("25 octobre 2026 à 02:30:00", "2026-10-25T00:30:00Z", "happens twice in Europe/Paris"),
    ("25 octobre 2026 à 03:00:00", "2026-10-25T02:00:00Z", None),
])
def test_post_times_around_the_clock_changes(shown: str, utc: str, note: str | None) -> None:
    items = payload_json(kira_page(2))["listMessage"][:2]
    items[0] = dict(items[0], publishedDate="02 juin 2026 à 05:14:33")  # the hour before: cached
    items[1] = dict(items[1], publishedDate=shown, updatedDate="")
    post = ENGINE.parse_page(payload_page(items), ctx(TOPIC.format(2))).posts[1]
    assert post.created_at == times.parse_iso(utc)
    clock_notes = [n for n in post.notes if "(DST" in n]
    assert len(clock_notes) == (note is not None) and all(note in n for n in clock_notes)


# Fetched at 05:30:00 on 3 June 2026, Paris.
@pytest.mark.parametrize(("text", "wall", "dated_only"), [
    ("à l'instant", datetime(2026, 6, 3, 5, 30, 0), False),
    ("Aujourd'hui à 05:12:40", datetime(2026, 6, 3, 5, 12, 40), False),
    ("aujourd’hui à 04:59", datetime(2026, 6, 3, 4, 59, 0), False),
    ("Hier à 23:58:30", datetime(2026, 6, 2, 23, 58, 30), False),
    ("Avant-hier à 10:00:00", datetime(2026, 6, 1, 10, 0, 0), False),
    ("05:01:02", datetime(2026, 6, 3, 5, 1, 2), False),
    ("il y a 40 s", datetime(2026, 6, 3, 5, 29, 20), False),
    ("il y a 5 min", datetime(2026, 6, 3, 5, 25, 0), False),
    ("il y a 1 minute", datetime(2026, 6, 3, 5, 29, 0), False),
    ("il y a 3 h", datetime(2026, 6, 3, 2, 30, 0), False),
    ("il y a 2 heures", datetime(2026, 6, 3, 3, 30, 0), False),
    ("il y a 2 jours", datetime(2026, 6, 1, 5, 30, 0), False),
    ("02 juin", datetime(2026, 6, 2), True),  # publishedDateRelative
    ("28 décembre", datetime(2025, 12, 28), True),  # later in the year than the fetch: last year
    ("02/06/2026", datetime(2026, 6, 2), True),  # publishedDateRelativeAlt
])
def test_relative_forms(text: str, wall: datetime, dated_only: bool) -> None:
    shown = read_shown_time(text, PARIS_NOW)
    assert shown is not None
    assert (shown.at, shown.dated_only) == (wall, dated_only)
    assert shown.relative is (text != "02/06/2026")


@pytest.mark.parametrize("text", ["", "demain à 10:00", "il y a longtemps", "31/02/2026"])
def test_unreadable_times(text: str) -> None:
    assert read_shown_time(text, PARIS_NOW) is None


# ---------------------------------------------------------------------------------------------
# Edit markers (K4, K5: the rules judge them; the adapter reads editor and time)


def test_edit_markers_by_author_and_by_staff() -> None:
    posts = {p.id: p for p in ENGINE.parse_page(kira_page(), ctx()).posts}
    own, staff = posts["1312400388"].edit, posts["1312400500"].edit
    assert own is not None and staff is not None
    assert own.text == "Message édité le 02 juin 2026 à 06:04:10 par Near_"
    assert (own.editor, own.edited_at) == ("Near_", times.parse_iso("2026-06-02T04:04:10Z"))
    assert staff.text == "Message édité le 02 juin 2026 à 09:03:10 par Ryuk_Shinigami"
    assert (staff.editor, staff.edited_at) == ("Ryuk_Shinigami", times.parse_iso("2026-06-02T07:03:10Z"))
    assert sum(p.edit is not None for p in posts.values()) == 2


def test_edit_notice_without_a_date_keeps_the_editor_and_says_so() -> None:
    raw = payload_json(kira_page(2))
    raw["listMessage"][0].update(updatedDate="récemment", updatedAuthorName="Ryuk_Shinigami",
                                 updatedText=None)
    data = with_payload(kira_page(2), base64.b64encode(gzip.compress(json.dumps(raw).encode())))
    post = ENGINE.parse_page(data, ctx(TOPIC.format(2))).posts[0]
    assert post.edit is not None
    assert (post.edit.editor, post.edit.edited_at) == ("Ryuk_Shinigami", None)
    assert post.notes == (("edit notice without a readable date: "
                          "'Message édité le récemment par Ryuk_Shinigami'"),)


def test_jvcare_links() -> None:
    assert decode_jvcare("JvCare 1F4A lien-jv") == "/a"  # '/' = 0x2F -> "1F", 'a' = 0x61 -> "4A"
    assert decode_jvcare("lien-jv") is None
    assert decode_jvcare("JvCare XYZ1 lien-jv") is None


# The current page's item, as the XPath `jv._current_item` stands in for finds it.
CURRENT_XPATH = etree.XPath(f"descendant::*[{has_class_xpath('page-active')} or "
                            f"{has_class_xpath('pagination__item--current')}]")
PAGER_CLASSES = st.lists(st.sampled_from(
    ["page-active", "pagination__item--current", "pagination__item", "x", " ", "\t", "\n",
     "\x0b", "\x0c", "\xa0", "\u2003", "Page-active", "page-active-x"]), max_size=5).map("".join)


@given(classes=st.lists(st.one_of(st.none(), PAGER_CLASSES), max_size=5),
       nested=st.lists(st.booleans(), max_size=5))
def test_the_current_pager_item_is_the_xpath_s(classes: list[str | None],
                                                nested: list[bool]) -> None:
    markup, ends = '<div class="page-active">', "</div>"  # the pager itself is not its item
    for names, inside in zip(classes, nested + [False] * len(classes), strict=False):
        markup += "<span>" if names is None else f'<span class="{names}">'
        markup += "<!-- c -->2"
        if inside:
            ends = "</span>" + ends
        else:
            markup += "</span>"
    pager = etree.fromstring(f"<html><body>{markup}{ends}</body></html>", etree.HTMLParser())[0][0]
    found = CURRENT_XPATH(pager)
    assert jv._current_item(pager) is (found[0] if found else None)



@pytest.mark.parametrize(("file", "what"), [
    ("cloudflare.html", ("Cloudflare challenge \"Just a moment...\"; open the topic in a browser "
                        "and save the page, or retry later")),
    ("topic-not-found.html", "the topic does not exist: JV redirects to forums.htm"),
    ("not-found-404.html", ("no message in the page, titled "
                           "'Erreur 404 - Page introuvable - jeuxvideo.com'")),
    ("phpbb-prosilver.html", "no JV message markup; the page looks like another forum's"),
    # Real pages (RespawnIRC tests/fixtures): a forum's topic list saved for a topic, and what
    # JV answers for a topic that does not exist.
    ("forum-list-2026.html", "a forum's list of topics, not a topic; save a page of the topic itself"),
    ("topic-not-found-real.html", "the topic does not exist: JV redirects to forums.htm"),
])
def test_not_a_thread_page(file: str, what: str) -> None:
    with pytest.raises(NotAThreadPage) as caught:
        ENGINE.parse_page((ERRORS / file).read_bytes(), ctx())
    assert str(caught.value) == f"jeuxvideo.com: {TOPIC.format(1)}: not a thread page ({what})"


def test_truncated_page() -> None:
    with pytest.raises(TruncatedPage) as caught:
        ENGINE.parse_page((ERRORS / "truncated.html").read_bytes(), ctx())
    assert str(caught.value) == (f"jeuxvideo.com: {TOPIC.format(1)}: truncated page "
                                 "(the document ends before </html>)")


def test_challenge_script_injected_into_a_real_page_does_not_hide_it() -> None:
    # Cloudflare's bot-detection script ("/cdn-cgi/challenge-platform/scripts/jsd/main.js")
    # rides along on ordinary pages: the page is still read.
    script = (b"<script>(function(){var a=document.createElement('script');"
              b"a.src='/cdn-cgi/challenge-platform/scripts/jsd/main.js';"
              b"document.head.appendChild(a);})();</script></body>")
    page = ENGINE.parse_page(kira_page(2).replace(b"</body>", script), ctx(TOPIC.format(2)))
    assert len(page.posts) == 6


@pytest.mark.parametrize("quoted", [b"window._cf_chl_opt={cvId: '3'}", b'&lt;form id="challenge-form"&gt;'])
def test_a_member_quoting_a_challenge_page_is_not_a_challenge(quoted: bytes) -> None:
    """A player pasting a piece of Cloudflare's challenge into a message: the topic is read."""
    for number, count in ((1, 20), (2, 6)):
        data = kira_page(number).replace(b'<p class="message__p">',
                                         b'<p class="message__p">' + quoted + b" ", 1)
        assert len(ENGINE.parse_page(data, ctx(TOPIC.format(number))).posts) == count
    legacy = casefiles.load_case(JV_DIR / "legacy").pages[0]
    data = legacy.data.replace(b'<p>', b'<p>' + quoted + b" ", 1)
    assert data != legacy.data
    assert len(ENGINE.parse_page(data, legacy.ctx).posts) == len(
        ENGINE.parse_page(legacy.data, legacy.ctx).posts)


# ---------------------------------------------------------------------------------------------
# What is not a message on real guest pages (issue 13): skipped, named in Page.notes; a real
# message that cannot be read stops the count (ForumError: exit 4).

REAL = JV_DIR / "real-2026"
REAL_URL = "https://www.jeuxvideo.com/forums/42-3016891-77054608-{}-0-1-0-blabla-le-cadeau-de-l-ange.htm"
REAL_FETCHED = times.parse_iso("2026-07-27T13:11:26Z")
AD_SLOTS = "ad slots between the messages skipped (<ins data-ad-position>, ads): not messages"


def real_page(number: int = 1200, payload: bool = True) -> bytes:
    folder = REAL if payload else JV_DIR / "real-2026-html"
    return (folder / f"page-{number}.html").read_bytes()


def real_ctx(number: int = 1200) -> PageContext:
    return PageContext(url=REAL_URL.format(number), fetched_at=REAL_FETCHED, zone="Europe/Paris")


def legacy_page() -> tuple[bytes, PageContext]:
    saved = casefiles.load_case(JV_DIR / "legacy").pages[0]
    return saved.data, saved.ctx


@pytest.mark.parametrize(("number", "payload"), [(1, True), (1200, True), (1200, False)])
def test_real_pages_skip_their_ad_slots_and_say_so(number: int, payload: bool) -> None:
    data = real_page(number, payload)
    messages = etree.fromstring(data, etree.HTMLParser()).xpath("//*[@id='listMessages']")[0]
    assert [e.get("data-ad-position") for e in messages if e.tag == "ins"] == [
        "rectangle_atf", "rectangle_mtf", "rectangle_btf"]
    page = ENGINE.parse_page(data, real_ctx(number))
    assert page.notes == (AD_SLOTS,)
    assert len(page.posts) == 20


def test_a_deleted_message_placeholder_in_the_payload_is_skipped_with_a_note() -> None:
    raw = payload_json(real_page())
    placeholder = {"id": 1319516100, "stateMessage": "msg-deleted", "publishedAuthorName": "",
                   "publishedDate": "", "renderedText": "", "text": ""}
    raw["listMessage"].insert(1, placeholder)
    data = with_payload(real_page(), base64.b64encode(gzip.compress(json.dumps(raw).encode())))
    page = ENGINE.parse_page(data, real_ctx())
    assert [p.id for p in page.posts] == [p.id for p in ENGINE.parse_page(real_page(), real_ctx()).posts]
    assert page.notes == ("message 1319516100 skipped: a deleted message's placeholder "
                          "(msg-deleted), no author or time in the payload", AD_SLOTS)


def test_a_deleted_message_with_its_author_and_time_is_kept_as_deleted() -> None:
    """Not a placeholder: the rules judge a deleted vote (kira-2026's 1312400590)."""
    posts = {p.id: p for p in ENGINE.parse_page(kira_page(), ctx()).posts}
    assert posts["1312400590"].deleted and posts["1312400590"].author == "Matsuda"


def test_a_deleted_message_placeholder_in_the_html_is_skipped_with_a_note() -> None:
    anchor = b'<span id="post_1319516104" class="messageUser__anchor"></span>'
    placeholder = (b'<span id="post_1319516100" class="messageUser__anchor"></span>'
                   b'<div class="messageUser msg-deleted" id="message-1319516100">'
                   b'<div class="messageUser__card">Message supprim\xc3\xa9</div></div>')
    data = real_page(payload=False).replace(anchor, placeholder + anchor, 1)
    assert data != real_page(payload=False)
    page = ENGINE.parse_page(data, real_ctx())
    assert "1319516100" not in [p.id for p in page.posts] and len(page.posts) == 20
    assert page.notes == ("message 1319516100 skipped: a deleted message's placeholder "
                          "(messageUser msg-deleted), no author or text shown", AD_SLOTS)


def test_a_login_prompt_and_an_unknown_block_between_messages_are_named() -> None:
    anchor = b'<span id="post_1319516104" class="messageUser__anchor"></span>'
    blocks = (b'<div class="bloc-connexion"><a href="/login">Connectez-vous</a> pour r\xc3\xa9pondre'
              b'</div><div class="promo-widget"><p>Nouveau : les forums en direct</p></div>')
    data = real_page(payload=False).replace(anchor, blocks + anchor, 1)
    page = ENGINE.parse_page(data, real_ctx())
    assert len(page.posts) == 20
    assert page.notes == ("a login prompt between the messages skipped: not a message",
                          'a <div class="promo-widget"> block between the messages skipped: '
                          "not a message", AD_SLOTS)


@pytest.mark.parametrize(("wrapper", "names"), [("", "bloc-message-forum "),
                                                ('<div class="pub-wrapper">', "pub-wrapper")])
def test_a_message_without_its_id_stops_the_count_rather_than_vanish(wrapper: str,
                                                                      names: str) -> None:
    """Never silently drop a real message: a message block the reader cannot identify (here a
    legacy message whose data-id was lost, bare or inside a block with an ad's class name) is a
    ForumError (exit 4), naming the block."""
    data, page_ctx = legacy_page()
    broken = re.sub(rb'(<div class="bloc-message-forum[^"]*") data-id="780100032"',
                    wrapper.encode() + rb"\1", data)
    if wrapper:  # the wrapper closes before the next message's anchor
        at = broken.index(b'<span id="post_780100055"')
        broken = broken[:at] + b"</div>" + broken[at:]
    assert broken != data
    with pytest.raises(ForumError) as caught:
        ENGINE.parse_page(broken, page_ctx)
    assert str(caught.value) == (f"jeuxvideo.com: {page_ctx.url}: a message without an id (div class "
                                 f"'{names}'): cannot tell which post it is")
    assert caught.value.exit_code == 4


def test_a_message_hidden_by_the_saving_account_s_blacklist_stops_the_count() -> None:
    data, page_ctx = legacy_page()
    start = data.index(b'data-id="780100032"')
    cut = re.compile(rb'<div class="txt-msg[^"]*">.*?</div>', re.DOTALL)
    # the message's class gets the blacklist mark, and its text is gone (JV shows a notice)
    head = data[:start]
    at = head.rindex(b'class="bloc-message-forum ')
    head = head[:at] + b'class="bloc-message-forum msg-pseudo-blacklist ' + head[at + 26:]
    tail = cut.sub(b"<p>Vous avez ignor\xc3\xa9 ce pseudo.</p>", data[start:], count=1)
    with pytest.raises(ForumError) as caught:
        ENGINE.parse_page(head + tail, page_ctx)
    assert str(caught.value) == (f"jeuxvideo.com: {page_ctx.url}: post 780100032: hidden by the "
                                 "blacklist of the account that saved the page; save it logged "
                                 "out, or with the blacklist off")


def test_a_payload_message_hidden_by_the_blacklist_stops_the_count() -> None:
    raw = payload_json(real_page())
    raw["listMessage"][3].update(isBlacklisted=True, renderedText="")
    data = with_payload(real_page(), base64.b64encode(gzip.compress(json.dumps(raw).encode())))
    with pytest.raises(ForumError, match=r": post 1319516536: hidden by the blacklist of the "
                                         r"account that saved the page"):
        ENGINE.parse_page(data, real_ctx())


def test_thread_id_from_the_pager_when_the_head_names_no_topic_and_none_without() -> None:
    data = re.sub(rb'<link rel="alternate"[^>]*>', b"", real_page(payload=False))
    assert b'rel="alternate"' not in data
    assert ENGINE.parse_page(data, real_ctx()).thread_id == "77054608"  # JvCare pager links
    legacy, page_ctx = legacy_page()
    bare = re.sub(rb'<link rel="canonical"[^>]*>', b"", legacy)
    bare = re.sub(rb'<a href="[^"]*39871234[^"]*"[^>]*>', b"<a>", bare)
    assert b"39871234" not in bare  # the page names its topic nowhere now
    assert ENGINE.parse_page(bare, page_ctx).thread_id is None


KIRA_REAL = JV_DIR / "kira-real-2026"


def count_kira_real(*options: str):
    from typer.testing import CliRunner

    from tally.cli import app

    return CliRunner().invoke(app, [options[0], str(KIRA_REAL / "game.toml"), "--from",
                                    str(KIRA_REAL), "--fetched-at", "2026-07-27T13:11:26Z",
                                    *options[1:]])


def test_a_kira_day_on_a_real_page_counts_what_its_posts_show() -> None:
    """End to end on real 2026 markup (fixtures/jv/kira-real-2026/README.md reads the tally off
    the posts): `tally count --from`, JSON."""
    result = count_kira_real("count", "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    counts = {c["player"]: list(zip(c["voters"], c["posts"])) for c in data["counts"]}
    assert counts == {
        "Qingyi": [("Maredioa", "1316659368"), ("Coll0", "1316659408"),
                   ("Trey_Azagthoth", "1316659448"), ("OumaeKumiko", "1316659912"),
                   ("Shunyumi", "1316660368"), ("Treiben", "1316661488")],
        "Maredioa": [("Qingyi", "1316659592"), ("Neko-Supremacy", "1316660512")],
        "Hillojow": [("Mogica", "1316660520")],
    }
    assert sorted(data["not_voting"]) == ["Hillojow", "Raiko_"]
    outcome = data["outcome"]
    assert (outcome["result"], outcome["player"], outcome["rule"]) == ("eliminated", "Qingyi", "K10")


@pytest.mark.parametrize(("post", "words"), [
    ("1316659360", ["VOID", "[K4]", "Message édité le 02 juin 2026 à 22:29:23 par Hillojow"]),
    ("1316659376", ["NOT_A_VOTE"]),  # its vote is in a spoiler
    ("1316659616", ["NOT_A_VOTE"]),  # its vote is in a quote of Hillojow
    ("1316659384", ["SUPERSEDED", "replaced by post 1316659448"]),
])
def test_the_audit_of_the_real_page_explains_each_post(post: str, words: list[str]) -> None:
    result = count_kira_real("audit", "--post", post)
    assert result.exit_code == 0, result.output
    for word in words:
        assert word in result.stdout, result.stdout


def test_the_skipped_ad_slots_reach_the_gm_report() -> None:
    """End to end (issue 13): the GM report's "Reading the thread" says what was skipped."""
    result = count_kira_real("count", "--format", "text")
    assert result.exit_code == 0, result.output
    reading = result.output.split("Reading the thread:\n", 1)[1]
    assert reading.splitlines()[0] == f"  - {AD_SLOTS}"


def test_a_stray_page_of_another_topic_stops_the_count(tmp_path: Path) -> None:
    """Issue 16 on JV: a real page of topic 77054608 saved among kira-2026's pages (topic
    74125893) is named by the topic it says, whatever its file name."""
    from typer.testing import CliRunner

    from tally.cli import app

    pages = tmp_path / "pages"
    pages.mkdir()
    for number in (1, 2):
        (pages / f"page-{number}.html").write_bytes(kira_page(number))
    (pages / "page-3.html").write_bytes(real_page())
    result = CliRunner().invoke(app, ["count", str(JV_DIR / "kira-2026" / "game.toml"), "--from",
                                      str(pages), "--fetched-at", "2026-06-03T03:30:00Z"])
    assert result.exit_code == 4, result.output
    assert "page 1200 is from topic 77054608, not 74125893" in result.output


def test_count_strict_runs_the_canary_on_every_message(tmp_path: Path) -> None:
    """`tally count --strict` reaches the reader (PageContext.strict): a middle message whose
    HTML shows another time is noted in its verdict's evidence only then."""
    from typer.testing import CliRunner

    from tally.cli import app

    pages = tmp_path / "pages"
    pages.mkdir()
    shown = 'messageUser__date">02 juin 2026 à 22:28:00<'.encode()  # Qingyi's 1316659592
    data = (KIRA_REAL / "page-1.html").read_bytes()
    assert data.count(shown) == 1
    (pages / "page-1.html").write_bytes(data.replace(shown, shown.replace(b"22:28:00", b"22:18:00")))
    note = ("note: the page shows '02 juin 2026 à 22:18:00' where the payload says "
            "'02 juin 2026 à 22:28:00'; the payload is used")

    def evidence(*strict: str) -> list[str]:
        result = CliRunner().invoke(app, ["count", str(KIRA_REAL / "game.toml"), "--from",
                                          str(pages), "--fetched-at", "2026-07-27T13:11:26Z",
                                          "--format", "json", *strict])
        assert result.exit_code == 0, result.output
        verdicts = json.loads(result.stdout)["verdicts"]
        return next(v for v in verdicts if v["post"] == "1316659592")["evidence"]

    assert note not in evidence()
    assert note in evidence("--strict")
    assert not base.STRICT_READING.get()  # the command's setting does not outlive it


# ---------------------------------------------------------------------------------------------
# What a template or a saving tool does to a stock page changes nothing of what it says (moved
# from the retired tests/test_jv_fastpath.py: these are the reader's, not a second reader's).

def guest_links(data: bytes) -> bytes:
    """The logged-in legacy page as a guest sees it: JvCare spans for profile, date, editor and
    pager links (FORUMS.md §3.2, §3.4)."""
    return re.sub(rb'<a href="[^"]*" (target="_blank" )?class="([^"]*)">',
                  rb'<span class="JvCare 1F4A \2" \1>', data).replace(b"</a>", b"</span>")


TEMPLATE_CHANGES = {
    "guest JvCare spans": guest_links,
    "attributes reordered": lambda data: re.sub(
        rb'<div class="(bloc-message-forum [^"]*)" (data-id="\d+")>', rb'<div \2 class="\1">', data),
    "CRLF line ends": lambda data: data.replace(b"\n", b"\r\n"),
    "byte-order mark": lambda data: b"\xef\xbb\xbf" + data,
    "upper-case chrome divs": lambda data: data.replace(b'<div class="bloc-contenu">',
                                                        b'<DIV class="bloc-contenu">'),
}


@pytest.mark.parametrize("change", TEMPLATE_CHANGES, ids=list(TEMPLATE_CHANGES))
@pytest.mark.parametrize("number", [0, 1])
def test_a_changed_legacy_template_reads_the_same(change: str, number: int) -> None:
    saved = casefiles.load_case(JV_DIR / "legacy").pages[number]
    changed = TEMPLATE_CHANGES[change](saved.data)
    assert changed != saved.data
    page, original = ENGINE.parse_page(changed, saved.ctx), ENGINE.parse_page(saved.data, saved.ctx)
    assert page.posts == original.posts
    assert (page.number, page.count, page.next_url, page.thread_id, page.title) == (
        original.number, original.count, original.next_url, original.thread_id, original.title)


def test_a_deleted_message_seen_by_a_moderator_is_read_as_deleted() -> None:
    """msg-supprime (§3.2): the message is read, marked deleted; the rules judge it."""
    posts = {p.id: p for p in ENGINE.parse_page(*legacy_page()).posts}
    assert [p.id for p in posts.values() if p.deleted] == ["780100177"]
    assert posts["780100177"].author and posts["780100177"].body.own


MONTHS = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre",
          "octobre", "novembre", "décembre"]


@given(day=st.integers(0, 39), month=st.sampled_from(MONTHS), year=st.integers(990, 2100),
       hour=st.integers(0, 25), minute=st.integers(0, 61), second=st.sampled_from(["", ":07", ":61"]),
       editor=st.sampled_from(["Near_", "Ryuk Shinigami", "12:00", ""]))
def test_an_edit_notice_date_reads_as_the_shared_reader_reads_it(
        day: int, month: str, year: int, hour: int, minute: int, second: str, editor: str) -> None:
    """The notice's date is read in one match of the stock form; it must agree with the shared
    date reader on every text, including those it refuses."""
    text = f"Message édité le {day:02d} {month} {year} à {hour:02d}:{minute:02d}{second} par {editor}"
    found = jv._EDIT_TEXT.search(text)
    assert found is not None
    assert (dates.stock_date(found.group(1)) or full_date(text)) == full_date(text)


# ---------------------------------------------------------------------------------------------
# The legacy front-end as a guest saw it, around real markup (fixtures/jv/legacy-guest-2025)

LEGACY_GUEST = JV_DIR / "legacy-guest-2025"


def legacy_guest_page() -> tuple[bytes, PageContext]:
    saved = casefiles.load_case(LEGACY_GUEST).pages[0]
    return saved.data, saved.ctx


def test_real_legacy_quotes_hold_the_hidden_text_without_the_spoiler_toggles() -> None:
    """The real body's quotes hold inline spoilers: their "Spoil" / "Afficher" / "Masquer"
    toggles were glued to the hidden text ("SpoilAfficherMasquertest")."""
    data, page_ctx = legacy_guest_page()
    body = ENGINE.parse_page(data, page_ctx).posts[1].body
    assert [q.text for q in body.quotes] == [
        "test", "test test test\ntest\ntest\ntest\ntest\ntest",
        "test\ntest\ntest\ntest\ntest\ntest\ntest\ntest"]
    assert (body.spoilers, body.code) == (("test",), ("test test",))


def test_a_guest_s_legacy_pager_of_jvcare_links_gives_the_page_count() -> None:
    """Pages 2 and 3 exist only as JvCare spans (FORUMS.md §3.4): a count from page 1 alone
    stops and names them, exit 3."""
    from typer.testing import CliRunner

    from tally.cli import app

    result = CliRunner().invoke(app, ["count", str(LEGACY_GUEST / "game.toml"), "--from",
                                      str(LEGACY_GUEST), "--fetched-at", "2025-07-26T20:30:00Z"])
    assert result.exit_code == 3, result.output
    assert "pages 2, 3 of 3 missing" in result.output


def test_a_kira_day_on_a_guest_s_legacy_page_counts_what_its_posts_show(tmp_path: Path) -> None:
    """The same page as a one-page topic (its pager cut down to the current page): L-Lawliet's
    vote counts, MisaAmane's bold vote counts and the vote she quotes does not, Mogi-Kanzo's
    edited vote is void (K4), Aizawa's vote in a spoiler is no vote; the real body votes none."""
    from typer.testing import CliRunner

    from tally.cli import app

    data = (LEGACY_GUEST / "page-1.html").read_text(encoding="utf-8")
    one = re.sub(r'<div class="bloc-liste-num-page">.*?<div class="pagi-after">.*?</div>',
                 '<div class="bloc-liste-num-page"><span class="page-active">1</span></div>',
                 data)
    assert one.count("pagi-fin-actif") == 0 and one.count('data-id="') == 6
    (tmp_path / "page-1.html").write_text(one, encoding="utf-8")
    result = CliRunner().invoke(app, ["count", str(LEGACY_GUEST / "game.toml"), "--from",
                                      str(tmp_path), "--fetched-at", "2025-07-26T20:30:00Z",
                                      "--format", "json"])
    assert result.exit_code == 0, result.output
    got = json.loads(result.stdout)
    assert {c["player"]: list(zip(c["voters"], c["posts"])) for c in got["counts"]} == {
        "Light_Yagami16": [("L-Lawliet", "780300048")],
        "L-Lawliet": [("MisaAmane", "780300061")],
    }
    assert got["not_voting"] == ["InBigDespite2", "Mogi-Kanzo", "Aizawa", "Light_Yagami16"]
    assert got["outcome"]["result"] == "none"


def test_the_bottom_pager_inside_the_message_list_is_chrome_not_a_note() -> None:
    data, page_ctx = legacy_guest_page()
    assert data.count(b'<div class="bloc-pagi-default">') == 2  # one inside the list
    assert ENGINE.parse_page(data, page_ctx).notes == ()


@pytest.mark.parametrize("wrapper", ['<ins data-ad-position="rectangle_mtf">',
                                     '<div class="bloc-pagi-default">'])
def test_a_message_in_a_second_ad_slot_or_in_the_pager_stops_the_count(wrapper: str) -> None:
    """Every block beside the messages is looked into, not only the first of each kind: a
    message that lost its id inside the second ad slot, or inside the list's own pager, is a
    message that cannot be read (exit 4), not an ad to skip."""
    data, page_ctx = legacy_guest_page()
    text = data.decode("utf-8")
    start = text.index('<span id="post_780300102"')
    end = text.index('<div class="bloc-pagi-default">', start)
    lost = text[start:end].replace(' data-id="780300102"', "")
    tag = wrapper[1:wrapper.index(" ")]
    changed = (text[:start] + '<ins data-ad-position="rectangle_atf"></ins>'
               + wrapper + lost + f"</{tag}>" + text[end:])
    with pytest.raises(ForumError, match="a message without an id"):
        ENGINE.parse_page(changed.encode("utf-8"), page_ctx)


# Real JvCare links and what they hide (Contrapunctus-XIV/jv-client lib/tests/vars.ts
# jvCareMarkup / jvCareMarkupExpected, 077e5057, ISC): JV's footer as a guest gets it.
@pytest.mark.parametrize(("code", "url"), [
    ("1F424F49CB4A42CB19C045C0", "/contact.php"),
    ("1F424FC0C6C1464C45CB1945CB4E", "/copyright.htm"),
    ("1FC243C1C4464243C21F4C43C143C11EC3CB46CA1945CB4E", "/services/gerer-utiq.htm"),
    ("4D4AC44AC242C146C0CB2D4DC442194B46C2C0484AC6B24F4F474643B24F49C24349CB151627",
     "javascript:jvc.displayCookieConsent();"),
    ("1F4943CCC24843CBCB43C11F", "/newsletter/"),
])
def test_real_jvcare_links_decode_to_their_urls(code: str, url: str) -> None:
    assert decode_jvcare(f"JvCare {code} footer__link") == url


def test_an_edit_notice_s_class_inside_a_member_s_text_is_not_the_message_s_edit() -> None:
    """The message's parts are looked for outside what the member wrote (find_parts does not
    enter the text): a notice inside the text would void the vote (K4) on the strength of
    markup the member's text carries, not the page's own notice."""
    data, page_ctx = legacy_guest_page()
    text = data.decode("utf-8")
    start = text.index('data-id="780300048"')
    body = text.index('<p>vote: Light_Yagami16</p>', start)
    inside = ('<div class="info-edition-msg">Message édité le 26 juillet 2025 à 17:40:00 par '
              '<span class="JvCare 0A12" target="_blank">L-Lawliet</span></div>')
    changed = (text[:body] + inside + text[body:]).encode("utf-8")
    post = next(p for p in ENGINE.parse_page(changed, page_ctx).posts if p.id == "780300048")
    assert post.edit is None
    assert post.body.own == "vote: Light_Yagami16"
