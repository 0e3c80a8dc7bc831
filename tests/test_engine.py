"""tally.engine.count: the day's window, the as-of point, extraction, and the properties that make
a count reproducible (C4, C6, DESIGN.md "The engine is pure")."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rulekit import START, URL, at, game

from tally import rules
from tally.engine import count
from tally.errors import InputError
from tally.game import Player
from tally.model import Body, Post, Quote, Thread

FETCHED = at("+1 12:00:00")


def make_post(number: int, author: str, clock: str, text: str, **extra: object) -> Post:
    when = at(clock)
    return Post(id=str(1000 + number), position=number, permalink=f"{URL}#post_{1000 + number}",
                author=author, author_id=None, created_at=when, time_text=f"{when:%H:%M:%S}",
                zone="UTC", body=Body(own=text, **extra))  # type: ignore[arg-type]


def thread(*posts: Post) -> Thread:
    return Thread(URL, "jv", posts, fetched_at=FETCHED)


def test_window_starts_at_day_start_and_keeps_late_posts() -> None:
    early = replace(make_post(1, "Alice", "04:00:00", "vote: Carol"), created_at=START - timedelta(seconds=1))
    t = count(thread(early, make_post(2, "Bob", "04:00:00", "vote: Carol"),
                     make_post(3, "Dan", "+1 03:00:30", "vote: Carol")), game(), 1)
    assert [v.post_id for v in t.verdicts] == ["1002", "1003"]
    late = t.verdicts[1]
    assert (late.verdict, late.rule, late.reason) == ("void", "K1", "late: posted 03:00:30, deadline 02:59:59")
    assert t.counted_up_to == "1003"
    assert t.as_of == FETCHED


def test_up_to_post_counts_as_it_stood_after_that_post() -> None:
    posts = (make_post(1, "Alice", "04:00:00", "vote: Carol"), make_post(2, "Bob", "05:00:00", "vote: Carol"),
             make_post(3, "Alice", "06:00:00", "unvote"))
    t = count(thread(*posts), game(), 1, up_to_post="1002")
    assert [(c.player, c.votes) for c in t.counts] == [("Carol", 2)]
    assert (t.counted_up_to, t.as_of) == ("1002", at("05:00:00"))
    with pytest.raises(InputError, match=f"post 999 is not in the thread {URL}"):
        count(thread(*posts), game(), 1, up_to_post="999")


def test_C6_posts_after_as_of_are_not_counted() -> None:
    posts = (make_post(1, "Alice", "04:00:00", "vote: Carol"), make_post(2, "Bob", "05:00:00", "vote: Carol"))
    t = count(thread(*posts), game(), 1, as_of=at("04:30:00"))
    assert [v.post_id for v in t.verdicts] == ["1001"]


def test_C1_quoted_vote_never_votes() -> None:
    quoted = make_post(1, "Alice", "04:00:00", "I agree with this", quotes=(Quote("vote: Bob", "Carol"),))
    t = count(thread(quoted), game(), 1)
    assert t.verdicts[0].verdict == "not_a_vote"
    assert t.counts == ()


def test_K14_in_game_name_counts_for_the_player() -> None:
    g = game(players=(Player("Alice", aliases=("Light Yagami",)), "Bob", "Carol"))
    t = count(thread(make_post(1, "Bob", "04:00:00", "vote: Light Yagami")), g, 1)
    assert [(c.player, c.voters) for c in t.counts] == [("Alice", ("Bob",))]
    assert t.verdicts[0].match is not None and t.verdicts[0].match.how == "alias"


def test_unknown_preset_is_one_clear_line() -> None:
    with pytest.raises(InputError, match=r"^unknown preset 'werewolf' \(known: espia, kira, lupus, mafia-ru, majority, trigger-cn\)$"):
        count(thread(), game("werewolf"), 1)
    assert rules.names() == ["espia", "kira", "lupus", "mafia-ru", "majority", "trigger-cn"]


# -- properties ---------------------------------------------------------------------------------

AUTHORS = ("Alice", "Bob", "Carol", "Dan", "Eve", "Ryuk", "Zed")
TEXTS = ("vote: Alice", "vote: Bob", "vote: Carol", "##vote Dan", "unvote", "hello", "vote: Carrol",
         "unvote\nvote: Eve", "vote: Zorro", "[vote]Bob[/vote]")

post_rows = st.lists(
    st.tuples(st.sampled_from(AUTHORS), st.integers(0, 26 * 3600), st.sampled_from(TEXTS),
              st.booleans()),
    max_size=25,
)


def build(rows: list[tuple[str, int, str, bool]]) -> tuple[Post, ...]:
    posts = []
    seconds = 0
    for number, (author, step, text, is_edited) in enumerate(rows, start=1):
        seconds = max(seconds, step // 10 + seconds)  # times never go back in thread order
        p = make_post(number, author, "03:00:00", text)
        p = replace(p, created_at=START + timedelta(seconds=seconds))
        if is_edited:
            from tally.model import EditMarker

            p = replace(p, edit=EditMarker("Edited", author, p.created_at + timedelta(minutes=5), 1))
        posts.append(p)
    return tuple(posts)


@settings(max_examples=60, deadline=None)
@given(post_rows, st.sampled_from(["kira", "majority"]), st.randoms(use_true_random=False))
def test_properties_one_verdict_order_duplicates_and_repeat(rows, preset, rnd: random.Random) -> None:  # type: ignore[no-untyped-def]
    g = game(preset)
    posts = build(rows)
    t = count(thread(*posts), g, 1)
    in_window = [p.id for p in posts if p.created_at <= FETCHED]
    assert [v.post_id for v in t.verdicts] == in_window  # C4: one verdict each, in thread order
    shuffled = list(posts) + [p for p in posts if rnd.random() < 0.3]
    rnd.shuffle(shuffled)
    assert count(thread(*shuffled), g, 1) == t
    assert count(thread(*posts), g, 1) == t
    standing = sum(c.votes for c in t.counts)
    assert standing == sum(1 for v in t.verdicts if v.verdict == "counted" and v.target)
