"""The count the scheduled run posts into the thread (issue 5), in the forum's own markup.

What players ask for: each candidate with its voters, each voter linked to the vote post; votes
to elimination (L-1, L-2) where the preset has a majority (C3) or a threshold (K9); who has not
voted; the changes since the last posted count; what waits for the GM (never a guess); "counted
up to post #N"; the deadline in forum time with a countdown; and a last small line carrying the
count's marker (tally · <content hash>), by which the next run recognises its own post in the
thread's tail.

Only public fields of the Tally are read here (C5): never gm_counts, gm_outcome or a secret
finding, and roles are not in a Tally at all. Layout pieces come from render/post.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from tally import __version__, times
from tally.model import Count, Tally
from tally.render.post import DIALECTS, Dialect, rule_lines
from tally.when import Changes, changes

MARKER = "tally · "  # followed by the first 12 hex digits of the content hash


def marker(sha256: str) -> str:
    return f"{MARKER}{sha256[:12]}"


def forum_time(moment: datetime, zone: str) -> str:
    """'Sun 17 Jan 22:00 (CET)': the forum's wall time and its zone name."""
    local = times.to_local(moment, zone)
    return f"{local:%a} {local.day} {local:%b %H:%M} ({local.tzname() or zone})"


def countdown(deadline: datetime, now: datetime) -> str:
    """'in 3 h 12 min', 'in 2 days 4 h', 'in 40 s'; 'passed' after it."""
    left = int((deadline - now).total_seconds())
    if left <= 0:
        return "passed"
    days, rest = divmod(left, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return f"in {days} day{'s' * (days != 1)} {hours} h"
    if hours:
        return f"in {hours} h {minutes} min"
    if minutes:
        return f"in {minutes} min"
    return f"in {seconds} s"


def to_elimination(count: Count, tally: Tally) -> str:
    """'L-2': votes still needed to reach the majority (C3) or the threshold (K9)."""
    needed = tally.majority if tally.majority is not None else tally.threshold
    if needed is None:
        return ""
    missing = needed - count.votes
    return f", L-{missing}" if missing > 0 else ", reached"


def candidate_line(count: Count, tally: Tally, d: Dialect, permalinks: Mapping[str, str]) -> str:
    posts = count.posts or ("",) * len(count.voters)
    voters = ", ".join(d.link(voter, permalinks.get(post, "")) for voter, post in
                       zip(count.voters, posts))
    return f"{d.bold(count.player)} ({count.votes}{to_elimination(count, tally)}): {voters}"


def changes_line(moved: Changes, since: str) -> str | None:
    # Worded without "vote X" so that tally never reads its own post as a ballot.
    parts = [f"{voter} now on {target}" for voter, target in moved.new]
    parts += [f"{voter} moved from {old} to {new}" for voter, old, new in moved.changed]
    parts += [f"{voter} withdrew (was on {old})" for voter, old in moved.withdrawn]
    if not parts:
        return None
    return f"Changes since the last count ({since}): " + "; ".join(parts) + "."


def render_update(tally: Tally, *, summary: Mapping[str, Any], sha256: str,
                  last: Mapping[str, Any] | None, last_at: datetime | None, now: datetime,
                  dialect: str) -> str:
    """The posted count. `summary`: when.summarise of this count; `last`: the last posted
    count's summary (None for the day's first); `sha256`: this count's content hash."""
    d = DIALECTS[dialect]
    final = bool(summary.get("final"))
    permalinks = {v.post_id: v.permalink for v in tally.verdicts}
    title = f"{'Final vote count' if final else 'Vote count'}, day {tally.day}"
    lines = [d.heading(f"{title}: {tally.game}"), ""]
    if tally.counts:
        lines += [candidate_line(c, tally, d, permalinks) for c in tally.counts]
    else:
        lines.append("No votes yet.")
    if tally.not_voting:
        lines.append(f"{d.bold('Not voting')} ({len(tally.not_voting)}): "
                     f"{', '.join(tally.not_voting)}")
    lines.append("")
    lines += rule_lines(tally, final)
    if last is not None and last_at is not None:
        moved = changes_line(changes(last, summary), forum_time(last_at, tally.zone))
        if moved:
            lines += ["", moved]
    doubts = summary.get("doubts") or ()
    if doubts:  # on_doubt = "say": what waits for the GM, never a guess
        lines += ["", f"{d.bold('Waiting for the GM')}: " + "; ".join(doubts) + "."]
    lines.append("")
    lines.append(f"Counted up to {_up_to(tally, d, permalinks)}, as of "
                 f"{forum_time(tally.as_of, tally.zone)}, forum time.")
    deadline = forum_time(tally.deadline, tally.zone)
    lines.append(f"Deadline {deadline}, {countdown(tally.deadline, now)}.")
    lines.append(d.small(f"{marker(sha256)} · tally {__version__} · preset {tally.preset}"))
    return "\n".join(lines) + "\n"


def _up_to(tally: Tally, d: Dialect, permalinks: Mapping[str, str]) -> str:
    if not tally.counted_up_to:
        return "the start of the day"
    position = next((v.position for v in tally.verdicts if v.post_id == tally.counted_up_to),
                    None)
    label = f"post #{position}" if position is not None else f"post {tally.counted_up_to}"
    return d.link(label, permalinks.get(tally.counted_up_to, ""))
