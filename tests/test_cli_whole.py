"""Issue 16: a count is final only when the thread it read is whole and is this thread.

Each case ends with the right count or a one-line error and the README's exit code, never a
wrong count with exit 0: a page missing from saved pages, a stray page of another topic among
them, a board answering the game's URL with another topic, in phpBB's and Discuz's markup.
(A crawl killed midway is in test_crawl.py, a store or WARC lacking a page in test_warc.py.)
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from typer.testing import CliRunner
from werkzeug import Request, Response

from tally.cli import app
from tally.fetch import Fetcher

ROOT = Path(__file__).resolve().parent.parent
KIRA = ROOT / "fixtures" / "phpbb" / "kira-en"
SPANISH = ROOT / "fixtures" / "phpbb" / "spanish-30"  # phpBB 3.0, topic 77
TRIGGER = ROOT / "fixtures" / "discuz" / "trigger-utf8"  # Discuz! X3.4, tid 88231
GBK = ROOT / "fixtures" / "discuz" / "gbk-old"  # Discuz! 7.2, GBK, tid 200440
KIRA_AT = ["--fetched-at", "2016-01-18 03:10"]
TRIGGER_AT = ["--fetched-at", "2026-11-20T04:00:00Z"]


def run(*args: str, env: dict[str, str] | None = None):  # noqa: ANN201 - typer's result type
    return CliRunner().invoke(app, list(args), env=env)


def one_line_error(result, code: int, text: str) -> None:  # noqa: ANN001
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tally: error: ") and text in lines[0], \
        result.stderr
    assert result.stdout == ""  # no count at all, not a count with a warning


def folder_with(tmp_path: Path, source: Path, pages: list[str],
                extra: dict[str, Path] | None = None) -> Path:
    folder = tmp_path / "saved"
    folder.mkdir()
    for name in pages:
        shutil.copy(source / name, folder / name)
    for name, path in (extra or {}).items():
        shutil.copy(path, folder / name)
    return folder


# ---------------------------------------------------------------------------------------------
# A missing saved page


def test_saved_pages_without_page_two_are_no_count(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, KIRA, ["page-1.html", "page-3.html", "page-4.html"])
    one_line_error(run("count", str(KIRA / "game.toml"), "--from", str(folder), *KIRA_AT), 3,
                   "page 2 of 4 missing")


def test_saved_pages_without_the_last_page_are_no_count(tmp_path: Path) -> None:
    """Page 3 of Discuz's "1 / 3" was not saved: its votes would be lost."""
    folder = folder_with(tmp_path, TRIGGER, ["page-1.html", "page-2.html"])
    one_line_error(run("count", str(TRIGGER / "game.toml"), "--from", str(folder), *TRIGGER_AT),
                   3, "page 3 of 3 missing")


def test_a_missing_page_after_the_as_of_point_does_not_stop_the_count(tmp_path: Path) -> None:
    """Counting as the thread stood before page 4's posts were written does not need page 4:
    the count is the one of the whole thread at that point."""
    folder = folder_with(tmp_path, KIRA, ["page-1.html", "page-2.html", "page-3.html"])
    as_of = ["--as-of", "2016-01-17 12:00"]  # page 3 ends later than this
    partial = run("count", str(KIRA / "game.toml"), "--from", str(folder), *KIRA_AT, *as_of,
                  "-f", "json")
    whole = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, *as_of,
                "-f", "json")
    assert partial.exit_code == whole.exit_code == 0, partial.output + whole.output
    assert json.loads(partial.stdout)["counts"] == json.loads(whole.stdout)["counts"]


def test_missing_pages_after_the_cut_post_do_not_stop_a_count_up_to_it(tmp_path: Path) -> None:
    """--as-of POST_ID at the last post of page 2: pages 3 and 4 come after it, though page
    3's first post may share its minute. The count is the whole thread's up to that post."""
    folder = folder_with(tmp_path, KIRA, ["page-1.html", "page-2.html"])
    partial = run("count", str(KIRA / "game.toml"), "--from", str(folder), *KIRA_AT,
                  "--as-of", "5030", "-f", "json")
    whole = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT,
                "--as-of", "5030", "-f", "json")
    assert partial.exit_code == whole.exit_code == 0, partial.output + whole.output
    assert json.loads(partial.stdout)["counts"] == json.loads(whole.stdout)["counts"]


def test_a_missing_page_before_the_cut_post_still_stops_the_count(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, KIRA, ["page-1.html", "page-3.html", "page-4.html"])
    one_line_error(run("count", str(KIRA / "game.toml"), "--from", str(folder), *KIRA_AT,
                       "--as-of", "5031"), 3, "page 2 of 4 missing")


def test_jv_page_one_alone_counts_up_to_its_last_post() -> None:
    """fixtures/jv/legacy-guest-2025 holds page 1 of 3: a count up to its last post needs
    neither page 2 nor page 3; a count of the whole day still does."""
    jv = ROOT / "fixtures" / "jv" / "legacy-guest-2025"
    at = ["--from", str(jv), "--fetched-at", "2025-07-26T20:30:00Z"]
    up_to = run("count", str(jv / "game.toml"), *at, "--as-of", "780300102")
    assert up_to.exit_code == 0, up_to.output
    assert "Counted up to post #6 (780300102), as of 2025-07-26 18:02:37 CEST (16:02:37 UTC)." \
        in up_to.stdout.splitlines()
    one_line_error(run("count", str(jv / "game.toml"), *at), 3, "pages 2, 3 of 3 missing")


# ---------------------------------------------------------------------------------------------
# A page of another topic


def test_a_stray_phpbb_page_of_another_topic_among_the_saved_pages(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, KIRA, [f"page-{n}.html" for n in range(1, 5)],
                         {"topic-77.html": SPANISH / "page-1.html"})
    result = run("count", str(KIRA / "game.toml"), "--from", str(folder), *KIRA_AT)
    one_line_error(result, 4, "page 1 is from topic 77, not 412")
    assert "topic-77.html" in result.stderr


def test_a_stray_discuz_page_of_another_thread_among_the_saved_pages(tmp_path: Path) -> None:
    folder = folder_with(tmp_path, TRIGGER, [f"page-{n}.html" for n in range(1, 4)],
                         {"other.html": GBK / "page-2.html"})
    result = run("count", str(TRIGGER / "game.toml"), "--from", str(folder), *TRIGGER_AT)
    one_line_error(result, 4, "page 2 is from topic 200440, not 88231")
    assert "other.html" in result.stderr


def test_saved_pages_of_two_topics_without_a_game_url_name_the_stray_one(tmp_path: Path) -> None:
    """--from-extra folders have no URL to hold their pages to: they must agree with each
    other (the topic most pages state is the thread)."""
    from tally import adapters, saved
    from tally.errors import WrongThread

    folder = folder_with(tmp_path, KIRA, [f"page-{n}.html" for n in range(1, 5)],
                         {"topic-77.html": SPANISH / "page-1.html"})
    with pytest.raises(WrongThread, match=r"topic-77\.html: page 1 is from topic 77, not 412"):
        saved.read_saved_pages(folder, adapters.get("phpbb"), zone="UTC")


def test_a_board_redirecting_the_game_url_to_another_topic(
        tmp_path: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The game's topic was merged away: the board answers its URL with a redirect to another
    topic's page. Online, that is exit 4 naming both topics, not "No votes yet"."""
    monkeypatch.setitem(Fetcher.__init__.__kwdefaults__, "delay", 0.0)

    def serve(request: Request) -> Response:
        if request.args.get("t") == "412":
            return Response("", status=302, headers={"Location": "/viewtopic.php?f=2&t=77"})
        return Response((SPANISH / "page-1.html").read_bytes(),
                        content_type="text/html; charset=UTF-8")

    httpserver.expect_request("/viewtopic.php").respond_with_handler(serve)
    game = tmp_path / "game.toml"
    game.write_text((KIRA / "game.toml").read_text(encoding="utf-8").replace(
        "https://forum.example.org", httpserver.url_for("").rstrip("/")), encoding="utf-8")
    result = run("count", str(game), "--store", str(tmp_path / "s.sqlite"),
                 env={"TALLY_NOW": "2016-01-18T03:10:00Z"})
    one_line_error(result, 4, "page 1 is from topic 77, not 412")


# ---------------------------------------------------------------------------------------------
# The command line: a bad value is exit 2 and says what is wrong with it


def test_an_unknown_format_is_a_bad_command_line() -> None:
    result = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "--format",
                 "xml")
    one_line_error(result, 2, "--format 'xml': unknown format (known: bbcode, markdown, jv, "
                              "text, json)")
    one_line_error(run("audit", str(KIRA / "game.toml"), "--from", str(KIRA), "-f", "xml"), 2,
                   "--format 'xml': unknown format (known: text, json)")


def test_an_as_of_that_is_no_time_says_so() -> None:
    result = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "--as-of",
                 "garbage")
    one_line_error(result, 2, "--as-of 'garbage': the time cannot be read")
    assert "not in the thread" not in result.stderr


def test_an_as_of_post_may_be_written_as_its_link_shows_it() -> None:
    by_id = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "--as-of",
                "5013", "-f", "json")
    by_anchor = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT,
                    "--as-of", "#p5013", "-f", "json")
    assert by_id.exit_code == by_anchor.exit_code == 0
    assert by_id.stdout == by_anchor.stdout


# ---------------------------------------------------------------------------------------------
# The fetch time and the as-of point: never a count of what was not known


def test_a_fetch_time_before_a_post_on_the_page_is_refused_naming_the_post() -> None:
    """A typo (2015 for 2016) would make every post "not yet written": "No votes yet", exit 0.
    A saved page cannot hold a post written after it was saved: exit 3, naming the first."""
    result = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), "--fetched-at",
                 "2015-01-18 03:10")
    one_line_error(result, 3, "page-1.html: post 5001 (Sun Jan 17, 2016 3:00 am, 2016-01-17 "
                              "03:00 UTC) was written after the page was saved, at 2015-01-18 "
                              "03:10 UTC by --fetched-at: the save time is wrong")


def test_a_file_time_before_a_post_says_to_give_the_fetch_time(tmp_path: Path) -> None:
    import os

    folder = folder_with(tmp_path, KIRA, [f"page-{n}.html" for n in range(1, 5)])
    for page in folder.iterdir():  # copied by a tool that set the files' time to 2001
        os.utime(page, (1e9, 1e9))
    result = run("count", str(KIRA / "game.toml"), "--from", str(folder))
    one_line_error(result, 3, "by the file's modification time (give --fetched-at)")


def test_an_as_of_after_the_fetch_is_counted_as_of_the_fetch_and_says_so() -> None:
    """--as-of 2099: nothing is known of the thread after the pages were fetched. The post
    says as of when it is counted (the fetch), never "as of 2099-01-01"; the report says why."""
    later = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "--as-of",
                "2099-01-01 00:00", "-f", "json")
    plain = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "-f", "json")
    assert later.exit_code == plain.exit_code == 0, later.output
    data = json.loads(later.stdout)
    assert data["as_of"] == "2016-01-18T03:10:00Z"
    assert data["counts"] == json.loads(plain.stdout)["counts"]
    post = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "--as-of",
               "2099-01-01 00:00")
    assert "2099" not in post.stdout
    assert "as of 2016-01-18 03:10:00 UTC" in post.stdout
    text = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "--as-of",
               "2099-01-01 00:00", "-f", "text")
    assert ("asked as of 2099-01-01 00:00:00 UTC, but the pages were fetched 2016-01-18 "
            "03:10:00 UTC: counted as of then, what came after is not known") in text.stdout


# ---------------------------------------------------------------------------------------------
# The public post: no contradiction, and the players see what waits for the GM


def link(post: int) -> str:
    return f"[url=https://forum.example.org/viewtopic.php?p={post}#p{post}]"


def test_the_final_kira_post_says_who_is_eliminated_without_contradicting_itself() -> None:
    """It said "Nobody is eliminated with fewer than 3 votes." and then "Dan is eliminated":
    the threshold now explains only an outcome with nobody eliminated. The vote for a name
    that is no player (post 5015, C2) waits for the GM: the post says so, without the name."""
    result = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT)
    assert result.exit_code == 0, result.output
    assert result.stdout == (
        "[b][u]Vote count, day 1 (final): Kira, game 3[/u][/b]\n"
        "\n"
        f"[b]Dan[/b] (4): {link(5003)}Bob[/url], {link(5009)}Frank[/url], "
        f"{link(5022)}Grace[/url], {link(5024)}Ivan[/url]\n"
        f"[b]Bob[/b] (2): {link(5004)}Carol[/url], {link(5012)}Alice[/url]\n"
        f"[b]Carol[/b] (2): {link(5007)}Eve[/url], {link(5013)}Judy[/url]\n"
        "\n"
        "[b]Not voting[/b] (2): Dan, Heidi\n"
        "Dan is eliminated (K10: most votes (4))\n"
        "1 vote waits for the moderator: its name points at no one player clearly. This count may "
        "still change.\n"
        "1 vote waits for the moderator: it was edited after the deadline and its text at the "
        "deadline is not proven. This count may still change.\n"
        "\n"
        "Counted up to post #60 (5060), as of 2016-01-18 03:10:00 UTC.\n"
        "Deadline: 2016-01-18 02:59:59 UTC.\n"
        "Counted by tally 0.1.0, preset kira.\n")


def test_a_kira_count_with_nobody_at_three_votes_states_the_threshold() -> None:
    result = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "--as-of",
                 "5013", "-f", "markdown")
    assert result.exit_code == 0, result.output
    rules = result.stdout.split("**Not voting** (3): Dan, Heidi, Ivan\n")[1].split("\n\n")[0]
    assert rules == ("Nobody is eliminated with fewer than 3 votes.\n"
                     "No elimination (K9: nobody has 3 votes (most: Dan, Bob, Carol with 2))\n"
                     "1 vote waits for the moderator: it was edited after the deadline and its "
                     "text at the deadline is not proven. This count may still change.")


def test_the_votes_waiting_for_the_gm_are_said_in_the_games_language() -> None:
    result = run("count", str(KIRA / "game.toml"), "--from", str(KIRA), *KIRA_AT, "--lang", "es")
    assert result.exit_code == 0, result.output
    assert ("1 voto espera al moderador: su nombre no señala claramente a un solo jugador. "
            "Este recuento aún puede cambiar.") in result.stdout


# ---------------------------------------------------------------------------------------------
# The game file's zone against the offset the pages state


STOCK = ROOT / "fixtures" / "phpbb" / "stock-prosilver-33"  # "All times are UTC-03:00"


def test_a_zone_the_pages_contradict_is_flagged_for_the_gm(tmp_path: Path) -> None:
    """timezone = "UTC" for a board showing UTC-03:00 reads every time three hours off: the
    GM report flags it and --strict exits 5; the board's own zone raises no flag."""
    at = ["--fetched-at", "2026-11-20T15:00:00Z"]
    wrong = tmp_path / "game.toml"
    wrong.write_text((STOCK / "game.toml").read_text(encoding="utf-8").replace(
        'timezone = "America/Argentina/Buenos_Aires"', 'timezone = "UTC"'), encoding="utf-8")
    flagged = run("count", str(wrong), "--from", str(STOCK), *at, "-f", "json")
    assert flagged.exit_code == 0, flagged.output
    zone = [f for f in json.loads(flagged.stdout)["gm"]["flags"] if f["rule"] == "zone"]
    assert [f["message"] for f in zone] == [
        "the pages say their times are UTC-03:00 (fetched 2026-11-20 15:00 UTC), but the game "
        "file's timezone UTC was UTC then: every time is read 3 hours off; set timezone to the "
        "forum's zone"]
    assert run("count", str(wrong), "--from", str(STOCK), *at, "--strict").exit_code == 5
    # The post the GM pastes hides the GM report: the warning is on stderr, not in the post.
    posted = run("count", str(wrong), "--from", str(STOCK), *at)
    assert posted.exit_code == 0
    assert ("warning: the pages say their times are UTC-03:00 (fetched 2026-11-20 15:00 UTC), "
            "but the game file's timezone UTC was UTC then: every time is read 3 hours off; set "
            "timezone to the forum's zone") in posted.stderr.splitlines()
    assert "3 hours off" not in posted.stdout
    right = run("count", str(STOCK / "game.toml"), "--from", str(STOCK), *at, "-f", "json")
    assert not [f for f in json.loads(right.stdout)["gm"]["flags"] if f["rule"] == "zone"]
    assert "warning:" not in run("count", str(STOCK / "game.toml"), "--from", str(STOCK),
                                 *at).stderr


def test_a_board_answering_the_game_url_with_another_topics_page(
        tmp_path: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """No redirect at all: the game's own address serves topic 77's page (a merged topic, a
    wrong t= the board maps elsewhere). The page says which topic it is: exit 4, nothing
    counted, and offline the store's copy of it is no count either."""
    monkeypatch.setitem(Fetcher.__init__.__kwdefaults__, "delay", 0.0)
    httpserver.expect_request("/viewtopic.php").respond_with_data(
        (SPANISH / "page-1.html").read_bytes(), content_type="text/html; charset=UTF-8")
    game = tmp_path / "game.toml"
    game.write_text((KIRA / "game.toml").read_text(encoding="utf-8").replace(
        "https://forum.example.org", httpserver.url_for("").rstrip("/")), encoding="utf-8")
    store = ["--store", str(tmp_path / "s.sqlite")]
    online = run("count", str(game), *store, env={"TALLY_NOW": "2016-01-18T03:10:00Z"})
    one_line_error(online, 4, "page 1 is from topic 77, not 412")
    offline = run("count", str(game), *store, "--offline")
    one_line_error(offline, 4, "page 1 is from topic 77, not 412")


def test_saved_pages_with_relative_dates_read_at_the_file_time_say_so(tmp_path: Path) -> None:
    """'Ayer a las 10:05' on a page saved at 22:30 is the 19th, read against the file's time
    (what a browser's save leaves). A copy made later would move it, so the GM report names the
    post and the time taken; with --fetched-at stated, nothing is said."""
    import os

    case = Path(__file__).resolve().parent.parent / "fixtures" / "forumotion" / "stock-prosilver-es"
    saved = tmp_path / "saved"
    shutil.copytree(case, saved)
    when = datetime(2016, 1, 20, 22, 30, tzinfo=UTC).timestamp()
    for page in saved.glob("*.html"):
        os.utime(page, (when, when))
    game = saved / "game.toml"
    by_file = CliRunner().invoke(app, ["count", str(game), "--from", str(saved), "--format",
                                       "text", "--lang", "en"])
    stated = CliRunner().invoke(app, ["count", str(game), "--from", str(saved), "--format", "text",
                                      "--lang", "en", "--fetched-at", "2016-01-20T22:30:00Z"])
    assert by_file.exit_code == 0 and stated.exit_code == 0, by_file.output + stated.output
    note = re.search(r"page-2\.html: post (\d+) is dated relative to when the page was saved "
                     r"\(([^)]*)\); that time is taken from the file's modification time, "
                     r"2016-01-20 22:30 UTC: if the file was copied since, give --fetched-at",
                     by_file.stdout)
    assert note is not None, by_file.stdout
    assert "is dated relative to when the page was saved" not in stated.stdout
    assert by_file.stdout.split("Reading the thread")[0] == stated.stdout.split("Reading the thread")[0]
