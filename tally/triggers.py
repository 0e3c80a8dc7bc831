"""The trigger report's use case (trigger-cn, T1-T8): judge the GM's secret trigger conditions on
the whole thread. The conditions themselves are rules (tally.rules.trigger_cn); this module only
gathers what they need (every post, who wrote it, round one's last valid vote) and the report's
text is the renderer's (tally.render.triggers)."""

from __future__ import annotations

from tally import engine, times
from tally.extract import Extractor
from tally.game import Game
from tally.model import Thread
from tally.rules.trigger_cn import PRESET, Judged, judge_triggers, last_valid_vote


def judge_thread(thread: Thread, game: Game) -> Judged:
    """Every trigger met or still open over the whole thread, as at its newest fetch (or as it
    stood when last read whole, after a crawl that stopped: tally.crawl)."""
    PRESET.validate(game)
    point = thread.fetched_at or times.now()
    # The posts shown by then, as a count's window (C6): after a stopped crawl, later pages
    # hold posts written after a stale page's unread ones, and the first match would be wrong.
    posts = [post for post in engine.in_order(thread.posts) if post.created_at <= point]
    extractor = Extractor(game, PRESET.syntax)
    voters = {p.id: extractor.ballot(p).voter for p in posts}
    last = None
    first = game.days[0]
    # The conditions read the whole thread (floors, first posts, who posted): a missing page
    # could hold the post that meets one (issue 16), whatever the day.
    engine.require_pages(thread, None, point, "a post a trigger reads")
    if point > first.deadline:  # round one is over: its last valid vote is known (T4)
        last = last_valid_vote(engine.count(thread, game, first.number, as_of=point).verdicts)
    return judge_triggers(posts, voters, game, last)
