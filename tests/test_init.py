"""`tally init`: a first game file that loads and counts as written (tally/init.py, tally/cli.py)."""

from __future__ import annotations

import functools
import json
import tomllib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from typer.testing import CliRunner
from werkzeug import Request, Response

from tally import fetch, game
from tally.cli import app
from tally.errors import InputError
from tally.init import InitOptions, game_time, propose, render, toml_string
from tally.model import Body, Post, Thread

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
KIRA = FIXTURES / "phpbb" / "kira-en"
KIRA_URL = "https://forum.example.org/viewtopic.php?f=3&t=412"

# (folder, thread URL, the opening poster, a player, zone the engine defaults to)
SAVED_THREADS = [
    ("phpbb/kira-en", KIRA_URL, "Ryuk", "Alice", "UTC"),
    ("forumotion/espia-phpbb3-es", "https://laratonera.foroactivo.com/t245-votaciones-dia-1",
     "Zven", "Irene Adler", "Europe/Madrid"),
    ("jv/kira-2026", "https://www.jeuxvideo.com/forums/42-51-74125893-1-0-1-0-kira.htm",
     "Ryuk_Shinigami", "Near_", "Europe/Paris"),
    ("discuz/trigger-utf8", "https://bbs.tuilisha.cn/forum.php?mod=viewthread&tid=88231",
     "法官大人", "桃花", "Asia/Shanghai"),
    ("invision/mafia-ipb3-ru", "https://mafia.example.ru/topic/4821-golosovanie-den-2/",
     "Despina", "Кот Бегемот", "Europe/Moscow"),
]


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def post(pid: str, author: str, author_id: str | None, at: datetime) -> Post:
    return Post(id=pid, position=int(pid), permalink="", author=author, author_id=author_id,
                created_at=at, time_text="", zone="UTC", body=Body(own="hello"))


START = datetime(2020, 3, 1, 18, 30, tzinfo=UTC)


def thread_of(*authors: tuple[str, str | None]) -> Thread:
    posts = tuple(post(str(i + 1), name, uid, START + timedelta(minutes=i))
                  for i, (name, uid) in enumerate(authors))
    return Thread(url="https://forum.example.org/viewtopic.php?t=9", engine="phpbb", posts=posts)


OPTIONS = InitOptions(url="https://forum.example.org/viewtopic.php?t=9", engine="phpbb",
                      zone="Europe/Madrid", preset="majority", title='Game "9"')


# ---------------------------------------------------------------------------------------------
# The pure part


@pytest.mark.parametrize("text", ['Dr. "Who"', "back\\slash", "Ünïcødé 名字 Имя", "tab\there",
                                  "new\nline", "bell\x07", "del\x7f", "'single'", ""])
def test_toml_string_round_trips(text: str):
    assert tomllib.loads(f"key = {toml_string(text)}")["key"] == text


def test_the_opening_poster_is_staff_and_everyone_else_a_player_once():
    thread = thread_of(("GM", "1"), ("Ann", "2"), ("Bob", None), ("Ann", "2"), ("ann", "7"),
                       ("Renamed Ann", "2"), ("GM", "1"))
    proposal = propose(thread)
    assert proposal.gm.author == "GM"
    assert [p.author for p in proposal.players] == ["Ann", "Bob"]


def test_render_loads_with_awkward_names(tmp_path: Path):
    thread = thread_of(('The "GM"', "1"), ('Dr. "Who"', "2"), ("C:\\Users\\x", "3"),
                       ("Имя Фамилия", "4"), ("名字", None))
    path = tmp_path / "g.toml"
    path.write_text(render(thread, OPTIONS), encoding="utf-8")
    loaded = game.load(path)
    assert [p.name for p in loaded.players] == ['Dr. "Who"', "C:\\Users\\x", "Имя Фамилия", "名字"]
    assert [p.account_id for p in loaded.players] == ["2", "3", "4", None]
    assert loaded.staff == ('The "GM"',)
    assert loaded.title == 'Game "9"' and loaded.preset == "majority"
    assert loaded.timezone == "Europe/Madrid"
    assert loaded.thread_url == OPTIONS.url and loaded.board.engine == "phpbb"
    (day,) = loaded.days
    assert day.number == 1 and day.start == START and day.deadline == START + timedelta(hours=24)


def test_render_marks_what_must_be_checked():
    text = render(thread_of(("GM", "1"), ("Ann", "2")), OPTIONS)
    assert "# CHECK: the zone the forum shows times in" in text
    deadline_line = next(line for line in text.splitlines() if line.startswith("deadline"))
    assert "# CHECK" in deadline_line
    assert '"2020-03-01 19:30:00"' in text  # the opening post's time, Madrid wall time


def test_a_thread_with_only_the_opening_post_still_gives_a_valid_file(tmp_path: Path):
    path = tmp_path / "g.toml"
    path.write_text(render(thread_of(("GM", "1")), OPTIONS), encoding="utf-8")
    assert [p.name for p in game.load(path).players] == ["Player 1"]


def test_unknown_preset_or_zone_is_an_input_error():
    with pytest.raises(InputError, match="unknown preset 'lupos'"):
        render(thread_of(("GM", "1"), ("Ann", "2")),
               InitOptions(url="u", engine="phpbb", zone="UTC", preset="lupos"))
    with pytest.raises(InputError):
        render(thread_of(("GM", "1"), ("Ann", "2")),
               InitOptions(url="u", engine="phpbb", zone="Mars/Olympus"))


def test_an_ambiguous_wall_time_is_written_with_its_offset():
    # 2021-10-31 02:30 happens twice in Madrid; the second one is 01:30 UTC.
    second = datetime(2021, 10, 31, 1, 30, tzinfo=UTC)
    written = game_time(second, "Europe/Madrid")
    assert written == "2021-10-31T02:30:00+01:00"
    assert game_time(datetime(2021, 10, 30, 12, 0, tzinfo=UTC), "Europe/Madrid") == (
        "2021-10-30 14:00:00")


# ---------------------------------------------------------------------------------------------
# The command, from saved pages


@pytest.mark.parametrize("folder,url,gm,player,zone", SAVED_THREADS,
                         ids=[row[0].split("/")[0] for row in SAVED_THREADS])
def test_init_from_saved_pages_then_count_without_edits(tmp_path: Path, folder: str, url: str,
                                                        gm: str, player: str, zone: str):
    source = FIXTURES / folder
    out = tmp_path / "game.toml"
    # When the pages were saved (the case says): relative dates ("Hoy a las 21:58") resolve
    # against it, and a page cannot hold a post written after it (the files' own times are
    # the checkout's).
    import tomllib

    saved_at = ["--fetched-at",
                str(tomllib.loads((source / "case.toml").read_text("utf-8"))["fetched_at"])]
    result = run("init", url, "--from", str(source), "--out", str(out), *saved_at)
    assert result.exit_code == 0, result.output
    loaded = game.load(out)
    assert loaded.staff == (gm,)
    assert player in [p.name for p in loaded.players] and gm not in [p.name for p in loaded.players]
    assert all(p.account_id for p in loaded.players) or folder.startswith("jv")
    assert loaded.timezone == zone
    counted = run("count", str(out), "--from", str(source), "--format", "json", *saved_at)
    assert counted.exit_code == 0, counted.output


def test_init_kira_preset_counts_the_phpbb_thread(tmp_path: Path):
    out = tmp_path / "kira.toml"
    result = run("init", KIRA_URL, "--from", str(KIRA), "--out", str(out), "--preset", "kira",
                 "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 0, result.output
    loaded = game.load(out)
    assert loaded.preset == "kira"
    # Ryuk opened the thread at 03:00:00 UTC (README.md): day 1 starts there.
    assert loaded.days[0].start == datetime(2016, 1, 17, 3, 0, tzinfo=UTC)
    assert {p.name: p.account_id for p in loaded.players}["Alice"] == "3"
    counted = run("count", str(out), "--from", str(KIRA), "--fetched-at", "2016-01-18 03:10")
    assert counted.exit_code == 0, counted.output


def test_engine_comes_from_the_saved_pages_when_the_url_says_nothing(tmp_path: Path):
    out = tmp_path / "g.toml"
    result = run("init", "https://games.example.net/thread/412", "--from", str(KIRA),
                 "--out", str(out))
    assert result.exit_code == 0, result.output
    assert game.load(out).board.engine == "phpbb"


def test_engine_prefix_and_timezone_are_used(tmp_path: Path):
    out = tmp_path / "g.toml"
    result = run("init", "phpbb:https://games.example.net/thread/412", "--from", str(KIRA),
                 "--out", str(out), "--timezone", "Europe/London")
    assert result.exit_code == 0, result.output
    loaded = game.load(out)
    assert loaded.board.engine == "phpbb" and loaded.timezone == "Europe/London"
    assert loaded.thread_url == "https://games.example.net/thread/412"
    assert "# the zone you gave (--timezone)" in out.read_text(encoding="utf-8")


def test_an_existing_file_is_never_overwritten_without_force(tmp_path: Path):
    out = tmp_path / "game.toml"
    out.write_text("# mine\n", encoding="utf-8")
    result = run("init", KIRA_URL, "--from", str(KIRA), "--out", str(out))
    assert result.exit_code == 3
    assert result.output.strip().count("\n") == 0 and "already exists" in result.output
    assert "--force" in result.output
    assert out.read_text(encoding="utf-8") == "# mine\n"
    forced = run("init", KIRA_URL, "--from", str(KIRA), "--out", str(out), "--force")
    assert forced.exit_code == 0, forced.output
    assert game.load(out).board.engine == "phpbb"


@pytest.mark.parametrize("args,words", [
    (["https://games.example.net/thread/412"], "not a thread URL of a known forum engine"),
    ([KIRA_URL, "--from", str(KIRA), "--timezone", "Mars/Olympus"], "Mars/Olympus"),
    ([KIRA_URL, "--from", str(KIRA), "--preset", "lupos"], "unknown preset"),
])
def test_bad_input_is_one_line_and_exit_3(tmp_path: Path, args: list[str], words: str):
    out = tmp_path / "g.toml"
    result = run("init", *args, "--out", str(out))
    assert result.exit_code == 3, result.output
    assert words in result.output and result.output.strip().count("\n") == 0
    assert not out.exists()


# ---------------------------------------------------------------------------------------------
# The command, online (a local server standing in for the forum)


def test_init_online_reads_the_thread_into_the_store_beside_the_file(
        tmp_path: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch):
    pages = {str(15 * (n - 1)): (KIRA / f"page-{n}.html").read_bytes() for n in range(1, 5)}

    def serve(request: Request) -> Response:
        body = pages[request.args.get("start", "0")]
        return Response(body, content_type="text/html; charset=UTF-8")

    httpserver.expect_request("/viewtopic.php").respond_with_handler(serve)
    monkeypatch.setattr(fetch, "Fetcher", functools.partial(fetch.Fetcher, delay=0.0))
    url = httpserver.url_for("/viewtopic.php") + "?f=3&t=412"
    out = tmp_path / "kira.toml"
    result = run("init", url, "--out", str(out))
    assert result.exit_code == 0, result.output
    assert (tmp_path / ".tally" / "kira.sqlite").exists()
    loaded = game.load(out)
    assert loaded.board.engine == "phpbb" and loaded.thread_url == url
    assert len(loaded.players) == 11  # Alice … Judy and Watari (a spectator: CHECK says so)
    offline = run("count", str(out), "--offline")
    assert offline.exit_code == 0, offline.output


# ---------------------------------------------------------------------------------------------
# Issue 16 and 17: the zone the pages state, the topic's title, every preset, suspicious names

STOCK = FIXTURES / "phpbb" / "stock-prosilver-33"  # phpBB 3.3.11: "All times are UTC-03:00"
STOCK_URL = "https://mafia.example.org/forum/viewtopic.php?t=5120"
STOCK_AT = ["--fetched-at", "2026-11-20T15:00:00Z"]


def timezone_line(path: Path) -> str:
    return next(line for line in path.read_text("utf-8").splitlines()
                if line.startswith("timezone"))


def test_init_proposes_the_zones_at_the_offset_the_pages_state(tmp_path: Path):
    """It wrote timezone = "UTC" (the phpBB default) for a board saying "All times are
    UTC-03:00": every deadline three hours off. Now a zone at UTC-03:00 when the pages were
    fetched, the board's language (en-gb) first, marked CHECK, the others listed."""
    out = tmp_path / "game.toml"
    result = run("init", STOCK_URL, "--from", str(STOCK), "--out", str(out), *STOCK_AT)
    assert result.exit_code == 0, result.output
    loaded = game.load(out)
    fetched = datetime(2026, 11, 20, 15, 0, tzinfo=UTC)
    from zoneinfo import ZoneInfo

    assert ZoneInfo(loaded.timezone).utcoffset(fetched) == timedelta(hours=-3)
    assert loaded.timezone == "Atlantic/Stanley"  # the Falklands: English spoken, UTC-3 then
    line = timezone_line(out)
    assert ("# CHECK: the pages say their times are UTC-03:00 (2026-11-20); zones at that "
            "offset then, where en is spoken first: Atlantic/Stanley, ") in line
    assert "America/Argentina/Buenos_Aires" in line and "America/Belem" in line
    assert loaded.title == "Mafia XIV - Day 2"  # the topic's title, not "game"
    # The opening post's time is read in the zone proposed: 12:00 at UTC-3 is 15:00 UTC.
    counted = run("count", str(out), "--from", str(STOCK), *STOCK_AT, "-f", "json")
    assert counted.exit_code == 0, counted.output
    assert not [f for f in json.loads(counted.stdout)["gm"]["flags"] if f["rule"] == "zone"]


def test_init_marks_a_given_zone_that_the_pages_contradict(tmp_path: Path):
    out = tmp_path / "game.toml"
    result = run("init", STOCK_URL, "--from", str(STOCK), "--out", str(out), *STOCK_AT,
                 "--timezone", "UTC")
    assert result.exit_code == 0, result.output
    assert game.load(out).timezone == "UTC"
    assert timezone_line(out).endswith(
        "# CHECK: the pages say their times are UTC-03:00, but UTC was UTC then (--timezone)")
    agreeing = tmp_path / "agreeing.toml"
    assert run("init", STOCK_URL, "--from", str(STOCK), "--out", str(agreeing), *STOCK_AT,
               "--timezone", "America/Sao_Paulo").exit_code == 0
    assert timezone_line(agreeing).endswith(
        "# the zone you gave (--timezone); the pages say their times are UTC-03:00")


def test_init_without_a_stated_offset_keeps_the_engines_default_to_check(tmp_path: Path):
    out = tmp_path / "game.toml"  # kira-en's footer says "All times are UTC": it does state one
    result = run("init", "https://bbs.tuilisha.cn/forum.php?mod=viewthread&tid=88231", "--from",
                 str(FIXTURES / "discuz" / "trigger-utf8"), "--out", str(out),
                 "--fetched-at", "2026-11-20T04:00:00Z")
    assert result.exit_code == 0, result.output
    assert timezone_line(out).endswith("# CHECK: the zone the forum shows times in (the discuz "
                                       "default; the pages do not say)")


def test_init_knows_every_preset_count_knows(tmp_path: Path):
    from tally import rules

    for preset in rules.names():
        out = tmp_path / f"{preset}.toml"
        result = run("init", KIRA_URL, "--from", str(KIRA), "--out", str(out), "--preset",
                     preset, "--fetched-at", "2016-01-18 03:10")
        assert result.exit_code == 0, (preset, result.output)
        assert game.load(out).preset == preset
    refused = run("init", KIRA_URL, "--from", str(KIRA), "--out", str(tmp_path / "x.toml"),
                  "--preset", "espía")
    assert refused.exit_code == 3
    assert "unknown preset 'espía' (known: espia, kira, lupus, mafia-ru, majority, " \
           "trigger-cn)" in refused.stderr


def test_init_flags_suspicious_names_in_the_file_it_writes(tmp_path: Path):
    """Issue 17: a name with brackets (BBCode injection), one with a right-to-left override,
    and a look-alike of another poster (a Cyrillic А in "Аlice") are each marked CHECK."""
    folder = tmp_path / "saved"
    folder.mkdir()
    for page in KIRA.glob("page-*.html"):
        data = page.read_bytes()
        data = data.replace(b'class="username">Judy<',
                            b'class="username">Judy[/url][url=http://evil.example]pwn<')
        data = data.replace(b'class="username">Eve<', 'class="username">Аlice<'.encode())
        data = data.replace(b'class="username">Heidi<', 'class="username">Hei\u202edi<'.encode())
        (folder / page.name).write_bytes(data)
    out = tmp_path / "game.toml"
    result = run("init", KIRA_URL, "--from", str(folder), "--out", str(out),
                 "--fetched-at", "2016-01-18 03:10")
    assert result.exit_code == 0, result.output
    checks = [line for line in out.read_text("utf-8").splitlines()
              if line.startswith("# CHECK: the name")]
    asked = ": is it a player, and the account you mean?"
    assert sorted(checks) == sorted([
        '# CHECK: the name "Alice" looks like "Аlice"' + asked,
        '# CHECK: the name "Аlice" looks like "Alice"' + asked,
        '# CHECK: the name "Hei\\u202Edi" has invisible characters (direction controls or '
        'zero-width)' + asked,
        '# CHECK: the name "Judy[/url][url=http://evil.example]pwn" has brackets' + asked,
    ])
    # The override never reaches the file as such (an editor would turn the line around); the
    # name reads back as the forum shows it.
    assert "\u202e" not in out.read_text("utf-8")
    assert "Hei\u202edi" in [p.name for p in game.load(out).players]
