"""One scheduled run per game at a time (issue 5 "never twice").

An flock on a file beside the snapshot store, taken without waiting: a second cron run that
finds it held stops at once (exit 9) instead of queueing behind the first. The lock belongs to
the open file, so it dies with the process: a lock file left behind by a crash is harmless,
and it is never deleted (deleting it would let two runs lock two different files).
"""

from __future__ import annotations

import fcntl
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tally.errors import Busy, InputError


def lock_path_of(store_path: Path) -> Path:
    """`.tally/<game>.lock` beside `.tally/<game>.sqlite`."""
    return store_path.with_suffix(".lock")


@contextmanager
def hold(path: Path, game: str) -> Iterator[None]:
    """Hold the lock at `path` for the block; Busy when another process holds it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as exc:
        raise InputError(f"lock file {path}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise Busy(f"another tally post run holds the lock for {game} ({path})") from None
        try:
            os.ftruncate(handle, 0)
            os.write(handle, f"{os.getpid()}\n".encode())  # who holds it, for a curious human
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)
    finally:
        os.close(handle)
