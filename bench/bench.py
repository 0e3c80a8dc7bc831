"""Benchmarks for the targets of DESIGN.md and issue 15, as ratios measured in one run (not
timed tests).

    python bench/bench.py [--posts 10000] [--rounds 3] [--engine NAME] [--ratios-only]

Every figure is CPU time (user + system of the process: time.process_time() in this process,
os.wait4's rusage for a child), the least of several rounds in which the two sides take turns:
on a shared machine wall time swings by 2x from run to run, CPU time by a few percent.

1. Parse + extract against lxml merely parsing the same pages (target: ratio <= 2.0), one row
   per engine variant, on synthetic threads of --posts posts in full-size pages grown from saved
   real-markup pages (bench/synthetic.py). The short fixture pages are correctness fixtures,
   not speed targets.
2. A full `tally count --from` over the phpBB 3 real-pages thread: its CPU time against a
   minimal lxml program reading the same posts (bench/minimal_phpbb.py), and its peak memory
   (target: <= 200 MB); and `tally report --html` on the same day against that count (target:
   <= 1.5: the votes-over-time chart in one pass).
3. How many HTTP requests a scheduled re-run makes when one page is new, against a local
   server on 127.0.0.1 (target: <= 2).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import lxml.html
import synthetic

from tally import adapters
from tally import game as game_file
from tally.adapters.base import PageContext
from tally.extract import Extractor

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
KIRA = FIXTURES / "phpbb" / "kira-en"
GAME = KIRA / "game.toml"


def cpu(fn: Callable[[], object]) -> float:
    """The CPU time (user + system) this process spends in fn."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def best_pair(rounds: int, ours: Callable[[], float], bare: Callable[[], float]
              ) -> tuple[float, float]:
    """The least of `rounds` measures of each, the two taking turns: the least disturbed by
    the rest of the machine, and a burst of load falls on both sides of the ratio alike."""
    t_ours, t_bare = [], []
    for _ in range(rounds):
        t_bare.append(bare())
        t_ours.append(ours())
    return min(t_ours), min(t_bare)


def ratio(engine_name: str, pages: list[tuple[bytes, PageContext]], extractor: Extractor,
          rounds: int) -> tuple[float, float, float, int]:
    engine = adapters.get(engine_name)

    def ours() -> int:
        n = 0
        for data, ctx in pages:
            for post in engine.parse_page(data, ctx).posts:
                extractor.ballot(post)
                n += 1
        return n

    def bare() -> None:
        for data, _ctx in pages:
            lxml.html.document_fromstring(data)

    posts = ours()
    t_ours, t_lxml = best_pair(rounds, partial(cpu, ours), partial(cpu, bare))
    return t_ours / t_lxml, t_ours, t_lxml, posts


def child(argv: list[str]) -> tuple[float, float]:
    """CPU seconds (user + system) of one child process, and its rusage peak memory (MiB),
    which on Linux includes the bench's own peak at the fork (bench/peak.py measures a count)."""
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL)
    _pid, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"bench: {' '.join(argv)} exited {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


# ---------------------------------------------------------------------------------------------
# The re-run's thread: the kira-en generator, with more posts and another page size


def load_generator():
    spec = importlib.util.spec_from_file_location("kira_make_pages", KIRA / "make_pages.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def write_thread(folder: Path, posts: int, per_page: int, pages: int | None = None) -> int:
    """Write the kira-en thread into `folder` as page-N.html; return the number of pages."""
    gen = load_generator()
    gen.PER_PAGE = per_page
    start = datetime(2016, 1, 17, 3, 0, 0)
    step = timedelta(seconds=max(1, int(86000 / posts)))
    rows = []
    for i in range(posts):
        author, _when, message, edit, checks = gen.POSTS[i % len(gen.POSTS)]
        when = (start + step * i).strftime("%Y-%m-%d %H:%M:%S")
        rows.append((author, when, message, None if edit is None else edit, checks))
    gen.POSTS = rows
    count = pages or -(-posts // per_page)
    for number in range(1, count + 1):
        indexes = range((number - 1) * per_page, min(number * per_page, posts))
        html = gen.page_html(number, count, [gen.post_html(i, rows[i]) for i in indexes])
        (folder / f"page-{number}.html").write_text(html, encoding="utf-8")
    return count


# ---------------------------------------------------------------------------------------------
# The full count on the real-pages phpBB thread, against a minimal lxml reader


def full_count(folder: Path, posts: int, rounds: int) -> dict[str, float]:
    """CPU seconds of `tally count --from` and of bench/minimal_phpbb.py on the same pages (the
    least of `rounds` alternated runs each), the count's peak memory (MiB), and when selectolax
    is installed, the minimal reader on Lexbor and both parsers' bare parse in this process."""
    tpl = synthetic.template("phpBB 3 prosilver (real pages)")[0]
    pages = folder / "thread"
    pages.mkdir()
    synthetic.write_thread(tpl, posts, pages)
    game = synthetic.write_phpbb_game(folder, posts)
    peaks: list[float] = []
    minimal = [sys.executable, str(Path(__file__).parent / "minimal_phpbb.py"), str(pages)]

    def count() -> float:
        store = folder / f"store-{len(peaks)}.sqlite"  # a first count each time
        peak = folder / "peak.txt"
        cpu_s, _ = child([sys.executable, str(Path(__file__).parent / "peak.py"), str(peak),
                          "tally.cli", "count", str(game), "--from", str(pages), "--fetched-at",
                          "2018-10-20 00:00", "--store", str(store)])
        peaks.append(int(peak.read_text()) / 1024)
        return cpu_s

    def report() -> float:  # the HTML report of the same day: votes over time (issue 15)
        return child([sys.executable, "-m", "tally.cli", "report", str(game), "--from",
                      str(pages), "--fetched-at", "2018-10-20 00:00", "--html",
                      str(folder / "report.html")])[0]

    out: dict[str, float] = {}
    out["count"], out["minimal"] = best_pair(rounds, count, lambda: child(minimal)[0])
    out["peak"] = max(peaks)
    out["report"] = min(report() for _ in range(rounds))
    if importlib.util.find_spec("selectolax") is not None:
        out["minimal_lexbor"] = min(child([*minimal, "--lexbor"])[0] for _ in range(rounds))
        from selectolax.lexbor import LexborHTMLParser

        data = [path.read_bytes() for path in pages.glob("page-*.html")]

        def each(parse: Callable[[bytes], object]) -> None:
            for page in data:  # one tree at a time, as a reader holds them
                parse(page)

        out["lxml_parse"], out["lexbor_parse"] = best_pair(
            rounds, partial(cpu, partial(each, lxml.html.document_fromstring)),
            partial(cpu, partial(each, LexborHTMLParser)))
    return out


# ---------------------------------------------------------------------------------------------
# Re-run requests against a local server


class CountingHandler(SimpleHTTPRequestHandler):
    requests: list[str] = []

    def do_GET(self) -> None:  # noqa: N802 - http.server's naming
        start = 0
        if "start=" in self.path:
            start = int(self.path.split("start=")[1].split("&")[0])
        number = start // self.server.per_page + 1  # type: ignore[attr-defined]
        CountingHandler.requests.append(self.path)
        page = Path(self.directory) / f"page-{number}.html"
        if not page.exists():  # phpBB shows the last page for a start past the end
            pages = sorted(Path(self.directory).glob("page-*.html"))
            page = pages[-1]
        body = page.read_bytes()
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args) -> None:
        pass


def rerun_requests(folder: Path, posts: int, per_page: int) -> tuple[int, int]:
    from tally import crawl
    from tally.fetch import Fetcher
    from tally.store import Store

    serve = folder / "served"
    serve.mkdir()
    handler = partial(CountingHandler, directory=str(serve))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.per_page = per_page  # type: ignore[attr-defined]
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_port}/viewtopic.php?f=3&t=412"
    engine = adapters.get("phpbb")
    store = Store(folder / "store.sqlite")
    try:
        # The thread before: one post short of a full last page plus one more page.
        before = posts - per_page
        write_thread(serve, before, per_page)
        crawl.read_thread(url, engine, zone="UTC", store=store, fetcher=Fetcher(delay=0),
                          per_page=per_page)
        first = len(CountingHandler.requests)
        CountingHandler.requests.clear()
        write_thread(serve, posts, per_page)  # one new page
        crawl.read_thread(url, engine, zone="UTC", store=store, fetcher=Fetcher(delay=0),
                          per_page=per_page)
        return first, len(CountingHandler.requests)
    finally:
        server.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--posts", type=int, default=10000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--engine", help="measure this engine's rows only (an engine name, "
                        "or a row's name); parts 2 and 3 run with phpbb")
    parser.add_argument("--ratios-only", action="store_true", help="skip parts 2 and 3")
    args = parser.parse_args()
    extractor = Extractor(game_file.load(GAME))
    templates = synthetic.template(args.engine) if args.engine else list(synthetic.TEMPLATES)
    if not templates:
        known = ", ".join(sorted({t.engine for t in synthetic.TEMPLATES}))
        raise SystemExit(f"bench: no rows for {args.engine!r} (engines: {known})")

    print(f"1. parse + extract / lxml parse alone, CPU time, {args.posts} posts (target <= 2.0)")
    for tpl in templates:
        pages = list(synthetic.thread(tpl, args.posts))
        r, ours, bare, n = ratio(tpl.engine, pages, extractor, args.rounds)
        size = sum(len(data) for data, _ in pages) / len(pages) / 1024
        print(f"   {tpl.label:<32} {len(pages):4d} pages of {tpl.per_page}, {size:4.0f} KiB, "
              f"{n} posts: ratio {r:4.2f} ({ours:5.2f} s vs {bare:5.2f} s)", flush=True)
    if args.ratios_only or (args.engine and "phpbb" not in {t.engine for t in templates}):
        return
    with tempfile.TemporaryDirectory() as tmp:
        got = full_count(Path(tmp), args.posts, args.rounds)
        print(f"2. tally count --from, phpBB 3 real pages, {args.posts} posts: "
              f"{got['count']:5.2f} s CPU vs {got['minimal']:5.2f} s for a minimal lxml reader "
              f"(ratio {got['count'] / got['minimal']:4.2f}); peak memory {got['peak']:5.1f} MiB "
              "(target <= 200)", flush=True)
        print(f"   tally report --html on the same thread: {got['report']:5.2f} s CPU "
              f"(ratio to the count {got['report'] / got['count']:4.2f}, target <= 1.5)",
              flush=True)
        if "minimal_lexbor" in got:
            print(f"   selectolax (Lexbor): the minimal reader {got['minimal_lexbor']:5.2f} s; "
                  f"bare parse {got['lexbor_parse']:5.2f} s vs lxml {got['lxml_parse']:5.2f} s",
                  flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        first, rerun = rerun_requests(Path(tmp), args.posts, 25)
        print(f"3. requests: first run {first}, re-run with one new page {rerun} (target <= 2)")


if __name__ == "__main__":
    main()
