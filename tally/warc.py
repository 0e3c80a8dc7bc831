"""WARC export and import (issue 6): being written."""

from __future__ import annotations

from pathlib import Path

from tally.adapters.base import Engine
from tally.model import Thread


def read_thread(path: Path, url: str | None, *, engine: Engine | None, zone: str,
                language: str | None = None, per_page: int | None = None,
                floor_names: tuple[str, ...] = ()) -> Thread:
    """The thread from the WARC file's response records (mirrors crawl.read_saved_pages)."""
    raise NotImplementedError("tally.warc.read_thread is being written")
