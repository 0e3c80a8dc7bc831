"""Edit forensics: pairs of stored page versions in each engine's real markup, and what
`tally audit` shows of them (issue 6).

The versions are saved straight into the store (Store.save) with the fetch times a scheduled run
or `tally snapshot` would have given them; fixtures/evidence/README.md says how each is built.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from casefiles import fixture_module
from typer.testing import CliRunner

from tally.cli import app
from tally.fetch import Response
from tally.store import Store

ROOT = Path(__file__).resolve().parent.parent
EVIDENCE = ROOT / "fixtures" / "evidence"
KIRA_GAME = ROOT / "fixtures" / "phpbb" / "kira-en" / "game.toml"
DISCUZ_GAME = ROOT / "fixtures" / "discuz" / "trigger-utf8" / "game.toml"
IPS4_GAME = EVIDENCE / "ips4-en-game.toml"


V = fixture_module(EVIDENCE / "versions.py", "evidence_versions")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def save(store: Store, key: str, url: str, number: int, body: bytes, at: str) -> int:
    return store.save(Response(url, 200, {"Content-Type": "text/html"}, body, utc(at)), key, number)


def audit(game: Path, store: Path, *args: str, now: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["audit", str(game), "--offline", "--store", str(store),
                                      *args], env={"TALLY_NOW": now})
    return result.exit_code, result.stdout, result.stderr


def section(stdout: str, label: str) -> list[str]:
    """The lines of one finding (from "F2 post …" to the next finding or the end)."""
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{label} post "))
    end = next((i for i in range(start + 1, len(lines)) if lines[i][:1] == "F"), len(lines))
    return lines[start:end]


# ---------------------------------------------------------------------------------------------
# phpBB: the four kinds of change, on the kira-en thread fetched three times


@pytest.fixture(scope="module")
def kira_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """02:50 (before the 02:59:59 deadline): every page; Bob's 03:05 edit not made yet and
    Grace's 5022 still awaiting approval. 03:02: the scheduled run re-reads the last page.
    03:20: every page again; Alice's 5012 edited with no notice (a moderator's edit without a
    reason, FORUMS.md §2.4), Bob's notice there, 5022 approved, Dan's 5047 deleted."""
    path = tmp_path_factory.mktemp("kira") / "store.sqlite"
    unedited = {5003: (V.kira_post(5003)[2], None)}
    before = V.kira_thread(at=utc("2016-01-18 02:50"), edits=unedited, hidden={5022})
    tail = V.kira_thread(at=utc("2016-01-18 03:02"), edits=unedited, hidden={5022})
    after = V.kira_thread(edits={5012: ("vote: Dan", None)}, hidden={5047})
    with Store(path) as store:
        for number, body in before.items():
            save(store, "t=412", V.kira_page_url(number), number, body, "2016-01-18 02:50")
        save(store, "t=412", V.kira_page_url(4), 4, tail[4], "2016-01-18 03:02")
        for number, body in after.items():
            save(store, "t=412", V.kira_page_url(number), number, body, "2016-01-18 03:20")
    return path


def test_a_body_changed_without_a_marker_is_shown_side_by_side(kira_store: Path) -> None:
    code, out, _ = audit(KIRA_GAME, kira_store, now="2016-01-18T03:25:00Z")
    assert code == 0
    assert section(out, "F2") == [
        "F2 post 5012 by Alice (#12): text changed, no edit marker; vote post: the copy fetched "
        "after the deadline differs from the last one before it",
        "    changed between the last fetch before the deadline and the first after it: before "
        "vote Bob; after vote Dan",
        "  before: last fetch showing it, 2016-01-18 02:50:00 UTC (2016-01-18 02:50:00 forum "
        "time), page 1, version 1",
        "    | vote: Bob",
        "  after: first fetch showing it, 2016-01-18 03:20:00 UTC (2016-01-18 03:20:00 forum "
        "time), page 1, version 6",
        "    | vote: Dan",
    ]
    # The post's own audit lines point at the finding.
    lines = out.splitlines()
    own = lines.index(next(line for line in lines if line.startswith("#12   post 5012")))
    assert ("      forensics F2: text changed, no edit marker; vote post: the copy fetched after "
            "the deadline differs from the last one before it") in lines[own:own + 7]
    # The count reads the post as it stood at the deadline (C6): Alice's vote stays on Bob.
    assert lines[own].endswith("Alice            COUNTED    -> Bob")
    assert ("      evidence: text changed with no edit marker (seen 2016-01-18 02:50:00 UTC vs "
            "03:20:00 UTC); judged on the copy fetched 2016-01-18 02:50:00 UTC") in lines[own:own + 7]


def test_an_edit_marker_that_appeared(kira_store: Path) -> None:
    _, out, _ = audit(KIRA_GAME, kira_store, now="2016-01-18T03:25:00Z")
    marker = "Last edited by Bob on Mon Jan 18, 2016 3:05 am, edited 1 time in total."
    found = section(out, "F1")
    assert found[0] == (f"F1 post 5003 by Bob (#3): edit marker appeared: '{marker}'; text "
                        "unchanged; vote post: the copy fetched after the deadline differs from "
                        "the last one before it")
    assert found[1] == ("    changed between the last fetch before the deadline and the first "
                        "after it: before vote Dan; after vote Dan")
    assert found[-1] == f"    | [edit marker: {marker}]"
    assert f"    | [edit marker: {marker}]" not in found[:found.index(next(
        line for line in found if line.startswith("  after:")))]


def test_a_deleted_post_and_a_post_inserted_mid_thread(kira_store: Path) -> None:
    _, out, _ = audit(KIRA_GAME, kira_store, now="2016-01-18T03:25:00Z")
    assert section(out, "F3")[:2] == [
        "F3 post 5022 by Grace (#22): appeared late in the middle of the thread: an earlier fetch "
        "of its place lacked it (approved later, or a deletion undone); vote post: the copy "
        "fetched after the deadline differs from the last one before it",
        "    changed between the last fetch before the deadline and the first after it: before "
        "not shown; after vote Dan"]
    assert section(out, "F3")[2:4] == [
        "  before: fetch lacking it, 2016-01-18 02:50:00 UTC (2016-01-18 02:50:00 forum time), "
        "page 2, version 2",
        "    | (not shown: this fetch covers the post's place in the thread and lacks it)"]
    # Still shown at 03:02, after the deadline, by the last page re-read; gone at 03:20.
    assert section(out, "F4") == [
        "F4 post 5047 by Dan (#46): vanished: a later fetch of its place no longer shows it "
        "(deleted or hidden)",
        "    changed after the deadline",
        "  before: last fetch showing it, 2016-01-18 03:02:00 UTC (2016-01-18 03:02:00 forum "
        "time), page 4, version 5",
        "    | Last words: you are lynching a townie.",
        "  after: fetch lacking it, 2016-01-18 03:20:00 UTC (2016-01-18 03:20:00 forum time), "
        "page 4, version 9",
        "    | (not shown: this fetch covers the post's place in the thread and lacks it)"]
    # Posts that only moved to another page, and posts made after a fetch, are not findings.
    assert "Forensics: 4 changes found between the 9 stored page fetches, 2016-01-18 02:50:00 " \
           "to 2016-01-18 03:20:00 UTC" in out.splitlines()


def test_json_audit_has_the_forensics_list(kira_store: Path) -> None:
    code, out, _ = audit(KIRA_GAME, kira_store, "--format", "json", "--player", "Alice",
                         now="2016-01-18T03:25:00Z")
    assert code == 0
    data = json.loads(out)
    assert [(f["id"], f["kind"], f["post"]) for f in data["forensics"]] == [
        ("F1", "edit_marker", "5003"), ("F2", "silent_edit", "5012"),
        ("F3", "inserted", "5022"), ("F4", "deleted", "5047")]
    silent = data["forensics"][1]
    assert (silent["vote_before"], silent["vote_after"], silent["after_deadline"]) == \
        ("vote Bob", "vote Dan", True)
    assert silent["before"] == {"shown": True, "text": "vote: Bob", "edit": None, "page": 1,
                                "version": 1, "fetched_at": "2016-01-18T02:50:00Z"}
    assert silent["after"]["text"] == "vote: Dan"
    assert data["forensics"][3]["after"]["shown"] is False


def test_post_filter_narrows_the_forensics_section(kira_store: Path) -> None:
    _, out, _ = audit(KIRA_GAME, kira_store, "--post", "5022", now="2016-01-18T03:25:00Z")
    assert "Forensics: 1 change found between the 9 stored page fetches, 2016-01-18 02:50:00 to " \
           "2016-01-18 03:20:00 UTC" in out.splitlines()
    assert [line.split(" ")[0] for line in out.splitlines() if line[:1] == "F" and
            " post " in line] == ["F3"]


def test_no_change_between_fetches_says_so(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with Store(path) as store:
        for at in ("2016-01-18 03:10", "2016-01-18 03:40"):
            for number, body in V.kira_thread().items():
                save(store, "t=412", V.kira_page_url(number), number, body, at)
    _, out, _ = audit(KIRA_GAME, path, now="2016-01-18T03:45:00Z")
    assert out.splitlines()[-1] == ("Forensics: 0 changes found between the 8 stored page fetches, "
                                    "2016-01-18 03:10:00 to 2016-01-18 03:40:00 UTC")


def test_saved_pages_have_no_forensics_section() -> None:
    result = CliRunner().invoke(app, ["audit", str(KIRA_GAME), "--from", str(KIRA_GAME.parent),
                                      "--fetched-at", "2016-01-18 03:10"])
    assert result.exit_code == 0
    assert not any(line.startswith("Forensics") for line in result.stdout.splitlines())


# ---------------------------------------------------------------------------------------------
# Discuz: an admin's edit leaves no marker (FORUMS.md §4.1)

DISCUZ_URL = "https://bbs.tuilisha.cn/forum.php?mod=viewthread&tid=88231&extra=page%3D1"
DISCUZ_PAGES = {1: DISCUZ_URL, 2: DISCUZ_URL + "&page=2", 3: DISCUZ_URL + "&page=3"}


def test_discuz_admin_edit_after_the_deadline_is_flagged(tmp_path: Path) -> None:
    """桃花's 投票 老猫 (floor 5), seen unchanged before and after the 18:00 deadline (10:00
    UTC), then shown as 投票 白菜 with no 本帖最后由 line: the admin changed it after the deadline."""
    path = tmp_path / "store.sqlite"
    folder = ROOT / "fixtures" / "discuz" / "trigger-utf8"
    edited = V.replaced(folder / "page-1.html", "投票 老猫</td>", "投票 白菜</td>")
    with Store(path) as store:
        for number, url in DISCUZ_PAGES.items():
            save(store, "tid=88231", url, number, (folder / f"page-{number}.html").read_bytes(),
                 "2026-11-18 09:30")
        save(store, "tid=88231", DISCUZ_PAGES[1], 1, (folder / "page-1.html").read_bytes(),
             "2026-11-18 10:30")
        save(store, "tid=88231", DISCUZ_PAGES[1], 1, edited, "2026-11-20 04:00")
    code, out, _ = audit(DISCUZ_GAME, path, "--post", "2310470", now="2026-11-20T04:05:00Z")
    assert code == 0, out
    assert section(out, "F1") == [
        "F1 post 2310470 by 桃花 (#5): text changed, no edit marker; vote post changed after "
        "the deadline",
        "    changed after the deadline: at the deadline vote 老猫; after it vote 白菜",
        "  before: last fetch showing it, 2026-11-18 10:30:00 UTC (2026-11-18 18:30:00 forum "
        "time), page 1, version 4",
        "    | 我先表个态，老猫说话太急了。",
        "    | 投票 老猫",
        "  after: first fetch showing it, 2026-11-20 04:00:00 UTC (2026-11-20 12:00:00 forum "
        "time), page 1, version 5",
        "    | 我先表个态，老猫说话太急了。",
        "    | 投票 白菜",
    ]


# ---------------------------------------------------------------------------------------------
# Invision IPS 4: the user hid the edit line (FORUMS.md §5.2)

IPS4_URL = "https://werewolf.example.com/topic/77-game-12-day-3-lynch/"
IPS4_PAGE = ROOT / "fixtures" / "invision" / "ips4-en" / "page-1.html"


def ips4_store(path: Path, *fetches: tuple[str, bytes]) -> Path:
    with Store(path) as store:
        for at, body in fetches:
            save(store, "topic=77", IPS4_URL, 1, body, at)
    return path


def test_ips4_edit_with_the_edit_line_hidden_is_flagged(tmp_path: Path) -> None:
    edited = V.replaced(IPS4_PAGE, "<p>vote: Bob</p>\n\t\t\t\t</div>", "<p>vote: Carol</p>\n\t\t\t\t</div>")
    path = ips4_store(tmp_path / "s.sqlite", ("2018-03-25 11:59:50", IPS4_PAGE.read_bytes()),
                      ("2018-03-25 12:30:00", edited))
    code, out, _ = audit(IPS4_GAME, path, "--post", "513", now="2018-03-25T12:35:00Z")
    assert code == 0, out
    assert section(out, "F1") == [
        "F1 post 513 by Dave (#5): text changed, no edit marker; vote post: the copy fetched after "
        "the deadline differs from the last one before it",
        "    changed between the last fetch before the deadline and the first after it: before "
        "vote Bob; after vote Carol",
        "  before: last fetch showing it, 2018-03-25 11:59:50 UTC (2018-03-25 12:59:50 forum "
        "time), page 1, version 1",
        "    | vote: Bob",
        "  after: first fetch showing it, 2018-03-25 12:30:00 UTC (2018-03-25 13:30:00 forum "
        "time), page 1, version 2",
        "    | vote: Carol",
    ]


def test_no_copy_from_before_the_deadline_says_the_evidence_cannot_show_it(tmp_path: Path) -> None:
    edited = V.replaced(IPS4_PAGE, "<p>vote: Bob</p>\n\t\t\t\t</div>", "<p>vote: Carol</p>\n\t\t\t\t</div>")
    path = ips4_store(tmp_path / "s.sqlite", ("2018-03-25 12:10:00", IPS4_PAGE.read_bytes()),
                      ("2018-03-25 12:30:00", edited))
    _, out, _ = audit(IPS4_GAME, path, "--post", "513", now="2018-03-25T12:35:00Z")
    assert section(out, "F1")[:2] == [
        "F1 post 513 by Dave (#5): text changed, no edit marker; vote post, no copy from before "
        "the deadline",
        "    no copy was fetched before the deadline: the evidence cannot show this post as it "
        "stood then"]
