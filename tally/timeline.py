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

from bisect import bisect_right
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from tally import engine
from tally.extract import Extractor
from tally.game import Day, Game
from tally.model import Ballot, Count, Post, Tally, Thread
from tally.progress import Judging, each
from tally.rules.change import Tallying
from tally.rules.preset import Preset
from tally.rules.reading import Context, Reading, as_at, readings_of
from tally.rules.validity import Each

_AFTER_POSTS = 1 << 62
VOTES_OVER_TIME = "Votes over time"  # the bar's label on a terminal: the moments judged

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
                    up_to_post: str | None = None, others: Sequence[Thread] = (),
                    judging: Judging | None = None) -> Timeline:
    """The day's steps, with the window and as-of point `engine.count` would use; `judging`:
    told of each post read and each moment judged (a bar on a terminal; None: nobody watches)."""
    at = engine.cut(thread, game, day, as_of, up_to_post)
    preset, the_day, point, last_position, shown = (at.preset, at.day, at.point,
                                                     at.last_position, at.posts)
    extractor = Extractor(game, preset.syntax)
    ballots = {p.id: extractor.ballot(p) for p in each(shown, engine.JUDGING_POSTS, judging)}

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

    ordered = sorted(set(moments), key=lambda m: (m[0], m[1]))
    public: list[Step] = []
    gm: list[Step] = []
    secret = False
    folded = _Folded.of(preset, game, the_day, shown, ballots, thread.history)
    if folded is not None:  # the preset's count one post at a time: one pass (issue 15)
        for moment, _, post_id, position in each(ordered, VOTES_OVER_TIME, judging):
            counts = folded.counts_at(moment, position)
            if not public or public[-1].counts != counts:
                public.append(Step(moment, post_id, counts))
    else:  # the window judged again at every moment
        for moment, _, post_id, position in each(ordered, VOTES_OVER_TIME, judging):
            secret |= _add(public, gm, moment, post_id, judge(moment, position))
    final = judge(point, last_position)
    secret |= _add(public, gm, point, final.counted_up_to, final)
    return Timeline(day=day, start=the_day.start, deadline=the_day.deadline, as_of=point,
                    zone=game.timezone, public=tuple(public), gm=tuple(gm) if secret else None,
                    ended_at=final.ended_at)


class _Folded:
    """The standing count at each moment, from the preset's fold (Preset.fold) in one pass.

    The count at a moment is the fold over the posts of the window then: a prefix of the day's
    posts, since the moments come in time order and a post's place follows its time (checked;
    otherwise `of` declines). Each post is read (C6 `as_at`, then the validity checks, each
    judging a post on its own: rules.validity.Each) once, and read again only when the as-of
    point passes one of the times its reading depends on: its edit's date, the fetch times of
    its saved copies (C6). The fold's state after every post is kept, so a post read anew folds
    again from just before it.
    """

    def __init__(self, preset: Preset[Any], game: Game, day: Day, posts: Sequence[Post],
                 ballots: Mapping[str, Ballot], history: Mapping[str, tuple[Post, ...]]) -> None:
        assert preset.fold is not None
        self.fold = preset.fold
        self.preset, self.game, self.day, self.history = preset, game, day, history
        self.options = preset.options(game)
        self.stages = preset.validity(self.options)
        self.posts = posts
        self.ballots = [ballots[p.id] for p in posts]
        self.times = [p.created_at for p in posts]
        self.positions = [p.position for p in posts]
        self.readings: list[Reading | None] = [None] * len(posts)
        self.states = [Tallying({})]  # states[i]: after the first i posts
        self.changes: dict[datetime, list[int]] = {}  # as-of times a post's reading turns on
        for index, post in enumerate(posts):
            for at in _turning_points(post, history.get(post.id, ())):
                self.changes.setdefault(at, []).append(index)
        self.turns = sorted(self.changes)
        self.passed = 0  # turning points at or before the last moment

    @classmethod
    def of(cls, preset: Preset[Any], game: Game, day: Day, posts: Sequence[Post],
           ballots: Mapping[str, Ballot], history: Mapping[str, tuple[Post, ...]]) -> _Folded | None:
        if preset.fold is None or not all(isinstance(s, Each)
                                          for s in preset.validity(preset.options(game))):
            return None
        if any(a.created_at > b.created_at for a, b in zip(posts, posts[1:])):
            return None  # a post placed before an earlier one: windows are not prefixes
        return cls(preset, game, day, posts, ballots, history)

    def counts_at(self, at: datetime, position: int | None) -> Standing:
        """The standing count of the window at `at`, up to `position` (None: every post)."""
        while self.passed < len(self.turns) and self.turns[self.passed] <= at:
            for index in self.changes[self.turns[self.passed]]:  # read again from now on
                self.readings[index] = None
                del self.states[index + 1:]
            self.passed += 1
        size = bisect_right(self.times, at)
        if position is not None:
            size = min(size, bisect_right(self.positions, position))
        if len(self.states) <= size:
            ctx = self.preset.context(self.game, self.day, at, self.history, self.options)
        while len(self.states) <= size:
            index = len(self.states) - 1
            reading = self.readings[index]
            if reading is None:
                reading = self.readings[index] = self._read(index, ctx)
            self.states.append(self.fold(self.states[-1], index, reading, ctx))
        return self.states[size].counts()

    def _read(self, index: int, ctx: Context) -> Reading:
        readings, _ = as_at(readings_of((self.ballots[index],), self.game), ctx)
        for stage in self.stages:
            readings, _ = stage(readings, ctx)
        return readings[0]


def _turning_points(post: Post, versions: Sequence[Post]) -> set[datetime]:
    """The as-of times at which a post's reading can change (rules.reading.as_at, edit checks):
    its edit's date and, where copies were saved, their fetch and edit times and its own."""
    out = {post.edit.edited_at} if post.edit and post.edit.edited_at else set()
    if versions:
        if post.fetched_at is not None:
            out.add(post.fetched_at)
        for version in versions:
            out |= {t for t in (version.fetched_at,
                                version.edit.edited_at if version.edit else None) if t}
    return out


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
