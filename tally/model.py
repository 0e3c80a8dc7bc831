"""The typed, frozen records that flow through tally (DESIGN.md, "How data flows").

    pages ─► Post ─► Ballot ─► Verdict + Tally ─► renderers

Every datetime here is aware and in UTC; the forum's own wording of a time is kept beside it
(`time_text`, `zone`) so the audit can show what the page said. Renderers consume these records
and never import scraping code.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import Literal

# ---------------------------------------------------------------------------------------------
# A sentence for a reader, not yet in any language


class Message(str):
    """A sentence the rules say to a reader: a message id (an English template with named
    fields, "{player} is already dead (died {when})") and its parameters, so that a renderer can
    translate the whole sentence and a translator can reorder it (issue 14).

    It is also the English text itself (a str), so code and tests that read a reason or an
    outcome's detail as text see what they always saw. A parameter is a name or the forum's own
    text (never translated), a number, a tuple of names (a list, joined the language's way), or
    another Message (translated in turn). The rules build
    Messages with `msg`/`msg_n` and never pick a language: renderers do (tally.render.i18n).
    """

    msgid: str
    plural: str | None
    params: Mapping[str, object]

    def __new__(cls, msgid: str, plural: str | None = None, /, **params: object) -> Message:
        count = params.get("n")
        template = plural if plural is not None and count != 1 else msgid
        shown = {k: ", ".join(v) if isinstance(v, tuple) else v for k, v in params.items()}
        self = super().__new__(cls, template.format(**shown))
        self.msgid, self.plural, self.params = msgid, plural, MappingProxyType(dict(params))
        return self

    def __reduce__(self) -> tuple[object, ...]:  # copy and pickle keep the id and parameters
        return _message, (self.msgid, self.plural, dict(self.params))


def _message(msgid: str, plural: str | None, params: dict[str, object]) -> Message:
    return Message(msgid, plural, **params)


def msg(msgid: str, /, **params: object) -> Message:
    """A translatable sentence; `msgid` is English with {named} fields (extracted by Babel)."""
    return Message(msgid, None, **params)


def msg_n(singular: str, plural: str, /, **params: object) -> Message:
    """A sentence with a count `n` that picks the plural form (Russian has three, Chinese one)."""
    return Message(singular, plural, **params)


def msg_clauses(*parts: str) -> str:
    """Clauses of one reason, in order ("a; b; c"), each a Message or the forum's text; the
    language joins them its own way ("{first}; {then}")."""
    kept = [p for p in parts if p]
    if not kept:
        return ""
    out = kept[0]
    for part in kept[1:]:
        out = msg("{first}; {then}", first=out, then=part)
    return out


# ---------------------------------------------------------------------------------------------
# What an adapter reads off a page


@dataclass(frozen=True, slots=True)
class EditMarker:
    """An edit notice as the forum shows it ("Last edited by Bob on …, edited 2 times in total")."""

    text: str  # the notice as shown, whitespace collapsed
    editor: str | None = None  # who edited, when the forum names them
    edited_at: datetime | None = None  # aware UTC, when the forum dates the edit
    times: int | None = None  # how many edits the forum admits to (phpBB, Forumotion)


@dataclass(frozen=True, slots=True)
class Quote:
    """A quoted block. Never casts a vote (C1): it is someone else's words."""

    text: str
    author: str | None = None  # the cited author, when the quote names one


@dataclass(frozen=True, slots=True)
class Body:
    """A post's text, with what is not the author's own voice separated out.

    `own` is the author's own text with quotes, spoilers, code blocks, the signature and the
    forum's edit notice removed; line breaks are kept ("\n" between blocks and at <br>).
    `bold` holds the bold spans of `own`, in order, so a game can require bold votes.
    """

    own: str
    bold: tuple[str, ...] = ()
    quotes: tuple[Quote, ...] = ()  # outermost quotes; a nested quote is part of its parent's text
    spoilers: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    signature: str = ""


@dataclass(frozen=True, slots=True)
class Post:
    """One post, engine-neutral (DESIGN.md "Post")."""

    id: str  # the forum's own post id, stable across pages and fetches
    position: int  # 1-based place in the thread (Discuz floor, IPB "#n", or page offset + index)
    permalink: str
    author: str  # display name as shown on the post
    author_id: str | None  # the account id, when the page links the profile
    created_at: datetime  # aware UTC
    time_text: str  # the time as the page shows it
    zone: str  # IANA zone `time_text` was read in
    body: Body
    edit: EditMarker | None = None
    fetched_at: datetime | None = None  # when the page holding this version was fetched (UTC)
    page_url: str = ""
    deleted: bool = False  # shown as deleted/hidden to the viewer (no text to count)
    notes: tuple[str, ...] = ()  # parse notes for the audit: DST choices, time disagreements


@dataclass(frozen=True, slots=True)
class Page:
    """What `Engine.parse_page` returns: the posts of one thread page and where it sits."""

    url: str
    number: int  # 1-based page number
    count: int | None  # number of pages in the thread, when the page says
    posts: tuple[Post, ...]
    thread_id: str | None = None
    title: str | None = None
    next_url: str | None = None
    notes: tuple[str, ...] = ()  # page-level notes (e.g. "footer says UTC-03:00")
    # The UTC offset the page says its times are shown in (phpBB's "All times are UTC-03:00"),
    # when it says one: a check on the game file's zone (issue 16).
    utc_offset: timedelta | None = None


@dataclass(frozen=True, slots=True)
class MissingPage:
    """A page of the thread that no page read shows (a crawl killed midway, a page not saved).

    `after` and `before` are the times of the posts on either side of the hole (the last post of
    the nearest page below it, the first of the nearest page above it): a count whose window
    lies wholly outside them does not need the page.
    """

    number: int
    of: int  # the thread's pages, as the newest page read says (or the highest page read)
    after: datetime | None = None
    before: datetime | None = None
    # The place in the thread (Post.position) of the last post below the hole: a count cut right
    # after a post at or before it does not need the page, whatever the posts' times say.
    after_position: int | None = None


@dataclass(frozen=True, slots=True)
class Thread:
    """A whole thread as tally knows it: the latest version of every post, in thread order.

    `history` holds earlier versions of a post (oldest first), from earlier snapshots, so the
    rules can judge a post as it stood at the deadline (C6, K4b). `vanished` lists posts that a
    later fetch of their page no longer showed (deleted, hidden or moved off): they are kept,
    because a deletion after the deadline does not change the count (C6).
    """

    url: str
    engine: str
    posts: tuple[Post, ...]
    fetched_at: datetime | None = None  # the newest page fetch the thread was built from
    history: Mapping[str, tuple[Post, ...]] = field(default_factory=dict)
    vanished: frozenset[str] = frozenset()
    notes: tuple[str, ...] = ()
    missing: tuple[MissingPage, ...] = ()  # pages of the thread no page read shows
    title: str | None = None  # the topic's title, as its first page shows it
    # Each UTC offset the pages say their times are shown in, with the newest fetch that said it.
    utc_offsets: tuple[tuple[timedelta, datetime], ...] = ()


# ---------------------------------------------------------------------------------------------
# What extraction makes of a post

MatchHow = Literal[
    "exact", "alias", "resolution", "fuzzy", "ambiguous", "unknown", "mixed_script", "ignored"
]


@dataclass(frozen=True, slots=True)
class NameMatch:
    """How a written name was matched against the roster (C2); shown in the audit."""

    written: str
    player: str | None  # the roster player, None when no clear match
    how: MatchHow
    score: float = 100.0
    runner_up: str | None = None
    runner_up_score: float = 0.0
    # every player a vote line names when it names more than one ("vote: Alice or Bob"): the vote
    # counts for nobody and the GM decides (how = "ambiguous"; issue 13, tally.names)
    named: tuple[str, ...] = ()


ActionKind = Literal["vote", "unvote", "no_elimination"]


@dataclass(frozen=True, slots=True)
class Action:
    """One vote action found in a post's own text, in the order written."""

    kind: ActionKind
    written: str = ""  # the target as written ("" for unvote)
    match: NameMatch | None = None  # for votes: the roster match
    joke: bool = False  # carries a joke-vote marker from the game file (K4)
    text: str = ""  # the whole matched phrase, for the audit

    @property
    def target(self) -> str | None:
        return self.match.player if self.match else None


@dataclass(frozen=True, slots=True)
class Ballot:
    """A post read for votes: who wrote it (as a roster player) and the actions it carries."""

    post: Post
    voter: str | None  # roster player behind the author, None for non-players and staff
    actions: tuple[Action, ...] = ()
    # vote phrases whose target is a format placeholder ("Voto: Nombre"): shown, never counted
    examples: tuple[str, ...] = ()
    # lines whose vote or revoke word stands inside a sentence ("Why the unvote, José?"): prose,
    # shown in the audit, never counted (issue 13, tally.extract)
    prose: tuple[str, ...] = ()

    @property
    def is_vote_post(self) -> bool:
        return bool(self.actions)


# ---------------------------------------------------------------------------------------------
# What the rules decide

VerdictKind = Literal["counted", "void", "superseded", "not_a_vote"]


@dataclass(frozen=True, slots=True)
class Verdict:
    """Exactly one per post in the day's window (C4)."""

    post_id: str
    position: int
    author: str
    voter: str | None
    time: datetime
    verdict: VerdictKind
    target: str | None = None
    rule: str | None = None  # requirement id from RULES.md ("K4", "C1", ...)
    reason: str = ""
    superseded_by: str | None = None  # post id
    match: NameMatch | None = None
    permalink: str = ""
    evidence: tuple[str, ...] = ()  # edit marker text, time as shown, quote, ...


@dataclass(frozen=True, slots=True)
class Finding:
    """Something for the GM: a rule break, an unresolved name, a flag. Points at its post."""

    rule: str
    message: str
    post_id: str | None = None
    player: str | None = None
    needs_gm: bool = False  # a decision only the GM can take
    secret: bool = False  # GM-only information: never rendered publicly (C5)


@dataclass(frozen=True, slots=True)
class Count:
    player: str  # the target (or the no-elimination label)
    votes: int
    voters: tuple[str, ...]
    posts: tuple[str, ...] = ()  # the counted post of each voter, same order as voters


OutcomeResult = Literal["eliminated", "none", "tie", "undecided"]


@dataclass(frozen=True, slots=True)
class Outcome:
    result: OutcomeResult
    player: str | None
    rule: str
    detail: str
    tied: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Tally:
    """The result of one count: public part plus the GM-only part (`gm_*`, findings)."""

    game: str  # title
    preset: str
    day: int
    deadline: datetime
    as_of: datetime
    counts: tuple[Count, ...]  # public, most votes first
    not_voting: tuple[str, ...]
    outcome: Outcome
    verdicts: tuple[Verdict, ...]
    living: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()
    seed: str | None = None  # the tiebreak seed when a draw was made (K10)
    majority: int | None = None  # votes needed to end the day, where the preset has a hammer
    threshold: int | None = None  # minimum votes for an elimination (K9)
    counted_up_to: str | None = None  # id of the last post taken into account
    ended_at: datetime | None = None  # the day ended before its deadline (a hammer, C3)
    zone: str = "UTC"  # the forum's zone, for rendering times as the forum shows them
    thread_url: str = ""
    # The GM's result with secret effects applied (E6, R4-R6); equals the public one when none.
    gm_counts: tuple[Count, ...] | None = None
    gm_outcome: Outcome | None = None
    notes: tuple[str, ...] = ()  # the preset's defaults where the rulebook is silent
    reading: tuple[str, ...] = ()  # what reading the thread noticed (a page skipped, a record)
