"""The public tally post, in the markup of the forum it is pasted into.

One layout, several dialects: BBCode (phpBB, Forumotion, Discuz, Invision), JV's own markup
(no BBCode: bold is '''…''' and links are bare), Markdown, and plain text. Only public fields of
the Tally are read here; the GM's result and findings are never touched (C5).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tally import __version__, times
from tally.model import Count, Tally


@dataclass(frozen=True)
class Dialect:
    bold: Callable[[str], str]
    link: Callable[[str, str], str]
    small: Callable[[str], str]
    heading: Callable[[str], str]


def _plain_link(text: str, url: str) -> str:
    return text


DIALECTS = {
    "bbcode": Dialect(
        bold=lambda s: f"[b]{s}[/b]",
        link=lambda t, u: f"[url={u}]{t}[/url]" if u else t,
        # [size] means percent on phpBB 3, pixels (1-29) on phpBB 2 and Forumotion, 1-7 on
        # Discuz and IPB: no one value is small everywhere, and a refused one shows as text.
        small=lambda s: s,
        heading=lambda s: f"[b][u]{s}[/u][/b]",
    ),
    "markdown": Dialect(
        bold=lambda s: f"**{_md_escape(s)}**",
        link=lambda t, u: f"[{_md_escape(t)}]({u})" if u else _md_escape(t),
        small=lambda s: f"<sub>{s}</sub>",
        heading=lambda s: f"### {s}",
    ),
    # jeuxvideo.com has no BBCode: ''' for bold, links are written bare.
    "jv": Dialect(bold=lambda s: f"'''{s}'''", link=_plain_link, small=lambda s: s,
                  heading=lambda s: f"'''{s}'''"),
    "text": Dialect(bold=lambda s: s, link=_plain_link, small=lambda s: s, heading=lambda s: s),
}


def _md_escape(text: str) -> str:
    return "".join("\\" + c if c in "\\`*_[]()#<>|" else c for c in text)


def when(value, zone: str) -> str:
    """A time as the forum shows it (its zone), with UTC beside it when they differ."""
    local = times.to_local(value, zone)
    shown = f"{local:%Y-%m-%d %H:%M:%S} {local.tzname() or zone}"
    if local.utcoffset():
        shown += f" ({value:%H:%M:%S} UTC)"
    return shown


def count_line(count: Count, d: Dialect, permalinks: dict[str, str]) -> str:
    voters = ", ".join(d.link(voter, permalinks.get(post, "")) for voter, post in
                       zip(count.voters, count.posts or ("",) * len(count.voters)))
    return f"{d.bold(count.player)} ({count.votes}): {voters}"


def outcome_line(tally: Tally, final: bool) -> str:
    outcome = tally.outcome
    if outcome.result == "eliminated":
        verb = "is eliminated" if final else "would be eliminated if the day ended now"
        return f"{outcome.player} {verb} ({outcome.rule}: {outcome.detail})"
    if outcome.result == "undecided":  # the GM must announce it (e.g. a protection claim, E5)
        return f"Result pending the GM ({outcome.rule}: {outcome.detail})"
    if outcome.result == "tie":
        return f"Tie between {', '.join(outcome.tied)} ({outcome.rule}: {outcome.detail})"
    return f"No elimination ({outcome.rule}: {outcome.detail})"


def rule_lines(tally: Tally, final: bool) -> list[str]:
    """What it takes (majority, threshold), the outcome, and the draw's seed (K10: public so
    anyone can repeat it)."""
    lines = []
    if tally.majority is not None:
        lines.append(f"With {len(tally.living)} alive, it takes {tally.majority} to eliminate.")
    if tally.threshold is not None:
        lines.append(f"Nobody is eliminated with fewer than {tally.threshold} votes.")
    lines.append(outcome_line(tally, final))
    if tally.seed:
        lines.append(f"Random draw seed: {tally.seed}")
    return lines


def render_post(tally: Tally, dialect_name: str) -> str:
    d = DIALECTS[dialect_name]
    permalinks = {v.post_id: v.permalink for v in tally.verdicts}
    final = tally.as_of >= tally.deadline or tally.ended_at is not None
    title = f"Vote count, day {tally.day}" + (" (final)" if final else "")
    lines = [d.heading(f"{title}: {tally.game}"), ""]
    if tally.counts:
        lines += [count_line(c, d, permalinks) for c in tally.counts]
    else:
        lines.append("No votes yet.")
    lines.append("")
    if tally.not_voting:
        lines.append(f"{d.bold('Not voting')} ({len(tally.not_voting)}): {', '.join(tally.not_voting)}")
    lines += rule_lines(tally, final)
    lines.append("")
    up_to = f"post {tally.counted_up_to}" if tally.counted_up_to else "the start of the day"
    lines.append(f"Counted up to {up_to}, as of {when(tally.as_of, tally.zone)}.")
    lines.append(f"Deadline: {when(tally.deadline, tally.zone)}.")
    lines.append(d.small(f"Counted by tally {__version__}, preset {tally.preset}."))
    return "\n".join(lines) + "\n"
