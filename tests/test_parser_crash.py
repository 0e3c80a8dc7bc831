"""A parser that fails on markup it did not foresee is the forum page's error (exit 4, one line
naming the engine, the page and the post), never a traceback and exit 1 (issue 15)."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tally import adapters
from tally.adapters.base import PageContext, reading_post
from tally.cli import app
from tally.errors import EXIT_FORUM, ParserCrash

KIRA = Path(__file__).resolve().parent.parent / "fixtures" / "phpbb" / "kira-en"
CTX = PageContext("https://forum.example.org/viewtopic.php?t=412", datetime(2016, 1, 18, tzinfo=UTC),
                  "UTC")


def test_a_crash_in_the_parser_names_the_engine_page_and_post(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = adapters.get("phpbb")

    def broken(data: bytes, ctx: PageContext):
        try:
            {}["author"]
        except Exception as exc:
            reading_post(exc, "5013")
            raise

    monkeypatch.setattr(engine, "parse_page", broken)
    with pytest.raises(ParserCrash) as caught:
        engine.read_page(b"<html></html>", CTX)
    assert str(caught.value) == (
        "phpBB: https://forum.example.org/viewtopic.php?t=412: post 5013: the parser failed on this "
        "page (KeyError: 'author'); please report it with the saved page")
    assert caught.value.exit_code == EXIT_FORUM


def test_count_says_it_in_one_line_with_exit_4(monkeypatch: pytest.MonkeyPatch) -> None:
    engine = adapters.get("phpbb")
    monkeypatch.setattr(type(engine), "parse_page", lambda self, data, ctx: 1 / 0)
    result = CliRunner().invoke(app, ["count", str(KIRA / "game.toml"), "--from", str(KIRA),
                                      "--fetched-at", "2016-01-18 03:10"])
    assert result.exit_code == 4
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert re.match(rf"tally: error: {re.escape(str(KIRA))}/page-\d\.html: phpBB: https://", lines[0])
    assert lines[0].endswith("the parser failed on this page (ZeroDivisionError: division by zero); "
                             "please report it with the saved page")
