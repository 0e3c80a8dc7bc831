"""The `espia` preset: ¿Quién es el Espía? on La Ratonera (RULES.md section 2, E1-E9).

Votes go in the day's voting thread ("Voto a X", "Voto: X", [voto]X[/voto]) and close at 22:00
with the whole minute inclusive (E1, C7). A player's first vote is final: a change voids his vote
and a second change is his death (E3, 8A). The public count is the thread's; the GM's result
(`gm_counts`, `gm_outcome`) adds what only the GM knows: the Tramposo's secret votes (E6), the
roles behind Sacerdote claims (E5) and immunities (E5 Nota 2).

The Alcalde's redirect (E7, E8) is a post in the voting thread, so it is public: the public count
moves every vote to its target. Who really holds the role and the Tramposo's votes in a revealed
Alcalde's lead check are the GM's: the redirect is judged twice, once on public information only
(the public count; "pending the GM" where the secret part may change it) and once with everything
(`gm_counts`, `gm_outcome`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, time, timedelta

from tally import times
from tally.errors import GameFileError
from tally.game import CORE_EVENT_KINDS, Event, Game
from tally.model import Action, Count, Finding, NameMatch, Outcome, Post, Tally, Verdict
from tally.names import normalise
from tally.rules import validity as v
from tally.rules.change import Settlement, Standing, settle
from tally.rules.outcome import draw, draw_seed, piles, tally
from tally.rules.preset import Preset
from tally.rules.reading import Context, Reading, Stage, event_day, second_after, void_steps
from tally.syntax import pack

# GM events this preset reads (E5, E6, E7). The Tramposo's and the Sacerdote's are GM-only whatever
# their `secret` says; `alcalde_revealed` (player, at: when his role became known) is public.
EVENT_KINDS = CORE_EVENT_KINDS | {"tramposo_add", "tramposo_remove", "sacerdote_protect", "immunity",
                                  "alcalde_revealed"}


@dataclass(frozen=True)
class EspiaOptions:
    precision: str = field(default="minute", metadata={"choices": ("second", "minute")})  # E1, C7
    tiebreak: str = field(default="gm", metadata={"choices": ("gm", "random", "none")})  # E9


def validity(o: EspiaOptions) -> tuple[Stage, ...]:
    return (
        v.late("E1", o.precision),
        v.voter_may_vote("E2", "E2"),
        v.no_elimination("E2", allowed=False),
        v.names_resolved("C2"),
        v.target_alive("E2"),
        v.joke("E2"),
        first_vote_stands("E3", o.precision),  # last: only votes valid otherwise can be a change
    )


# ---------------------------------------------------------------------------------------------
# E3: no change of vote (8A)

_KEEP = "\x00keep"  # a post that declares nothing (no vote action left)


@dataclass(frozen=True, slots=True)
class _Declared:
    """A target a voter declared: by a post, or by the text a post had before an edit."""

    at: datetime
    order: int
    index: int  # into the readings
    target: str | None  # None: a revoke


def _final_target(actions: tuple[Action, ...]) -> str | None:
    """What a post leaves declared: its last vote's target, None after a revoke, or _KEEP."""
    target: str | None = _KEEP
    for action in actions:
        if action.kind == "unvote":
            target = None
        elif action.kind == "vote":
            target = action.target or action.written
    return target


def _copy_before_edit(ctx: Context, post: Post) -> Post | None:
    """The newest saved copy that shows the post before its edit (no marker, or fetched earlier)."""
    edit = post.edit
    assert edit is not None
    copies = [c for c in ctx.history.get(post.id, ()) if c.fetched_at is not None and not c.deleted
              and (c.edit is None or (edit.edited_at is not None and c.fetched_at < edit.edited_at))]
    return max(copies, key=lambda c: c.fetched_at or c.created_at, default=None)


def _declarations(readings: tuple[Reading, ...], ctx: Context, precision: str
                  ) -> tuple[dict[str, list[_Declared]], tuple[Reading, ...], tuple[Finding, ...]]:
    """Every voter's declared targets in time order; an edit that changed the target counts as
    a second declaration at the edit's time (E3) when a saved copy shows the text before it."""
    staff = {normalise(s) for s in ctx.game.staff}
    late = second_after(ctx.day.deadline, precision)
    out: dict[str, list[_Declared]] = {}
    findings: list[Finding] = []
    marked = list(readings)  # with the edit's evidence and remarks added
    for index, reading in enumerate(readings):
        voter, post = reading.voter, reading.post
        live = tuple(s.action for s in reading.steps if s.void is None)
        now = _final_target(live) if live else _KEEP
        edit = post.edit
        edited_in_time = edit is not None and (edit.edited_at is None or edit.edited_at <= ctx.cutoff)
        # A post with no vote left is looked at only when an edit may have taken its vote away:
        # in time, by a living player, with no action that an earlier policy voided.
        unvoted = (now == _KEEP and edited_in_time and not reading.steps and not reading.silent
                   and post.created_at < late and voter is not None
                   and ctx.life.alive(voter, post.created_at))
        if voter is None or (now == _KEEP and not unvoted):
            continue
        mine = out.setdefault(voter, [])
        if edit is not None and edited_in_time:
            if edit.editor and normalise(edit.editor) in staff:
                marked[index] = replace(reading, remarks=reading.remarks + (
                    f"edited by staff {edit.editor}, kept",))
            else:
                old = _copy_before_edit(ctx, post)
                if old is None:
                    if now != _KEEP:  # a chat post edited with no copy is no vote to flag
                        note = "edited; the text before the edit is not known: taken as it reads"
                        marked[index] = replace(reading, remarks=reading.remarks + (note,))
                        findings.append(Finding("E3", f"post {post.id} by {voter}: vote post {note}",
                                                post.id, voter, needs_gm=True))
                else:
                    before = _final_target(ctx.extractor.ballot(old).actions)
                    stamp = f"{old.fetched_at:%Y-%m-%d %H:%M:%S} UTC"
                    marked[index] = replace(reading, evidence=reading.evidence + (
                        f"edit marker: {edit.text}; the copy fetched {stamp} shows the text before it",))
                    if before != _KEEP and before != now:
                        mine.append(_Declared(post.created_at, len(mine), index, before))
                        mine.append(_Declared(edit.edited_at or post.created_at, len(mine), index,
                                              None if now == _KEEP else now))
                        continue
        if now != _KEEP:
            mine.append(_Declared(post.created_at, len(mine), index, now))
    for decls in out.values():
        decls.sort(key=lambda d: (d.at, d.order))
    return out, tuple(marked), tuple(findings)


def first_vote_stands(rule: str, precision: str) -> Stage:
    """E3 (8A): once a player has voted, a change voids his vote for good (the first vote does
    not come back); a second change is flagged: the GM kills the player. Repeating the same
    target is no change; a revoke is one."""

    def stage(readings: tuple[Reading, ...], ctx: Context) -> tuple[tuple[Reading, ...], tuple[Finding, ...]]:
        by_voter, readings, findings = _declarations(readings, ctx, precision)
        reasons: dict[int, str] = {}
        found: list[Finding] = list(findings)
        for voter, decls in sorted(by_voter.items()):
            for index, reason, finding in _changes(voter, decls, readings):
                reasons[index] = reason
                if finding is not None:
                    found.append(finding)
        out = tuple(r if i not in reasons else void_steps(r, rule, reasons[i], ("vote", "unvote"))
                    if r.steps else replace(r, silent=reasons[i])  # an edit took its vote away
                    for i, r in enumerate(readings))
        return out, tuple(found)

    return stage


def _changes(voter: str, decls: list[_Declared], readings: tuple[Reading, ...]
             ) -> Iterator[tuple[int, str, Finding | None]]:
    """(reading index, void reason, finding) for every post of a voter whose vote is void."""
    held: str | None = _KEEP
    changes: list[tuple[_Declared, str | None]] = []  # (the change, the target it left)
    for d in decls:
        if held == _KEEP:
            if d.target is not None:
                held = d.target  # the first vote
        elif d.target != held:
            changes.append((d, held))
            held = d.target
    if not changes:
        return
    first_post = readings[changes[0][0].index].post.id
    marked: set[int] = set()
    for number, (d, left) in enumerate(changes, start=1):
        post = readings[d.index].post
        move = f"from {left or 'no vote'} to {d.target or 'no vote (revoke)'}"
        if number == 1:
            yield d.index, f"change of vote {move}: the player's vote is void (8A)", Finding(
                "E3", f"post {post.id} by {voter}: change of vote {move}: his vote is void (8A)",
                post.id, voter)
        else:
            which = "second change" if number == 2 else f"change number {number}"
            yield d.index, f"{which} of vote {move}: the GM kills the player (8A)", Finding(
                "E3", f"post {post.id} by {voter}: {which}: the GM kills the player (8A)",
                post.id, voter, needs_gm=True)
        marked.add(d.index)
    first_at = changes[0][0]
    for d in decls:
        if d.index in marked:
            continue
        marked.add(d.index)
        if (d.at, d.order) < (first_at.at, first_at.order):
            why = f"vote changed in post {first_post}: the first vote does not come back (8A)"
        else:
            why = f"the player's vote is void since the change in post {first_post} (8A)"
        yield d.index, why, None


# ---------------------------------------------------------------------------------------------
# E5: the Sacerdote's protection claimed in the voting thread

# "Protejo a Watson", "protegeré a Watson", "protejo: Watson" (6.4B: "decidiste proteger a").
_PROTECTS = re.compile(r"(?<!\w)(?:protejo|proteger[ée]|protegeremos|decido proteger|"
                       r"decid[íi] proteger)(?:\s+a\b|\s*:)\s*(?P<target>[^\n,.;!?()]+)", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Claim:
    post: Post
    claimant: str
    match: NameMatch
    index: int  # into the readings

    @property
    def target(self) -> str | None:
        return self.match.player


def claims(readings: tuple[Reading, ...], ctx: Context, precision: str,
           pattern: re.Pattern[str] = _PROTECTS) -> tuple[Claim, ...]:
    """Claims of a role's power (`pattern`: the Sacerdote's protection, the Alcalde's redirect)
    by players in the voting thread, in time (E1), in thread order."""
    late = second_after(ctx.day.deadline, precision)
    out: list[Claim] = []
    for index, reading in enumerate(readings):
        post = reading.post
        if reading.voter is None or reading.silent or post.created_at >= late:
            continue
        for m in pattern.finditer(post.body.own):  # own text only: a quote claims nothing (C1)
            match = ctx.extractor.roster.match(m.group("target"))
            if match.how == "unknown" or (match.how == "mixed_script" and match.runner_up is None):
                continue  # "protejo a mi familia": prose, no player named (as extract's loose form)
            out.append(Claim(post, reading.voter, match, index))
    return tuple(out)


def _role(game: Game, player: str) -> str | None:
    found = game.player(player)
    return normalise(found.role) if found and found.role else None


def sacerdote_findings(found: tuple[Claim, ...], ctx: Context) -> tuple[dict[str, str], tuple[Finding, ...]]:
    """The GM's side of the claims: who is really protected (player -> why), and the flags.

    All of these findings are secret: they tell who holds which role (C5)."""
    known = any(_role(ctx.game, p.name) == "sacerdote" for p in ctx.game.players)
    protected: dict[str, str] = {}
    findings: list[Finding] = []
    used = False
    for claim in found:
        post, who = claim.post, claim.claimant
        named = claim.target or repr(claim.match.written)
        head = f"post {post.id}: {who} claims the Sacerdote's protection of {named}"
        if not known:
            findings.append(Finding("E5", f"{head}; the game file names no Sacerdote (players.role): "
                                    "the GM checks the claim", post.id, who, needs_gm=True, secret=True))
            if claim.target:
                protected.setdefault(claim.target, f"claimed protected in post {post.id}, unchecked")
            continue
        if _role(ctx.game, who) != "sacerdote":
            findings.append(Finding("E5", f"{head}, but {who} is not the Sacerdote: he dies with the "
                                    "most voted (Nota 1)", post.id, who, needs_gm=True, secret=True))
            continue
        if not ctx.life.alive(who, post.created_at):
            findings.append(Finding("E5", f"{head}, but the Sacerdote was dead at "
                                    f"{ctx.clock(post.created_at)}: no effect", post.id, who, secret=True))
        elif claim.target is None:
            findings.append(Finding("E5", f"{head}: the name does not point at one player",
                                    post.id, who, needs_gm=True, secret=True))
        elif used:
            findings.append(Finding("E5", f"{head}: the Sacerdote saves one player per cycle; the "
                                    "first claim holds", post.id, who, needs_gm=True, secret=True))
        else:
            used = True
            protected[claim.target] = f"protected by the Sacerdote ({who}) in post {post.id} (6.4B)"
            findings.append(Finding("E5", f"{head}: the real Sacerdote", post.id, who, secret=True))
    return protected, tuple(findings)


def immunities(ctx: Context) -> tuple[dict[str, str], tuple[Finding, ...]]:
    """E5 Nota 2: a player the Sacerdote protected on the first day of the cycle is immune to
    the vote: an `immunity` event (player, day), or a `sacerdote_protect` event (player: the
    Sacerdote, target, day: the voting day) sent before the voting day starts."""
    immune: dict[str, str] = {}
    findings: list[Finding] = []
    for event in ctx.game.events_of("immunity", "sacerdote_protect"):
        if event.day != ctx.day.number:
            continue
        if event.kind == "immunity" and event.player:
            immune[event.player] = "immune to the vote this cycle (Nota 2)"
        elif event.kind == "sacerdote_protect" and event.target:
            if event.at < ctx.day.start:
                immune[event.target] = (f"protected by the Sacerdote ({event.player}) on the first "
                                        "day of the cycle: immune to the vote (Nota 2)")
            else:
                findings.append(Finding("E5", f"the Sacerdote's PM protection of {event.target} sent "
                                        f"{ctx.clock(event.at)}, on the voting day: it guards against "
                                        "role kills only (6.4A)", None, event.target, secret=True))
                continue
        else:
            continue
        who = event.player if event.kind == "immunity" else event.target
        findings.append(Finding("E5", f"{who}: {immune[who or '']}", None, who, secret=True))
    return immune, tuple(findings)


# ---------------------------------------------------------------------------------------------
# E6 / E8: the Tramposo's secret votes


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
    events = ctx.game.events_of("tramposo_add", "tramposo_remove")
    for event in events:
        if event_day(event, ctx.game, precision) != ctx.day.number or not event.player or not event.target:
            continue
        who, power = event.player, "add" if event.kind == "tramposo_add" else "remove"
        head = f"Tramposo {who}: {power} votes on {event.target} (PM {ctx.clock(event.at)})"

        def void(why: str, gm: bool = False, head: str = head, who: str = who) -> None:
            findings.append(Finding("E6", f"{head}: no effect: {why}", None, who, needs_gm=gm, secret=True))

        days = [event_day(e, ctx.game, precision) for e in events
                if e.kind == event.kind and e.player == who]
        earlier = sorted(d for d in days if d is not None and d < ctx.day.number)
        died = ctx.life.death(who, event.at)
        if died is not None:
            void(f"he was dead at the time (died {ctx.clock(died)}; E8)")
        elif event.at >= late:
            void(f"sent after the close ({ctx.clock(ctx.day.deadline)})")
        elif earlier:
            void(f"the power was already used on day {earlier[0]} "
                 "(once per game)", gm=True)
        elif (power == "add" and removed & {who}) or (power == "remove" and who in added):
            void("both powers on the same day (the first PM holds)", gm=True)
        elif power == "remove" and who in removed:
            void("the remove power takes one player", gm=True)
        else:
            votes = 2 if event.target == who else 1
            if power == "add":
                votes = int(event.params.get("votes", 2))
                if added.get(who, 0) + votes > 2:
                    void(f"more than 2 extra votes ({added.get(who, 0)} already)", gm=True)
                    continue
                added[who] = added.get(who, 0) + votes
            else:
                removed.add(who)
            delta = votes if power == "add" else -votes
            tricks.append(Trick(event.target, delta, event))
            findings.append(Finding("E6", f"{head}: {delta:+d} on {event.target} in the GM's count",
                                    None, who, secret=True))
            later = ctx.life.death(who, ctx.cutoff)
            if later is not None and later >= ctx.day.start:
                findings.append(Finding("E8", f"Tramposo {who} died at {ctx.clock(later)}, after his "
                                        f"PM: if the Justiciero killed him, his action has no effect "
                                        "(section 7)", None, who, needs_gm=True, secret=True))
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
        rows[trick.target] = Count(trick.target, votes, old.voters + (f"(Tramposo {trick.delta:+d})",),
                                   posts + ("",))
    ranked = sorted(order, key=lambda p: -rows[p].votes)  # stable: the public order among equals
    return tuple(rows[p] for p in ranked)


# ---------------------------------------------------------------------------------------------
# E7 / E8: the Alcalde's redirect, posted in the voting thread

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


def _alcalde(game: Game) -> str | None:
    return next((p.name for p in game.players if _role(game, p.name) == "alcalde"), None)


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


def _standing_before(readings: tuple[Reading, ...], index: int, ctx: Context,
                     precision: str) -> dict[str, Standing]:
    """The votes standing when reading `index` was posted. E3 is judged again on the posts up to
    then: a change made later had not yet voided anything."""
    def unjudged(r: Reading) -> Reading:
        steps = tuple(replace(s, void=None) if s.void and s.void.rule == "E3" else s for s in r.steps)
        return replace(r, steps=steps, silent="" if r.silent.endswith("(8A)") else r.silent)

    then = replace(ctx, as_of=readings[index].post.created_at)
    prefix, _ = first_vote_stands("E3", precision)(tuple(unjudged(r) for r in readings[:index]), then)
    return settle(prefix).standing


def _lead(claim: Claim, readings: tuple[Reading, ...], ctx: Context, precision: str,
          in_force: Claim | None, tricks: tuple[Trick, ...]) -> tuple[str | None, int]:
    """Nota 4, Tip 2: a revealed Alcalde may not redirect while he has the most votes, counting
    the Tramposo's votes sent before; a partial tie allows it unless his own vote made it.
    Returns why the redirect is void (None: allowed) and his lead over the next most voted."""
    who, at = claim.claimant, claim.post.created_at
    standing = _standing_before(readings, claim.index, ctx, precision)

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
        return f"he has the most votes ({mine}, the next {top}) (Nota 4)", mine - top
    own = standing.get(who)
    helped = aim(own.target) if own is not None else None
    if helped is not None and helped != who and max(
            (n - (p == helped) for p, n in votes.items()), default=0) < mine:
        return f"a tie at {mine} votes made by his own vote for {helped} (Nota 4)", 0
    return None, 0  # a partial tie (Nota 4)


def redirection(said: tuple[Claim, ...], readings: tuple[Reading, ...], ctx: Context,
                precision: str, tricks: tuple[Trick, ...], gm: bool) -> Redirection:
    """E7 in claim order: who may redirect (the GM: the role; the public: anyone not contradicted
    by an earlier reveal), then E8 (dead before the post), two tries a day, the window, five
    minutes since the previous try (void tries count), and the lead rule once he is revealed."""
    alcalde = _alcalde(ctx.game)
    reveals = ctx.game.events_of("alcalde_revealed")
    results: list[tuple[Claim, str | None]] = []
    pending: list[str] = []
    findings: list[Finding] = []
    tries: dict[str, list[Claim]] = {}
    in_force: Claim | None = None
    for claim in said:
        post, who, at = claim.post, claim.claimant, claim.post.created_at
        named = claim.target or repr(claim.match.written)
        head = f"post {post.id}: {who} claims the Alcalde's redirect of all votes to {named}"
        revealed = {e.player for e in reveals if e.at < at and e.player}

        def note(why: str, rule: str = "E7", needs_gm: bool = False, head: str = head,
                 who: str = who, post: Post = post) -> None:
            if gm:  # the GM's view speaks for both: the public one only moves the public count
                findings.append(Finding(rule, f"{head}{why}", post.id, who, needs_gm=needs_gm, secret=True))

        if gm and alcalde is None:
            results.append((claim, "the game file names no Alcalde"))
            pending.append(f"post {post.id}: the game file names no Alcalde (players.role): "
                           "the GM checks the redirect")
            note("; the game file names no Alcalde (players.role): the GM checks the claim", needs_gm=True)
            continue
        if (gm and who != alcalde) or (not gm and revealed and who not in revealed):
            results.append((claim, f"{who} is not the Alcalde"))
            note(f", but {who} is not the Alcalde: he dies (Nota 5)", needs_gm=True)
            continue
        died = ctx.life.death(who, at)
        if died is not None:
            results.append((claim, f"he was dead at the time (died {ctx.clock(died)}; E8)"))
            note(f": no effect: he was dead at the time (died {ctx.clock(died)}; E8)", rule="E8")
            continue
        mine = tries.setdefault(who, [])
        if len(mine) >= 2:
            results.append((claim, "a third try: two a voting day"))
            note(": void: the Alcalde redirects at most twice a voting day")
            continue
        last = mine[-1].post if mine else None
        mine.append(claim)
        why: str | None = None
        if not _in_window(at, ctx, precision):
            why = f"posted {ctx.clock(at)}, outside 21:30-21:45"
        elif last is not None and _apart(last.created_at, at, precision) < _GAP:
            why = f"under 5 minutes after his try in post {last.id}"
        elif claim.target is None:
            why = "the name does not point at one player"
        elif who in revealed:
            why, margin = _lead(claim, readings, ctx, precision, in_force, tricks)
            if not gm and abs(margin) < _SURE:
                pending.append(f"post {post.id}: the Tramposo's secret votes may change whether "
                               f"{who} leads the vote (Tip 2)")
        results.append((claim, why))
        if why is not None:
            note(f": void: {why}; it uses one of his two redirects (Tip 2)",
                 needs_gm=claim.target is None)
            continue
        in_force = claim
        if not gm and who not in revealed:
            pending.append(f"post {post.id}: {who} was not revealed as the Alcalde before it: "
                           "the GM confirms the redirect (Nota 5)")
        note(f": the real Alcalde: every vote, cast and to come, goes to {claim.target}")
        later = ctx.life.death(who, ctx.cutoff)
        if later is not None and later >= ctx.day.start:
            note(f"; the Alcalde died at {ctx.clock(later)}, after it: if the Justiciero killed "
                 "him, the redirect has no effect (section 7)", rule="E8", needs_gm=True)
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
        detail += f"; all votes redirected to {r.in_force.target} in post {r.in_force.post.id} (E7)"
    if r.pending:
        return Outcome("undecided", None, "E7", f"{detail}; pending the GM: {'; '.join(r.pending)}",
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
            done = "applied in the public count" if why is None else f"void: {why}"
            said.append(f"claims the Alcalde's redirect to {claim.target or claim.match.written} "
                        f"(E7): {done}")
        if (r.in_force is not None and verdict.verdict == "counted" and verdict.post_id in counted
                and verdict.target != r.in_force.target):
            said.append(f"counts for {r.in_force.target}: the redirect in post {r.in_force.post.id} (E7)")
        reason = "; ".join(([verdict.reason] if verdict.reason else []) + said)
        out.append(replace(verdict, reason=reason) if said else verdict)
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The outcome (E2, E5, E9)

Shield = Callable[[str], tuple[str, str] | None]  # player -> (result, why) when the vote spares him


def espia_outcome(counts: tuple[Count, ...], ctx: Context, o: EspiaOptions,
                  shield: Shield) -> tuple[Outcome, str | None]:
    """E2: the most voted dies; E9: a tie goes to the option `tiebreak` (default: the GM)."""
    top = [c for c in counts if counts and c.votes == counts[0].votes and c.votes > 0]
    if not top:
        return Outcome("none", None, "E2", "no votes"), None
    votes = top[0].votes
    tied = tuple(c.player for c in top) if len(top) > 1 else ()
    seed = None
    chosen, detail, rule = top[0].player, f"most votes ({votes})", "E2"
    if tied:
        head = f"tie at {votes} votes between {', '.join(tied)}"
        if o.tiebreak == "gm":
            return Outcome("tie", None, "E9", f"{head}: the GM decides", tied), None
        if o.tiebreak == "none":
            return Outcome("none", None, "E9", f"{head}: nobody dies (game file)", tied), None
        seed = draw_seed(ctx)
        chosen, rule = draw(tied, seed), "E9"
        detail = f"{head}: random draw with seed {seed} picks {chosen}"
    died = ctx.life.death(chosen, ctx.cutoff)
    if died is not None:
        return Outcome("none", None, rule, f"{detail}; {chosen} is already dead (died "
                       f"{ctx.clock(died)})", tied), seed
    spared = shield(chosen)
    if spared is not None:
        result, why = spared
        return Outcome(result, None, "E5", f"{chosen} has {detail}; {why}", tied), seed  # type: ignore[arg-type]
    return Outcome("eliminated", chosen, rule, detail, tied), seed


def decide(readings: tuple[Reading, ...], ctx: Context, o: EspiaOptions,
           findings: tuple[Finding, ...]) -> Tally:
    settlement = settle(readings)
    living = ctx.life.living(ctx.cutoff)
    absent, quiet = non_voters(readings, ctx, living, settlement.standing)

    said = claims(readings, ctx, o.precision)
    claimed = {c.target: c for c in reversed(said) if c.target}  # the first claim per player

    def public_shield(player: str) -> tuple[str, str] | None:
        claim = claimed.get(player)
        if claim is None:
            return None
        return "undecided", (f"the Sacerdote's protection of {player} is claimed in post "
                             f"{claim.post.id}: the GM announces whether he dies (6.4B)")

    protected, sacerdote = sacerdote_findings(said, ctx)
    immune, nota2 = immunities(ctx)
    tricks, secret = tramposo(ctx, o.precision)
    # E7: the redirect is a public post, so the public count moves the votes; who holds the
    # role and the Tramposo's votes in the lead check are the GM's (C5): two views.
    firsts: dict[str, Claim] = {}  # one try per post, however often it repeats the order
    for claim in claims(readings, ctx, o.precision, _REDIRECTS):
        firsts.setdefault(claim.post.id, claim)
    redirects = tuple(firsts.values())
    seen = redirection(redirects, readings, ctx, o.precision, (), gm=False)
    told = redirection(redirects, readings, ctx, o.precision, tricks, gm=True)

    def gm_shield(player: str) -> tuple[str, str] | None:
        if player in immune:
            return "none", immune[player]
        why = protected.get(player)
        if why is None:
            return None
        return ("undecided" if why.endswith("unchecked") else "none"), why

    found = piles(redirected(settlement, seen), readings)
    public = tuple(p.count for p in found)
    outcome, seed = espia_outcome(public, ctx, o, public_shield)
    outcome = redirect_outcome(outcome, seen)
    gm_counts = with_tricks(tuple(p.count for p in piles(redirected(settlement, told), readings)), tricks)
    gm_outcome, _ = espia_outcome(gm_counts, ctx, o, gm_shield)
    gm_outcome = redirect_outcome(gm_outcome, told)
    for rule, role, fate in (("Nota 1", "Sacerdote", "dies with the most voted"), ("Nota 5", "Alcalde", "dies")):
        fakes = dict.fromkeys(f.player for f in sacerdote + told.findings if rule in f.message and f.player)
        if fakes:
            gm_outcome = replace(gm_outcome, detail=f"{gm_outcome.detail}; {', '.join(fakes)} "
                                 f"posed as the {role}: {fate} ({rule})")
    verdicts = redirect_verdicts(settlement.verdicts, settlement, readings, seen)
    result = tally(ctx, readings, verdicts, found, outcome,
                   findings + quiet + sacerdote + nota2 + secret + told.findings, living, absent, seed=seed)
    return replace(result, gm_counts=gm_counts, gm_outcome=gm_outcome)


def non_voters(readings: tuple[Reading, ...], ctx: Context, living: tuple[str, ...],
               standing: dict[str, object]) -> tuple[tuple[str, ...], tuple[Finding, ...]]:
    """E4 (8C): living players with no vote are expelled unless the GM excused them. A player
    whose vote E3 voided did vote: his case is E3's, not inactivity."""
    changed = {r.voter for r in readings if r.silent.endswith("(8A)")  # an edit took it away
               or any(s.void is not None and s.void.rule == "E3" for s in r.steps)}
    tried: dict[str, list[str]] = {}
    for r in readings:
        if r.voter and r.steps:
            tried.setdefault(r.voter, []).append(r.post.id)
    missing = tuple(p for p in living if p not in standing and p not in changed)
    findings: list[Finding] = []
    for p in missing:
        void = f" (void vote posts: {', '.join(tried[p])})" if p in tried else ""
        if p in ctx.game.excused:
            findings.append(Finding("E4", f"{p} did not vote{void}: excused by the GM (8C)", player=p))
        else:
            findings.append(Finding("E4", f"{p} did not vote{void}: expelled for inactivity (8C)",
                                    player=p, needs_gm=True))
    return missing, tuple(findings)


def notes(o: EspiaOptions) -> tuple[str, ...]:
    tie = {"gm": "the GM decides (default)", "random": "a seeded random draw (game file)",
           "none": "nobody dies (game file)"}[o.tiebreak]
    return (
        f"E1/C7: the deadline {o.precision} is inclusive (22:00 counts, 22:01 is late)",
        "E3: a revoke is a change of vote; repeating the same target is not",
        "E3: an edit is a change only when a saved copy shows a different earlier target; "
        "otherwise the post is taken as it reads and the GM is asked",
        f"E9: a tie: {tie}",
        "E5: a protection claim on the most voted makes the public result wait for the GM",
        "E6: a Tramposo power used on an earlier day is spent, whether or not it took effect",
        "E7: the Alcalde's redirect is a public post: the public count moves the votes; whether the "
        "claimant holds the role, and a revealed Alcalde's lead counting the Tramposo's votes (Tip 2), "
        "are the GM's: the public result waits for the GM when either may change it",
        "E7: the window 21:30-21:45 and the 5 minutes between tries are read like E1 (the minute "
        "21:45 is in); a void try uses one of the two",
        "E7: a tie made by the Alcalde's own vote is one he would lead without his standing vote",
        "E7: the Tramposo's votes are not moved by a redirect: they stay on their targets in the "
        "GM's count (the rulebook is silent)",
    )


@dataclass(frozen=True)
class EspiaPreset(Preset[EspiaOptions]):
    def validate(self, game: Game) -> None:
        """Also: the Tramposo adds 1 or 2 votes (E6)."""
        super().validate(game)
        for event in game.events:
            votes = event.params.get("votes", 2)
            if event.kind == "tramposo_add" and (isinstance(votes, bool) or votes not in (1, 2)):
                raise GameFileError(f"{game.path}:{event.line or '?'}: events: a tramposo_add "
                                    f"event adds 1 or 2 votes, got {votes!r}")


PRESET = EspiaPreset(name="espia", syntax=pack("es"), defaults=EspiaOptions(), validity=validity,
                     decide=decide, notes=notes, event_kinds=EVENT_KINDS,
                     event_needs={"tramposo_add": ("player", "target"),
                                  "tramposo_remove": ("player", "target"),
                                  "immunity": ("player", "day"),
                                  "sacerdote_protect": ("player", "target", "day"),
                                  "alcalde_revealed": ("player",)})
