"""README.md's examples are what `tally` prints: every fenced block that starts with a
`$ tally …` line is run from the repository's root, and its output must be the block's rest,
character for character (a new user copies these commands; issue 14's posts per language)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tally.cli import app

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"^```[a-z]*\n\$ (tally [^\n]*)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
EXAMPLES = BLOCK.findall((ROOT / "README.md").read_text(encoding="utf-8"))


def test_the_readme_shows_the_post_of_each_language() -> None:
    heads = [out.split("\n", 1)[0] for _, out in EXAMPLES]
    for title in ("Recuento de votaciones", "Итоги голосования", "第1日票型",
                  "Décompte des votes", "Vote count"):
        assert any(head.startswith(title) for head in heads), title


@pytest.mark.parametrize("command,shown", EXAMPLES, ids=[c[:60] for c, _ in EXAMPLES])
def test_a_readme_example_prints_what_the_readme_shows(command: str, shown: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(app, shlex.split(command)[1:])
    assert result.exit_code == 0, result.output
    assert result.stdout == shown
