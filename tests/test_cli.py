"""End to end through the `tally` command: the deadline run on the bundled phpBB Kira thread.

The expected numbers come from fixtures/phpbb/kira-en/README.md, which lists every vote post and
what it is meant to test; HTTP is replayed from a vcrpy cassette recorded with cookies scrubbed.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import vcr
from typer.testing import CliRunner

from tally.cli import app

ROOT = Path(__file__).resolve().parent.parent
KIRA = ROOT / "fixtures" / "phpbb" / "kira-en"
GAME = KIRA / "game.toml"
CASSETTE = ROOT / "fixtures" / "cassettes" / "phpbb-kira-en.yaml"
SAVED = ["--from", str(KIRA), "--fetched-at", "2016-01-18 03:10"]


def run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, list(args), env=env)


def counts(data: dict) -> dict[str, list[str]]:
    return {c["player"]: c["voters"] for c in data["counts"]}


def test_count_saved_pages_gives_the_intended_tally():
    result = run("count", str(GAME), *SAVED, "--format", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert counts(data) == {"Dan": ["Bob", "Frank", "Grace", "Ivan"], "Bob": ["Carol", "Alice"],
                            "Carol": ["Eve", "Judy"]}
    assert data["outcome"] == {"result": "eliminated", "player": "Dan", "rule": "K10",
                               "detail": data["outcome"]["detail"], "tied": []}
    assert data["not_voting"] == ["Dan", "Heidi"]
    assert data["deadline"] == "2016-01-18T02:59:59Z"
    # C4: every post of the window has exactly one verdict.
    assert len(data["verdicts"]) == 60 and len({v["post"] for v in data["verdicts"]}) == 60
    # The GM part: Bob's post edited after the deadline is flagged (K4b), Dan's vote for a
    # non-player is unresolved (C2).
    assert any(f["rule"] == "K4b" and f["post"] == "5003" for f in data["gm"]["flags"])
    assert [f["post"] for f in data["gm"]["unresolved"]] == ["5015"]


def test_bbcode_post_is_the_default_and_carries_no_gm_report():
    result = run("count", str(GAME), *SAVED)
    assert result.exit_code == 0
    assert "[b]Dan[/b] (4): [url=https://forum.example.org/viewtopic.php?p=5003#p5003]Bob[/url]" in result.stdout
    assert "Dan is eliminated" in result.stdout
    assert "GM report" not in result.stdout and "unresolved" not in result.stdout


@pytest.mark.parametrize("post,verdict,words", [
    ("5046", "NOT_A_VOTE", []),                                   # quotes Bob's vote (C1)
    ("5017", "VOID", ["[K4]", "Last edited by Heidi on Sun Jan 17, 2016 7:20 am"]),
    ("5024", "COUNTED", ["edited by staff Ryuk, kept"]),          # K5
    ("5056", "VOID", ["late: posted 03:00:30, deadline 02:59:59"]),  # K1/C7
    ("5013", "COUNTED", ["name: 'Carrol' -> Carol (fuzzy"]),      # C2
    ("5006", "SUPERSEDED", ["5020"]),                              # K6/K7
])
def test_audit_explains_each_post(post, verdict, words):
    result = run("audit", str(GAME), *SAVED, "--post", post)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert f"post {post}" in lines[1] and verdict in lines[1]
    for word in words:
        assert word in result.stdout


def test_audit_player_filter_shows_votes_by_and_for_the_player():
    result = run("audit", str(GAME), *SAVED, "--player", "Heidi")
    assert "post 5017" in result.stdout  # Heidi's own edited vote
    assert "post 5006" in result.stdout  # Grace's vote for Heidi
    assert "post 5009" not in result.stdout


def test_as_of_a_time_counts_the_thread_as_it_stood():
    result = run("count", str(GAME), *SAVED, "--as-of", "2016-01-17 12:00", "-f", "json")
    data = json.loads(result.stdout)
    # Ivan's vote (12:00:03) is not there yet; Heidi's 07:20 edit already voids her vote.
    assert counts(data) == {"Dan": ["Bob", "Frank", "Grace"], "Bob": ["Carol", "Alice"],
                            "Carol": ["Eve", "Judy"]}
    assert data["as_of"] == "2016-01-17T12:00:00Z"


def test_as_of_a_post_id_stops_right_after_that_post():
    result = run("count", str(GAME), *SAVED, "--as-of", "5013", "-f", "json")
    data = json.loads(result.stdout)
    assert data["counted_up_to"] == "5013"
    assert counts(data)["Carol"] == ["Eve", "Judy"]
    assert data["outcome"]["result"] == "none" and data["outcome"]["rule"] == "K9"


def test_online_count_replayed_from_the_cassette_then_offline(tmp_path):
    store = tmp_path / "store.sqlite"
    env = {"TALLY_NOW": "2016-01-18T03:10:00Z"}
    with vcr.use_cassette(str(CASSETTE), record_mode="none"):
        online = run("count", str(GAME), "--store", str(store), "-f", "json", env=env)
    assert online.exit_code == 0, online.output
    offline = run("count", str(GAME), "--store", str(store), "--offline", "-f", "json", env=env)
    assert offline.exit_code == 0, offline.output
    assert counts(json.loads(online.stdout))["Dan"] == ["Bob", "Frank", "Grace", "Ivan"]
    assert json.loads(offline.stdout) == json.loads(online.stdout)


def test_cassette_holds_no_cookie_or_session():
    import yaml

    text = CASSETTE.read_text(encoding="utf-8")
    assert "_sid=" not in text and "127.0.0.1" not in text
    for interaction in yaml.safe_load(text)["interactions"]:
        for part in ("request", "response"):
            names = {name.lower() for name in interaction[part]["headers"]}
            assert not names & {"cookie", "set-cookie", "authorization"}, interaction[part]["headers"]


# ---------------------------------------------------------------------------------------------
# Bad input: one clear line and a documented exit code


def one_line_error(result, code: int, text: str) -> None:
    assert result.exit_code == code, result.output
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("tally: error: "), result.stderr
    assert text in lines[0]


def test_missing_game_file(tmp_path):
    one_line_error(run("count", str(tmp_path / "nope.toml")), 3, "nope.toml: no such game file")


def test_unknown_preset(tmp_path):
    game = tmp_path / "game.toml"
    game.write_text(GAME.read_text().replace('preset = "kira"', 'preset = "kiraa"'))
    one_line_error(run("count", str(game), *SAVED), 3, "unknown preset 'kiraa' (known: espia, kira, lupus, mafia-ru, majority, trigger-cn)")


def test_unknown_day():
    one_line_error(run("count", str(GAME), *SAVED, "--day", "9"), 3, "no day 9 in the game file (days: 1)")


def test_login_wall_in_saved_pages_is_a_forum_error(tmp_path):
    shutil.copy(ROOT / "fixtures" / "phpbb" / "errors" / "login.html", tmp_path / "page-1.html")
    result = run("count", str(GAME), "--from", str(tmp_path))
    one_line_error(result, 4, "not a thread page")


def test_offline_without_snapshot(tmp_path):
    result = run("count", str(GAME), "--offline", "--store", str(tmp_path / "s.sqlite"))
    one_line_error(result, 3, "run without --offline first")


def test_forum_asking_to_wait_too_long_gives_up_cleanly(tmp_path, httpserver):
    httpserver.expect_request("/viewtopic.php").respond_with_data(
        "busy", status=503, headers={"Retry-After": "3600"})
    game = tmp_path / "game.toml"
    game.write_text(GAME.read_text().replace("https://forum.example.org",
                                             httpserver.url_for("").rstrip("/")))
    result = run("count", str(game), "--store", str(tmp_path / "s.sqlite"))
    one_line_error(result, 4, "HTTP 503")


def test_dst_overlap_choice_is_shown_in_the_audit(tmp_path):
    """A post dated 02:30 on the night Madrid's clocks go back: the audit says which 02:30."""
    spanish = ROOT / "fixtures" / "phpbb" / "spanish-30"
    game = tmp_path / "game.toml"
    players = "".join(f'[[players]]\nname = "{n}"\n' for n in ("Lucía", "Pablo", "Marta", "Andrés"))
    game.write_text(
        'preset = "majority"\ntimezone = "Europe/Madrid"\nstaff = ["Magistrado"]\n'
        '[thread]\nurl = "http://pueblo.example.es/foro/viewtopic.php?f=2&t=77"\n'
        f'{players}[[days]]\nstart = "2015-10-24 00:00"\ndeadline = "2015-10-26 22:00"\n',
        encoding="utf-8")
    result = run("audit", str(game), "--from", str(spanish), "--fetched-at", "2015-10-26 21:00",
                 "--post", "907")
    assert result.exit_code == 0, result.output
    assert ("note: 2015-10-25 02:30:00 happens twice in Europe/Madrid (DST ends); "
            "read as the first, UTC+02:00") in result.stdout


def test_event_the_preset_does_not_know_names_its_line(tmp_path):
    game = tmp_path / "game.toml"
    game.write_text(GAME.read_text() + '\n[[events]]\nat = "2016-01-17 20:00"\nkind = "tramposo"\n'
                    'player = "Bob"\n', encoding="utf-8")
    lines = game.read_text().splitlines()
    line = lines.index('kind = "tramposo"') + 1
    one_line_error(run("count", str(game), *SAVED), 3,
                   f"game.toml:{line}: events: unknown event kind 'tramposo' for preset kira")


@pytest.mark.parametrize("module", ["tally", "tally.cli"])
def test_python_dash_m_runs_every_command(module: str, tmp_path: Path) -> None:
    """`python -m tally` (and `-m tally.cli`) is the `tally` program, with every command: run
    as __main__, cli.py once knew only the commands it defines itself."""
    import subprocess
    import sys

    # Run outside the checkout: from its root, `-m` finds ./tally before the installed package,
    # which lacks tally.adapters and tally.rules unless the install is editable (pip install .).
    done = subprocess.run([sys.executable, "-m", module, "report", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert "votes over time" in " ".join(done.stdout.split())
