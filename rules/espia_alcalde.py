"""The Alcalde's redirect in `espia` (RULES.md E7, roles 1.2.2; E8).

A post in the voting thread between 21:30 and 21:45 moves every vote, cast and to come, to one
target; two tries a voting day, five minutes apart, a void try using one up (Tip 2). Once his
role is revealed, a redirect is void while he leads the vote, counting the Tramposo's secret votes
sent before it (Nota 4). The post is public, so the public count moves the votes; who holds the
role and the Tramposo's votes are the GM's: `redirection` judges the claims twice, once per view.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, time, timedelta

from tally import times
from tally.model import Finding, Outcome, Post, Verdict, msg, msg_clauses, msg_n
from tally.rules.change import Settlement
from tally.rules.espia_change import standing_before
from tally.rules.espia_claims import Claim, claims, holder
from tally.rules.espia_priority import dead_before, justiciero_caveat
from tally.rules.espia_tramposo import Trick
from tally.rules.reading import Context, Reading, second_after

# "Redirijo todos los votos a Watson", "Como Alcalde, todos los votos a Watson", "Soy el
# Alcalde: cambio todas las votaciones a Watson" (roles 1.2.2: "cambiar las votaciones",
# "redirigirá todos los votos"). A verb of redirecting, or the word Alcalde, must lead in.
_REDIRECTS = re.compile(
    r"(?<!\w)(?:(?:redirijo|redirigir[ée]|cambio|cambiar[ée])\s+|alcalde\W+(?:\w+\W+){0,3}?)"
    r"(?:todos\s+los\s+votos|todas\s+las\s+votaciones|los\s+votos|las\s+votaciones)"
    r"(?:\s+van)?\s+(?:a|hacia|contra|para)\b\s*(?P<target>[^\n,.;!?()]+)", re.IGNORECASE)

_OPENS, _CLOSES = time(21, 30), time(21, 45)  # roles 1.2.2: "ningún minuto más, ningún minuto menos"
_GAP = timedelta(minutes=5)  # "esperar 5 minutos como mínimo entre cada cambio"
_SURE = 3  # a lead the Tramposo's secret votes (2 added, or up to 2 removed) cannot turn over


@dataclass(frozen=True, slots=True)
class Redirection:
    """One view of the day's redirect claims: the GM's (roles, the Tramposo's votes) or the
    public one (the thread and the public events: deaths, reveals)."""

    results: tuple[tuple[Claim, str | None], ...]  # each claim, and why it is void (None: applied)
    in_force: Claim | None  # the last one applied: every standing vote goes to its target
    pending: tuple[str, ...]  # why this view's result waits for the GM
    findings: tuple[Finding, ...]


def redirect_claims(readings: tuple[Reading, ...], ctx: Context, precision: str) -> tuple[Claim, ...]:
    """The redirects claimed in the voting thread: one try per post, however often it repeats
    the order."""
    firsts: dict[str, Claim] = {}
    for claim in claims(readings, ctx, precision, _REDIRECTS):
        firsts.setdefault(claim.post.id, claim)
    return tuple(firsts.values())


def _in_window(at: datetime, ctx: Context, precision: str) -> bool:
    """21:30 to 21:45 forum time on the voting day, the last minute whole as E1's (C7)."""
    local = times.to_local(at, ctx.game.timezone).replace(tzinfo=None)
    day = times.to_local(ctx.day.original_deadline or ctx.day.deadline, ctx.game.timezone).date()
    return (datetime.combine(day, _OPENS) <= local
            < second_after(datetime.combine(day, _CLOSES), precision))


def _apart(earlier: datetime, later: datetime, precision: str) -> timedelta:
    """The time between two posts as the forum shows them (whole minutes by default)."""
    if precision == "minute":
        return later.replace(second=0, microsecond=0) - earlier.replace(second=0, microsecond=0)
    return later - earlier


def _lead(claim: Claim, readings: tuple[Reading, ...], ctx: Context, precision: str,
          in_force: Claim | None, tricks: tuple[Trick, ...]) -> tuple[str | None, int]:
    """Nota 4, Tip 2: a revealed Alcalde may not redirect while he has the most votes, counting
    the Tramposo's votes sent before; a partial tie allows it unless his own vote made it.
    Returns why the redirect is void (None: allowed) and his lead over the next most voted."""
    who, at = claim.claimant, claim.post.created_at
    standing = standing_before(readings, claim.index, ctx, precision)

    def aim(target: str) -> str:  # an earlier redirect in force moved every vote
        return in_force.target if in_force is not None and in_force.target else target

    votes: dict[str, int] = {}
    for vote in standing.values():
        votes[aim(vote.target)] = votes.get(aim(vote.target), 0) + 1
    for trick in tricks:
        if trick.event.at < at:
            votes[trick.target] = max(0, votes.get(trick.target, 0) + trick.delta)
    mine = votes.pop(who, 0)
    top = max(votes.values(), default=0)
    if mine == 0 or mine < top:
        return None, mine - top
    if mine > top:
        return msg("he has the most votes ({votes}, the next {next}) (Nota 4)", votes=mine,
                   next=top), mine - top
    own = standing.get(who)
    helped = aim(own.target) if own is not None else None
    if helped is not None and helped != who and max(
            (n - (p == helped) for p, n in votes.items()), default=0) < mine:
        return msg_n("a tie at {n} votes made by his own vote for {player} (Nota 4)",
                     "a tie at {n} votes made by his own vote for {player} (Nota 4)", n=mine,
                     player=helped), 0
    return None, 0  # a partial tie (Nota 4)


def redirection(said: tuple[Claim, ...], readings: tuple[Reading, ...], ctx: Context,
                precision: str, tricks: tuple[Trick, ...], gm: bool) -> Redirection:
    """E7 in claim order: who may redirect (the GM: the role; the public: anyone not contradicted
    by an earlier reveal), then E8 (dead before the post), two tries a day, the window, five
    minutes since the previous try (void tries count), and the lead rule once he is revealed."""
    alcalde = holder(ctx.game, "alcalde")
    reveals = ctx.game.events_of("alcalde_revealed")
    results: list[tuple[Claim, str | None]] = []
    pending: list[str] = []
    findings: list[Finding] = []
    tries: dict[str, list[Claim]] = {}
    in_force: Claim | None = None
    for claim in said:
        post, who, at = claim.post, claim.claimant, claim.post.created_at
        named = claim.target or repr(claim.match.written)
        head = msg("post {post}: {player} claims the Alcalde's redirect of all votes to {target}",
                   post=post.id, player=who, target=named)
        revealed = {e.player for e in reveals if e.at < at and e.player}

        def note(why: str, rule: str = "E7", needs_gm: bool = False, head: str = head,
                 who: str = who, post: Post = post) -> None:
            if gm:  # the GM's view speaks for both: the public one only moves the public count
                findings.append(Finding(rule, msg("{head}{why}", head=head, why=why), post.id, who,
                                        needs_gm=needs_gm, secret=True))

        if gm and alcalde is None:
            results.append((claim, msg("the game file names no Alcalde")))
            pending.append(msg("post {post}: the game file names no Alcalde (players.role): "
                               "the GM checks the redirect", post=post.id))
            note(msg("; the game file names no Alcalde (players.role): the GM checks the claim"),
                 needs_gm=True)
            continue
        if (gm and who != alcalde) or (not gm and revealed and who not in revealed):
            results.append((claim, msg("{player} is not the Alcalde", player=who)))
            note(msg(", but {player} is not the Alcalde: he dies (Nota 5)", player=who),
                 needs_gm=True)
            continue
        dead = dead_before(who, at, ctx)
        if dead is not None:
            results.append((claim, dead))
            note(msg(": no effect: {why}", why=dead), rule="E8")
            continue
        mine = tries.setdefault(who, [])
        if len(mine) >= 2:
            results.append((claim, msg("a third try: two a voting day")))
            note(msg(": void: the Alcalde redirects at most twice a voting day"))
            continue
        last = mine[-1].post if mine else None
        mine.append(claim)
        why: str | None = None
        if not _in_window(at, ctx, precision):
            why = msg("posted {when}, outside 21:30-21:45", when=ctx.clock(at))
        elif last is not None and _apart(last.created_at, at, precision) < _GAP:
            why = msg("under 5 minutes after his try in post {post}", post=last.id)
        elif claim.target is None:
            why = msg("the name does not point at one player")
        elif who in revealed:
            why, margin = _lead(claim, readings, ctx, precision, in_force, tricks)
            if not gm and abs(margin) < _SURE:
                pending.append(msg("post {post}: the Tramposo's secret votes may change whether "
                                   "{player} leads the vote (Tip 2)", post=post.id, player=who))
        results.append((claim, why))
        if why is not None:
            note(msg(": void: {why}; it uses one of his two redirects (Tip 2)", why=why),
                 needs_gm=claim.target is None)
            continue
        in_force = claim
        if not gm and who not in revealed:
            pending.append(msg("post {post}: {player} was not revealed as the Alcalde before it: "
                               "the GM confirms the redirect (Nota 5)", post=post.id, player=who))
        note(msg(": the real Alcalde: every vote, cast and to come, goes to {player}",
                 player=claim.target or ""))
        caveat = justiciero_caveat(who, ctx, msg("it"), msg("the redirect"))  # "after it": the claim
        if caveat is not None:
            note(msg("; the Alcalde {caveat}", caveat=caveat), rule="E8", needs_gm=True)
    return Redirection(tuple(results), in_force, tuple(pending), tuple(findings))


def redirected(settlement: Settlement, r: Redirection) -> Settlement:
    """Every standing vote moved to the target of the redirect in force (E7)."""
    target = r.in_force.target if r.in_force is not None else None
    if target is None:
        return settlement
    return replace(settlement, standing={voter: replace(vote, target=target)
                                         for voter, vote in settlement.standing.items()})


def redirect_outcome(outcome: Outcome, r: Redirection) -> Outcome:
    """The outcome with the redirect in force named, waiting for the GM when this view must."""
    detail = outcome.detail
    if r.in_force is not None:
        detail = msg("{detail}; all votes redirected to {player} in post {post} (E7)",
                     detail=detail, player=r.in_force.target or "", post=r.in_force.post.id)
    if r.pending:
        return Outcome("undecided", None, "E7", msg("{detail}; pending the GM: {pending}",
                                                    detail=detail,
                                                    pending=msg_clauses(*r.pending)),
                       outcome.tied)
    return replace(outcome, detail=detail)


def redirect_verdicts(verdicts: tuple[Verdict, ...], settlement: Settlement,
                      readings: tuple[Reading, ...], r: Redirection) -> tuple[Verdict, ...]:
    """The audit of the public view: each claim's fate, and each counted vote it moved."""
    fate = {c.post.id: (c, why) for c, why in r.results}
    counted = {readings[s.index].post.id for s in settlement.standing.values()}
    out: list[Verdict] = []
    for verdict in verdicts:
        said: list[str] = []
        if verdict.post_id in fate:
            claim, why = fate[verdict.post_id]
            done = (msg("applied in the public count") if why is None
                    else msg("void: {why}", why=why))
            said.append(msg("claims the Alcalde's redirect to {player} (E7): {done}",
                            player=claim.target or claim.match.written, done=done))
        if (r.in_force is not None and verdict.verdict == "counted" and verdict.post_id in counted
                and verdict.target != r.in_force.target):
            said.append(msg("counts for {player}: the redirect in post {post} (E7)",
                            player=r.in_force.target or "", post=r.in_force.post.id))
        reason = msg_clauses(*([verdict.reason] if verdict.reason else []), *said)
        out.append(replace(verdict, reason=reason) if said else verdict)
    return tuple(out)

