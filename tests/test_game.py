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


# ---------------------------------------------------------------------------------------------
# Issue 16: mistakes that silently changed a count are refused, naming file, line and key

CAROL = '''
[[players]]
name = "Carol"
account_id = 78
'''


def with_carol(extra: str = CAROL) -> str:
    return FULL.replace("\n[[days]]", extra + "\n[[days]]", 1)


def failure(tmp_path: Path, text: str) -> str:
    with pytest.raises(GameFileError) as err:
        game_file.load(write(tmp_path, text))
    return str(err.value)


def test_two_players_with_one_account_id_are_refused_naming_both(tmp_path):
    """A copy-paste gave Carol Bob's account id: Bob's votes would become Carol's."""
    text = with_carol(CAROL.replace("account_id = 78", "account_id = 77"))
    assert failure(tmp_path, text).endswith(
        "game.toml:19: players[2].account_id: Carol and Bob both have account_id '77': one "
        "account is one player")


def test_one_alias_on_two_players_is_refused(tmp_path):
    text = with_carol(CAROL + 'aliases = ["light"]\n')
    assert failure(tmp_path, text).endswith(
        "game.toml:20: players[2].aliases: 'light' of Carol is also an alias of Alice: a vote "
        "for it could be either's")


def test_an_alias_that_is_another_players_name_is_refused(tmp_path):
    text = with_carol(CAROL + 'aliases = ["BOB"]\n')
    assert failure(tmp_path, text).endswith(
        "game.toml:20: players[2].aliases: 'BOB' of Carol is also the name of Bob: a vote for "
        "it could be either's")


@pytest.mark.parametrize(("table", "line", "key", "where"), [
    ('name = "Bob"', 'name = "Bob"\nalias = ["Bobby"]', "alias", "game.toml:15: players[1].alias"),
    ("number = 1", "number = 1\ndeadlin = \"2016-01-18 03:00\"", "deadlin",
     "game.toml:19: days[0].deadlin"),
    ('kind = "death"', 'kind = "death"\nplayr = "Bob"', "playr",
     "game.toml:25: events[0].playr"),
    ('url = "https://forum.example.org/viewtopic.php?f=3&t=412"',
     'url = "https://forum.example.org/viewtopic.php?f=3&t=412"\nper_pages = 15', "per_pages",
     "game.toml:8: thread.per_pages"),
])
def test_an_unknown_key_inside_a_table_is_refused_like_a_top_level_one(
        tmp_path, table, line, key, where):
    message = failure(tmp_path, FULL.replace(table, line, 1))
    assert where in message and "unknown key (known: " in message, message


@pytest.mark.parametrize(("addition", "expected"), [
    ("\n[names]\nthreshold = 200\n", "names.threshold: must be from 0 to 100, got 200.0"),
    ("\n[names]\nmargin = -5\n", "names.margin: must be from 0 to 100, got -5.0"),
])
def test_out_of_range_numbers_are_refused(tmp_path, addition, expected):
    assert expected in failure(tmp_path, FULL + addition)


def test_per_page_zero_and_seat_zero_are_refused(tmp_path):
    text = FULL.replace('url = "https://forum.example.org/viewtopic.php?f=3&t=412"',
                        'url = "https://forum.example.org/viewtopic.php?f=3&t=412"\nper_page = 0')
    assert failure(tmp_path, text).endswith("game.toml:8: thread.per_page: must be 1 or more, "
                                            "got 0")
    text = FULL.replace('account_id = 77', 'account_id = 77\nseat = 0')
    assert failure(tmp_path, text).endswith("game.toml:16: players[1].seat: must be 1 or more, "
                                            "got 0")


def test_a_file_saved_with_a_byte_order_mark_is_read(tmp_path):
    """Notepad's "UTF-8" writes a byte-order mark, which TOML does not allow: read it anyway."""
    path = tmp_path / "game.toml"
    path.write_bytes(b"\xef\xbb\xbf" + FULL.encode("utf-8"))
    game = game_file.load(path)
    assert game.title == "Kira, game 3" and [p.name for p in game.players] == ["Alice", "Bob"]


def test_an_unknown_preset_or_engine_names_file_and_line(tmp_path):
    # The preset's name is the presets' to check (tally.rules reads Game files, so the reader
    # cannot import it): loading the game for a command checks it, with the line read here.
    from tally.counting import load_game

    with pytest.raises(GameFileError) as err:
        load_game(write(tmp_path, FULL.replace('preset = "kira"', 'preset = "kria"')))
    assert str(err.value).endswith(
        "game.toml:2: preset: unknown preset 'kria' (known: espia, kira, lupus, mafia-ru, "
        "majority, trigger-cn)")
    text = FULL.replace('url = "https://forum.example.org/viewtopic.php?f=3&t=412"',
                        'url = "https://forum.example.org/viewtopic.php?f=3&t=412"\n'
                        'engine = "phpbbb"')
    message = failure(tmp_path, text)
    assert "game.toml:8: thread.engine: unknown forum engine 'phpbbb' (known: " in message


@pytest.mark.parametrize("written", ["[rules]\nthreshold = 3\nthreshold_typo = 4\n",
                                     "rules.threshold_typo = 4\n"])
def test_a_rules_option_names_its_line_from_the_text_read(tmp_path, written):
    """The [rules] options' lines are read with the file: a game file read from a snapshot's
    text names its own lines even when the file on disk is gone or says something else."""
    from tally import rules

    if written.startswith("rules."):  # a dotted key stands before the first table
        text = FULL.replace('staff = ["Ryuk"]\n', 'staff = ["Ryuk"]\n' + written)
    else:
        text = FULL + "\n" + written
    line = text.splitlines().index(written.splitlines()[-1]) + 1
    path = tmp_path / "gone.toml"  # never written
    with pytest.raises(GameFileError) as err:
        rules.for_game(game_file.loads(text, path))
    assert str(err.value) == (f"{path}:{line}: rules.threshold_typo: unknown option for preset "
                              "kira (known: precision, threshold, void_edited_revokes)")


def test_an_event_parameter_of_the_wrong_type_names_file_line_and_key(tmp_path):
    text = FULL.replace('kind = "death"\n', 'kind = "death"\nfloor = "23"\n')
    line = text.splitlines().index('floor = "23"') + 1
    assert failure(tmp_path, text).endswith(
        f"game.toml:{line}: events[0].floor: expected int, got '23'")


def test_event_parameters_are_read_into_typed_fields(tmp_path):
    text = FULL.replace('kind = "death"\n', 'kind = "death"\nnote = "shot at dawn"\n'
                        'account_id = 91\nvotes = 1\n')
    death = game_file.load(write(tmp_path, text)).events_of("death")[0]
    assert (death.note, death.account_id, death.votes, death.floor) == ("shot at dawn", "91", 1,
                                                                         None)


@pytest.mark.parametrize("written", ['[posting]\naccount = "TallyBot"\nformat = "bbc"\n',
                                     'posting.format = "bbc"\n'])
def test_a_posting_format_tally_cannot_write_names_file_and_line(tmp_path, written):
    """Found when the game is loaded, before any page is read or anything posted."""
    from tally.counting import load_game

    if written.startswith("posting."):  # a dotted key stands before the first table
        text = FULL.replace('staff = ["Ryuk"]\n', 'staff = ["Ryuk"]\n' + written)
    else:
        text = FULL + "\n" + written
    line = text.splitlines().index(written.splitlines()[-1]) + 1
    with pytest.raises(GameFileError) as err:
        load_game(write(tmp_path, text))
    assert str(err.value).endswith(f"game.toml:{line}: posting.format: expected one of bbcode, "
                                   "markdown, jv, text, got 'bbc'")
