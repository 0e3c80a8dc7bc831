"""phpBB 3.0-3.2 subsilver2, the table style (fixtures/phpbb/subsilver2-fr and subsilver2-en).

The saved pages are checked field by field by the generic case tests (test_adapter_phpbb.py,
casefiles.py); here: that they are picked up, what the page says beyond its posts, template
edits a board may have made (a derived style, the 3.1+ template), hidden posts, edit notices
among the other small print, errors that name the post, and the count through `tally count`.
The intended count is read off make_pages.py's table: Basile 3 (Dorian's bold vote 8805,
Fabien's vote fixed by the moderator 8808, Hortense 8810), Gaspard 2 (Isidore 8811 under a
nested quote, Amélie 8812 after taking back her vote for Basile), Dorian 1 (Élise 8807, whose
code block is an example), Fabien 1 (Gaspard 8809); Basile's own edit voids his vote (8803),
Céleste only quotes (8804) and votes at 20:01 (8814, late), Passant is a guest.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path

import casefiles
import pytest
from typer.testing import CliRunner

from tally import adapters
from tally.adapters.base import PageContext
from tally.adapters.phpbb import PhpBB
from tally.cli import app
from tally.errors import ForumError, NotAThreadPage, TruncatedPage
from tally.model import Page

ENGINE = PhpBB()
FOLDERS = {code: casefiles.FIXTURES / "phpbb" / f"subsilver2-{code}" for code in ("fr", "en")}
FR = FOLDERS["fr"]


def saved(code: str = "fr", number: int = 1) -> casefiles.CasePage:
    return casefiles.load_case(FOLDERS[code]).pages[number - 1]


def parse(data: bytes, code: str = "fr", number: int = 1) -> Page:
    return ENGINE.parse_page(data, saved(code, number).ctx)


def post_table(data: bytes, post_id: int) -> tuple[int, int]:
    """Where post `post_id`'s table.tablebg starts and the next post's starts."""
    start = data.rfind(b'<table class="tablebg"', 0, data.index(f'name="p{post_id}"'.encode()))
    following = data.index(f'name="p{post_id + 1}"'.encode())
    return start, data.rfind(b'<table class="tablebg"', 0, following)


# --- the saved pages ----------------------------------------------------------------------------


def test_both_cases_join_the_generic_fixture_tests() -> None:
    assert set(FOLDERS.values()) <= set(casefiles.case_dirs("phpbb"))


@pytest.mark.parametrize("code", FOLDERS)
def test_case_reads_as_written(code: str) -> None:
    casefiles.check_case(ENGINE, FOLDERS[code])


@pytest.mark.parametrize(("code", "footer"), [("fr", "Heures au format UTC + 1 heure"),
                                              ("en", "All times are UTC + 1 hour")])
def test_pages_link_on_and_say_the_board_zone(code: str, footer: str) -> None:
    first, second = parse(saved(code, 1).data, code, 1), parse(saved(code, 2).data, code, 2)
    base = f"http://{'loups.example.fr' if code == 'fr' else 'werewolves.example.com'}/forum/"
    assert [(p.number, p.count) for p in (first, second)] == [(1, 2), (2, 2)]
    # 10 per page comes from the "Go to page" links (start=10), not from a default.
    assert first.next_url == f"{base}viewtopic.php?f=5&t=314&start=10"
    assert second.next_url is None
    assert {(p.thread_id, p.notes) for p in (first, second)} == {("314", (f"footer says {footer!r}",))}
    assert first.posts[1].permalink == f"{base}viewtopic.php?p=8802#p8802"
    assert [p.position for p in second.posts] == [11, 12, 13, 14]


def test_sniff_and_other_engines_know_a_subsilver2_page() -> None:
    for code in FOLDERS:
        for number in (1, 2):
            found = adapters.sniff(saved(code, number).data)
            assert found is not None and found.name == "phpbb"
    page = saved()
    for name, engine in adapters.engines().items():
        if name != "phpbb":
            with pytest.raises(NotAThreadPage):
                engine.parse_page(page.data, page.ctx)


# --- template edits -----------------------------------------------------------------------------


def test_a_style_derived_from_subsilver2_reads_the_same() -> None:
    page = saved()
    renamed = page.data.replace(b"styles/subsilver2/", b"styles/Avalon/")
    assert renamed != page.data
    assert parse(renamed) == parse(page.data)


def test_the_3_1_template_reads_the_same() -> None:
    """3.1+ subsilver2: "{L_POSTED}{L_COLON}" (" :" in French), the subject as a link to the
    post, a div.postbody signature, bold as <strong>, class="imageset" on image links."""
    data = saved().data
    edited = data.replace(b"<b>Post\xc3\xa9:</b>", b"<b>Post\xc3\xa9 :</b>")
    edited = re.sub(rb"<b>Sujet du message:</b> ([^<]*)</div>",
                    rb'<b>Sujet du message :</b> <a href="#p1">\1</a></div>', edited)
    edited = re.sub(rb'<span class="postbody">(<br />_{17}<br />[^<]*)</span>',
                    rb'<div class="postbody">\1</div>', edited)
    edited = re.sub(rb'<span style="font-weight: bold">([^<]*)</span>', rb"<strong>\1</strong>",
                    edited)
    edited = edited.replace(b'#p8802">', b'#p8802" class="imageset">')
    assert edited.count(b"<strong>") > data.count(b"<strong>")
    assert edited.count(b'<div class="postbody"><br />_') == 2
    assert parse(edited) == parse(data)


def test_a_date_in_the_subject_is_not_the_post_time() -> None:
    data = saved().data
    start, end = post_table(data, 8802)
    post = data[start:end].replace(b"Re: Partie 12 - Jour 2",
                                   b"Re: vote du Lun 14 Mar 2016, 20:05")
    page = parse(data[:start] + post + data[end:])
    assert (page.posts[1].time_text, page.posts[1].created_at) == (
        "Hier, 10:12", parse(data).posts[1].created_at)


def test_an_anchor_in_a_message_is_no_post() -> None:
    data = saved().data
    mixed = data.replace(b"Il \xc3\xa9tait bien trop calme", b'<a name="p9999"></a>Il \xc3\xa9tait'
                         b" bien trop calme")
    assert [p.id for p in parse(mixed).posts] == [p.id for p in parse(data).posts]


def test_an_uncited_quote_has_no_author() -> None:
    data = saved().data.replace(
        b'<div class="postbody">Je vote pour Basile<br />Il',
        b'<div class="postbody"><div class="quotetitle"><b>Citation:</b></div><div class='
        b'"quotecontent">Je vote pour Dorian</div>Je vote pour Basile<br />Il')
    post = parse(data).posts[1]
    assert [(q.author, q.text) for q in post.body.quotes] == [(None, "Je vote pour Dorian")]
    assert post.body.own.startswith("Je vote pour Basile")


# --- hidden posts and the small print after a message --------------------------------------------

HIDDEN = ('<table class="tablebg" width="100%" cellspacing="1">\n\t<tr class="row2">\n\t\t\t<td '
          'class="gensmall" colspan="2" height="25" align="center"><a name="p8805"></a>Ce '
          "message a été rédigé par <strong>Dorian</strong> qui est actuellement sur votre liste "
          'de membres ignorés. <a href="./viewtopic.php?p=8805&amp;view=show#p8805">Afficher le '
          'message</a>.</td>\n\t</tr>\n\t<tr>\n\t\t<td class="spacer" colspan="2" height="1"><img '
          'src="images/spacer.gif" alt="" width="1" height="1" /></td>\n\t</tr>\n\t</table>\n')


def test_a_hidden_post_is_noted_and_keeps_its_place() -> None:
    data = saved().data
    start, end = post_table(data, 8805)
    page = parse(data[:start] + HIDDEN.encode() + data[end:])
    assert "8805" not in [p.id for p in page.posts]
    assert [(p.id, p.position) for p in page.posts[4:6]] == [("8806", 6), ("8807", 7)]
    assert page.notes[-1] == ("post 8805: hidden on this page, not read (Ce message a été rédigé "
                              "par Dorian qui est actuellement sur votre liste de membres "
                              "ignorés. Afficher le message.)")


ATTACHMENT = ('<br clear="all" /><br />\n<table class="tablebg" width="100%" cellspacing="1">'
              '<tr><td class="row3"><b class="genmed">Fichiers joints: </b></td></tr><tr><td '
              'class="row2"><img src="./download/file.php?id=7" alt="plan_edite.png" /><br />'
              '<span class="gensmall">plan_edite.png [ 12.5 Kio | Vu 3 fois ]</span></td></tr>'
              "</table>")
BUMPED = ('<span class="gensmall"><br /><br />Dernière remontée par Amélie le Mar 15 Mar 2016, '
          "12:00.</span>")


@pytest.mark.parametrize("small_print", [ATTACHMENT, BUMPED,
                                         '<span class="gensmall error">Vous n’êtes pas autorisé '
                                         "à consulter les fichiers édités.</span>"])
def test_small_print_that_is_no_edit_notice(small_print: str) -> None:
    data = saved().data
    marked = data.replace(b"Il \xc3\xa9tait bien trop calme hier soir.</div>",
                          b"Il \xc3\xa9tait bien trop calme hier soir.</div>"
                          + small_print.encode(), 1)
    assert marked != data
    post = parse(marked).posts[1]
    assert post.edit is None and "fichiers" not in post.body.own
    assert post == parse(data).posts[1]


def test_an_edit_notice_after_an_attachment_is_read() -> None:
    data = saved().data
    marked = data.replace(b"Pourquoi moi ?<br />Je vote pour Dorian</div>",
                          b"Pourquoi moi ?<br />Je vote pour Dorian</div>" + ATTACHMENT.encode())
    post = parse(marked).posts[2]
    assert post.edit is not None and (post.edit.editor, post.edit.times) == ("Basile", 1)


def test_an_edit_notice_after_a_wrapped_message_is_read() -> None:
    data = saved().data
    wrapped = data.replace(b'<div class="postbody">Pourquoi moi ?<br />Je vote pour Dorian</div>',
                           b'<div class="message"><div class="postbody">Pourquoi moi ?<br />Je '
                           b"vote pour Dorian</div></div>")
    assert wrapped != data
    assert parse(wrapped).posts[2] == parse(data).posts[2]


# --- errors -------------------------------------------------------------------------------------


def test_a_date_it_cannot_read_names_the_post() -> None:
    data = saved().data.replace(b"Hier, 10:12&nbsp;", b"bient\xc3\xb4t&nbsp;")
    with pytest.raises(ForumError, match=r"phpBB: http://loups\.example\.fr/forum/viewtopic\.php"
                                         r"\?f=5&t=314: post 8802: cannot read the date 'bientôt'"):
        parse(data)


def test_without_its_posted_line_a_post_is_an_error_not_its_joined_date() -> None:
    data = saved().data
    start, end = post_table(data, 8802)
    post = re.sub(rb'<div style="float: right;">.*?</div>', b"", data[start:end], count=1)
    assert b"Enregistr\xc3\xa9 le:</b> " in post  # the profile column's date stays
    with pytest.raises(ForumError, match="post 8802: cannot read the date 'Re: Partie 12 - Jour 2'"):
        parse(data[:start] + post + data[end:])


def test_a_cut_download_is_truncated() -> None:
    data = saved().data
    cut = data[: data.index(b'<div class="postbody">', data.index(b'name="p8806"'))]
    with pytest.raises(TruncatedPage, match="page is cut off after post 8806"):
        parse(cut)
    with pytest.raises(TruncatedPage, match="post 8806 has no message"):
        parse(cut + b"</html>")


def test_a_post_of_an_unknown_shape_is_an_error_not_a_hidden_post() -> None:
    data = saved().data
    start, end = post_table(data, 8805)
    post = data[start:end].replace(b'<b class="postauthor">Dorian</b>', b"Dorian").replace(
        b'class="postbody"', b'class="message"')
    with pytest.raises(TruncatedPage, match="post 8805 has no message"):
        parse(data[:start] + post + data[end:])


def test_a_missing_author_name_is_an_error() -> None:
    data = saved().data.replace(b'<b class="postauthor">Basile</b>', b"<b>Basile</b>")
    with pytest.raises(ForumError, match="post 8803: no author name"):
        parse(data)


# --- the count, end to end ----------------------------------------------------------------------


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(arg) for arg in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def game_file(tmp_path: Path, code: str) -> Path:
    """The French case's game file, pointed at the English board for "en" ("vote: X")."""
    text = (FR / "game.toml").read_text(encoding="utf-8")
    if code == "en":
        text = text.replace("loups.example.fr", "werewolves.example.com").replace(
            'language = "fr"', 'language = "en"')
    path = tmp_path / "game.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("code", FOLDERS)
def test_count_through_the_command(tmp_path: Path, code: str) -> None:
    data = json.loads(run("count", game_file(tmp_path, code), "--from", FOLDERS[code],
                          "--fetched-at", "2016-03-16T19:30:00Z", "--format", "json"))
    counts = {c["player"]: dict(zip(c["voters"], c["posts"])) for c in data["counts"]}
    assert counts == {"Basile": {"Dorian": "8805", "Fabien": "8808", "Hortense": "8810"},
                      "Gaspard": {"Isidore": "8811", "Amélie": "8812"},
                      "Dorian": {"Élise": "8807"}, "Fabien": {"Gaspard": "8809"}}
    assert sorted(data["not_voting"]) == ["Basile", "Céleste"]
    assert (data["outcome"]["result"], data["outcome"]["player"]) == ("eliminated", "Basile")
    verdicts = {v["post"]: v for v in data["verdicts"]}
    assert verdicts["8803"]["verdict"] == "void" and "dit" in verdicts["8803"]["reason"]
    assert "edited by staff Le Conteur, kept" in verdicts["8808"]["reason"]
    assert verdicts["8804"]["verdict"] == "not_a_vote"  # a quoted vote (C1)
    assert verdicts["8814"]["verdict"] == "void" and "late" in verdicts["8814"]["reason"]
    assert data["deadline"] == "2016-03-16T19:00:00Z"


def test_bbcode_post_links_the_board_it_was_saved_from(tmp_path: Path) -> None:
    text = run("count", FR / "game.toml", "--from", FR, "--fetched-at", "2016-03-16T19:30:00Z")
    assert ("[b]Basile[/b] (3): [url=http://loups.example.fr/forum/viewtopic.php?p=8805#p8805]"
            "Dorian[/url]") in text
    assert "Basile is eliminated" in text


def test_relative_dates_follow_the_fetch_time() -> None:
    """A page fetched a day later says "Hier" for what was "Aujourd’hui": same instants."""
    page = saved(number=2)
    later = page.data.replace("Aujourd’hui".encode(), b"Hier")
    ctx: PageContext = replace(page.ctx, fetched_at=page.ctx.fetched_at.replace(day=17))
    assert [p.created_at for p in ENGINE.parse_page(later, ctx).posts] == \
        [p.created_at for p in parse(page.data, number=2).posts]
