"""One count: thread + game file + day -> Tally (DESIGN.md "How data flows").

    posts of the day's window -> Extractor.ballot -> preset.judge -> Tally

The window is every post from the day's start, in thread order, up to the as-of point (C6): by
default the thread's fetch time. Posts after the deadline stay in it so that a late vote gets
its verdict (K1, C7). Pure: the same thread and game file give the same Tally, byte for byte.

`others` are the game's other threads (the game file's `threads`), for a preset that counts
activity across them (R10). They are cut to the same window by time (a post id of the counted
thread says nothing about their order) and are never judged as votes.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from tally import rules, times
from tally.errors import InputError
from tally.extract import Extractor
from tally.game import Day, Game
from tally.model import Finding, Post, Tally, Thread, msg, msg_n
from tally.progress import Judging, each
from tally.rules.preset import Preset

JUDGING_POSTS = "Judging posts"  # the bar's label on a terminal


@dataclass(frozen=True)
class Cut:
    """Where a count stops: the as-of point (C6) and, with up_to_post, the last position."""

    preset: Preset[Any]
    day: Day
    point: datetime
    last_position: int | None
    posts: list[Post]  # the day's window up to the point, thread order


def cut(thread: Thread, game: Game, day: int, as_of: datetime | None = None,
        up_to_post: str | None = None) -> Cut:
    """The window a count of day `day` judges, as at `as_of` or right after `up_to_post`."""
    preset = rules.get(game.preset)
    preset.validate(game)
    the_day = game.day(day)
    posts = in_order(thread.posts)
    point = as_of or thread.fetched_at or times.now()
    if thread.fetched_at is not None and point > thread.fetched_at:
        # Issue 16: nothing is known of the thread after its newest fetch; a count "as of" a
        # later time would claim posts that may exist unseen. It is the count as of the fetch.
        point = thread.fetched_at
    last_position: int | None = None
    if up_to_post is not None:
        stop = next((p for p in posts if p.id == up_to_post), None)
        if stop is None:
            raise InputError(f"post {up_to_post} is not in the thread {thread.url}")
        point = min(point, stop.created_at)
        last_position = stop.position
    require_whole(thread, the_day, point, last_position)
    return Cut(preset, the_day, point, last_position,
               window(posts, the_day, point, last_position))


def count(thread: Thread, game: Game, day: int, as_of: datetime | None = None,
          up_to_post: str | None = None, others: Sequence[Thread] = (),
          judging: Judging | None = None) -> Tally:
    """Judge day `day` as the thread stood at `as_of` or right after the post `up_to_post`;
    `others`: the game's other threads, for the preset's activity count (R10); `judging`: told
    of each post judged (a bar on a terminal, tally.progress; None: nobody watches)."""
    at = cut(thread, game, day, as_of, up_to_post)
    for other in others:  # R10 counts the day's posts there: a hole could hide one
        require_pages(other, at.day.start, at.point, "a post of the day")
    extractor = Extractor(game, at.preset.syntax)
    ballots = [extractor.ballot(p) for p in each(at.posts, JUDGING_POSTS, judging)]
    elsewhere = other_threads(others, thread, at.day, at.point)
    tally = at.preset.judge(ballots, game, at.day, at.point, thread.history, others=elsewhere)
    zone_flags = zone_contradictions(thread, game)
    if zone_flags:
        tally = replace(tally, findings=tally.findings + zone_flags)
    reading = thread.notes
    if as_of is not None and thread.fetched_at is not None and as_of > thread.fetched_at:
        reading += (msg("asked as of {asked} UTC, but the pages were fetched {fetched} UTC: "
                        "counted as of then, what came after is not known",
                        asked=as_of.strftime("%Y-%m-%d %H:%M:%S"),
                        fetched=thread.fetched_at.strftime("%Y-%m-%d %H:%M:%S")),)
    reading += read_earlier(others, min(at.point, at.day.deadline))
    # Pages skipped as unreadable, archive records left out: the GM must know what was not read.
    return replace(tally, reading=reading) if reading else tally


def read_earlier(others: Sequence[Thread], point: datetime) -> tuple[str, ...]:
    """The other threads known only up to before the count's point (saved earlier, or last read
    whole earlier: a crawl that stopped, tally.crawl): their later posts of the day are not in
    the activity count (R10), whose flags the GM must weigh with that (issue 16)."""
    return tuple(msg("the other game thread {url} is known up to {read} UTC only, before the "
                     "count's {point} UTC: its later posts of the day are not counted",
                     url=other.url, read=other.fetched_at.strftime("%Y-%m-%d %H:%M:%S"),
                     point=point.strftime("%Y-%m-%d %H:%M:%S"))
                 for other in others
                 if other.fetched_at is not None and other.fetched_at < point)


def zone_contradictions(thread: Thread, game: Game) -> tuple[Finding, ...]:
    """The pages say which offset their times are in (phpBB's "All times are UTC-03:00"); a
    game file whose zone is another offset then reads every time, every deadline, hours off:
    late votes count and valid ones are late (issue 16). The GM must fix the zone."""
    flags = []
    for offset, seen in thread.utc_offsets:
        ours = times.zone(game.timezone).utcoffset(seen)
        if ours != offset:
            flags.append(Finding(
                "zone", msg_n("the pages say their times are {stated} (fetched {seen} UTC), but "
                              "the game file's timezone {zone} was {ours} then: every time is "
                              "read {n} hour off; set timezone to the forum's zone",
                              "the pages say their times are {stated} (fetched {seen} UTC), but "
                              "the game file's timezone {zone} was {ours} then: every time is "
                              "read {n} hours off; set timezone to the forum's zone",
                              stated=times.offset_text(offset),
                              seen=seen.strftime("%Y-%m-%d %H:%M"),
                              zone=game.timezone, ours=times.offset_text(ours or timedelta()),
                              n=_hours(offset - (ours or timedelta()))), needs_gm=True))
    return tuple(flags)


def _hours(delta: timedelta) -> int | float:
    hours = abs(delta.total_seconds()) / 3600
    return int(hours) if hours.is_integer() else hours


def require_whole(thread: Thread, day: Day, point: datetime,
                  last_position: int | None = None) -> None:
    """A count is final only over a whole thread (issue 16): a page missing inside the day's
    window (a crawl killed midway, a page not saved) could hold a vote. A hole whose posts all
    precede the day's start, or all follow the as-of point, cannot change the count."""
    require_pages(thread, day.start, point, "a vote", last_position)


def require_pages(thread: Thread, start: datetime | None, point: datetime, what: str,
                  last_position: int | None = None) -> None:
    """No page of `thread` missing between `start` (None: the thread's beginning) and `point`:
    `what` (a vote, a post the activity count needs) could be on it. The counted thread, the
    game's other threads (R10) and the trigger report (over the whole thread) alike.
    `last_position`: the place of the post a count is cut right after (--as-of POST_ID); a hole
    above that post's page follows it, though its first posts may share the cut post's time."""
    holes = [gap.number for gap in thread.missing
             if not (start is not None and gap.before is not None and gap.before < start)
             and not (gap.after is not None and gap.after > point)
             and not (last_position is not None and gap.after_position is not None
                      and last_position <= gap.after_position)]
    if holes:
        of = thread.missing[0].of
        pages = "page" if len(holes) == 1 else "pages"
        raise InputError(f"{pages} {', '.join(map(str, holes))} of {of} missing from what was "
                         f"read of {thread.url}: {what} could be on it; read the thread again "
                         "(or save the missing page) and count again")


def other_threads(others: Sequence[Thread], thread: Thread, day: Day,
                  as_of: datetime) -> tuple[Thread, ...]:
    """The other threads in the day's window up to `as_of`, each post once: a thread given twice,
    or a post also in the counted thread, is not counted again."""
    seen = {p.id for p in thread.posts}
    out: list[Thread] = []
    for other in others:
        if other.url == thread.url:
            continue
        shown = window(in_order(other.posts), day, as_of, None)
        posts = [p for p in shown if p.id not in seen]
        if shown and not posts:  # the counted thread (or one already given) under another URL
            continue
        seen.update(p.id for p in posts)
        out.append(replace(other, posts=tuple(posts)))
    return tuple(out)


def in_order(posts: Iterable[Post]) -> list[Post]:
    """Thread order, one post per id: the newest fetch of a post wins over an older duplicate."""
    newest: dict[str, Post] = {}
    for post in posts:
        seen = newest.get(post.id)
        if seen is None or _fetched(post) > _fetched(seen):
            newest[post.id] = post
    return sorted(newest.values(), key=lambda p: (p.position, p.created_at, p.id))


def _fetched(post: Post) -> datetime:
    return post.fetched_at or post.created_at


def window(posts: list[Post], day: Day, as_of: datetime, last_position: int | None) -> list[Post]:
    """The day's posts up to the as-of point (C6); late ones included, to be judged late."""
    return [p for p in posts
            if day.start <= p.created_at <= as_of
            and (last_position is None or p.position <= last_position)]
