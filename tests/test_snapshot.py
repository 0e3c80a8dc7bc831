"""`tally snapshot` and the snapshot every count records (issue 6): pages kept as versions with
their SHA-256, never overwritten; one snapshot row per thread; `--list`.

The forum is a local server (pytest-httpserver) serving the kira-en thread's phpBB pages; a
test changes what it serves between two runs, as the forum would change between two fetches.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from casefiles import fixture_module
from pytest_httpserver import HTTPServer
from typer.testing import CliRunner
from werkzeug import Request, Response

from tally.cli import app
from tally.fetch import Fetcher
from tally.store import Store

ROOT = Path(__file__).resolve().parent.parent
KIRA = ROOT / "fixtures" / "phpbb" / "kira-en"


V = fixture_module(ROOT / "fixtures" / "evidence" / "versions.py", "evidence_versions")


class Forum:
    """The thread's pages as the server serves them now (page number -> bytes)."""

    def __init__(self) -> None:
        self.pages: dict[int, bytes] = V.kira_thread()

    def serve(self, request: Request) -> Response:
        number = int(request.args.get("start", "0")) // 15 + 1
        # Another topic (the game's other threads) has its own links: a page says its topic.
        topic = request.args.get("t", "412").encode()
        body = self.pages[number].replace(b"t=412", b"t=" + topic)
        return Response(body, content_type="text/html; charset=UTF-8")


@pytest.fixture
def forum(httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch) -> Iterator[Forum]:
    served = Forum()
    httpserver.expect_request("/viewtopic.php").respond_with_handler(served.serve)
    # Politeness delays are for real forums; this one is local.
    monkeypatch.setitem(Fetcher.__init__.__kwdefaults__, "delay", 0.0)
    yield served


@pytest.fixture
def game(tmp_path: Path, httpserver: HTTPServer) -> Path:
    path = tmp_path / "game.toml"
    path.write_text((KIRA / "game.toml").read_text(encoding="utf-8").replace(
        "https://forum.example.org", httpserver.url_for("").rstrip("/")), encoding="utf-8")
    return path


def run(*args: str, now: str):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, list(args), env={"TALLY_NOW": now})


def page_set(pages: dict[int, bytes]) -> str:
    """What the README says the page-set hash is: sha256 over "<page> <sha256>\\n" lines."""
    lines = "".join(f"{n} {hashlib.sha256(body).hexdigest()}\n" for n, body in sorted(pages.items()))
    return hashlib.sha256(lines.encode()).hexdigest()


def thread_url(httpserver: HTTPServer) -> str:
    return httpserver.url_for("/viewtopic.php") + "?f=3&t=412"


def test_snapshot_keeps_every_fetch_as_a_version_with_its_hash(
        forum: Forum, game: Path, httpserver: HTTPServer) -> None:
    store_path = game.parent / ".tally" / "game.sqlite"
    first = run("snapshot", str(game), now="2016-01-18T03:10:00Z")
    assert first.exit_code == 0, first.output
    assert first.stdout == (f"snapshot 1: {thread_url(httpserver)}, 4 pages, 4 new versions "
                            f"(the thread's first fetch), sha256 of the page set "
                            f"{page_set(forum.pages)}\n")
    served_first = dict(forum.pages)
    # Bob edits his vote after the deadline with no notice shown; the rest is as before.
    forum.pages = V.kira_thread(edits={5003: ("vote: Alice", None)})
    before = len(httpserver.log)
    second = run("snapshot", str(game), now="2016-01-18T03:40:00Z")
    assert second.exit_code == 0, second.output
    assert second.stdout == (f"snapshot 2: {thread_url(httpserver)}, 4 pages, 4 new versions "
                             f"(1 changed since the last fetch), sha256 of the page set "
                             f"{page_set(forum.pages)}\n")
    # A snapshot reads the whole thread again, not only its last page as a count does.
    assert sorted(r.args.get("start", "0") for r, _ in httpserver.log[before:]) == \
        ["0", "15", "30", "45"]
    with Store(store_path) as store:
        versions = store.versions("t=412")
        snaps = store.snapshots()
    # Pages are read from the last down (a deletion mid-crawl then loses nothing): compare sets.
    assert sorted((v.page, v.fetched_at.strftime("%H:%M")) for v in versions) == \
        sorted([(n, "03:10") for n in (1, 2, 3, 4)] + [(n, "03:40") for n in (1, 2, 3, 4)])
    for version in versions:  # each version holds the bytes served then, and their hash
        served = (served_first if version.fetched_at.minute == 10 else forum.pages)[version.page]
        assert version.body == served
        assert version.sha256 == hashlib.sha256(served).hexdigest()
    first, second = (v for v in versions if v.page == 1)
    assert first.body != second.body  # page 1's first version is never overwritten
    with sqlite3.connect(store_path) as db:  # identical bytes are stored once
        assert db.execute("SELECT count(*) FROM blobs").fetchone()[0] == 5
    assert [(s.id, s.command, len(s.version_ids)) for s in snaps] == \
        [(1, "snapshot", 4), (2, "snapshot", 8)]
    assert snaps[1].game_text == game.read_text(encoding="utf-8")
    assert snaps[1].result["page_set"] == page_set(forum.pages)


def test_snapshot_takes_every_thread_of_the_game_once(
        forum: Forum, game: Path, httpserver: HTTPServer) -> None:
    """A day's voting thread and the game's other threads are fetched too; one row each."""
    other = httpserver.url_for("/viewtopic.php") + "?f=3&t=413"
    text = game.read_text(encoding="utf-8")
    game.write_text(text.replace("[thread]", f'threads = ["{other}", "{thread_url(httpserver)}"]'
                                             "\n\n[thread]"), encoding="utf-8")
    result = run("snapshot", str(game), now="2016-01-18T03:10:00Z")
    assert result.exit_code == 0, result.output
    assert [line.split(",")[0] for line in result.stdout.splitlines()] == [
        f"snapshot 1: {thread_url(httpserver)}", f"snapshot 2: {other}"]
    with Store(game.parent / ".tally" / "game.sqlite") as store:
        assert [s.thread_key for s in store.snapshots()] == ["t=412", "t=413"]


def test_every_count_records_a_snapshot_and_prints_nothing_new(
        forum: Forum, game: Path, httpserver: HTTPServer) -> None:
    plain = run("count", str(game), "--from", str(KIRA), "--fetched-at", "2016-01-18 03:10",
                now="2016-01-18T03:10:00Z")
    online = run("count", str(game), now="2016-01-18T03:10:00Z")
    assert online.exit_code == 0, online.output
    assert online.stderr == ""  # the tally post stays pasteable: nothing else is said
    assert online.stdout.replace(httpserver.url_for("").rstrip("/"), "https://forum.example.org") \
        == plain.stdout
    as_json = run("count", str(game), "--format", "json", now="2016-01-18T03:11:00Z")
    data = json.loads(as_json.stdout)
    with Store(game.parent / ".tally" / "game.sqlite") as store:
        snaps = store.snapshots()
        ids = {v.id for v in store.versions("t=412")}
    assert [(s.id, s.command) for s in snaps] == [(1, "count"), (2, "count")]
    assert set(snaps[1].version_ids) == ids  # the versions the count read: all of them
    recorded = snaps[1].result
    assert recorded["counts"] == [{"player": c["player"], "votes": c["votes"],
                                   "voters": c["voters"]} for c in data["counts"]]
    assert recorded["verdicts"] == [[v["post"], v["verdict"], v["target"], v["rule"]]
                                    for v in data["verdicts"]]
    assert (recorded["day"], recorded["as_of"], recorded["outcome"]["player"]) == \
        (data["day"], data["as_of"], data["outcome"]["player"])


def test_audit_says_which_snapshot_it_recorded(forum: Forum, game: Path) -> None:
    result = run("audit", str(game), "--post", "5003", now="2016-01-18T03:10:00Z")
    assert result.exit_code == 0, result.output
    assert result.stderr == "snapshot 1: recorded what this audit read (4 page versions)\n"


def test_saved_pages_record_nothing(game: Path, tmp_path: Path) -> None:
    store = tmp_path / "never.sqlite"
    result = run("count", str(game), "--from", str(KIRA), "--store", str(store),
                 now="2016-01-18T03:10:00Z")
    assert result.exit_code == 0, result.output
    assert not store.exists()


def test_list_shows_every_snapshot(forum: Forum, game: Path) -> None:
    madrid = game.read_text(encoding="utf-8").replace('timezone = "UTC"',
                                                      'timezone = "Europe/Madrid"')
    game.write_text(madrid, encoding="utf-8")
    run("snapshot", str(game), now="2016-01-18T03:10:00Z")
    counted = run("count", str(game), "--offline", "--format", "json", now="2016-01-18T03:15:00Z")
    data = json.loads(counted.stdout)
    listed = run("snapshot", str(game), "--list", now="2016-01-18T04:00:00Z")
    assert listed.exit_code == 0, listed.output
    counts = ", ".join(f"{c['player']} {c['votes']}" for c in data["counts"])
    outcome = data["outcome"]
    assert outcome["result"] == "eliminated"
    with Store(game.parent / ".tally" / "game.sqlite") as store:
        digest = store.snapshot(1).result["page_set"]
    assert listed.stdout.splitlines() == [
        f"snapshots in {game.parent / '.tally' / 'game.sqlite'} (forum time: Europe/Madrid)",
        f"   1  2016-01-18 03:10:00 UTC  2016-01-18 04:10:00 forum  snapshot  4 pages  60 posts, "
        f"page set sha256 {digest[:16]}…",
        f"   2  2016-01-18 03:15:00 UTC  2016-01-18 04:15:00 forum  count     4 pages  day 1: "
        f"{counts}; {outcome['player']} eliminated [{outcome['rule']}]",
    ]


def test_list_without_a_store(game: Path) -> None:
    result = run("snapshot", str(game), "--list", now="2016-01-18T04:00:00Z")
    assert result.exit_code == 3
    assert result.stderr == (f"tally: error: snapshot store {game.parent / '.tally' / 'game.sqlite'}"
                             f": no such file (`tally snapshot {game}` creates it)\n")
