"""Issue 16 for the threads beside the counted one: the game's other threads (mafia-ru's activity
count R10 reads them: `--from-extra` folders, the game file's `threads` through the store) and
the trigger report (`tally triggers`, over the whole thread) are held to the counted thread's
rules. A page missing where a post could change the result is exit 3 "page N of M missing"; a
page of another topic is exit 4 "page N is from topic X, not Y". Never a count with exit 0 that
silently read less, or another game's posts.

The discussion thread is day 2's "Общая" of the mafia-ipb3-ru game, written with that fixture's
own IPB 3.4 templates (make_pages.py), here three pages long; the trigger thread is Discuz's
trigger-utf8.
"""

from __future__ import annotations

import json
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest
from casefiles import fixture_module
from typer.testing import CliRunner

from tally.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
MAFIA = FIXTURES / "invision" / "mafia-ipb3-ru"
TRIGGER = FIXTURES / "discuz" / "trigger-utf8"
MAFIA_AT = "2017-10-11T08:00:00Z"
VOTING = "https://mafia.example.ru/topic/4821-golosovanie-den-2/"
DISCUSSION = "https://mafia.example.ru/topic/4820-obsuzhdenie-den-2/"


def run(*args: str | Path):  # noqa: ANN201 - typer's result type
    return CliRunner().invoke(app, [str(a) for a in args])


def one_line_error(result, code: int, text: str) -> None:  # noqa: ANN001
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tally: error: ") and text in lines[0], \
        result.stderr
    assert result.stdout == ""  # no count at all, not a count with a warning


def discussion_pages(rows_kept: int = 8) -> dict[int, bytes]:
    """Three pages of the discussion thread, all posts inside day 2 (22:00 Oct 9 to 21:00 Oct
    10, Moscow): Воланд 3, Мастер 2, Гелла 2, the GM 1 (the first `rows_kept` of them)."""
    pages = fixture_module(MAFIA / "make_pages.py", "mafia_make_pages_three")
    pages.POSTS = []
    rows = [(899001, pages.GM, "2017-10-09T19:00:00Z", "Обсуждение второго дня открыто."),
            (899007, pages.VOLAND, "2017-10-09T19:30:00Z", "Добрый вечер."),
            (899010, pages.MASTER, "2017-10-09T20:10:00Z", "Роман почти дописан."),
            (899013, pages.GELLA, "2017-10-10T06:00:00Z", "Утро."),
            (899016, pages.VOLAND, "2017-10-10T09:00:00Z", "Посмотрим."),
            (899019, pages.MASTER, "2017-10-10T11:00:00Z", "Рукописи не горят."),
            (899022, pages.GELLA, "2017-10-10T12:00:00Z", "Вечереет."),
            (899025, pages.VOLAND, "2017-10-10T18:00:00Z", "Успел.")]
    for n, (pid, who, utc, text) in enumerate(rows[:rows_kept], start=1):
        shown = f"{datetime.fromisoformat(pages.iso_local(utc)):%d %B %Y - %H:%M}"  # as IPB 3.4
        pages.post(pid, n, who, utc, shown, f"<p>{text}</p>")
    pages.PAGES = (DISCUSSION, f"{DISCUSSION}page-2", f"{DISCUSSION}page-3")
    pages.PAGE_OF = [(0, 3), (3, 6), (6, 8)]
    return {number: pages.page_html(number).encode("utf-8") for number in (1, 2, 3)}


def folder_of(tmp_path: Path, name: str, pages: dict[int, bytes]) -> Path:
    folder = tmp_path / name
    folder.mkdir()
    for number, body in pages.items():
        (folder / f"page-{number}.html").write_bytes(body)
    return folder


def mafia_game(tmp_path: Path, threads: list[str] | None) -> Path:
    """The mafia-ipb3-ru game file with the mafia-ru preset (R10 reads the other threads)."""
    text = (MAFIA / "game.toml").read_text(encoding="utf-8")
    text = text.replace('preset = "majority"', 'preset = "mafia-ru"', 1)
    text = text.replace("patterns = ['(?m)^[ \\t]*(?P<target>\\w+(?:[ \\t]\\w+)?)[ \\t]*$']\n", "")
    text = text.replace('void_edited = true                  # "Правленые посты не засчитываются"\n',
                        "")
    if threads is not None:
        listed = ", ".join(f'"{url}"' for url in threads)
        assert text.count('staff = ["Despina"]') == 1
        text = text.replace('staff = ["Despina"]', f'threads = [{listed}]\nstaff = ["Despina"]')
    path = tmp_path / "game.toml"
    path.write_text(text, encoding="utf-8")
    return path


def r10(stdout: str) -> dict[str, str]:
    return {f["player"]: f["message"] for f in json.loads(stdout)["gm"]["flags"]
            if f["rule"] == "R10"}


# ---------------------------------------------------------------------------------------------
# --from-extra folders


def test_a_whole_discussion_thread_from_extra_counts(tmp_path: Path) -> None:
    """The three pages: Воланд 2 there + 3 here and Мастер 3 + 2 make 5 (no R10 flag)."""
    extra = folder_of(tmp_path, "discussion", discussion_pages())
    result = run("count", mafia_game(tmp_path, [DISCUSSION]), "--from", MAFIA, "--fetched-at",
                 MAFIA_AT, "--from-extra", extra, "--format", "json")
    assert result.exit_code == 0, result.output
    assert "Воланд" not in r10(result.stdout) and "Мастер" not in r10(result.stdout)
    assert "(this thread 2, the others 2)" in r10(result.stdout)["Гелла"]


def test_a_discussion_folder_without_its_page_two_is_no_count(tmp_path: Path) -> None:
    """Before: exit 0, Воланд and Мастер one post short, flagged for an autoban (R10)."""
    pages = discussion_pages()
    del pages[2]
    extra = folder_of(tmp_path, "discussion", pages)
    result = run("count", mafia_game(tmp_path, [DISCUSSION]), "--from", MAFIA, "--fetched-at",
                 MAFIA_AT, "--from-extra", extra)
    one_line_error(result, 3, f"page 2 of 3 missing from what was read of {DISCUSSION}: a post "
                              "of the day could be on it")


def test_a_folder_of_a_topic_that_is_not_one_of_the_games_threads(tmp_path: Path) -> None:
    """The folder holds topic 4820's pages, the game file's threads name 4830 only: before,
    exit 0 with 4820's posts counted as the game's."""
    extra = folder_of(tmp_path, "discussion", discussion_pages())
    game = mafia_game(tmp_path, ["https://mafia.example.ru/topic/4830-obsuzhdenie-den-3/"])
    result = run("count", game, "--from", MAFIA, "--fetched-at", MAFIA_AT, "--from-extra", extra)
    one_line_error(result, 4, f"{extra / 'page-1.html'}: page 1 is from topic 4820, not 4830 "
                              "(the game file's threads)")


def test_a_discussion_thread_saved_before_the_deadline_is_said_to_be_partial(
        tmp_path: Path) -> None:
    """The discussion's pages were saved at 18:00 Moscow (their files' time, no --fetched-at),
    the voting thread's the next morning: what was written there between 18:00 and the 21:00
    deadline is not in the activity count, and the GM report says so beside the R10 flags.
    Before: nothing said, Воланд flagged for an autoban on a partial count."""
    import os

    stamp = {"voting": datetime(2017, 10, 11, 8, 0, tzinfo=UTC).timestamp(),
             "discussion": datetime(2017, 10, 10, 15, 0, tzinfo=UTC).timestamp()}
    voting = tmp_path / "voting"
    shutil.copytree(MAFIA, voting)
    extra = folder_of(tmp_path, "discussion", discussion_pages(rows_kept=7))  # to 15:00 UTC
    for folder, name in ((voting, "voting"), (extra, "discussion")):
        for page in folder.glob("*.html"):
            os.utime(page, (stamp[name], stamp[name]))
    result = run("count", mafia_game(tmp_path, [DISCUSSION]), "--from", voting, "--from-extra",
                 extra, "--format", "text", "--lang", "en")
    assert result.exit_code == 0, result.output
    assert (f"the other game thread {DISCUSSION} is known up to 2017-10-10 15:00:00 UTC only, "
            "before the count's 2017-10-10 18:00:00 UTC: its later posts of the day are not "
            "counted") in result.stdout
    assert "Воланд: 4 posts in the game day across 2 game threads" in result.stdout
    same_time = run("count", mafia_game(tmp_path, [DISCUSSION]), "--from", MAFIA,
                    "--fetched-at", MAFIA_AT, "--from-extra", extra, "--format", "text",
                    "--lang", "en")
    assert same_time.exit_code == 0, same_time.output
    assert "is known up to" not in same_time.stdout


def test_the_voting_threads_own_pages_given_as_the_other_thread(tmp_path: Path) -> None:
    """The GM passed the voting thread's folder twice: its topic 4821 is not the discussion."""
    result = run("count", mafia_game(tmp_path, [DISCUSSION]), "--from", MAFIA, "--fetched-at",
                 MAFIA_AT, "--from-extra", MAFIA)
    one_line_error(result, 4, "page 1 is from topic 4821, not 4820 (the game file's threads)")


def test_from_extra_needs_the_threads_it_is_of_in_the_game_file(tmp_path: Path) -> None:
    extra = folder_of(tmp_path, "discussion", discussion_pages())
    result = run("count", mafia_game(tmp_path, None), "--from", MAFIA, "--fetched-at", MAFIA_AT,
                 "--from-extra", extra)
    one_line_error(result, 3, f"--from-extra {extra}: the game file lists no other threads: add "
                              "their URLs to `threads`")


# ---------------------------------------------------------------------------------------------
# The game file's threads, through the snapshot store


def stored_game(tmp_path: Path, discussion: tuple[int, ...]) -> Path:
    """A snapshot store holding the voting thread whole and these pages of the discussion."""
    from tally import adapters
    from tally.fetch import Response
    from tally.store import Store

    engine = adapters.get("invision")
    fetched = datetime(2017, 10, 11, 8, 0, tzinfo=UTC)
    store = Store(tmp_path / "snapshots.sqlite")
    for number, url in enumerate((VOTING, f"{VOTING}page-2", f"{VOTING}page-3"), start=1):
        body = (MAFIA / f"page-{number}.html").read_bytes()
        store.save(Response(url, 200, {}, body, fetched), engine.thread_key(VOTING), number)
    pages = discussion_pages()
    for number in discussion:
        url = DISCUSSION if number == 1 else f"{DISCUSSION}page-{number}"
        store.save(Response(url, 200, {}, pages[number], fetched),
                   engine.thread_key(DISCUSSION), number)
    store.close()
    return tmp_path / "snapshots.sqlite"


def test_a_stored_discussion_thread_with_a_hole_is_no_count(tmp_path: Path) -> None:
    """The store holds pages 1 and 3 of the discussion (a crawl of it killed midway):
    --offline is exit 3 naming the discussion's missing page."""
    store = stored_game(tmp_path, (1, 3))
    result = run("count", mafia_game(tmp_path, [DISCUSSION]), "--offline", "--store", store)
    one_line_error(result, 3, f"page 2 of 3 missing from what was read of {DISCUSSION}")


def test_from_warc_reads_the_other_threads_from_the_warc_never_the_forum(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--from-warc read the voting thread from the archive but the game's `threads` from the
    forum (a request to mafia.example.ru, or the count failing offline). `tally export` writes
    every thread of the game: the count reads them all from it, and a WARC without the
    discussion's page 2 is exit 3."""
    from tally.fetch import Fetcher

    def no_network(*args: object, **kwargs: object) -> None:
        raise AssertionError("a --from-warc count asked the forum")

    monkeypatch.setattr(Fetcher, "get", no_network)
    game = mafia_game(tmp_path, [DISCUSSION])
    for name, pages in (("whole", (1, 2, 3)), ("holed", (1, 3))):
        folder = tmp_path / name
        folder.mkdir()
        store = stored_game(folder, pages)
        exported = run("export", game, "--store", store, "--warc", folder / "game.warc.gz")
        assert exported.exit_code == 0, exported.output
    whole = run("count", game, "--from-warc", tmp_path / "whole" / "game.warc.gz", "--format",
                "json")
    assert whole.exit_code == 0, whole.output
    assert "Воланд" not in r10(whole.stdout) and "Мастер" not in r10(whole.stdout)
    assert "(this thread 2, the others 2)" in r10(whole.stdout)["Гелла"]
    holed = run("count", game, "--from-warc", tmp_path / "holed" / "game.warc.gz")
    one_line_error(holed, 3, f"page 2 of 3 missing from what was read of {DISCUSSION}")


# ---------------------------------------------------------------------------------------------
# tally triggers: the whole thread


def trigger_game(tmp_path: Path) -> Path:
    """trigger-utf8's trigger-cn file with day 1 still running when the pages were saved (its
    deadline moved to the 25th): the report reads the thread without a count of the day."""
    text = (TRIGGER / "trigger-cn.toml").read_text(encoding="utf-8")
    assert text.count('deadline = "2026-11-18 18:00"') == 1
    path = tmp_path / "trigger.toml"
    path.write_text(text.replace('deadline = "2026-11-18 18:00"', 'deadline = "2026-11-25 18:00"'),
                    encoding="utf-8")
    return path


def test_the_trigger_report_over_a_thread_missing_a_page_is_refused(tmp_path: Path) -> None:
    """Page 2 (floors 11-20) was not saved: before, the report was printed, exit 0, without the
    floors it holds."""
    folder = tmp_path / "saved"
    folder.mkdir()
    for name in ("page-1.html", "page-3.html"):
        shutil.copy(TRIGGER / name, folder / name)
    game = trigger_game(tmp_path)
    whole = run("triggers", game, "--from", TRIGGER, "--fetched-at", "2026-11-20T04:00:00Z")
    assert whole.exit_code == 0, whole.output
    result = run("triggers", game, "--from", folder, "--fetched-at", "2026-11-20T04:00:00Z")
    one_line_error(result, 3, "page 2 of 3 missing from what was read of "
                              "https://bbs.tuilisha.cn/forum.php?mod=viewthread&tid=88231")


def test_the_trigger_report_refuses_a_page_of_another_thread(tmp_path: Path) -> None:
    folder = tmp_path / "saved"
    folder.mkdir()
    for name in ("page-1.html", "page-2.html", "page-3.html"):
        shutil.copy(TRIGGER / name, folder / name)
    shutil.copy(FIXTURES / "discuz" / "gbk-old" / "page-2.html", folder / "other.html")
    result = run("triggers", trigger_game(tmp_path), "--from", folder, "--fetched-at",
                 "2026-11-20T04:00:00Z")
    one_line_error(result, 4, "page 2 is from topic 200440, not 88231")
