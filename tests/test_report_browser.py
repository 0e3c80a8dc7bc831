"""The HTML report in a real browser: headless Chromium (Debian's `chromium`, installed by .ci/run
when missing) driven by Playwright's Python package, the page opened from its file.

At a phone viewport and a desktop one: a screenshot is taken, the rendered chart is checked
through the DOM against `tally count --format json` on the same saved pages (one line per
candidate, ending at its final votes on the y axis, the deadline inside the plot), the vote log
has one row per verdict, nothing overflows sideways, and the page asks the network for nothing.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tally.cli import app

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ROOT = Path(__file__).resolve().parent.parent
KIRA = ROOT / "fixtures" / "phpbb" / "kira-en"
SAVED = ["--from", str(KIRA), "--fetched-at", "2016-01-18 03:10"]
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}
PNG = b"\x89PNG\r\n\x1a\n"


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


def run(*args: str | Path):
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def kira(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict]:
    out = tmp_path_factory.mktemp("report") / "kira.html"
    run("report", KIRA / "game.toml", "--html", out, *SAVED)
    return out, json.loads(run("count", KIRA / "game.toml", *SAVED, "--format", "json"))


def open_page(browser, path: Path, viewport: dict[str, int]):
    page = browser.new_page(viewport=viewport)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return page, requests


CHART = """() => {
  const svg = document.querySelector('#chart svg.chart');
  const plot = svg.querySelector('rect.plot').getBoundingClientRect();
  const ticks = {};
  for (const g of svg.querySelectorAll('g.ytick'))
    ticks[g.dataset.votes] = parseFloat(g.querySelector('line').getAttribute('y1'));
  const lines = [...svg.querySelectorAll('polyline[data-candidate]')].map(l => {
    const pts = l.getAttribute('points').trim().split(/\\s+/).map(p => p.split(',').map(Number));
    const box = l.getBoundingClientRect();
    return {name: l.dataset.candidate, votes: Number(l.dataset.finalVotes),
            offset: Number(l.dataset.offset), lastY: pts[pts.length - 1][1],
            width: box.width, height: box.height};
  });
  const deadline = svg.querySelector('g.marker.deadline line').getBoundingClientRect();
  const labels = [...svg.querySelectorAll('text.end-label')].map(t => t.getBoundingClientRect())
    .map(r => ({top: r.top, bottom: r.bottom}));
  return {plot: {left: plot.left, right: plot.right, top: plot.top, bottom: plot.bottom,
                 width: plot.width}, ticks, lines, labels,
          deadline: {x: deadline.left + deadline.width / 2, top: deadline.top,
                     bottom: deadline.bottom}};
}"""


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=list(VIEWPORTS))
def test_kira_report_renders_in_chromium(browser, kira, tmp_path: Path, viewport: str) -> None:
    path, data = kira
    page, requests = open_page(browser, path, VIEWPORTS[viewport])
    shot = tmp_path / f"kira-{viewport}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.read_bytes()[:8] == PNG and shot.stat().st_size > 10_000

    chart = page.evaluate(CHART)
    final = {c["player"]: c["votes"] for c in data["counts"]}
    names = [line["name"] for line in chart["lines"]]
    assert len(names) == len(set(names)) and set(final) <= set(names)
    for line in chart["lines"]:
        votes = final.get(line["name"], 0)  # a candidate whose votes all went elsewhere: 0
        assert line["votes"] == votes
        # The line ends at its votes on the y axis (drawn `offset` apart from its neighbours).
        assert line["lastY"] - line["offset"] == pytest.approx(chart["ticks"][str(votes)], abs=0.1)
        assert line["width"] > 0 and line["height"] > 0
    # The deadline marker stands inside the plot, top to bottom.
    plot, deadline = chart["plot"], chart["deadline"]
    assert plot["width"] > 200
    assert plot["left"] <= deadline["x"] <= plot["right"] + 0.5
    assert deadline["top"] <= plot["top"] and deadline["bottom"] >= plot["bottom"] - 0.5
    # End labels do not overlap one another.
    labels = sorted(chart["labels"], key=lambda r: r["top"])
    assert all(a["bottom"] <= b["top"] + 0.5 for a, b in zip(labels, labels[1:]))

    rows = page.locator("#vote-log tbody tr")
    assert rows.count() == len(data["verdicts"])
    assert rows.first.is_visible() and rows.last.is_visible()
    cells = page.locator("#counts tbody tr td:nth-child(2)").all_inner_texts()
    assert [int(c) for c in cells] == [c["votes"] for c in data["counts"]]

    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert requests == [path.as_uri()]
    page.close()


def test_gm_page_shows_its_warning_first_on_a_phone(browser, tmp_path: Path) -> None:
    out = tmp_path / "gm.html"
    run("report", KIRA / "game.toml", "--html", out, *SAVED, "--gm")
    page, requests = open_page(browser, out, VIEWPORTS["phone"])
    banner = page.get_by_text("GM only - do not publish", exact=True)
    assert banner.is_visible() and banner.bounding_box()["y"] < 60
    assert page.locator("#gm").is_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert requests == [out.as_uri()]
    page.close()
