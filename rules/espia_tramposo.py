"""The Tramposo's secret votes in `espia` (RULES.md E6, roles 1.2.1; E8).

Sent by PM before the close, each power once per game and never both on one day: add 2 votes (to
one or two players), or remove 1 vote from a player (2 when he names himself). Secret: only the
GM's count (`gm_counts`) shows them (C5).
"""

from __future__ import annotations

from dataclasses import dataclass

from tally.game import Event
from tally.model import Count, Finding, msg
from tally.rules.espia_priority import dead_before, justiciero_caveat
from tally.rules.reading import Context, event_day, second_after


@dataclass(frozen=True, slots=True)
class Trick:
    target: str
    delta: int  # +1/+2 added, -1/-2 removed
    event: Event


def tramposo(ctx: Context, precision: str) -> tuple[tuple[Trick, ...], tuple[Finding, ...]]:
    """E6: the Tramposo's PMs for this day that take effect, with a secret finding for each.

    Each power once per game (a use on an earlier day spends it), never both on one day (the
    later PM is void), the PM before the close (E1's minute), +2 votes in all. E8: a Tramposo
    not alive when he sends it has no effect; one killed later that day is flagged, since the
    Justiciero's kill resolves first (section 7)."""
    late = second_after(ctx.day.deadline, precision)
    tricks: list[Trick] = []
    findings: list[Finding] = []
    added: dict[str, int] = {}
    removed: set[str] = set()
    # C6: a PM counts from its own time; a count taken before it does not show it.
    events = tuple(e for e in ctx.game.events_of("tramposo_add", "tramposo_remove") if e.at <= ctx.as_of)
    for event in events:
        if event_day(event, ctx.game, precision) != ctx.day.number or not event.player or not event.target:
            continue
        who, power = event.player, "add" if event.kind == "tramposo_add" else "remove"
        head = (msg("Tramposo {player}: add votes on {target} (PM {when})", player=who,
                    target=event.target, when=ctx.clock(event.at)) if power == "add" else
                msg("Tramposo {player}: remove votes on {target} (PM {when})", player=who,
                    target=event.target, when=ctx.clock(event.at)))

        def void(why: str, gm: bool = False, head: str = head, who: str = who) -> None:
            findings.append(Finding("E6", msg("{head}: no effect: {why}", head=head, why=why), None,
                                    who, needs_gm=gm, secret=True))

        days = [event_day(e, ctx.game, precision) for e in events
                if e.kind == event.kind and e.player == who]
        earlier = sorted(d for d in days if d is not None and d < ctx.day.number)
        dead = dead_before(who, event.at, ctx)
        if dead is not None:
            void(dead)
        elif event.at >= late:
            void(msg("sent after the close ({when})", when=ctx.clock(ctx.day.deadline)))
        elif earlier:
            void(msg("the power was already used on day {day} (once per game)", day=earlier[0]),
                 gm=True)
        elif (power == "add" and removed & {who}) or (power == "remove" and who in added):
            void(msg("both powers on the same day (the first PM holds)"), gm=True)
        elif power == "remove" and who in removed:
            void(msg("the remove power takes one player"), gm=True)
        else:
            votes = 2 if event.target == who else 1
            if power == "add":
                votes = 2 if event.votes is None else event.votes
                if added.get(who, 0) + votes > 2:
                    void(msg("more than 2 extra votes ({n} already)", n=added.get(who, 0)),
                         gm=True)
                    continue
                added[who] = added.get(who, 0) + votes
            else:
                removed.add(who)
            delta = votes if power == "add" else -votes
            tricks.append(Trick(event.target, delta, event))
            signed = f"{delta:+d}"
            findings.append(Finding("E6", msg("{head}: {delta} on {target} in the GM's count",
                                              head=head, delta=signed, target=event.target),
                                    None, who, secret=True))
            caveat = justiciero_caveat(who, ctx, msg("his PM"), msg("his action"))
            if caveat is not None:
                findings.append(Finding("E8", msg("Tramposo {player} {caveat}", player=who,
                                                  caveat=caveat), None, who, needs_gm=True,
                                        secret=True))
    return tuple(tricks), tuple(findings)


def with_tricks(counts: tuple[Count, ...], tricks: tuple[Trick, ...]) -> tuple[Count, ...]:
    """The public counts with the Tramposo's votes applied, most votes first (GM only)."""
    rows = {c.player: c for c in counts}
    order = [c.player for c in counts]
    for trick in tricks:
        old = rows.get(trick.target) or Count(trick.target, 0, ())
        if trick.target not in rows:
            order.append(trick.target)
        votes = max(0, old.votes + trick.delta)
        posts = old.posts if old.posts or not old.voters else ("",) * len(old.voters)
        extra = msg("({role} {who})", role="Tramposo", who=format(trick.delta, "+d"))
        rows[trick.target] = Count(trick.target, votes, old.voters + (extra,), posts + ("",))
    ranked = sorted(order, key=lambda p: -rows[p].votes)  # stable: the public order among equals
    return tuple(rows[p] for p in ranked)
