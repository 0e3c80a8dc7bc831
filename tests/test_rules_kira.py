"""The `kira` preset, one test per requirement of RULES.md section 1 (K1-K14) and C2/C4/C6/C7."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from datetime import timedelta
from pathlib import Path

import pytest
from rulekit import (
    DEADLINE,
    URL,
    at,
    counts,
    death,
    edited,
    game,
    judge,
    no_lynch,
    post,
    revival,
    unresolved,
    unvote,
    verdict,
    vote,
)

from tally.errors import GameFileError
from tally.game import Day

MARKER = "Last edited by Bob on Sun Jan 17, 2016 9:12 pm, edited 1 time in total."


def test_K1_deadline_second_inclusive() -> None:
    t = judge(game(), [("Alice", "02:59:59", vote("Bob")), ("Carol", "+1 03:00:00", vote("Bob")),
                       ("Dan", "+1 03:00:30", vote("Bob"))])
    assert verdict(t, 1).verdict == "counted"
    for number, clock in ((2, "03:00:00"), (3, "03:00:30")):
        late = verdict(t, number)
        assert (late.verdict, late.rule) == ("void", "K1")
        assert late.reason == f"late: posted {clock}, deadline 02:59:59"
    assert counts(t) == [("Bob", 1, ("Alice",))]


def test_K1_late_non_vote_is_not_a_vote() -> None:
    t = judge(game(), [("Alice", "+1 03:00:30")])
    assert verdict(t, 1).verdict == "not_a_vote"


def test_K2_dead_voter_cannot_vote() -> None:
    g = game(events=[death("Dan", "-1 20:00:00")])
    t = judge(g, [("Dan", "04:00:00", vote("Bob")), ("Ryuk", "04:10:00", vote("Bob")),
                  ("Zed", "04:20:00", vote("Bob"))])
    assert [(verdict(t, n).verdict, verdict(t, n).rule, verdict(t, n).reason) for n in (1, 2, 3)] == [
        ("void", "K2", "Dan is dead (since 2016-01-16 20:00:00)"),
        ("not_a_vote", None, "posted by the GM (staff), who does not vote"),
        ("not_a_vote", None, "posted by a non-player"),
    ]
    assert t.counts == ()
    assert "Dan" not in t.living and "Dan" not in t.not_voting


def test_K3_one_vote_per_player() -> None:
    t = judge(game(), [("Alice", "04:00:00", vote("Bob"), vote("Carol")),
                       ("Alice", "05:00:00", vote("Carol"))])
    assert counts(t) == [("Carol", 1, ("Alice",))]
    assert verdict(t, 1).verdict == "superseded"


def test_K4_edit_marker_voids() -> None:
    t = judge(game(), [("Bob", "21:00:00", vote("Alice"), {"edit": edited(MARKER, "21:12:00", "Bob")})])
    v = verdict(t, 1)
    assert (v.verdict, v.rule, v.reason) == ("void", "K4", f"edit marker '{MARKER}'")
    assert f"edit marker: {MARKER}" in v.evidence
    assert t.counts == ()


def test_K4_undated_edit_marker_taken_as_before_deadline() -> None:
    t = judge(game(), [("Bob", "21:00:00", vote("Alice"), {"edit": edited("Edited by Bob")})])
    v = verdict(t, 1)
    assert (v.verdict, v.rule) == ("void", "K4")
    assert v.reason == ("edit marker 'Edited by Bob' (the marker has no date: taken as made "
                        "before the deadline)")


def test_K4_target_not_alive_at_the_time_of_the_vote() -> None:
    g = game(events=[death("Eve", "12:00:00")])
    t = judge(g, [("Alice", "13:00:00", vote("Eve"))])
    v = verdict(t, 1)
    assert (v.verdict, v.rule, v.reason) == ("void", "K4", "Eve was not alive at 13:00:00 (died 12:00:00)")


def test_K4_joke_vote_is_void() -> None:
    t = judge(game(), [("Alice", "13:00:00", vote("Bob", joke=True))])
    assert (verdict(t, 1).verdict, verdict(t, 1).rule) == ("void", "K4")
    assert verdict(t, 1).reason == "joke vote: 'vote: Bob'"


def test_K4_no_elimination_is_not_a_player() -> None:
    t = judge(game(), [("Alice", "13:00:00", no_lynch())])
    v = verdict(t, 1)
    assert (v.verdict, v.rule, v.reason) == ("void", "K4", ("not a player: this game has no "
                                             "no-elimination vote"))


def test_K4a_revoke_in_edited_post_is_void() -> None:
    rows = [("Alice", "04:00:00", vote("Bob")),
            ("Alice", "05:00:00", unvote(), {"edit": edited("Edited by Alice", "05:01:00", "Alice")})]
    t = judge(game(), rows)
    assert (verdict(t, 2).verdict, verdict(t, 2).rule) == ("void", "K4a")
    assert verdict(t, 1).verdict == "counted"
    assert counts(t) == [("Bob", 1, ("Alice",))]
    assert "K4a: revokes in edited posts are void (default)" in t.notes
    relaxed = judge(game(options={"void_edited_revokes": False}), rows)
    assert relaxed.counts == ()
    assert verdict(relaxed, 2).reason == "withdraws the vote for Bob (post 1)"


def test_K4b_edit_after_deadline_uses_saved_copy() -> None:
    late_edit = edited("Edited by Alice on 18/01/2016 at 05:00:00", "+1 05:00:00", "Alice")
    current = post(1, "Alice", "10:00:00", "vote: Carol", edit=late_edit, fetched="+1 06:00:00")
    before = post(1, "Alice", "10:00:00", "vote: Bob", fetched="01:00:00")  # the night before
    rows = [("Alice", "10:00:00", vote("Carol"), {"edit": late_edit})]
    t = judge(game(), rows, history={"1": (before,)})
    assert current.body.own != before.body.own
    v = verdict(t, 1)
    assert (v.verdict, v.target) == ("counted", "Bob")  # the text the thread showed at the deadline
    assert v.evidence[-1] == ("edit marker 'Edited by Alice on 18/01/2016 at 05:00:00' dated "
                              "2016-01-18 05:00:00, after the cut-off; judged on the copy fetched "
                              "2016-01-18 01:00:00 UTC")
    assert [f for f in t.findings if f.post_id] == []


def test_K4b_edit_after_deadline_without_copy_is_flagged() -> None:
    late_edit = edited("Edited by Alice", "+1 05:00:00", "Alice")
    t = judge(game(), [("Alice", "10:00:00", vote("Carol"), {"edit": late_edit})])
    v = verdict(t, 1)
    assert (v.verdict, v.target) == ("counted", "Carol")
    assert v.reason == "vote for Carol; edited after the deadline; text at the deadline not proven"
    assert [(f.rule, f.message, f.needs_gm) for f in t.findings if f.post_id] == [
        ("K4b", "post 1 by Alice: edited after the deadline; text at the deadline not proven", True)]


def test_K5_staff_edit_keeps_the_vote() -> None:
    t = judge(game(), [("Alice", "10:00:00", vote("Bob"), {"edit": edited("Edited by Ryuk", "11:00:00", "Ryuk")})])
    v = verdict(t, 1)
    assert (v.verdict, v.target) == ("counted", "Bob")
    assert v.reason == "vote for Bob; edited by staff Ryuk, kept"


def test_K6_last_valid_vote_counts() -> None:
    g = game(events=[death("Eve", "12:00:00")])
    t = judge(g, [("Alice", "04:00:00", vote("Bob")), ("Alice", "05:00:00", vote("Carol")),
                  ("Alice", "13:00:00", vote("Eve"))])  # invalid: Eve is dead
    first, second, third = verdict(t, 1), verdict(t, 2), verdict(t, 3)
    assert (first.verdict, first.superseded_by, first.reason) == ("superseded", "2", "replaced by post 2")
    assert (second.verdict, second.target) == ("counted", "Carol")
    assert third.verdict == "void"
    assert counts(t) == [("Carol", 1, ("Alice",))]


def test_K7_unvote_withdraws_and_a_new_vote_may_follow() -> None:
    t = judge(game(), [("Alice", "04:00:00", vote("Bob")), ("Alice", "05:00:00", unvote()),
                       ("Carol", "06:00:00", vote("Bob")), ("Carol", "07:00:00", unvote(), vote("Dan"))])
    assert (verdict(t, 2).verdict, verdict(t, 2).target) == ("counted", None)
    assert verdict(t, 2).reason == "withdraws the vote for Bob (post 1)"
    assert verdict(t, 1).superseded_by == "2"
    assert (verdict(t, 4).verdict, verdict(t, 4).target) == ("counted", "Dan")
    assert counts(t) == [("Dan", 1, ("Carol",))]
    assert "Alice" in t.not_voting


def test_K8_standing_votes_are_tallied() -> None:
    t = judge(game(), [("Alice", "04:00:00", vote("Carol")), ("Bob", "05:00:00", vote("Dan")),
                       ("Eve", "06:00:00", vote("Dan")), ("Dan", "07:00:00", vote("Carol"))])
    # equal counts: Dan reached 2 first (06:00), so he is listed first
    assert counts(t) == [("Dan", 2, ("Bob", "Eve")), ("Carol", 2, ("Alice", "Dan"))]
    assert t.counts[1].posts == ("1", "4")
    assert t.not_voting == ("Carol",)
    assert [(f.rule, f.message) for f in t.findings] == [("K8", "Carol has no standing vote")]


def test_K9_nobody_with_three_votes_nobody_dies() -> None:
    t = judge(game(), [("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Bob"))])
    assert (t.outcome.result, t.outcome.rule) == ("none", "K9")
    assert t.outcome.detail == "nobody has 3 votes (most: Bob with 2)"
    assert t.threshold == 3
    lower = judge(game(options={"threshold": 2}), [("Alice", "04:00:00", vote("Bob")),
                                                  ("Carol", "05:00:00", vote("Bob"))])
    assert (lower.outcome.result, lower.outcome.player) == ("eliminated", "Bob")


SIX = ("Alice", "Bob", "Carol", "Dan", "Eve", "Fay")
THREE_THREE = [("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Bob")),
               ("Dan", "06:00:00", vote("Bob")), ("Bob", "07:00:00", vote("Dan")),
               ("Eve", "08:00:00", vote("Dan")), ("Fay", "09:00:00", vote("Dan"))]


def test_K10_most_votes_dies() -> None:
    t = judge(game(players=SIX), THREE_THREE[:5])
    assert (t.outcome.result, t.outcome.player, t.outcome.rule) == ("eliminated", "Bob", "K10")
    assert t.outcome.detail == "most votes (3)"


def test_K10_tie_earliest_last_standing_vote_loses() -> None:
    # Bob reached 3 first (06:00), but Carol's re-vote makes Bob's LAST standing vote 11:00.
    rows = THREE_THREE + [("Carol", "10:00:00", unvote()), ("Carol", "11:00:00", vote("Bob"))]
    t = judge(game(players=SIX), rows)
    assert counts(t) == [("Dan", 3, ("Bob", "Eve", "Fay")), ("Bob", 3, ("Alice", "Dan", "Carol"))]
    assert (t.outcome.result, t.outcome.player, t.outcome.rule) == ("eliminated", "Dan", "K10")
    assert t.outcome.tied == ("Dan", "Bob")
    assert t.outcome.detail == ("tie at 3 votes between Dan, Bob: Dan's last standing vote "
                                "(post 6, 09:00:00) is the earliest")
    assert t.seed is None


def test_K10_still_tied_random_draw_is_repeatable() -> None:
    same = "10:00:00"
    t = judge(game(options={"threshold": 2}), [
        ("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Dan")),
        ("Eve", same, vote("Bob")), ("Bob", same, vote("Dan"))])
    seed = hashlib.sha256(f"{URL}|day 1".encode()).hexdigest()[:16]
    assert t.seed == seed
    pick = sorted(["Bob", "Dan"])[int(seed, 16) % 2]
    assert (t.outcome.result, t.outcome.player, t.outcome.rule) == ("eliminated", pick, "K10")
    assert t.outcome.detail == (f"tie at 2 votes between Bob, Dan; last votes of Bob, Dan at the "
                                f"same time (10:00:00): random draw with seed {seed} picks {pick}")


def test_K11_votes_on_a_player_who_dies_stand_and_a_dead_pick_does_nothing() -> None:
    g = game(events=[death("Bob", "12:00:00")])
    t = judge(g, [("Alice", "04:00:00", vote("Bob")), ("Carol", "05:00:00", vote("Bob")),
                  ("Dan", "06:00:00", vote("Bob")), ("Eve", "13:00:00", vote("Bob"))])
    assert counts(t) == [("Bob", 3, ("Alice", "Carol", "Dan"))]
    assert (verdict(t, 4).verdict, verdict(t, 4).rule) == ("void", "K4")
    assert (t.outcome.result, t.outcome.player, t.outcome.rule) == ("none", None, "K11")
    assert t.outcome.detail == ("Bob is picked (most votes (3)) but already dead (died 12:00:00): "
                                "nothing happens")


def test_K12_dead_voter_keeps_standing_vote_but_cannot_change_it() -> None:
    g = game(events=[death("Alice", "12:00:00")])
    t = judge(g, [("Alice", "04:00:00", vote("Bob")), ("Alice", "13:00:00", vote("Carol")),
                  ("Alice", "14:00:00", unvote())])
    assert (verdict(t, 1).verdict, verdict(t, 1).target) == ("counted", "Bob")
    for n in (2, 3):
        assert (verdict(t, n).verdict, verdict(t, n).rule) == ("void", "K12")
    assert verdict(t, 2).reason == ("Alice died at 12:00:00: a dead player's vote can no longer be "
                                    "changed or revoked")
    assert counts(t) == [("Bob", 1, ("Alice",))]
    revived = judge(game(events=[death("Alice", "12:00:00"), revival("Alice", "13:30:00")]),
                    [("Alice", "04:00:00", vote("Bob")), ("Alice", "14:00:00", vote("Carol"))])
    assert counts(revived) == [("Carol", 1, ("Alice",))]


def test_K13_at_most_one_death() -> None:
    t = judge(game(players=SIX), THREE_THREE)
    assert [(c.player, c.votes) for c in t.counts] == [("Bob", 3), ("Dan", 3)]
    assert (t.outcome.result, t.outcome.player, t.outcome.tied) == ("eliminated", "Bob", ("Bob", "Dan"))


def test_K14_in_game_name_through_the_roster() -> None:
    from tally.extract import Extractor
    from tally.game import Player

    g = game(players=(Player("Alice", aliases=("Light Yagami",)), "Bob", "Carol"))
    ballot = Extractor(g, rules_syntax()).ballot(post(1, "Bob", "04:00:00", "vote: Light Yagami"))
    assert [(a.kind, a.target, a.match.how if a.match else None) for a in ballot.actions] == [
        ("vote", "Alice", "alias")]


def rules_syntax():  # type: ignore[no-untyped-def]
    from tally import rules

    return rules.get("kira").syntax


def test_C2_unresolved_name_never_counts() -> None:
    t = judge(game(), [("Dan", "04:00:00", unresolved("Carrol?", "ambiguous", "Carol", 78))])
    v = verdict(t, 1)
    assert (v.verdict, v.rule, v.reason) == ("void", "C2",
                                             "unresolved name 'Carrol?' (ambiguous): best guess Carol 78")
    assert [(f.message, f.needs_gm) for f in t.findings if f.rule == "C2"] == [
        ("unresolved name 'Carrol?' (written by Dan in post 1) (ambiguous): best guess Carol 78", True)]


def test_C4_one_verdict_per_post() -> None:
    t = judge(game(), [("Alice", "04:00:00", vote("Bob")), ("Bob", "05:00:00"),
                       ("Alice", "06:00:00", vote("Carol")), ("Zed", "07:00:00"),
                       ("Carol", "+1 03:00:10", vote("Bob"))])
    assert [v.post_id for v in t.verdicts] == ["1", "2", "3", "4", "5"]
    assert [v.verdict for v in t.verdicts] == ["superseded", "not_a_vote", "counted", "not_a_vote", "void"]
    assert t.counted_up_to == "5"


def test_C6_edit_after_as_of_ignored() -> None:
    """Counting at 20:00 an edit dated 21:00 did not exist yet: the vote stands."""
    rows = [("Alice", "10:00:00", vote("Bob"), {"edit": edited("Edited by Alice", "21:00:00", "Alice")})]
    t = judge(game(), rows, as_of="20:00:00")
    assert (verdict(t, 1).verdict, verdict(t, 1).target) == ("counted", "Bob")
    final = judge(game(), rows)
    assert (verdict(final, 1).verdict, verdict(final, 1).rule) == ("void", "K4")


def test_C7_minute_precision_option() -> None:
    rows = [("Alice", "02:59:59", vote("Bob")), ("Bob", "+1 03:00:00", vote("Carol"))]
    g = game(options={"precision": "minute"})
    g = replace(g, days=(Day(1, at("03:00:00"), DEADLINE - timedelta(seconds=59)),))  # 02:59:00
    t = judge(g, rows)
    assert verdict(t, 1).verdict == "counted"  # 02:59:59 is inside the deadline minute 02:59
    assert verdict(t, 2).reason == "late: posted 03:00:00, deadline 02:59:00"


def test_options_unknown_key_names_the_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from tally import game as game_file
    from tally import rules

    example = Path(__file__).parent.parent / "fixtures" / "phpbb" / "kira-en" / "game.toml"
    text = example.read_text(encoding="utf-8") + "\n[rules]\nthreshold = 3\nfoo = 1\n"
    path = tmp_path / "game.toml"
    path.write_text(text, encoding="utf-8")
    line = text.splitlines().index("foo = 1") + 1
    with pytest.raises(GameFileError) as err:
        rules.get("kira").validate(game_file.load(path))
    assert str(err.value) == (f"{path}:{line}: rules.foo: unknown option for preset kira "
                              "(known: precision, threshold, void_edited_revokes)")


def test_options_ill_typed_value() -> None:
    from tally import rules

    with pytest.raises(GameFileError, match=r"game.toml:\?: rules.threshold: expected int, got 'three'"):
        rules.get("kira").validate(game(options={"threshold": "three"}))
    with pytest.raises(GameFileError, match="expected one of second, minute, got 'hour'"):
        rules.get("kira").validate(game(options={"precision": "hour"}))


def test_unknown_event_kind_names_the_line() -> None:
    from tally import rules
    from tally.game import Event

    g = game(events=[Event(at=at("05:00:00"), kind="protect", player="Bob", line=12)])
    with pytest.raises(GameFileError, match=r"^game.toml:12: events: unknown event kind 'protect' for "
                       r"preset kira \(known: deadline, death, replacement, revival\)$"):
        rules.get("kira").validate(g)


def test_C6_deleted_post_read_from_saved_copy_or_flagged() -> None:
    copy = post(1, "Alice", "04:00:00", "vote: Bob", fetched="05:00:00")
    rows = [("Alice", "04:00:00", {"deleted": True})]
    t = judge(game(), rows, history={"1": (copy,)})
    assert (verdict(t, 1).verdict, verdict(t, 1).target) == ("counted", "Bob")
    lost = judge(game(), rows)
    assert (verdict(lost, 1).verdict, verdict(lost, 1).reason) == (
        "not_a_vote", "deleted; no saved copy shows its text")
    assert [f.message for f in lost.findings if f.post_id] == [
        "post 1 by Alice is deleted and no saved copy shows its text"]


# -- C6 for silent edits: the forum showed no edit marker --------------------------------------

def test_C6_silent_edit_after_the_deadline_counts_the_copy_fetched_by_then() -> None:
    """phpBB shows no notice for a moderator's edit without a reason (FORUMS.md §2.4): the
    copy fetched before the deadline stands, and the GM's flags say why."""
    before = post(1, "Alice", "10:00:00", "vote: Bob", fetched="02:50:00")
    rows = [("Alice", "10:00:00", vote("Dan"), {"text": "vote: Dan", "fetched": "+1 03:20:00"})]
    t = judge(game(), rows, history={"1": (before,)})
    v = verdict(t, 1)
    assert (v.verdict, v.target) == ("counted", "Bob")
    assert counts(t) == [("Bob", 1, ("Alice",))]
    assert v.evidence[-1] == ("text changed with no edit marker (seen 2016-01-18 02:50:00 UTC vs "
                              "03:20:00 UTC); judged on the copy fetched 2016-01-18 02:50:00 UTC")
    assert [(f.rule, f.message, f.needs_gm) for f in t.findings if f.post_id] == [
        ("K4b", "post 1 by Alice changed after the deadline with no edit marker (seen 2016-01-18 "
         "02:50:00 UTC vs 03:20:00 UTC): counted as it stood at the deadline: vote Bob", False)]
    # Counted at 01:00, before the 02:50 fetch: no copy shows the post then, the text stands.
    early = judge(game(), rows, as_of="01:00:00", history={"1": (before,)})
    assert (verdict(early, 1).target, [f for f in early.findings if f.post_id]) == ("Dan", [])


def test_C6_silent_edit_after_the_as_of_point() -> None:
    before = post(1, "Alice", "10:00:00", "vote: Bob", fetched="12:00:00")
    rows = [("Alice", "10:00:00", vote("Dan"), {"text": "vote: Dan", "fetched": "18:00:00"})]
    t = judge(game(), rows, as_of="15:00:00", history={"1": (before,)})
    assert verdict(t, 1).target == "Bob"
    assert [f.message for f in t.findings if f.post_id] == [
        "post 1 by Alice changed after the as-of point with no edit marker (seen 2016-01-17 "
        "12:00:00 UTC vs 18:00:00 UTC): counted as it stood at the as-of point: vote Bob"]
    assert verdict(judge(game(), rows, history={"1": (before,)}), 1).target == "Dan"


def test_K4_silent_edit_before_the_deadline_counts_the_new_text() -> None:
    """Rule 213 voids a post that "has an edit message": a silent edit has none, so the new
    text counts; the audit shows the two copies."""
    before = post(1, "Alice", "10:00:00", "vote: Bob", fetched="11:00:00")
    rows = [("Alice", "10:00:00", vote("Dan"), {"text": "vote: Dan", "fetched": "20:00:00"})]
    t = judge(game(), rows, history={"1": (before,)})
    v = verdict(t, 1)
    assert (v.verdict, v.target) == ("counted", "Dan")
    assert v.evidence[-1] == ("text changed with no edit marker by the cut-off (seen 2016-01-17 "
                              "11:00:00 UTC vs 20:00:00 UTC): counted as it reads")
    assert [f for f in t.findings if f.post_id] == []
    assert any(n.startswith("K4: a text changed with no edit message") for n in t.notes)


def test_K4_marked_edit_before_the_deadline_still_voids_when_fetched_after() -> None:
    """A marker that appeared since the copy explains the change: K4 judges it, not C6."""
    before = post(1, "Alice", "10:00:00", "vote: Bob", fetched="11:00:00")
    rows = [("Alice", "10:00:00", vote("Dan"), {"text": "vote: Dan", "fetched": "+1 03:20:00",
                                                 "edit": edited("Edited by Alice", "12:00:00", "Alice")})]
    t = judge(game(), rows, history={"1": (before,)})
    assert (verdict(t, 1).verdict, verdict(t, 1).rule) == ("void", "K4")
    assert [f for f in t.findings if f.post_id] == []


def test_C6_silent_edit_behind_an_unchanged_marker() -> None:
    """The marker of an edit made before the copy stays as it was; the text changed again."""
    marker = edited("Edited by Alice", "10:30:00", "Alice")
    before = post(1, "Alice", "10:00:00", "vote: Bob", edit=marker, fetched="11:00:00")
    rows = [("Alice", "10:00:00", vote("Dan"), {"text": "vote: Dan", "fetched": "+1 03:20:00",
                                                 "edit": marker})]
    t = judge(game(), rows, history={"1": (before,)})
    v = verdict(t, 1)
    assert (v.verdict, v.rule, v.target) == ("void", "K4", "Bob")  # the copy, marker and all
    assert [f.rule for f in t.findings if f.post_id] == ["K4b"]


def test_C6_no_saved_copy_leaves_the_post_as_it_reads() -> None:
    rows = [("Alice", "10:00:00", vote("Dan"), {"text": "vote: Dan", "fetched": "+1 03:20:00"})]
    t = judge(game(), rows)
    v = verdict(t, 1)
    assert (v.verdict, v.target, v.reason) == ("counted", "Dan", "vote for Dan")
    assert [f for f in t.findings if f.post_id] == []


def test_C6_silent_edit_seen_before_the_deadline_and_again_after_counts_the_new_text() -> None:
    """A at 02:50, B at 02:58, B again at 03:20, deadline in between: B was already showing
    before the deadline (the store keeps its first sighting), so B counts and nothing is
    undone."""
    before = post(1, "Alice", "10:00:00", "vote: Bob", fetched="02:50:00")
    first_b = post(1, "Alice", "10:00:00", "vote: Dan", fetched="02:58:00")
    rows = [("Alice", "10:00:00", vote("Dan"), {"text": "vote: Dan", "fetched": "+1 03:20:00"})]
    t = judge(game(), rows, history={"1": (before, first_b)})
    assert (verdict(t, 1).verdict, verdict(t, 1).target) == ("counted", "Dan")
    assert [f for f in t.findings if f.post_id and "no edit marker" in f.message] == []
