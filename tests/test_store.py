"""tally.store: every fetch is a version, bytes stored once, errors name the file."""

from __future__ import annotations

import hashlib
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from tally.errors import InputError
from tally.fetch import Response
from tally.store import SCHEMA_VERSION, Store

T0 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
KEY = "t=123"


def response(page: int, body: bytes, minutes: int, **headers: str) -> Response:
    return Response(
        url=f"https://forum.example.org/viewtopic.php?t=123&start={(page - 1) * 10}",
        status=200,
        headers={"ETag": f'"{minutes}"', **headers},
        body=body,
        fetched_at=T0 + timedelta(minutes=minutes),
    )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "deep" / "er" / "game.sqlite")


def test_creates_parent_folders_wal_and_schema_version(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "game.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_save_and_get_round_trip(store: Store) -> None:
    sent = response(2, b"<html>page two</html>", 0, Date="Fri, 20 Nov 2026 12:00:00 GMT")
    version = store.save(sent, KEY, 2)
    got = store.get(version)
    assert got.id == version
    assert (got.url, got.thread_key, got.page, got.status) == (sent.url, KEY, 2, 200)
    assert got.fetched_at == T0 and got.fetched_at.tzinfo is not None
    assert got.headers == {"ETag": '"0"', "Date": "Fri, 20 Nov 2026 12:00:00 GMT"}
    assert got.body == b"<html>page two</html>"
    assert got.sha256 == hashlib.sha256(b"<html>page two</html>").hexdigest()


def test_every_fetch_is_a_new_version_never_an_overwrite(store: Store) -> None:
    first = store.save(response(1, b"v1", 0), KEY, 1)
    second = store.save(response(1, b"v2", 5), KEY, 1)
    same_again = store.save(response(1, b"v2", 10), KEY, 1)
    assert len({first, second, same_again}) == 3
    assert [(v.id, v.body) for v in store.versions(KEY)] == [
        (first, b"v1"), (second, b"v2"), (same_again, b"v2")]
    assert store.get(first).body == b"v1"  # the old version is still there


def test_identical_bytes_are_stored_once(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        for minutes in range(5):
            store.save(response(1, b"same page " * 100, minutes), KEY, 1)
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM blobs").fetchone()[0] == 1
        assert db.execute("SELECT count(*) FROM versions").fetchone()[0] == 5


def test_latest_is_the_newest_version_of_each_page_by_page_number(store: Store) -> None:
    store.save(response(2, b"p2 old", 0), KEY, 2)
    store.save(response(1, b"p1 old", 1), KEY, 1)
    store.save(response(3, b"p3", 2), KEY, 3)
    store.save(response(2, b"p2 new", 3), KEY, 2)
    store.save(response(1, b"other thread", 4), "t=999", 1)
    latest = store.latest(KEY)
    assert [(p.page, p.body) for p in latest] == [(1, b"p1 old"), (2, b"p2 new"), (3, b"p3")]
    assert store.last_page(KEY) == 3
    assert store.last_page("t=999") == 1
    assert store.last_page("t=nothing") is None
    assert store.last_url(KEY) == response(3, b"", 0).url
    assert store.last_url("t=nothing") is None
    assert store.latest("t=nothing") == []


def test_versions_are_in_fetch_order_even_when_saved_out_of_order(store: Store) -> None:
    late = store.save(response(1, b"later fetch", 30), KEY, 1)
    early = store.save(response(1, b"earlier fetch", 10), KEY, 1)
    assert [v.id for v in store.versions(KEY)] == [early, late]
    assert store.latest(KEY)[0].id == late


def test_store_survives_reopening(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        version = store.save(response(1, b"kept", 0), KEY, 1)
    with Store(path) as again:
        assert again.get(version).body == b"kept"


def test_a_file_that_is_not_sqlite_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "game.sqlite"
    path.write_bytes(b"this is a game file, not a database\n" * 200)
    with pytest.raises(InputError) as caught:
        Store(path)
    assert str(path) in str(caught.value)
    assert "not a tally store, or damaged" in str(caught.value)


def test_a_damaged_store_is_an_input_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        for page in range(1, 40):
            store.save(response(page, bytes([page]) * 5000, page), KEY, page)
    with sqlite3.connect(path) as db:  # fold the WAL into the file, then damage the file
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(path.read_bytes())
    data[4096:12288] = b"\xff" * 8192
    path.write_bytes(bytes(data))
    with pytest.raises(InputError) as caught, Store(path) as damaged:
        damaged.versions(KEY)
    assert str(path) in str(caught.value)


def test_another_programs_sqlite_file_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE notes (x)")
    with pytest.raises(InputError) as caught:
        Store(path)
    assert str(caught.value) == f"{path}: an SQLite file but not a tally snapshot store"


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    Store(path).close()
    with sqlite3.connect(path) as db:
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    with pytest.raises(InputError, match="written by a newer tally"):
        Store(path)


def test_a_failure_mid_save_leaves_nothing_behind(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with Store(path) as store:
        store.save(response(1, b"before", 0), KEY, 1)
    # Make the second statement of save() fail, after the blob row went in.
    with sqlite3.connect(path) as db:
        db.execute("CREATE TRIGGER fail BEFORE INSERT ON versions "
                   "BEGIN SELECT RAISE(ABORT, 'disk gone'); END")
    with Store(path) as store:
        with pytest.raises(InputError, match="could not save .*disk gone"):
            store.save(response(2, b"half written", 5), KEY, 2)
        assert [v.body for v in store.versions(KEY)] == [b"before"]
    with sqlite3.connect(path) as db:
        assert db.execute("SELECT count(*) FROM blobs").fetchone()[0] == 1  # no orphan blob


def _open_at_once(path: str, barrier, results) -> None:  # noqa: ANN001 - multiprocessing's types
    """One process of a race: wait for the others, then open (create) the store."""
    barrier.wait()
    try:
        Store(Path(path)).close()
        results.put("ok")
    except Exception as exc:  # noqa: BLE001 - reported to the test
        results.put(f"{type(exc).__name__}: {exc}")


def test_first_runs_racing_on_a_new_store_both_succeed(tmp_path: Path) -> None:
    """Issue 17: two first runs on a new store (cron and a GM at once) both create the schema;
    neither may fail with "table snapshots already exists". Real processes, started together
    on a barrier, on several fresh stores."""
    import multiprocessing

    context = multiprocessing.get_context("fork")
    runs, racers = 5, 4
    for attempt in range(runs):
        path = tmp_path / f"race-{attempt}.sqlite"
        barrier = context.Barrier(racers)
        results = context.Queue()
        processes = [context.Process(target=_open_at_once, args=(str(path), barrier, results))
                     for _ in range(racers)]
        for process in processes:
            process.start()
        outcomes = [results.get(timeout=120) for _ in processes]
        for process in processes:
            process.join(120)
        assert outcomes == ["ok"] * racers, outcomes
        with sqlite3.connect(path) as db:
            assert db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_a_stored_page_changed_by_one_byte_is_never_counted(tmp_path: Path) -> None:
    """Issue 17: `--offline` checks every stored version against the SHA-256 recorded at fetch
    time; one byte changed ("Bob" -> "Aob", which would fuzzy-match Bob) is exit 3 naming the
    page, never a count."""
    from typer.testing import CliRunner

    from tally.cli import app

    kira = Path(__file__).resolve().parent.parent / "fixtures" / "phpbb" / "kira-en"
    path = tmp_path / "game.sqlite"
    with Store(path) as store:
        for number in range(1, 5):
            body = (kira / f"page-{number}.html").read_bytes()
            store.save(Response(f"https://forum.example.org/viewtopic.php?f=3&t=412&start="
                                f"{(number - 1) * 15}", 200, {}, body,
                                T0 + timedelta(seconds=number)), "t=412", number)
    args = ["count", str(kira / "game.toml"), "--store", str(path), "--offline"]
    assert CliRunner().invoke(app, args).exit_code == 0
    with sqlite3.connect(path) as db:
        (sha, body), = db.execute("SELECT b.sha256, b.body FROM blobs b JOIN versions v"
                                  " ON v.sha256 = b.sha256 WHERE v.page = 1").fetchall()
        at = body.index(b"vote: Bob")
        db.execute("UPDATE blobs SET body = ? WHERE sha256 = ?",
                   (body[:at] + b"vote: Aob" + body[at + 9:], sha))
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 3, result.output
    assert result.stderr.strip().splitlines() == [
        "tally: error: stored page 1 of https://forum.example.org/viewtopic.php?f=3&t=412 "
        "(version 1, fetched 2026-11-20 12:00:01 UTC) no longer matches its recorded SHA-256: "
        "the snapshot store was altered"]
