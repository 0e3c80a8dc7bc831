"""Progress on a terminal (issue 17): posts judged by a count and by `tally report`'s votes over
time, shown on a terminal and nothing at all (no display made, no callback called) on a pipe."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.console import Console
from typer.testing import CliRunner

from tally import counting, engine, progress, timeline
from tally.cli import app

KIRA = Path(__file__).resolve().parent.parent / "fixtures" / "phpbb" / "kira-en"
FETCHED = "2016-01-18 03:10"


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


class Judged:
    """A `judging` callback that remembers every (stage, done, total) it was told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int]] = []

    def __call__(self, stage: str, done: int, total: int) -> None:
        self.calls.append((stage, done, total))

    def of(self, stage: str) -> list[tuple[int, int]]:
        return [(done, total) for named, done, total in self.calls if named == stage]


@pytest.fixture
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts with no display made (it is one per process)."""
    monkeypatch.setattr(progress, "_display", None)
    monkeypatch.setenv("TERM", "xterm-256color")  # CI may run with TERM=dumb


def kira() -> tuple:
    game = counting.load_game(KIRA / "game.toml")
    thread = counting.read_saved(game, None, KIRA, FETCHED)
    return game, thread


def test_a_count_reports_every_post_of_its_window_judged() -> None:
    game, thread = kira()
    window = len(engine.cut(thread, game, 1).posts)
    judged = Judged()
    watched = engine.count(thread, game, 1, judging=judged)
    assert window > 10
    assert judged.of(engine.JUDGING_POSTS) == [(n, window) for n in range(1, window + 1)]
    assert watched == engine.count(thread, game, 1)  # watching changes nothing in the count


def test_the_reports_votes_over_time_report_posts_and_moments_judged() -> None:
    game, thread = kira()
    window = len(engine.cut(thread, game, 1).posts)
    judged = Judged()
    steps = timeline.votes_over_time(thread, game, 1, judging=judged)
    assert judged.of(engine.JUDGING_POSTS) == [(n, window) for n in range(1, window + 1)]
    moments = judged.of(timeline.VOTES_OVER_TIME)
    assert len(moments) > 3 and moments == [(n, len(moments)) for n in range(1, len(moments) + 1)]
    assert steps == timeline.votes_over_time(thread, game, 1)


def test_nobody_watching_costs_nothing(no_display: None, monkeypatch) -> None:
    """A pipe (`tally count … | tee`) or cron: no display is made, the count gets no callback
    and its loop runs over the posts themselves."""
    import sys

    monkeypatch.setattr(sys, "stdout", Stream(False))
    monkeypatch.setattr(sys, "stderr", Stream(True))
    assert progress.judging_bar()[0] is None and progress.pages_bar()[0] is None
    posts = [object(), object()]
    assert progress.each(posts, engine.JUDGING_POSTS, None) is posts
    counting.read_and_count(KIRA / "game.toml", None, KIRA, FETCHED, False, None, None)
    assert progress._display is None
    assert sys.stderr.getvalue() == "" and sys.stdout.getvalue() == ""


def test_count_on_a_pipe_prints_only_its_result(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["count", str(KIRA / "game.toml"), "--from", str(KIRA),
                                      "--fetched-at", FETCHED])
    assert result.exit_code == 0 and result.stderr == ""
    assert progress._display is None


def spy_bars(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[tuple[int, int | None]]]:
    """What every bar of the display was told, by label, and that each bar was ended."""
    shown: dict[str, list[tuple[int, int | None]]] = {}
    real = progress.Display.bar

    def bar(self: progress.Display, label: str) -> tuple[Callable, Callable]:
        update, end = real(self, label)
        seen = shown.setdefault(label, [])

        def told(done: int, total: int | None) -> None:
            seen.append((done, total))
            update(done, total)

        def ended() -> None:
            seen.append((-1, None))
            end()

        return told, ended

    monkeypatch.setattr(progress.Display, "bar", bar)
    return shown


def test_a_count_on_a_terminal_shows_the_posts_judged(no_display: None, monkeypatch) -> None:
    import sys

    monkeypatch.setattr(sys, "stdout", Stream(True))
    monkeypatch.setattr(sys, "stderr", Stream(True))
    shown = spy_bars(monkeypatch)
    counted = counting.read_and_count(KIRA / "game.toml", None, KIRA, FETCHED, False, None,
                                      None)
    window = len(engine.cut(counted.thread, counted.game, counted.day).posts)
    assert shown[engine.JUDGING_POSTS][-2:] == [(window, window), (-1, None)]  # full, then gone
    # --from: the saved pages read are shown too (a 5,000-post --from count was 24 s of silence)
    assert shown["Reading pages"] == [(1, 4), (2, 4), (3, 4), (4, 4), (-1, None)]
    assert progress._display is not None and not progress._display._started


def test_report_on_a_terminal_shows_posts_and_votes_over_time(no_display: None,
                                                              monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(progress, "on_terminal", lambda *streams: True)
    shown = spy_bars(monkeypatch)
    result = CliRunner().invoke(app, ["report", str(KIRA / "game.toml"), "--from", str(KIRA),
                                      "--fetched-at", FETCHED, "--html",
                                      str(tmp_path / "r.html")])
    assert result.exit_code == 0, result.output
    assert result.stdout == f"wrote {tmp_path / 'r.html'} (public report)\n"  # after the bars
    judged = shown[engine.JUDGING_POSTS]  # the count's, then the timeline's
    assert [step for step in judged if step[0] == -1] == [(-1, None)] * 2
    over_time = shown[timeline.VOTES_OVER_TIME]
    assert over_time[-1] == (-1, None) and over_time[-2][0] == over_time[-2][1]


def test_the_display_draws_each_bar_with_its_count() -> None:
    screen = Stream(True)
    shown = progress.Display(Console(file=screen, force_terminal=True, width=100))
    shown.page("forum.example.org")
    update, end = shown.bar(engine.JUDGING_POSTS)
    update(1200, 5000)
    shown._bars.refresh()
    drawn = screen.getvalue()
    assert "Judging posts" in drawn and "1200/5000" in drawn
    assert "forum.example.org: 1 page read" in drawn
    end()  # the last bar gone: the display stops, the fetcher's line with it
    assert not shown._started and shown._bars.tasks == []
