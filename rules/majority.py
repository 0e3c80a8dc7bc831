"""The `majority` preset: the usual forum-mafia convention (RULES.md C3).

"##vote Name" / "##unvote"; the day ends as soon as a player has a majority of the living
(half the living, rounded down, plus one: the hammer); otherwise plurality at the deadline.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from tally.model import Finding, Outcome, Tally, msg
from tally.rules import validity as v
from tally.rules.change import NO_ELIMINATION, Effect, Standing, Tallying, apply, settle, walk
from tally.rules.outcome import (
    Pile,
    already_dead,
    draw,
    draw_seed,
    drawn,
    edits_note,
    inclusive,
    leaders,
    not_voting,
    piles,
    tally,
    tie_between,
    tiebreak_note,
)
from tally.rules.preset import Preset
from tally.rules.reading import Context, Reading, Stage, void_steps
from tally.syntax import pack


@dataclass(frozen=True)
class MajorityOptions:
    tiebreak: str = field(default="gm", metadata={"choices": ("gm", "random", "none")})
    void_edited: bool = False  # the convention lets players edit; a game may forbid it
    precision: str = field(default="second", metadata={"choices": ("second", "minute")})  # C7
    no_elimination: bool = True  # "no lynch" / "sleep" counts like a candidate


def validity(o: MajorityOptions) -> tuple[Stage, ...]:
    return (
        v.late("deadline", o.precision),
        v.voter_may_vote("not a player", "dead"),
        v.edit_marker("edited", "edited", void_revokes=o.void_edited, void_votes=o.void_edited),
        v.no_elimination("not a player", allowed=o.no_elimination),
        v.names_resolved("C2"),
        v.target_alive("dead target"),
        v.joke("joke"),
    )


def majority_of(living: tuple[str, ...]) -> int:
    return len(living) // 2 + 1


@dataclass(frozen=True, slots=True)
class Hammer:
    index: int  # the reading that reached the majority
    vote: Standing


def find_hammer(readings: tuple[Reading, ...], ctx: Context) -> Hammer | None:
    """The first post whose vote gives its target a majority of the living at that moment."""
    for index, effect, standing in walk(readings):
        if hammers(effect, standing, readings[index], ctx):
            assert effect.vote is not None
            return Hammer(index, effect.vote)
    return None


def hammers(effect: Effect, standing: Mapping[str, Standing], reading: Reading,
            ctx: Context) -> bool:
    """Whether this post's vote gives its target a majority of the living at its time (C3)."""
    if effect.vote is None:  # a revoke never reaches a majority
        return False
    living = ctx.life.living(reading.post.created_at)
    target = effect.vote.target
    if target != NO_ELIMINATION and target not in living:
        return False
    votes = sum(1 for s in standing.values() if s.target == target)
    return votes >= majority_of(living)


def fold(state: Tallying, index: int, reading: Reading, ctx: Context) -> Tallying:
    """The standing votes one post at a time, frozen at the hammer (C3: posts after it are void)."""
    if state.ended:
        return state
    standing = dict(state.standing)
    effect = apply(standing, index, reading)
    if effect is None:
        return state
    return Tallying(standing, ended=hammers(effect, standing, reading, ctx))


def after_hammer(readings: tuple[Reading, ...], hammer: Hammer) -> tuple[Reading, ...]:
    """C3: the day is over at the hammer; every vote post after it is void."""
    post = readings[hammer.index].post.id
    return tuple(void_steps(r, "C3", msg("after the hammer (post {post})", post=post))
                 if i > hammer.index else r
                 for i, r in enumerate(readings))


def decide(readings: tuple[Reading, ...], ctx: Context, o: MajorityOptions,
           findings: tuple[Finding, ...]) -> Tally:
    hammer = find_hammer(readings, ctx)
    point = ctx.cutoff
    if hammer is not None:
        readings = after_hammer(readings, hammer)
        point = readings[hammer.index].post.created_at
    settlement = settle(readings)
    living = ctx.life.living(point)
    found = piles(settlement, readings)
    absent, quiet = not_voting(ctx, living, settlement, "C3")
    seed = None
    if hammer is not None:
        outcome = _hammer_outcome(hammer, readings, found, living)
    else:
        outcome, seed = plurality(found, ctx, o.tiebreak)
    return tally(ctx, readings, settlement.verdicts, found, outcome, findings + quiet, living,
                 absent, seed=seed, majority=majority_of(living),
                 ended_at=point if hammer is not None else None)


def _hammer_outcome(hammer: Hammer, readings: tuple[Reading, ...], found: tuple[Pile, ...],
                    living: tuple[str, ...]) -> Outcome:
    target = hammer.vote.target
    votes = next(p.count.votes for p in found if p.count.player == target)
    detail = msg("hammer by {voter} in post {post}: {votes} of {living} living",
                 voter=hammer.vote.voter, post=readings[hammer.index].post.id, votes=votes,
                 living=len(living))
    if target == NO_ELIMINATION:
        return Outcome("none", None, "C3", detail)
    return Outcome("eliminated", target, "C3", detail)


def plurality(found: tuple[Pile, ...], ctx: Context, tiebreak: str) -> tuple[Outcome, str | None]:
    """No hammer: the most votes at the deadline; a tie goes to the option `tiebreak`."""
    top = leaders(found)
    if not top:
        return Outcome("none", None, "C3", msg("no votes")), None
    votes = top[0].count.votes
    tied = tuple(p.count.player for p in top) if len(top) > 1 else ()
    seed = None
    chosen = top[0].count.player
    detail = msg("most votes ({votes}), no majority", votes=votes)
    if tied:
        head = tie_between(votes, tied)
        if tiebreak == "gm":
            return Outcome("tie", None, "C3", msg("{head}: the GM decides", head=head), tied), None
        if tiebreak == "none":
            return Outcome("none", None, "C3", msg("{head}: nobody is eliminated", head=head),
                           tied), None
        seed = draw_seed(ctx)
        chosen = draw(tied, seed)
        detail = drawn(head, seed, chosen)
    if chosen == NO_ELIMINATION:
        return Outcome("none", None, "C3", detail, tied), seed
    died = ctx.life.death(chosen, ctx.cutoff)
    if died is not None:
        return Outcome("none", None, "C3", already_dead(detail, chosen, ctx.clock(died)),
                       tied), seed
    return Outcome("eliminated", chosen, "C3", detail, tied), seed


def notes(o: MajorityOptions) -> tuple[str, ...]:
    tie = tiebreak_note(o.tiebreak, msg("nobody is eliminated (game file)"))
    return (
        msg("C3: majority = half the living, rounded down, plus one"),
        msg("C3: a tie at the deadline: {tie}", tie=tie),
        edits_note(o.void_edited),
        inclusive(o.precision),
    )


PRESET = Preset(name="majority", syntax=pack("en", no_elimination=True),
                defaults=MajorityOptions(), validity=validity, decide=decide, notes=notes, fold=fold)
