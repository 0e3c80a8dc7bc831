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
from tally.render.i18n import Lang, get
from tally.render.post import (
    DIALECTS,
    Dialect,
    counted_in_rule_lines,
    line_of,
    not_voting_line,
    rule_lines,
    up_to_position,
    voters_of,
)
from tally.when import Changes, changes, doubts

MARKER = "tally · "  # followed by the first 12 hex digits of the content hash


def marker(sha256: str) -> str:
    return f"{MARKER}{sha256[:12]}"


def forum_time(moment: datetime, zone: str, t: Lang | None = None) -> str:
    """'Sun 17 Jan 22:00 (CET)': the forum's wall time and its zone name, in the forum's style
    ("sáb 21 nov, 22:00", "21 ноября, 21:00", "11月21日 21:00": the catalogue's pattern)."""
    t = t or get()
    shown = t.timef(moment, zone, "EEE d MMM HH:mm")
    return t._("{time} ({zone})", time=shown, zone=times.zone_abbreviation(moment, zone))


def countdown(deadline: datetime, now: datetime, t: Lang | None = None) -> str:
    """'in 3 h 12 min', 'in 2 days 4 h', 'in 40 s'; 'passed' after it."""
    t = t or get()
    left = int((deadline - now).total_seconds())
    if left <= 0:
        return t._("passed")
    days, rest = divmod(left, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, seconds = divmod(rest, 60)
    if days:
        return t.n_("in {n} day {hours} h", "in {n} days {hours} h", n=days, hours=hours)
    if hours:
        return t._("in {hours} h {minutes} min", hours=hours, minutes=minutes)
    if minutes:
        return t._("in {minutes} min", minutes=minutes)
    return t._("in {seconds} s", seconds=seconds)


def to_elimination(count: Count, tally: Tally, t: Lang | None = None) -> str:
    """'L-2': votes still needed to reach the majority (C3) or the threshold (K9)."""
    t = t or get()
    needed = tally.majority if tally.majority is not None else tally.threshold
    if needed is None:
        return ""
    missing = needed - count.votes
    return t._(", L-{n}", n=missing) if missing > 0 else t._(", reached")


def candidate_line(count: Count, tally: Tally, d: Dialect, permalinks: Mapping[str, str],
                   t: Lang | None = None) -> str:
    t = t or get()
    votes = t.number(count.votes) + to_elimination(count, tally, t)
    return line_of(t, d.bold(d.text(count.player)), votes, voters_of(count, d, permalinks, t))


def changes_line(moved: Changes, since: str, t: Lang | None = None,
                 d: Dialect = DIALECTS["text"]) -> str | None:
    # Worded without "vote X" (nor "voto a X", "голос X", "投票X") so that tally never reads its
    # own post as a ballot: the translations keep to that too.
    t = t or get()
    n = d.text
    parts = [t._("{voter} now on {target}", voter=n(voter), target=n(target))
             for voter, target in moved.new]
    parts += [t._("{voter} moved from {old} to {new}", voter=n(voter), old=n(old), new=n(new))
              for voter, old, new in moved.changed]
    parts += [t._("{voter} withdrew (was on {old})", voter=n(voter), old=n(old))
              for voter, old in moved.withdrawn]
    if not parts:
        return None
    return t._("Changes since the last count ({since}): {changes}.", since=since,
               changes=t.p_("between sentences", "; ").join(parts))


def render_update(tally: Tally, *, summary: Mapping[str, Any], sha256: str,
                  last: Mapping[str, Any] | None, last_at: datetime | None, now: datetime,
                  dialect: str, lang: str = "en") -> str:
    """The posted count. `summary`: when.summarise of this count; `last`: the last posted
    count's summary (None for the day's first); `sha256`: this count's content hash."""
    d, t = DIALECTS[dialect], get(lang)
    final = bool(summary.get("final"))
    permalinks = {v.post_id: v.permalink for v in tally.verdicts}
    game = d.text(tally.game)
    title = (t._("Final vote count, day {day}: {game}", day=tally.day, game=game) if final
             else t._("Vote count, day {day}: {game}", day=tally.day, game=game))
    lines = [d.heading(title), ""]
    if tally.counts:
        lines += [candidate_line(c, tally, d, permalinks, t) for c in tally.counts]
    else:
        lines.append(t._("No votes yet."))
    if tally.not_voting:
        lines.append(not_voting_line(tally, d, t))
    lines.append("")
    lines += rule_lines(tally, final, t, d.text)
    if last is not None and last_at is not None:
        moved = changes_line(changes(last, summary), forum_time(last_at, tally.zone, t), t, d)
        if moved:
            lines += ["", moved]
    # on_doubt = "say": what waits for the GM, never a guess. The same list as the summary's
    # (when.doubts), here as the rules' messages so that they are said in the post's language.
    # The votes rule_lines already counts (C2, K4b, C6: only their number is public, never who
    # wrote them) are not said a second time, with their writer, here.
    counted = {f.message for f in tally.findings if counted_in_rule_lines(f)}
    waiting = tuple(w for w in doubts(tally, final) if w not in counted) \
        if summary.get("doubts") else ()
    if waiting:
        said = t.p_("between sentences", "; ").join(t.text(w, d.text) for w in waiting)
        # "moderator", as in rule_lines: the public post never says "GM"
        label = d.bold(t._("Waiting for the moderator"))
        lines += ["", t._("{label}: {doubts}.", label=label, doubts=said)]
    lines.append("")
    lines.append(t._("Counted up to {post}, as of {when}, forum time.",
                     post=_up_to(tally, d, permalinks, t),
                     when=forum_time(tally.as_of, tally.zone, t)))
    lines.append(t._("Deadline {when}, {countdown}.", when=forum_time(tally.deadline, tally.zone, t),
                     countdown=countdown(tally.deadline, now, t)))
    lines.append(d.small(t._("{marker} · tally {version} · preset {preset}", marker=marker(sha256),
                             version=__version__, preset=tally.preset)))
    return "\n".join(lines) + "\n"


def _up_to(tally: Tally, d: Dialect, permalinks: Mapping[str, str], t: Lang) -> str:
    if not tally.counted_up_to:
        return t._("the start of the day")
    position = up_to_position(tally)
    label = (t._("post #{position}", position=position) if position is not None
             else t._("post {post}", post=tally.counted_up_to))
    return d.link(label, permalinks.get(tally.counted_up_to, ""))
