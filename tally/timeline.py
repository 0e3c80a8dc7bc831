"""Votes over time: the standing count of a day after every moment that could change it.

The count at each moment is the preset's own answer, judged exactly as `engine.count` judges the
thread at that point (C6: as the thread stood then). The moments are:

- the day's first post and each vote post: `engine.count(..., up_to_post=post)`, the thread as
  it stood right after it (a post that casts no vote changes nothing: no need to judge it);
- each edit inside the window (its marker's time) and each GM event of the day: the thread as it
  stood at that time (`engine.count(..., as_of=t)`), so that a vote voided by a later edit
  (K4, E3) or a death (C2) drops when it happened, not at the next vote;
- the count's own as-of point, so the last step is the count itself.

Instead of calling `engine.count` once per moment, the posts are read into ballots once and only
the preset's `judge` runs per moment, on the same window `engine.window` gives: the same inputs,
so the same Tally (tests/test_report_html.py checks it against `engine.count` on the fixtures).
Steps where the counts did not change are dropped.

The public series comes from the public counts; the GM series from `gm_counts` (the secret
effects applied, E6, R4-R8), and is None when no moment has secret effects.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from tally import engine
from tally.extract import Extractor
from tally.game import Game
from tally.model import Ballot, Count, Tally, Thread

_AFTER_POSTS = 1 << 62

Standing = tuple[tuple[str, int], ...]  # (candidate, votes) by name; no-vote candidates left out


@dataclass(frozen=True, slots=True)
class Step:
    """The standing count from `time` on, until the next step."""

    time: datetime  # aware UTC
    post_id: str | None  # the post that made the change (None: a GM event or the as-of point)
    counts: Standing


@dataclass(frozen=True, slots=True)
class Timeline:
    day: int
    start: datetime  # the day's start (UTC)
    deadline: datetime
    as_of: datetime  # the count's as-of point: the lines end here
    zone: str  # the forum's zone, for time labels
    public: tuple[Step, ...]
    gm: tuple[Step, ...] | None = None  # with secret effects; None when equal to `public`
    ended_at: datetime | None = None  # the day ended early (a hammer, C3)

    def candidates(self, steps: Sequence[Step]) -> tuple[str, ...]:
        """Everyone who held a vote at some point, most final votes first, then by first vote."""
        first: dict[str, int] = {}
        for index, step in enumerate(steps):
            for name, _ in step.counts:
                first.setdefault(name, index)
        final = dict(steps[-1].counts) if steps else {}
        return tuple(sorted(first, key=lambda name: (-final.get(name, 0), first[name])))


def standing(counts: Sequence[Count]) -> Standing:
    """Sorted by name: the order of equal counts says nothing, only the numbers are compared."""
    return tuple(sorted((c.player, c.votes) for c in counts if c.votes > 0))


def votes_over_time(thread: Thread, game: Game, day: int, as_of: datetime | None = None,
                    up_to_post: str | None = None, others: Sequence[Thread] = ()) -> Timeline:
    """The day's steps, with the window and as-of point `engine.count` would use."""
    at = engine.cut(thread, game, day, as_of, up_to_post)
    preset, the_day, point, last_position, shown = (at.preset, at.day, at.point,
                                                     at.last_position, at.posts)
    extractor = Extractor(game, preset.syntax)
    ballots = {p.id: extractor.ballot(p) for p in shown}

    def judge(at: datetime, position: int | None) -> Tally:
        window = engine.window(shown, the_day, at, position)
        elsewhere = engine.other_threads(others, thread, the_day, at)
        return preset.judge([ballots[p.id] for p in window], game, the_day, at, thread.history,
                            others=elsewhere)

    # (time, order within the same time, post id, position limit)
    moments: list[tuple[datetime, int, str | None, int | None]] = []
    for p in shown:  # the first post: the standing at the day's start (GM events in force)
        if p is shown[0] or casts_a_vote(ballots[p.id], extractor, thread):
            moments.append((p.created_at, p.position, p.id, p.position))
        for version in (p, *thread.history.get(p.id, ())):  # each edit the versions date
            edited = version.edit.edited_at if version.edit else None
            if edited is not None and the_day.start <= edited < point:
                moments.append((edited, p.position, p.id, last_position))
    for event in game.events:  # after the posts of the same second: its window holds them all
        if the_day.start <= event.at < point:
            moments.append((event.at, _AFTER_POSTS, None, last_position))

    public: list[Step] = []
    gm: list[Step] = []
    secret = False
    for moment, _, post_id, position in sorted(set(moments), key=lambda m: (m[0], m[1])):
        secret |= _add(public, gm, moment, post_id, judge(moment, position))
    final = judge(point, last_position)
    secret |= _add(public, gm, point, final.counted_up_to, final)
    return Timeline(day=day, start=the_day.start, deadline=the_day.deadline, as_of=point,
                    zone=game.timezone, public=tuple(public), gm=tuple(gm) if secret else None,
                    ended_at=final.ended_at)


def casts_a_vote(ballot: Ballot, extractor: Extractor, thread: Thread) -> bool:
    """Whether the post, as it reads now or in an earlier version the store kept, casts a vote:
    judged as at an earlier moment (C6), an edited post is read as it stood then."""
    return ballot.is_vote_post or any(extractor.ballot(old).is_vote_post
                                      for old in thread.history.get(ballot.post.id, ()))


def _add(public: list[Step], gm: list[Step], at: datetime, post_id: str | None,
         tally: Tally) -> bool:
    """Append a step to each series whose counts changed; True when the GM's counts differ
    from the public ones (a secret effect in force)."""
    shown = standing(tally.counts)
    secret = standing(tally.gm_counts) if tally.gm_counts is not None else shown
    for series, counts in ((public, shown), (gm, secret)):
        if not series or series[-1].counts != counts:
            series.append(Step(at, post_id, counts))
    return secret != shown
