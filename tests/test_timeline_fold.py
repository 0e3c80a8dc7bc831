"""The votes-over-time chart in one pass (Preset.fold, issue 15) gives the same steps as judging
the whole window again at every moment, on random days: votes, revokes, edits dated inside the
day (K4: a vote voided from its edit on), deaths (K2, K12), the hammer (C3)."""

from __future__ import annotations

import dataclasses
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rulekit import DEADLINE, PLAYERS, START, URL, death, edited, game, post

from tally import rules, timeline
from tally.model import Body, Thread

# Few targets, so that a majority (the hammer, C3) is reached on many days.
SAYS = st.sampled_from(["vote: Bob", "vote: Bob", "vote: Carol", "vote: Dan", "unvote",
                        "I think Bob is Kira.", "vote: no lynch", "投票 Bob", "取消投票"])

ROW = st.tuples(st.sampled_from(PLAYERS + ("Ryuk",)), st.integers(0, 90), SAYS,
                st.one_of(st.none(), st.integers(1, 300)))


def thread_of(rows: list[tuple[str, int, str, int | None]]) -> Thread:
    posts = []
    minute = 0
    for number, (author, gap, says, edit_after) in enumerate(rows, start=1):
        minute += gap
        created = START + timedelta(minutes=minute)
        p = post(number, author, f"{created:%H:%M:%S}")
        p = dataclasses.replace(p, created_at=created, body=Body(own=says))
        if edit_after is not None:
            edited_at = created + timedelta(minutes=edit_after)
            p = dataclasses.replace(p, edit=dataclasses.replace(edited("edited"), edited_at=edited_at))
        posts.append(p)
    return Thread(url=URL, engine="jv", posts=tuple(posts), fetched_at=DEADLINE + timedelta(hours=1))


def judged_every_time(monkeypatch: pytest.MonkeyPatch, thread: Thread, g) -> timeline.Timeline:
    """The timeline with the preset's fold taken away: the window judged at every moment."""
    real = rules.get
    with monkeypatch.context() as m:
        m.setattr(rules, "get", lambda name: dataclasses.replace(real(name), fold=None))
        return timeline.votes_over_time(thread, g, 1)


@pytest.mark.parametrize("preset", ["kira", "majority", "trigger-cn"])
@settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(ROW, min_size=1, max_size=25), dies=st.one_of(st.none(), st.integers(0, 600)))
def test_one_pass_equals_judging_every_moment(monkeypatch: pytest.MonkeyPatch, preset: str,
                                              rows, dies) -> None:
    events = [death("Dan", f"{START + timedelta(minutes=dies):%H:%M:%S}")] if dies is not None else []
    g = game(preset, events=events)
    thread = thread_of(rows)
    assert rules.get(preset).fold is not None
    fast = timeline.votes_over_time(thread, g, 1)
    slow = judged_every_time(monkeypatch, thread, g)
    assert fast.public == slow.public
    assert fast.gm is None and slow.gm is None
    assert fast.ended_at == slow.ended_at


def test_the_hammer_freezes_the_count(monkeypatch: pytest.MonkeyPatch) -> None:
    """C3: Bob's third vote of five living ends the day; Eve's later vote is not drawn."""
    thread = thread_of([("Alice", 10, "vote: Bob", None), ("Carol", 10, "vote: Bob", None),
                        ("Dan", 10, "vote: Bob", None), ("Eve", 10, "vote: Carol", None)])
    tl = timeline.votes_over_time(thread, game("majority"), 1)
    assert [s.counts for s in tl.public] == [(("Bob", 1),), (("Bob", 2),), (("Bob", 3),)]
    assert f"{tl.ended_at:%H:%M}" == "03:30"
    assert judged_every_time(monkeypatch, thread, game("majority")).public == tl.public


def test_a_vote_edited_later_drops_at_its_edit_not_before(monkeypatch: pytest.MonkeyPatch) -> None:
    """K4: Alice's vote counts from 03:10 until her edit at 05:00, when it is void."""
    thread = thread_of([("Alice", 10, "vote: Bob", 110), ("Carol", 20, "vote: Bob", None),
                        ("Dan", 200, "vote: Carol", None)])
    tl = timeline.votes_over_time(thread, game("kira"), 1)
    assert [(f"{s.time:%H:%M}", s.counts) for s in tl.public] == [
        ("03:10", (("Bob", 1),)), ("03:30", (("Bob", 2),)), ("05:00", (("Bob", 1),)),
        ("06:50", (("Bob", 1), ("Carol", 1)))]
    assert judged_every_time(monkeypatch, thread, game("kira")).public == tl.public
