"""Progress of long work on a terminal (issue 17): pages read, waits for politeness, posts judged.

One transient display on stderr drawn by rich, only when both stdout and stderr are a terminal:
under cron, in a pipe or a test there is nothing (the one result line stays alone), and the work
is not slowed: the callers get None instead of a callback and call nothing. One display per
process, shared by every Fetcher, the crawl's bar of pages and the count's bar of posts judged:
rich allows one live display at a time, and two drawing on one terminal garble each other.
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Protocol, TextIO, TypeVar

from rich.console import Console
from rich.progress import BarColumn, ProgressColumn, SpinnerColumn, Task, TaskID, TextColumn
from rich.progress import Progress as Bars
from rich.text import Text

T = TypeVar("T")

# A counted piece of work: (what, done, total). The count's stages call it as posts are judged
# (tally.engine, tally.timeline); None where nobody watches.
Judging = Callable[[str, int, int], None]


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


class _Done(ProgressColumn):
    """'12/40' for counted work; nothing for the fetcher's status line (no total)."""

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return Text(f"{int(task.completed)}/{int(task.total)}", style="progress.download")


class Display:
    """The display: the fetcher's line ("forum.example.org: 12 pages read; waiting 1.0 s
    (politeness)") and one bar per piece of counted work ("Judging posts 1200/5000")."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.pages = 0
        self._bars = Bars(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
                          _Done(), console=console, transient=True)
        self._started = False
        self._status: TaskID | None = None  # the fetcher's line
        self._counted = 0  # bars of counted work shown
        self._lock = threading.Lock()
        atexit.register(self.stop)  # the display leaves the terminal as it found it

    # -- the fetcher's line (tally.fetch) -------------------------------------------------------

    def page(self, host: str) -> None:
        with self._lock:
            self.pages += 1
            self._say(f"{host}: {self.pages} page{'s' if self.pages != 1 else ''} read")

    def waiting(self, host: str, seconds: float) -> None:
        with self._lock:
            self._say(f"{host}: {self.pages} page{'s' if self.pages != 1 else ''} read; "
                      f"waiting {seconds:.1f} s (politeness)")

    def _say(self, text: str) -> None:
        if self._status is None:
            self._start()
            self._status = self._bars.add_task(text, total=None)
        else:
            self._bars.update(self._status, description=text)

    # -- counted work ---------------------------------------------------------------------------

    def bar(self, label: str) -> tuple[Callable[[int, int | None], None], Callable[[], None]]:
        """A bar for one piece of work: its update(done, total) and its end (the bar goes)."""
        with self._lock:
            self._start()
            task = self._bars.add_task(label, total=None)
            self._counted += 1

        def update(done: int, total: int | None) -> None:
            self._bars.update(task, completed=done, total=total)

        def end() -> None:
            with self._lock:
                self._bars.remove_task(task)
                self._counted -= 1
                if self._counted == 0:
                    # The work is over: the command's result follows on a clean terminal
                    # (the fetcher's line comes back with its next page).
                    self._stop()

        return update, end

    def stop(self) -> None:
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        if self._status is not None:
            self._bars.remove_task(self._status)
            self._status = None
        if self._started:
            self._bars.stop()
            self._started = False

    def _start(self) -> None:
        if not self._started:
            self._bars.start()
            self._started = True


SILENT = Silent()
_display: Display | None = None


def on_terminal(stdout: TextIO | None = None, stderr: TextIO | None = None) -> bool:
    """Someone watches: stdout and stderr both a terminal (not `| tee`, not cron), TERM not dumb."""
    out, err = stdout or sys.stdout, stderr or sys.stderr
    return _isatty(out) and _isatty(err) and os.environ.get("TERM") != "dumb"


def display(stdout: TextIO | None = None, stderr: TextIO | None = None) -> Display | None:
    """The process's display when on a terminal (made on first use), else None."""
    global _display
    if not on_terminal(stdout, stderr):
        return None
    if _display is None:
        _display = Display(Console(file=stderr or sys.stderr))
    return _display


def for_terminal(stdout: TextIO | None = None, stderr: TextIO | None = None) -> Progress:
    """The fetcher's line on the shared display when on a terminal, else silence."""
    shown = display(stdout, stderr)
    return SILENT if shown is None else shown


def _isatty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a closed or odd stream: not a terminal
        return False


def pages_bar() -> tuple[Callable[[int, int | None], None] | None, Callable[[], None]]:
    """The bar of pages read by a count (tally.crawl's progress) on a terminal: its update
    function and its end; (None, a no-op) when nobody watches."""
    shown = display()
    if shown is None:
        return None, lambda: None
    return shown.bar("Reading pages")


def judging_bar() -> tuple[Judging | None, Callable[[], None]]:
    """The bars of posts judged (tally.engine.count, tally.timeline) on a terminal, one per
    stage the count names; (None, a no-op) when nobody watches: the count then calls nothing."""
    shown = display()
    if shown is None:
        return None, lambda: None
    bars: dict[str, tuple[Callable[[int, int | None], None], Callable[[], None]]] = {}

    def judged(stage: str, done: int, total: int) -> None:
        if stage not in bars:
            bars[stage] = shown.bar(stage)
        bars[stage][0](done, total)

    def end() -> None:
        for _, finish in bars.values():
            finish()

    return judged, end


def each(items: Sequence[T], stage: str, judging: Judging | None) -> Iterable[T]:
    """`items` as they are when nobody watches; else each one, then 'done' reported."""
    return items if judging is None else _reported(items, stage, judging)


def _reported(items: Sequence[T], stage: str, judging: Judging) -> Iterator[T]:
    total = len(items)
    for done, item in enumerate(items, 1):
        yield item  # the caller's work on it runs before the next line
        judging(stage, done, total)
