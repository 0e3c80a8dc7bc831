"""Count, tiebreak and the Tally: the stages after the change policy, shared by the presets.

The random draw (K10, and majority's `tiebreak = "random"`) is repeatable by hand:

    seed  = first 16 hex digits of sha256("<thread url>|day <n>")   (UTF-8; printed in the tally)
    order = the tied players sorted by name (Python's str order: code points)
    pick  = order[int(seed, 16) % len(order)]

e.g. `python -c "import hashlib; print(hashlib.sha256(b'https://x/t/1|day 2').hexdigest()[:16])"`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from tally.model import Count, Finding, Message, Outcome, Tally, Verdict, msg, msg_n
from tally.rules.change import Settlement, Standing
from tally.rules.reading import Context, Reading


@dataclass(frozen=True, slots=True)
class Pile:
    """The standing votes on one target, with when it reached its count (its latest vote)."""

    count: Count
    last_time: datetime
    last_position: int
    last_post: str


def piles(settlement: Settlement, readings: tuple[Reading, ...]) -> tuple[Pile, ...]:
    """K8: the standing votes per target; most votes first, then earliest to reach the count."""
    by_target: dict[str, list[Standing]] = {}
    for vote in settlement.standing.values():
        by_target.setdefault(vote.target, []).append(vote)
    out: list[Pile] = []
    for target, votes in by_target.items():
        votes.sort(key=lambda v: v.index)  # voters in the order of their counted post
        posts = [readings[v.index].post for v in votes]
        count = Count(target, len(votes), tuple(v.voter for v in votes), tuple(p.id for p in posts))
        latest = posts[-1]  # highest index is the latest in thread order
        out.append(Pile(count, max(p.created_at for p in posts), latest.position, latest.id))
    out.sort(key=lambda p: (-p.count.votes, p.last_time, p.last_position, p.count.player))
    return tuple(out)


def leaders(found: Sequence[Pile]) -> tuple[Pile, ...]:
    top = found[0].count.votes if found else 0
    return tuple(p for p in found if p.count.votes == top)


def thread_url(ctx: Context) -> str:
    return ctx.day.thread_url or ctx.game.thread_url


def draw_seed(ctx: Context) -> str:
    return hashlib.sha256(f"{thread_url(ctx)}|day {ctx.day.number}".encode()).hexdigest()[:16]


def draw(tied: Sequence[str], seed: str) -> str:
    order = sorted(tied)
    return order[int(seed, 16) % len(order)]


# The reasons every preset's outcome gives, as messages a renderer translates (issue 14).


def tie_between(votes: int, tied: Sequence[str]) -> Message:
    return msg_n("tie at {n} votes between {players}", "tie at {n} votes between {players}",
                 n=votes, players=tuple(tied))


def drawn(head: str, seed: str, chosen: str) -> Message:
    """K10 / tiebreak = "random": the seeded draw, public so anyone can repeat it."""
    return msg("{head}: random draw with seed {seed} picks {player}", head=head, seed=seed,
               player=chosen)


def already_dead(detail: str, chosen: str, died: str) -> Message:
    return msg("{detail}; {player} is already dead (died {when})", detail=detail, player=chosen,
               when=died)


def inclusive(precision: str) -> Message:
    """The presets' note on C7: the deadline's second (or minute) is in time."""
    unit = msg("second") if precision == "second" else msg("minute")
    return msg("C7: the deadline {unit} is inclusive", unit=unit)


def tiebreak_note(tiebreak: str, nobody: Message) -> Message:
    """What a tie at the deadline does, as the game file chose (majority, espia)."""
    return {"gm": msg("the GM decides (default)"), "random": msg("a seeded random draw (game file)"),
            "none": nobody}[tiebreak]


def edits_note(void_edited: bool) -> Message:
    return (msg("edited vote posts are void (game file)") if void_edited
            else msg("edits do not void votes (default)"))


def most_votes(votes: int) -> Message:
    return msg("most votes ({votes})", votes=votes)


def not_voting(ctx: Context, living: tuple[str, ...], settlement: Settlement,
               rule: str) -> tuple[tuple[str, ...], tuple[Finding, ...]]:
    """Living players with no standing vote, each with a Finding (excused ones say so)."""
    missing = tuple(p for p in living if p not in settlement.standing)
    findings = tuple(
        Finding(rule, msg("{player} has no standing vote (excused)", player=p)
                if p in ctx.game.excused else msg("{player} has no standing vote", player=p),
                player=p)
        for p in missing
    )
    return missing, findings


def tally(ctx: Context, readings: tuple[Reading, ...], verdicts: tuple[Verdict, ...],
          found: Sequence[Pile], outcome: Outcome, findings: tuple[Finding, ...],
          living: tuple[str, ...], absent: tuple[str, ...], *, seed: str | None = None, majority: int | None = None,
          threshold: int | None = None, ended_at: datetime | None = None) -> Tally:
    return Tally(
        game=ctx.game.title, preset=ctx.preset, day=ctx.day.number, deadline=ctx.day.deadline,
        as_of=ctx.as_of, counts=tuple(p.count for p in found),
        not_voting=absent,
        outcome=outcome, verdicts=verdicts, living=living, findings=findings, seed=seed,
        majority=majority, threshold=threshold, ended_at=ended_at,
        counted_up_to=readings[-1].post.id if readings else None,
        zone=ctx.game.timezone, thread_url=thread_url(ctx),
        gm_counts=None, gm_outcome=None,  # no secret effects in these presets (seam: issue 4)
        notes=ctx.notes,
    )
