"""tally.fetch against a local server: politeness, retries, Retry-After and clear errors."""

from __future__ import annotations

import logging
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest
import requests
from fakeclock import FakeClock
from pytest_httpserver import HTTPServer
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
    # On 127.0.0.1 (not "localhost") so the host in error lines is predictable.
    server = HTTPServer(host="127.0.0.1", threaded=threaded)
    server.start()
    yield server
    server.clear()
    server.stop()


@pytest.fixture
def httpserver() -> Iterator[HTTPServer]:
    yield from local_server(threaded=False)


@pytest.fixture
def threaded_server() -> Iterator[HTTPServer]:
    yield from local_server(threaded=True)


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
