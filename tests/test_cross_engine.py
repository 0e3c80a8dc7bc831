"""Every engine refuses every other engine's thread page, and detection picks the right engine.

A parser handed another forum's page must say so (NotAThreadPage, naming itself), never return
an empty page (no posts would count as "nobody voted") nor fail deep inside lxml (adapters/base.py).
The pages are the first page of each engine's first fixture case, so a new case folder or a new
engine joins in without a change here.
"""

from __future__ import annotations

from itertools import permutations

import pytest
from casefiles import CasePage, case_dirs, load_case

from tally import adapters
from tally.errors import NotAThreadPage

ENGINES = tuple(adapters.engines())


def first_page(engine: str) -> CasePage:
    return load_case(case_dirs(engine)[0]).pages[0]


def all_pages() -> list[tuple[str, str, CasePage]]:
    return [(engine, f"{folder.name}/{page.file}", page)
            for engine in ENGINES for folder in case_dirs(engine)
            for page in load_case(folder).pages]


@pytest.mark.parametrize("reader,writer", list(permutations(ENGINES, 2)),
                         ids=lambda name: name)
def test_a_parser_refuses_another_engines_page(reader: str, writer: str):
    engine = adapters.get(reader)
    page = first_page(writer)
    with pytest.raises(NotAThreadPage) as caught:
        engine.parse_page(page.data, page.ctx)
    assert str(caught.value).startswith(f"{engine.label}:"), str(caught.value)


def test_sniff_recognises_every_fixture_page_as_its_own_engine():
    wrong = []
    for engine, where, page in all_pages():
        found = adapters.sniff(page.data)
        if found is None or found.name != engine:
            wrong.append(f"{engine}/{where}: sniffed as {found.name if found else None}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("name", ENGINES)
def test_engine_prefix_forces_the_engine(name: str):
    # An address no engine would claim by itself: the prefix alone decides.
    url = "https://games.example.net/some/thread/12"
    assert adapters.split_forced(f"{name}:{url}") == (name, url)
    assert adapters.for_url(f"{name}:{url}").name == name
    assert adapters.for_url(url, name).name == name


@pytest.mark.parametrize("writer", ENGINES)
def test_engine_prefix_wins_over_what_the_url_looks_like(writer: str):
    """A URL that one engine recognises still goes to the engine the prefix names."""
    url = first_page(writer).ctx.url
    assert adapters.for_url(url).name == writer
    for name in ENGINES:
        assert adapters.for_url(f"{name}:{url}").name == name


def test_a_plain_url_is_not_mistaken_for_a_prefix():
    assert adapters.split_forced("https://forum.example.org/viewtopic.php?t=1") == (
        None, "https://forum.example.org/viewtopic.php?t=1")
