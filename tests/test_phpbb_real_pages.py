"""phpBB on real markup (issue 13, 16): pages rendered from the stock 3.3.11 prosilver templates
(fixtures/phpbb/stock-prosilver-33, with the Advertisement Management extension's ads between
posts, a soft-deleted post and an ignored member's post) and real pages of a phpBB 3.2 board
(fixtures/phpbb/dostips-32). What is not a post is skipped and named for the audit; a real post
that cannot be read still stops the count; the topic id comes from the page, not the URL."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import casefiles
import pytest
from typer.testing import CliRunner

from tally.adapters.phpbb import PhpBB
from tally.cli import app
from tally.errors import ForumError, TruncatedPage

ENGINE = PhpBB()
STOCK = casefiles.FIXTURES / "phpbb" / "stock-prosilver-33"
DOSTIPS = casefiles.FIXTURES / "phpbb" / "dostips-32"


def stock(number: int) -> casefiles.CasePage:
    return casefiles.load_case(STOCK).pages[number - 1]


def parse(page: casefiles.CasePage, data: bytes | None = None, url: str | None = None):
    ctx = page.ctx if url is None else replace(page.ctx, url=url)
    return ENGINE.parse_page(page.data if data is None else data, ctx)


# --- what is not a post -----------------------------------------------------------------------


def test_ads_between_posts_are_skipped_and_named_once() -> None:
    page = parse(stock(1))
    assert [p.id for p in page.posts] == [str(n) for n in range(5201, 5211)]
    assert "skipped between the posts, not posts: div.phpbb-ads-center (9 times)" in page.notes
    # The banner's alt text says "vote: Alice": it is in no post.
    assert not any("vote: Alice" in p.body.own for p in page.posts if p.id != "5209")


def test_an_ignored_members_post_is_read_from_the_hidden_copy_and_noted() -> None:
    page = parse(stock(2))
    mallory = next(p for p in page.posts if p.id == "5212")
    assert (mallory.author, mallory.deleted, mallory.body.own) == ("Mallory", False, "vote: Grace")
    assert ("post 5212: hidden for this account (Mallory, who is currently on your ignore list, "
            "made this post. Display this post); read from the copy the page still holds"
            ) in page.notes


def test_a_soft_deleted_post_is_read_as_deleted_and_noted() -> None:
    page = parse(stock(2))
    eve = next(p for p in page.posts if p.id == "5213")
    assert (eve.deleted, eve.edit, eve.position) == (True, None, 13)
    assert any(note.startswith("post 5213: deleted on the forum, shown to moderators (Eve "
                               "deleted the post by Eve on Thu Nov 19, 2026 9:16 pm.")
               for note in page.notes)


def test_a_30_placeholder_without_the_post_keeps_its_place_and_is_noted() -> None:
    """prosilver 3.0 prints only div.ignore for an ignored member's post: nothing to read."""
    data = stock(2).data.decode("utf-8")
    start = data.index('<div class="content">vote: Grace</div>')
    end = data.index("</div>", start) + len("</div>")
    data = data[:start] + data[end:]
    start = data.index('<div id="post_content5212"')
    data = data[:start] + data[start:].replace('class="author"', 'class="x-author"', 1)
    page = parse(stock(2), data.encode("utf-8"))
    assert "5212" not in [p.id for p in page.posts]
    assert [(p.id, p.position) for p in page.posts[1:3]] == [("5213", 13), ("5214", 14)]
    assert any(n.startswith("post 5212: hidden on this page, not read (Mallory, who is "
                            "currently on your ignore list") for n in page.notes)


def test_a_real_post_without_its_message_still_stops_the_count() -> None:
    data = stock(1).data.replace(b'<div class="content">vote: Bob</div>', b"")
    with pytest.raises(TruncatedPage, match="post 5205 has no message"):
        parse(stock(1), data)


def test_a_real_post_without_an_author_still_stops_the_count() -> None:
    data = re.sub(rb'(<dl class="postprofile" id="profile5204".*?</dl>)', b"", stock(1).data,
                  flags=re.DOTALL)
    data = data.replace(b'<strong><a href="./memberlist.php?mode=viewprofile&amp;u=6" '
                        b'class="username">Dan</a></strong>', b"")
    with pytest.raises(ForumError, match="post 5204: no author name"):
        parse(stock(1), data)


def test_the_reading_notes_reach_the_gm_report(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, [
        "count", str(STOCK / "game.toml"), "--from", str(STOCK), "--fetched-at",
        "2026-11-20 12:00", "--format", "text", "--store", str(tmp_path / "s.sqlite")])
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "Dan (3): Alice, Frank, Grace" in out
    assert "Grace (1): Mallory" in out  # the ignored member's vote counts
    reading = out.split("Reading the thread:", 1)[1]
    assert "skipped between the posts, not posts: div.phpbb-ads-center (9 times)" in reading
    assert "post 5212: hidden for this account" in reading
    assert "post 5213: deleted on the forum, shown to moderators" in reading


# --- the topic a page shows (issue 16) -----------------------------------------------------------


@pytest.mark.parametrize(("case", "file", "topic"), [
    (STOCK, "page-1.html", "5120"), (STOCK, "page-2.html", "5120"),
    (DOSTIPS, "viewtopic0087.html", "6044"), (DOSTIPS, "viewtopic0006.html", "7153"),
    (DOSTIPS, "viewtopic0760.html", "8601"),
])
def test_the_topic_id_is_read_from_the_page_not_the_url(case: Path, file: str,
                                                         topic: str) -> None:
    saved = next(p for p in casefiles.load_case(case).pages if p.file == file)
    other = "https://mafia.example.org/forum/viewtopic.php?t=77"
    assert parse(saved, url=other).thread_id == topic


@pytest.mark.parametrize("kept", [
    '<link rel="canonical" href="https://mafia.example.org/forum/viewtopic.php?t=5120">',
    'href="./posting.php?mode=reply&amp;t=5120"',
    '<h2 class="topic-title"><a href="./viewtopic.php?t=5120">',
    'href="./viewtopic.php?t=5120&amp;start=10" role="button">2</a>',
], ids=["canonical", "reply button", "title link", "pagination"])
def test_each_place_that_names_the_topic_is_enough(kept: str) -> None:
    data = stock(1).data.decode("utf-8")
    assert kept in data
    alone = data.replace("t=5120", "p=5201").replace(kept.replace("t=5120", "p=5201"), kept, 1)
    page = parse(stock(1), alone.encode("utf-8"), url="https://mafia.example.org/forum/x.php")
    assert page.thread_id == "5120"


def test_a_page_that_names_no_topic_has_no_topic_id() -> None:
    data = re.sub(rb"t=5120", b"p=5201", stock(2).data)
    assert parse(stock(2), data).thread_id is None


# --- edit notices in the boards' languages ---------------------------------------------------
# Each pack's EDITED_TIMES_TOTAL wording (plural form), with its own date format and names; the
# editor is the profile link. Before, every notice but the en/es/fr ones was read as no edit.
CAROL = '<a href="./memberlist.php?mode=viewprofile&amp;u=5" class="username">Carol</a>'
NOTICES = {
    "ru": f"Последний раз редактировалось {CAROL} Чт ноя 19, 2026 6:50 pm, всего редактировалось 3 раз(а).",
    "de": f"Zuletzt geändert von {CAROL} am Do 19. Nov 2026, 18:50, insgesamt 3-mal geändert.",
    "nl": f"Laatst gewijzigd door {CAROL} op do 19 nov 2026, 18:50, 3 keer totaal gewijzigd.",
    "pl": f"Ostatnio zmieniony czw 19 lis 2026, 18:50 przez {CAROL}, łącznie zmieniany 3 razy.",
    "it": f"Ultima modifica di {CAROL} il gio 19 nov 2026, 18:50, modificato 3 volte in totale.",
    "pt": f"Última edição por {CAROL} em Qui Nov 19, 2026 6:50 pm, editado 3 vezes no total.",
    "ro": f"Ultima oară modificat joi 19 noi 2026, 18:50 de către {CAROL}, modificat de 3 ori în total.",
    "tr": f"En son 19 Kas 2026 Per, 18:50 tarihinde {CAROL} tarafından olmak üzere toplamda 3 kere düzenlendi.",
    "es": f"Última edición por {CAROL} el Jue 19 Nov 2026, 18:50, editado 3 veces en total.",
}
EN_NOTICE = ('Last edited by <a href="./memberlist.php?mode=viewprofile&amp;u=5" '
             'class="username">Carol</a> on Thu Nov 19, 2026 6:50 pm, edited 1 time in total.')


def _with_notice(html: str) -> bytes:
    data = stock(1).data.decode("utf-8")
    assert EN_NOTICE in data
    return data.replace(EN_NOTICE, html).encode("utf-8")


def _carol(html: str):
    return next(p for p in parse(stock(1), _with_notice(html)).posts if p.id == "5205")


@pytest.mark.parametrize("language", sorted(NOTICES))
def test_an_edit_notice_in_the_boards_language_is_an_edit(language: str) -> None:
    edit = _carol(NOTICES[language]).edit
    assert edit is not None, language
    # The board's zone is UTC-03:00: 18:50 there is 21:50 UTC.
    assert (edit.editor, edit.edited_at.isoformat(), edit.times) == (
        "Carol", "2026-11-19T21:50:00+00:00", 3)


def test_the_edit_reason_after_the_notice_is_no_part_of_its_count_or_time() -> None:
    edit = _carol(NOTICES["ru"] + "<br><strong>Причина:</strong> <em>голос 7, не 12:00 12 ноя "
                  "2026</em>").edit
    assert edit is not None
    assert (edit.edited_at.isoformat(), edit.times) == ("2026-11-19T21:50:00+00:00", 3)


@pytest.mark.parametrize("notice", [
    f"Sidst redigeret af {CAROL} 19 nov 2026, 18:50, redigeret 3 gange i alt.",  # da
    f"Utoljára szerkesztette: {CAROL} 2026. nov. 19., 18:50, összesen 3 alkalommal.",  # hu
    f"Viimeksi muokannut {CAROL} 19 marras 2026, 18:50, muokattu yhteensä 3 kertaa.",  # fi
    f"Τελευταία επεξεργασία από {CAROL} 19 Νοε 2026, 18:50, έχει επεξεργασθεί 3 φορές.",  # el
])
def test_an_edit_notice_of_a_pack_no_fixture_shows_is_never_read_as_no_edit(notice: str) -> None:
    """K4: an edit read as no edit counts an edited vote. The notice is an edit with its time,
    or, when its date does not read, the count stops naming it (exit 4)."""
    try:
        edit = _carol(notice).edit
    except ForumError as exc:
        assert "post 5205: cannot read the time of its edit notice" in str(exc)
    else:
        assert edit is not None and edit.edited_at is not None


@pytest.mark.parametrize("notice", [
    f"Last bumped by {CAROL} on Thu Nov 19, 2026 6:50 pm.",
    f"Последний раз поднималось {CAROL} Чт ноя 19, 2026 6:50 pm.",
])
def test_a_bump_notice_is_no_edit(notice: str) -> None:
    assert _carol(notice).edit is None


@pytest.mark.parametrize("cite", [
    "Carol писал(а):", "Carol schreef:", "Carol napisał(a):", "Carol yazdı:", "Carol a scris:",
    "Carol napsal:", "Carol 写道:",
])
def test_a_30_quote_caption_in_the_boards_language_names_its_author(cite: str) -> None:
    """3.0/3.1 prosilver print the caption as text ("X wrote:" in the pack's words)."""
    from lxml import html as lxml_html

    from tally.adapters.phpbb import read_quote

    quote = read_quote(lxml_html.fromstring(
        f"<blockquote><div><cite>{cite}</cite>vote: Dan</div></blockquote>"))
    assert (quote.author, quote.text) == ("Carol", "vote: Dan")


def test_an_edit_notice_whose_time_does_not_read_stops_the_count() -> None:
    """A vote edited after the deadline is void or moved (V-rules): an edit of unknown time
    would count as made in time. Before, the edit was kept with no time, silently."""
    notice = f"Последний раз редактировалось {CAROL} Чт нбр 19, 2026 6:50 pm, всего редактировалось 3 раз(а)."
    with pytest.raises(ForumError, match=r"post 5205: cannot read the time of its edit notice "
                                         r"'Последний раз редактировалось Carol Чт нбр 19"):
        parse(stock(1), _with_notice(notice))


# 3.0/3.1 print the date as bare text after "by X »" in the pack's words and date format; as
# real boards print them (fungi.pl: "czwartek, 28 lutego 2008, 21:42") and as the packs' default
# formats give them. The first post (18:00 in the board's UTC-03:00) must read as 21:00 UTC.
FIRST_LINE = ('<span class="responsive-hide">by <strong><a href="./memberlist.php?mode=viewprofile'
              '&amp;u=2" style="color: #AA0000;" class="username-coloured">Ryuk</a></strong> '
              '&raquo; </span><time datetime="2026-11-19T21:00:00+00:00">Thu Nov 19, 2026 6:00 pm'
              '</time>')


@pytest.mark.parametrize(("by", "shown"), [
    ("przez", "czwartek, 19 listopada 2026, 18:00"),
    ("von", "Do 19. Nov 2026, 18:00"),
    ("door", "do 19 nov 2026, 18:00"),
    ("de", "Joi 19 Noi 2026 18:00"),
    ("tarafından", "19 Kas 2026 Per, 18:00"),
    ("Автор", "Чт ноя 19, 2026 6:00 pm"),
    ("napsal", "čtvrtek 19. listopadu 2026 18:00"),
])
def test_a_30_date_line_in_the_boards_language(by: str, shown: str) -> None:
    data = stock(1).data.decode("utf-8")
    assert FIRST_LINE in data
    line = (f'<span class="responsive-hide">{by} <strong><a href="./memberlist.php?mode='
            f'viewprofile&amp;u=2" class="username">Ryuk</a></strong> &raquo; </span>{shown}')
    ryuk = parse(stock(1), data.replace(FIRST_LINE, line).encode("utf-8")).posts[0]
    assert (ryuk.author, ryuk.time_text, ryuk.created_at.isoformat()) == (
        "Ryuk", shown, "2026-11-19T21:00:00+00:00")
