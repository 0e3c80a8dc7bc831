"""When the scheduled run posts (tally.when): the reasons a GM reads in the cron log.

Counts are built by hand (a Tally as a preset would give it); times are in UTC, the forum's
zone is Europe/Paris (UTC+1 in January), so 20:04 UTC reads "21:04".
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from tally.game import Posting
from tally.model import Count, Finding, Outcome, Tally
from tally.when import LastPosted, changes, content_sha256, decide, summarise

DEADLINE = datetime(2026, 1, 17, 21, 0, tzinfo=UTC)  # 22:00 in Paris
NOON = datetime(2026, 1, 16, 11, 0, tzinfo=UTC)  # 12:00 in Paris


def count_of(votes: dict[str, tuple[str, ...]], **over) -> Tally:
    counts = tuple(sorted((Count(target, len(voters), voters) for target, voters in votes.items()),
                          key=lambda c: -c.votes))
    voted = {v for voters in votes.values() for v in voters}
    living = ("Alice", "Bob", "Carol", "Dan", "Eve")
    top = counts[0].player if counts else None
    base = dict(game="Mafia game 12", preset="majority", day=1, deadline=DEADLINE, as_of=NOON,
                counts=counts, not_voting=tuple(p for p in living if p not in voted),
                outcome=Outcome("eliminated" if top else "none", top, "C3", "most votes"),
                verdicts=(), living=living, majority=3, zone="Europe/Paris")
    base.update(over)
    return Tally(**base)


def posted(tally: Tally, at: datetime, final: bool = False) -> LastPosted:
    summary = summarise(tally, final)
    return LastPosted(summary, at, content_sha256(summary))


ONE = count_of({"Bob": ("Alice",)})
TWO = count_of({"Bob": ("Alice", "Carol")})


def test_first_count_of_the_day_waits_for_a_vote():
    quiet = decide(count_of({}), None, Posting(), NOON)
    assert (quiet.post, quiet.reason) == (False, "no votes yet in day 1")
    first = decide(ONE, None, Posting(), NOON)
    assert (first.post, first.reason, first.final) == (True, "first count of day 1 (1 vote)", False)


def test_nothing_changed_names_the_time_of_the_last_count_in_forum_time():
    last = posted(ONE, datetime(2026, 1, 16, 20, 4, tzinfo=UTC))
    later = replace(ONE, as_of=NOON + timedelta(hours=10), counted_up_to="999")  # times differ
    decision = decide(later, last, Posting(), NOON + timedelta(hours=10))
    assert (decision.post, decision.reason) == (False, "nothing changed since the count posted "
                                                       "at 21:04")


def test_a_change_waits_for_min_interval_then_posts():
    last = posted(ONE, NOON)
    soon = decide(TWO, last, Posting(min_interval=30), NOON + timedelta(minutes=12))
    assert (soon.post, soon.reason) == (False, "changed, but the last count was 12 min ago "
                                               "(min_interval 30)")
    later = decide(TWO, last, Posting(min_interval=30), NOON + timedelta(minutes=30))
    assert (later.post, later.reason) == (True, "1 vote change since the count posted at 12:00")


def test_every_k_new_votes_posts_at_once():
    last = posted(ONE, NOON)
    three = count_of({"Bob": ("Alice",), "Dan": ("Carol", "Eve"), "Alice": ("Bob",)}, majority=4)
    decision = decide(three, last, Posting(every_votes=3), NOON + timedelta(minutes=2))
    assert (decision.post, decision.reason) == (True, "3 new votes (every_votes 3)")
    under = decide(TWO, last, Posting(every_votes=3), NOON + timedelta(minutes=2))
    assert not under.post


def test_reaching_the_threshold_posts_at_once_once():
    kira = dict(preset="kira", majority=None, threshold=3)
    last = posted(count_of({"Bob": ("Alice", "Carol")}, **kira), NOON)
    three = count_of({"Bob": ("Alice", "Carol", "Dan")}, **kira)
    decision = decide(three, last, Posting(), NOON + timedelta(minutes=3))
    assert (decision.post, decision.reason) == (True, "Bob reached the threshold (3)")
    off = decide(three, last, Posting(at_threshold=False), NOON + timedelta(minutes=3))
    assert not off.post and "min_interval" in off.reason
    # Already at the threshold when last posted: a further vote is an ordinary change.
    four = count_of({"Bob": ("Alice", "Carol", "Dan", "Eve")}, **kira)
    again = decide(four, posted(three, NOON), Posting(), NOON + timedelta(minutes=3))
    assert not again.post


def test_a_hammer_ends_the_day_and_posts_the_final_count():
    hammered = count_of({"Bob": ("Alice", "Carol", "Dan")}, ended_at=NOON)
    decision = decide(hammered, posted(TWO, NOON), Posting(), NOON + timedelta(minutes=1))
    assert (decision.post, decision.reason, decision.final) == \
        (True, "Bob reached the majority (3): final count", True)


def test_final_count_once_after_the_deadline_and_never_again():
    after = DEADLINE + timedelta(minutes=5)
    last = posted(ONE, DEADLINE - timedelta(hours=2))
    final = decide(ONE, last, Posting(), after)  # unchanged, but final: posted once
    assert (final.post, final.reason, final.final) == (True, "the deadline passed: final count",
                                                       True)
    done = decide(TWO, posted(ONE, after, final=True), Posting(), after + timedelta(hours=1),
                  final_posted=after)
    assert (done.post, done.reason) == (False, "the final count of day 1 was posted at 22:05; "
                                               "nothing more for this day")
    off = decide(ONE, last, Posting(at_deadline=False), after)
    assert (off.post, off.reason) == (False, "day 1 is over and at_deadline is off")


@pytest.mark.parametrize("utc_hour,inside", [(0, True), (6, True), (7, False), (23, False)])
def test_quiet_hours_are_forum_time(utc_hour, inside):
    # 01:00-08:00 Paris = 00:00-07:00 UTC in January.
    now = datetime(2026, 1, 16, utc_hour, 30, tzinfo=UTC)
    decision = decide(ONE, None, Posting(quiet_hours=("01:00", "08:00")), now)
    assert decision.post is not inside
    if inside:
        assert decision.reason == "quiet hours 01:00-08:00 forum time"


def test_quiet_hours_over_midnight_hold_the_final_count_until_they_end():
    late = replace(count_of({"Bob": ("Alice",)}), deadline=datetime(2026, 1, 16, 22, 30,
                                                                     tzinfo=UTC))
    hours = Posting(quiet_hours=("23:00", "07:00"))
    inside = decide(late, None, hours, datetime(2026, 1, 16, 23, 0, tzinfo=UTC))  # 00:00 Paris
    assert (inside.post, inside.reason) == (False, "quiet hours 23:00-07:00 forum time: the "
                                                   "final count waits until they end")
    after = decide(late, None, hours, datetime(2026, 1, 17, 6, 0, tzinfo=UTC))  # 07:00 Paris
    assert after.post and after.final


def test_changed_means_content_not_times_or_post_ids():
    a = summarise(ONE, False)
    b = summarise(replace(ONE, as_of=NOON + timedelta(hours=1), counted_up_to="77"), False)
    assert content_sha256(a) == content_sha256(b)
    assert content_sha256(a) != content_sha256(summarise(TWO, False))
    assert content_sha256(a) != content_sha256(summarise(ONE, True))  # the final one is new


def test_doubts_are_public_unresolved_votes_and_the_final_tie_only():
    unresolved = Finding("C2", "unresolved name 'Al' (written by Eve in post 12)", "12", "Eve",
                         needs_gm=True)
    secret = Finding("E6", "Tramposo adds 2 votes on Bob", "13", "Bob", needs_gm=True,
                     secret=True)
    activity = Finding("R10", "Dan: 2 posts, fewer than 5", None, "Dan", needs_gm=True)
    tie = Outcome("tie", None, "C3", "tie", ("Bob", "Dan"))
    tally = count_of({"Bob": ("Alice",), "Dan": ("Carol",)}, outcome=tie,
                     findings=(unresolved, secret, activity))
    assert summarise(tally, False)["doubts"] == ["unresolved name 'Al' (written by Eve in post 12)"]
    assert summarise(tally, True)["doubts"] == ["unresolved name 'Al' (written by Eve in post 12)",
                                                "the tie between Bob, Dan (C3)"]


def test_changes_between_two_counts():
    before = summarise(count_of({"Bob": ("Alice", "Carol"), "Dan": ("Eve",)}), False)
    after = summarise(count_of({"Bob": ("Alice",), "Carol": ("Eve",), "Eve": ("Dan",)}), False)
    moved = changes(before, after)
    assert moved.new == (("Dan", "Eve"),)
    assert moved.changed == (("Eve", "Dan", "Carol"),)
    assert moved.withdrawn == (("Carol", "Bob"),)
    assert len(moved) == 3
