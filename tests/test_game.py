"""The game file: a full example loads; every mistake names file, line and key."""

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tally import game as game_file
from tally.errors import GameFileError

FULL = '''\
title = "Kira, game 3"
preset = "kira"
timezone = "UTC"
staff = ["Ryuk"]

[thread]
url = "https://forum.example.org/viewtopic.php?f=3&t=412"

[[players]]
name = "Alice"
aliases = ["Ali", "Light"]

[[players]]
name = "Bob"
account_id = 77

[[days]]
number = 1
start = "2016-01-17 03:00"
deadline = "2016-01-18 02:59:59"

[[events]]
at = "2016-01-17 20:00"
kind = "death"
player = "Bob"

[[events]]
at = "2016-01-17 21:00"
kind = "deadline"
day = 1
deadline = "2016-01-18 04:00"

[resolutions]
"ali baba" = "Alice"
"xx" = "ignore"
'''


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "game.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_full_example_loads(tmp_path):
    game = game_file.load(write(tmp_path, FULL))
    assert game.title == "Kira, game 3"
    assert [p.name for p in game.players] == ["Alice", "Bob"]
    assert game.players[0].aliases == ("Ali", "Light")
    assert game.players[1].account_id == "77"
    assert game.staff == ("Ryuk",)
    day = game.day(1)
    assert day.start == datetime(2016, 1, 17, 3, 0, tzinfo=UTC)
    # The GM moved the deadline: the new one is in force, the old one kept for the audit.
    assert day.deadline == datetime(2016, 1, 18, 4, 0, tzinfo=UTC)
    assert day.original_deadline == datetime(2016, 1, 18, 2, 59, 59, tzinfo=UTC)
    assert [e.kind for e in game.events] == ["death", "deadline"]
    assert game.resolutions == {"ali baba": "Alice", "xx": "ignore"}


def test_toml_syntax_error_names_the_line(tmp_path):
    path = write(tmp_path, FULL.replace('name = "Bob"', 'name = "Bob'))
    with pytest.raises(GameFileError, match=r"game\.toml:14: not valid TOML"):
        game_file.load(path)


def test_missing_deadline_names_the_day_and_line(tmp_path):
    path = write(tmp_path, FULL.replace('deadline = "2016-01-18 02:59:59"\n', ""))
    with pytest.raises(GameFileError, match=r"game\.toml:17: days\[0\]: missing required key 'deadline'"):
        game_file.load(path)


def test_bad_time_names_key_and_line(tmp_path):
    path = write(tmp_path, FULL.replace('start = "2016-01-17 03:00"', 'start = "17/01/2016"'))
    with pytest.raises(GameFileError) as err:
        game_file.load(path)
    assert str(err.value).startswith(f"{path}:19: days[0].start: cannot read the time '17/01/2016'")


def test_event_for_unknown_player(tmp_path):
    path = write(tmp_path, FULL.replace('player = "Bob"', 'player = "Zed"'))
    with pytest.raises(GameFileError, match=r"game\.toml:\d+: events\[0\]\.player: 'Zed' is not a player"):
        game_file.load(path)


def test_unknown_event_kind_for_the_preset(tmp_path):
    path = write(tmp_path, FULL.replace('kind = "death"', 'kind = "tramposo"'))
    from tally import rules

    game = game_file.load(path)  # the file alone knows no preset: the preset checks its kinds
    preset = rules.get(game.preset)
    with pytest.raises(GameFileError, match=rf"game\.toml:24: events: unknown event kind 'tramposo' "
                       rf"for preset {preset.name}"):
        preset.validate(game)


def test_resolution_to_a_non_player(tmp_path):
    path = write(tmp_path, FULL.replace('"ali baba" = "Alice"', '"ali baba" = "Alicia"'))
    with pytest.raises(GameFileError, match=r"resolutions\.ali baba: 'Alicia' is not a player"):
        game_file.load(path)


def test_unknown_top_level_key(tmp_path):
    path = write(tmp_path, "colour = 1\n" + FULL)
    with pytest.raises(GameFileError, match=r"game\.toml:1: colour: unknown key"):
        game_file.load(path)


def test_missing_file(tmp_path):
    with pytest.raises(GameFileError, match=r"nope\.toml: no such game file"):
        game_file.load(tmp_path / "nope.toml")


def test_duplicate_player(tmp_path):
    path = write(tmp_path, FULL.replace('name = "Bob"', 'name = "alice"'))
    with pytest.raises(GameFileError, match=r"players\[1\]\.name: 'alice' is listed twice"):
        game_file.load(path)
