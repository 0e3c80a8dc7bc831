"""Polite HTTP for forum pages (DESIGN.md "Performance": polite by default).

One `requests` session; per host at most `per_host` requests at once, and `delay` seconds from
the end of one answer to the start of the next request (as wget's --wait; a reservation also
spaces the starts of requests running side by side); Retry-After honoured on 429/503 (seconds
or an HTTP date) up to `max_wait`; bounded retries with exponential backoff on 5xx, connection
errors, timeouts and cut downloads; 4xx other than 429 is never retried. Each request has a
total `deadline` besides the per-read `timeout` (a server dripping a byte a second ends there,
compressed or not: the raw body is read in pieces and decoded here, tally.content_coding),
and a run may set its own limit (`limit_run`, `tally post`). Redirects are followed only inside
the forum's own host (and http -> https of it); a loop, another host or more than
MAX_REDIRECTS hops is one line. All waiting and measuring goes through `clock`. Progress shows
on a terminal only (tally.progress). Every failure is one `ForumError` line that names the
host. Cookies and Authorization headers are never logged.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urljoin, urlsplit

import requests
import urllib3

from tally import __version__, times
from tally.content_coding import ACCEPTED, CorruptBody, CutBody, Decoder, UnknownCoding
from tally.errors import Challenged, FloodLimit, ForumError, OutcomeUnknown, TruncatedPage
from tally.progress import Progress, for_terminal

log = logging.getLogger(__name__)

# The response headers worth keeping in the snapshot store (issue 6: Date/Last-Modified/ETag).
# cf-mitigated: Cloudflare's mark on a challenge answer (FORUMS.md §3.4), kept so that a stored
# page shows why it is not the forum's.
KEPT_HEADERS = ("Date", "Last-Modified", "ETag", "Content-Type", "Retry-After", "cf-mitigated")
RETRY_AFTER_STATUSES = (429, 503)
# A POSTed form: fields, or a body already encoded (Discuz sends urlencoded bytes in the page's
# charset, FORUMS.md §4.4); requests sends str and bytes as they are.
FormData = Mapping[str, str] | list[tuple[str, str]] | tuple[tuple[str, str], ...] | str | bytes
CHALLENGE_STATUSES = (403, 503)
REQUEST_DEADLINE = 90.0  # seconds one request may take in all (the timeout is per read)
MAX_REDIRECTS = 10
CHUNK = 65536


@dataclass(frozen=True)
class Clock:
    """What the network side waits with and measures by: the system's, or a test's fake one
    (then no test waits or measures in wall-clock time)."""

    sleep: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic


SYSTEM_CLOCK = Clock()
DEFAULT_CLOCK = SYSTEM_CLOCK  # a Fetcher made without a clock uses this one (tests pin a fake)


@dataclass(frozen=True)
class Response:
    """One fetched page: what the store keeps and the parser reads."""

    url: str
    status: int
    headers: Mapping[str, str]
    body: bytes
    fetched_at: datetime  # aware UTC, from tally.times.now()


@dataclass
class _Host:
    """Politeness state of one host, shared by every thread using the Fetcher."""

    slots: threading.Semaphore
    lock: threading.Lock = field(default_factory=threading.Lock)
    next_start: float = 0.0  # the clock's monotonic time before which no request may start


class _Retry(Exception):
    """One failed try that may be retried: `why` ends the error line if every try fails."""

    def __init__(self, why: str, detail: str = "", *, wait: float | None = None,
                 error: type[ForumError] = ForumError) -> None:
        super().__init__(why)
        self.why = why
        self.detail = detail  # after "after N tries": " (Retry-After 120 s)", ": <url>"
        self.wait = wait  # what the forum asked for (Retry-After), None for plain backoff
        self.error = error


class _Overdue(Exception):
    """The request's total deadline (or the run's) passed before its answer was complete."""

    def __init__(self, run: bool) -> None:
        super().__init__("overdue")
        self.run = run  # the run's limit, not the request's own


class Fetcher:
    """Thread-safe, polite page fetcher. Raises ForumError (or TruncatedPage) with one line."""

    def __init__(
        self,
        *,
        delay: float = 1.0,
        per_host: int = 2,
        retries: int = 3,
        timeout: float = 20.0,
        deadline: float = REQUEST_DEADLINE,
        backoff: float = 2.0,
        max_wait: float = 120.0,
        user_agent: str = f"tally/{__version__} (+vote counter)",
        session: requests.Session | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Clock | None = None,
        progress: Progress | None = None,
    ) -> None:
        self.delay = delay
        self.per_host = max(1, per_host)
        self.tries = max(1, retries)  # "HTTP 503 after 3 tries": retries counts every try
        self.timeout = timeout  # per connect and per read
        self.deadline = deadline  # per request, in all: a server dripping bytes ends here
        self.backoff = backoff
        self.max_wait = max_wait
        base = clock or DEFAULT_CLOCK
        self.clock = base if sleep is None else Clock(sleep, base.monotonic)
        self.sleep = self.clock.sleep  # repliers wait through it too (phpBB's form age)
        self.progress = progress if progress is not None else for_terminal()
        # A whole run's limit (`tally post`, so cron's next run does not find the lock held):
        # seconds left, asked before each request and wait; None: no limit.
        self.run_left: Callable[[], float] | None = None
        self.run_limit = 0.0  # the run's limit in seconds, for the message
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = user_agent
        self.session.headers["Accept-Encoding"] = ACCEPTED  # only what _read can undo
        self._hosts: dict[str, _Host] = {}
        self._hosts_lock = threading.Lock()

    def limit_run(self, seconds: float, left: Callable[[], float]) -> None:
        """Stop every request and wait once the run's `seconds` are spent (`left()` <= 0)."""
        self.run_limit, self.run_left = seconds, left

    def get(self, url: str) -> Response:
        host_name = urlsplit(url).hostname or url
        host = self._host(host_name)
        for attempt in range(1, self.tries + 1):
            try:
                with host.slots:
                    self._wait_turn(host, host_name, url)
                    try:
                        return self._try(url, host_name)
                    finally:
                        self._answered(host)
            except _Retry as retry:
                if attempt == self.tries:
                    raise retry.error(
                        f"{host_name}: {retry.why} after {self.tries} tries{retry.detail}"
                    ) from None
                wait = retry.wait if retry.wait is not None else self.backoff * 2 ** (attempt - 1)
                log.info("%s: %s; retrying in %.1f s", host_name, retry.why, wait)
                self._defer(host, wait)
        raise AssertionError("unreachable")  # the loop returns or raises

    def post(self, url: str, data: FormData, *, files: Mapping[str, tuple[str | None, str]] |
             None = None, headers: Mapping[str, str] | None = None) -> Response:
        """One POST (a reply, a login), polite like a GET but never retried: a retried reply
        could post twice. When the request may have reached the forum and no answer came back
        (reset, timeout, a gateway error), it is OutcomeUnknown; 429 and 503 mean "not now"
        and are FloodLimit; other statuses are returned for the replier to read."""
        host_name = urlsplit(url).hostname or url
        host = self._host(host_name)
        with host.slots:
            self._wait_turn(host, host_name, url)
            log.debug("POST %s", _public(url))  # never the form: it may hold the password
            try:
                reply, body = self._send("POST", url, data=data, files=files, headers=headers)
            except _Overdue as overdue:
                raise OutcomeUnknown(f"{host_name}: no complete answer to the post within "
                                     f"{self._limit(overdue):g} s{self._whose(overdue)}; it may "
                                     "have been posted") from None
            except requests.exceptions.ConnectTimeout:
                raise ForumError(f"{host_name}: could not connect ({self.timeout:g} s); "
                                 "nothing was posted") from None
            except (CutBody, CorruptBody, UnknownCoding) as unread:
                raise OutcomeUnknown(f"{host_name}: the answer to the post could not be read "
                                     f"({unread}); it may have been posted") from None
            except (requests.Timeout, urllib3.exceptions.ReadTimeoutError):
                raise OutcomeUnknown(f"{host_name}: no answer to the post within "
                                     f"{self.timeout:g} s; it may have been posted") from None
            except (requests.ConnectionError, urllib3.exceptions.HTTPError) as exc:
                problem = _connection_problem(exc)
                if problem in ("connection refused", "host name not found"):
                    raise ForumError(f"{host_name}: {problem}; nothing was posted") from None
                raise OutcomeUnknown(f"{host_name}: {problem} while posting; it may have "
                                     "been posted") from None
            finally:
                self._answered(host)
        _check_challenge(reply.status_code, reply.headers, host_name)
        if reply.status_code in RETRY_AFTER_STATUSES:
            wait = _retry_after(reply.headers.get("Retry-After"))
            self._defer(host, wait or self.backoff)
            after = f" (Retry-After {wait:.0f} s)" if wait is not None else ""
            raise FloodLimit(f"{host_name}: HTTP {reply.status_code} on posting{after}; "
                             "nothing was posted", wait)
        if reply.status_code >= 500:
            raise OutcomeUnknown(f"{host_name}: HTTP {reply.status_code} on posting; it may "
                                 "have been posted")
        return _response(reply, url, body)

    # -- politeness ----------------------------------------------------------------------------

    def _host(self, name: str) -> _Host:
        with self._hosts_lock:
            if name not in self._hosts:
                self._hosts[name] = _Host(threading.Semaphore(self.per_host))
            return self._hosts[name]

    def _wait_turn(self, host: _Host, host_name: str, url: str) -> None:
        """Reserve the next start time on this host, then sleep until it comes."""
        with host.lock:
            clock = self.clock.monotonic()
            start = max(clock, host.next_start)
            host.next_start = start + self.delay  # a request beside this one waits its turn
        wait = start - clock
        if self.run_left is not None and self.run_left() <= wait:
            raise ForumError(f"{host_name}: the run's time limit ({self.run_limit:g} s) is "
                             f"spent; {_public(url)} was not fetched")
        if wait > 0:
            self.progress.waiting(host_name, wait)
            self.sleep(wait)

    def _answered(self, host: _Host) -> None:
        """The next request on this host starts `delay` after this answer ended (wget --wait):
        a slow answer is not followed at once (issue 17)."""
        with host.lock:
            host.next_start = max(host.next_start, self.clock.monotonic() + self.delay)

    def _defer(self, host: _Host, seconds: float) -> None:
        """Nobody starts on this host for `seconds`: the forum asked (Retry-After) or is failing."""
        with host.lock:
            host.next_start = max(host.next_start, self.clock.monotonic() + seconds)

    # -- one try -------------------------------------------------------------------------------

    def _try(self, url: str, host_name: str) -> Response:
        log.debug("GET %s", _public(url))  # never the headers: they may carry cookies
        try:
            reply, body = self._send("GET", url)
        except _Overdue as overdue:
            # Not retried: a server that drips its answer will drip it again.
            raise ForumError(f"{host_name}: no complete answer within {self._limit(overdue):g} s"
                             f"{self._whose(overdue)}: {_public(url)}") from None
        except (requests.Timeout, urllib3.exceptions.ReadTimeoutError):
            raise _Retry("timed out", f" ({self.timeout:g} s each): {_public(url)}") from None
        except (requests.exceptions.ChunkedEncodingError, urllib3.exceptions.ProtocolError,
                CutBody):
            # urllib3 enforces Content-Length: fewer bytes than announced ends up here; a
            # compressed body that stops inside its stream was cut too.
            raise _Retry("truncated download", f": {_public(url)}", error=TruncatedPage) from None
        except CorruptBody as corrupt:
            raise _Retry(str(corrupt), f": {_public(url)}") from None
        except UnknownCoding as coding:
            raise ForumError(f"{host_name}: the answer is encoded as {coding}, which tally "
                             f"did not ask for and cannot read: {_public(url)}") from None
        except (requests.ConnectionError, urllib3.exceptions.HTTPError) as exc:
            raise _Retry(_connection_problem(exc)) from None
        self._check_length(reply, body, url)
        _check_challenge(reply.status_code, reply.headers, host_name)
        self._check_status(reply.status_code, reply.headers, url)
        self.progress.page(host_name)
        return _response(reply, url, body)

    def _send(self, method: str, url: str, *, data: FormData | None = None,
              files: Mapping[str, tuple[str | None, str]] | None = None,
              headers: Mapping[str, str] | None = None) -> tuple[requests.Response, bytes]:
        """One request and its whole answer within the deadline, following redirects only
        inside the forum's own host (issue 17)."""
        end = self.clock.monotonic() + self.deadline
        run_end = None if self.run_left is None else self.clock.monotonic() + self.run_left()
        current, seen = url, {_without_fragment(url)}
        for _ in range(MAX_REDIRECTS + 1):
            left = self._left(end, run_end)
            reply = self.session.request(method, current, data=data, files=files,
                                         headers=dict(headers or {}), stream=True,
                                         allow_redirects=False,
                                         timeout=min(self.timeout, max(left, 0.001)))
            if not reply.is_redirect:
                try:
                    return reply, self._read(reply, end, run_end)
                except BaseException:
                    reply.close()
                    raise
            reply.close()
            target = _follow(reply, current, url, seen)
            if method == "POST" and reply.status_code in (301, 302, 303):
                # As browsers do: the answer to a form is fetched with GET.
                method, data, files, headers = "GET", None, None, None
            current = target
        raise ForumError(f"{urlsplit(url).hostname}: more than {MAX_REDIRECTS} redirects from "
                         f"{_public(url)}")

    def _read(self, reply: requests.Response, end: float, run_end: float | None) -> bytes:
        """The body, a piece of raw bytes at a time, each read bounded by the socket timeout
        and the whole by the deadline: one byte a second never fills the page in time. The raw
        bytes are decoded here, as they come: urllib3's decoding would read on, unchecked, for
        as long as the compressed bytes decode to nothing (issue 17)."""
        decoder = Decoder(reply.headers.get("Content-Encoding"))
        chunks: list[bytes] = []
        raw = reply.raw
        # The raw bytes, decoded below; said on the stream, not as read1's argument, which
        # vcrpy's replayed stream does not take.
        raw.decode_content = False
        while True:
            self._left(end, run_end)
            chunk = raw.read1(CHUNK)
            if not chunk:
                break
            chunks.append(decoder.feed(chunk))
        chunks.append(decoder.end())
        release = getattr(raw, "release_conn", None)  # back to the pool (keep-alive)
        if release is not None:
            release()
        return b"".join(chunks)

    def _left(self, end: float, run_end: float | None) -> float:
        """Seconds left to this request; _Overdue when none."""
        now = self.clock.monotonic()
        if run_end is not None and now >= run_end:
            raise _Overdue(run=True)
        if now >= end:
            raise _Overdue(run=False)
        return min(end, run_end if run_end is not None else end) - now

    def _limit(self, overdue: _Overdue) -> float:
        return self.run_limit if overdue.run else self.deadline

    @staticmethod
    def _whose(overdue: _Overdue) -> str:
        return " (the run's time limit)" if overdue.run else " (the request's deadline)"

    def _check_length(self, reply: requests.Response, body: bytes, url: str) -> None:
        """A cut download that urllib3 let through (compressed bodies are not comparable)."""
        announced = reply.headers.get("Content-Length", "")
        encoded = reply.headers.get("Content-Encoding", "identity").lower() != "identity"
        if announced.isdigit() and not encoded and len(body) < int(announced):
            detail = f" ({len(body)} of {announced} bytes): {_public(url)}"
            raise _Retry("truncated download", detail, error=TruncatedPage)

    def _check_status(self, status: int, headers: Mapping[str, str], url: str) -> None:
        if status < 400:
            return
        if status in RETRY_AFTER_STATUSES:
            asked = _retry_after(headers.get("Retry-After"))
            if asked is None:
                raise _Retry(f"HTTP {status}")
            if asked > self.max_wait:
                raise ForumError(
                    f"{urlsplit(url).hostname}: HTTP {status}, the forum asks to wait "
                    f"{asked:.0f} s (more than the {self.max_wait:.0f} s limit); try again later"
                )
            raise _Retry(f"HTTP {status}", f" (Retry-After {asked:.0f} s)", wait=asked)
        if status >= 500:
            raise _Retry(f"HTTP {status}")
        # Other 4xx: asking again gives the same answer (and may look like abuse).
        raise ForumError(f"{urlsplit(url).hostname}: HTTP {status}: {_public(url)}")


def _follow(reply: requests.Response, current: str, origin: str, seen: set[str]) -> str:
    """Where a redirect leads, if tally may go there: the forum's own host (http -> https of
    it allowed), never twice the same address. Anything else is one line naming both."""
    host = urlsplit(origin).hostname or origin
    target = urljoin(reply.url or current, reply.headers.get("Location", ""))
    fragment = urlsplit(current).fragment
    if fragment and not urlsplit(target).fragment:  # kept across hops, as browsers do
        target += "#" + fragment
    if not _same_site(origin, target):
        raise ForumError(f"{host}: {_public(origin)} redirects to {_public(target)}, outside "
                         "the forum; not followed (if that is the forum's new address, put it "
                         "in the game file)")
    if _without_fragment(target) in seen:
        raise ForumError(f"{host}: redirect loop: {_public(origin)} leads back to "
                         f"{_public(target)}")
    seen.add(_without_fragment(target))
    return target


def _same_site(origin: str, target: str) -> bool:
    """Same host name and port, same scheme or http -> https on the default ports."""
    a, b = urlsplit(origin), urlsplit(target)
    if not a.hostname or (a.hostname or "").lower() != (b.hostname or "").lower():
        return False
    if a.scheme == b.scheme:
        return _port(a.scheme, a.port) == _port(b.scheme, b.port)
    return (a.scheme, b.scheme) == ("http", "https") and a.port in (None, 80) and \
        b.port in (None, 443)


def _port(scheme: str, port: int | None) -> int | None:
    return port if port is not None else {"http": 80, "https": 443}.get(scheme)


def _without_fragment(url: str) -> str:
    return url.split("#", 1)[0]


def _check_challenge(status: int, headers: Mapping[str, str], host_name: str) -> None:
    """A Cloudflare challenge instead of the forum's answer: asking again (or waiting out a
    Retry-After) gives the same challenge; only a browser that runs its script gets through."""
    if status in CHALLENGE_STATUSES and \
            headers.get("cf-mitigated", "").strip().lower() == "challenge":
        raise Challenged(f"{host_name}: Cloudflare challenge: a browser is needed")


def _response(reply: requests.Response, url: str, body: bytes) -> Response:
    """What is kept of an answer: only KEPT_HEADERS, so Set-Cookie never reaches the store."""
    return Response(
        url=reply.url or url,
        status=reply.status_code,
        headers={k: reply.headers[k] for k in KEPT_HEADERS if k in reply.headers},
        body=body,
        fetched_at=times.now(),
    )


def _retry_after(value: str | None) -> float | None:
    """Retry-After as seconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT by definition
        return None
    return max(0.0, (when - times.now()).total_seconds())


def _connection_problem(exc: Exception) -> str:
    """Name the usual cases plainly; the rest as 'connection failed'."""
    text = str(exc).lower()
    if "refused" in text:
        return "connection refused"
    if "reset" in text or "aborted" in text or "remotedisconnected" in text.replace(" ", ""):
        return "connection reset"
    if "name or service" in text or "nodename" in text or "resolve" in text:
        return "host name not found"
    return "connection failed"


def _public(url: str) -> str:
    """The URL without user:password@ (credentials never go into messages or logs)."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    netloc = parts.hostname or ""
    if parts.port:
        netloc += f":{parts.port}"
    return parts._replace(netloc=netloc).geturl()
