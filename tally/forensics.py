"""Edit forensics (issue 6): what changed in a thread between the store's fetches of its pages.

Each page's fetches are grouped in sightings (crawl.Sighting: a run of fetches that returned the
same bytes). Following every post across the sightings of its place in the thread finds:

- a text that changed with no edit marker, or with the marker unchanged (Discuz hides admin
  edits, IPS lets users hide the edit line, phpBB shows none for an author's edit of the last
  post: FORUMS.md §2.4, §4.1, §5.2);
- an edit marker that appeared, changed (editor, time, count) or disappeared;
- a post that vanished (a later fetch covering its place lacks it) or is shown as deleted;
- a post that appeared late in the middle of the thread (an earlier fetch of its place lacked
  it: approved from a moderation queue, a soft deletion undone), or came back after vanishing.

Every finding carries both copies with their fetch times and store versions, and says how the
change stands to the deadline (C6): a vote post changed in a copy fetched after the deadline is
flagged, with the vote at the deadline and the vote after; where no copy was fetched before the
deadline, the finding says the evidence cannot show the post as it stood then.

Evidence for the audit only: which text counts is the rules' decision (rules/reading.py, K4b/C6).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Literal

from tally.assemble import is_last_page
from tally.crawl import Sighting
from tally.game import Game
from tally.model import Action, EditMarker, Post, Tally, msg, msg_clauses

Kind = Literal["silent_edit", "edit_marker", "deleted", "inserted", "restored"]
Timing = Literal["before", "after", "around", "unproven"]
DescribeVote = Callable[[Post], str | None]  # "vote Dan", "unvote"; None: not a vote post

ABSENT = msg("(not shown: this fetch covers the post's place in the thread and lacks it)")


@dataclass(frozen=True, slots=True)
class Copy:
    """One side of a finding: the post as one run of fetches showed it, or its absence there."""

    post: Post | None  # None: the fetch covered the post's place and did not show it
    fetched_at: datetime  # before: the last fetch showing this copy; after: the first (UTC)
    version: int  # the store's page version of that fetch
    page: int

    @property
    def text(self) -> str:
        return post_text(self.post) if self.post is not None else ABSENT

    @property
    def lines(self) -> tuple[str, ...]:
        """`text` line by line, each a message the audit translates (issue 14)."""
        return post_lines(self.post) if self.post is not None else (ABSENT,)


@dataclass(frozen=True, slots=True)
class Change:
    number: int  # F1, F2, … in thread order
    kind: Kind
    post_id: str
    author: str
    position: int
    what: str  # "text changed, no edit marker"
    before: Copy
    after: Copy
    timing: Timing  # how the change stands to the cut-off (deadline or as-of point, C6)
    vote_before: str | None = None  # for vote posts: the vote each copy casts
    vote_after: str | None = None
    note: str = ""  # the deadline sentence the audit prints
    posted_late: bool = False  # the post itself is dated after the cut-off


    @property
    def label(self) -> str:
        return f"F{self.number}"

    @property
    def flagged(self) -> bool:
        """A vote post whose copy fetched after the deadline differs from one fetched before."""
        return self.is_vote_post and self.timing in ("after", "around") and not self.posted_late

    @property
    def is_vote_post(self) -> bool:
        return self.vote_before is not None or self.vote_after is not None

    @property
    def headline(self) -> str:
        flag = ""
        if self.flagged:
            flag = (msg("vote post changed after the deadline") if self.timing == "after" else
                    msg("vote post: the copy fetched after the deadline differs from the last one "
                        "before it"))
        if self.timing == "unproven" and self.is_vote_post:
            flag = msg("vote post, no copy from before the deadline")
        return msg_clauses(self.what, flag)


def post_text(post: Post) -> str:
    """A copy's text as the audit shows it: quotes marked, the edit marker and deletion noted."""
    return "\n".join(post_lines(post))


def post_lines(post: Post) -> tuple[str, ...]:
    """`post_text`'s lines: the forum's text as it is, tally's markers as messages."""
    lines: list[str] = [
        msg("> {author} wrote: {text}", author=q.author, text=" ".join(q.text.split()))
        if q.author else msg("> someone wrote: {text}", text=" ".join(q.text.split()))
        for q in post.body.quotes]
    lines += post.body.own.splitlines() or [""]
    if post.edit is not None:
        lines.append(msg("[edit marker: {marker}]", marker=post.edit.text))
    if post.deleted:
        lines.append(msg("[shown as deleted]"))
    return tuple(lines)


# ---------------------------------------------------------------------------------------------
# Following each post across the sightings


@dataclass(frozen=True, slots=True)
class _Seen:
    """A post in one sighting (post None: the sighting covered its place and lacked it)."""

    sighting: Sighting
    post: Post | None


@dataclass
class _Run:
    """Consecutive sightings of a post in one state (one content, or absent)."""

    state: object
    post: Post | None
    first: _Seen
    last: _Seen


def examine(sightings: Iterable[Sighting], *, start: datetime, until: datetime, cutoff: datetime,
            describe: DescribeVote) -> tuple[Change, ...]:
    """Every change to a post dated in [start, until] (the day's window), in thread order.

    `cutoff` is the moment the count judges the thread at (the deadline or the as-of point,
    C6); `describe` says which vote a copy casts (None: not a vote post).
    """
    ordered = sorted(sightings, key=lambda s: (s.first, s.last, s.page.number))
    newest: dict[str, Post] = {}
    for sighting in ordered:
        for post in sighting.page.posts:
            newest[post.id] = post
    keys = {pid: _thread_order(post) for pid, post in newest.items()}
    by_order = sorted(newest, key=lambda pid: keys[pid])
    order = [keys[pid] for pid in by_order]
    seen: dict[str, list[_Seen]] = {pid: [] for pid in newest}
    for sighting in ordered:
        shown = {post.id for post in sighting.page.posts}
        for post in sighting.page.posts:
            seen[post.id].append(_Seen(sighting, post))
        for pid in _covered(sighting, shown, keys, order, by_order):
            # A post the forum could not have shown yet is not missing from this fetch.
            if newest[pid].created_at <= sighting.first:
                seen[pid].append(_Seen(sighting, None))
    changes: list[Change] = []
    for pid in by_order:
        post = newest[pid]
        if not start <= post.created_at <= until:
            continue
        runs = _runs(sorted(seen[pid], key=lambda s: (s.sighting.first, s.sighting.last)))
        for index in range(1, len(runs)):
            found = _change(runs[:index], runs[index], cutoff, describe)
            if found is not None:
                changes.append(found)
    return tuple(_numbered(changes))


def _thread_order(post: Post) -> tuple[int, int, datetime, str]:
    # Ids grow with time on every engine (FORUMS.md), and unlike positions they do not shift
    # when a post is deleted or approved; non-numeric ids fall back on the post's time.
    if post.id.isdigit():
        return (0, int(post.id), post.created_at, post.id)
    return (1, 0, post.created_at, post.id)


def _covered(sighting: Sighting, shown: set[str], keys: dict[str, tuple[int, int, datetime, str]],
             order: list[tuple[int, int, datetime, str]], by_order: list[str]) -> list[str]:
    """Posts whose place this sighting covers without showing them.

    A page is a contiguous run of the thread: it covers what lies between its first and last
    post; page 1 also covers everything before, the last page everything after (as
    assemble._vanished reads pages).
    """
    if not shown:
        return []
    places = sorted(keys[pid] for pid in shown)
    low = 0 if sighting.page.number == 1 else bisect_right(order, places[0])
    high = len(order) if is_last_page(sighting.page) else bisect_left(order, places[-1])
    return [pid for pid in by_order[low:high] if pid not in shown]


def _state(post: Post | None) -> object:
    """What makes two copies of a post differ: its text, marker and deletion, not where or when
    the page was read (a signature change is not an edit of the post)."""
    if post is None:
        return None
    body = post.body
    return (body.own, body.quotes, body.spoilers, body.code, body.bold, _marker(post.edit),
            post.deleted)


def _marker(edit: EditMarker | None) -> object:
    if edit is None:
        return None
    # A dated marker is compared by its date: its wording may be relative ("Yesterday at …").
    if edit.edited_at is not None:
        return (edit.editor, edit.edited_at, edit.times)
    return (edit.editor, edit.text, edit.times)


def _runs(seen: list[_Seen]) -> list[_Run]:
    runs: list[_Run] = []
    for item in seen:
        state = _state(item.post)
        if runs and runs[-1].state == state:
            runs[-1].last = item
        else:
            runs.append(_Run(state, item.post, item, item))
    return runs


def _change(earlier: list[_Run], now: _Run, cutoff: datetime,
            describe: DescribeVote) -> Change | None:
    was = earlier[-1]
    if was.post is None and now.post is None:
        return None
    kind, what = _classify(was.post, now.post, any(run.post is not None for run in earlier))
    before = Copy(was.post, was.last.sighting.last, was.last.sighting.version_ids[-1],
                  was.last.sighting.page.number)
    after = Copy(now.post, now.first.sighting.first, now.first.sighting.version_ids[0],
                 now.first.sighting.page.number)
    post = now.post or was.post
    assert post is not None
    timing = _timing(was, now, post, cutoff)
    vote_before = describe(was.post) if was.post is not None else None
    vote_after = describe(now.post) if now.post is not None else None
    change = Change(0, kind, post.id, post.author, post.position, what, before, after, timing,
                    vote_before, vote_after, posted_late=post.created_at > cutoff)
    return _with_note(change)


def _classify(was: Post | None, now: Post | None, shown_before: bool) -> tuple[Kind, str]:
    if now is None:
        return "deleted", msg("vanished: a later fetch of its place no longer shows it (deleted or "
                              "hidden)")
    if was is None:
        if shown_before:
            return "restored", msg("shown again after it had vanished (restored)")
        return ("inserted", msg("appeared late in the middle of the thread: an earlier fetch of "
                                "its place lacked it (approved later, or a deletion undone)"))
    if now.deleted != was.deleted:
        if now.deleted:
            return "deleted", msg("now shown as deleted")
        return "restored", msg("no longer shown as deleted (restored)")
    if _marker(now.edit) != _marker(was.edit):
        same = msg("text unchanged") if _state(_unmarked(now)) == _state(_unmarked(was)) else ""
        if was.edit is None:
            assert now.edit is not None
            what = msg("edit marker appeared: '{marker}'", marker=now.edit.text)
        elif now.edit is None:
            what = msg("edit marker disappeared (was '{marker}')", marker=was.edit.text)
        else:
            what = msg("edit marker changed: '{was}' -> '{now}'", was=was.edit.text,
                       now=now.edit.text)
        return "edit_marker", msg_clauses(what, same)
    if now.edit is None:
        return "silent_edit", msg("text changed, no edit marker")
    return "silent_edit", msg("text changed, edit marker unchanged ('{marker}')",
                              marker=now.edit.text)


def _unmarked(post: Post) -> Post:
    return replace(post, edit=None)


def _timing(was: _Run, now: _Run, post: Post, cutoff: datetime) -> Timing:
    if now.first.sighting.first <= cutoff:
        return "before"
    if was.first.sighting.first > cutoff:
        # Nothing fetched before the cut-off shows this post: unless it was posted after it,
        # the thread as it stood then is not in the evidence (C6).
        return "unproven" if post.created_at <= cutoff else "after"
    if was.last.sighting.last >= cutoff:
        return "after"  # the earlier copy was still served after the cut-off: it stood then
    return "around"


def _with_note(change: Change) -> Change:
    vote_then = change.vote_before or msg("no vote")
    vote_now = change.vote_after or msg("no vote")
    if change.after.post is None:
        vote_now = msg("not shown")
    if change.before.post is None:
        vote_then = msg("not shown")
    note: str = ""
    if change.posted_late:  # nothing of it stood at the deadline: only say when it changed
        note = (msg("posted after the deadline") if change.timing == "before" else
                msg("posted after the deadline; changed after the deadline too"))
    elif change.timing == "after" and not change.is_vote_post:
        note = msg("changed after the deadline")
    elif change.timing == "after":
        note = (msg("changed after the deadline: at the deadline {then}; after it {now} (the same "
                    "vote)", then=vote_then, now=vote_now) if vote_then == vote_now else
                msg("changed after the deadline: at the deadline {then}; after it {now}",
                    then=vote_then, now=vote_now))
    elif change.timing == "around":
        note = (msg("changed between the last fetch before the deadline and the first after it: "
                    "before {then}; after {now}", then=vote_then, now=vote_now)
                if change.is_vote_post else
                msg("changed between the last fetch before the deadline and the first after it"))
    elif change.timing == "unproven":
        note = msg("no copy was fetched before the deadline: the evidence cannot show this post as "
                   "it stood then")
    return replace(change, note=note)


def _numbered(changes: list[Change]) -> list[Change]:
    return [replace(change, number=index) for index, change in enumerate(changes, start=1)]


def describe_actions(actions: Iterable[Action]) -> str | None:
    """"vote Dan", "unvote, vote Carol": the vote actions of a copy (None: not a vote post)."""
    words: list[str] = []
    for action in actions:
        if action.kind == "vote":
            words.append(msg("vote {player}", player=action.target) if action.target
                         else msg("vote '{written}' (no player)", written=action.written))
        else:
            words.append(msg("unvote") if action.kind == "unvote" else msg("no elimination"))
    return msg("{actions}", actions=tuple(words)) if words else None


# ---------------------------------------------------------------------------------------------
# For one count


@dataclass(frozen=True)
class Report:
    """The forensics of one count: its findings and what was compared to find them."""

    changes: tuple[Change, ...]
    fetches: int  # stored page versions compared
    first: datetime | None  # the oldest and newest of those fetches (UTC)
    last: datetime | None

    def of_post(self, post_id: str) -> tuple[Change, ...]:
        return tuple(change for change in self.changes if change.post_id == post_id)


def report(sightings: Iterable[Sighting], game: Game, tally: Tally) -> Report:
    """The findings in the counted day's window, judged against the count's cut-off (C6)."""
    from tally.extract import Extractor
    from tally.rules import get as preset_named

    seen = tuple(sightings)
    extractor = Extractor(game, preset_named(game.preset).syntax)

    def describe(post: Post) -> str | None:
        return describe_actions(extractor.actions(post.body.own, post.body.bold))

    changes = examine(seen, start=game.day(tally.day).start, until=tally.as_of,
                      cutoff=min(tally.as_of, tally.deadline), describe=describe)
    fetches = sum(len(s.version_ids) for s in seen)
    return Report(changes, fetches, min((s.first for s in seen), default=None),
                  max((s.last for s in seen), default=None))
