"""Polite HTTP for forum pages (DESIGN.md "Performance": polite by default).

One `requests` session; per host at most `per_host` requests at once and a minimum `delay`
between the starts of two requests; Retry-After honoured on 429/503 (seconds or an HTTP date)
up to `max_wait`; bounded retries with exponential backoff on 5xx, connection errors, timeouts
and cut downloads; 4xx other than 429 is never retried. Every failure is one `ForumError` line
that names the host. Cookies and Authorization headers are never logged.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from email.utils import parsedate_to_datetime
from urllib.parse import urlsplit

import requests

from tally import __version__, times
from tally.errors import Challenged, FloodLimit, ForumError, OutcomeUnknown, TruncatedPage

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


@dataclass(frozen=True)
class Clock:
    """What the network side waits with and measures by: the system's, or a test's fake one
    (then no test waits or measures in wall-clock time)."""

    sleep: Callable[[float], None] = time.sleep
    monotonic: Callable[[], float] = time.monotonic


SYSTEM_CLOCK = Clock()


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


class Fetcher:
    """Thread-safe, polite page fetcher. Raises ForumError (or TruncatedPage) with one line."""

    def __init__(
        self,
        *,
        delay: float = 1.0,
        per_host: int = 2,
        retries: int = 3,
        timeout: float = 20.0,
        backoff: float = 2.0,
        max_wait: float = 120.0,
        user_agent: str = f"tally/{__version__} (+vote counter)",
        session: requests.Session | None = None,
        sleep: Callable[[float], None] | None = None,
        clock: Clock = SYSTEM_CLOCK,
    ) -> None:
        self.delay = delay
        self.per_host = max(1, per_host)
        self.tries = max(1, retries)  # "HTTP 503 after 3 tries": retries counts every try
        self.timeout = timeout
        self.backoff = backoff
        self.max_wait = max_wait
        self.clock = clock if sleep is None else Clock(sleep, clock.monotonic)
        self.sleep = self.clock.sleep  # repliers wait through it too (phpBB's form age)
        self.session = session or requests.Session()
        self.session.headers["User-Agent"] = user_agent
        self._hosts: dict[str, _Host] = {}
        self._hosts_lock = threading.Lock()

    def get(self, url: str) -> Response:
        host_name = urlsplit(url).hostname or url
        host = self._host(host_name)
        for attempt in range(1, self.tries + 1):
            try:
                with host.slots:
                    self._wait_turn(host)
                    return self._try(url, host_name)
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
            self._wait_turn(host)
            log.debug("POST %s", _public(url))  # never the form: it may hold the password
            try:
                reply = self.session.post(url, data=data, files=files, headers=dict(headers or {}),
                                          timeout=self.timeout)
                body = reply.content
            except requests.exceptions.ConnectTimeout:
                raise ForumError(f"{host_name}: could not connect ({self.timeout:g} s); "
                                 "nothing was posted") from None
            except requests.Timeout:
                raise OutcomeUnknown(f"{host_name}: no answer to the post within "
                                     f"{self.timeout:g} s; it may have been posted") from None
            except requests.ConnectionError as exc:
                problem = _connection_problem(exc)
                if problem in ("connection refused", "host name not found"):
                    raise ForumError(f"{host_name}: {problem}; nothing was posted") from None
                raise OutcomeUnknown(f"{host_name}: {problem} while posting; it may have "
                                     "been posted") from None
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

    def _wait_turn(self, host: _Host) -> None:
        """Reserve the next start time on this host, then sleep until it comes."""
        with host.lock:
            clock = self.clock.monotonic()
            start = max(clock, host.next_start)
            host.next_start = start + self.delay
        if start > clock:
            self.sleep(start - clock)

    def _defer(self, host: _Host, seconds: float) -> None:
        """Nobody starts on this host for `seconds`: the forum asked (Retry-After) or is failing."""
        with host.lock:
            host.next_start = max(host.next_start, self.clock.monotonic() + seconds)

    # -- one try -------------------------------------------------------------------------------

    def _try(self, url: str, host_name: str) -> Response:
        log.debug("GET %s", _public(url))  # never the headers: they may carry cookies
        try:
            reply = self.session.get(url, timeout=self.timeout)
            body = reply.content
        except requests.Timeout:
            raise _Retry("timed out", f" ({self.timeout:g} s each): {_public(url)}") from None
        except requests.exceptions.ChunkedEncodingError:
            # urllib3 enforces Content-Length: fewer bytes than announced ends up here.
            raise _Retry("truncated download", f": {_public(url)}", error=TruncatedPage) from None
        except requests.ConnectionError as exc:
            raise _Retry(_connection_problem(exc)) from None
        self._check_length(reply, body, url)
        _check_challenge(reply.status_code, reply.headers, host_name)
        self._check_status(reply.status_code, reply.headers, url)
        return _response(reply, url, body)

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
