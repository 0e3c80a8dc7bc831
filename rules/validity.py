"""Validity policies: each says which actions of which posts do not count, and why.

Every policy is a factory taking its options and the rule id to cite (kira cites K-numbers,
majority its own words) and returning a pure stage `(readings, ctx) -> (readings, findings)`.
A policy voids steps no earlier policy voided, so the preset's order is the order of priority:
the first reason found is the one the audit shows.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from tally.model import Action, Finding, NameMatch, msg, msg_n
from tally.names import normalise
from tally.rules.reading import Context, Reading, Stage, second_after, void_steps

Check = Callable[[Reading, Context], tuple[Reading, tuple[Finding, ...]]]


class Each:
    """A stage applying a check to every reading that carries vote actions, each on its own: a
    post's verdict here never depends on another post (what Preset.fold relies on)."""

    __slots__ = ("check",)

    def __init__(self, check: Check) -> None:
        self.check = check

    def __call__(self, readings: tuple[Reading, ...],
                 ctx: Context) -> tuple[tuple[Reading, ...], tuple[Finding, ...]]:
        out: list[Reading] = []
        findings: list[Finding] = []
        for reading in readings:
            if reading.steps:
                reading, found = self.check(reading, ctx)
                findings += found
            out.append(reading)
        return tuple(out), tuple(findings)


def each(check: Check) -> Stage:
    return Each(check)


def late(rule: str, precision: str) -> Stage:
    """K1/C7: a vote posted after the deadline second (or minute) is void."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        posted = reading.post.created_at
        deadline = ctx.day.deadline
        if posted < second_after(deadline, precision):
            return reading, ()
        reason = msg("late: posted {posted}, deadline {deadline}", posted=ctx.clock(posted, deadline),
                     deadline=ctx.clock(deadline, posted))
        return void_steps(reading, rule, reason), ()

    return each(check)


def voter_may_vote(rule: str, dead_rule: str) -> Stage:
    """K2: only players alive at the time of the post vote; K12: a dead voter's vote is frozen.
    A post by staff or a non-player carries no steps to void: it is no vote at all (reading)."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        post = reading.post
        if reading.voter is None:
            return reading, ()
        died = ctx.life.death(reading.voter, post.created_at)
        if died is None:
            return reading, ()
        if died >= ctx.day.start:  # died today: the standing vote stays, no change (K12)
            reason = msg("{player} died at {when}: a dead player's vote can no longer be changed "
                         "or revoked", player=reading.voter, when=ctx.clock(died))
            return void_steps(reading, dead_rule, reason), ()
        return void_steps(reading, rule, msg("{player} is dead (since {when})", player=reading.voter,
                                             when=ctx.clock(died))), ()

    return each(check)


def edit_marker(rule: str, revoke_rule: str, void_revokes: bool, void_votes: bool = True) -> Stage:
    """K4: an edited vote post is void; K4a: its revokes too (option); K5: staff edits keep it.

    An edit dated after the cut-off was already dealt with by `reading.as_at` (K4b): the reading
    holds the earlier copy or is flagged. An undated marker is taken as made before the deadline.
    """
    kinds = ("vote", "no_elimination") if void_votes else ()

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        edit = reading.post.edit
        if edit is None or (edit.edited_at is not None and edit.edited_at > ctx.cutoff):
            return reading, ()
        evidence = reading.evidence + (msg("edit marker: {marker}", marker=edit.text),)
        staff = {normalise(s) for s in ctx.game.staff}
        if edit.editor and normalise(edit.editor) in staff:
            kept = msg("edited by staff {editor}, kept", editor=edit.editor)
            return replace(reading, evidence=evidence, remarks=reading.remarks + (kept,)), ()
        reason = (msg("edit marker '{marker}' (the marker has no date: taken as made before the "
                      "deadline)", marker=edit.text) if edit.edited_at is None
                  else msg("edit marker '{marker}'", marker=edit.text))
        voided = void_steps(reading, rule, reason, kinds)
        if void_revokes:
            voided = void_steps(voided, revoke_rule, msg("revoke in an edited post: {reason}",
                                                         reason=reason), ("unvote",))
        return replace(voided, evidence=evidence), ()

    return each(check)


def target_alive(rule: str) -> Stage:
    """K4/K11: a new vote on a player not alive at the time of the vote is void."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        at = reading.post.created_at

        def dead(action: Action) -> bool:
            return action.target is not None and not ctx.life.alive(action.target, at)

        for step in reading.steps:
            if step.void is None and dead(step.action):
                target = step.action.target or ""
                died = ctx.life.death(target, at)
                why = (msg("{player} was not alive at {when} (died {died})", player=target,
                           when=ctx.clock(at), died=ctx.clock(died, at)) if died
                       else msg("{player} was not alive at {when}", player=target,
                                when=ctx.clock(at)))
                reading = void_steps(reading, rule, why, ("vote",), only=_aimed_at(target))
        return reading, ()

    return each(check)


def joke(rule: str) -> Stage:
    """K4: a vote clearly marked as a joke (the game file's joke markers) is void."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        for step in reading.steps:
            if step.void is None and step.action.joke:
                text = step.action.text or step.action.written
                reading = void_steps(reading, rule, msg("joke vote: '{text}'", text=text),
                                     ("vote", "no_elimination"),
                                     only=_this(step.action))
        return reading, ()

    return each(check)


def no_elimination(rule: str, allowed: bool) -> Stage:
    """Kira has no no-elimination vote (K4: the target is not a player); majority allows it."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        if allowed:
            return reading, ()
        return void_steps(reading, rule, msg("not a player: this game has no no-elimination vote"),
                          ("no_elimination",)), ()

    return each(check)


_UNRESOLVED = ("ambiguous", "unknown", "mixed_script", "ignored")


def names_resolved(rule: str = "C2") -> Stage:
    """C2: a vote whose name does not point clearly at one player never counts; the GM is told."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        findings: list[Finding] = []
        for step in reading.steps:
            match = step.action.match
            if step.void is not None or step.action.kind != "vote" or match is None:
                continue
            if match.player is not None and match.how not in _UNRESOLVED:
                continue
            reason = unresolved_reason(match)
            reading = void_steps(reading, rule, reason, ("vote",), only=_this(step.action))
            if match.how != "ignored":
                where = (reading.voter or reading.post.author, reading.post.id)
                findings.append(Finding(rule, unresolved_reason(match, where), reading.post.id,
                                        reading.voter, needs_gm=True))
        return reading, tuple(findings)

    return each(check)


def unresolved_reason(match: NameMatch, where: tuple[str, str] | None = None) -> str:
    """"unresolved name 'Carrol?' (ambiguous): best guess Carol 78"; `where` (who wrote it, in
    which post) follows the name."""
    if match.how == "ignored":
        return msg("name '{name}' is ignored by the GM's resolutions", name=match.written)
    name = (msg("'{name}' (written by {player} in post {post})", name=match.written,
                player=where[0], post=where[1]) if where else msg("'{name}'", name=match.written))
    if match.named:  # issue 13: one vote line, several players
        return msg_n("{name} names {n} players ({players}): counted for nobody; the GM decides",
                     "{name} names {n} players ({players}): counted for nobody; the GM decides",
                     name=name, n=len(match.named), players=tuple(match.named))
    kind = {"ambiguous": msg("ambiguous"), "mixed_script": msg("mixes scripts")}.get(match.how)
    head = (msg("unresolved name {name} ({kind})", name=name, kind=kind) if kind
            else msg("unresolved name {name}", name=name))
    if match.runner_up:
        score = f"{match.runner_up_score:.0f}"
        return msg("{head}: best guess {player} {score}", head=head, player=match.runner_up,
                   score=score)
    return msg("{head}: no player on the roster is close", head=head)


# Which steps a policy voids, bound now: a lambda in a loop would see the loop's last value.
def _aimed_at(target: str) -> Callable[[Action], bool]:
    return lambda action: action.target == target


def _this(action: Action) -> Callable[[Action], bool]:
    return lambda other: other is action
