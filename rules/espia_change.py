"""The `espia` preset's change policy (RULES.md E3, rulebook 8A): the first vote is final.

Once a player has voted, a change (another target, or a revoke) voids his vote for good, and a
second change is his death at the GM's hand: the counter flags it. An edit that changed a vote's
target is a change too, dated at the edit, when a saved copy shows the text before it; without
one the post is taken as it reads and the GM is asked.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime

from tally.model import Action, Finding, Post, msg
from tally.names import normalise
from tally.rules.change import Standing, settle
from tally.rules.reading import (
    Context,
    Reading,
    Stage,
    second_after,
    silent_change,
    void_steps,
)

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


def _utc(at: datetime | None) -> str:
    return f"{at:%Y-%m-%d %H:%M:%S} UTC"


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
        silent = None if edited_in_time else silent_change(ctx, post)
        # A post with no vote left is looked at only when an edit may have taken its vote away:
        # in time, by a living player, with no action that an earlier policy voided.
        unvoted = (now == _KEEP and (edited_in_time or silent is not None)
                   and not reading.steps and not reading.silent
                   and post.created_at < late and voter is not None
                   and ctx.life.alive(voter, post.created_at))
        if voter is None or (now == _KEEP and not unvoted):
            continue
        mine = out.setdefault(voter, [])
        if edit is not None and edited_in_time:
            if edit.editor and normalise(edit.editor) in staff:
                marked[index] = replace(reading, remarks=reading.remarks + (
                    msg("edited by staff {editor}, kept", editor=edit.editor),))
            else:
                old = _copy_before_edit(ctx, post)
                if old is None:
                    if now != _KEEP:  # a chat post edited with no copy is no vote to flag
                        note = msg("edited; the text before the edit is not known: taken as it "
                                   "reads")
                        marked[index] = replace(reading, remarks=reading.remarks + (note,))
                        findings.append(Finding("E3", msg("post {post} by {player}: vote post {note}",
                                                          post=post.id, player=voter, note=note),
                                                post.id, voter, needs_gm=True))
                else:
                    before = _final_target(ctx.extractor.ballot(old).actions)
                    marked[index] = replace(reading, evidence=reading.evidence + (
                        msg("edit marker: {marker}; the copy fetched {when} shows the text before "
                            "it", marker=edit.text, when=_utc(old.fetched_at)),))
                    if before != _KEEP and before != now:
                        mine.append(_Declared(post.created_at, len(mine), index, before))
                        mine.append(_Declared(edit.edited_at or post.created_at, len(mine), index,
                                              None if now == _KEEP else now))
                        continue
        elif silent is not None:
            old, seen = silent
            before = _final_target(ctx.extractor.ballot(old).actions)
            if before != _KEEP and before != now:
                # Dated when the new text was first seen: the change is proven made by then.
                then = (msg("votes {player}", player=now) if now not in (_KEEP, None)
                        else msg("casts no vote"))
                marked[index] = replace(reading, evidence=reading.evidence + (
                    msg("text changed with no edit marker: the copy fetched {when} votes {before}, "
                        "the one fetched {seen} {then}", when=_utc(old.fetched_at),
                        before=before or msg("nobody (revoke)"), seen=_utc(seen), then=then),))
                mine.append(_Declared(post.created_at, len(mine), index, before))
                mine.append(_Declared(seen, len(mine), index, None if now == _KEEP else now))
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
        move = msg("from {old} to {new}", old=left or msg("no vote"),
                   new=d.target or msg("no vote (revoke)"))
        if number == 1:
            yield d.index, msg("change of vote {move}: the player's vote is void (8A)", move=move), \
                Finding("E3", msg("post {post} by {player}: change of vote {move}: his vote is void "
                                  "(8A)", post=post.id, player=voter, move=move), post.id, voter)
        else:
            which = msg("second change") if number == 2 else msg("change number {n}", n=number)
            yield d.index, msg("{which} of vote {move}: the GM kills the player (8A)", which=which,
                               move=move), \
                Finding("E3", msg("post {post} by {player}: {which}: the GM kills the player (8A)",
                                  post=post.id, player=voter, which=which),
                        post.id, voter, needs_gm=True)
        marked.add(d.index)
    first_at = changes[0][0]
    for d in decls:
        if d.index in marked:
            continue
        marked.add(d.index)
        if (d.at, d.order) < (first_at.at, first_at.order):
            why = msg("vote changed in post {post}: the first vote does not come back (8A)",
                      post=first_post)
        else:
            why = msg("the player's vote is void since the change in post {post} (8A)",
                      post=first_post)
        yield d.index, why, None


def voided_by_change(reading: Reading) -> bool:
    """Whether E3 took this post's vote away (by a change, or by an edit that changed it)."""
    return reading.silent.endswith("(8A)") or any(
        s.void is not None and s.void.rule == "E3" for s in reading.steps)


def standing_before(readings: tuple[Reading, ...], index: int, ctx: Context,
                    precision: str) -> dict[str, Standing]:
    """The votes standing when reading `index` was posted. E3 is judged again on the posts up to
    then: a change made later had not yet voided anything."""
    def unjudged(r: Reading) -> Reading:
        steps = tuple(replace(s, void=None) if s.void and s.void.rule == "E3" else s for s in r.steps)
        return replace(r, steps=steps, silent="" if r.silent.endswith("(8A)") else r.silent)

    then = replace(ctx, as_of=readings[index].post.created_at)
    prefix, _ = first_vote_stands("E3", precision)(tuple(unjudged(r) for r in readings[:index]), then)
    return settle(prefix).standing
