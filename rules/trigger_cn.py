"""The `trigger-cn` preset: the trigger-killer game on a Discuz forum (RULES.md section 5, T1-T8).

Votes follow the section-5 defaults: "投票 X" / "投票：X" casts, "取消投票" revokes, the last
vote counts, edits do not void, plurality decides, a tie goes to the GM.

The GM team's secret trigger conditions are `[[events]]` of kind "trigger" in the game file:

    [[events]]
    kind = "trigger"
    at = "2009-08-01 12:00"        # when the condition was lodged with the supervisor
    condition = "floor"            # floor | first_reply | long_reply | last_voter | regex
    floor = 23                     # floor: the floor number (T1)
    # min_chars = 100              # long_reply: more than this many characters (spaces aside)
    # pattern = "..."              # regex: a post whose own text matches
    # effect = "revival"           # T7; default "substitute"
    # name = "第23楼"              # how the GM report names it

The killer is the player whose `role` is 杀手 (or "killer"). Triggers are judged on the whole
thread (`tally.triggers`, `tally triggers`); they are GM-only (T8): every finding about them is
secret and has no post id, so a public render cannot even drop the verdict of the post that met
one. The day's count carries them only when its window holds the thread from floor 1.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from tally import times
from tally.errors import GameFileError
from tally.game import CORE_EVENT_KINDS, Event, Game
from tally.model import Finding, Outcome, Post, Tally, Verdict, msg, msg_clauses
from tally.names import normalise
from tally.rules import change
from tally.rules import validity as v
from tally.rules.change import settle
from tally.rules.outcome import (
    Pile,
    edits_note,
    inclusive,
    leaders,
    most_votes,
    not_voting,
    piles,
    tally,
    tie_between,
)
from tally.rules.preset import Preset
from tally.rules.reading import Context, Life, Reading, Stage
from tally.syntax import pack

EVENT_KINDS = CORE_EVENT_KINDS | {"trigger"}
CONDITIONS = ("floor", "first_reply", "long_reply", "last_voter", "regex")
EFFECTS = ("substitute", "revival")
KILLER_ROLES = frozenset({"杀手", "killer", "原生杀手"})
POSITIONAL = ("floor", "first_reply", "last_voter")  # met by one post: if void, the next post
REVIVAL_PLAYERS = 12  # T7: the appendix applies from 12 players


@dataclass(frozen=True)
class TriggerOptions:
    precision: str = field(default="minute", metadata={"choices": ("second", "minute")})  # C7
    void_edited: bool = False  # section 5 default: edits do not void


def validity(o: TriggerOptions) -> tuple[Stage, ...]:
    return (
        v.late("deadline", o.precision),
        v.voter_may_vote("not a player", "dead"),
        v.edit_marker("edited", "edited", void_revokes=o.void_edited, void_votes=o.void_edited),
        v.no_elimination("not a player", allowed=False),
        v.names_resolved("C2"),
        v.target_alive("dead target"),
        v.joke("joke"),
    )


def plurality(found: tuple[Pile, ...]) -> Outcome:
    """Section 5 defaults: the most votes; a tie goes to the GM."""
    top = leaders(found)
    if not top:
        return Outcome("none", None, "votes", msg("no votes"))
    votes = top[0].count.votes
    if len(top) > 1:
        tied = tuple(p.count.player for p in top)
        return Outcome("tie", None, "votes", msg("{head}: the GM decides",
                                                 head=tie_between(votes, tied)), tied)
    return Outcome("eliminated", top[0].count.player, "votes", most_votes(votes))


def decide(readings: tuple[Reading, ...], ctx: Context, o: TriggerOptions,
           findings: tuple[Finding, ...]) -> Tally:
    settlement = settle(readings)
    living = ctx.life.living(ctx.cutoff)
    found = piles(settlement, readings)
    absent, quiet = not_voting(ctx, living, settlement, "votes")
    posts = tuple(r.post for r in readings)
    voters = {r.post.id: r.voter for r in readings}
    if posts and posts[0].position == 1:
        last = last_valid_vote(settlement.verdicts) if ctx.day.number == 1 else None
        secret = trigger_findings(judge_triggers(posts, voters, ctx.game, last, until=ctx.as_of))
    else:  # T8: the triggers need the thread from floor 1; the count does not guess them
        secret = (Finding("T8", msg("trigger conditions are judged on the whole thread: run "
                                    "`tally triggers`"), secret=True),) if ctx.game.events_of("trigger") else ()
    return tally(ctx, readings, settlement.verdicts, found, plurality(found), findings + quiet + secret,
                 living, absent)


def last_valid_vote(verdicts: Sequence[Verdict]) -> str | None:
    """The post id of round one's last valid vote: the latest post counted for a player."""
    counted = [x for x in verdicts if x.verdict == "counted" and x.target is not None]
    return max(counted, key=lambda x: (x.position, x.time)).post_id if counted else None


# ---------------------------------------------------------------------------------------------
# Trigger conditions (T1-T7)


@dataclass(frozen=True, slots=True)
class Condition:
    name: str
    kind: str
    effect: str
    event: Event

    def matches(self, post: Post, last_vote: str | None) -> bool:
        """Whether `post` meets the condition by itself (T1: floors are Post.position)."""
        event = self.event
        if self.kind == "floor":
            return post.position == event.floor
        if self.kind == "first_reply":
            return post.position == 2  # the sofa: floor 1 is the opening post
        if self.kind == "last_voter":
            return post.id == last_vote
        if post.position < 2 or post.deleted:
            return False
        if self.kind == "long_reply":
            return len(re.sub(r"\s", "", post.body.own)) > (event.min_chars or 0)
        return re.search(event.pattern or "", post.body.own) is not None


@dataclass(frozen=True, slots=True)
class Met:
    """A condition met: by whom, at which post, and the posts that could not take it."""

    condition: Condition
    post: Post
    player: str
    passed: tuple[str, ...]  # "floor 23 (Dan): the killer's post (T2)", ...
    rule: str  # the rule that decided who took it


@dataclass(frozen=True, slots=True)
class Change:
    """What a trigger did, in thread order: the GM's private note and when to announce it."""

    met: Met
    rule: str
    result: str
    announce: datetime | None  # T6; None for a trigger with no effect


@dataclass(frozen=True, slots=True)
class Judged:
    changes: tuple[Change, ...]
    open: tuple[tuple[Condition, tuple[str, ...]], ...]  # conditions not met, with passed posts
    roles: dict[str, str]  # the substitutes' standing: player -> status
    notes: tuple[Finding, ...]
    zone: str


def conditions(game: Game) -> tuple[Condition, ...]:
    out = []
    for number, event in enumerate(game.events_of("trigger"), start=1):
        kind = str(event.condition)
        name = event.name or f"#{number} {kind}"
        out.append(Condition(name, kind, _effect(event), event))
    return tuple(out)


def _effect(event: Event) -> str:
    return "substitute" if event.effect is None else event.effect


def killers(game: Game) -> frozenset[str]:
    return frozenset(p.name for p in game.players if p.role and normalise(p.role) in KILLER_ROLES)


def _who(post: Post, voter: str | None) -> str:
    return msg("floor {floor} ({player})", floor=post.position, player=voter or post.author)


def find_met(cond: Condition, posts: Sequence[Post], voters: dict[str, str | None], life: Life,
             killer: frozenset[str], last_vote: str | None) -> tuple[Met | None, tuple[str, ...]]:
    """The post that takes the condition. T2: the killer's post passes it to the next post by
    someone else; T3: a dead player's (or a non-player's, or a deleted) post leaves it open:
    a floor condition goes to the next post, a content condition to the next matching post.
    T7: a revival condition is taken by the dead as well, and by the killer."""
    passed: list[str] = []
    rule = "T1"
    following = False  # the next post takes it, whatever it says
    for post in posts:
        if not following and not cond.matches(post, last_vote):
            continue
        voter = voters.get(post.id)
        if voter is None or post.deleted:
            passed.append(msg("{who}: {why}", who=_who(post, voter),
                              why=msg("deleted") if post.deleted else msg("not a player")))
            following = cond.kind in POSITIONAL or following
            continue
        if cond.effect == "revival":
            return Met(cond, post, voter, tuple(passed), "T7"), ()
        if not life.alive(voter, post.created_at):
            passed.append(msg("{who}: a dead player's post does not trigger (T3)",
                              who=_who(post, voter)))
            following, rule = cond.kind in POSITIONAL or following, "T3"
            continue
        if voter in killer:
            passed.append(msg("{who}: the killer's post passes it on (T2)", who=_who(post, voter)))
            following, rule = True, "T2"
            continue
        return Met(cond, post, voter, tuple(passed), rule), ()
    return None, tuple(passed)


def announce_at(at: datetime, zone: str) -> datetime:
    """T6: met 18:00-13:00 (next day): announced at 13:00; met 13:00-18:00: at 18:00."""
    local = times.to_local(at, zone).replace(tzinfo=None)
    day = local.replace(hour=0, minute=0, second=0, microsecond=0)
    if local.hour >= 18:
        shown = day + timedelta(days=1, hours=13)
    elif local.hour >= 13:
        shown = day + timedelta(hours=18)
    else:
        shown = day + timedelta(hours=13)
    return times.localise(shown, zone).utc


def _killer_death(game: Game, killer: frozenset[str], after: datetime,
                  until: datetime | None = None) -> datetime | None:
    """The first moment after `after` (and by `until`) when no original killer is alive (T5)."""
    life = Life(game)
    moments = sorted(e.at for e in game.events_of("death") if e.player in killer and e.at >= after
                     and (until is None or e.at <= until))
    return next((m for m in moments if not any(life.alive(k, m) for k in killer)), None)


def judge_triggers(posts: Sequence[Post], voters: dict[str, str | None], game: Game,
                   last_vote: str | None, until: datetime | None = None) -> Judged:
    """Every condition's taker and effect, applied in thread order (T4 needs the order).

    `until`: the count's as-of point (C6): a condition the GM set later, or a killer's death
    after it, is not applied yet (`posts` are those shown by then)."""
    life, killer, zone = Life(game), killers(game), game.timezone
    notes: list[Finding] = []
    if not killer:
        notes.append(Finding("T2", msg("the game file names no killer (players.role = \"杀手\"): "
                                       "the killer's posts are not passed on"),
                             needs_gm=True, secret=True))
    posts = sorted(posts, key=lambda p: (p.position, p.created_at, p.id))
    found: list[Met] = []
    still_open: list[tuple[Condition, tuple[str, ...]]] = []
    for cond in conditions(game):
        if until is not None and cond.event.at > until:
            continue
        if cond.kind == "last_voter" and last_vote is None:
            still_open.append((cond, (msg("round one's last valid vote is not known yet"),)))
            continue
        met, passed = find_met(cond, posts, voters, life, killer, last_vote)
        if met is None:
            still_open.append((cond, passed))
        else:
            found.append(met)
    found.sort(key=lambda m: (m.post.position, m.condition.event.at))
    status: dict[str, str] = {}  # player -> "substitute" | "promoted" | "civilian"
    since: dict[str, datetime] = {}  # when a waiting substitute was made
    changes: list[Change] = []
    for met in found:
        if met.condition.effect == "revival":
            changes.append(_revival(met, game, life, killer, status))
            continue
        who, at = met.player, met.post.created_at
        if status.get(who) in ("substitute", "promoted"):  # T4
            status[who] = "civilian"
            changes.append(Change(met, "T4", msg("{player} meets a condition again: back to "
                                                 "civilian (T4)", player=who),
                                  announce_at(at, zone)))
        elif killer and not any(life.alive(k, at) for k in killer):  # T5
            status[who] = "promoted"
            changes.append(Change(met, "T5", msg("{player} becomes a substitute killer after the "
                                                 "killer's death: promoted at once (T5)",
                                                 player=who), announce_at(at, zone)))
        else:
            status[who] = "substitute"
            since[who] = at
            changes.append(Change(met, met.rule, msg("{player} becomes a substitute killer",
                                                     player=who),
                                  announce_at(at, zone)))
    for who in [p for p, s in status.items() if s == "substitute"]:  # promoted at the death
        death = _killer_death(game, killer, since[who], until) if killer else None
        if death is not None:
            status[who] = "promoted"
            notes.append(Finding("T5", msg("{player}, substitute killer since {since}, is "
                                           "promoted at the killer's death ({when})", player=who,
                                           since=_local(since[who], zone),
                                           when=_local(death, zone)),
                                 None, who, secret=True))
    return Judged(tuple(changes), tuple(still_open), status, tuple(notes), zone)


def _revival(met: Met, game: Game, life: Life, killer: frozenset[str], status: dict[str, str]) -> Change:
    """T7: the dead come back with the role they died with; the living name a player or die."""
    who, at = met.player, met.post.created_at
    if len(game.players) < REVIVAL_PLAYERS:
        return Change(met, "T7", msg("{player} meets the revival condition, but revival needs "
                                     "{needed} or more players ({players}): no effect", player=who,
                                     needed=REVIVAL_PLAYERS, players=len(game.players)), None)
    orphaned = bool(killer) and not any(life.alive(k, at) for k in killer)
    killing = who in killer or status.get(who) == "promoted" or (
        status.get(who) == "substitute" and orphaned)
    if not life.alive(who, at):
        role = msg("killer") if killing else msg("civilian")
        return Change(met, "T7", msg("{player} (dead) meets the revival condition: comes back as "
                                     "{role}", player=who, role=role),
                      announce_at(at, game.timezone))
    if killing:
        return Change(met, "T7", msg("{player} meets the revival condition as a killer: no naming, "
                                     "kills as usual", player=who), announce_at(at, game.timezone))
    return Change(met, "T7", msg("{player} meets the revival condition alive: may name one player "
                                 "to die next round; names nobody: dies himself", player=who),
                  announce_at(at, game.timezone))


def _local(at: datetime, zone: str) -> str:
    return f"{times.to_local(at, zone):%Y-%m-%d %H:%M}"


def trigger_line(change: Change, zone: str) -> str:
    met = change.met
    head = msg("“{condition}”: {player} at floor {floor} ({when}): {result}",
               condition=met.condition.name, player=met.player, floor=met.post.position,
               when=_local(met.post.created_at, zone), result=change.result)
    if change.announce is not None:
        head = msg("{head}; announce at {when} (T6)", head=head, when=_local(change.announce, zone))
    return msg_clauses(head, *(msg("passed over {who}", who=p) for p in met.passed))


def trigger_findings(judged: Judged) -> tuple[Finding, ...]:
    """T8: every trigger as a secret finding, with no post id (a public render shows nothing)."""
    out = list(judged.notes)
    out += [Finding(c.rule, trigger_line(c, judged.zone), None, c.met.player, secret=True)
            for c in judged.changes]
    out += [Finding("T1", msg_clauses(msg("“{condition}” not met yet", condition=cond.name),
                                      *(msg("passed over {who}", who=p) for p in passed)),
                    secret=True) for cond, passed in judged.open]
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# The preset


def notes(o: TriggerOptions) -> tuple[str, ...]:
    return (
        msg("votes: 投票 X / 投票：X casts, 取消投票 revokes, the last vote counts (section 5 "
            "defaults)"),
        edits_note(o.void_edited),
        msg("a tie: the GM decides"),
        inclusive(o.precision),
    )


@dataclass(frozen=True)
class TriggerPreset(Preset[TriggerOptions]):
    def validate(self, game: Game) -> None:
        """Also: each trigger event names a known condition with the parameters it needs."""
        super().validate(game)
        for event in game.events_of("trigger"):
            where = f"{game.path}:{event.line or '?'}: events: a trigger event"
            kind = event.condition
            if kind not in CONDITIONS:
                raise GameFileError(f"{where} needs condition = one of {', '.join(CONDITIONS)}, "
                                    f"got {kind!r}")
            if _effect(event) not in EFFECTS:
                raise GameFileError(f"{where}: effect is one of {', '.join(EFFECTS)}, "
                                    f"got {event.effect!r}")
            need = {"floor": "floor", "long_reply": "min_chars"}.get(kind)
            number = getattr(event, need) if need else None
            if need and (number is None or number < 1):
                raise GameFileError(f"{where} with condition {kind!r} needs {need} = a whole "
                                    f"number of at least 1, got {number!r}")
            if kind == "regex":
                if not event.pattern:  # an empty pattern would be met by every post
                    raise GameFileError(f"{where} with condition 'regex' needs pattern")
                try:
                    re.compile(event.pattern)
                except re.error as exc:
                    raise GameFileError(f"{where}: bad pattern {event.pattern!r}: {exc}") from None


PRESET = TriggerPreset(name="trigger-cn", syntax=pack("zh"), defaults=TriggerOptions(),
                       validity=validity, decide=decide, notes=notes, event_kinds=EVENT_KINDS,
                       fold=change.fold)

__all__ = ["PRESET", "announce_at", "judge_triggers", "trigger_line"]
