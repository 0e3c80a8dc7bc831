"""The records the rule stages pass along, and the C6 step that reads posts as at the deadline.

A `Reading` is a Ballot being judged: its actions as `Step`s, each of which a validity policy may
void (with a rule id and a reason). Policies never drop a reading: every post in the window keeps
exactly one reading and so gets exactly one verdict (C4).

Some posts cast nothing whatever they say, and are "not a vote" with the reason in `silent`: a
post by the GM or another staff account (the game file's `staff`) or by anyone not on the roster
(only players vote: K2, E2, L1, R2), and a post whose only vote is a format example ("Voto:
Nombre", tally.extract). Their vote words stay on the audit's evidence line.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from functools import cached_property
from typing import TYPE_CHECKING

from tally import times
from tally.game import Day, Event, Game, VoteSyntax
from tally.model import Action, Ballot, EditMarker, Finding, Message, Post, msg, msg_clauses, msg_n
from tally.names import normalise

if TYPE_CHECKING:  # built lazily (Context.extractor): most judgements never need it
    from tally.extract import Extractor


@dataclass(frozen=True, slots=True)
class Void:
    rule: str
    reason: str


@dataclass(frozen=True, slots=True)
class Step:
    """One action of a post and, once a policy has spoken, why it does not apply."""

    action: Action
    void: Void | None = None


@dataclass(frozen=True, slots=True)
class Reading:
    ballot: Ballot  # as judged: the post's text as it stood at the deadline (C6)
    steps: tuple[Step, ...]
    evidence: tuple[str, ...] = ()  # for the audit: edit marker, time as shown, snapshot used
    remarks: tuple[str, ...] = ()  # added to the verdict's reason ("edited by staff Ryuk, kept")
    silent: str = ""  # why a post with no readable text is not a vote (deleted, no copy)

    @property
    def post(self) -> Post:
        return self.ballot.post

    @property
    def voter(self) -> str | None:
        return self.ballot.voter


Stage = Callable[[tuple[Reading, ...], "Context"], tuple[tuple[Reading, ...], tuple[Finding, ...]]]


@dataclass(frozen=True)
class Context:
    """What every policy may read: the game, the day, the as-of point and the saved history."""

    game: Game
    day: Day
    as_of: datetime
    history: Mapping[str, tuple[Post, ...]]
    preset: str
    syntax: VoteSyntax
    notes: tuple[str, ...] = ()
    life: Life = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "life", Life(self.game))

    @property
    def cutoff(self) -> datetime:
        """The moment the thread is judged at (C6): the deadline, or an earlier as-of point."""
        return min(self.as_of, self.day.deadline)

    @cached_property
    def extractor(self) -> Extractor:
        from tally.extract import Extractor

        return Extractor(self.game, self.syntax)

    def clock(self, at: datetime, like: datetime | None = None) -> str:
        """`at` as the forum's wall time: the time alone when that is unambiguous (same local
        date as `like`, or, with no `like`, inside the 24 hours from the day's start)."""
        local = times.to_local(at, self.game.timezone)
        if like is None:
            if self.day.start <= at < self.day.start + timedelta(days=1):
                return f"{local:%H:%M:%S}"
        elif times.to_local(like, self.game.timezone).date() == local.date():
            return f"{local:%H:%M:%S}"
        return f"{local:%Y-%m-%d %H:%M:%S}"


class Life:
    """Who is alive when, from the GM's death and revival events (K2, K11, K12)."""

    def __init__(self, game: Game) -> None:
        self._changes: dict[str, list[tuple[datetime, bool]]] = {}
        for event in game.events_of("death", "revival"):
            if event.player:
                self._changes.setdefault(event.player, []).append((event.at, event.kind == "revival"))
        for changes in self._changes.values():
            changes.sort(key=lambda change: change[0])
        self._players = tuple(p.name for p in game.players)

    def alive(self, player: str, at: datetime) -> bool:
        """Alive at `at`; death takes effect at its own second ("immediately revoked", 211)."""
        state = True
        for when, alive in self._changes.get(player, ()):
            if when > at:
                break
            state = alive
        return state

    def death(self, player: str, at: datetime) -> datetime | None:
        """When the death in force at `at` happened (None when alive)."""
        found = None
        for when, alive in self._changes.get(player, ()):
            if when > at:
                break
            found = None if alive else when
        return found

    def living(self, at: datetime) -> tuple[str, ...]:
        return tuple(p for p in self._players if self.alive(p, at))


# ---------------------------------------------------------------------------------------------
# Building readings


def readings_of(ballots: Iterable[Ballot], game: Game) -> tuple[Reading, ...]:
    """One reading per post id, in thread order, whatever order or duplicates the input has."""
    unique: dict[str, Ballot] = {}
    for ballot in ballots:
        unique.setdefault(ballot.post.id, ballot)
    ordered = sorted(unique.values(), key=lambda b: (b.post.position, b.post.created_at, b.post.id))
    staff = _staff(game)
    return tuple(_reading(b, staff) for b in ordered)


def _staff(game: Game) -> frozenset[str]:
    return frozenset(normalise(s) for s in game.staff)


def _reading(ballot: Ballot, staff: Collection[str]) -> Reading:
    # Parse notes (a DST gap or overlap and the reading chosen, a machine time that disagrees
    # with the shown one) travel with every post so the audit can show them (DESIGN.md "Time").
    post = ballot.post
    written = ballot.actions or ballot.examples
    shown = (msg("time shown: {time}", time=post.time_text),) if written else ()
    evidence = shown + tuple(msg("note: {note}", note=n) for n in post.notes) + tuple(
        prose_evidence(line) for line in ballot.prose)
    if ballot.voter is None:  # only players vote, so nothing here is a vote (C4)
        who = (msg("posted by the GM (staff), who does not vote")
               if normalise(post.author) in staff else msg("posted by a non-player"))
        phrases = tuple(a.text or a.kind for a in ballot.actions) + ballot.examples
        listed = msg_clauses(*(_quoted(p) for p in phrases))
        said = (msg("vote words: {phrases}", phrases=listed),) if phrases else ()
        return Reading(ballot, (), evidence + said, silent=who)
    examples = tuple(msg("a format example: '{example}'", example=_shown(e))
                     for e in ballot.examples)
    if not ballot.actions and examples:
        return Reading(ballot, (), evidence, silent=msg_clauses(*examples))
    return Reading(ballot, tuple(Step(a) for a in ballot.actions), evidence, remarks=tuple(
        msg("ignored {example}", example=e) for e in examples))


def prose_evidence(line: str) -> str:
    """Issue 13: a vote or revoke word inside a sentence is prose; the audit shows the line."""
    return msg("vote words inside a sentence, read as prose, not a command: '{line}'",
               line=_shown(line))


def _shown(text: str) -> str:
    """The forum's words as repr shows them (an invisible character escaped), without repr's
    quotes: each language puts its own around them ('…', «…», “…”) (issue 14)."""
    return repr(text)[1:-1]


def _quoted(text: str) -> str:
    return msg("'{phrase}'", phrase=_shown(text))


def void_steps(reading: Reading, rule: str, reason: str,
               kinds: Sequence[str] = ("vote", "unvote", "no_elimination"),
               only: Callable[[Action], bool] | None = None) -> Reading:
    """Void the steps of `kinds` (and passing `only`) that no earlier policy voided."""
    steps = tuple(
        replace(s, void=Void(rule, reason))
        if s.void is None and s.action.kind in kinds and (only is None or only(s.action)) else s
        for s in reading.steps
    )
    return replace(reading, steps=steps)


# ---------------------------------------------------------------------------------------------
# C6 / K4b: the thread as it stood at the deadline


def as_at(readings: tuple[Reading, ...], ctx: Context) -> tuple[tuple[Reading, ...], tuple[Finding, ...]]:
    """Swap in the text a post had at the cut-off where a later edit or deletion changed it.

    The version used is the newest one in the saved history fetched by the cut-off (else, for a
    dated edit marker, before the edit: K4b); with none, the current text stands and the GM is
    told it is not proven (C6). Forums also edit silently (no marker: phpBB's edit of the last
    post, a moderator's edit without a reason, Discuz admin edits, a hidden Invision edit line:
    FORUMS.md §2.4, §4.1, §5.2): a post fetched after the cut-off whose text differs from the
    copy fetched by then, with no marker dated in between, is judged on that copy too.
    """
    out: list[Reading] = []
    findings: list[Finding] = []
    for reading in readings:
        post = reading.post
        found: tuple[Finding, ...] = ()
        if post.deleted:
            reading, found = _before_deletion(reading, ctx)
        elif post.edit and post.edit.edited_at and post.edit.edited_at > ctx.cutoff:
            reading, found = _before_edit(reading, ctx)
        else:
            reading, found = _before_silent_edit(reading, ctx)
        out.append(reading)
        findings += found
    return tuple(out), tuple(findings)


def _at_cutoff(ctx: Context, post: Post) -> Post | None:
    """The newest saved copy fetched by the cut-off (deleted or not): the post as it stood then."""
    versions = [v for v in ctx.history.get(post.id, ()) if v.fetched_at is not None
                and v.fetched_at <= ctx.cutoff]
    return max(versions, key=lambda v: v.fetched_at or v.created_at, default=None)


def _older(ctx: Context, post: Post, before: datetime | None) -> Post | None:
    """The copy to judge in place of `post`: the one standing at the cut-off when one was saved,
    else the newest fetched before `before` (the edit; None: any)."""
    standing = _at_cutoff(ctx, post)
    if standing is not None and not standing.deleted:
        return standing
    versions = [v for v in ctx.history.get(post.id, ()) if v.fetched_at is not None
                and not v.deleted and (before is None or v.fetched_at < before)]
    return max(versions, key=lambda v: v.fetched_at or v.created_at, default=None)


def _reread(reading: Reading, old: Post, ctx: Context, why: str) -> Reading:
    """Judge `old` (an earlier copy) in place of the current post, keeping its id and place."""
    post = reading.post
    kept = replace(old, id=post.id, position=post.position, permalink=post.permalink or old.permalink)
    fresh = _reading(ctx.extractor.ballot(kept), _staff(ctx.game))
    assert old.fetched_at is not None
    stamp = f"{old.fetched_at:%Y-%m-%d %H:%M:%S} UTC"
    return replace(fresh, evidence=fresh.evidence + (judged_on_copy(why, stamp),))


def judged_on_copy(why: str, stamp: str) -> Message:
    """C6: the evidence line of a post judged on an earlier copy (the HTML report shows it)."""
    return msg("{why}; judged on the copy fetched {when}", why=why, when=stamp)


def is_judged_on_copy(evidence: str) -> bool:
    return isinstance(evidence, Message) and evidence.msgid == judged_on_copy("", "").msgid


def _before_edit(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
    post = reading.post
    edit = post.edit
    assert edit is not None and edit.edited_at is not None
    marker = msg("edit marker '{marker}' dated {when}, after the cut-off", marker=edit.text,
                 when=ctx.clock(edit.edited_at))
    old = _older(ctx, post, edit.edited_at)
    if old is not None:
        return _reread(reading, old, ctx, marker), ()
    if not reading.steps:
        return replace(reading, evidence=reading.evidence + (marker,)), ()
    unproven = msg("edited after the deadline; text at the deadline not proven")
    message = msg("post {post} by {player}: {why}", post=post.id, player=post.author, why=unproven)
    if edit.times and edit.times > 1:  # the marker shows only the last of several edits
        message = msg_n("{message}; edited {n} times, an earlier edit may predate the deadline",
                        "{message}; edited {n} times, an earlier edit may predate the deadline",
                        message=message, n=edit.times)
    flagged = replace(reading, evidence=reading.evidence + (marker,),
                      remarks=reading.remarks + (unproven,))
    return flagged, (Finding("K4b" if ctx.preset == "kira" else "C6", message, post.id,
                             reading.voter, needs_gm=True),)


def _before_silent_edit(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
    """C6 for an edit the forum did not mark: the copy fetched by the cut-off stands.

    Only a post fetched after the cut-off can have changed after it; a marker that appeared or
    changed since the copy explains the change (an edit by the deadline: K4 judges it). With no
    copy from before the cut-off the current text stands (tally.forensics says the evidence
    cannot show the post as it stood then)."""
    post = reading.post
    if post.fetched_at is None or not ctx.history.get(post.id):
        return reading, ()
    if post.fetched_at <= ctx.cutoff:  # the current text was on the page by the cut-off
        return _silent_in_time(reading, ctx), ()
    old = _at_cutoff(ctx, post)
    if old is None or old.deleted or _text(old) == _text(post) or _marked_since(post, old):
        return reading, ()
    assert old.fetched_at is not None
    seen = msg("seen {first} vs {then}", first=_stamp(old.fetched_at),
               then=_stamp(post.fetched_at, old.fetched_at))
    fresh = _reread(reading, old, ctx, msg("text changed with no edit marker ({seen})", seen=seen))
    message = (msg("post {post} by {player} changed after the deadline with no edit marker "
                   "({seen}): counted as it stood at the deadline: {cast}", post=post.id,
                   player=post.author, seen=seen, cast=_cast(fresh))
               if ctx.cutoff == ctx.day.deadline else
               msg("post {post} by {player} changed after the as-of point with no edit marker "
                   "({seen}): counted as it stood at the as-of point: {cast}", post=post.id,
                   player=post.author, seen=seen, cast=_cast(fresh)))
    return fresh, (Finding("K4b" if ctx.preset == "kira" else "C6", message, post.id, reading.voter),)


def _silent_in_time(reading: Reading, ctx: Context) -> Reading:
    """A change with no marker made by the cut-off: the new text counts (no edit message to void
    it, K4/213); the audit shows the two copies' fetch times."""
    post = reading.post
    old = max(ctx.history[post.id], key=lambda v: v.fetched_at or v.created_at)
    if old.fetched_at is None or old.deleted or _text(old) == _text(post) or _marked_since(post, old):
        return reading
    assert post.fetched_at is not None
    note = msg("text changed with no edit marker by the cut-off ({seen}): counted as it reads",
               seen=msg("seen {first} vs {then}", first=_stamp(old.fetched_at),
                        then=_stamp(post.fetched_at, old.fetched_at)))
    return replace(reading, evidence=reading.evidence + (note,))


def silent_change(ctx: Context, post: Post) -> tuple[Post, datetime] | None:
    """The copy showing `post` before an unmarked change of its text, and when the new text was
    first seen (the change was made between the two fetches), or None.

    For rules where a change made in time matters by itself (E3): C6 already decides which text
    counts; this says whether an earlier one was on the page before it."""
    if post.fetched_at is None or post.deleted:
        return None
    fetched = [(v.fetched_at, v) for v in ctx.history.get(post.id, ())
               if v.fetched_at is not None and not v.deleted]
    first_seen = min([at for at, v in fetched if _text(v) == _text(post) and at <= post.fetched_at]
                     + [post.fetched_at])
    older = [v for at, v in fetched if at < first_seen and _text(v) != _text(post)]
    old = max(older, key=lambda v: v.fetched_at or v.created_at, default=None)
    if old is None or _marked_since(post, old):
        return None
    return old, first_seen


def _text(post: Post) -> object:
    """What an edit changes (not the signature, which the forum shows from the profile)."""
    body = post.body
    return (body.own, body.bold, body.quotes, body.spoilers, body.code)


def _marked_since(post: Post, old: Post) -> bool:
    """Whether the post's marker appeared or changed since `old`: a marked edit, not a silent one.
    A dated marker is compared by its date (its wording may be relative, "Yesterday at …")."""
    def key(edit: EditMarker | None) -> object:
        if edit is None:
            return None
        return (edit.editor, edit.edited_at or edit.text, edit.times)

    return post.edit is not None and key(post.edit) != key(old.edit)


def _stamp(at: datetime, like: datetime | None = None) -> str:
    """A fetch time in UTC; the date left out when `like` has the same one."""
    if like is not None and like.date() == at.date():
        return f"{at:%H:%M:%S} UTC"
    return f"{at:%Y-%m-%d %H:%M:%S} UTC"


def _cast(reading: Reading) -> str:
    """"vote Bob", "unvote, vote Carol", "no vote": what a reading's post casts."""
    words: list[str] = []
    for step in reading.steps:
        action = step.action
        if action.kind == "vote":
            words.append(msg("vote {player}", player=action.target or repr(action.written)))
        else:
            words.append(msg("unvote") if action.kind == "unvote" else msg("no elimination"))
    return msg("{actions}", actions=tuple(words)) if words else msg("no vote")


def _before_deletion(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
    post = reading.post
    old = _older(ctx, post, None)
    if old is not None:
        return _reread(reading, old, ctx, msg("deleted later")), ()
    silent = replace(reading, steps=(), silent=msg("deleted; no saved copy shows its text"))
    return silent, (Finding("C6", msg("post {post} by {player} is deleted and no saved copy shows "
                                      "its text", post=post.id, player=post.author),
                            post.id, reading.voter),)


def second_after(deadline: datetime, precision: str) -> datetime:
    """The first late instant (C7): the deadline second or minute is inclusive."""
    if precision == "minute":
        return deadline.replace(second=0, microsecond=0) + timedelta(minutes=1)
    return deadline.replace(microsecond=0) + timedelta(seconds=1)


def event_day(event: Event, game: Game, precision: str) -> int | None:
    """The voting day an action belongs to: its `day`, else the day whose window holds it."""
    if event.day is not None:
        return event.day
    for day in game.days:
        if day.start <= event.at < second_after(day.deadline, precision):
            return day.number
    return None
