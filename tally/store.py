"""The snapshot store (DESIGN.md "Snapshots"): every fetched page, kept as a version.

A fetch never overwrites an earlier one: each `save` adds a row to `versions` (URL, thread key,
page number, fetch time, status, the headers that matter, SHA-256), and the bytes go once into
`blobs`, keyed by their SHA-256, so polling an unchanged page costs a row, not a page. This is
both the audit's evidence (C6, K4b: the thread as it stood at a moment) and the cache that lets a
re-run fetch only the last known page and what follows.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Self

from tally import times
from tally.errors import InputError
from tally.fetch import Response

SCHEMA_VERSION = 3
_BUSY_TIMEOUT = 30.0  # seconds a run waits for another one holding the store's write lock

# Schema 1: the page versions. Schema 2 adds what a count and a scheduled post leave behind.
_SCHEMA_1 = """
CREATE TABLE blobs (
    sha256 TEXT PRIMARY KEY,
    body   BLOB NOT NULL
);
CREATE TABLE versions (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_key TEXT    NOT NULL,
    page       INTEGER NOT NULL,
    url        TEXT    NOT NULL,
    fetched_at TEXT    NOT NULL,  -- UTC, fixed-width ISO 8601 so text order is time order
    status     INTEGER NOT NULL,
    headers    TEXT    NOT NULL,  -- JSON object: Date, Last-Modified, ETag, Content-Type, ...
    sha256     TEXT    NOT NULL REFERENCES blobs (sha256)
);
CREATE INDEX versions_by_page ON versions (thread_key, page, fetched_at, id);
"""

_SCHEMA_2 = """
-- A snapshot: the exact page versions one count read, the game file it read them with, and
-- what it found. `tally audit --from-snapshot ID` repeats that count from these rows alone.
CREATE TABLE snapshots (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_key  TEXT    NOT NULL,
    url         TEXT    NOT NULL,
    taken_at    TEXT    NOT NULL,  -- UTC, fixed width
    command     TEXT    NOT NULL,  -- snapshot | count | audit | post
    game_sha256 TEXT    NOT NULL,
    game_text   TEXT    NOT NULL,  -- the game file as it was: a later edit must not change the past
    version_ids TEXT    NOT NULL,  -- JSON list of versions.id
    result      TEXT    NOT NULL   -- JSON: what the count found (may be '{}' for tally snapshot)
);
CREATE INDEX snapshots_by_thread ON snapshots (thread_key, taken_at, id);

-- The scheduled run's memory (issue 5): every count it posted or tried to post. A row is
-- written as 'sending' before the reply call and set to 'posted' after it, so a crash in
-- between leaves a trace that the next run resolves by reading the thread's tail.
CREATE TABLE posted (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_key TEXT    NOT NULL,
    day        INTEGER NOT NULL,
    state      TEXT    NOT NULL CHECK (state IN ('sending', 'posted', 'failed')),
    started_at TEXT    NOT NULL,  -- UTC, fixed width
    posted_at  TEXT,
    sha256     TEXT    NOT NULL,  -- of the count's content: the same content is never posted twice
    post_id    TEXT,              -- the forum's id of the post it became
    last_seen  TEXT,              -- the thread's last post id when the count was made
    summary    TEXT    NOT NULL,  -- JSON: what the count said (for "changes since the last count")
    body       TEXT    NOT NULL,  -- the text sent
    note       TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX posted_by_thread ON posted (thread_key, day, id);
"""

_SCHEMA_3 = """
-- Crawls (issue 16): a row is written before a crawl fetches anything, with the lowest page it
-- means to read, lowered as the crawl decides to read further down; `finished_at` is set once
-- it has read all of it. A crawl killed midway (cron's timeout, a reboot) leaves its row
-- unfinished, and the next crawl reads down to its `low` again: no hole is left behind.
CREATE TABLE crawls (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    thread_key  TEXT    NOT NULL,
    started_at  TEXT    NOT NULL,  -- UTC, fixed width
    low         INTEGER NOT NULL,  -- the lowest page the crawl means to read
    finished_at TEXT               -- NULL: not (yet) finished
);
CREATE INDEX crawls_by_thread ON crawls (thread_key, finished_at);
"""

_MIGRATIONS = {1: _SCHEMA_1, 2: _SCHEMA_2, 3: _SCHEMA_3}  # user_version N is reached by running script N

_COLUMNS = "v.id, v.url, v.thread_key, v.page, v.fetched_at, v.status, v.headers, b.body, v.sha256"
_FROM = "FROM versions v JOIN blobs b ON b.sha256 = v.sha256"


@dataclass(frozen=True)
class StoredPage:
    """One stored version of one page."""

    id: int
    url: str
    thread_key: str
    page: int
    fetched_at: datetime  # aware UTC
    status: int
    headers: Mapping[str, str]
    body: bytes
    sha256: str


@dataclass(frozen=True)
class Snapshot:
    """What one count read and found (see _SCHEMA_2)."""

    id: int
    thread_key: str
    url: str
    taken_at: datetime  # aware UTC
    command: str
    game_sha256: str
    game_text: str
    version_ids: tuple[int, ...]
    result: Mapping[str, Any]


@dataclass(frozen=True)
class Posted:
    """One count the scheduled run posted, or began to post (see _SCHEMA_2)."""

    id: int
    thread_key: str
    day: int
    state: str  # sending | posted | failed
    started_at: datetime
    posted_at: datetime | None
    sha256: str
    post_id: str | None
    last_seen: str | None
    summary: Mapping[str, Any]
    body: str
    note: str


class Store:
    """A SQLite file of page versions. One instance per thread of control (sqlite3 rule)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT)
            self._wal()
            self._migrate()
        except sqlite3.DatabaseError as exc:
            raise self._error("cannot be opened", exc) from None
        except OSError as exc:
            raise InputError(f"snapshot store {self.path}: {exc.strerror or exc}") from None

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- writing -------------------------------------------------------------------------------

    def save(self, response: Response, thread_key: str, page: int) -> int:
        """Add a version of `page`; returns its id. One transaction: all of it or nothing."""
        digest = hashlib.sha256(response.body).hexdigest()
        row = (
            thread_key,
            page,
            response.url,
            _stamp(response.fetched_at),
            response.status,
            json.dumps(dict(response.headers), sort_keys=True),
            digest,
        )
        try:
            with self._db:  # commits on success, rolls back on any exception
                self._db.execute(
                    "INSERT OR IGNORE INTO blobs (sha256, body) VALUES (?, ?)",
                    (digest, response.body),
                )
                cursor = self._db.execute(
                    "INSERT INTO versions (thread_key, page, url, fetched_at, status, headers,"
                    " sha256) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    row,
                )
        except sqlite3.DatabaseError as exc:
            raise self._error(f"could not save {response.url}", exc) from None
        return int(cursor.lastrowid or 0)

    # -- reading -------------------------------------------------------------------------------

    def latest(self, thread_key: str) -> list[StoredPage]:
        """The newest version of each page of the thread, by page number."""
        return list(
            self._select(
                f"SELECT {_COLUMNS} {_FROM} WHERE v.id IN ("
                " SELECT (SELECT w.id FROM versions w"
                "  WHERE w.thread_key = p.thread_key AND w.page = p.page"
                "  ORDER BY w.fetched_at DESC, w.id DESC LIMIT 1)"
                " FROM versions p WHERE p.thread_key = ? GROUP BY p.page)"
                " ORDER BY v.page",
                (thread_key,),
            )
        )

    def versions(self, thread_key: str) -> list[StoredPage]:
        """Every stored version of every page of the thread, oldest fetch first."""
        return list(
            self._select(
                f"SELECT {_COLUMNS} {_FROM} WHERE v.thread_key = ?"
                " ORDER BY v.fetched_at, v.id",
                (thread_key,),
            )
        )

    def page_versions(self, thread_key: str, page: int) -> list[StoredPage]:
        """Every stored version of one page of the thread, newest fetch first."""
        return list(
            self._select(
                f"SELECT {_COLUMNS} {_FROM} WHERE v.thread_key = ? AND v.page = ?"
                " ORDER BY v.fetched_at DESC, v.id DESC",
                (thread_key, page),
            )
        )

    def last_page(self, thread_key: str) -> int | None:
        """The highest page number stored for the thread, None when nothing is stored."""
        (page,) = self._rows("SELECT MAX(page) FROM versions WHERE thread_key = ?",
                             (thread_key,))[0]
        return None if page is None else int(page)

    def last_url(self, thread_key: str) -> str | None:
        """The URL the highest stored page was fetched from (newest version): where to resume."""
        rows = self._rows("SELECT url FROM versions WHERE thread_key = ?"
                          " ORDER BY page DESC, fetched_at DESC, id DESC LIMIT 1", (thread_key,))
        return str(rows[0][0]) if rows else None

    def get(self, version_id: int) -> StoredPage:
        found = list(self._select(f"SELECT {_COLUMNS} {_FROM} WHERE v.id = ?", (version_id,)))
        if not found:
            raise InputError(f"snapshot store {self.path}: no page version {version_id}")
        return found[0]

    def pages(self, version_ids: Iterator[int] | tuple[int, ...] | list[int]) -> list[StoredPage]:
        """These versions (a snapshot's pages), oldest fetch first; all of them or an error."""
        wanted = list(dict.fromkeys(version_ids))
        found: list[StoredPage] = []
        for start in range(0, len(wanted), 500):  # SQLite caps the number of ? in one query
            chunk = wanted[start:start + 500]
            marks = ", ".join("?" * len(chunk))
            found += self._select(f"SELECT {_COLUMNS} {_FROM} WHERE v.id IN ({marks})", tuple(chunk))
        missing = set(wanted) - {page.id for page in found}
        if missing:
            raise InputError(f"snapshot store {self.path}: page versions missing: "
                             f"{', '.join(map(str, sorted(missing)))} (the store was altered)")
        return sorted(found, key=lambda page: (page.fetched_at, page.id))

    # -- crawls: what a crawl meant to read, and whether it did -------------------------------------

    def begin_crawl(self, thread_key: str, low: int, started_at: datetime | None = None) -> int:
        """Record a crawl about to fetch the thread down to page `low`; returns its id."""
        return self._write("could not record the crawl",
                           "INSERT INTO crawls (thread_key, started_at, low) VALUES (?, ?, ?)",
                           (thread_key, _stamp(started_at or times.now()), low))

    def extend_crawl(self, crawl_id: int, low: int) -> None:
        """The crawl now means to read down to page `low` as well (before it fetches it)."""
        self._write("could not record the crawl",
                    "UPDATE crawls SET low = MIN(low, ?) WHERE id = ?", (low, crawl_id))

    def finish_crawl(self, crawl_id: int, finished_at: datetime | None = None) -> None:
        """The crawl read all it meant to: it, and every unfinished crawl of the thread whose
        pages it read again (down to their `low`), are finished."""
        self._write("could not record the crawl",
                    "UPDATE crawls SET finished_at = ? WHERE finished_at IS NULL AND ("
                    " id = ? OR (thread_key = (SELECT thread_key FROM crawls WHERE id = ?)"
                    "  AND id < ? AND low >= (SELECT low FROM crawls WHERE id = ?)))",
                    (_stamp(finished_at or times.now()), crawl_id, crawl_id, crawl_id, crawl_id))

    def unfinished_low(self, thread_key: str) -> int | None:
        """The lowest page an unfinished crawl of the thread meant to read (None: none)."""
        (low,) = self._rows("SELECT MIN(low) FROM crawls WHERE thread_key = ? AND finished_at"
                            " IS NULL", (thread_key,))[0]
        return None if low is None else int(low)

    # -- snapshots: what a count read -----------------------------------------------------------

    def record_snapshot(self, *, thread_key: str, url: str, command: str, game_text: str,
                        version_ids: list[int] | tuple[int, ...], result: Mapping[str, Any],
                        taken_at: datetime | None = None) -> int:
        """Keep which versions a count read, with the game file and its result; returns the id."""
        row = (thread_key, url, _stamp(taken_at or times.now()), command,
               hashlib.sha256(game_text.encode("utf-8")).hexdigest(), game_text,
               json.dumps(sorted(version_ids)), json.dumps(result, sort_keys=True, ensure_ascii=False))
        return self._write("could not record the snapshot",
                           "INSERT INTO snapshots (thread_key, url, taken_at, command, game_sha256,"
                           " game_text, version_ids, result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)

    def snapshot(self, snapshot_id: int) -> Snapshot:
        found = self._snapshots("WHERE id = ?", (snapshot_id,))
        if not found:
            raise InputError(f"snapshot store {self.path}: no snapshot {snapshot_id} "
                             "(`tally snapshot GAME.toml --list` shows them)")
        return found[0]

    def snapshots(self, thread_key: str | None = None) -> list[Snapshot]:
        """Every snapshot (of one thread), oldest first."""
        if thread_key is None:
            return self._snapshots("", ())
        return self._snapshots("WHERE thread_key = ?", (thread_key,))

    def _snapshots(self, where: str, args: tuple[object, ...]) -> list[Snapshot]:
        rows = self._rows("SELECT id, thread_key, url, taken_at, command, game_sha256, game_text,"
                          f" version_ids, result FROM snapshots {where} ORDER BY taken_at, id",
                          args)
        return [Snapshot(id=r[0], thread_key=r[1], url=r[2], taken_at=times.parse_iso(r[3]),
                         command=r[4], game_sha256=r[5], game_text=r[6],
                         version_ids=tuple(json.loads(r[7])), result=json.loads(r[8]))
                for r in rows]

    # -- the scheduled run's memory ---------------------------------------------------------------

    def begin_post(self, *, thread_key: str, day: int, sha256: str, summary: Mapping[str, Any],
                   body: str, last_seen: str | None, started_at: datetime | None = None) -> int:
        """Write the intent before the reply call: state 'sending'. Returns the row id."""
        row = (thread_key, day, _stamp(started_at or times.now()), sha256, last_seen,
               json.dumps(summary, sort_keys=True, ensure_ascii=False), body)
        return self._write("could not record the post about to be sent",
                           "INSERT INTO posted (thread_key, day, state, started_at, sha256,"
                           " last_seen, summary, body) VALUES (?, ?, 'sending', ?, ?, ?, ?, ?)",
                           row)

    def finish_post(self, row_id: int, *, state: str, post_id: str | None = None,
                    posted_at: datetime | None = None, note: str = "") -> None:
        """The reply call's outcome: 'posted' (with the forum's post id) or 'failed'."""
        if state not in ("posted", "failed"):
            raise ValueError(f"finish_post: state {state!r}")
        stamp = _stamp(posted_at) if posted_at else None
        self._write("could not record the post's outcome",
                    "UPDATE posted SET state = ?, post_id = ?, posted_at = ?, note = ? WHERE id = ?",
                    (state, post_id, stamp, note, row_id))

    def posted(self, thread_key: str, day: int | None = None) -> list[Posted]:
        """The scheduled run's rows for the thread (and day), oldest first."""
        args: tuple[object, ...]
        where, args = "WHERE thread_key = ?", (thread_key,)
        if day is not None:
            where, args = where + " AND day = ?", (thread_key, day)
        rows = self._rows("SELECT id, thread_key, day, state, started_at, posted_at, sha256,"
                          f" post_id, last_seen, summary, body, note FROM posted {where}"
                          " ORDER BY id", args)
        return [Posted(id=r[0], thread_key=r[1], day=r[2], state=r[3],
                       started_at=times.parse_iso(r[4]),
                       posted_at=times.parse_iso(r[5]) if r[5] else None, sha256=r[6],
                       post_id=r[7], last_seen=r[8], summary=json.loads(r[9]), body=r[10],
                       note=r[11]) for r in rows]

    # -- internals -----------------------------------------------------------------------------

    def _rows(self, sql: str, args: tuple[object, ...]) -> list[Any]:
        """The rows of a query; a store SQLite cannot read is one line (InputError)."""
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._error("cannot be read", exc) from None

    def _write(self, what: str, sql: str, args: tuple[object, ...]) -> int:
        """One statement in its own transaction (committed, or rolled back on any error); the
        new row's id. `what` names the write in the error a damaged store gives."""
        try:
            with self._db:
                cursor = self._db.execute(sql, args)
        except sqlite3.DatabaseError as exc:
            raise self._error(what, exc) from None
        return int(cursor.lastrowid or 0)

    def _select(self, sql: str, args: tuple[object, ...]) -> Iterator[StoredPage]:
        for id_, url, key, page, fetched, status, headers, body, sha in self._rows(sql, args):
            if not isinstance(body, bytes):  # written by hand as text: not what was fetched
                raise InputError(f"snapshot store {self.path}: page version {id_} ({url}) holds "
                                 "text, not the bytes fetched: the store was altered")
            yield StoredPage(
                id=id_,
                url=url,
                thread_key=key,
                page=page,
                fetched_at=times.parse_iso(fetched),
                status=status,
                headers=json.loads(headers),
                body=bytes(body),
                sha256=sha,
            )

    def _wal(self) -> None:
        """Switch a new store to WAL. SQLite answers "database is locked" at once, without
        waiting, while another first run switches it at the same moment (issue 17): wait for
        that run as the connection's timeout would, then find WAL already set."""
        waited = 0.0
        while True:
            try:
                self._db.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or waited >= _BUSY_TIMEOUT:
                    raise
            time.sleep(0.05)
            waited += 0.05

    def _migrate(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version == SCHEMA_VERSION:
            return
        # BEGIN IMMEDIATE takes the write lock before the version is read again: of two first
        # runs on a new store, the second waits for the first to finish the schema, then finds
        # it done (issue 17: not "table snapshots already exists"). All steps are one
        # transaction: a half-migrated schema is never left behind.
        self._db.execute("BEGIN IMMEDIATE")
        try:
            (version,) = self._db.execute("PRAGMA user_version").fetchone()
            if version > SCHEMA_VERSION:
                raise InputError(
                    f"snapshot store {self.path} was written by a newer tally "
                    f"(schema {version}, this one reads {SCHEMA_VERSION}); upgrade tally"
                )
            if version == 0:
                tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables:  # an SQLite file of something else: never write into it
                    raise InputError(
                        f"{self.path}: an SQLite file but not a tally snapshot store")
            for step in range(version + 1, SCHEMA_VERSION + 1):
                for statement in _statements(_MIGRATIONS[step]):
                    self._db.execute(statement)
                self._db.execute(f"PRAGMA user_version = {step}")
            self._db.commit()
        except BaseException:
            self._db.rollback()
            raise

    def _error(self, what: str, exc: sqlite3.DatabaseError) -> InputError:
        return InputError(f"snapshot store {self.path} {what}: {exc} (not a tally store, or damaged)")


def _statements(script: str) -> list[str]:
    """A schema script as single statements (executescript would commit the transaction)."""
    statements, pending = [], ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending.strip())
            pending = ""
    return statements


def _stamp(moment: datetime) -> str:
    """Fixed-width UTC text ('2026-11-20T12:00:00.000000+00:00') so SQL text order is time order."""
    return moment.astimezone(times.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
