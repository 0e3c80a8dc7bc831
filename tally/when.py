"""When the scheduled run posts the count (issue 5): a pure policy, no I/O.

    the new count (Tally) + the last posted count (its summary, when) + [posting] + now
        ─► Decision(post, reason, final)

The rules, in the order they are checked:
- the final count of a day is posted once; after it, nothing more for that day;
- after the deadline (or once the day ended early, a hammer: C3) the count is final and is
  posted once (`at_deadline`), but never inside the quiet hours: it waits until they end;
- nothing is posted when the count's content is what was posted last ("changed" is the content
  hash of `summarise`: counts, voters, who has not voted, the outcome, what waits for the GM,
  whether it is final; never the times or the countdown);
- never in the quiet hours (forum time);
- the first count of a day is posted as soon as there is one vote;
- at once when a player reaches the threshold or the majority (`at_threshold`: the preset's
  Tally.threshold / Tally.majority, K9 / C3), or when `every_votes` votes changed;
- otherwise when the count changed and `min_interval` minutes have passed since the last one.

Every reason is a sentence a GM can read in the cron log.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from tally import times
from tally.game import Posting
from tally.model import Tally, msg

# The parts of a summary that make a count "the same count" (see the module doc).
HASHED = ("day", "final", "counts", "not_voting", "outcome", "doubts")


@dataclass(frozen=True)
class Decision:
    post: bool
    reason: str
    final: bool


@dataclass(frozen=True)
class LastPosted:
    """The last count posted for the day: what it said (`summarise`) and when (UTC)."""

    summary: Mapping[str, Any]
    at: datetime
    sha256: str


# ---------------------------------------------------------------------------------------------
# What a count says


def is_final(tally: Tally, now: datetime) -> bool:
    """The deadline passed, or the day ended before it (a hammer, C3)."""
    return now >= tally.deadline or tally.ended_at is not None


def doubts(tally: Tally, final: bool) -> tuple[str, ...]:
    """What waits for the GM, in public words: unresolved votes (an ambiguous or unknown name,
    a vote the rules cannot settle: findings with needs_gm that point at a post), and on the
    final count a tie or a result left to the GM. Secret findings never appear here (C5); a
    running tie before the deadline is no doubt, only the state of the day."""
    found = [f.message for f in tally.findings if f.needs_gm and not f.secret and f.post_id]
    if final and tally.outcome.result == "tie":
        found.append(msg("the tie between {players} ({rule})", players=tally.outcome.tied,
                         rule=tally.outcome.rule))
    if final and tally.outcome.result == "undecided":
        found.append(msg("the result ({rule}: {detail})", rule=tally.outcome.rule,
                         detail=tally.outcome.detail))
    return tuple(dict.fromkeys(found))


def reached(tally: Tally) -> str | None:
    """'Bob reached the majority (4)' when a player has the votes the preset asks for."""
    if not tally.counts:
        return None
    top = tally.counts[0]
    if tally.majority is not None and top.votes >= tally.majority:
        return f"{top.player} reached the majority ({tally.majority})"
    if (tally.threshold is not None and top.votes >= tally.threshold
            and tally.outcome.result == "eliminated" and tally.outcome.player == top.player):
        return f"{top.player} reached the threshold ({tally.threshold})"
    return None


def summarise(tally: Tally, final: bool) -> dict[str, Any]:
    """What the count says, from its public part only (C5): kept with the posted row, hashed
    for "changed", and read back for "changes since the last count"."""
    standing = {voter: count.player for count in tally.counts for voter in count.voters}
    return {
        "day": tally.day,
        "final": final,
        "counts": [{"player": c.player, "votes": c.votes, "voters": list(c.voters)}
                   for c in tally.counts],
        "not_voting": list(tally.not_voting),
        "outcome": {"result": tally.outcome.result, "player": tally.outcome.player,
                    "tied": list(tally.outcome.tied)},
        "doubts": list(doubts(tally, final)),
        "standing": dict(sorted(standing.items())),
        "reached": reached(tally),
        "counted_up_to": tally.counted_up_to,
    }


def content_sha256(summary: Mapping[str, Any]) -> str:
    hashed = {key: summary.get(key) for key in HASHED}
    text = json.dumps(hashed, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Changes:
    """Standing votes since the last posted count: voter -> target, (old, new), old target."""

    new: tuple[tuple[str, str], ...] = ()
    changed: tuple[tuple[str, str, str], ...] = ()  # voter, from, to
    withdrawn: tuple[tuple[str, str], ...] = ()

    def __len__(self) -> int:
        return len(self.new) + len(self.changed) + len(self.withdrawn)


def changes(before: Mapping[str, Any] | None, after: Mapping[str, Any]) -> Changes:
    old: Mapping[str, str] = (before or {}).get("standing") or {}
    new: Mapping[str, str] = after.get("standing") or {}
    return Changes(
        new=tuple((v, t) for v, t in new.items() if v not in old),
        changed=tuple((v, old[v], t) for v, t in new.items() if v in old and old[v] != t),
        withdrawn=tuple((v, t) for v, t in old.items() if v not in new),
    )


# ---------------------------------------------------------------------------------------------
# The decision


def clock(moment: datetime, zone: str) -> str:
    """'21:04' in forum time; with the day when it is not today's."""
    return f"{times.to_local(moment, zone):%H:%M}"


def in_quiet_hours(now: datetime, hours: tuple[str, str] | None, zone: str) -> bool:
    """[start, end) in forum time; a span over midnight ("23:00"-"07:00") wraps."""
    if hours is None:
        return False
    local = times.to_local(now, zone)
    minute = local.hour * 60 + local.minute
    start, end = (int(t[:2]) * 60 + int(t[3:5]) for t in hours)
    if start <= end:
        return start <= minute < end
    return minute >= start or minute < end


def decide(tally: Tally, last: LastPosted | None, posting: Posting, now: datetime, *,
           final_posted: datetime | None = None) -> Decision:
    """Whether to post this count now, and why (see the module doc for the order).

    `last`: the day's last posted count; `final_posted`: when the day's final count was posted
    (None: not yet)."""
    zone = tally.zone
    final = is_final(tally, now)
    summary = summarise(tally, final)
    sha = content_sha256(summary)

    def no(reason: str) -> Decision:
        return Decision(False, reason, final)

    def yes(reason: str) -> Decision:
        return Decision(True, reason, final)

    if final_posted is not None:
        return no(f"the final count of day {tally.day} was posted at "
                  f"{clock(final_posted, zone)}; nothing more for this day")
    if final and not posting.at_deadline:
        return no(f"day {tally.day} is over and at_deadline is off")
    if last is not None and last.sha256 == sha:
        return no(f"nothing changed since the count posted at {clock(last.at, zone)}")
    if in_quiet_hours(now, posting.quiet_hours, zone):
        start, end = posting.quiet_hours or ("", "")
        wait = ": the final count waits until they end" if final else ""
        return no(f"quiet hours {start}-{end} forum time{wait}")
    if final:
        if tally.ended_at is not None and now < tally.deadline:
            why = reached(tally) or "the day ended early"
            return yes(f"{why}: final count")
        return yes("the deadline passed: final count")
    if last is None:
        if not tally.counts:
            return no(f"no votes yet in day {tally.day}")
        votes = sum(c.votes for c in tally.counts)
        return yes(f"first count of day {tally.day} ({votes} vote{'s' * (votes != 1)})")
    moved = changes(last.summary, summary)
    now_reached = summary["reached"]
    if posting.at_threshold and now_reached and now_reached != last.summary.get("reached"):
        return yes(now_reached)
    if posting.every_votes and len(moved) >= posting.every_votes:
        return yes(f"{len(moved)} new vote{'s' * (len(moved) != 1)} "
                   f"(every_votes {posting.every_votes})")
    waited = now - last.at
    if waited < timedelta(minutes=posting.min_interval):
        minutes = int(waited.total_seconds() // 60)
        return no(f"changed, but the last count was {minutes} min ago "
                  f"(min_interval {posting.min_interval})")
    what = f"{len(moved)} vote change{'s' * (len(moved) != 1)}" if len(moved) else "changed"
    return yes(f"{what} since the count posted at {clock(last.at, zone)}")
