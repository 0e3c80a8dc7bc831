"""Votes over time as an inline SVG: one step line per candidate, time across, votes up.

Drawn for a page with no script and no external resource: the SVG scales to its box (viewBox,
width 100%). Colour is never the only cue: every line has its own dash pattern, an end label with
the name and the final votes, a legend (in the page, tally.render.html) and a `<title>` to hover.
Lines that run at the same height are drawn a pixel or two apart (`data-offset`) so that none
hides another; the data attributes carry the exact numbers for tests and tools.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from html import escape

from tally import times
from tally.render.i18n import Lang, get
from tally.timeline import Step, Timeline

# Okabe-Ito colours (distinguishable with the common colour-vision deficiencies), then more.
COLOURS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#444444",
           "#882255", "#117733", "#999933")
DASHES = ("", "7 3", "2 3", "9 3 2 3", "4 2")

WIDTH, HEIGHT = 460, 270
LEFT, TOP, BOTTOM = 34, 30, 44  # margins; the right one fits the end labels
FONT = 12
LABEL_GAP = 15  # least distance between two end labels: a line of 12-unit text
XScale = Callable[[datetime], float]  # a time to its x in the SVG
YScale = Callable[[float], float]  # votes to their y

TICK_MINUTES = (5, 10, 15, 30, 60, 120, 180, 240, 360, 720, 1440, 2880, 10080)


@dataclass(frozen=True, slots=True)
class Style:
    colour: str
    dash: str


def style(index: int) -> Style:
    return Style(COLOURS[index % len(COLOURS)], DASHES[index % len(DASHES)])


def palette(timeline: Timeline) -> dict[str, Style]:
    """One look per candidate, the same in the public chart and the GM's: the public
    candidates first, then those only the GM's count has."""
    names = list(timeline.candidates(timeline.public))
    if timeline.gm is not None:
        names += [n for n in timeline.candidates(timeline.gm) if n not in names]
    return {name: style(index) for index, name in enumerate(names)}


def chart_window(timeline: Timeline, steps: Sequence[Step]) -> tuple[datetime, datetime]:
    """From the day's start to the deadline, or to the last change when that came later."""
    last = steps[-1].time if steps else timeline.start
    end = max(timeline.deadline, min(last, timeline.as_of))
    return timeline.start, max(end, timeline.start + timedelta(minutes=1))


def render_chart(timeline: Timeline, steps: Sequence[Step], *, title: str,
                 looks: Mapping[str, Style], needed: int | None = None,
                 needed_label: str = "", t: Lang | None = None) -> str:
    """The SVG for one series (public or GM), each line drawn in `looks[candidate]`.
    `needed`: the votes that decide (threshold or majority), drawn as a dotted line. Its words
    and dates are in `t`'s language (issue 14)."""
    t = t or get()
    candidates = timeline.candidates(steps)
    start, end = chart_window(timeline, steps)
    line_end = min(timeline.as_of, end)
    peak = max([v for s in steps for _, v in s.counts] + [needed or 0, 1])
    y_step = max(1, math.ceil(peak / 6))
    y_top = math.ceil(peak / y_step) * y_step
    right = _right_margin(candidates, steps)
    plot_w, plot_h = WIDTH - LEFT - right, HEIGHT - TOP - BOTTOM
    span = (end - start).total_seconds()

    def x(t: datetime) -> float:
        return LEFT + plot_w * min(max((t - start).total_seconds() / span, 0.0), 1.0)

    def y(votes: float) -> float:
        return TOP + plot_h * (1 - votes / y_top)

    # The series' name, not an object's address: the same count renders the same page, byte for
    # byte (a report kept as evidence can be compared with one made again later).
    series = "gm" if steps is timeline.gm else "public"
    out = [f'<svg class="chart" viewBox="0 0 {WIDTH} {HEIGHT}" width="100%" role="img" '
           f'aria-labelledby="chart-title-{series}" xmlns="http://www.w3.org/2000/svg" '
           f'font-size="{FONT}" data-start="{_iso(start)}" data-end="{_iso(end)}">',
           f'<title id="chart-title-{series}">{escape(title)}</title>',
           f'<rect class="plot" x="{LEFT}" y="{TOP}" width="{plot_w}" height="{plot_h}" '
           'fill="#fafafa" stroke="#ccc"/>']
    for votes in range(0, y_top + 1, y_step):  # integer ticks only: a vote is never split
        yy = y(votes)
        out.append(f'<g class="ytick" data-votes="{votes}" data-y="{yy:.1f}">'
                   f'<line x1="{LEFT}" x2="{LEFT + plot_w}" y1="{yy:.1f}" y2="{yy:.1f}" '
                   f'stroke="#e4e4e4"/><text x="{LEFT - 6}" y="{yy + 4:.1f}" '
                   f'text-anchor="end" fill="#555">{votes}</text></g>')
    out += _time_ticks(start, end, timeline.zone, x, TOP + plot_h, plot_w, t)
    if needed:
        yy = y(needed)
        under = yy - TOP < FONT + 4  # at the top of the plot: written under the line, inside
        out.append(f'<g class="needed" data-votes="{needed}"><line x1="{LEFT}" '
                   f'x2="{LEFT + plot_w}" y1="{yy:.1f}" y2="{yy:.1f}" stroke="#888" '
                   f'stroke-dasharray="1 3"/><text x="{LEFT + plot_w - 6}" '
                   f'y="{yy + FONT + 2 if under else yy - 4:.1f}" '
                   f'text-anchor="end" fill="#666">'
                   f'{escape(needed_label)}</text></g>')
    out += _markers(timeline, x, plot_h, line_end, end, t)
    out += _lines(candidates, looks, steps, timeline.zone, x, y, line_end, t)
    out.append("</svg>")
    return "\n".join(out)


def _right_margin(candidates: Sequence[str], steps: Sequence[Step]) -> int:
    final = dict(steps[-1].counts) if steps else {}
    longest = max((len(_short(c)) + len(str(final.get(c, 0))) + 1 for c in candidates), default=4)
    return min(max(40, int(longest * FONT * 0.62) + 14), 150)


def _short(name: str) -> str:
    return name if len(name) <= 14 else name[:13] + "…"


def _iso(value: datetime) -> str:
    return value.isoformat().replace("+00:00", "Z")


def _time_ticks(start: datetime, end: datetime, zone: str, x: XScale, base: float,
                plot_w: float, t: Lang) -> list[str]:
    """Ticks at round forum times (the forum's zone), at most one per 64 units; the date is
    written under the first tick and wherever it changes."""
    minutes = (end - start).total_seconds() / 60
    room = max(1, int(plot_w // 64))
    step = next((m for m in TICK_MINUTES if minutes / m <= room), TICK_MINUTES[-1])
    local = times.to_local(start, zone).replace(tzinfo=None)
    tick = local.replace(hour=0, minute=0, second=0, microsecond=0)
    while times.localise(tick, zone).utc < start:
        tick += timedelta(minutes=step)
    out: list[str] = []
    last_date = None
    while True:
        at = times.localise(tick, zone).utc
        if at > end:
            break
        xx = x(at)
        label = tick.strftime("%H:%M") if step < 1440 else ""
        day = t.timef(at, zone, "d MMM")
        date = day if day != last_date else ""
        last_date = day
        out.append(f'<g class="xtick" data-time="{_iso(at)}"><line x1="{xx:.1f}" x2="{xx:.1f}" '
                   f'y1="{base}" y2="{base + 4}" stroke="#888"/>'
                   f'<text x="{xx:.1f}" y="{base + 16}" text-anchor="middle" fill="#555">'
                   f'{label or date}</text>'
                   + (f'<text x="{xx:.1f}" y="{base + 30}" text-anchor="middle" fill="#777">'
                      f'{date}</text>' if label and date else "") + "</g>")
        tick += timedelta(minutes=step)
    return out


def _markers(timeline: Timeline, x: XScale, plot_h: float, line_end: datetime,
             end: datetime, t: Lang) -> list[str]:
    """The deadline (C7) and, when the count was made before the end of the chart, its as-of
    point; an early end of the day (a hammer, C3) too."""
    out: list[str] = []
    marks = [("deadline", timeline.deadline, "#b00020", t.p_("chart", "deadline {time}"))]
    if timeline.ended_at is not None and timeline.ended_at < timeline.deadline:
        marks.append(("ended", timeline.ended_at, "#6a1b9a", t.p_("chart", "day ended {time}")))
    if line_end < end:
        marks.append(("as-of", line_end, "#555", t.p_("chart", "as of {time}")))
    for row, (kind, at, colour, word) in enumerate(marks):
        xx = x(at)
        shown = times.to_local(at, timeline.zone)
        anchor = "end" if xx > LEFT + 60 else "start"
        nudge = -3 if anchor == "end" else 3
        out.append(f'<g class="marker {kind}" data-time="{_iso(at)}" data-x="{xx:.1f}">'
                   f'<line x1="{xx:.1f}" x2="{xx:.1f}" y1="{TOP - 4 - 13 * row}" '
                   f'y2="{TOP + plot_h}" stroke="{colour}" stroke-width="1.5" '
                   f'stroke-dasharray="5 3"/><text x="{xx + nudge:.1f}" '
                   f'y="{TOP - 8 - 13 * row}" text-anchor="{anchor}" fill="{colour}">'
                   f'{escape(word.format(time=f"{shown:%H:%M}"))}</text></g>')
    return out


def _lines(candidates: Sequence[str], looks: Mapping[str, Style], steps: Sequence[Step],
           zone: str, x: XScale, y: YScale, line_end: datetime, t: Lang) -> list[str]:
    out: list[str] = []
    spread = min(1.5, 8.0 / max(len(candidates), 1))
    final = dict(steps[-1].counts) if steps else {}
    ends: list[tuple[float, int]] = []
    for index, name in enumerate(candidates):
        offset = round((index - (len(candidates) - 1) / 2) * spread, 1)
        points, changes = _path(name, steps, x, y, line_end, offset)
        look = looks[name]
        dash = f' stroke-dasharray="{look.dash}"' if look.dash else ""
        history = t.p_("between sentences", "; ").join(
            f"{times.to_local(at, zone):%H:%M} {t.number(v)}" for at, v, _ in changes)
        votes = final.get(name, 0)
        ended = t._("{name}: {votes} at the end ({history})", name=name, votes=votes,
                    history=history)
        out.append(f'<g class="series" data-candidate="{escape(name)}">'
                   f'<polyline class="line" data-candidate="{escape(name)}" '
                   f'data-final-votes="{votes}" data-offset="{offset}" fill="none" '
                   f'stroke="{look.colour}" stroke-width="2.5" stroke-linejoin="round"{dash} '
                   f'points="{" ".join(f"{px:.1f},{py:.1f}" for px, py in points)}">'
                   f'<title>{escape(ended)}</title>'
                   '</polyline>')
        for at, v, post in changes:
            since = t.timef(at, zone, "dd MMM HH:mm")
            title = (t._("{name}: {votes} from {time}, post {post}", name=name, votes=v, time=since,
                         post=post) if post
                     else t._("{name}: {votes} from {time}", name=name, votes=v, time=since))
            out.append(f'<circle cx="{x(at):.1f}" cy="{y(v) + offset:.1f}" r="3" '
                       f'fill="{look.colour}"><title>{escape(title)}</title></circle>')
        out.append("</g>")
        ends.append((points[-1][1], index))
    out += _end_labels(candidates, looks, final, ends, x(line_end))
    return out


def _path(name: str, steps: Sequence[Step], x: XScale, y: YScale, line_end: datetime,
          offset: float) -> tuple[list[tuple[float, float]], list[tuple[datetime, int, str | None]]]:
    """The step line's points (flat until a change, then straight up or down) and the changes."""
    votes = 0
    points = [(float(LEFT), y(0) + offset)]  # nobody has a vote at the day's start
    changes: list[tuple[datetime, int, str | None]] = []
    for step in steps:
        now = dict(step.counts).get(name, 0)
        if now != votes and step.time <= line_end:
            points += [(x(step.time), y(votes) + offset), (x(step.time), y(now) + offset)]
            changes.append((step.time, now, step.post_id))
            votes = now
    points.append((x(line_end), y(votes) + offset))
    return points, changes


def _end_labels(candidates: Sequence[str], looks: Mapping[str, Style], final: dict[str, int],
                ends: list[tuple[float, int]], x_end: float) -> list[str]:
    """Name and final votes beside each line's end, pushed apart so that none overlaps."""
    placed: list[tuple[float, int]] = []
    for want, index in sorted(ends):
        at = max(want, placed[-1][0] + LABEL_GAP) if placed else want
        placed.append((at, index))
    overflow = placed[-1][0] - (HEIGHT - BOTTOM + 4) if placed else 0
    if overflow > 0:  # pushed below the plot: move the whole stack up
        placed = [(at - overflow, index) for at, index in placed]
    out = []
    line_y = dict((index, want) for want, index in ends)
    for at, index in placed:
        name = candidates[index]
        look = looks[name]
        if abs(at - line_y[index]) > 2:
            out.append(f'<line x1="{x_end + 1:.1f}" y1="{line_y[index]:.1f}" x2="{x_end + 5:.1f}" '
                       f'y2="{at:.1f}" stroke="{look.colour}"/>')
        out.append(f'<text class="end-label" data-candidate="{escape(name)}" x="{x_end + 7:.1f}" '
                   f'y="{at + 4:.1f}" fill="{look.colour}" font-weight="600">'
                   f'{escape(_short(name))} {final.get(name, 0)}</text>')
    return out
