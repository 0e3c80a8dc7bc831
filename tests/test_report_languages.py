"""The HTML report in each language (issue 14), and what it shows of a disputed vote (issue 17).

The browser test opens the public and the GM page of the espia example (void votes, a secret
Tramposo, roles) in headless Chromium (as tests/test_report_browser.py does) in every language,
and reads what a reader sees (the page's rendered text and its SVG titles): no message of the
catalogue may be left in English, and no character may fall back to the missing-glyph box (a
canvas compares each character's drawing with that of a code point no font has).
"""

from __future__ import annotations

import gettext
import os
import re
import shutil
import tomllib
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import lxml.html
import pytest
from babel.messages import pofile
from casefiles import fixture_module
from typer.testing import CliRunner

from tally.cli import app
from tally.fetch import Response
from tally.render import i18n
from tally.store import Store

ROOT = Path(__file__).resolve().parent.parent
ESPIA = ROOT / "fixtures" / "forumotion" / "espia-phpbb3-es"
ESPIA_SAVED = ("--from", str(ESPIA), "--fetched-at", "2016-01-20T22:30:00Z")
KIRA_GAME = ROOT / "fixtures" / "phpbb" / "kira-en" / "game.toml"
EVIDENCE = ROOT / "fixtures" / "evidence"
TRAMPOSO = ('[[events]]\nat = "2016-01-18 21:30"\nkind = "tramposo_add"\nplayer = "Moriarty"\n'
            'target = "Sherlock"\nvotes = 2\nsecret = true\n\n')
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
LANGS = ["es", "ru", "zh", "fr"]


def run(*args: str | Path, env: dict[str, str] | None = None) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args], env=env)
    assert result.exit_code == 0, result.output
    return result.stdout


def espia_game(tmp_path: Path) -> Path:
    text = (ESPIA / "game.toml").read_text(encoding="utf-8")
    for old, new in [('preset = "majority"', 'preset = "espia"'), ("[votes]", TRAMPOSO + "[votes]"),
                     ('name = "Moriarty"\n', 'name = "Moriarty"\nrole = "Tramposo"\n')]:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "espia.toml"
    path.write_text(text, encoding="utf-8")
    return path


def pages(tmp_path: Path, lang: str) -> dict[str, Path]:
    game = espia_game(tmp_path)
    out = {"public": tmp_path / f"public-{lang}.html", "gm": tmp_path / f"gm-{lang}.html"}
    run("report", game, "--html", out["public"], *ESPIA_SAVED, "--lang", lang)
    run("report", game, "--html", out["gm"], *ESPIA_SAVED, "--lang", lang, "--gm")
    return out


# ---------------------------------------------------------------------------------------------
# What a reader sees, in Chromium


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[object]:
    if not Path(CHROMIUM).exists() and shutil.which("chromium") is None:
        pytest.skip("Chromium not found at /usr/bin/chromium: install Debian's chromium package "
                    "to run the browser test")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        # Chromium's own files (GLib's ~/.cache/dconf) go to a temp home, not the user's.
        home = tmp_path_factory.mktemp("chromium-home")
        chromium = p.chromium.launch(executable_path=CHROMIUM if Path(CHROMIUM).exists()
                                     else shutil.which("chromium"), args=ARGS,
                                     env={**os.environ, "HOME": str(home),
                                          "XDG_CACHE_HOME": str(home / ".cache"),
                                          "XDG_CONFIG_HOME": str(home / ".config")})
        yield chromium
        chromium.close()


# What a reader sees: the page's words, the rules' reasons and findings, the evidence, the
# preset's notes on the GM page, the chart's labels and hover titles.
SEEN = """() => [document.title, document.body.innerText,
  ...[...document.querySelectorAll('svg title, svg text')].map(e => e.textContent)].join('\\n')"""

# A character whose drawing equals that of U+10FFFD (a private-use code point no font has: the
# missing-glyph box) is one the page cannot show.
MISSING_GLYPHS = """(chars) => {
  const font = getComputedStyle(document.body).font;
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const ctx = canvas.getContext('2d', {willReadFrequently: true});
  const draw = (ch) => {
    ctx.clearRect(0, 0, 64, 64); ctx.font = font.replace(/\\d+(\\.\\d+)?px/, '40px');
    ctx.fillText(ch, 4, 48);
    return Array.from(ctx.getImageData(0, 0, 64, 64).data).join(',');
  };
  const box = draw('\\u{10FFFD}');
  return chars.filter(ch => draw(ch) === box);
}"""


def untranslated(text: str, lang: str) -> list[str]:
    """The catalogue's messages whose English wording shows in `text` (fields as wildcards)."""
    po = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "tally.po"
    with po.open("rb") as f:
        catalogue = pofile.read_po(f, locale=lang)
    ids = [(english, m.string) for m in catalogue if m.id
           for english in (m.id if isinstance(m.id, tuple) else (m.id,))]
    translated = "\n".join(s for _, value in ids
                           for s in (value if isinstance(value, tuple) else (value,)))
    found = []
    for msgid, value in ids:
        if msgid in (value if isinstance(value, tuple) else (value,)):
            continue  # a word the language writes the same ("Votes" in French)
        words = re.findall(r"[A-Za-z]{2,}", re.sub(r"\{\w+\}", " ", msgid))
        if not words or re.fullmatch(r"[\sdMyHhmsE:,.-]+", msgid):
            continue  # separators and CLDR date patterns have no English to leave behind
        pattern = ".+?".join(re.escape(part) for part in re.split(r"\{\w+\}", msgid.strip()))
        # One word ("Chart", "void") is a label: left in English it is a whole cell or line;
        # a sentence is left in English anywhere.
        edges = (r"(?:^|[\t\n])", r"(?=$|[\t\n])") if len(words) == 1 else (r"(?<![A-Za-z])", r"(?![A-Za-z])")
        english = re.compile(edges[0] + pattern + edges[1], re.M)
        if english.search(translated):
            continue  # the language's own words read like it ("vote pour {player}" in French)
        if english.search(text):
            found.append(msgid)
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_report_reads_in_its_language_with_every_glyph(tmp_path: Path, browser, lang: str) -> None:
    for kind, path in pages(tmp_path, lang).items():
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        requests: list[str] = []
        page.on("request", lambda r, seen=requests: seen.append(r.url))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        text = page.evaluate(SEEN)
        assert i18n.get(lang)._("Void votes") in text and i18n.get(lang)._("Count") in text
        assert untranslated(text, lang) == [], (kind, lang)
        chars = sorted({ch for ch in text if ord(ch) > 127 and not ch.isspace()})
        assert page.evaluate(MISSING_GLYPHS, chars) == [], (kind, lang)
        assert page.evaluate(MISSING_GLYPHS, ["\ue001", "A"]) == ["\ue001"]  # the check can fail
        assert requests == [path.as_uri()]
        assert page.evaluate("document.documentElement.lang") == lang
        page.close()


def test_the_scan_finds_english_left_in_a_page() -> None:
    """The check above can fail: English words of the catalogue are found in a page."""
    assert "Void votes" in untranslated("Registro — Void votes (2)", "es")
    assert "Vote log ({n} posts, {counted} counted)" in untranslated(
        "Vote log (12 posts, 9 counted)", "ru")
    assert sorted(untranslated("Chart\tCount", "fr")) == ["Chart", "Count"]
    assert untranslated("Votos nulos (2) · Registro de votaciones", "es") == []
    sponsored = ("  - skipped 'Contenido patrocinado' (post 0, no author link, no date): the "
                 "sponsored block Forumotion shows guests, not a post (§1.8)")
    assert untranslated(sponsored, "es") == [
        "skipped '{title}' (post 0, no author link, no date): the sponsored block Forumotion "
        "shows guests, not a post (§1.8)"]
    assert english_runs("Чтение: page 1: skipped an advertisement", "ru") == [
        "skipped an advertisement"]
    assert english_runs("пропущено «Sign in to reply here» (https://a.example/t/1-b-c-d)",
                        "ru") == []


# ---------------------------------------------------------------------------------------------
# The GM report and the audit of a game on a Spanish, Russian or Chinese board read in its
# language, down to what the adapters noted while reading the pages (issue 14): the sponsored
# block Forumotion shows guests, Invision's ads and sign-in prompt, Discuz's guest blocks.

FIXTURES = ROOT / "fixtures"
BOARDS = [
    *[("es", case, "omitido 'Contenido patrocinado' (mensaje 0, sin enlace al autor, sin fecha): "
       "el bloque patrocinado que Forumotion muestra a los invitados, no un mensaje (§1.8)")
      for case in sorted((FIXTURES / "forumotion").glob("stock-*-es"))],
    ("ru", FIXTURES / "invision" / "ipb3-guest-ru",
     "гостевой вид: пропущено приглашение войти («Авторизуйтесь для ответа в теме»): это не "
     "сообщение"),
    ("zh", FIXTURES / "discuz" / "stock-x34-utf8",
     "帖子 880106：部分内容对当前访客隐藏（游客，如果您要查看本帖隐藏内容请回复）；其余部分照常读取"),
]


def english_runs(text: str, lang: str) -> list[str]:
    """Three or more English words in a row outside quotes and addresses: on a Russian or
    Chinese report, an English sentence (a name or the forum's words are quoted, or one word)."""
    if lang not in ("ru", "zh"):
        return []
    bare = re.sub(r"«[^»]*»|“[^”]*”|'[^'\n]*'|\S+://\S+", " ", text)
    return re.findall(r"[A-Za-z][\w-]*(?:[ :,]+[A-Za-z][\w-]*){2,}", bare)


@pytest.mark.parametrize("lang,case,note", BOARDS, ids=[case.name for _, case, _ in BOARDS])
def test_gm_report_and_audit_read_in_the_boards_language(lang: str, case: Path, note: str) -> None:
    fetched = tomllib.loads((case / "case.toml").read_text(encoding="utf-8"))["fetched_at"]
    saved = ("--from", case, "--fetched-at", fetched, "--lang", lang)
    report = run("count", case / "game.toml", "--format", "text", *saved)
    audit = run("audit", case / "game.toml", *saved)
    t = i18n.get(lang)
    for text in (report, audit):
        assert f"{t._('Reading the thread:')}\n" in text
        assert f"  - {note}\n" in text
        assert untranslated(text, lang) == []
        assert english_runs(text, lang) == []


# ---------------------------------------------------------------------------------------------
# Every message a renderer asks for is in every catalogue (an id Babel did not extract would
# silently stay English)


class Recording(gettext.NullTranslations):
    def __init__(self, inner: gettext.GNUTranslations) -> None:
        super().__init__()
        self.inner, self.missed = inner, set[str]()

    def _has(self, key: object) -> bool:
        return key in self.inner._catalog  # type: ignore[attr-defined]

    def gettext(self, message: str) -> str:
        if not self._has(message):
            self.missed.add(message)
        return self.inner.gettext(message)

    def ngettext(self, msgid1: str, msgid2: str, n: int) -> str:
        if not self._has((msgid1, 0)):
            self.missed.add(msgid1)
        return self.inner.ngettext(msgid1, msgid2, n)

    def pgettext(self, context: str, message: str) -> str:
        if not self._has(f"{context}\x04{message}"):
            self.missed.add(f"{context}: {message}")
        return self.inner.pgettext(context, message)


@pytest.mark.parametrize("lang", LANGS)
def test_every_message_rendered_is_in_the_catalogue(tmp_path: Path, monkeypatch, lang: str) -> None:
    real = i18n.get(lang)
    assert isinstance(real.catalogue, gettext.GNUTranslations)
    recording = Recording(real.catalogue)
    spy = i18n.Lang(lang, recording, real.locale)
    monkeypatch.setattr(i18n, "get", lambda code="en": spy if code == lang else real)
    for module in ("tally.render.post", "tally.render.update", "tally.render.html",
                   "tally.render.chart", "tally.render.audit", "tally.render.gmreport"):
        mod = __import__(module, fromlist=["get"])
        if hasattr(mod, "get"):
            monkeypatch.setattr(mod, "get", i18n.get)
    game = espia_game(tmp_path)
    for fmt in ("bbcode", "jv", "markdown", "text"):
        run("count", game, *ESPIA_SAVED, "--format", fmt, "--lang", lang)
    run("report", game, "--html", tmp_path / "p.html", *ESPIA_SAVED, "--lang", lang, "--gm")
    run("audit", game, *ESPIA_SAVED, "--lang", lang)
    assert sorted(recording.missed) == []


# ---------------------------------------------------------------------------------------------
# Issue 17: the public page shows that a disputed vote was judged on the deadline's copy


V = fixture_module(EVIDENCE / "versions.py", "evidence_versions")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


@pytest.fixture(scope="module")
def kira_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """tests/test_forensics.py's store: every page at 02:50 (before the 02:59:59 deadline) and
    at 03:20; in between Alice's vote post 5012 was changed with no edit notice."""
    path = tmp_path_factory.mktemp("kira") / "store.sqlite"
    unedited = {5003: (V.kira_post(5003)[2], None)}
    before = V.kira_thread(at=utc("2016-01-18 02:50"), edits=unedited, hidden={5022})
    after = V.kira_thread(edits={5012: ("vote: Dan", None)}, hidden={5047})
    with Store(path) as store:
        for at, pages_ in (("2016-01-18 02:50", before), ("2016-01-18 03:20", after)):
            for number, body in pages_.items():
                store.save(Response(V.kira_page_url(number), 200, {"Content-Type": "text/html"},
                                    body, utc(at)), "t=412", number)
    return path


@pytest.mark.parametrize("lang,heading,judged", [
    ("en", "Votes judged on the copy fetched by the deadline (",
     "judged on the copy fetched 2016-01-18 02:50:00 UTC"),
    ("es", "Votos juzgados sobre la copia descargada antes del cierre (",
     "juzgado sobre la copia descargada el 2016-01-18 02:50:00 UTC"),
])
def test_public_page_shows_a_vote_judged_on_the_deadline_copy(tmp_path: Path, kira_store: Path,
                                                              lang: str, heading: str,
                                                              judged: str) -> None:
    out = tmp_path / "public.html"
    run("report", KIRA_GAME, "--offline", "--store", kira_store, "--html", out, "--lang", lang,
        env={"TALLY_NOW": "2016-01-18T03:25:00Z"})
    public = run("count", KIRA_GAME, "--offline", "--store", kira_store, "--format", "json",
                 "--public", env={"TALLY_NOW": "2016-01-18T03:25:00Z"})
    assert "judged on the copy fetched 2016-01-18 02:50:00 UTC" in public  # what JSON carried
    doc = lxml.html.fromstring(out.read_text(encoding="utf-8"))
    section = doc.get_element_by_id("judged")
    assert section.findtext("h2").startswith(heading)
    card = doc.get_element_by_id("judged-5012")
    assert card.get("data-verdict") == "counted"
    assert judged in card.text_content()
    assert "Rule -" not in card.text_content() and "Regla -" not in card.text_content()  # no rule
    row = next(r for r in doc.xpath('//table[@id="vote-log"]//tr[@data-post="5012"]'))
    assert judged in row.text_content()


def test_html_names_lose_their_bidi_controls() -> None:
    from dataclasses import replace

    from tally import cli, engine, timeline
    from tally.render.html import render_html

    game = cli.load_game(KIRA_GAME)
    thread = cli.read_thread(game, 1, KIRA_GAME.parent, "2016-01-18 03:10", False, None)
    tally = engine.count(thread, game, 1)
    rlo = "Eve\u202eevil [b]x[/b]"
    verdicts = tuple(replace(v, author=rlo) if v.voter == "Eve" else v for v in tally.verdicts)
    counts = tuple(replace(c, voters=tuple(rlo if n == "Eve" else n for n in c.voters))
                   for c in tally.counts)
    tally = replace(tally, verdicts=verdicts, counts=counts, not_voting=(rlo,), game=f"G {rlo}")
    for lang in ("en", "ru"):
        doc = lxml.html.fromstring(render_html(tally, timeline.votes_over_time(thread, game, 1),
                                               lang=lang))
        shown = doc.text_content()
        assert "\u202e" not in shown and "Eveevil [b]x[/b]" in shown  # HTML shows brackets as text
        assert not doc.xpath("//b")


# ---------------------------------------------------------------------------------------------
# Chinese text takes full-width punctuation (issue 14): the void-vote cards, the section counts,
# the chart's legend and the GM's findings get it from the catalogue ("{label}: {said}" is
# "{label}：{said}" in zh), so a name or a number never sits after an ASCII colon or bracket.

CJK = r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]"
ASCII_BESIDE_CJK = re.compile(rf"{CJK} ?[:;,()\[\]]|[:;,()\[\]] ?{CJK}")


def ascii_beside_chinese(root: lxml.html.HtmlElement) -> list[str]:
    """Text nodes of the page (the SVG's too) where ASCII punctuation touches a Chinese word."""
    for skip in root.xpath("//script|//style"):
        skip.drop_tree()
    return [s for e in root.iter() for s in (e.text, e.tail) if s and ASCII_BESIDE_CJK.search(s)]


def test_the_chinese_page_writes_full_width_punctuation(tmp_path: Path) -> None:
    for kind, path in pages(tmp_path, "zh").items():
        root = lxml.html.parse(str(path)).getroot()
        legend = [li.text_content() for li in root.xpath('//ul[@class="legend"]/li')]
        assert legend[:3] == ["Moriarty：3", "Lestrade：1", "Sherlock：1"], kind
        cards = [li.text_content() for li in root.xpath('//ul[@class="void-list"]/li')]
        assert [c.split(" 无效")[0] for c in cards] == ["Lestrade：投给 Moriarty",
                                                        "Sherlock：投给 Moriarty"], kind
        assert root.xpath('string(//section[@id="void"]/h2)') == "无效票（2）"
        assert ascii_beside_chinese(root) == [], kind
    gm = lxml.html.parse(str(tmp_path / "gm-zh.html")).getroot()
    assert gm.findtext(".//title") == ("【仅限法官：请勿公开】第1日票型（最终）：¿Quién es el Espía? "
                                       "— Día 1")
    flags = [li.text_content() for li in gm.xpath('//ul[@id="flags"]/li')]
    assert flags and all(re.match(r"\w+ (需法官处理|秘密)：", f) for f in flags), flags
    # The check can fail: the card and heading as they were written before.
    assert ascii_beside_chinese(lxml.html.fromstring(
        "<ul><li><strong>Lestrade</strong>: 投给 Moriarty</li><h2>无效票 (2)</h2></ul>")) == [
        ": 投给 Moriarty", "无效票 (2)"]


@pytest.mark.parametrize("lang,change,note,absent", [
    ("es", "F2 mensaje 5012 de Alice (#12): el texto cambió, sin marca de edición; mensaje con voto; "
     "la copia descargada después del cierre difiere de la última de antes",
     "    cambió entre la última descarga antes del cierre y la primera después: antes, vota a Bob; "
     "después, vota a Dan",
     "    | (no aparece: esta descarga cubre el lugar del mensaje en el tema y no lo tiene)"),
    ("zh", "F2 Alice 的帖子 5012（#12）：内容改变，没有编辑标记；投票帖：截止后抓取的副本与截止前最后一份不同",
     "    在截止前最后一次抓取与截止后第一次抓取之间被修改：之前为投 Bob；之后为投 Dan",
     "    | （未显示：这次抓取覆盖了该帖在主题中的位置，但其中没有它）"),
])
def test_the_audits_forensics_in_the_games_language(kira_store: Path, lang: str, change: str,
                                                    note: str, absent: str) -> None:
    """What the snapshot store's comparison found (a vote post changed with no edit notice, a
    post that vanished), in the audit's language; the forum's own text stays as it was."""
    out = run("audit", KIRA_GAME, "--offline", "--store", kira_store, "--lang", lang,
              env={"TALLY_NOW": "2016-01-18T03:25:00Z"})
    lines = out.splitlines()
    assert change in lines and note in lines and absent in lines
    assert "    | vote: Dan" in lines  # the post's own words
    assert untranslated(out, lang) == []


def test_the_trigger_report_in_chinese(tmp_path: Path) -> None:
    """`tally triggers` (the trigger-cn GM's private report) speaks the game's language: Chinese
    by default for trigger-cn, the rulebook's words (替补杀手, 转正, 触发)."""
    trigger = ROOT / "fixtures" / "discuz" / "trigger-utf8"
    text = (trigger / "trigger-cn.toml").read_text(encoding="utf-8")
    text = text.replace('name = "桃花"\n', 'name = "桃花"\nrole = "杀手"\n', 1)
    for name, condition in (("沙发", 'condition = "first_reply"'),
                            ("99楼", 'condition = "floor"\nfloor = 99')):
        text += (f'\n[[events]]\nat = "2026-11-12 19:00"\nkind = "trigger"\n{condition}\n'
                 f'name = "{name}"\nsecret = true\n')
    game = tmp_path / "trigger-cn.toml"
    game.write_text(text, encoding="utf-8")
    report = run("triggers", game, "--from", trigger, "--fetched-at", "2026-11-20T04:00:00Z")
    assert report.splitlines() == [
        "触发报告（私密：请勿发布；T8）", "=" * 42, "已触发（1）：",
        "  - [T1] “沙发”：阿飞 于 2楼（2026-11-12 20:03）：阿飞 成为替补杀手；于 2026-11-13 13:00 "
        "公布（T6）",
        "未触发（1）：", "  - “99楼”", "替补杀手：阿飞（待转正）"]
    assert untranslated(report, "zh") == []


# ---------------------------------------------------------------------------------------------
# Every note an adapter writes is a message (issue 14): an f-string note would be English in
# every language's GM report, and the catalogue check cannot see it (it is no msgid).


@pytest.mark.parametrize("engine", ["phpbb", "forumotion", "invision", "discuz", "jv"])
def test_every_note_an_adapter_writes_is_a_message(engine: str) -> None:
    from casefiles import case_dirs, load_case

    from tally import adapters
    from tally.model import Message

    reader, seen, english = adapters.get(engine), 0, []
    for case_dir in case_dirs(engine):
        for saved in load_case(case_dir).pages:
            try:
                page = reader.parse_page(saved.data, saved.ctx)
            except Exception:  # noqa: BLE001  cases that test a refusal
                continue
            notes = [*page.notes, *(n for post in page.posts for n in post.notes)]
            seen += len(notes)
            english += [f"{case_dir.name}/{saved.file}: {n}" for n in notes
                        if not isinstance(n, Message)]
    assert seen and english == []
