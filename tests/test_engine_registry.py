"""Adding an engine is one place (issue 15): its line in tally.adapters.REGISTRY names its reader,
its replier and its posts' markup. These checks fail when a registered engine lacks what every
engine has (fixture cases in its real markup, a replier with recorded replies, or a stated reason
for having none), and when fixture cases stand for an engine no line registers.
"""

from __future__ import annotations

import pytest
from casefiles import FIXTURES, case_dirs

from tally import adapters
from tally.adapters.base import Engine
from tally.adapters.reply import Replier, replier_for
from tally.errors import InputError
from tally.fetch import Fetcher
from tally.render.post import DIALECTS

ENTRIES = {entry.name: entry for entry in adapters.REGISTRY}
CASSETTES = FIXTURES / "cassettes"


def case_folders() -> set[str]:
    """The folders of fixtures/ that hold fixture cases (a case.toml each): one per engine."""
    return {path.name for path in FIXTURES.iterdir() if path.is_dir() and case_dirs(path.name)}


def test_the_registry_names_each_engine_once() -> None:
    names = [entry.name for entry in adapters.REGISTRY]
    assert len(names) == len(set(names)) and len(names) >= 2
    assert list(adapters.engines()) == names  # detection tries them in the registry's order


@pytest.mark.parametrize("name", ENTRIES)
def test_a_registered_engine_reads_under_its_own_name(name: str) -> None:
    entry = ENTRIES[name]
    engine = adapters.get(name)
    assert isinstance(engine, Engine) and type(engine) is entry.load(entry.reader)
    assert engine.name == name
    assert entry.markup in DIALECTS, f"{name}: posts in {entry.markup!r}, a markup tally cannot write"


@pytest.mark.parametrize("name", ENTRIES)
def test_a_registered_engine_has_fixture_cases(name: str) -> None:
    assert case_dirs(name), (f"fixtures/{name}/: no case folder (case.toml, the saved pages, "
                             "expected.json): every engine is tested on its real markup")


def test_every_engine_with_fixture_cases_is_registered() -> None:
    assert case_folders() == set(ENTRIES)


@pytest.mark.parametrize("name", ENTRIES)
def test_a_registered_engine_has_a_replier_or_says_why_not(name: str) -> None:
    entry = ENTRIES[name]
    if entry.replier is None:
        assert entry.no_replier.strip(), f"{name}: no replier, and no reason given (no_replier)"
        return
    replier = replier_for(name, Fetcher(delay=0))
    assert isinstance(replier, Replier) and replier.name == name
    recorded = sorted(path.name for path in CASSETTES.glob(f"reply-{name}*.yaml"))
    assert recorded, f"fixtures/cassettes/reply-{name}*.yaml: no recorded reply for its replier"


def test_an_engine_registered_without_a_replier_cannot_be_posted_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    quiet = adapters.Registered("quietboard", "phpbb:PhpBB", None,
                                no_replier="its reply form needs a captcha")
    monkeypatch.setattr(adapters, "REGISTRY", (*adapters.REGISTRY, quiet))
    with pytest.raises(InputError) as caught:
        replier_for("quietboard", Fetcher(delay=0))
    assert str(caught.value) == "tally cannot post on quietboard forums"
    with pytest.raises(InputError) as caught:
        replier_for("nosuchboard", Fetcher(delay=0))
    assert str(caught.value) == "tally cannot post on nosuchboard forums"


def test_an_unknown_engine_name_is_one_line_naming_the_known_ones() -> None:
    with pytest.raises(InputError) as caught:
        adapters.registered("phpbbb")
    assert str(caught.value) == (f"unknown forum engine 'phpbbb' (known: "
                                 f"{', '.join(ENTRIES)})")



@pytest.mark.parametrize("name", ENTRIES)
def test_a_game_file_forcing_an_engine_on_an_address_not_its_topic_is_bad_input(
        tmp_path, name: str) -> None:
    # A forum's list of topics given as the thread: before, Forumotion crashed ("internal error
    # (a bug)") and phpBB exited 4 as if the forum had failed; it is the game file's mistake.
    from typer.testing import CliRunner

    from tally.cli import app

    game = tmp_path / "game.toml"
    game.write_text(f'preset = "majority"\ntimezone = "Europe/Madrid"\n[thread]\n'
                    f'url = "https://foro.example.org/viewforum.php?f=3"\nengine = "{name}"\n'
                    '[[players]]\nname = "Ana"\n[[players]]\nname = "Bob"\n[[days]]\n'
                    'start = "2026-01-01 10:00"\ndeadline = "2026-01-02 10:00"\n',
                    encoding="utf-8")
    result = CliRunner().invoke(app, ["count", str(game), "--offline", "--store",
                                      str(tmp_path / "store.sqlite")])
    assert result.exit_code == 3, result.output
    label = adapters.get(name).label
    assert result.stderr.startswith(
        f"tally: error: {label}: https://foro.example.org/viewforum.php?f=3: not a ")
    assert result.stderr.count("\n") == 1
