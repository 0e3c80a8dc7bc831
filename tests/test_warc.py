"""WARC export, verify and counting from a WARC (issue 6): the archive says what the store says.

The thread is the bundled kira-en example (phpBB 3.3 prosilver, fixtures/phpbb/kira-en), saved
into a store at its real URLs as tally's fetcher would have saved it; a second fetch of page 2
carries an edit, so the round trip has history to keep.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import json
import shutil
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner
from warcio.archiveiterator import ArchiveIterator
from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

from tally import warc
from tally.adapters import get
from tally.cli import app
from tally.fetch import Response
from tally.store import Store, StoredPage

ROOT = Path(__file__).resolve().parent.parent
KIRA = ROOT / "fixtures" / "phpbb" / "kira-en"
GAME = KIRA / "game.toml"
FOREIGN = ROOT / "fixtures" / "warc" / "kira-en-foreign.warc.gz"
THREAD = "https://forum.example.org/viewtopic.php?f=3&t=412"
T0 = datetime(2016, 1, 18, 3, 10, 0, 123456, tzinfo=UTC)  # microseconds: kept to the record
NOW = {"TALLY_NOW": "2016-01-18T03:30:00Z"}
HEADERS = {"Content-Type": "text/html; charset=UTF-8", "Date": "Mon, 18 Jan 2016 03:10:00 GMT",
           "Last-Modified": "Mon, 18 Jan 2016 03:02:00 GMT", "ETag": '"5e9c-1"',
           # Never exported: not among the headers a record carries (secrets, noise).
           "Set-Cookie": "phpbb3_sid=SECRET-SESSION; path=/", "Retry-After": "30"}
EDITED = (b'<div class="content">vote: Dan</div>', b'<div class="content">vote: Bob</div>')


def page_url(number: int) -> str:
    return f"{THREAD}&start={(number - 1) * 15}"


def page_bytes(number: int) -> bytes:
    return (KIRA / f"page-{number}.html").read_bytes()


def save(store: Store, number: int, body: bytes, at: datetime) -> int:
    response = Response(page_url(number), 200, HEADERS, body, at)
    return store.save(response, "t=412", number)


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    """Pages 1-4 fetched at T0, then page 2 again 20 minutes later with Grace's 5022 edited."""
    path = tmp_path / "game.sqlite"
    with Store(path) as store:
        for number in range(1, 5):
            save(store, number, page_bytes(number), T0 + timedelta(seconds=number))
        later = page_bytes(2).replace(*EDITED)
        assert later != page_bytes(2)
        save(store, 2, later, T0 + timedelta(minutes=20))
    return path


def run(*args: str):
    return CliRunner().invoke(app, list(args), env=NOW)


def export(store_path: Path, target: Path, *more: str) -> None:
    result = run("export", str(GAME), "--store", str(store_path), "--warc", str(target), *more)
    assert result.exit_code == 0, result.output


def one_line_error(result, code: int, text: str) -> None:
    assert result.exit_code == code, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and text in lines[0], result.stderr


def records(path: Path) -> list:
    with open(path, "rb") as handle:
        return [(r.rec_type, dict(r.rec_headers.headers), r.http_headers,
                 r.raw_stream.read()) for r in ArchiveIterator(handle)]


# ---------------------------------------------------------------------------------------------
# Export


@pytest.mark.parametrize("name", ["game.warc", "game.warc.gz"])
def test_export_one_response_per_version_with_fetch_time_kept_headers_and_exact_bytes(
        store_path: Path, tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    export(store_path, target)
    raw = target.read_bytes()
    assert raw.startswith(b"\x1f\x8b") == name.endswith(".gz")
    with Store(store_path) as store:
        versions = store.versions("t=412")
    found = records(target)
    kind, info, _, block = found[0]
    assert kind == "warcinfo" and info["WARC-Date"] == "2016-01-18T03:30:00.000000Z"
    assert b"software: tally " in block and b"title: Kira, game 3" in block
    assert b"forum: forum.example.org" in block and b"description: tally export" in block
    responses = found[1:]
    assert len(responses) == len(versions) == 5
    for version, (kind, head, http, payload) in zip(versions, responses):
        assert kind == "response" and head["WARC-Target-URI"] == version.url
        assert head["WARC-Date"] == version.fetched_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
        assert head["WARC-Record-ID"].startswith("<urn:uuid:")
        assert http.statusline == "200 OK" and http.protocol == "HTTP/1.1"
        assert [k for k, _ in http.headers] == ["Content-Type", "Date", "Last-Modified", "ETag"]
        assert payload == version.body
        algorithm, _, value = head["WARC-Payload-Digest"].partition(":")
        assert algorithm == "sha256" and base64.b32decode(value).hex() == version.sha256
    assert b"SECRET-SESSION" not in (gzip.decompress(raw) if name.endswith(".gz") else raw)
    assert b"Retry-After" not in (gzip.decompress(raw) if name.endswith(".gz") else raw)


def test_manifest_lists_every_record_with_the_store_hash(store_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "game.warc.gz"
    export(store_path, target)
    manifest = json.loads((tmp_path / "game.warc.gz.manifest.json").read_text(encoding="utf-8"))
    with Store(store_path) as store:
        versions = store.versions("t=412")
    ids = [head["WARC-Record-ID"] for _, head, _, _ in records(target)]
    assert manifest["sha256"] == hashlib.sha256(target.read_bytes()).hexdigest()
    assert [entry["id"] for entry in manifest["records"]] == ids
    pages = [entry for entry in manifest["records"] if entry["type"] == "response"]
    assert [(p["url"], p["page"], p["payload_sha256"]) for p in pages] == \
        [(v.url, v.page, v.sha256) for v in versions]
    assert pages[0]["fetched_at"] == "2016-01-18T03:10:01.123456Z"
    # Each offset starts a gzip member that decompresses on its own into its record.
    data = target.read_bytes()
    for entry in pages:
        member = gzip.GzipFile(fileobj=io.BytesIO(data[entry["offset"]:])).read(200)
        assert entry["id"].encode() in member


def test_third_party_tools_check_the_export(store_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "game.warc.gz"
    export(store_path, target)
    if shutil.which("sha256sum"):
        checked = subprocess.run(["sha256sum", "-c", "game.warc.gz.sha256"], cwd=tmp_path,
                                 capture_output=True, text=True)
        assert checked.returncode == 0 and checked.stdout == "game.warc.gz: OK\n"
    # warcio's own checker recomputes every block and payload digest.
    checked = subprocess.run([sys.executable, "-c", "import sys, warcio.cli; "
                              "sys.exit(warcio.cli.main(['check', '-v', sys.argv[1]]))",
                              str(target)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert checked.stdout.count("digest pass") == 6 and "fail" not in checked.stdout


def test_export_of_one_snapshot_has_exactly_its_versions(store_path: Path, tmp_path: Path) -> None:
    with Store(store_path) as store:
        first_fetch = [v.id for v in store.versions("t=412")][:4]
        snap = store.record_snapshot(thread_key="t=412", url=THREAD, command="count",
                                     game_text=GAME.read_text(encoding="utf-8"),
                                     version_ids=first_fetch, result={})
        wanted = [v.sha256 for v in store.pages(first_fetch)]
    target = tmp_path / "snap.warc"
    export(store_path, target, "--snapshot", str(snap))
    manifest = json.loads((tmp_path / "snap.warc.manifest.json").read_text(encoding="utf-8"))
    assert [e["payload_sha256"] for e in manifest["records"] if e["type"] == "response"] == wanted
    assert manifest["snapshot"] == str(snap)


def test_export_of_an_unknown_snapshot_or_an_empty_store_is_one_line(store_path: Path,
                                                                     tmp_path: Path) -> None:
    result = run("export", str(GAME), "--store", str(store_path), "--warc",
                 str(tmp_path / "x.warc"), "--snapshot", "99")
    one_line_error(result, 3, "no snapshot 99")
    result = run("export", str(GAME), "--store", str(tmp_path / "none.sqlite"), "--warc",
                 str(tmp_path / "x.warc"))
    one_line_error(result, 3, "none.sqlite: no such file")
    assert not (tmp_path / "none.sqlite").exists() and not (tmp_path / "x.warc").exists()


def test_interrupted_export_leaves_the_earlier_files_whole(store_path: Path, tmp_path: Path,
                                                          monkeypatch) -> None:
    target = tmp_path / "game.warc.gz"
    export(store_path, target)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("game.warc")}
    calls = []
    real = warc._write_response

    def dies_on_the_third(*args, **kwargs):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(warc, "_write_response", dies_on_the_third)
    with Store(store_path) as store:
        versions = store.versions("t=412")
    with pytest.raises(KeyboardInterrupt):
        warc.export(versions, target, info={})
    after = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name != "game.sqlite"
             and not p.name.startswith("game.sqlite")}
    assert after == before  # no temporary file left, the earlier export untouched


def test_a_damaged_store_blob_is_never_exported(store_path: Path, tmp_path: Path) -> None:
    import sqlite3

    with sqlite3.connect(store_path) as db:
        db.execute("UPDATE blobs SET body = CAST('<html>forged</html>' AS BLOB) WHERE sha256 = "
                   "(SELECT sha256 FROM versions WHERE page = 3)")
    result = run("export", str(GAME), "--store", str(store_path), "--warc",
                 str(tmp_path / "game.warc"))
    one_line_error(result, 3, "is damaged: sha256 ")
    assert [p.name for p in tmp_path.iterdir() if "warc" in p.name] == []


# ---------------------------------------------------------------------------------------------
# Verify


@pytest.fixture
def exported(store_path: Path, tmp_path: Path) -> Path:
    target = tmp_path / "game.warc"
    export(store_path, target)
    return target


def manifest_of(path: Path) -> dict:
    return json.loads((path.parent / (path.name + ".manifest.json")).read_text(encoding="utf-8"))


def test_verify_intact(exported: Path) -> None:
    result = run("verify", str(exported))
    assert result.exit_code == 0, result.output
    digest = hashlib.sha256(exported.read_bytes()).hexdigest()
    assert result.stdout == f"{exported}: intact: sha256 {digest}, 6 records (5 page versions) " \
                            "as the manifest lists them\n"


def test_verify_names_the_record_whose_payload_changed(exported: Path) -> None:
    entry = manifest_of(exported)["records"][3]  # record 4: page 3
    data = exported.read_bytes()
    body = page_bytes(3)
    start = data.index(body, entry["offset"])
    inner = body.index(b"vote: ")
    forged_body = body[:inner] + b"VOTE: " + body[inner + 6:]  # same length: only hashes tell
    forged = data[:start] + forged_body + data[start + len(body):]
    exported.write_bytes(forged)
    result = run("verify", str(exported))
    assert result.exit_code == 3
    assert result.stdout.splitlines() == [
        f"{exported}: file changed: sha256 {manifest_of(exported)['sha256']} in game.warc.sha256, "
        f"{hashlib.sha256(forged).hexdigest()} found",
        f"{exported}: record 4 ({entry['url']}) payload changed: sha256 "
        f"{entry['payload_sha256']} recorded, {hashlib.sha256(forged_body).hexdigest()} found",
    ]


def test_verify_finds_a_record_added_and_one_missing(exported: Path) -> None:
    entries = manifest_of(exported)["records"]
    data = exported.read_bytes()
    cut = data[:entries[2]["offset"]] + data[entries[3]["offset"]:]  # record 3 removed
    extra = io.BytesIO()
    writer = WARCWriter(extra, gzip=False, warc_version="1.1")
    http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(
        page_url(5), "response", payload=io.BytesIO(b"<html>late</html>"), length=17,
        http_headers=http, warc_headers_dict={"WARC-Date": "2016-01-18T04:00:00Z"}))
    exported.write_bytes(cut + extra.getvalue())
    result = run("verify", str(exported))
    assert result.exit_code == 3
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{exported}: file changed: sha256 ")
    assert f"{exported}: record 6 ({page_url(5)}) added: not in the manifest" in lines
    assert f"{exported}: record 3 ({entries[2]['url']}) missing: listed in the manifest, not " \
           "in the file" in lines


def test_verify_without_manifest_is_one_line(tmp_path: Path) -> None:
    lone = tmp_path / "lone.warc.gz"
    shutil.copy(FOREIGN, lone)
    one_line_error(run("verify", str(lone)), 3, "no manifest lone.warc.gz.manifest.json beside it")


def test_verify_a_truncated_export(exported: Path) -> None:
    data = exported.read_bytes()
    exported.write_bytes(data[:-500])
    result = run("verify", str(exported))
    assert result.exit_code == 3
    assert f"{exported}: truncated: the file ends inside record 6 ({page_url(2)})" in \
        result.stdout.splitlines()


# ---------------------------------------------------------------------------------------------
# Counting from a WARC: the same result as the store


@pytest.mark.parametrize("name", ["game.warc", "game.warc.gz"])
def test_count_from_warc_equals_count_offline_byte_for_byte(store_path: Path, tmp_path: Path,
                                                            name: str) -> None:
    target = tmp_path / name
    export(store_path, target)
    offline = run("count", str(GAME), "--store", str(store_path), "--offline", "-f", "json")
    archived = run("count", str(GAME), "--from-warc", str(target), "-f", "json")
    assert offline.exit_code == archived.exit_code == 0, offline.output + archived.output
    assert archived.stdout == offline.stdout
    assert json.loads(archived.stdout)["counts"]  # a real count, not two empty ones
    for fmt in ("bbcode", "text"):
        assert run("count", str(GAME), "--from-warc", str(target), "-f", fmt).stdout == \
            run("count", str(GAME), "--store", str(store_path), "--offline", "-f", fmt).stdout


def test_the_edit_between_fetches_survives_the_round_trip(store_path: Path, tmp_path: Path) -> None:
    target = tmp_path / "game.warc.gz"
    export(store_path, target)
    thread = warc.read_thread(target, THREAD, engine=None, zone="UTC")
    assert thread.engine == "phpbb" and len(thread.posts) == 60
    latest = next(post for post in thread.posts if post.id == "5022")
    assert latest.body.own == "vote: Bob" and latest.fetched_at == T0 + timedelta(minutes=20)
    assert [p.body.own for p in thread.history["5022"]] == ["vote: Dan"]


def test_count_from_a_foreign_warc() -> None:
    """wget/Heritrix conventions: gzip members, WARC/1.0, request, metadata, chunked + gzip
    HTTP bodies, a stylesheet, a 404 and a revisit: the count is that of the saved pages."""
    archived = run("count", str(GAME), "--from-warc", str(FOREIGN), "-f", "json")
    saved = run("count", str(GAME), "--from", str(KIRA), "--fetched-at", "2016-01-18 03:10",
                "-f", "json")
    assert archived.exit_code == saved.exit_code == 0, archived.output + saved.output
    got, want = json.loads(archived.stdout), json.loads(saved.stdout)
    for key in ("counts", "outcome", "verdicts", "not_voting"):
        assert got[key] == want[key]
    thread = warc.read_thread(FOREIGN, THREAD, engine=get("phpbb"), zone="UTC")
    notes = [note for note in thread.notes if note.startswith("WARC record")]
    assert notes == [f"WARC record 17 ({THREAD}&start=60, 2016-01-18 03:10 UTC) skipped: HTTP 404"]
    # The revisit is page 4 seen again at 03:40: the newest fetch of the thread.
    assert thread.fetched_at == datetime(2016, 1, 18, 3, 40, tzinfo=UTC)


def test_a_revisit_without_its_original_is_skipped_with_a_note(tmp_path: Path) -> None:
    out = io.BytesIO()
    writer = WARCWriter(out, gzip=True, warc_version="1.0")
    http = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
    writer.write_record(writer.create_warc_record(
        page_url(1), "response", payload=io.BytesIO(page_bytes(1)), length=len(page_bytes(1)),
        http_headers=http, warc_headers_dict={"WARC-Date": "2016-01-18T03:10:00Z"}))
    writer.write_record(writer.create_revisit_record(
        page_url(2), "sha1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", page_url(2), "2016-01-17T00:00:00Z",
        http_headers=http, warc_headers_dict={"WARC-Date": "2016-01-18T03:11:00Z"}))
    path = tmp_path / "partial.warc.gz"
    path.write_bytes(out.getvalue())
    thread = warc.read_thread(path, THREAD, engine=None, zone="UTC")
    assert len(thread.posts) == 15
    assert f"WARC record 2 ({page_url(2)}, 2016-01-18 03:11 UTC) skipped: a revisit whose " \
           "original record is not in the file" in thread.notes


# ---------------------------------------------------------------------------------------------
# Errors: one line, exit 3


def test_not_a_warc() -> None:
    result = run("count", str(GAME), "--from-warc", str(KIRA / "page-1.html"))
    one_line_error(result, 3, f"{KIRA / 'page-1.html'}: not a WARC file")


def foreign_record_8() -> tuple[int, str, bytes]:
    """Where record 8 (the response of page 3) starts in the foreign WARC, its URL, its bytes."""
    with open(FOREIGN, "rb") as handle:
        archive = ArchiveIterator(handle)
        for number, record in enumerate(archive, start=1):
            if number == 8:
                whole = record.rec_headers.to_bytes() + record.http_headers.to_bytes() + \
                    record.raw_stream.read()
                return archive.get_record_offset(), \
                    record.rec_headers.get_header("WARC-Target-URI"), whole
    raise AssertionError("the fixture has no record 8")


def test_a_gzip_member_cut_in_its_headers_names_its_record(tmp_path: Path) -> None:
    start, url, _ = foreign_record_8()
    cut = tmp_path / "cut.warc.gz"
    cut.write_bytes(FOREIGN.read_bytes()[:start + 100])  # a cut download: inside the member
    result = run("count", str(GAME), "--from-warc", str(cut))
    one_line_error(result, 3, f"{cut}: truncated: the file ends inside record 8 (byte {start} ")


def test_a_record_cut_short_of_its_length_names_its_record(tmp_path: Path) -> None:
    start, url, whole = foreign_record_8()
    cut = tmp_path / "cut.warc.gz"
    # Record 8 recompressed alone and cut 2,000 bytes into its block, as a broken writer leaves.
    cut.write_bytes(FOREIGN.read_bytes()[:start] + gzip.compress(whole[:2000]))
    result = run("count", str(GAME), "--from-warc", str(cut))
    one_line_error(result, 3, f"{cut}: truncated: the file ends inside record 8 ({url})")


def test_no_page_of_the_thread_in_the_file(tmp_path: Path) -> None:
    other = tmp_path / "other.toml"
    other.write_text(GAME.read_text(encoding="utf-8").replace("t=412", "t=999"), encoding="utf-8")
    result = run("count", str(other), "--from-warc", str(FOREIGN))
    one_line_error(result, 3, f"{FOREIGN}: no page of https://forum.example.org/viewtopic.php?"
                              "f=3&t=999 in this WARC file")


def test_from_warc_with_offline_is_refused() -> None:
    result = run("count", str(GAME), "--from-warc", str(FOREIGN), "--offline")
    one_line_error(result, 3, "--from-warc reads the pages from the WARC file")


def test_without_url_or_engine_the_first_thread_page_decides() -> None:
    thread = warc.read_thread(FOREIGN, None, engine=None, zone="UTC")
    assert (thread.engine, thread.url, len(thread.posts)) == ("phpbb", page_url(1), 60)


def test_a_file_gzipped_as_one_stream_or_empty_is_one_line(tmp_path: Path) -> None:
    whole = tmp_path / "whole.warc.gz"
    whole.write_bytes(gzip.compress(gzip.decompress(FOREIGN.read_bytes())))
    one_line_error(run("count", str(GAME), "--from-warc", str(whole)), 3,
                   f"{whole}: one gzip stream for the whole file, not one per record")
    empty = tmp_path / "empty.warc"
    empty.write_bytes(b"")
    one_line_error(run("count", str(GAME), "--from-warc", str(empty)), 3,
                   f"{empty}: not a WARC file (empty)")


def test_page_numbers_come_from_the_pages_when_addresses_would_collide() -> None:
    """A page size stated too large makes start=0 and start=15 both "page 1"; the pages know."""
    versions = [StoredPage(id=n, url=page_url(n), thread_key="t=412", page=0,
                                fetched_at=T0, status=200, headers={}, body=page_bytes(n),
                                sha256="") for n in (1, 2)]
    warc._number_pages(versions, get("phpbb"), "UTC", None, 30, ())
    assert [v.page for v in versions] == [1, 2]


# ---------------------------------------------------------------------------------------------
# Issue 16 and 17: a WARC that lacks a page of the thread, and one changed after it was written


def test_a_warc_without_a_page_the_thread_has_is_no_count(tmp_path: Path) -> None:
    path = tmp_path / "holed.sqlite"
    with Store(path) as store:
        for number in (1, 3, 4):  # page 4 says "Page 4 of 4": page 2 is missing
            save(store, number, page_bytes(number), T0 + timedelta(seconds=number))
    target = tmp_path / "holed.warc.gz"
    export(path, target)
    one_line_error(run("count", str(GAME), "--from-warc", str(target)), 3, "page 2 of 4 missing")


@pytest.mark.parametrize("fmt", ["plain", "foreign"])
def test_a_warc_record_changed_by_one_byte_is_refused_naming_it(
        store_path: Path, tmp_path: Path, fmt: str) -> None:
    """One byte of a page changed after archiving ("Bob" -> "Aob" would fuzzy-match Bob): the
    record's digest no longer matches, and the count stops, naming the record (exit 3)."""
    if fmt == "plain":
        source = tmp_path / "game.warc"
        export(store_path, source)
        data = source.read_bytes()
    else:  # wget/Heritrix: SHA-1 digests of the chunked, gzipped body; decompressed per member
        import gzip

        data = gzip.decompress(FOREIGN.read_bytes())
        source = FOREIGN
    intact = run("count", str(GAME), "--from-warc", str(source))
    assert intact.exit_code == 0, intact.output
    if fmt == "plain":
        at = data.index(b"vote: Bob")
        changed = data[:at] + b"vote: Aob" + data[at + len(b"vote: Bob"):]
    else:  # a byte inside the first page's gzipped, chunked body (after its HTTP headers)
        at = data.index(b"\r\n\r\n", data.index(b"WARC-Type: response")) + 4
        at = data.index(b"\r\n\r\n", at) + 4 + 64
        changed = data[:at] + bytes([data[at] ^ 1]) + data[at + 1:]
    target = tmp_path / "changed.warc"
    target.write_bytes(changed)
    result = run("count", str(GAME), "--from-warc", str(target))
    one_line_error(result, 3, "does not match its digest: the archive was altered")
    assert "viewtopic.php?f=3&t=412" in result.stderr
