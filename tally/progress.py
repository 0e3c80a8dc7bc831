"""Progress of long network work on a terminal (issue 17): pages read, waits for politeness.

A transient status line on stderr drawn by rich, only when both stdout and stderr are a
terminal: under cron, in a pipe or a test there is nothing (the one result line stays alone).
One display per process, shared by every Fetcher (rich allows one live display at a time).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable
from typing import Protocol, TextIO

from rich.console import Console
from rich.status import Status


class Progress(Protocol):
    def page(self, host: str) -> None:
        """A page (or a reply's answer) was read from `host`."""

    def waiting(self, host: str, seconds: float) -> None:
        """A request to `host` waits `seconds` for politeness (or the forum's Retry-After)."""


class Silent:
    def page(self, host: str) -> None:
        pass

    def waiting(self, host: str, seconds: float) -> None:
        pass


class Terminal:
    """The status line: "forum.example.org: 12 pages read; waiting 1.0 s (politeness)"."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.pages = 0
        self._status: Status | None = None
        self._lock = threading.Lock()

    def page(self, host: str) -> None:
        with self._lock:
            self.pages += 1
            self._show(f"{host}: {self.pages} page{'s' if self.pages != 1 else ''} read")

    def waiting(self, host: str, seconds: float) -> None:
        with self._lock:
            self._show(f"{host}: {self.pages} page{'s' if self.pages != 1 else ''} read; "
                       f"waiting {seconds:.1f} s (politeness)")

    def stop(self) -> None:
        with self._lock:
            if self._status is not None:
                self._status.stop()
                self._status = None

    def _show(self, text: str) -> None:
        if self._status is None:
            self._status = self.console.status(text)
            self._status.start()
            atexit.register(self.stop)
        else:
            self._status.update(text)


SILENT = Silent()
_terminal: Terminal | None = None


def for_terminal(stdout: TextIO | None = None, stderr: TextIO | None = None) -> Progress:
    """The shared status line when stdout and stderr are both a terminal, else silence."""
    global _terminal
    out, err = stdout or sys.stdout, stderr or sys.stderr
    if not (_isatty(out) and _isatty(err)) or os.environ.get("TERM") == "dumb":
        return SILENT
    if _terminal is None:
        _terminal = Terminal(Console(file=err))
    return _terminal


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream: not a terminal
        return False


def pages_bar() -> tuple[Callable[[int, int | None], None] | None, Callable[[], None]]:
    """The bar of pages read by a count (tally.counting) on a terminal: its update function and
    its stop; nothing when stderr is piped (cron, CI)."""
    if not sys.stderr.isatty():
        return None, lambda: None
    from rich.progress import Progress as Bar

    bar = Bar(transient=True)
    task = bar.add_task("Reading pages", total=None)
    bar.start()

    def update(done: int, total: int | None) -> None:
        bar.update(task, completed=done, total=total)

    return update, bar.stop
