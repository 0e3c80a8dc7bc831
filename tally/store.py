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
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Self

from tally import times
from tally.errors import InputError
from tally.fetch import Response

SCHEMA_VERSION = 1

_SCHEMA = """
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


class Store:
    """A SQLite file of page versions. One instance per thread of control (sqlite3 rule)."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(self.path, timeout=30.0)
            self._db.execute("PRAGMA journal_mode=WAL")
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

    def last_page(self, thread_key: str) -> int | None:
        """The highest page number stored for the thread, None when nothing is stored."""
        try:
            row = self._db.execute(
                "SELECT MAX(page) FROM versions WHERE thread_key = ?", (thread_key,)
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._error("cannot be read", exc) from None
        return None if row is None or row[0] is None else int(row[0])

    def last_url(self, thread_key: str) -> str | None:
        """The URL the highest stored page was fetched from (newest version): where to resume."""
        try:
            row = self._db.execute(
                "SELECT url FROM versions WHERE thread_key = ?"
                " ORDER BY page DESC, fetched_at DESC, id DESC LIMIT 1",
                (thread_key,),
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._error("cannot be read", exc) from None
        return None if row is None else str(row[0])

    def get(self, version_id: int) -> StoredPage:
        found = list(self._select(f"SELECT {_COLUMNS} {_FROM} WHERE v.id = ?", (version_id,)))
        if not found:
            raise InputError(f"snapshot store {self.path}: no page version {version_id}")
        return found[0]

    # -- internals -----------------------------------------------------------------------------

    def _select(self, sql: str, args: tuple[object, ...]) -> Iterator[StoredPage]:
        try:
            rows = self._db.execute(sql, args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._error("cannot be read", exc) from None
        for id_, url, key, page, fetched, status, headers, body, sha in rows:
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

    def _migrate(self) -> None:
        (version,) = self._db.execute("PRAGMA user_version").fetchone()
        if version > SCHEMA_VERSION:
            raise InputError(
                f"snapshot store {self.path} was written by a newer tally "
                f"(schema {version}, this one reads {SCHEMA_VERSION}); upgrade tally"
            )
        if version == SCHEMA_VERSION:
            return
        tables = self._db.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if tables:  # an SQLite file of something else: never write into it
            raise InputError(f"{self.path}: an SQLite file but not a tally snapshot store")
        # One script, one transaction: a half-created schema is never left behind.
        self._db.executescript(f"BEGIN; {_SCHEMA} PRAGMA user_version = {SCHEMA_VERSION}; COMMIT;")

    def _error(self, what: str, exc: sqlite3.DatabaseError) -> InputError:
        return InputError(f"snapshot store {self.path} {what}: {exc} (not a tally store, or damaged)")


def _stamp(moment: datetime) -> str:
    """Fixed-width UTC text ('2026-11-20T12:00:00.000000+00:00') so SQL text order is time order."""
    return moment.astimezone(times.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f+00:00")
