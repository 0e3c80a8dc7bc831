"""What a new user does, end to end through the `tally` command, on the bundled saved threads:
`tally init` on a board's pages, then `tally count` on the file it wrote (README "Commands").

The numbers are read off the pages (the fixtures' make_pages.py tables and the cases' notes in
tests/test_cli_presets.py), not off the tool's output.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tally.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def run(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args])


def saved_at(case: Path) -> str:
    return str(tomllib.loads((case / "case.toml").read_text("utf-8"))["fetched_at"])


def init_then_count(tmp_path: Path, case: Path, url: str, deadline: str) -> dict:
    """`tally init` on the saved pages, the deadline placeholder set as the GM would, then
    `tally count --format json` and the public text post."""
    out = tmp_path / "game.toml"
    made = run("init", url, "--from", case, "--fetched-at", saved_at(case), "--out", out)
    assert made.exit_code == 0, made.output
    text = re.sub(r'(?m)^deadline = "[^"]*"', f'deadline = "{deadline}"',
                  out.read_text("utf-8"))
    out.write_text(text, encoding="utf-8")
    counted = run("count", out, "--from", case, "--fetched-at", saved_at(case), "--format", "json")
    assert counted.exit_code == 0, counted.output
    public = run("count", out, "--from", case, "--fetched-at", saved_at(case), "--format", "text",
                 "--public")
    assert public.exit_code == 0, public.output
    return {"data": json.loads(counted.stdout), "post": public.stdout, "file": text}


def votes(data: dict) -> dict[str, int]:
    return {row["player"]: row["votes"] for row in data["counts"]}


# A `majority` file (init's default preset) on a board that is not English: before, the file
# said nothing of the board's language, every "Voto: Moriarty" was read with the English pack,
# and the count printed "No votes yet ... No elimination" with exit 0.
def test_init_on_a_spanish_board_reads_the_spanish_votes_and_counts_in_spanish(tmp_path: Path):
    case = FIXTURES / "forumotion" / "espia-phpbb3-es"
    got = init_then_count(tmp_path, case,
                          "https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia",
                          "2016-01-18 22:00:00")
    assert re.search(r'(?m)^language = "es" +# the count\'s language: the board\'s \(the pages say '
                     r'lang="es"\)$', got["file"])
    # Irene 3102, Watson 3104, Mrs Hudson 3105 vote Moriarty; Sherlock 3103 Lestrade; Moriarty
    # 3107 Sherlock at 22:00 (in time); Lestrade's 22:01 vote is late.
    assert votes(got["data"]) == {"Moriarty": 3, "Lestrade": 1, "Sherlock": 1}
    assert got["post"].startswith("Recuento de votaciones, día 1 (final): ")
    assert "Sin votar (1): Lestrade" in got["post"]


def test_init_on_a_discuz_board_without_a_declared_language_reads_the_chinese_votes(
        tmp_path: Path):
    case = FIXTURES / "discuz" / "trigger-utf8"
    got = init_then_count(tmp_path, case, "https://bbs.tuilisha.cn/forum.php?mod=viewthread&tid=88231",
                          "2026-11-18 18:00:00")
    # Discuz! X's pages carry no <html lang>: the posts' script proposes it, marked CHECK.
    assert re.search(r'(?m)^language = "zh" +# CHECK: the count\'s language: the pages declare '
                     r'none; most letters of the posts are Chinese script$', got["file"])
    assert re.search(r'(?m)^\[thread\](?:\n.*)*?\nlanguage = "zh" ', got["file"])
    # From the opening post to 11月18日 18:00 (the opening post's author is staff): 桃花 2
    # (青蛙王子 #14, 月下独酌 #15), 老猫 2 (风清扬 #9, 阿飞 #18), 青蛙王子 2 (桃花 #12, 白菜 #19).
    assert votes(got["data"]) == {"桃花": 2, "老猫": 2, "青蛙王子": 2}
    assert got["post"].startswith("第1日票型（最终）：")


# init writes the board's language as [thread] language, never as [votes] language: that one
# REPLACES the preset's words, so a kira game on JV no longer read "unvote" and a majority game
# on a Discuz board no longer "##vote X". The board's language adds its words to the preset's.
def jv_kira_pages(folder: Path) -> Path:
    """The JV kira fixture's pages (make_payload.py), with Kira_Yagami's English "unvote" and
    Soichiro's French "Je retire mon vote" on page 2, both before the deadline."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "jv_kira_pages", FIXTURES / "jv" / "kira-2026" / "make_payload.py")
    assert spec and spec.loader
    pages = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pages)
    pages.PAGES[2][2:2] = [
        (1312401320, "Kira_Yagami", "03 juin 2026 à 03:00:00", "unvote", pages.p("unvote"),
         None, "msg-visible"),
        (1312401333, "Soichiro", "03 juin 2026 à 03:05:00", "Je retire mon vote",
         pages.p("Je retire mon vote"), None, "msg-visible")]
    folder.mkdir()
    for number in pages.PAGES:
        (folder / f"page-{number}.html").write_text(pages.page_html(number), encoding="utf-8")
    return folder


def test_init_kira_on_jv_reads_the_english_and_the_french_vote_words(tmp_path: Path):
    case = jv_kira_pages(tmp_path / "jv")
    out = tmp_path / "game.toml"
    made = run("init", "https://www.jeuxvideo.com/forums/42-51-74125893-1-0-1-0-kira.htm",
               "--from", case, "--fetched-at", "2026-06-03T03:30:00Z", "--preset", "kira",
               "--out", out)
    assert made.exit_code == 0, made.output
    text = re.sub(r'(?m)^deadline = "[^"]*"', 'deadline = "2026-06-03 04:59:59"',
                  out.read_text("utf-8"))
    out.write_text(text, encoding="utf-8")
    assert re.search(r'(?m)^\[thread\](?:\n.*)*?\nlanguage = "fr" ', text)
    assert re.search(r'(?m)^# language = "fr" +# REPLACES the preset\'s vote words', text)
    assert tomllib.loads(text)["votes"] == {}
    counted = run("count", out, "--from", case, "--fetched-at", "2026-06-03T03:30:00Z",
                  "--format", "json")
    assert counted.exit_code == 0, counted.output
    # "vote: X" (L_Lawliet 05:14, Matsuda 07:45, Kira_Yagami 10:15, Near_ 01:12, ...) and
    # "Je vote X" (Misa-Misa, Mello, L_Lawliet 04:58) count; Kira_Yagami's "unvote" takes back
    # his vote for L_Lawliet, Soichiro's "Je retire mon vote" his "Je vote Mello".
    data = json.loads(counted.stdout)
    assert votes(data) == {"Mello": 2, "L_Lawliet": 1, "Near_": 1, "Kira_Yagami": 1}
    assert {row["player"]: row["voters"] for row in data["counts"]}["Mello"] == [
        "Matsuda", "L_Lawliet"]


def test_init_majority_on_discuz_reads_the_chinese_words_and_the_presets(tmp_path: Path):
    source = FIXTURES / "discuz" / "trigger-utf8"
    case = tmp_path / "discuz"
    case.mkdir()
    for page in source.glob("page-*.html"):
        data = page.read_bytes()
        if page.name == "page-2.html":  # 桃花's #12 written the preset's way
            old = "投票 青蛙王子</td>".encode()
            assert data.count(old) == 1
            data = data.replace(old, "##vote 青蛙王子</td>".encode())
        (case / page.name).write_bytes(data)
    (case / "case.toml").write_bytes((source / "case.toml").read_bytes())
    got = init_then_count(tmp_path, case,
                          "https://bbs.tuilisha.cn/forum.php?mod=viewthread&tid=88231",
                          "2026-11-18 18:00:00")
    assert 'preset = "majority"' in got["file"] and tomllib.loads(got["file"])["votes"] == {}
    # As before: 青蛙王子 keeps 桃花's #12 ("##vote 青蛙王子") beside 白菜's #19 ("投票：青蛙王子").
    assert votes(got["data"]) == {"桃花": 2, "老猫": 2, "青蛙王子": 2}
    assert {row["player"]: row["voters"] for row in got["data"]["counts"]}["青蛙王子"] == [
        "桃花", "白菜"]


def test_init_on_an_english_board_writes_english(tmp_path: Path):
    case = FIXTURES / "phpbb" / "kira-en"
    got = init_then_count(tmp_path, case, "https://forum.example.org/viewtopic.php?f=3&t=412",
                          "2016-01-18 02:59:59")
    assert re.search(r'(?m)^language = "en" ', got["file"])
    assert got["post"].startswith("Vote count, day 1 (final): ")


@pytest.mark.parametrize("lang", ["de", None])
def test_a_language_tally_has_no_words_for_is_left_to_the_gm(lang: str | None):
    from datetime import UTC, datetime

    from tally.init import board_language
    from tally.model import Body, Post, Thread

    post = Post(id="1", position=1, permalink="u#1", author="Ann", author_id=None,
                created_at=datetime(2020, 1, 1, tzinfo=UTC), time_text="", zone="UTC",
                body=Body(own="Ich stimme für Bob"))
    thread = Thread(url="u", engine="phpbb", posts=(post,))
    # Left out, and said in the file when the pages declared it: the GM sees why no vote
    # words of the board's language are set.
    assert board_language(lang, thread) == (None, (
        '# CHECK: the pages say lang="de", a language tally has no vote words for: votes are '
        "read with the preset's (see [votes])") if lang else "")


# Saved pages that state no address of their own (no canonical link, no "saved from" comment:
# Discuz! X, Forumotion's mobile and phpBB2 themes, any page Firefox saves): before, the post
# links were made from the file's path ("[url=fixtures/discuz/…/forum.php?mod=redirect…]",
# "[url=…/page-1.html#30702]") or left relative ("[url=/t245-…#3102]", which phpBB's [url]
# does not take): a public post linking to nowhere.
@pytest.mark.parametrize("folder,host,page_two", [
    ("discuz/stock-x34-utf8", "https://bbs.example.cn/", None),
    ("forumotion/stock-mobile-es", "https://espia-mobile.foroactivo.com/",
     "https://espia-mobile.foroactivo.com/t307p5-votaciones-dia-1-quien-es-el-espia#30707"),
    ("forumotion/espia-phpbb3-es", "https://laratonera.foroactivo.com/",
     "https://laratonera.foroactivo.com/t245p5-votaciones-dia-1-quien-es-el-espia#3107"),
])
def test_post_links_from_saved_pages_point_at_the_forum(folder: str, host: str,
                                                        page_two: str | None):
    case = FIXTURES / folder
    result = run("count", case / "game.toml", "--from", case, "--fetched-at", saved_at(case))
    assert result.exit_code == 0, result.output
    links = re.findall(r"\[url=([^\]]*)\]", result.stdout)
    assert links and all(link.startswith(host) for link in links), links
    if page_two is not None:  # a vote on page 2 links to page 2, not page 1
        assert page_two in links


# Game-file mistakes a GM makes, each one line naming the file and line, exit 3 (README
# "Exit codes").
KIRA = FIXTURES / "phpbb" / "kira-en"


def kira_file(tmp_path: Path, old: str, new: str) -> Path:
    text = (KIRA / "game.toml").read_text("utf-8")
    assert text.count(old) == 1
    path = tmp_path / "game.toml"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


def test_a_player_listed_as_staff_is_refused_not_left_out_of_the_count(tmp_path: Path):
    # Before: exit 0, Alice's vote for Bob gone and Alice "not voting".
    game = kira_file(tmp_path, 'staff = ["Ryuk"]', 'staff = ["Ryuk", "alice"]')
    result = run("count", game, "--from", KIRA, "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 3
    assert result.stdout == ""
    assert result.stderr == (
        f"tally: error: {game}:7: staff: 'alice' is staff and the account of player Alice: "
        "staff never vote, so every vote of that player would be left out; keep the account in "
        "one of the two\n")


def test_a_misspelt_table_is_named_with_its_line(tmp_path: Path):
    game = kira_file(tmp_path, "[[days]]", "[[dayz]]")
    result = run("count", game, "--from", KIRA, "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 3
    assert result.stderr.startswith(f"tally: error: {game}:54: dayz: unknown key (known: ")


def test_a_fetched_at_in_the_future_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # "2061" for "2016": before, exit 0 and a count "as of 2061-01-18 03:10:00 UTC".
    monkeypatch.setenv("TALLY_NOW", "2026-11-27T16:00:00Z")
    result = run("count", KIRA / "game.toml", "--from", KIRA, "--fetched-at", "2061-01-18 03:10")
    assert result.exit_code == 3
    assert result.stderr == ("tally: error: --fetched-at 2061-01-18 03:10 UTC is in the future "
                             "(now 2026-11-27 16:00 UTC): the save time is wrong\n")
    fine = run("count", KIRA / "game.toml", "--from", KIRA, "--fetched-at", "2026-11-27 16:00")
    assert fine.exit_code == 0, fine.output


def test_init_on_a_board_whose_relative_times_read_late_in_the_default_zone(tmp_path: Path):
    # The French phpBB board shows "Aujourd'hui, 20:00" and "Heures au format UTC + 1 heure";
    # saved at 19:30 UTC. Read first in phpBB's default zone (UTC) the post seemed written
    # after the save, and init stopped with exit 3 blaming the save time, before the pages'
    # own UTC+1 could propose Europe/Paris.
    case = FIXTURES / "phpbb" / "subsilver2-fr"
    got = init_then_count(tmp_path, case, "http://loups.example.fr/forum/viewtopic.php?f=5&t=314",
                          "2016-03-16 20:00:00")
    assert re.search(r'(?m)^timezone = "Europe/Paris" +# CHECK: the pages say their times are '
                     r"UTC\+01:00", got["file"])
    assert got["post"].startswith("Décompte des votes, jour 1 (final) : ")
    # Dorian 8805, Fabien 8808 and Hortense 8810 vote Basile (the file keeps edited votes).
    assert got["data"]["counts"][0]["player"] == "Basile"
    assert got["data"]["counts"][0]["voters"] == ["Dorian", "Fabien", "Hortense"]
    # A save time that is really too early is still refused, in the zone the pages state.
    result = run("init", "http://loups.example.fr/forum/viewtopic.php?f=5&t=314", "--from", case,
                 "--fetched-at", "2016-03-16T18:30:00Z", "--out", tmp_path / "early.toml")
    assert result.exit_code == 3
    assert "post 8813 (Aujourd’hui, 20:00, 2016-03-16 19:00 UTC) was written after the page was " \
           "saved, at 2016-03-16 18:30 UTC by --fetched-at" in result.stderr


def test_audit_of_a_misspelt_player_is_an_error_not_an_empty_audit():
    # A player disputing a vote: `tally audit --player Heidy` printed "0 of 60 posts" and
    # "Totals: " with exit 0, as if nobody had voted for or as Heidi.
    saved = ("--from", KIRA, "--fetched-at", "2016-01-18 03:10")
    wrong = run("audit", KIRA / "game.toml", "--player", "Heidy", *saved)
    assert wrong.exit_code == 3
    assert wrong.stderr == ("tally: error: --player 'Heidy': no post by or vote for that name in "
                            "day 1's window, and no living player of that name\n")
    right = run("audit", KIRA / "game.toml", "--player", "heidi", *saved)
    assert right.exit_code == 0
    assert right.stdout.startswith("Audit of day 1 (Kira, game 3, preset kira): 6 of 60 posts")


def test_a_tally_now_without_an_offset_names_the_variable(monkeypatch: pytest.MonkeyPatch):
    # README "Development": without an offset it is an error, exit 3; the line said only
    # "ISO 8601 time without an offset: '2016-01-18T03:10:00'", a time the command never showed.
    monkeypatch.setenv("TALLY_NOW", "2016-01-18T03:10:00")
    result = run("count", KIRA / "game.toml", "--from", KIRA, "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 3
    assert result.stderr == ("tally: error: TALLY_NOW: ISO 8601 time without an offset: "
                             "'2016-01-18T03:10:00' (e.g. TALLY_NOW=2026-01-15T11:00:00+01:00)\n")


# A GM whose cron posts the count, on a game whose days run back to back (K1: 03:00:00 to
# 02:59:59 UTC; R1: 22:00 to 21:00): right after a deadline the day whose window holds now is
# already the next one. Before: the run at 22:05 said "nothing to post: no votes yet in day 2"
# (exit 6), and the final count of day 1, with the vote cast at 21:50, was never posted.
def test_cron_posts_the_final_count_of_a_day_when_the_next_day_opens_at_its_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    from fakephpbb import FakePhpBB, as_cron, now_at, run_post, write_game

    as_cron(monkeypatch)
    with FakePhpBB() as board:
        now_at(monkeypatch, "2026-01-15 10:00", "+01:00")
        board.add_post("Moderator", "Day 1 starts now. Vote with: vote: Name")
        game = write_game(tmp_path, board.url, extra=(
            '[[days]]\nnumber = 2\nstart = "2026-01-17 22:00"\ndeadline = "2026-01-19 22:00"\n'))
        now_at(monkeypatch, "2026-01-17 21:00", "+01:00")
        board.add_post("Alice", "vote: Bob")
        assert run_post(game).exit_code == 0  # first count of day 1
        now_at(monkeypatch, "2026-01-17 21:50", "+01:00")
        board.add_post("Carol", "vote: Bob")
        now_at(monkeypatch, "2026-01-17 22:05", "+01:00")
        final = run_post(game)
        assert final.exit_code == 0, final.output
        assert final.stdout.endswith(": the deadline passed: final count\n")
        last = board.bot_posts()[-1].html
        assert "Final vote count, day 1" in last and "Bob</strong> (2" in last
        now_at(monkeypatch, "2026-01-17 22:10", "+01:00")
        after = run_post(game)  # day 1 is done: the bot follows day 2
        assert (after.exit_code, after.stdout) == (6, "nothing to post: no votes yet in day 2\n")
        assert len(board.bot_posts()) == 2


@pytest.mark.parametrize("encoding,said", [
    ("utf-16", ":1: the file is saved as UTF-16 (Notepad's \"Unicode\"); save it as UTF-8\n"),
    ("cp1252", ":4: not UTF-8 (byte 0xe9: saved as Latin-1 or Windows-1252?); save the file as "
               "UTF-8\n"),
])
def test_a_game_file_not_saved_as_utf8_says_what_it_is(tmp_path: Path, encoding: str, said: str):
    # Before: "cannot read the game file: 'utf-8' codec can't decode byte 0xff in position 0".
    text = (KIRA / "game.toml").read_text("utf-8").replace('title = "Kira, game 3"',
                                                           'title = "Kira, partie 3, été"')
    game = tmp_path / "game.toml"
    game.write_bytes(text.encode(encoding))
    result = run("count", game, "--from", KIRA, "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 3
    assert result.stderr == f"tally: error: {game}{said}"


@pytest.mark.parametrize("old,new,said", [
    ('title = "Kira, game 3"', 'title = "Kira, game 3"\nlanguage = "de"',
     ":5: language: unknown language 'de' (known: en, es, fr, ru, zh)"),
    ('engine = "phpbb"\n', 'engine = "phpbb"\n\n[votes]\nlanguage = "de"\n',
     ":14: votes.language: unknown vote language 'de' (known: en, es, fr, ru, zh)"),
])
def test_an_unknown_language_in_the_game_file_is_named_with_its_line(tmp_path: Path, old: str,
                                                                    new: str, said: str):
    # Every other game-file mistake names its line; these two said "game.toml: language: …".
    game = kira_file(tmp_path, old, new)
    result = run("count", game, "--from", KIRA, "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 3
    assert result.stderr == f"tally: error: {game}{said}\n"


@pytest.mark.parametrize("url", ["forum.example.org/viewtopic.php?f=3&t=412", "not a url"])
def test_a_thread_url_that_is_no_web_address_is_a_game_file_error(tmp_path: Path, url: str):
    # Before: taken as it was; with --from it counted, and the first online read stopped with
    # exit 4 ("phpBB: not a url: not a phpBB viewtopic URL"), as if the forum had failed.
    game = kira_file(tmp_path, "https://forum.example.org/viewtopic.php?f=3&t=412", url)
    result = run("count", game, "--from", KIRA, "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 3
    assert result.stderr == (f"tally: error: {game}:10: thread.url: {url!r} is not a web "
                             "address (https://…)\n")
    forced = kira_file(tmp_path, "https://forum.example.org/viewtopic.php?f=3&t=412",
                       "phpbb:https://forum.example.org/viewtopic.php?f=3&t=412")
    assert run("count", forced, "--from", KIRA, "--fetched-at", "2016-01-18 03:10").exit_code == 0


@pytest.mark.parametrize("at,said", [
    (13539, "record 8: damaged gzip data (Error -3 while decompressing data: incorrect data "
            "check)"),
    (9026, "record 5 cannot be read: damaged data where a record should start"),
])
def test_a_damaged_warc_is_one_clear_line(tmp_path: Path, at: int, said: str):
    # A third party checking a disputed count gets an archive with one byte damaged. Before:
    # warcio's own "Error -3 while decompressing data: incorrect data check" on stderr, then
    # "truncated: the file ends inside record 8" for a file of full length; or the raw gzip
    # bytes found where a record should start, pasted into the error line.
    data = bytearray((FIXTURES / "warc" / "kira-en-foreign.warc.gz").read_bytes())
    data[at] ^= 0x55
    damaged = tmp_path / "day1.warc.gz"
    damaged.write_bytes(bytes(data))
    result = run("count", KIRA / "game.toml", "--from-warc", damaged)
    assert result.exit_code == 3
    assert result.stderr == f"tally: error: {damaged}: {said}\n"


def test_a_saved_login_page_is_named_once(tmp_path: Path):
    # A login wall saved among the pages: exit 4, the file named once (it was named twice,
    # "login/page-5.html: phpBB: login/page-5.html: not a thread page …").
    folder = tmp_path / "pages"
    folder.mkdir()
    for page in KIRA.glob("page-*.html"):
        (folder / page.name).write_bytes(page.read_bytes())
    (folder / "page-5.html").write_text(
        '<html><body id="phpbb"><form id="login" action="./ucp.php?mode=login">'
        '<input name="username"><input name="password" type="password"></form></body></html>')
    result = run("count", KIRA / "game.toml", "--from", folder, "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 4
    assert result.stderr == (f"tally: error: {folder / 'page-5.html'}: phpBB: not a thread page "
                             "(login page: the thread needs a logged-in account)\n")


def test_init_on_a_board_in_another_zone_than_the_engines_default_says_to_give_it(
        tmp_path: Path):
    # An English Forumotion board on New York time, saved at 23:30 local: "Today at 2:02 pm"
    # read in Forumotion's default zone (Madrid) is 13:02 UTC the next day, after the save.
    # The error blamed only the save time; the zone is the likelier cause, and --timezone the
    # way out.
    case = FIXTURES / "forumotion" / "stock-awesomebb-en"
    args = ("init", "https://mafia.forumotion.com/t74-day-1-votes", "--from", case,
            "--fetched-at", "2016-01-21T04:30:00Z", "--out", tmp_path / "game.toml")
    result = run(*args)
    assert result.exit_code == 3
    assert result.stderr.endswith(
        "the save time is wrong, or the board's times are not in Europe/Madrid (the forumotion "
        "default, the pages do not say): give --timezone\n")
    assert run(*args, "--timezone", "America/New_York").exit_code == 0


def test_a_gm_at_the_deadline_of_back_to_back_days_is_told_of_the_day_that_closed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    # K1: day 2 opens as day 1 closes. At 03:10 `tally count` counts day 2 (its window holds
    # now): "No votes yet". The GM wanted day 1's final count; stderr now says how to get it.
    game = kira_file(tmp_path, 'deadline = "2016-01-18 02:59:59"\n',
                     'deadline = "2016-01-18 02:59:59"\n\n[[days]]\nnumber = 2\n'
                     'start = "2016-01-18 03:00:00"\ndeadline = "2016-01-19 02:59:59"\n')
    monkeypatch.setenv("TALLY_NOW", "2016-01-18T03:10:00Z")
    saved = ("--from", KIRA, "--fetched-at", "2016-01-18 03:10")
    now = run("count", game, *saved)
    assert now.exit_code == 0
    assert now.stdout.startswith("[b][u]Vote count, day 2: Kira, game 3[/u][/b]")
    assert now.stderr == ("note: this is day 2; day 1 closed at 2016-01-18 02:59 forum time: "
                          "`--day 1` counts it\n")
    final = run("count", game, *saved, "--day", "1")
    assert final.exit_code == 0 and final.stderr == ""
    assert final.stdout.startswith("[b][u]Vote count, day 1 (final): Kira, game 3[/u][/b]")
