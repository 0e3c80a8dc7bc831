"""`tally audit --from-snapshot ID`: the recorded count again from the store alone, and why
today's count differs (issue 6).

Page versions are saved straight into the store; the first audit (--offline) records the
snapshot the later runs repeat. No test here may reach the network: `offline_only` makes it
unusable and forbids constructing a Fetcher.
"""

from __future__ import annotations

import json
import shutil
import socket
import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import pytest
from casefiles import fixture_module
from typer.testing import CliRunner

from tally import fetch
from tally.cli import app
from tally.fetch import Response
from tally.store import Store

ROOT = Path(__file__).resolve().parent.parent
KIRA = ROOT / "fixtures" / "phpbb" / "kira-en"


V = fixture_module(ROOT / "fixtures" / "evidence" / "versions.py", "evidence_versions")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def save_thread(store_path: Path, pages: dict[int, bytes], at: str) -> None:
    with Store(store_path) as store:
        for number, body in pages.items():
            store.save(Response(V.kira_page_url(number), 200, {}, body, utc(at)), "t=412", number)


def run(*args: str, now: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args), env={"TALLY_NOW": now})


@pytest.fixture
def game(tmp_path: Path) -> Path:
    """A copy of the kira-en game file, so that a test can change it; its store beside it."""
    copy = tmp_path / "game.toml"
    shutil.copy(KIRA / "game.toml", copy)
    return copy


@pytest.fixture
def offline_only(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_network(*_: object, **__: object) -> None:
        raise AssertionError("the replay touched the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    monkeypatch.setattr(socket, "create_connection", no_network)
    monkeypatch.setattr(fetch.Fetcher, "__init__", no_network)


def recorded_audit(game: Path, at: str = "2016-01-18 03:10", now: str = "2016-01-18T03:12:00Z"):  # type: ignore[no-untyped-def]
    """The whole kira-en thread fetched at `at`, audited from the store: snapshot 1."""
    save_thread(game.parent / ".tally" / "game.sqlite", V.kira_thread(), at)
    first = run("audit", str(game), "--offline", now=now)
    assert first.exit_code == 0, first.output
    assert first.stderr == "snapshot 1: recorded what this audit read (4 page versions)\n"
    return first


def test_recomputed_exactly_from_the_store_alone(game: Path, offline_only: None) -> None:
    first = recorded_audit(game)
    again = run("audit", str(game), "--from-snapshot", "1", now="2026-05-01T00:00:00Z")
    assert again.exit_code == 0, again.output
    # The audit is the one recorded, line for line, then the verdict and today's comparison.
    assert again.stdout == first.stdout + (
        "snapshot 1 recomputed exactly: same result as recorded on 2016-01-18 03:12:00 UTC\n"
        "today: the same result from the 4 page versions stored now and the current game file\n")
    assert again.stderr == ""


def test_today_differs_after_the_game_file_changed(game: Path, offline_only: None) -> None:
    recorded_audit(game)
    text = game.read_text(encoding="utf-8")
    game.write_text(text.replace('deadline = "2016-01-18 02:59:59"',
                                 'deadline = "2016-01-18 03:01:00"'), encoding="utf-8")
    line = text.splitlines().index('deadline = "2016-01-18 02:59:59"') + 1
    again = run("audit", str(game), "--from-snapshot", "1", now="2016-02-01T00:00:00Z")
    assert again.exit_code == 0, again.output  # the snapshot itself was recomputed exactly
    tail = again.stdout.splitlines()
    start = tail.index("snapshot 1 recomputed exactly: same result as recorded on "
                       "2016-01-18 03:12:00 UTC")
    # Eve's 03:00:30 vote is now in time: it counts, and her earlier vote for Carol is replaced.
    assert tail[start + 1:] == [
        "today: a different result from the pages stored now and the current game file:",
        "  count: day 1: Dan 4, Bob 2, Carol 2; Dan eliminated [K10] in the snapshot; "
        "day 1: Dan 5, Bob 2, Carol 1; Dan eliminated [K10] today",
        "  post 5007: counted -> Carol in the snapshot, superseded -> Carol today",
        "  post 5056: void -> Dan [K1] in the snapshot, counted -> Dan today",
        "  the game file changed since the snapshot:",
        f"    line {line} ([[days]]): 'deadline = \"2016-01-18 02:59:59\"' is now "
        "'deadline = \"2016-01-18 03:01:00\"'",
    ]
    # The audit printed is the snapshot's: Eve's late vote is void there.
    assert any(row.startswith("#56   post 5056") and "VOID" in row for row in tail[:start])


def test_today_differs_after_a_later_edit(game: Path, offline_only: None) -> None:
    """Counted at 02:50, before the deadline; at 03:20 Frank's vote shows an edit made at
    02:55, before the deadline, so it is void today (K4), and the day's last posts are in."""
    store = game.parent / ".tally" / "game.sqlite"
    save_thread(store, V.kira_thread(at=utc("2016-01-18 02:50")), "2016-01-18 02:50")
    assert run("audit", str(game), "--offline", now="2016-01-18T02:52:00Z").exit_code == 0
    frank = V.kira_post(5009)
    save_thread(store, V.kira_thread(edits={5009: (frank[2], ("Frank", "2016-01-18 02:55:00", 1))}),
                "2016-01-18 03:20")
    again = run("audit", str(game), "--from-snapshot", "1", now="2016-01-18T03:30:00Z")
    assert again.exit_code == 0, again.output
    lines = again.stdout.splitlines()
    today = lines[lines.index("today: a different result from the pages stored now and the "
                              "current game file:"):]
    assert today[1:4] == [
        "  as-of: 2016-01-18T02:50:00Z in the snapshot, 2016-01-18T03:20:00Z today",
        "  count: day 1: Dan 4, Bob 2, Carol 2; Dan eliminated [K10] in the snapshot; "
        "day 1: Dan 3, Bob 2, Carol 2; Dan eliminated [K10] today",
        "  post 5009: counted -> Dan in the snapshot, void -> Dan [K4] today"]
    assert "  post 5056: not in the window in the snapshot, void -> Dan [K1] today" in today
    assert "  4 newer page versions fetched 2016-01-18 03:20:00 UTC:" in today
    assert "    post 5009 by Frank changed" in today
    assert "    post 5056 by Eve appeared" in today


def test_a_blob_altered_in_the_store_cannot_be_recomputed(game: Path) -> None:
    recorded_audit(game)
    store = game.parent / ".tally" / "game.sqlite"
    with sqlite3.connect(store) as db:
        digest = db.execute("SELECT sha256 FROM versions WHERE id = 2").fetchone()[0]
        forged = V.kira_thread(edits={5020: ("vote: Alice", None)})[2]
        db.execute("UPDATE blobs SET body = ? WHERE sha256 = ?", (forged, digest))
    again = run("audit", str(game), "--from-snapshot", "1", now="2016-02-01T00:00:00Z")
    assert again.exit_code == 3
    assert again.stdout == ""
    assert again.stderr == (
        "tally: error: snapshot 1 cannot be recomputed: page version 2 "
        "(https://forum.example.org/viewtopic.php?f=3&t=412&start=15, fetched 2016-01-18 03:10:00 "
        "UTC) no longer matches its recorded SHA-256 (the store was altered)\n")


def test_a_page_rewritten_as_text_in_the_store_is_one_line_not_a_crash(game: Path) -> None:
    recorded_audit(game)
    with sqlite3.connect(game.parent / ".tally" / "game.sqlite") as db:
        digest = db.execute("SELECT sha256 FROM versions WHERE id = 2").fetchone()[0]
        db.execute("UPDATE blobs SET body = ? WHERE sha256 = ?", ("<html>edited</html>", digest))
    again = run("audit", str(game), "--from-snapshot", "1", now="2016-02-01T00:00:00Z")
    assert again.exit_code == 3
    assert again.stderr.endswith(
        "page version 2 (https://forum.example.org/viewtopic.php?f=3&t=412&start=15) holds text, "
        "not the bytes fetched: the store was altered\n")


def test_a_version_missing_from_the_store_cannot_be_recomputed(game: Path) -> None:
    recorded_audit(game)
    with sqlite3.connect(game.parent / ".tally" / "game.sqlite") as db:
        db.execute("DELETE FROM versions WHERE id = 3")
    again = run("audit", str(game), "--from-snapshot", "1", now="2016-02-01T00:00:00Z")
    assert again.exit_code == 3
    assert again.stderr == (
        f"tally: error: snapshot 1 cannot be recomputed: snapshot store "
        f"{game.parent / '.tally' / 'game.sqlite'}: page versions missing: 3 (the store was "
        "altered)\n")


def test_a_different_result_from_the_same_pages_means_tally_changed(game: Path) -> None:
    """The recorded result says post 5003 was void (as an older tally might have judged it);
    the same pages and game file now count it: exit 5, the GM decides which result stands."""
    recorded_audit(game)
    with sqlite3.connect(game.parent / ".tally" / "game.sqlite") as db:
        result = db.execute("SELECT result FROM snapshots WHERE id = 1").fetchone()[0]
        older = result.replace('["5003", "counted", "Dan", null]', '["5003", "void", "Dan", "K4"]')
        assert older != result
        db.execute("UPDATE snapshots SET result = ? WHERE id = 1", (older,))
    again = run("audit", str(game), "--from-snapshot", "1", now="2016-02-01T00:00:00Z")
    assert again.exit_code == 5
    lines = again.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("snapshot 1 recomputed"))
    assert lines[start:start + 2] == [
        "snapshot 1 recomputed with a different result than recorded on 2016-01-18 03:12:00 UTC: "
        "the stored pages and game file are the same, so tally changed (recorded by tally "
        f"{__import__('tally').__version__}, this is {__import__('tally').__version__}):",
        "  post 5003: void -> Dan [K4] recorded, counted -> Dan recomputed"]


def test_a_snapshot_of_pages_only_is_counted_from_its_pages(game: Path, offline_only: None) -> None:
    store = game.parent / ".tally" / "game.sqlite"
    save_thread(store, V.kira_thread(), "2016-01-18 03:10")
    with Store(store) as opened:
        ids = [v.id for v in opened.versions("t=412")]
        opened.record_snapshot(thread_key="t=412", url=V.KIRA_URL, command="snapshot",
                               game_text=game.read_text(encoding="utf-8"), version_ids=ids,
                               result={"pages": 4}, taken_at=utc("2016-01-18 03:11"))
    again = run("audit", str(game), "--from-snapshot", "1", now="2016-02-01T00:00:00Z")
    assert again.exit_code == 0, again.output
    assert ("snapshot 1 was taken by `tally snapshot` on 2016-01-18 03:11:00 UTC: it keeps the "
            "pages, not a count; the audit above counts day 1 from its 4 page versions"
            ) in again.stdout.splitlines()


def test_from_snapshot_takes_no_other_reading_option(game: Path) -> None:
    recorded_audit(game)
    again = run("audit", str(game), "--from-snapshot", "1", "--day", "1", "--offline",
                now="2016-02-01T00:00:00Z")
    assert again.exit_code == 3
    assert again.stderr == ("tally: error: --from-snapshot repeats the recorded count: leave out "
                            "--day, --offline\n")


def test_unknown_snapshot_and_missing_store(game: Path) -> None:
    missing = run("audit", str(game), "--from-snapshot", "1", now="2016-02-01T00:00:00Z")
    assert missing.exit_code == 3
    assert missing.stderr == (f"tally: error: snapshot store {game.parent / '.tally' / 'game.sqlite'}"
                              ": no such file\n")
    recorded_audit(game)
    unknown = run("audit", str(game), "--from-snapshot", "7", now="2016-02-01T00:00:00Z")
    assert unknown.exit_code == 3
    assert unknown.stderr == (f"tally: error: snapshot store {game.parent / '.tally' / 'game.sqlite'}"
                              ": no snapshot 7 (`tally snapshot GAME.toml --list` shows them)\n")


def test_the_games_other_threads_are_part_of_the_snapshot(tmp_path: Path,
                                                           offline_only: None) -> None:
    """mafia-ru counts posts across the game's threads (R10): the snapshot names the versions of
    both threads, and the replay reads both again (the store set up as in test_cli_presets)."""
    import test_cli_presets as presets

    from tally import adapters

    invision = adapters.get("invision")
    store = tmp_path / "snapshots.sqlite"
    voting = "https://mafia.example.ru/topic/4821-golosovanie-den-2/"
    at = utc("2017-10-11 08:00")
    with Store(store) as opened:
        for number, url in enumerate((voting, f"{voting}page-2", f"{voting}page-3"), start=1):
            body = (presets.MAFIA / f"page-{number}.html").read_bytes()
            opened.save(Response(url, 200, {}, body, at), invision.thread_key(voting), number)
        opened.save(Response(presets.DISCUSSION, 200, {}, presets.discussion_page(), at),
                    invision.thread_key(presets.DISCUSSION), 1)
    game = presets.mafia_with_threads(tmp_path)
    first = run("audit", str(game), "--offline", "--store", str(store), "--format", "json",
                now="2017-10-11T09:00:00Z")
    assert first.stderr == "snapshot 1: recorded what this audit read (4 page versions)\n"
    with Store(store) as opened:
        assert {v.thread_key for v in opened.pages(opened.snapshot(1).version_ids)} == \
            {invision.thread_key(voting), invision.thread_key(presets.DISCUSSION)}
    again = run("audit", str(game), "--from-snapshot", "1", "--store", str(store), "--format",
                "json", now="2017-10-12T09:00:00Z")
    assert again.exit_code == 0, again.output
    replayed, recorded = json.loads(again.stdout), json.loads(first.stdout)
    assert replayed["snapshot"]["exact"] is True and replayed["today"]["same"] is True
    # The R10 flags count the discussion thread's posts in the replay too.
    assert [f for f in replayed["gm"]["flags"] if f["rule"] == "R10"] == \
        [f for f in recorded["gm"]["flags"] if f["rule"] == "R10"]
    assert "(this thread 2, the others 2)" in next(
        f["message"] for f in replayed["gm"]["flags"] if f["player"] == "Гелла")


def test_today_is_the_same_when_only_the_point_in_time_moved(game: Path, offline_only: None) -> None:
    """Issue 17: the thread fetched again later, nothing in it changed that the count reads:
    the as-of stamp moved with the newer fetch, and that alone is not a different result."""
    store = game.parent / ".tally" / "game.sqlite"
    save_thread(store, V.kira_thread(), "2016-01-18 03:10")
    assert run("audit", str(game), "--offline", now="2016-01-18T03:12:00Z").exit_code == 0
    save_thread(store, V.kira_thread(), "2016-01-18 03:40")  # the same pages, fetched later
    again = run("audit", str(game), "--from-snapshot", "1", now="2016-01-18T03:45:00Z")
    assert again.exit_code == 0, again.output
    assert again.stdout.splitlines()[-2:] == [
        "snapshot 1 recomputed exactly: same result as recorded on 2016-01-18 03:12:00 UTC",
        "today: the same result from the 8 page versions stored now and the current game file"]
    data = json.loads(run("audit", str(game), "--from-snapshot", "1", "--format", "json",
                          now="2016-01-18T03:45:00Z").stdout)
    assert data["today"] == {"same": True, "differences": []}
