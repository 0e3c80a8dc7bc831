"""The count the bot posts (tally/render/update.py): what players read, and what never appears."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from tally.model import Count, Finding, Outcome, Tally, Verdict
from tally.render.update import countdown, render_update
from tally.when import content_sha256, summarise

DEADLINE = datetime(2016, 1, 17, 21, 0, tzinfo=UTC)  # 22:00 CET
NOW = datetime(2016, 1, 17, 17, 48, tzinfo=UTC)


def kira(**over) -> Tally:
    base = dict(
        game="Kira, game 3", preset="kira", day=1, deadline=DEADLINE, as_of=NOW,
        counts=(Count("Dan", 3, ("Bob", "Frank", "Grace"), ("11", "12", "13")),
                Count("Carol", 1, ("Eve",), ("14",))),
        not_voting=("Alice", "Heidi"),
        outcome=Outcome("eliminated", "Dan", "K10", "most votes (3)"),
        verdicts=(Verdict("11", 4, "Bob", "Bob", NOW, "counted", "Dan",
                          permalink="https://f.example/viewtopic.php?p=11#p11"),
                  Verdict("15", 9, "Heidi", "Heidi", NOW, "not_a_vote",
                          permalink="https://f.example/viewtopic.php?p=15#p15")),
        living=("Alice", "Bob", "Carol", "Dan", "Eve", "Frank", "Grace", "Heidi"),
        threshold=3, counted_up_to="15", zone="Europe/Paris",
        findings=(Finding("E6", "Tramposo Eve: +2 on Carol", None, "Eve", secret=True,
                          needs_gm=True),),
        gm_counts=(Count("Carol", 3, ("Eve", "(Tramposo +2)")),),
        gm_outcome=Outcome("tie", None, "E9", "tie", ("Carol", "Dan")),
    )
    base.update(over)
    return Tally(**base)


def render(tally: Tally, dialect: str = "bbcode", last: Tally | None = None) -> str:
    summary = summarise(tally, False)
    before = summarise(last, False) if last else None
    return render_update(tally, summary=summary, sha256=content_sha256(summary), last=before,
                         last_at=NOW - timedelta(minutes=44) if last else None, now=NOW,
                         dialect=dialect)


def test_counts_link_voters_and_show_votes_to_the_threshold():
    text = render(kira())
    assert "[b]Dan[/b] (3, reached): [url=https://f.example/viewtopic.php?p=11#p11]Bob[/url], " \
           "Frank, Grace" in text
    assert "[b]Carol[/b] (1, L-2): Eve" in text
    assert "[b]Not voting[/b] (2): Alice, Heidi" in text
    assert "Counted up to [url=https://f.example/viewtopic.php?p=15#p15]post #9[/url], as of " \
           "Sun 17 Jan 18:48 (CET), forum time." in text
    assert "Deadline Sun 17 Jan 22:00 (CET), in 3 h 12 min." in text
    assert text.splitlines()[-1].startswith("tally · ")  # no [size]: its unit differs by forum


def test_majority_presets_count_down_to_the_majority():
    majority = kira(threshold=None, majority=5, preset="majority")
    assert "[b]Dan[/b] (3, L-2)" in render(majority)
    assert "With 8 alive, it takes 5 to eliminate." in render(majority)
    plurality = kira(threshold=None, preset="mafia-ru")
    assert "[b]Dan[/b] (3): " in render(plurality) and "L-" not in render(plurality)


def test_changes_since_the_last_count():
    before = kira(counts=(Count("Dan", 2, ("Bob", "Frank")), Count("Carol", 2, ("Eve", "Grace")),
                          Count("Alice", 1, ("Heidi",))))
    text = render(kira(), last=before)
    assert ("Changes since the last count (Sun 17 Jan 18:04 (CET)): Grace moved from Carol to "
            "Dan; Heidi withdrew (was on Alice).") in text


def test_an_unresolved_vote_is_said_once_by_number_never_by_who_wrote_it():
    doubt = Finding("C2", "unresolved name 'Fr' (written by Alice in post 16)", "16", "Alice",
                    needs_gm=True)
    text = render(kira(findings=(doubt,)))
    said = [line for line in text.splitlines() if "moderator" in line]
    assert said == ["1 vote waits for the moderator: its name points at no one player clearly. "
                    "This count may still change."]
    assert "'Fr'" not in text and "post 16" not in text and "GM" not in text


def test_what_else_waits_for_the_moderator_is_said_never_guessed():
    doubt = Finding("R11", "post 16 by Alice, dead since 12:00: a dead player may write only 1 "
                    "post (rule 4): ban for 24 hours", "16", "Alice", needs_gm=True)
    text = render(kira(findings=(doubt,)))
    assert ("[b]Waiting for the moderator[/b]: post 16 by Alice, dead since 12:00: a dead player "
            "may write only 1 post (rule 4): ban for 24 hours.") in text.splitlines()
    assert "GM" not in text


@pytest.mark.parametrize("dialect", ["bbcode", "jv", "markdown"])
def test_secret_information_is_never_posted(dialect):
    text = render(kira(), dialect)
    assert "Tramposo" not in text and "+2" not in text and "E9" not in text
    assert "(3, reached)" in text and "Carol" in text


def test_jv_markup_has_no_bbcode():
    text = render(kira(), "jv")
    assert "[b]" not in text and "[url" not in text and "'''Dan''' (3, reached): Bob" in text


@pytest.mark.parametrize("left,shown", [
    (timedelta(hours=3, minutes=12, seconds=30), "in 3 h 12 min"),
    (timedelta(days=2, hours=4, minutes=1), "in 2 days 4 h"),
    (timedelta(minutes=7), "in 7 min"),
    (timedelta(seconds=40), "in 40 s"),
    (timedelta(0), "passed"),
    (-timedelta(minutes=5), "passed"),
])
def test_countdown(left, shown):
    assert countdown(DEADLINE, DEADLINE - left) == shown


def test_the_final_count_says_so():
    after = replace(kira(), as_of=DEADLINE + timedelta(minutes=5))
    summary = summarise(after, True)
    text = render_update(after, summary=summary, sha256=content_sha256(summary), last=None,
                         last_at=None, now=DEADLINE + timedelta(minutes=5), dialect="bbcode")
    assert text.startswith("[b][u]Final vote count, day 1: Kira, game 3[/u][/b]")
    assert "Dan is eliminated (K10: most votes (3))" in text
    assert "Deadline Sun 17 Jan 22:00 (CET), passed." in text
