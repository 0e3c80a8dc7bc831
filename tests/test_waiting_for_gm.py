"""The public post says how many votes wait for the GM (issue 16): a name that points at no one
player (C2), and a vote edited after the deadline whose text then is not proven (K4b, C6).
Only the numbers are public; the JSON carries the same numbers."""

from __future__ import annotations

from rulekit import edited, game, judge, unresolved, vote

from tally.render.jsonout import as_dict
from tally.render.post import render_post


def test_a_vote_edited_after_the_deadline_waits_for_the_gm_in_the_public_post() -> None:
    g = game("kira")
    t = judge(g, [("Alice", "03:10:00", vote("Bob"), {"edit": edited("edited", "+1 04:00:00")}),
                  ("Carol", "03:20:00", vote("Bob")), ("Dan", "03:30:00", unresolved("Bobb?"))])
    post = render_post(t, "bbcode")
    assert ("1 vote waits for the moderator: it was edited after the deadline and its text at "
            "the deadline is not proven. This count may still change.") in post
    assert ("1 vote waits for the moderator: its name points at no one player clearly. This "
            "count may still change.") in post
    assert "Alice" not in post.split("waits for the moderator")[1]  # only the number is public
    assert as_dict(t, public=True)["waiting_for_gm"] == {"names": 1, "edited": 1}


def test_nothing_waits_when_every_vote_is_clear() -> None:
    t = judge(game("kira"), [("Alice", "03:10:00", vote("Bob"))])
    assert "waits for the moderator" not in render_post(t, "bbcode")
    assert as_dict(t, public=True)["waiting_for_gm"] == {"names": 0, "edited": 0}
