"""The `kira` preset: the Death Note game on JV (RULES.md section 1, rulebook rules 121-226)."""

from __future__ import annotations

from dataclasses import dataclass, field

from tally.model import Finding, Message, Outcome, Tally, msg, msg_n
from tally.rules import change
from tally.rules import validity as v
from tally.rules.change import settle
from tally.rules.outcome import (
    Pile,
    draw,
    draw_seed,
    drawn,
    inclusive,
    leaders,
    most_votes,
    not_voting,
    piles,
    tally,
    tie_between,
)
from tally.rules.preset import Preset
from tally.rules.reading import Context, Reading, Stage
from tally.syntax import pack


@dataclass(frozen=True)
class KiraOptions:
    threshold: int = field(default=3, metadata={"min": 1})  # K9
    void_edited_revokes: bool = True  # K4a
    precision: str = field(default="second", metadata={"choices": ("second", "minute")})  # C7


def validity(o: KiraOptions) -> tuple[Stage, ...]:
    return (
        v.late("K1", o.precision),
        v.voter_may_vote("K2", "K12"),
        v.edit_marker("K4", "K4a", void_revokes=o.void_edited_revokes),
        v.no_elimination("K4", allowed=False),
        v.names_resolved("C2"),
        v.target_alive("K4"),
        v.joke("K4"),
    )


def decide(readings: tuple[Reading, ...], ctx: Context, o: KiraOptions,
           findings: tuple[Finding, ...]) -> Tally:
    settlement = settle(readings)  # K3, K6, K7, K12 (a dead voter's posts were voided)
    living = ctx.life.living(ctx.cutoff)
    found = piles(settlement, readings)  # K8
    absent, quiet = not_voting(ctx, living, settlement, "K8")
    outcome, seed = kira_outcome(found, ctx, o.threshold)
    return tally(ctx, readings, settlement.verdicts, found, outcome, findings + quiet, living,
                 absent, seed=seed, threshold=o.threshold)


def kira_outcome(found: tuple[Pile, ...], ctx: Context, threshold: int) -> tuple[Outcome, str | None]:
    top = leaders(found)
    if not top or top[0].count.votes < threshold:  # K9
        most = (msg("most: {players} with {votes}", players=tuple(p.count.player for p in top),
                    votes=top[0].count.votes) if top else msg("no votes"))
        return Outcome("none", None, "K9", msg_n("nobody has {n} votes ({most})",
                                                 "nobody has {n} votes ({most})",
                                                 n=threshold, most=most)), None
    chosen, detail, seed = _tiebreak(top, ctx)
    tied = tuple(p.count.player for p in top) if len(top) > 1 else ()
    died = ctx.life.death(chosen, ctx.cutoff)
    if died is not None:  # K11: killing a dead player has no effect
        return Outcome("none", None, "K11", msg("{player} is picked ({detail}) but already dead "
                                                "(died {when}): nothing happens", player=chosen,
                                                detail=detail, when=ctx.clock(died)), tied), seed
    return Outcome("eliminated", chosen, "K10", detail, tied), seed  # K13: one kill at most


def _tiebreak(top: tuple[Pile, ...], ctx: Context) -> tuple[str, Message, str | None]:
    """K10: most votes; tie: the earliest LAST standing vote loses; still tied: a seeded draw."""
    votes = top[0].count.votes
    if len(top) == 1:
        return top[0].count.player, most_votes(votes), None
    names = tuple(p.count.player for p in top)
    earliest = min(p.last_time for p in top)
    first = [p for p in top if p.last_time == earliest]
    if len(first) == 1:
        pile = first[0]
        return pile.count.player, msg("{head}: {player}'s last standing vote (post {post}, "
                                      "{when}) is the earliest", head=tie_between(votes, names),
                                      player=pile.count.player, post=pile.last_post,
                                      when=ctx.clock(pile.last_time)), None
    seed = draw_seed(ctx)
    pick = draw([p.count.player for p in first], seed)
    at = tuple(p.count.player for p in first)
    same = msg("{head}; last votes of {players} at the same time ({when})",
               head=tie_between(votes, names), players=at, when=ctx.clock(earliest))
    return pick, drawn(same, seed, pick), seed


def notes(o: KiraOptions) -> tuple[str, ...]:
    revokes = (msg("K4a: revokes in edited posts are void (default)") if o.void_edited_revokes
               else msg("K4a: revokes in edited posts are kept (game file)"))
    return (
        inclusive(o.precision),
        revokes,
        msg("K4: an edit marker without a date is taken as made before the deadline (void)"),
        msg("K4b: an edit dated after the deadline does not void; the text at the deadline comes "
            "from a saved copy, else the GM is asked"),
        msg("K4: a text changed with no edit message (a silent edit) is not void: 213 names the "
            "message; one seen only after the deadline is judged on the copy fetched by then (C6)"),
        msg("K10: a tie the earliest-last-vote rule cannot break is drawn: {formula}",
            formula="sorted(tied)[int(seed, 16) % n], seed = sha256('<thread url>|day <n>') "
                    "first 16 hex digits"),
    )


PRESET = Preset(name="kira", syntax=pack("en"), defaults=KiraOptions(), validity=validity,
                decide=decide, notes=notes, fold=change.fold)
