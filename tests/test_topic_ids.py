"""Issue 16: every page read must be of the game's topic. The topic the game's URL names
(`Engine.topic_id`) is compared with the one the page itself states (`Page.thread_id`), so each
URL form a GM may paste must name the topic in the page's own terms: a right page is never
refused, a page of another topic always is.

Every saved page of every engine's fixtures, read at each URL form of its engine (JV's old
"1-" and current "42-" topics, Forumotion's /t123-slug, /t123p20-slug and /viewtopic?t=,
phpBB's viewtopic.php?t= with f=, start= and sid=, Discuz's rewritten thread-123-1-1.html,
viewthread&tid=, viewthread.php and findpost links, Invision's showtopic=, /topic/123-slug/ with
its page forms and index.php?/topic/): the form of its own topic is taken, the same form of the
next topic id refused. A URL that names no topic (phpBB's ?p= post link) holds the pages to the
topic the first of them states.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path

import pytest
from casefiles import case_dirs, load_case
from typer.testing import CliRunner

from tally import adapters
from tally.crawl import of_topic
from tally.errors import TallyError, WrongThread

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"

# Each engine's URL forms of topic T (a str of digits), as boards print them.
FORMS: dict[str, list[Callable[[str], str]]] = {
    "jv": [
        lambda t: f"https://www.jeuxvideo.com/forums/42-51-{t}-1-0-1-0-kira-partie-12.htm",
        lambda t: f"https://www.jeuxvideo.com/forums/42-3016891-{t}-7-0-1-0-blabla-2026.htm",
        lambda t: f"https://www.jeuxvideo.com/forums/1-51-{t}-1-0-1-0-ancien-topic-2009.htm",
        lambda t: f"https://m.jeuxvideo.com/forums/42-51-{t}-2-0-1-0-kira.htm#post_1312400187",
    ],
    "forumotion": [
        lambda t: f"https://laratonera.foroactivo.com/t{t}-votaciones-dia-1",
        lambda t: f"https://laratonera.foroactivo.com/t{t}p15-votaciones-dia-1",
        lambda t: f"https://Laratonera.Foroactivo.com/t{t}p20-dia-2#3102",
        lambda t: f"https://laratonera.foroactivo.com/viewtopic?t={t}&start=15",
    ],
    "phpbb": [
        lambda t: f"https://forum.example.org/viewtopic.php?t={t}",
        lambda t: f"https://forum.example.org/viewtopic.php?f=3&t={t}&start=30",
        lambda t: f"https://forum.example.org/forum/viewtopic.php?f=3&t={t}&sid=0123456789abcdef",
        lambda t: f"https://forum.example.org/viewtopic.php?t={t}&p=5013#p5013",
    ],
    "discuz": [
        lambda t: f"https://bbs.example.cn/thread-{t}-1-1.html",
        lambda t: f"https://bbs.example.cn/thread-{t}-3-2.html",
        lambda t: f"https://bbs.example.cn/forum.php?mod=viewthread&tid={t}&extra=page%3D1&page=2",
        lambda t: f"http://bbs.example.cn/viewthread.php?tid={t}&page=2",
        lambda t: f"https://bbs.example.cn/forum.php?mod=redirect&goto=findpost&ptid={t}&pid=9",
    ],
    "invision": [
        lambda t: f"https://mafia.example.ru/index.php?showtopic={t}",
        lambda t: f"https://mafia.example.ru/index.php?showtopic={t}&st=20",
        lambda t: f"https://mafia.example.ru/topic/{t}-golosovanie-den-2/",
        lambda t: f"https://mafia.example.ru/topic/{t}-golosovanie-den-2/page-2",
        lambda t: f"https://mafia.example.ru/topic/{t}-den-4/page/2/",
        lambda t: f"https://mafia.example.ru/index.php?/topic/{t}-golosovanie-den-3/page__st__20",
        lambda t: f"https://mafia.example.ru/topic/{t}-den-4/?do=findComment&comment=900102",
    ],
}


def stated_pages() -> list[tuple[str, str, str]]:
    """(engine, case, file) of every fixture page that states its topic."""
    found = []
    for engine in FORMS:
        for case_dir in case_dirs(engine):
            for page in load_case(case_dir).pages:
                found.append((engine, case_dir.name, page.file))
    return found


@pytest.mark.parametrize("engine_name,case,file", stated_pages())
def test_each_url_form_names_the_topic_the_page_states(engine_name: str, case: str,
                                                       file: str) -> None:
    engine = adapters.get(engine_name)
    saved = next(p for p in load_case(FIXTURES / engine_name / case).pages if p.file == file)
    try:
        page = engine.read_page(saved.data, saved.ctx)
    except TallyError:
        pytest.skip("a page this case keeps to be refused (an error page, a cut download)")
    topic = page.thread_id
    assert topic is not None and topic.isdigit(), f"{case}/{file} states no topic"
    other = str(int(topic) + 1)
    for form in FORMS[engine_name]:
        right, wrong = form(topic), form(other)
        assert engine.accepts(right) and engine.topic_id(right) == topic, right
        # The page's word, not the URL's: read at its own topic's form it is taken, ...
        read = engine.read_page(saved.data, replace(saved.ctx, url=right))
        assert of_topic(read, engine.topic_id(right)) is read
        # ... and a board answering another topic's URL with it is refused.
        misread = engine.read_page(saved.data, replace(saved.ctx, url=wrong))
        with pytest.raises(WrongThread, match=f"is from topic {topic}, not {other}"):
            of_topic(misread, engine.topic_id(wrong))


def test_a_phpbb_post_link_names_no_topic_until_a_page_is_read() -> None:
    engine = adapters.get("phpbb")
    assert engine.topic_id("https://forum.example.org/viewtopic.php?p=5013#p5013") is None


# ---------------------------------------------------------------------------------------------
# A game URL that names no topic (phpBB's post link): the pages must still be one topic


KIRA = FIXTURES / "phpbb" / "kira-en"  # topic 412
SPANISH = FIXTURES / "phpbb" / "spanish-30"  # topic 77


def kira_by_post_link(tmp_path: Path) -> Path:
    text = (KIRA / "game.toml").read_text(encoding="utf-8")
    old = 'url = "https://forum.example.org/viewtopic.php?f=3&t=412"'
    assert text.count(old) == 1
    game = tmp_path / "game.toml"
    game.write_text(text.replace(old, 'url = "https://forum.example.org/viewtopic.php?p=5001"'),
                    encoding="utf-8")
    return game


def test_saved_pages_under_a_post_link_with_a_stray_page_of_another_topic(tmp_path: Path) -> None:
    """Before: the post link held the pages to nothing, and topic 77's page 1 was counted with
    topic 412's four pages, exit 0."""
    folder = tmp_path / "saved"
    folder.mkdir()
    for n in range(1, 5):
        shutil.copy(KIRA / f"page-{n}.html", folder / f"page-{n}.html")
    game = kira_by_post_link(tmp_path)
    whole = CliRunner().invoke(adapters_app(), ["count", str(game), "--from", str(folder),
                                                "--fetched-at", "2016-01-18 03:10"])
    assert whole.exit_code == 0, whole.output
    shutil.copy(SPANISH / "page-1.html", folder / "topic-77.html")
    result = CliRunner().invoke(adapters_app(), ["count", str(game), "--from", str(folder),
                                                 "--fetched-at", "2016-01-18 03:10"])
    assert result.exit_code == 4, result.output
    assert result.stdout == ""
    assert result.stderr.startswith(f"tally: error: {folder / 'topic-77.html'}: page 1 is from "
                                    "topic 77, not 412")


def test_stored_pages_under_a_post_link_are_held_to_the_first_pages_topic(
        tmp_path: Path) -> None:
    """The store of a ?p= game: topic 412's pages, then a later fetch of the tail answered with
    topic 77's page (a moved or merged topic). --offline: exit 4, not 77's posts counted."""
    from tally.fetch import Response
    from tally.store import Store

    engine = adapters.get("phpbb")
    url = "https://forum.example.org/viewtopic.php?p=5001"
    key = engine.thread_key(url)
    store = Store(tmp_path / "s.sqlite")
    fetched = datetime(2016, 1, 18, 3, 10, tzinfo=UTC)
    for n in range(1, 5):
        address = f"https://forum.example.org/viewtopic.php?p=5001&start={(n - 1) * 15}"
        store.save(Response(address, 200, {}, (KIRA / f"page-{n}.html").read_bytes(), fetched),
                   key, n)
    later = datetime(2016, 1, 18, 3, 20, tzinfo=UTC)
    store.save(Response("https://forum.example.org/viewtopic.php?p=5001&start=45", 200, {},
                        (SPANISH / "page-1.html").read_bytes(), later), key, 4)
    store.close()
    result = CliRunner().invoke(adapters_app(), ["count", str(kira_by_post_link(tmp_path)),
                                                 "--offline", "--store",
                                                 str(tmp_path / "s.sqlite")])
    assert result.exit_code == 4, result.output
    assert result.stdout == ""
    assert "page 1 is from topic 77, not 412" in result.stderr


def adapters_app():  # noqa: ANN201 - the typer app
    from tally.cli import app

    return app
