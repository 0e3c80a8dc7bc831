"""Issue 16: a count is final only over the whole thread. A crawl that failed or was killed
before reading again the page that was the last one leaves that page as it was on the previous
run: the posts written on it since are not in the store, while the new pages above it are.
`tally count --offline` then counted the new pages' votes and not the stale page's, as of the
newest fetch, "(final)", exit 0: a wrong count. It now counts as of the time the thread was last
read whole (the stale page's fetch), says so, and is final only if that is after the deadline.

A local phpBB 3.3 board (tests/fakephpbb.py) on 127.0.0.1, read by the real `tally count`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fakephpbb import FakePhpBB, now_at, write_game
from typer.testing import CliRunner

from tally.cli import app
from tally.fetch import Fetcher


def paris(text: str) -> datetime:
    """Forum time (UTC+1 in January) as UTC."""
    return datetime.fromisoformat(text.replace(" ", "T") + ":00+01:00").astimezone(UTC)


def count(game: Path, *more: str):  # noqa: ANN201 - typer's result type
    return CliRunner().invoke(app, ["count", str(game), *more])


def test_offline_after_a_crawl_that_failed_below_the_tail_counts_what_was_read_whole(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(Fetcher.__init__.__kwdefaults__, "delay", 0.0)
    monkeypatch.setitem(Fetcher.__init__.__kwdefaults__, "retries", 1)
    with FakePhpBB() as board:
        game = write_game(tmp_path, board.url)
        # Day 1: 25 posts by Thursday noon (pages 1 and 2 full, page 3 holds 5), one vote.
        board.add_post("Alice", "vote: Eve", paris("2026-01-15 09:30"))
        for minute in range(24):
            board.add_post("Bob", f"Thinking ({minute}).", paris(f"2026-01-15 10:{minute:02d}"))
        now_at(monkeypatch, "2026-01-15 12:00", "+01:00")
        first = count(game, "--format", "json")
        assert first.exit_code == 0, first.output
        # Friday: three votes for Dan on page 3 (posts 26-28), chat up to post 35 on page 4,
        # all before Saturday's 22:00 deadline.
        for who, minute in (("Bob", 0), ("Carol", 10), ("Eve", 20)):
            board.add_post(who, "vote: Dan", paris(f"2026-01-16 09:{minute:02d}"))
        for minute in range(7):
            board.add_post("Carol", f"Evening ({minute}).", paris(f"2026-01-16 20:{minute:02d}"))
        # Sunday's run reads the new page 4, then the forum fails on page 3: the crawl stops.
        now_at(monkeypatch, "2026-01-18 10:00", "+01:00")
        board.fail_next("GET /viewtopic.php?f=2&t=7&start=20", "503")
        failed = count(game)
        assert failed.exit_code == 4, failed.output
        assert "GET /viewtopic.php?f=2&t=7&start=30" in board.log  # page 4 was read

        # Offline: page 3 is as it was on Thursday at 12:00; before, Dan's three votes were not
        # counted and the count said "(final)" as of Sunday, exit 0.
        offline = count(game, "--offline", "--format", "json")
        assert offline.exit_code == 0, offline.output
        data = json.loads(offline.stdout)
        assert data["as_of"] == "2026-01-15T11:00:00Z"  # Thursday 12:00 in Paris
        assert data["as_of"] < data["deadline"]  # not the final count
        assert {row["player"]: row["votes"] for row in data["counts"]} == {"Eve": 1}
        text = count(game, "--offline", "--format", "text")
        assert ("the last crawl of this thread did not finish: the thread was last read whole "
                "at 2026-01-15 11:00:00 UTC; counted as of then") in text.stdout
        assert "(final)" not in text.stdout

        # Nor does a WARC of the store pass the stale page off as current (a WARC keeps no
        # record of crawls): export refuses, except the pages of a count (Thursday's snapshot).
        warc = tmp_path / "game.warc.gz"
        refused = CliRunner().invoke(app, ["export", str(game), "--warc", str(warc)])
        assert refused.exit_code == 3, refused.output
        assert refused.stderr == (
            f"tally: error: the last crawl of {board.url} did not finish: some stored pages may be "
            f"out of date; run `tally count {game}` online to finish it, or export a count's "
            "pages with --snapshot ID\n")
        assert not warc.exists()
        thursday = CliRunner().invoke(app, ["export", str(game), "--warc", str(warc),
                                            "--snapshot", "1"])
        assert thursday.exit_code == 0, thursday.output

        # Online, the next run reads page 3 again: Dan's three votes, final.
        online = count(game, "--format", "json")
        assert online.exit_code == 0, online.output
        data = json.loads(online.stdout)
        assert {row["player"]: row["votes"] for row in data["counts"]} == {"Dan": 3, "Eve": 1}
        assert data["as_of"] == "2026-01-18T09:00:00Z" > data["deadline"]
        # The crawl finished, the store exports, and the archive gives the same count.
        exported = CliRunner().invoke(app, ["export", str(game), "--warc", str(warc)])
        assert exported.exit_code == 0, exported.output
        again = count(game, "--from-warc", str(warc), "--format", "json")
        assert again.exit_code == 0, again.output
        assert json.loads(again.stdout)["counts"] == data["counts"]


def test_the_trigger_report_after_a_crawl_that_failed_below_the_tail(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The trigger report reads the whole thread: with page 3 stale (floors 26-30 unread) and
    page 4 read (floors 31-35), a condition met first by Carol's floor 27 was given to Alice's
    floor 31, the first match the report saw: the wrong substitute killer, in a report that
    said nothing was missing. It is judged as the thread stood when last read whole (nobody
    yet), then, once the next online run has read page 3, at floor 27."""
    monkeypatch.setitem(Fetcher.__init__.__kwdefaults__, "delay", 0.0)
    monkeypatch.setitem(Fetcher.__init__.__kwdefaults__, "retries", 1)
    with FakePhpBB() as board:
        game = write_game(tmp_path, board.url, preset="trigger-cn", extra="""
[[events]]
at = "2026-01-15 08:00"
kind = "trigger"
condition = "regex"
pattern = "喝茶"
name = "tea"
secret = true
""")
        game.write_text(game.read_text().replace('name = "Eve"\n', 'name = "Eve"\nrole = "杀手"\n'))
        for minute in range(25):
            board.add_post("Bob", f"聊天 {minute}", paris(f"2026-01-15 10:{minute:02d}"))
        now_at(monkeypatch, "2026-01-15 12:00", "+01:00")
        assert count(game).exit_code == 0
        for minute in range(5):  # floors 26-30, page 3: Carol's floor 27 meets it
            board.add_post("Carol" if minute == 1 else "Dan",
                           "我去喝茶" if minute == 1 else f"早 {minute}",
                           paris(f"2026-01-16 09:{minute:02d}"))
        for minute in range(5):  # floors 31-35, page 4: Alice's floor 31 too
            board.add_post("Alice", "我也喝茶" if minute == 0 else f"晚 {minute}",
                           paris(f"2026-01-16 20:{minute:02d}"))
        now_at(monkeypatch, "2026-01-18 10:00", "+01:00")
        board.fail_next("GET /viewtopic.php?f=2&t=7&start=20", "503")
        assert count(game).exit_code == 4
        stale = CliRunner().invoke(app, ["triggers", str(game), "--offline"])
        assert stale.exit_code == 0, stale.output
        assert "已触发：无" in stale.stdout and "Alice" not in stale.stdout  # met: none
        assert "未触发（1）：\n  - “tea”" in stale.stdout  # open: tea
        assert count(game).exit_code == 0  # the next online run reads page 3 again
        whole = CliRunner().invoke(app, ["triggers", str(game), "--offline"])
        assert whole.exit_code == 0, whole.output
        assert "Carol" in whole.stdout and "27" in whole.stdout and "Alice" not in whole.stdout
