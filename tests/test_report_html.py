"""`tally report --html`: the self-contained HTML page, read back as a user or a GM would read it.

The numbers are compared with `tally count --format json` on the same saved pages, never with
numbers written here. The espia game is the La Ratonera fixture with the `espia` preset, two
roles and one secret GM event (the Tramposo Moriarty adds 2 votes on Sherlock, RULES.md E6): the
public page must show none of it (C5), the GM's page all of it.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from urllib.parse import urlsplit

import lxml.html
import pytest
from typer.testing import CliRunner

from tally import cli, engine, timeline
from tally.cli import app
from tally.model import Finding
from tally.render.html import render_html

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
KIRA = FIXTURES / "phpbb" / "kira-en"
KIRA_SAVED = ("--from", str(KIRA), "--fetched-at", "2016-01-18 03:10")
ESPIA = FIXTURES / "forumotion" / "espia-phpbb3-es"
ESPIA_SAVED = ("--from", str(ESPIA), "--fetched-at", "2016-01-20T22:30:00Z")
ROLES = {"Sherlock": "Sacerdote", "Moriarty": "Tramposo"}
# E6: a secret PM from the Tramposo, sent at 21:30 on day 1.
TRAMPOSO = ('[[events]]\nat = "2016-01-18 21:30"\nkind = "tramposo_add"\nplayer = "Moriarty"\n'
            'target = "Sherlock"\nvotes = 2\nsecret = true\n\n')


def run(*args: str | Path):
    return CliRunner().invoke(app, [str(a) for a in args])


def espia_game(tmp_path: Path) -> Path:
    text = (ESPIA / "game.toml").read_text(encoding="utf-8")
    edits = [('preset = "majority"', 'preset = "espia"'), ("[votes]", TRAMPOSO + "[votes]")]
    edits += [(f'name = "{p}"\n', f'name = "{p}"\nrole = "{r}"\n') for p, r in ROLES.items()]
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    path = tmp_path / "espia.toml"
    path.write_text(text, encoding="utf-8")
    return path


def count_json(game: Path, *saved: str) -> dict:
    result = run("count", game, *saved, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def report(tmp_path: Path, game: Path, *args: str, name: str = "report.html"):
    """The page in English (the espia game's own language is Spanish: the words these tests
    read are the English ones; tests/test_report_languages.py reads the others)."""
    out = tmp_path / name
    result = run("report", game, "--html", out, "--lang", "en", *args)
    assert result.exit_code == 0, result.output
    return result, out.read_text(encoding="utf-8")


def page(html: str):
    return lxml.html.fromstring(html)


def table_counts(doc, table_id: str) -> list[dict]:
    """The count table as a reader sees it: candidate, votes, voters and where each links."""
    rows = []
    for tr in doc.get_element_by_id(table_id).xpath("./tbody/tr"):
        name, votes, voters = tr.xpath("./td")
        rows.append({"player": name.text_content(), "votes": int(votes.text_content()),
                     "voters": [a.text_content() for a in voters.xpath("./a|./span")],
                     "links": [a.get("href") for a in voters.xpath("./a")]})
    return rows


def log_rows(doc) -> list:
    return doc.get_element_by_id("vote-log").xpath("./tbody/tr")


# ---------------------------------------------------------------------------------------------
# What the public page shows and what it keeps out (C5)


def test_public_page_keeps_every_secret_out_and_the_gm_page_has_them(tmp_path: Path) -> None:
    game = espia_game(tmp_path)
    data = count_json(game, *ESPIA_SAVED)
    secret = [f["message"] for f in data["gm"]["flags"] if f["secret"]]
    assert secret and data["gm"]["counts"] != data["counts"]  # the game does have secrets
    result, public = report(tmp_path, game, *ESPIA_SAVED, name="public.html")
    assert result.stdout == f"wrote {tmp_path / 'public.html'} (public report)\n"
    for role in ROLES.values():
        assert role not in public
    for message in secret:
        assert message not in public
    assert "GM only" not in public and "do not publish" not in public
    doc = page(public)
    assert not doc.xpath('//*[@id="gm" or @id="gm-counts" or @id="roles" or @id="flags"]')
    # The public count is the thread's: Sherlock has his one vote, not the Tramposo's +2.
    assert table_counts(doc, "counts") == [
        {"player": c["player"], "votes": c["votes"], "voters": c["voters"],
         "links": [by_post(data, p)["permalink_abs"] for p in c["posts"]]}
        for c in data["counts"]]
    assert doc.get_element_by_id("outcome").get("data-result") == data["outcome"]["result"]

    result, private = report(tmp_path, game, *ESPIA_SAVED, "--gm", name="gm.html")
    assert result.stdout == f"wrote {tmp_path / 'gm.html'} (GM report: do not publish)\n"
    gm = page(private)
    assert gm.xpath("//body//p")[0].text_content() == "GM only - do not publish"
    assert gm.findtext(".//title").startswith("GM only - do not publish")
    roles = {tr.xpath("./td")[0].text_content(): tr.xpath("./td")[1].text_content()
             for tr in gm.get_element_by_id("roles").xpath("./tbody/tr")}
    assert roles == ROLES
    shown = [(c["player"], c["votes"]) for c in table_counts(gm, "gm-counts")]
    assert shown == [(c["player"], c["votes"]) for c in data["gm"]["counts"]]
    assert gm.get_element_by_id("gm-outcome").get("data-result") == data["gm"]["outcome"]["result"]
    flags = gm.get_element_by_id("flags").text_content()
    assert all(message in flags for message in secret)


def by_post(data: dict, post: str) -> dict:
    verdict = next(v for v in data["verdicts"] if v["post"] == post)
    thread = urlsplit(data["thread"])
    link = verdict["permalink"]
    if link.startswith("/"):  # Forumotion's links are relative to the forum
        link = f"{thread.scheme}://{thread.netloc}{link}"
    return {**verdict, "permalink_abs": link}


@pytest.mark.parametrize("gm", [False, True], ids=["public", "gm"])
@pytest.mark.parametrize("case", ["kira", "espia"])
def test_links_go_to_the_forum_or_the_page_and_nothing_is_loaded(tmp_path: Path, case: str,
                                                                 gm: bool) -> None:
    game, saved = (KIRA / "game.toml", KIRA_SAVED) if case == "kira" else (espia_game(tmp_path),
                                                                            ESPIA_SAVED)
    forum = urlsplit(count_json(game, *saved)["thread"]).netloc
    _, html = report(tmp_path, game, *saved, *(["--gm"] if gm else []))
    doc = page(html)
    anchors = {e.get("id") for e in doc.xpath("//*[@id]")}
    hrefs = [a.get("href") for a in doc.xpath("//a[@href]")]
    assert hrefs
    for href in hrefs:
        if href.startswith("#"):
            assert href[1:] in anchors, href
        else:
            parts = urlsplit(href)
            assert (parts.scheme, parts.netloc) == ("https", forum), href
    # Nothing the browser would fetch: no script, image, frame, stylesheet link or font.
    assert not doc.xpath("//script|//img|//iframe|//link|//object|//embed|//video|//audio")
    assert not doc.xpath("//@src|//@srcset|//*[local-name()='image' or local-name()='use']")
    styles = " ".join(doc.xpath("//style/text()") + doc.xpath("//@style"))
    assert "url(" not in styles and "@import" not in styles and "@font-face" not in styles
    assert doc.xpath("//meta[@name='viewport']")


@pytest.mark.parametrize("gm", [False, True], ids=["public", "gm"])
def test_vote_log_has_one_row_per_verdict_in_time_order(tmp_path: Path, gm: bool) -> None:
    game = espia_game(tmp_path)
    data = count_json(game, *ESPIA_SAVED)
    public = count_json(game, *ESPIA_SAVED, "--public")  # the verdicts the public JSON shows
    wanted = data["verdicts"] if gm else public["verdicts"]
    _, html = report(tmp_path, game, *ESPIA_SAVED, *(["--gm"] if gm else []))
    rows = log_rows(page(html))
    ordered = sorted(wanted, key=lambda v: (v["time"], v["position"]))
    assert [r.get("data-post") for r in rows] == [v["post"] for v in ordered]
    for row, verdict in zip(rows, ordered):
        cells = [td.text_content() for td in row.xpath("./td")]
        assert cells[0] == f"#{verdict['position']}"
        assert cells[2] == verdict["author"]
        if verdict["target"]:
            assert cells[3] == f"vote for {verdict['target']}"
        assert cells[4].startswith({"not_a_vote": "no vote"}.get(verdict["verdict"],
                                                                 verdict["verdict"]))
        if verdict["rule"]:
            assert verdict["rule"] in cells[4]


def test_kira_page_numbers_equal_the_count(tmp_path: Path) -> None:
    game = KIRA / "game.toml"
    data = count_json(game, *KIRA_SAVED)
    _, html = report(tmp_path, game, *KIRA_SAVED)
    doc = page(html)
    assert table_counts(doc, "counts") == [
        {"player": c["player"], "votes": c["votes"], "voters": c["voters"],
         "links": [by_post(data, p)["permalink"] for p in c["posts"]]} for c in data["counts"]]
    assert len(log_rows(doc)) == len(data["verdicts"])
    outcome = doc.get_element_by_id("outcome")
    assert (outcome.get("data-result"), outcome.get("data-player")) == (
        data["outcome"]["result"], data["outcome"]["player"])
    assert data["outcome"]["player"] in outcome.text_content()
    assert doc.get_element_by_id("not-voting").text_content() == (
        f"Not voting ({len(data['not_voting'])}): {', '.join(data['not_voting'])}")
    # The chart ends on the count: one line per candidate who ever held a vote.
    final = {c["player"]: c["votes"] for c in data["counts"]}
    lines = doc.xpath("//*[local-name()='polyline'][@data-candidate]")
    assert {ln.get("data-candidate") for ln in lines} >= set(final)
    for line in lines:
        assert int(line.get("data-final-votes")) == final.get(line.get("data-candidate"), 0)


def test_each_void_vote_shows_its_reason_rule_and_evidence(tmp_path: Path) -> None:
    game = KIRA / "game.toml"
    data = count_json(game, *KIRA_SAVED)
    _, html = report(tmp_path, game, *KIRA_SAVED)
    doc = page(html)
    void = [v for v in data["verdicts"] if v["verdict"] == "void"]
    assert void and len(doc.xpath("//ul[@class='void-list']/li")) == len(void)
    for verdict in void:
        item = doc.get_element_by_id(f"void-{verdict['post']}").text_content()
        assert f"Rule {verdict['rule']}: {verdict['reason']}" in item
        assert all(e in item for e in verdict["evidence"])
        assert verdict["author"] in item
    # K4: the edit marker text, as the forum shows it, is the evidence of Heidi's void vote.
    heidi = doc.get_element_by_id("void-5017").text_content()
    assert "Last edited by Heidi on Sun Jan 17, 2016 7:20 am" in heidi


def test_forum_text_is_escaped_and_only_web_links_are_links(tmp_path: Path) -> None:
    game = cli.load_game(KIRA / "game.toml")
    thread = cli.read_thread(game, 1, KIRA, "2016-01-18 03:10", False, None)
    tally = engine.count(thread, game, 1)
    evil = "<script>alert(1)</script><img src=x onerror=alert(2)>"
    first = replace(tally.verdicts[2], author=evil, reason=evil, evidence=(f"quote: {evil}",),
                    permalink="javascript:alert(3)")
    tally = replace(tally, game=f"Game <b>{evil}</b>",
                    verdicts=(tally.verdicts[:2] + (first,) + tally.verdicts[3:]))
    html = render_html(tally, timeline.votes_over_time(thread, game, 1))
    doc = page(html)
    assert not doc.xpath("//script|//img|//b")
    assert not [a for a in doc.xpath("//a/@href") if "javascript" in a]
    row = next(r for r in log_rows(doc) if r.get("data-post") == first.post_id)
    assert evil in row.text_content()
    assert f"Game <b>{evil}</b>" in doc.findtext(".//h1")


def test_a_post_a_secret_finding_points_at_stays_out_of_the_public_page(tmp_path: Path) -> None:
    """C5, as in the public JSON: a verdict whose post a secret finding names (a Sacerdote's
    protection claim, E5) would tell who holds the role: the public page leaves it out."""
    game = cli.load_game(KIRA / "game.toml")
    thread = cli.read_thread(game, 1, KIRA, "2016-01-18 03:10", False, None)
    tally = engine.count(thread, game, 1)
    claim = Finding("E5", "post 5008 by Heidi: the real Sacerdote", "5008", "Heidi", secret=True)
    tally = replace(tally, findings=tally.findings + (claim,))
    steps = timeline.votes_over_time(thread, game, 1)
    public, private = page(render_html(tally, steps)), page(render_html(tally, steps, gm=True))
    assert "5008" not in [r.get("data-post") for r in log_rows(public)]
    assert len(log_rows(public)) == len(tally.verdicts) - 1
    assert "the real Sacerdote" not in lxml.html.tostring(public, encoding="unicode")
    assert "5008" in [r.get("data-post") for r in log_rows(private)]
    assert "the real Sacerdote" in private.get_element_by_id("flags").text_content()


# ---------------------------------------------------------------------------------------------
# Votes over time: the preset's own answer at every moment


CASES = [  # game file, saved pages, fetch time
    (FIXTURES / "phpbb" / "kira-en" / "game.toml", KIRA, "2016-01-18 03:10"),
    (FIXTURES / "jv" / "kira-2026" / "game.toml", FIXTURES / "jv" / "kira-2026",
     "2026-06-03T03:30:00Z"),
    (FIXTURES / "discuz" / "trigger-utf8" / "game.toml", FIXTURES / "discuz" / "trigger-utf8",
     "2026-11-20T04:00:00Z"),
    (FIXTURES / "invision" / "mafia-ipb3-ru" / "game.toml",
     FIXTURES / "invision" / "mafia-ipb3-ru", "2017-10-11T08:00:00Z"),
    (None, ESPIA, "2016-01-20T22:30:00Z"),  # the espia game with its secret event
]


@pytest.mark.parametrize("path,saved,fetched", CASES,
                         ids=["phpbb-kira", "jv-kira", "discuz", "invision", "espia-secret"])
def test_votes_over_time_equal_engine_count_at_every_post_edit_and_event(
        tmp_path: Path, path: Path | None, saved: Path, fetched: str) -> None:
    """The timeline reads the posts once; here `engine.count` is run at every post (not only
    the vote posts), every edit time and every GM event: the same steps must come out."""
    game = cli.load_game(path or espia_game(tmp_path))
    number = game.days[0].number
    thread = cli.read_thread(game, number, saved, fetched, False, None)
    tl = timeline.votes_over_time(thread, game, number)
    day = game.day(number)
    moments = [(p.created_at, p.position, {"up_to_post": p.id}) for p in thread.posts]
    moments += [(p.edit.edited_at, p.position, {}) for p in thread.posts
                if p.edit and p.edit.edited_at and day.start <= p.edit.edited_at < tl.as_of]
    moments += [(e.at, 1 << 62, {}) for e in game.events if day.start <= e.at < tl.as_of]
    moments.sort(key=lambda m: (m[0], m[1]))
    public: list[tuple] = []
    gm: list[tuple] = []
    for at, _, how in moments + [(tl.as_of, 0, {})]:
        when = tl.as_of if "up_to_post" in how else at
        t = engine.count(thread, game, number, as_of=when, **how)
        if "up_to_post" in how and t.counted_up_to is None:
            continue  # a post before the day's start: nothing to count yet
        for series, counts in ((public, t.counts), (gm, t.gm_counts or t.counts)):
            now = timeline.standing(counts)
            if not series or series[-1][1] != now:
                series.append((min(at, tl.as_of), now))
    assert counted(tl.public) == after_first_vote(public)
    if tl.gm is None:
        assert gm == public
    else:
        assert counted(tl.gm) == after_first_vote(gm) and gm != public
    final = engine.count(thread, game, number)
    assert tl.public[-1].counts == timeline.standing(final.counts)


def after_first_vote(series: list[tuple]) -> list[tuple]:
    """The steps from the first vote on: before it nobody has a vote, whatever the moment."""
    first = next((i for i, (_, counts) in enumerate(series) if counts), len(series))
    return series[first:]


def counted(steps) -> list[tuple]:
    return after_first_vote([(s.time, s.counts) for s in steps])


# ---------------------------------------------------------------------------------------------
# The command


def test_report_errors_are_one_line_and_leave_the_old_page(tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    out.write_text("the old report", encoding="utf-8")
    result = run("report", KIRA / "game.toml", "--html", out, *KIRA_SAVED, "--day", "9")
    assert result.exit_code == 3
    assert result.stderr.strip().splitlines() == [
        f"tally: error: {KIRA / 'game.toml'}: no day 9 in the game file (days: 1)"]
    assert out.read_text(encoding="utf-8") == "the old report"
    assert [p.name for p in tmp_path.iterdir()] == ["report.html"]  # no temp file left
    missing = run("report", KIRA / "game.toml", *KIRA_SAVED)
    assert missing.exit_code == 2 and "--html" in missing.stderr


def test_report_as_of_a_post_counts_up_to_it(tmp_path: Path) -> None:
    game = KIRA / "game.toml"
    data = count_json(game, *KIRA_SAVED, "--as-of", "5013")
    _, html = report(tmp_path, game, *KIRA_SAVED, "--as-of", "5013")
    doc = page(html)
    assert [(c["player"], c["votes"]) for c in table_counts(doc, "counts")] == [
        (c["player"], c["votes"]) for c in data["counts"]]
    assert len(log_rows(doc)) == len(data["verdicts"])
    assert "(final)" not in doc.findtext(".//h1")
    assert doc.xpath("//*[local-name()='g'][contains(@class,'as-of')]")  # the count's moment


def test_public_file_is_readable_by_others_and_the_gm_file_is_not(tmp_path: Path) -> None:
    game = espia_game(tmp_path)
    report(tmp_path, game, *ESPIA_SAVED, name="public.html")
    report(tmp_path, game, *ESPIA_SAVED, "--gm", name="gm.html")
    umask = os.umask(0)
    os.umask(umask)
    assert (tmp_path / "public.html").stat().st_mode & 0o777 == 0o666 & ~umask
    assert (tmp_path / "gm.html").stat().st_mode & 0o077 == 0


def test_report_read_through_the_store_records_a_snapshot(tmp_path: Path, monkeypatch) -> None:
    """Like count and audit, a report read from the forum leaves its evidence (issue 6)."""
    from fakephpbb import FakePhpBB, write_game

    from tally.store import Store

    monkeypatch.setenv("TALLY_NOW", "2026-01-15T11:00:00+01:00")
    monkeypatch.delenv("TALLY_STORE", raising=False)
    board = FakePhpBB().start()
    try:
        board.add_post("Alice", "vote: Bob")
        board.add_post("Carol", "vote: Bob")
        game = write_game(tmp_path, board.url)
        _, html = report(tmp_path, game)
    finally:
        board.stop()
    with Store(tmp_path / ".tally" / "game.sqlite") as store:
        (snapshot,) = store.snapshots()
    assert snapshot.command == "report"
    offline = count_json(game, "--offline")  # the same pages, from the store alone
    shown = [(c["player"], c["votes"]) for c in table_counts(page(html), "counts")]
    assert shown == [(c["player"], c["votes"]) for c in offline["counts"]] == [("Bob", 2)]
    replayed = run("audit", game, "--from-snapshot", str(snapshot.id))
    assert replayed.exit_code == 0, replayed.output
    assert f"snapshot {snapshot.id} recomputed exactly" in replayed.stdout


def test_the_same_count_renders_the_same_page_byte_for_byte(tmp_path: Path) -> None:
    """A report kept as evidence can be made again and compared: nothing in it depends on the
    run (the charts' ids were object addresses), on the public page or the GM's."""
    game = espia_game(tmp_path)
    for gm in ((), ("--gm",)):
        _, first = report(tmp_path, game, *ESPIA_SAVED, *gm, name="first.html")
        _, again = report(tmp_path, game, *ESPIA_SAVED, *gm, name="again.html")
        assert first == again
        assert 'aria-labelledby="chart-title-public"' in first
    assert 'aria-labelledby="chart-title-gm"' in first
