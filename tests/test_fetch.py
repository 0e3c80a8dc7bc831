"""tally.fetch against a local server: politeness, retries, Retry-After and clear errors."""

from __future__ import annotations

import io
import logging
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from pathlib import Path

import pytest
import requests
from fakeclock import EPOCH, FakeClock
from pytest_httpserver import HTTPServer
from typer.testing import Result
from werkzeug import Request, Response

from tally.errors import EXIT_FORUM, Challenged, ForumError, TruncatedPage
from tally.fetch import Fetcher

PINNED = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)


class Sleeps:
    """A fake `sleep` that records what it was asked to wait."""

    def __init__(self) -> None:
        self.calls: list[float] = []

    def __call__(self, seconds: float) -> None:
        self.calls.append(seconds)


@pytest.fixture
def sleeps() -> Sleeps:
    return Sleeps()


def local_server(threaded: bool) -> Iterator[HTTPServer]:
    # On 127.0.0.1 (not "localhost") so the host in error lines is predictable. One server per
    # module, cleared after each test: stopping one costs its poll interval (0.5 s).
    server = HTTPServer(host="127.0.0.1", threaded=threaded)
    server.start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def plain_server() -> Iterator[HTTPServer]:
    yield from local_server(threaded=False)


@pytest.fixture(scope="module")
def threaded_plain_server() -> Iterator[HTTPServer]:
    yield from local_server(threaded=True)


@pytest.fixture
def httpserver(plain_server: HTTPServer) -> Iterator[HTTPServer]:
    plain_server.clear()
    yield plain_server
    plain_server.clear()


@pytest.fixture
def threaded_server(threaded_plain_server: HTTPServer) -> Iterator[HTTPServer]:
    threaded_plain_server.clear()
    yield threaded_plain_server
    threaded_plain_server.clear()


def fetcher(sleep: Callable[[float], None], **options: float) -> Fetcher:
    settings = {"delay": 0.0, "retries": 3, "timeout": 5.0, **options}
    return Fetcher(sleep=sleep, **settings)  # type: ignore[arg-type]


def test_ok_response_keeps_the_headers_that_matter(httpserver: HTTPServer, monkeypatch) -> None:
    monkeypatch.setenv("TALLY_NOW", "2026-11-20T12:00:00Z")
    httpserver.expect_request("/t").respond_with_data(
        b"<html>ok</html>",
        content_type="text/html; charset=utf-8",
        headers={"ETag": '"abc"', "Last-Modified": "Thu, 19 Nov 2026 10:00:00 GMT",
                 "Set-Cookie": "sid=secret"},
    )
    response = Fetcher(delay=0).get(httpserver.url_for("/t"))
    assert response.status == 200
    assert response.body == b"<html>ok</html>"
    assert response.url == httpserver.url_for("/t")
    assert response.fetched_at == PINNED
    assert response.headers["ETag"] == '"abc"'
    assert response.headers["Last-Modified"] == "Thu, 19 Nov 2026 10:00:00 GMT"
    assert response.headers["Content-Type"] == "text/html; charset=utf-8"
    assert "Set-Cookie" not in response.headers
    (request, _), = httpserver.log
    assert request.headers["User-Agent"].startswith("tally/")


def test_polite_delay_between_requests_to_one_host(httpserver: HTTPServer) -> None:
    """The waits are read from the injected clock (what the Fetcher asked to sleep), never
    measured at the server: no wall-clock timing (issue 17)."""
    clock = FakeClock()
    httpserver.expect_request("/t").respond_with_data("ok")
    polite = Fetcher(delay=0.3, retries=1, clock=clock.clock)
    for _ in range(3):
        polite.get(httpserver.url_for("/t"))
    assert len(httpserver.log) == 3
    assert clock.sleeps == pytest.approx([0.3, 0.3])  # none before the first, then the delay


def test_the_delay_is_per_host(httpserver: HTTPServer) -> None:
    clock = FakeClock()
    httpserver.expect_request("/t").respond_with_data("ok")
    polite = Fetcher(delay=5, retries=1, clock=clock.clock)
    polite.get(httpserver.url_for("/t"))
    polite.get(httpserver.url_for("/t").replace("127.0.0.1", "localhost"))  # another host
    assert clock.sleeps == []


def test_at_most_per_host_requests_at_once(threaded_server: HTTPServer) -> None:
    lock = threading.Condition()
    running = [0]
    peak = [0]

    def slow(request: Request) -> Response:
        with lock:
            running[0] += 1
            peak[0] = max(peak[0], running[0])
            lock.notify_all()
            # Hold until a second request runs beside this one (or the others are done): the
            # overlap does not depend on how fast the machine is.
            lock.wait_for(lambda: running[0] >= 2 or len(threaded_server.log) >= 5, timeout=10)
            running[0] -= 1
            lock.notify_all()
        return Response("ok")

    threaded_server.expect_request("/t").respond_with_handler(slow)
    shared = Fetcher(delay=0, per_host=2, retries=1)
    workers = [
        threading.Thread(target=shared.get, args=(threaded_server.url_for("/t"),))
        for _ in range(6)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert len(threaded_server.log) == 6
    assert peak[0] == 2  # the server could take 6 at once: the limit is ours


def test_retry_after_seconds_on_503_then_success(httpserver: HTTPServer, sleeps: Sleeps) -> None:
    httpserver.expect_ordered_request("/t").respond_with_data(
        "busy", status=503, headers={"Retry-After": "7"})
    httpserver.expect_ordered_request("/t").respond_with_data("done")
    response = fetcher(sleeps).get(httpserver.url_for("/t"))
    assert response.body == b"done"
    assert len(httpserver.log) == 2
    assert len(sleeps.calls) == 1
    assert 6.5 < sleeps.calls[0] <= 7.0


def test_retry_after_http_date(httpserver: HTTPServer, sleeps: Sleeps, monkeypatch) -> None:
    monkeypatch.setenv("TALLY_NOW", "2026-11-20T12:00:00Z")
    when = format_datetime(PINNED + timedelta(seconds=30), usegmt=True)
    httpserver.expect_ordered_request("/t").respond_with_data(
        "slow down", status=429, headers={"Retry-After": when})
    httpserver.expect_ordered_request("/t").respond_with_data("done")
    assert fetcher(sleeps).get(httpserver.url_for("/t")).body == b"done"
    assert len(sleeps.calls) == 1
    assert 29.5 < sleeps.calls[0] <= 30.0


def test_429_without_retry_after_backs_off_then_succeeds(
    httpserver: HTTPServer, sleeps: Sleeps
) -> None:
    httpserver.expect_ordered_request("/t").respond_with_data("slow down", status=429)
    httpserver.expect_ordered_request("/t").respond_with_data("done")
    assert fetcher(sleeps, backoff=1.5).get(httpserver.url_for("/t")).body == b"done"
    assert len(sleeps.calls) == 1
    assert 1.4 < sleeps.calls[0] <= 1.5


def test_503_exhausted_gives_one_line(httpserver: HTTPServer, sleeps: Sleeps) -> None:
    httpserver.expect_request("/t").respond_with_data(
        "busy", status=503, headers={"Retry-After": "120"})
    with pytest.raises(ForumError) as caught:
        fetcher(sleeps, max_wait=120).get(httpserver.url_for("/t"))
    assert str(caught.value) == "127.0.0.1: HTTP 503 after 3 tries (Retry-After 120 s)"
    assert len(httpserver.log) == 3
    assert len(sleeps.calls) == 2  # no pointless wait after the last try


def test_retry_after_longer_than_max_wait_gives_up_at_once(
    httpserver: HTTPServer, sleeps: Sleeps
) -> None:
    httpserver.expect_request("/t").respond_with_data(
        "busy", status=503, headers={"Retry-After": "3600"})
    with pytest.raises(ForumError) as caught:
        fetcher(sleeps, max_wait=120).get(httpserver.url_for("/t"))
    assert str(caught.value) == (
        "127.0.0.1: HTTP 503, the forum asks to wait 3600 s (more than the 120 s limit); "
        "try again later"
    )
    assert len(httpserver.log) == 1
    assert sleeps.calls == []


def test_5xx_backoff_is_exponential(httpserver: HTTPServer, sleeps: Sleeps) -> None:
    httpserver.expect_request("/t").respond_with_data("oops", status=500)
    with pytest.raises(ForumError, match=r"^127\.0\.0\.1: HTTP 500 after 3 tries$"):
        fetcher(sleeps, backoff=2.0).get(httpserver.url_for("/t"))
    assert len(httpserver.log) == 3
    assert [round(wait) for wait in sleeps.calls] == [2, 4]


def test_404_is_not_retried(httpserver: HTTPServer, sleeps: Sleeps) -> None:
    httpserver.expect_request("/gone").respond_with_data("no", status=404)
    url = httpserver.url_for("/gone")
    with pytest.raises(ForumError) as caught:
        fetcher(sleeps).get(url)
    assert str(caught.value) == f"127.0.0.1: HTTP 404: {url}"
    assert len(httpserver.log) == 1
    assert sleeps.calls == []


def test_connection_refused(sleeps: Sleeps) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ForumError) as caught:
        fetcher(sleeps, retries=2).get(f"http://127.0.0.1:{port}/t")
    assert str(caught.value) == "127.0.0.1: connection refused after 2 tries"
    assert len(sleeps.calls) == 1


def serve_raw(reply: Callable[[socket.socket], None], connections: int) -> tuple[str, threading.Thread]:
    """A one-shot TCP server that reads a request and lets `reply` misbehave."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(connections)

    def run() -> None:
        with listener:
            for _ in range(connections):
                conn, _ = listener.accept()
                with conn:
                    conn.recv(65536)
                    reply(conn)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    return f"http://127.0.0.1:{listener.getsockname()[1]}/t", worker


def test_connection_reset(sleeps: Sleeps) -> None:
    def reset(conn: socket.socket) -> None:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

    url, worker = serve_raw(reset, connections=2)
    with pytest.raises(ForumError) as caught:
        fetcher(sleeps, retries=2).get(url)
    worker.join(5)
    assert str(caught.value) == "127.0.0.1: connection reset after 2 tries"


def test_truncated_body_is_a_truncated_page(sleeps: Sleeps) -> None:
    def cut(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 500\r\n"
                     b"Connection: close\r\n\r\n<html><body>only a part")

    url, worker = serve_raw(cut, connections=2)
    with pytest.raises(TruncatedPage) as caught:
        fetcher(sleeps, retries=2).get(url)
    worker.join(5)
    assert str(caught.value) == f"127.0.0.1: truncated download after 2 tries: {url}"


def test_timeout(threaded_server: HTTPServer, sleeps: Sleeps) -> None:
    answer = threading.Event()  # the server answers only once the test is over

    def stall(request: Request) -> Response:
        answer.wait(10)
        return Response("late")

    threaded_server.expect_request("/t").respond_with_handler(stall)
    url = threaded_server.url_for("/t")
    try:
        with pytest.raises(ForumError) as caught:
            fetcher(sleeps, retries=2, timeout=0.2).get(url)
    finally:
        answer.set()
    assert str(caught.value) == f"127.0.0.1: timed out after 2 tries (0.2 s each): {url}"


def test_cookies_and_authorization_never_logged(
    httpserver: HTTPServer, caplog: pytest.LogCaptureFixture, sleeps: Sleeps
) -> None:
    httpserver.expect_ordered_request("/t").respond_with_data("busy", status=503)
    httpserver.expect_ordered_request("/t").respond_with_data("ok")
    session = requests.Session()
    session.headers["Authorization"] = "Basic c2VjcmV0LXRva2Vu"
    session.cookies.set("phpbb3_sid", "cookie-value-123")
    caplog.set_level(logging.DEBUG)
    Fetcher(delay=0, session=session, sleep=sleeps).get(httpserver.url_for("/t"))
    request = httpserver.log[0][0]
    assert request.headers["Authorization"] == "Basic c2VjcmV0LXRva2Vu"  # it was sent...
    assert "cookie-value-123" in request.headers["Cookie"]
    assert "/t" in caplog.text  # ...and something was logged, but not the secrets
    assert "c2VjcmV0LXRva2Vu" not in caplog.text
    assert "cookie-value-123" not in caplog.text


def test_credentials_in_the_url_stay_out_of_messages(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/gone").respond_with_data("no", status=404)
    url = httpserver.url_for("/gone").replace("http://", "http://bot:hunter2@")
    with pytest.raises(ForumError) as caught:
        Fetcher(delay=0).get(url)
    assert "hunter2" not in str(caught.value)
    assert str(caught.value) == f"127.0.0.1: HTTP 404: {httpserver.url_for('/gone')}"


# -- Cloudflare challenges (FORUMS.md §3.4): never retried, one line ----------------------------

CHALLENGE_PAGE = b"<!DOCTYPE html><html><head><title>Just a moment...</title></head></html>"


@pytest.mark.parametrize("status", [403, 503])
def test_a_cloudflare_challenge_is_challenged_at_once(httpserver: HTTPServer, sleeps: Sleeps,
                                                       status: int) -> None:
    httpserver.expect_request("/t").respond_with_data(
        CHALLENGE_PAGE, status=status, content_type="text/html",
        headers={"cf-mitigated": "challenge", "Retry-After": "5"})
    with pytest.raises(Challenged) as caught:
        fetcher(sleeps).get(httpserver.url_for("/t"))
    assert str(caught.value) == "127.0.0.1: Cloudflare challenge: a browser is needed"
    assert caught.value.exit_code == EXIT_FORUM
    assert len(httpserver.log) == 1 and sleeps.calls == []  # never retried, never waited


def test_a_403_without_the_challenge_header_stays_an_http_error(httpserver: HTTPServer,
                                                                 sleeps: Sleeps) -> None:
    httpserver.expect_request("/t").respond_with_data(CHALLENGE_PAGE, status=403)
    with pytest.raises(ForumError) as caught:
        fetcher(sleeps).get(httpserver.url_for("/t"))
    assert not isinstance(caught.value, Challenged)
    assert str(caught.value) == f"127.0.0.1: HTTP 403: {httpserver.url_for('/t')}"


def test_a_challenge_answering_a_post_is_challenged_not_a_flood_limit(
        httpserver: HTTPServer, sleeps: Sleeps) -> None:
    httpserver.expect_request("/post", method="POST").respond_with_data(
        CHALLENGE_PAGE, status=503, headers={"cf-mitigated": "challenge"})
    with pytest.raises(Challenged) as caught:
        fetcher(sleeps).post(httpserver.url_for("/post"), {"message": "count"})
    assert str(caught.value) == "127.0.0.1: Cloudflare challenge: a browser is needed"
    assert len(httpserver.log) == 1


def test_the_challenge_header_is_kept_with_the_page(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/t").respond_with_data(b"<html>ok</html>",
                                                      headers={"cf-mitigated": "challenge"})
    response = Fetcher(delay=0).get(httpserver.url_for("/t"))  # 200: the page itself
    assert response.headers["cf-mitigated"] == "challenge"


# -- Politeness from the end of the answer, deadlines, redirects, progress (issue 17) --------


def test_the_delay_runs_from_the_end_of_a_slow_answer(httpserver: HTTPServer) -> None:
    """wget --wait: a 2 s answer is still followed by the full delay, not at once."""
    clock = FakeClock()

    def slow(request: Request) -> Response:
        clock.advance(2.0)  # the forum takes two seconds to answer
        return Response("ok")

    httpserver.expect_request("/t").respond_with_handler(slow)
    polite = Fetcher(delay=0.3, retries=1, clock=clock.clock)
    for _ in range(3):
        polite.get(httpserver.url_for("/t"))
    assert clock.sleeps == pytest.approx([0.3, 0.3])


@contextmanager
def serve_drip(clock: FakeClock, *, announced: int = 100_000, most: int = 200,
               head: bytes = b"", body: bytes = b"") -> Iterator[tuple[str, list[int]]]:
    """Headers announcing `announced` bytes (`head`: more header lines), then `body` at once,
    then one byte per (fake) second: the clock moves a second with each byte; the server gives
    up after `most` bytes. Counts its connections; stopped when the test ends."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    connections = [0]
    stop = threading.Event()

    def run() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            connections[0] += 1
            with conn:
                conn.recv(65536)
                try:
                    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n" + head
                                 + b"Content-Length: " + str(announced).encode() + b"\r\n\r\n"
                                 + body)
                    for _ in range(most):
                        if stop.is_set():
                            break
                        conn.sendall(b"x")
                        clock.advance(1.0)
                        stop.wait(0.002)
                except OSError:
                    pass

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}/t", connections
    finally:
        stop.set()
        listener.close()
        worker.join(5)


def test_a_server_dripping_bytes_ends_at_the_request_deadline(sleeps: Sleeps) -> None:
    clock = FakeClock()
    drip = Fetcher(delay=0, retries=3, timeout=5, deadline=30, clock=clock.clock)
    with serve_drip(clock) as (url, connections), pytest.raises(ForumError) as caught:
        drip.get(url)
    assert str(caught.value) == (f"127.0.0.1: no complete answer within 30 s (the request's "
                                 f"deadline): {url}")
    assert caught.value.exit_code == EXIT_FORUM
    assert connections == [1]  # not retried: it would drip again


# A gzip member's header whose FCOMMENT flag is set (RFC 1952 §2.3): the comment that follows
# runs until a NUL, and yields no decoded byte however long it drips.
GZIP_COMMENT_HEADER = b"\x1f\x8b\x08\x10\x00\x00\x00\x00\x00\xff"


def test_a_server_dripping_a_gzipped_body_ends_at_the_request_deadline() -> None:
    """Issue 17: urllib3's decoding reads on while the compressed bytes decode to nothing, past
    any deadline (only the per-read timeout stopped it); the raw bytes are now read a piece at
    a time with the deadline checked between pieces, and decoded as they come."""
    clock = FakeClock()
    drip = Fetcher(delay=0, retries=3, timeout=5, deadline=30, clock=clock.clock)
    with serve_drip(clock, head=b"Content-Encoding: gzip\r\n",
                    body=GZIP_COMMENT_HEADER) as (url, connections), \
            pytest.raises(ForumError) as caught:
        drip.get(url)
    assert str(caught.value) == (f"127.0.0.1: no complete answer within 30 s (the request's "
                                 f"deadline): {url}")
    assert caught.value.exit_code == EXIT_FORUM
    assert connections == [1]
    assert 30 <= clock.monotonic() - EPOCH < 40  # stopped at the deadline, not at the 200th byte


def test_the_runs_time_limit_stops_the_next_request(httpserver: HTTPServer) -> None:
    clock = FakeClock()

    def slow(request: Request) -> Response:
        clock.advance(4.0)
        return Response("ok")

    httpserver.expect_request("/t").respond_with_handler(slow)
    limited = Fetcher(delay=0, retries=1, clock=clock.clock)
    began = clock.monotonic()
    limited.limit_run(10, lambda: 10 - (clock.monotonic() - began))
    limited.get(httpserver.url_for("/t"))
    limited.get(httpserver.url_for("/t"))
    with pytest.raises(ForumError) as caught:  # 8 s gone, 2 left: this answer takes 4
        limited.get(httpserver.url_for("/t"))
    assert str(caught.value) == ("127.0.0.1: no complete answer within 10 s (the run's time "
                                 f"limit): {httpserver.url_for('/t')}")
    with pytest.raises(ForumError) as spent:
        limited.get(httpserver.url_for("/t"))
    assert str(spent.value) == ("127.0.0.1: the run's time limit (10 s) is spent; "
                                f"{httpserver.url_for('/t')} was not fetched")
    assert len(httpserver.log) == 3


def test_a_redirect_inside_the_forum_is_followed(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/old").respond_with_data("", status=301,
                                                        headers={"Location": "/new?t=7"})
    httpserver.expect_request("/new").respond_with_data("<html>topic</html>")
    response = Fetcher(delay=0).get(httpserver.url_for("/old"))
    assert (response.url, response.body) == (httpserver.url_for("/new?t=7"), b"<html>topic</html>")


def test_a_redirect_to_another_host_is_not_followed(httpserver: HTTPServer) -> None:
    elsewhere = HTTPServer(host="localhost")  # another host name (the same machine)
    elsewhere.start()
    try:
        elsewhere.expect_request("/").respond_with_data("not the forum")
        away = elsewhere.url_for("/")
        httpserver.expect_request("/t").respond_with_data("", status=302,
                                                          headers={"Location": away})
        with pytest.raises(ForumError) as caught:
            Fetcher(delay=0).get(httpserver.url_for("/t"))
        assert str(caught.value) == (f"127.0.0.1: {httpserver.url_for('/t')} redirects to "
                                     f"{away}, outside the forum; not followed (if that is "
                                     "the forum's new address, put it in the game file)")
        assert caught.value.exit_code == EXIT_FORUM
        assert len(elsewhere.log) == 0 and len(httpserver.log) == 1  # asked once, never there
    finally:
        elsewhere.clear()
        elsewhere.stop()


def test_a_redirect_loop_is_one_line(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/a").respond_with_data("", status=302, headers={"Location": "/b"})
    httpserver.expect_request("/b").respond_with_data("", status=302, headers={"Location": "/a"})
    with pytest.raises(ForumError) as caught:
        Fetcher(delay=0).get(httpserver.url_for("/a"))
    assert str(caught.value) == (f"127.0.0.1: redirect loop: {httpserver.url_for('/a')} leads "
                                 f"back to {httpserver.url_for('/a')}")
    assert caught.value.exit_code == EXIT_FORUM


@pytest.mark.parametrize("origin,target,allowed", [
    ("http://forum.example.org/t?t=1", "https://forum.example.org/t?t=1", True),
    ("https://forum.example.org/t", "https://FORUM.example.org:443/x", True),
    ("https://forum.example.org/t", "http://forum.example.org/t", False),  # never down to http
    ("http://forum.example.org/t", "http://forum.example.org:8080/t", False),
    ("http://forum.example.org/t", "https://evil.example/t", False),
    ("http://forum.example.org/t", "http://www.forum.example.org/t", False),
])
def test_which_redirects_stay_in_the_forum(origin: str, target: str, allowed: bool) -> None:
    from tally.fetch import _same_site

    assert _same_site(origin, target) is allowed


def test_a_gzipped_page_is_read_decoded(httpserver: HTTPServer) -> None:
    import gzip

    page = "<html>Überall ✓</html>".encode() * 200
    httpserver.expect_request("/t").respond_with_data(
        gzip.compress(page), headers={"Content-Encoding": "gzip"}, content_type="text/html")
    assert Fetcher(delay=0).get(httpserver.url_for("/t")).body == page


def test_a_cut_gzipped_page_is_a_truncated_download(sleeps: Sleeps) -> None:
    """A compressed answer without Content-Length that stops inside its gzip stream (the
    connection closed early): it used to be read as a shorter page, exit 0."""
    import gzip

    squeezed = gzip.compress(b"<html>" + b"<div class=post>vote Bob</div>" * 400 + b"</html>")

    def cut(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n"
                     b"Connection: close\r\n\r\n" + squeezed[: len(squeezed) // 2])

    url, worker = serve_raw(cut, connections=2)
    with pytest.raises(TruncatedPage) as caught:
        fetcher(sleeps, retries=2).get(url)
    worker.join(5)
    assert str(caught.value) == f"127.0.0.1: truncated download after 2 tries: {url}"


@pytest.mark.parametrize("coding", ["deflate-zlib", "deflate-raw", "gzip-two-members"])
def test_deflate_and_gzip_members_are_read_decoded(coding: str, httpserver: HTTPServer) -> None:
    import gzip
    import zlib

    page = "<html>Überall ✓</html>".encode() * 200
    if coding == "deflate-zlib":
        body, header = zlib.compress(page), "deflate"
    elif coding == "deflate-raw":  # no zlib wrapper, as some servers send it
        squeeze = zlib.compressobj(wbits=-zlib.MAX_WBITS)
        body, header = squeeze.compress(page) + squeeze.flush(), "deflate"
    else:
        body, header = gzip.compress(page[:1000]) + gzip.compress(page[1000:]), "gzip"
    httpserver.expect_request("/t").respond_with_data(
        body, headers={"Content-Encoding": header}, content_type="text/html")
    assert Fetcher(delay=0).get(httpserver.url_for("/t")).body == page


def test_a_gzipped_page_sent_in_chunks_is_read_decoded(sleeps: Sleeps) -> None:
    """Transfer-Encoding: chunked under the gzip coding (no Content-Length): the raw reads
    take the chunks apart, the decoder joins the stream."""
    import gzip

    page = b"<html>" + b"<div class=post>vote Bob</div>" * 400 + b"</html>"
    squeezed = gzip.compress(page)

    def chunked(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: gzip\r\n"
                     b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n")
        for start in range(0, len(squeezed), 100):
            piece = squeezed[start:start + 100]
            conn.sendall(b"%x\r\n" % len(piece) + piece + b"\r\n")
        conn.sendall(b"0\r\n\r\n")

    url, worker = serve_raw(chunked, connections=1)
    assert fetcher(sleeps).get(url).body == page
    worker.join(5)


def test_only_codings_tally_reads_are_asked_for_and_others_refused(
        httpserver: HTTPServer) -> None:
    httpserver.expect_request("/t").respond_with_data(
        b"\x0b\x02\x80ok\x03", headers={"Content-Encoding": "br"}, content_type="text/html")
    with pytest.raises(ForumError) as caught:
        Fetcher(delay=0).get(httpserver.url_for("/t"))
    assert str(caught.value) == ("127.0.0.1: the answer is encoded as br, which tally did not "
                                 f"ask for and cannot read: {httpserver.url_for('/t')}")
    assert httpserver.log[0][0].headers["Accept-Encoding"] == "gzip, deflate"
    assert len(httpserver.log) == 1  # not retried: the same answer would come again


class Seen:
    def __init__(self) -> None:
        self.pages: list[str] = []
        self.waits: list[float] = []

    def page(self, host: str) -> None:
        self.pages.append(host)

    def waiting(self, host: str, seconds: float) -> None:
        self.waits.append(seconds)


def test_progress_counts_pages_and_politeness_waits(httpserver: HTTPServer) -> None:
    seen, clock = Seen(), FakeClock()
    httpserver.expect_request("/t").respond_with_data("ok")
    shown = Fetcher(delay=1.5, retries=1, clock=clock.clock, progress=seen)
    for _ in range(3):
        shown.get(httpserver.url_for("/t"))
    assert seen.pages == ["127.0.0.1"] * 3 and seen.waits == pytest.approx([1.5, 1.5])


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


@pytest.mark.parametrize("out,err,shown", [(True, True, True), (True, False, False),
                                           (False, True, False), (False, False, False)])
def test_progress_shows_only_on_a_terminal(out: bool, err: bool, shown: bool,
                                           monkeypatch) -> None:
    """A pipe or cron (either stream not a terminal) gets nothing; a terminal the status line."""
    from tally import progress

    monkeypatch.setenv("TERM", "xterm-256color")  # CI may run with TERM=dumb (no status line)
    monkeypatch.setattr(progress, "_display", None)  # one per process: this test's own

    chosen = progress.for_terminal(Stream(out), Stream(err))
    assert isinstance(chosen, progress.Display) is shown
    if shown:
        assert isinstance(chosen, progress.Display)
        chosen.page("forum.example.org")
        chosen.waiting("forum.example.org", 1.0)
        chosen.stop()


def test_a_fetcher_whose_output_goes_to_a_pipe_shows_no_progress(monkeypatch) -> None:
    """`tally count … | tee`, or cron: stdout is not a terminal, so nothing on stderr either."""
    import sys

    from tally import progress

    monkeypatch.setattr(sys, "stdout", Stream(False))
    monkeypatch.setattr(sys, "stderr", Stream(True))
    assert Fetcher(delay=0).progress is progress.SILENT


def test_count_on_a_redirect_loop_is_one_line_exit_4(httpserver: HTTPServer, tmp_path) -> None:
    """Issue 17: a loop used to end in requests' TooManyRedirects, a traceback and exit 1."""
    from fakephpbb import write_game
    from typer.testing import CliRunner

    from tally.cli import app

    topic = httpserver.url_for("/viewtopic.php") + "?f=2&t=7"
    httpserver.expect_request("/viewtopic.php").respond_with_data(
        "", status=302, headers={"Location": "/login.php?redirect=viewtopic"})
    httpserver.expect_request("/login.php").respond_with_data(
        "", status=302, headers={"Location": "/viewtopic.php?f=2&t=7"})
    game = write_game(tmp_path, topic)
    result = CliRunner().invoke(app, ["count", str(game), "--store", str(tmp_path / "s.sqlite")])
    assert (result.exit_code, result.stdout) == (4, "")
    assert result.stderr.startswith("tally: error: 127.0.0.1: redirect loop: ")
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output


# -- What each network fault gives a user: README "The network" table, row by row -----------

LOGIN_WALL = (Path(__file__).resolve().parent.parent / "fixtures" / "phpbb" / "errors" /
              "login.html").read_bytes()


def count_online(url: str, tmp_path: Path) -> Result:
    from fakephpbb import write_game
    from typer.testing import CliRunner

    from tally.cli import app

    game = write_game(tmp_path, url)
    return CliRunner().invoke(app, ["count", str(game), "--store", str(tmp_path / "s.sqlite")])


def one_error_line(result: Result) -> str:
    """The run failed with exit 4 (the forum could not be read) and said so in one line."""
    assert (result.exit_code, result.stdout) == (4, ""), result.output
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.output
    return result.stderr.removeprefix("tally: error: ").rstrip("\n")


TOPIC = "/viewtopic.php"


def topic_on(server_url: str) -> tuple[str, str]:
    """The game's thread URL on a raw local server, and the first page's URL tally asks for."""
    topic = server_url.rsplit("/", 1)[0] + TOPIC + "?f=2&t=7"
    return topic, topic + "&start=0"


@pytest.mark.parametrize("fault,status,headers,expected", [
    ("429, Retry-After past the limit", 429, {"Retry-After": "600"},
     "127.0.0.1: HTTP 429, the forum asks to wait 600 s (more than the 120 s limit); try again "
     "later"),
    ("503 with Retry-After, every try", 503, {"Retry-After": "30"},
     "127.0.0.1: HTTP 503 after 3 tries (Retry-After 30 s)"),
    ("502", 502, {}, "127.0.0.1: HTTP 502 after 3 tries"),
    ("Cloudflare challenge", 503, {"cf-mitigated": "challenge"},
     "127.0.0.1: Cloudflare challenge: a browser is needed"),
])
def test_an_http_fault_is_one_line_exit_4(fault: str, status: int, headers: dict[str, str],
                                           expected: str, httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request(TOPIC).respond_with_data("busy", status=status, headers=headers)
    result = count_online(httpserver.url_for(TOPIC) + "?f=2&t=7", tmp_path)
    assert one_error_line(result) == expected


def test_503_with_retry_after_is_waited_out_as_asked(httpserver: HTTPServer, tmp_path: Path,
                                                     fetcher_clock: FakeClock) -> None:
    """The forum's Retry-After is the wait (on the fake clock), then the page is read."""
    httpserver.expect_ordered_request(TOPIC).respond_with_data(
        "busy", status=503, headers={"Retry-After": "30"})
    httpserver.expect_ordered_request(TOPIC).respond_with_data(LOGIN_WALL,
                                                               content_type="text/html")
    result = count_online(httpserver.url_for(TOPIC) + "?f=2&t=7", tmp_path)
    assert len(httpserver.log) == 2 and 30 in [round(s) for s in fetcher_clock.sleeps]
    assert "login page" in one_error_line(result)  # read after the wait: the next row's page


def test_a_login_wall_is_one_line_exit_4(httpserver: HTTPServer, tmp_path: Path) -> None:
    """A guest sent from the topic to phpBB's login page (same host: followed) is told so."""
    topic = httpserver.url_for(TOPIC) + "?f=2&t=7"
    login = httpserver.url_for("/ucp.php") + "?mode=login&redirect=viewtopic.php"
    httpserver.expect_request(TOPIC).respond_with_data("", status=302,
                                                       headers={"Location": login})
    httpserver.expect_request("/ucp.php").respond_with_data(LOGIN_WALL,
                                                           content_type="text/html")
    line = one_error_line(count_online(topic, tmp_path))
    assert line == (f"phpBB: {login}: not a thread page (login page: the thread needs a "
                    "logged-in account)")


@pytest.mark.parametrize("gzipped", [False, True])
def test_a_slow_drip_is_one_line_exit_4(gzipped: bool, tmp_path: Path,
                                        fetcher_clock: FakeClock) -> None:
    """A byte a (fake) second: the request's 90 s deadline ends it, compressed or not."""
    head, body = (b"Content-Encoding: gzip\r\n", GZIP_COMMENT_HEADER) if gzipped else (b"", b"")
    with serve_drip(fetcher_clock, head=head, body=body) as (url, connections):
        topic, page = topic_on(url)
        line = one_error_line(count_online(topic, tmp_path))
    assert line == f"127.0.0.1: no complete answer within 90 s (the request's deadline): {page}"
    assert connections == [1]


def test_a_truncated_download_is_one_line_exit_4(tmp_path: Path) -> None:
    def cut(conn: socket.socket) -> None:
        conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: 5000\r\n"
                     b"Connection: close\r\n\r\n" + LOGIN_WALL[:300])

    url, worker = serve_raw(cut, connections=3)
    topic, page = topic_on(url)
    line = one_error_line(count_online(topic, tmp_path))
    worker.join(5)
    assert line == f"127.0.0.1: truncated download after 3 tries: {page}"


def test_a_redirect_to_another_host_is_one_line_exit_4(httpserver: HTTPServer,
                                                       tmp_path: Path) -> None:
    topic = httpserver.url_for(TOPIC) + "?f=2&t=7"
    away = "http://localhost:9/viewtopic.php?f=2&t=7"  # never asked: not the forum's host
    httpserver.expect_request(TOPIC).respond_with_data("", status=302,
                                                       headers={"Location": away})
    line = one_error_line(count_online(topic, tmp_path))
    assert line == (f"127.0.0.1: {topic}&start=0 redirects to {away}, outside the forum; not followed "
                    "(if that is the forum's new address, put it in the game file)")
