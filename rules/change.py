"""The change policy (K6, K7): the last valid vote counts, a revoke withdraws, one vote each (K3).

The actions of a post apply in order ("unvote" then "vote: B"); a post whose actions all failed
changes nothing. Each voter's effective posts form a chain: every one is superseded by the next,
and the last one is counted (a vote standing, or a revoke leaving none). Every reading ends with
exactly one Verdict (C4).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from tally.model import Action, NameMatch, Verdict, msg, msg_clauses
from tally.rules.reading import Context, Reading

NO_ELIMINATION = "No elimination"  # how a no-elimination vote shows in a count (C3)


@dataclass(frozen=True, slots=True)
class Standing:
    """A voter's vote in force: for whom, and the reading (post) that cast it."""

    voter: str
    target: str
    index: int  # into the readings
    action: Action


@dataclass(frozen=True, slots=True)
class Effect:
    """What an effective post left behind: a standing vote, or none (with what it withdrew)."""

    vote: Standing | None
    withdrew: Standing | None = None


def target_of(action: Action) -> str | None:
    return NO_ELIMINATION if action.kind == "no_elimination" else action.target


def apply(standing: dict[str, Standing], index: int, reading: Reading) -> Effect | None:
    """One post's effect on the standing votes, which it changes in place; None: no effect (no
    voter, or every action void)."""
    live = [s.action for s in reading.steps if s.void is None]
    voter = reading.voter
    if voter is None or not live:
        return None
    effect = Effect(None)
    for action in live:
        target = target_of(action)
        if action.kind == "unvote" or target is None:
            effect = Effect(None, standing.pop(voter, None))
        else:
            standing[voter] = Standing(voter, target, index, action)
            effect = Effect(standing[voter])
    return effect


def walk(readings: tuple[Reading, ...]) -> Iterator[tuple[int, Effect, dict[str, Standing]]]:
    """Each effective post in order, with its effect and the standing votes right after it."""
    standing: dict[str, Standing] = {}
    for index, reading in enumerate(readings):
        effect = apply(standing, index, reading)
        if effect is not None:
            yield index, effect, dict(standing)


@dataclass(frozen=True, slots=True)
class Tallying:
    """What a fold over the readings carries from post to post (Preset.fold): the standing
    votes, and whether the day has already ended (the hammer, C3)."""

    standing: Mapping[str, Standing]
    ended: bool = False

    def counts(self) -> tuple[tuple[str, int], ...]:
        """(target, votes) by target name: the standing count the chart draws."""
        votes: dict[str, int] = {}
        for vote in self.standing.values():
            votes[vote.target] = votes.get(vote.target, 0) + 1
        return tuple(sorted(votes.items()))


def fold(state: Tallying, index: int, reading: Reading, ctx: Context) -> Tallying:
    """K6/K7 one post at a time: the standing votes after `reading` (what `settle` ends with)."""
    standing = dict(state.standing)
    if apply(standing, index, reading) is None:
        return state
    return Tallying(standing)


@dataclass(frozen=True, slots=True)
class Settlement:
    verdicts: tuple[Verdict, ...]
    standing: dict[str, Standing]  # voter -> the vote in force at the end


def settle(readings: tuple[Reading, ...]) -> Settlement:
    effects: dict[int, Effect] = {}
    superseded_by: dict[int, str] = {}
    last: dict[str, int] = {}
    standing: dict[str, Standing] = {}
    for index, effect, after in walk(readings):
        standing = after  # the votes in force after the last effective post
        voter = readings[index].voter or ""
        if voter in last:  # K6/K7: the earlier effective post is replaced by this one
            superseded_by[last[voter]] = readings[index].post.id
        last[voter] = index
        effects[index] = effect
    verdicts = tuple(_verdict(r, effects.get(i), superseded_by.get(i), readings)
                     for i, r in enumerate(readings))
    return Settlement(verdicts, standing)


def _verdict(reading: Reading, effect: Effect | None, replaced_by: str | None,
             readings: tuple[Reading, ...]) -> Verdict:
    post = reading.post
    base: dict[str, Any] = {
        "post_id": post.id, "position": post.position, "author": post.author,
        "voter": reading.voter, "time": post.created_at, "permalink": post.permalink,
        "evidence": reading.evidence, "match": _last_match(reading),
    }
    if effect is not None:
        target = effect.vote.target if effect.vote else None
        if replaced_by is not None:
            reason = _join(msg("replaced by post {post}", post=replaced_by), reading.remarks,
                           _failed(reading))
            return Verdict(**base, verdict="superseded", target=target, superseded_by=replaced_by,
                           reason=reason)
        return Verdict(**base, verdict="counted", target=target,
                       reason=_join(_effect_text(effect, readings), reading.remarks, _failed(reading)))
    if reading.steps:  # every action failed: the last one's reason is the post's (its final effect)
        void = [s.void for s in reading.steps if s.void is not None][-1]
        return Verdict(**base, verdict="void", rule=void.rule, reason=_join(void.reason, reading.remarks),
                       target=target_of(reading.steps[-1].action))
    return Verdict(**base, verdict="not_a_vote", reason=reading.silent)


def _effect_text(effect: Effect, readings: tuple[Reading, ...]) -> str:
    if effect.vote is not None:
        return msg("vote for {player}", player=effect.vote.target)
    if effect.withdrew is not None:  # K7
        return msg("withdraws the vote for {player} (post {post})", player=effect.withdrew.target,
                   post=readings[effect.withdrew.index].post.id)
    return msg("unvote with no standing vote to withdraw")


def _failed(reading: Reading) -> tuple[str, ...]:
    """The actions of an effective post that did not apply, so the audit still shows them."""
    return tuple(msg("ignored '{action}' ({rule}: {reason})", action=s.action.text or s.action.kind,
                     rule=s.void.rule, reason=s.void.reason)
                 for s in reading.steps if s.void is not None)


def _last_match(reading: Reading) -> NameMatch | None:
    matches = [s.action.match for s in reading.steps if s.action.match is not None]
    return matches[-1] if matches else None


def _join(head: str, *more: tuple[str, ...]) -> str:
    return msg_clauses(head, *(m for group in more for m in group))
