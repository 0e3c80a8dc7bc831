"""Renderers: what a player reads in the tally post, and what never reaches it (C5)."""

import json
from datetime import UTC, datetime

import pytest

from tally.model import Count, Finding, NameMatch, Outcome, Tally, Verdict
from tally.render import render
from tally.render.audit import render_audit

UTC = UTC


def make_tally(**over) -> Tally:
    base = dict(
        game="Kira, game 3", preset="kira", day=1,
        deadline=datetime(2016, 1, 18, 2, 59, 59, tzinfo=UTC),
        as_of=datetime(2016, 1, 18, 3, 10, tzinfo=UTC),
        counts=(Count("Bob", 3, ("Alice", "Carol", "Dan"), ("11", "12", "13")),
                Count("Carol", 1, ("Bob",), ("14",))),
        not_voting=("Eve",),
        outcome=Outcome("eliminated", "Bob", "K10", "most votes (3)"),
        verdicts=(
            Verdict("11", 1, "Alice", "Alice", datetime(2016, 1, 17, 4, 0, tzinfo=UTC), "counted",
                    "Bob", None, "vote: Bob", permalink="https://f.example/viewtopic.php?p=11#p11",
                    match=NameMatch("Bob", "Bob", "exact")),
            Verdict("15", 5, "Dan", "Dan", datetime(2016, 1, 17, 5, 0, tzinfo=UTC), "void",
                    None, "C2", "unresolved name 'Carrol?'",
                    match=NameMatch("Carrol?", None, "ambiguous", 70, "Carol", 68)),
        ),
        living=("Alice", "Bob", "Carol", "Dan", "Eve"),
        findings=(
            Finding("C2", "unresolved name 'Carrol?' (Dan, post 15)", "15", "Dan", needs_gm=True),
            Finding("E6", "Tramposo adds 2 votes on Carol", None, "Carol", secret=True),
        ),
        threshold=3, counted_up_to="15", zone="Europe/Madrid",
        gm_counts=(Count("Bob", 3, ("Alice", "Carol", "Dan")), Count("Carol", 3, ("Bob", "+2 secret"))),
        gm_outcome=Outcome("tie", None, "E9", "tie between Bob and Carol", ("Bob", "Carol")),
    )
    base.update(over)
    return Tally(**base)


@pytest.mark.parametrize("fmt", ["bbcode", "markdown", "jv"])
def test_C5_public_post_carries_no_secret(fmt):
    out = render(make_tally(), fmt)
    assert "Tramposo" not in out and "secret" not in out and "E6" not in out
    assert "GM" not in out and "tie between" not in out


def test_C5_public_json_has_no_gm_part():
    data = json.loads(render(make_tally(), "json", public=True))
    assert "gm" not in data
    assert "Tramposo" not in json.dumps(data)


def test_gm_json_has_unresolved_flags_and_the_secret_result():
    data = json.loads(render(make_tally(), "json"))
    assert [f["message"] for f in data["gm"]["unresolved"]] == ["unresolved name 'Carrol?' (Dan, post 15)"]
    assert data["gm"]["flags"][0]["secret"] is True
    assert data["gm"]["outcome"]["result"] == "tie"
    assert data["counts"][0] == {"player": "Bob", "votes": 3, "voters": ["Alice", "Carol", "Dan"],
                                 "posts": ["11", "12", "13"]}
    assert data["deadline"] == "2016-01-18T02:59:59Z"
    assert data["outcome"]["rule"] == "K10"


def test_bbcode_post_lists_counts_links_and_outcome():
    out = render(make_tally(), "bbcode")
    assert "[b]Bob[/b] (3): [url=https://f.example/viewtopic.php?p=11#p11]Alice[/url], Carol, Dan" in out
    assert "[b]Not voting[/b] (1): Eve" in out
    assert "Bob is eliminated (K10: most votes (3))" in out
    # Times as the forum shows them (Madrid), with UTC beside.
    assert "Deadline: 2016-01-18 03:59:59 CET (02:59:59 UTC)." in out


def test_before_deadline_the_outcome_is_conditional():
    out = render(make_tally(as_of=datetime(2016, 1, 17, 20, 0, tzinfo=UTC)), "text", public=True)
    assert "Bob would be eliminated if the day ended now" in out
    assert "GM report" not in out


def test_text_format_appends_the_gm_report():
    out = render(make_tally(), "text")
    assert "GM report (private: do not post)" in out
    assert "unresolved name 'Carrol?'" in out
    assert "Outcome: tie (E9: tie between Bob and Carol)" in out


def test_audit_shows_verdict_reason_and_name_match():
    out = render_audit(make_tally())
    assert "post 15" in out and "VOID" in out and "[C2]" in out
    assert "name: 'Carrol?' -> ambiguous; closest Carol 68" in out
    assert "Totals: counted 1, void 1" in out


def test_audit_filters_by_player():
    out = render_audit(make_tally(), player="dan")
    assert "post 15" in out and "post 11" not in out
