"""Snapshots as a standard web archive (issue 6): WARC export, its manifest, counting from a WARC.

    Store versions ─► export ─► FILE (WARC/1.1, warcio) + FILE.sha256 + FILE.manifest.json
    FILE ─► verify (against the manifest)          FILE ─► read_thread ─► Thread

Export writes one `response` record per stored page version: WARC-Date is the fetch time, the
HTTP block holds only the headers the store keeps (never a cookie), the payload is the stored
bytes exactly, and the manifest names each record with the SHA-256 of its payload (equal to the
store's). `sha256sum -c FILE.sha256` checks the whole file with standard tools; `tally verify`
checks each record. Reading accepts other tools' archives too: gzip per record or not, request,
metadata and warcinfo records skipped, revisit records resolved to their original.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import io
import json
import os
import tempfile
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from http import HTTPStatus
from pathlib import Path
from typing import IO, Any

from warcio.archiveiterator import ArchiveIterator
from warcio.exceptions import ArchiveLoadFailed
from warcio.statusandheaders import StatusAndHeaders
from warcio.utils import Digester
from warcio.warcwriter import WARCWriter

from tally import __version__, adapters, crawl, times
from tally.adapters.base import Engine, PageContext
from tally.errors import InputError, TallyError
from tally.model import Thread, msg
from tally.store import StoredPage

# The HTTP headers an exported record carries: what the store keeps that says what the page was
# (tally.fetch.KEPT_HEADERS minus Retry-After). A header outside this list never reaches a WARC.
HTTP_HEADERS = ("Content-Type", "Date", "Last-Modified", "ETag")
MANIFEST_FORMAT = "tally-warc-manifest/1"
FORMAT_NOTE = ("tally export: one response record per stored page version; WARC-Date is the "
               "fetch time, the payload the bytes exactly as fetched, the HTTP block only the "
               "headers tally keeps (Content-Type, Date, Last-Modified, ETag). {name}.sha256 "
               "checks the file (sha256sum -c), {name}.manifest.json each record (tally verify).")
_SKIPPED_TYPES = ("warcinfo", "request", "metadata", "resource", "conversion", "continuation")


def manifest_path(path: Path) -> Path:
    return path.with_name(path.name + ".manifest.json")


def checksum_path(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


# ---------------------------------------------------------------------------------------------
# Export


@dataclass(frozen=True)
class ManifestRecord:
    """One record of an exported WARC, as the manifest lists it."""

    record: int  # 1-based position in the file
    type: str  # warcinfo | response
    id: str  # WARC-Record-ID
    offset: int  # byte offset of the record (of its gzip member) in the file
    url: str | None = None
    fetched_at: str | None = None  # the WARC-Date written
    page: int | None = None
    status: int | None = None
    payload_sha256: str | None = None  # hex; equal to the store's sha256 of the version


@dataclass(frozen=True)
class Exported:
    path: Path
    sha256: str
    size: int
    records: tuple[ManifestRecord, ...]

    @property
    def responses(self) -> int:
        return sum(1 for record in self.records if record.type == "response")


class _Sha256Writer(WARCWriter):
    """warcio's writer with SHA-256 digests (WARC/1.1 labels them 'sha256:' + base32)."""

    @staticmethod
    def _create_digester() -> Digester:
        return Digester("sha256")


class _Counting:
    """The output file, hashed and measured as it is written (no second read of a large file)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.digest = hashlib.sha256()
        self.size = 0

    def write(self, data: bytes) -> int:
        self.digest.update(data)
        self.size += len(data)
        return self.out.write(data)

    def flush(self) -> None:
        self.out.flush()


def export(versions: Sequence[StoredPage], path: Path, *, info: Mapping[str, str]) -> Exported:
    """Write `versions` (oldest fetch first) to the WARC file `path`, gzip per record when it
    ends in .gz, with FILE.sha256 and FILE.manifest.json beside it.

    All three are written to temporary files and renamed into place only when complete: an
    interrupted export leaves the earlier files (or none) behind, never half of one.
    """
    path = Path(path)
    ordered = sorted(versions, key=lambda version: (version.fetched_at, version.id))
    exported_at = times.now()
    with _Replacing(path) as out:
        counting = _Counting(out)
        writer = _Sha256Writer(counting, gzip=path.name.endswith(".gz"), warc_version="1.1")
        records = [_write_warcinfo(writer, counting, path.name, info, exported_at)]
        for version in ordered:
            records.append(_write_response(writer, counting, version, len(records) + 1))
    done = Exported(path, counting.digest.hexdigest(), counting.size, tuple(records))
    manifest = _manifest(done, info, exported_at)
    with _Replacing(manifest_path(path)) as out:
        out.write(manifest.encode("utf-8"))
    with _Replacing(checksum_path(path)) as out:
        # The format sha256sum -c reads: hash, two spaces, the file name (beside it).
        out.write(f"{done.sha256}  {path.name}\n".encode())
    return done


def _write_warcinfo(writer: WARCWriter, out: _Counting, name: str, info: Mapping[str, str],
                    at: datetime) -> ManifestRecord:
    fields = {"software": f"tally {__version__}", "format": "WARC File Format 1.1",
              **info, "exported-at": warc_date(at), "description": FORMAT_NOTE.format(name=name)}
    block = "".join(f"{key}: {value}\r\n" for key, value in fields.items() if value)
    data = block.encode("utf-8")
    # WARC-Date given here, so warcio never reads the clock itself (tally.times owns "now").
    record = writer.create_warc_record("", "warcinfo", payload=io.BytesIO(data), length=len(data),
                                       warc_content_type="application/warc-fields",
                                       warc_headers_dict={"WARC-Date": warc_date(at),
                                                          "WARC-Filename": name})
    offset = out.size
    writer.write_record(record)
    return ManifestRecord(1, "warcinfo", record.rec_headers.get_header("WARC-Record-ID"), offset)


def _write_response(writer: WARCWriter, out: _Counting, version: StoredPage,
                    number: int) -> ManifestRecord:
    kept = [(name, version.headers[name]) for name in HTTP_HEADERS if name in version.headers]
    http = StatusAndHeaders(f"{version.status} {_reason(version.status)}", kept,
                            protocol="HTTP/1.1")
    date = warc_date(version.fetched_at)
    record = writer.create_warc_record(version.url, "response", payload=io.BytesIO(version.body),
                                       length=len(version.body), http_headers=http,
                                       warc_headers_dict={"WARC-Date": date})
    found = _hex(record.rec_headers.get_header("WARC-Payload-Digest"))
    if found != version.sha256:  # the bytes are not those the store hashed at fetch time
        raise InputError(f"snapshot store: page version {version.id} ({version.url}) is damaged: "
                         f"sha256 {version.sha256} recorded, {found} found; nothing exported")
    offset = out.size
    writer.write_record(record)
    return ManifestRecord(number, "response", record.rec_headers.get_header("WARC-Record-ID"),
                          offset, version.url, date, version.page, version.status, found)


def _manifest(done: Exported, info: Mapping[str, str], at: datetime) -> str:
    body: dict[str, Any] = {
        "format": MANIFEST_FORMAT, "warc": done.path.name, "sha256": done.sha256,
        "size": done.size, "software": f"tally {__version__}", "exported_at": warc_date(at),
        **{key: value for key, value in info.items() if value},
        "records": [{key: value for key, value in vars(record).items() if value is not None}
                    for record in done.records],
    }
    return json.dumps(body, ensure_ascii=False, indent=1) + "\n"


class _Replacing:
    """A file written beside its target and renamed over it on success, removed on failure."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.temp: Path | None = None
        self.file: IO[bytes] | None = None

    def __enter__(self) -> IO[bytes]:
        try:
            handle, name = tempfile.mkstemp(dir=self.path.parent, prefix=f".{self.path.name}.",
                                            suffix=".part")
        except OSError as exc:
            raise InputError(f"{self.path}: cannot write: {exc.strerror or exc}") from None
        self.temp = Path(name)
        self.file = os.fdopen(handle, "wb")
        return self.file

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        assert self.file is not None and self.temp is not None
        try:
            if kind is None:
                self.file.flush()
                os.fsync(self.file.fileno())
            self.file.close()
            if kind is None:
                os.replace(self.temp, self.path)
        except OSError as exc:
            raise InputError(f"{self.path}: cannot write: {exc.strerror or exc}") from None
        finally:
            self.temp.unlink(missing_ok=True)


def warc_date(moment: datetime) -> str:
    """WARC/1.1 dates carry fractions of a second: the fetch time is kept to the microsecond."""
    return moment.astimezone(times.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _reason(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Unknown"


def _hex(digest: str | None) -> str | None:
    """'sha256:BASE32' (warcio, WARC/1.1) or 'sha256:hex' as lowercase hex; None otherwise."""
    if not digest:
        return None
    algorithm, _, value = digest.partition(":")
    if algorithm.lower() != "sha256":
        return None
    if len(value) == 64:
        return value.lower()
    try:
        return base64.b32decode(value.upper()).hex()
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# Reading any WARC, record by record


@dataclass(frozen=True)
class _Record:
    number: int  # 1-based position in the file
    type: str
    id: str | None
    url: str | None
    date: str | None
    status: int | None  # the HTTP status of a response or revisit record
    headers: Mapping[str, str]
    payload: bytes  # response: decoded content (read) or the raw payload (verify)
    digest: str | None  # WARC-Payload-Digest as written
    refers_to: tuple[str | None, str | None, str | None] = (None, None, None)  # id, URI, date


class _Complaints(io.StringIO):
    """warcio reports a gzip member that breaks off mid-way ("Error -3 while decompressing
    data: incorrect data check") on stderr and reads on as if the file ended there: the user
    saw that line twice, then "truncated" for a file of full length. Here it is the error it
    is (damaged gzip data)."""

    def write(self, text: str) -> int:
        if text.strip():
            raise zlib.error(text.strip())
        return len(text)


def _records(path: Path, *, raw: bool = False) -> Iterator[_Record]:
    """Every record of the file, with one clean error for a file that is not a WARC, is cut
    short, or was gzipped as one stream instead of one member per record."""
    try:
        handle = open(path, "rb")  # noqa: SIM115 - closed in finally, the iterator is lazy
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    number = reading = 0
    try:
        size = os.fstat(handle.fileno()).st_size
        if size == 0:
            raise InputError(f"{path}: not a WARC file (empty)")
        # Reading for a count, every record's digests are checked (issue 17): a page changed
        # after it was archived is never counted. verify() compares with the manifest instead.
        archive = ArchiveIterator(handle, check_digests=not raw)
        records = iter(archive)
        while True:
            reading = number + 1  # the record an error is in: the next one, until it is read
            with contextlib.redirect_stderr(_Complaints()):
                record = next(records, None)
            if record is None:
                break
            number = reading
            if record.rec_type is None or not hasattr(record.raw_stream, "limit"):
                # A gzip member cut inside the record's own headers: nothing of it is readable.
                raise InputError(f"{path}: truncated: the file ends inside record {number} "
                                 f"(byte {archive.get_record_offset()} of {size})")
            http = record.http_headers
            stream = record.raw_stream if raw or record.rec_type != "response" \
                else record.content_stream()
            with contextlib.redirect_stderr(_Complaints()):
                payload = stream.read()
            if record.raw_stream.limit:  # warcio ends quietly: Content-Length says more was due
                raise InputError(f"{path}: truncated: the file ends inside record {number} "
                                 f"({_target(record)})")
            if not raw:
                with contextlib.redirect_stderr(_Complaints()):
                    record.raw_stream.read()  # to the end: the digests are checked there
                if record.digest_checker.passed is False:
                    raise InputError(f"{path}: record {number} ({_target(record)}) does not "
                                     "match its digest: the archive was altered")
            get = record.rec_headers.get_header
            yield _Record(
                number, record.rec_type, get("WARC-Record-ID"), get("WARC-Target-URI"),
                get("WARC-Date"),
                _status(http.get_statuscode()) if http is not None and record.rec_type in
                ("response", "revisit") else None,
                {name: value for name, value in http.headers} if http is not None else {},
                payload, get("WARC-Payload-Digest"),
                (get("WARC-Refers-To"), get("WARC-Refers-To-Target-URI"),
                 get("WARC-Refers-To-Date")))
        if archive.offset < size:  # a gzip member cut inside its record headers
            raise InputError(f"{path}: truncated: the file ends inside record {number + 1} "
                             f"(byte {archive.offset} of {size})")
    except ArchiveLoadFailed as exc:
        detail = " ".join(str(exc).split())
        if not detail.isprintable():  # the bytes found where a record should start: noise
            detail = "damaged data where a record should start"
        if "non-chunked gzip" in detail:
            raise InputError(f"{path}: one gzip stream for the whole file, not one per record: "
                             "`warcio recompress` fixes it") from None
        if number == 0:
            raise InputError(f"{path}: not a WARC file ({detail[:80]})") from None
        raise InputError(f"{path}: record {reading} cannot be read: {detail[:80]}") from None
    except zlib.error as exc:
        raise InputError(f"{path}: record {reading}: damaged gzip data ({exc})") from None
    except (OSError, EOFError, ValueError) as exc:
        raise InputError(f"{path}: record {reading} cannot be read: {exc}") from None
    finally:
        handle.close()


def _target(record: Any) -> str:
    return record.rec_headers.get_header("WARC-Target-URI") or record.rec_type


def _status(code: str | None) -> int | None:
    try:
        return int(code) if code else None
    except ValueError:
        return None


# ---------------------------------------------------------------------------------------------
# Counting from a WARC


@dataclass
class _Sightings:
    """The response records of the thread as page versions, plus what was skipped and why."""

    versions: list[StoredPage] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_thread(path: Path, url: str | None, *, engine: Engine | None, zone: str,
                language: str | None = None, per_page: int | None = None,
                floor_names: tuple[str, ...] = ()) -> Thread:
    """The thread from the WARC file's page records, exactly as `--offline` builds it from the
    same versions in a store (each record's WARC-Date is its fetch time).

    `url` None: the thread of the first thread page in the file. `engine` None: detected from
    `url`, else sniffed from the first page.
    """
    path = Path(path)
    pages = _pages(path)
    engine = engine or _detect(path, url, pages)
    key = _key_of(engine, url) if url else _first_key(engine, pages)
    found = _of_thread(engine, key, pages)
    if not found.versions:
        where = url or "a thread"
        raise InputError(f"{path}: no page of {where} in this WARC file "
                         f"({len(pages)} page record{'s' if len(pages) != 1 else ''} of other "
                         "addresses)")
    _number_pages(found.versions, engine, zone, language, per_page, floor_names)
    thread_url = url or min(found.versions, key=lambda v: (v.page, v.fetched_at)).url
    try:
        read = crawl.thread_from_versions(found.versions, thread_url, engine, zone=zone,
                                          language=language, per_page=per_page,
                                          floor_names=floor_names)
    except TallyError as exc:
        raise type(exc)(f"{path}: {exc}") from None
    thread = read.thread
    if found.notes:
        thread = replace(thread, notes=thread.notes + tuple(found.notes))
    return thread


@dataclass(frozen=True)
class _Page:
    """A page record: a response, or a revisit resolved to its original's bytes."""

    record: int
    url: str
    fetched_at: datetime
    status: int
    headers: Mapping[str, str]
    body: bytes
    unusable: str = ""  # why this record cannot be read as a page, when it cannot


def _pages(path: Path) -> list[_Page]:
    """The HTML responses of the file, revisits resolved (identical payload: the original's
    bytes, seen again at the revisit's date); other record types are not pages."""
    responses: list[_Record] = []
    revisits: list[_Record] = []
    for record in _records(path):
        if record.type == "response" and record.url and _is_html(record.headers):
            responses.append(record)
        elif record.type == "revisit" and record.url:
            revisits.append(record)
    by_id = {r.id: r for r in responses if r.id}
    by_digest = {r.digest: r for r in responses if r.digest}
    by_capture = {(r.url, r.date): r for r in responses}
    pages = [_Page(r.number, r.url or "", _date(path, r), r.status or 0, r.headers, r.payload)
             for r in responses]
    for revisit in revisits:
        refers_id, refers_url, refers_date = revisit.refers_to
        original = by_id.get(refers_id or "") or by_digest.get(revisit.digest or "") or \
            by_capture.get((refers_url, refers_date))
        if original is None:
            pages.append(_Page(revisit.number, revisit.url or "", _date(path, revisit), 0,
                               revisit.headers, b"", "a revisit whose original record is not "
                               "in the file"))
            continue
        # 304 (server-not-modified profile): the original was still what the server had.
        status = original.status if revisit.status in (None, 200, 304) else revisit.status
        pages.append(_Page(revisit.number, revisit.url or "", _date(path, revisit), status or 0,
                           original.headers, original.payload))
    return sorted(pages, key=lambda page: page.record)


def _is_html(headers: Mapping[str, str]) -> bool:
    kind = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    return not kind or "html" in kind.lower() or "xml" in kind.lower()


def _date(path: Path, record: _Record) -> datetime:
    if not record.date:
        raise InputError(f"{path}: record {record.number} ({record.url}) has no WARC-Date")
    try:
        return times.parse_iso(record.date)
    except InputError:
        raise InputError(f"{path}: record {record.number} ({record.url}): WARC-Date "
                         f"{record.date!r} is not an ISO 8601 time") from None


def _detect(path: Path, url: str | None, pages: Sequence[_Page]) -> Engine:
    if url:
        try:
            return adapters.for_url(url)
        except InputError:
            pass  # a board on its own domain: the pages say which engine they are
    for page in pages:
        if page.status == 200:
            found = adapters.sniff(page.body)
            if found is not None:
                return found
            break  # "the first page": a foreign first page is not guessed past
    known = ", ".join(adapters.engines())
    raise InputError(f"{path}: no thread page of a known forum engine ({known}) in this WARC "
                     "file; set thread.engine in the game file")


def _key_of(engine: Engine, url: str) -> str | None:
    try:
        return engine.thread_key(engine.normalise_url(url))
    except (ValueError, KeyError, TallyError):
        return None  # not an address of this engine: not a page of the thread


def _first_key(engine: Engine, pages: Sequence[_Page]) -> str | None:
    return next((_key_of(engine, page.url) for page in pages if engine.accepts(page.url)), None)


def _of_thread(engine: Engine, key: str | None, pages: Sequence[_Page]) -> _Sightings:
    found = _Sightings()
    if key is None:
        return found
    for page in pages:
        if _key_of(engine, page.url) != key:
            continue
        when = f"{page.fetched_at:%Y-%m-%d %H:%M} UTC"
        why = page.unusable or ("" if page.status == 200 else f"HTTP {page.status}")
        if why:  # kept on the thread's notes, as crawl keeps its unreadable stored pages
            found.notes.append(msg("WARC record {record} ({url}, {when}) skipped: {why}",
                                   record=page.record, url=page.url, when=when, why=why))
        else:
            found.versions.append(StoredPage(
                id=page.record, url=page.url, thread_key=key, page=0,
                fetched_at=page.fetched_at, status=page.status, headers=page.headers,
                body=page.body, sha256=hashlib.sha256(page.body).hexdigest()))
    return found


def _number_pages(versions: list[StoredPage], engine: Engine, zone: str, language: str | None,
                  per_page: int | None, floor_names: tuple[str, ...]) -> None:
    """Give each version its page number, as the store has it (the number the page states).

    The address says it without parsing when every address gives a different number; when two
    do (a guessed page size, a clamped page), the first version of each address is parsed.
    """
    urls = list(dict.fromkeys(v.url for v in versions))
    numbers = {u: engine.page_number(engine.normalise_url(u), per_page) for u in urls}
    if len(set(numbers.values())) < len(urls):
        for address in urls:
            first = next(v for v in versions if v.url == address)
            ctx = PageContext(first.url, first.fetched_at, zone, language, per_page, floor_names)
            try:
                numbers[address] = engine.read_page(first.body, ctx).number
            except TallyError:
                pass  # unreadable: the assembly says so with the address's own number
    versions[:] = [_with_page(v, numbers[v.url]) for v in versions]


def _with_page(version: StoredPage, page: int) -> StoredPage:
    return replace(version, page=page)


# ---------------------------------------------------------------------------------------------
# Verify: the file against its manifest


def verify(path: Path) -> tuple[list[str], str]:
    """The problems found (one line each, empty when intact) and a summary of what was checked."""
    path = Path(path)
    manifest = _load_manifest(path)
    problems: list[str] = []
    actual = _file_sha256(path)
    listed = _checksum_file(path, problems)
    if listed is not None and listed != actual:
        problems.append(f"{path}: file changed: sha256 {listed} in {checksum_path(path).name}, "
                        f"{actual} found")
    if manifest.get("sha256") != actual and listed != manifest.get("sha256"):
        problems.append(f"{path}: file changed: sha256 {manifest.get('sha256')} in the manifest, "
                        f"{actual} found")
    expected = {entry["id"]: entry for entry in manifest.get("records", [])}
    seen: set[str] = set()
    count = 0
    try:
        for record in _records(path, raw=True):
            count += 1
            problems += _check_record(path, record, expected, seen)
    except InputError as exc:
        problems.append(str(exc))
    for record_id, entry in expected.items():
        if record_id not in seen:
            problems.append(f"{path}: record {entry['record']} ({_name(entry)}) missing: "
                            f"listed in the manifest, not in the file")
    pages = sum(1 for entry in expected.values() if entry.get("type") == "response")
    return problems, f"{path}: intact: sha256 {actual}, {count} records ({pages} page versions) " \
                     "as the manifest lists them"


def _check_record(path: Path, record: _Record, expected: Mapping[str, Mapping[str, Any]],
                  seen: set[str]) -> list[str]:
    entry = expected.get(record.id or "")
    where = f"{path}: record {record.number} ({record.url or record.type})"
    if entry is None or record.id in seen:
        return [f"{where} added: not in the manifest"]
    seen.add(entry["id"])
    problems = []
    if entry["record"] != record.number:
        problems.append(f"{where} moved: record {entry['record']} in the manifest")
    if entry.get("url") != record.url and entry.get("type") != "warcinfo":
        problems.append(f"{where} address changed: {entry.get('url')} recorded")
    if entry.get("fetched_at") and entry["fetched_at"] != record.date:
        problems.append(f"{where} fetch time changed: {entry['fetched_at']} recorded, "
                        f"{record.date} found")
    if entry.get("payload_sha256"):
        found = hashlib.sha256(record.payload).hexdigest()
        if found != entry["payload_sha256"]:
            problems.append(f"{where} payload changed: sha256 {entry['payload_sha256']} "
                            f"recorded, {found} found")
    return problems


def _name(entry: Mapping[str, Any]) -> str:
    return str(entry.get("url") or entry.get("type"))


def _load_manifest(path: Path) -> dict[str, Any]:
    where = manifest_path(path)
    try:
        loaded = json.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{path}: no manifest {where.name} beside it (`tally export` writes "
                         "one)") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{where}: not a tally manifest: {exc}") from None
    if not isinstance(loaded, dict) or loaded.get("format") != MANIFEST_FORMAT:
        raise InputError(f"{where}: not a tally manifest (format {MANIFEST_FORMAT} expected)")
    return loaded


def _checksum_file(path: Path, problems: list[str]) -> str | None:
    where = checksum_path(path)
    try:
        line = where.read_text(encoding="utf-8").strip()
    except OSError:
        problems.append(f"{path}: no checksum file {where.name} beside it")
        return None
    digest, _, name = line.partition("  ")
    if name.lstrip("*") != path.name:
        problems.append(f"{where}: names {name!r}, not {path.name}")
    return digest.lower()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    return digest.hexdigest()
