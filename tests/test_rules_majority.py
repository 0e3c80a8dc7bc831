"""The `majority` preset (RULES.md C3): hammer, plurality at the deadline, ties, no-elimination."""

from __future__ import annotations

import hashlib

from rulekit import URL, counts, death, edited, game, judge, no_lynch, unvote, verdict, vote

SEVEN = ("Alice", "Bob", "Carol", "Dan", "Eve", "Fay", "Gus")  # majority of 7 living: 4


def test_C3_hammer_ends_day() -> None:
    rows = [("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Bob")),
            ("Dan", "06:00:00", vote("Bob")), ("Eve", "07:00:00", vote("Bob")),  # 4 of 7: hammer
            ("Dan", "08:00:00", unvote()), ("Fay", "09:00:00", vote("Alice")), ("Gus", "10:00:00")]
    t = judge(game("majority", players=SEVEN), rows)
    assert t.majority == 4
    assert (t.outcome.result, t.outcome.player, t.outcome.rule) == ("eliminated", "Bob", "C3")
    assert t.outcome.detail == "hammer by Eve in post 4: 4 of 7 living"
    assert counts(t) == [("Bob", 4, ("Alice", "Carol", "Dan", "Eve"))]
    for n in (5, 6):
        v = verdict(t, n)
        assert (v.verdict, v.rule, v.reason) == ("void", "C3", "after the hammer (post 4)")
    assert verdict(t, 7).verdict == "not_a_vote"


def test_C3_majority_counts_only_the_living() -> None:
    g = game("majority", players=SEVEN, events=[death("Gus", "-1 20:00:00"), death("Fay", "-1 21:00:00")])
    t = judge(g, [("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Bob")),
                  ("Dan", "06:00:00", vote("Bob"))])  # 3 of 5 living
    assert t.majority == 3 and t.living == ("Alice", "Bob", "Carol", "Dan", "Eve")
    assert t.outcome.detail == "hammer by Dan in post 3: 3 of 5 living"


def test_C3_plurality_at_the_deadline() -> None:
    t = judge(game("majority", players=SEVEN), [
        ("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Bob")),
        ("Dan", "06:00:00", vote("Carol"))])
    assert (t.outcome.result, t.outcome.player, t.outcome.detail) == (
        "eliminated", "Bob", "most votes (2), no majority")
    assert t.not_voting == ("Bob", "Eve", "Fay", "Gus")


def test_C3_tie_goes_to_the_gm_by_default() -> None:
    rows = [("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Dan"))]
    t = judge(game("majority", players=SEVEN), rows)
    assert (t.outcome.result, t.outcome.player, t.outcome.tied) == ("tie", None, ("Bob", "Dan"))
    assert t.outcome.detail == "tie at 1 votes between Bob, Dan: the GM decides"
    assert "C3: a tie at the deadline: the GM decides (default)" in t.notes


def test_C3_tie_random_option_is_repeatable() -> None:
    rows = [("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Dan"))]
    t = judge(game("majority", players=SEVEN, options={"tiebreak": "random"}), rows)
    seed = hashlib.sha256(f"{URL}|day 1".encode()).hexdigest()[:16]
    assert (t.seed, t.outcome.player) == (seed, ["Bob", "Dan"][int(seed, 16) % 2])


def test_C3_no_elimination_is_a_candidate() -> None:
    t = judge(game("majority"), [("Alice", "04:00:00", no_lynch()), ("Bob", "05:00:00", no_lynch()),
                                 ("Carol", "06:00:00", no_lynch())])  # 3 of 5
    assert counts(t) == [("No elimination", 3, ("Alice", "Bob", "Carol"))]
    assert (t.outcome.result, t.outcome.player) == ("none", None)
    assert t.outcome.detail == "hammer by Carol in post 3: 3 of 5 living"


def test_C3_late_vote_and_non_player() -> None:
    t = judge(game("majority"), [("Alice", "+1 03:00:30", vote("Bob")), ("Zed", "05:00:00", vote("Bob"))])
    assert (verdict(t, 1).rule, verdict(t, 1).reason) == ("deadline", "late: posted 03:00:30, deadline 02:59:59")
    assert (verdict(t, 2).verdict, verdict(t, 2).rule, verdict(t, 2).reason) == (
        "not_a_vote", None, "posted by a non-player")


def test_C3_edits_do_not_void_by_default() -> None:
    rows = [("Alice", "04:00:00", vote("Bob"), {"edit": edited("Edited by Alice", "04:05:00", "Alice")})]
    assert verdict(judge(game("majority"), rows), 1).verdict == "counted"
    strict = judge(game("majority", options={"void_edited": True}), rows)
    assert (verdict(strict, 1).verdict, verdict(strict, 1).rule) == ("void", "edited")


def test_C6_silent_edit_after_the_deadline_reads_the_copy_fetched_by_then() -> None:
    """A moderator's edit without a reason (no marker) after the deadline moves no vote; the
    GM's flags name the post and the copy used."""
    from rulekit import post

    before = post(3, "Dan", "06:00:00", "##vote Carol", fetched="01:00:00")
    rows = [("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Bob")),
            ("Dan", "06:00:00", vote("Bob"), {"text": "##vote Bob", "fetched": "+1 04:00:00"})]
    t = judge(game("majority", players=SEVEN), rows, history={"3": (before,)})
    assert counts(t) == [("Bob", 2, ("Alice", "Carol")), ("Carol", 1, ("Dan",))]
    assert [(f.rule, f.message) for f in t.findings if f.post_id] == [
        ("C6", "post 3 by Dan changed after the deadline with no edit marker (seen 2016-01-18 "
         "01:00:00 UTC vs 04:00:00 UTC): counted as it stood at the deadline: vote Carol")]
