"""The `mafia-ru` preset: virtual mafia on a Russian Invision forum (RULES.md section 3, R1-R11).

Each game day has its voting thread ("голосилка"); a player leaves one post there, the nick of the
player he votes for, and cannot change it (R2, rule 11). Voting closes at 21:00 with the whole
minute inclusive (R1, C7). The most voted leaves; a tie means nobody leaves (R3).

The public count is the thread's. The GM's result (`gm_counts`, `gm_outcome`) adds what only the
GM knows, from GM events: the Адвокат's and the bonus protection (R4, R8), the Вышибала's blocks
and the Ключник's keys (R5), the Прокурор's extra vote (R6) and the Бомж's controlled vote (R7).
Every finding about them is secret (C5).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta

from tally import times
from tally.game import CORE_EVENT_KINDS, Event, Game
from tally.model import Action, Count, Finding, Outcome, Tally, Thread, msg, msg_clauses, msg_n
from tally.names import normalise
from tally.rules import validity as v
from tally.rules.change import Settlement, settle
from tally.rules.outcome import already_dead, most_votes, piles, tally, tie_between
from tally.rules.preset import Preset
from tally.rules.reading import Context, Reading, Stage, Step, event_day, second_after, void_steps
from tally.syntax import pack

# GM events this preset reads (R4-R8); all of them are GM-only whatever their `secret` says.
EVENT_KINDS = CORE_EVENT_KINDS | {"advocate_protect", "bouncer_block", "keymaster_open",
                                  "prosecutor_vote", "tramp_control", "bonus_protect"}
# What each event needs besides `at` and `kind` (checked by `validate`, with the file's line).
NEEDS = {"advocate_protect": ("target",), "bouncer_block": ("target",), "keymaster_open": ("target",),
         "prosecutor_vote": ("player", "target"), "tramp_control": ("player", "target"),
         "bonus_protect": ("target",)}
DAY_ROLES = ("advocate_protect", "bouncer_block", "keymaster_open", "prosecutor_vote")
DAY_ROLE_HOUR = 14  # rule 7: day roles choose "до 14:00", one minute late is refused
ROLE_NAMES = {"advocate_protect": "Адвокат", "bouncer_block": "Вышибала",
              "keymaster_open": "Ключник", "prosecutor_vote": "Прокурор",
              "tramp_control": "Бомж", "bonus_protect": "bonus"}
PER_TARGET = {"advocate_protect": 2, "bouncer_block": 2, "keymaster_open": 2}  # uses per game


@dataclass(frozen=True)
class MafiaRuOptions:
    precision: str = field(default="minute", metadata={"choices": ("second", "minute")})  # R1, C7
    min_posts: int = field(default=5, metadata={"min": 0})  # R10 (rule 8); 0 turns the check off
    bare_nick: bool = True  # R2: a nick alone on its line is a vote


def validity(o: MafiaRuOptions) -> tuple[Stage, ...]:
    return (
        *((bare_nicks,) if o.bare_nick else ()),
        v.late("R1", o.precision),
        v.voter_may_vote("R2", "R2"),
        v.no_elimination("R3", allowed=False),
        v.names_resolved("C2"),
        v.target_alive("R2"),
        v.joke("R2"),
        first_vote_stands("R2"),  # after the rest: only a vote valid otherwise is "the" post
        edited_votes("R2"),
        self_vote("R9"),
    )


# ---------------------------------------------------------------------------------------------
# R2: the bare-nick convention and one vote post per player


def bare_nicks(readings: tuple[Reading, ...], ctx: Context) -> tuple[tuple[Reading, ...], tuple[Finding, ...]]:
    """R2: the voting thread's post is "the nick of the player he votes for": a line holding only
    a roster name (exact, alias, fuzzy, or a near miss for the GM) is a vote. Only posts with no
    vote words are read this way, and only lines no longer than the longest roster name."""
    longest = max((len(normalise(n).split()) for p in ctx.game.players for n in (p.name, *p.aliases)),
                  default=1)
    out: list[Reading] = []
    for reading in readings:
        if reading.steps or reading.silent or reading.voter is None:
            out.append(reading)
            continue
        actions = tuple(a for line in reading.post.body.own.splitlines()
                        if (a := _nick(line, ctx, longest)) is not None)
        if actions:
            ballot = replace(reading.ballot, actions=actions)
            shown = (msg("time shown: {time}", time=reading.post.time_text),)
            reading = replace(reading, ballot=ballot, steps=tuple(Step(a) for a in actions),
                              evidence=shown + reading.evidence)
        out.append(reading)
    return tuple(out), ()


def _nick(line: str, ctx: Context, longest: int) -> Action | None:
    written = line.strip()
    key = normalise(written)
    if not key or len(key.split()) > longest + 4:
        return None
    match = ctx.extractor.roster.match(written)
    if len(key.split()) > longest and not match.named:  # two nicks ("Алиса или Вова") go to the GM
        return None
    if match.how == "unknown" or (match.how in ("mixed_script", "ambiguous") and match.runner_up is None):
        return None  # prose, not a nick
    return Action("vote", written=written, match=match, text=written)


def first_vote_stands(rule: str) -> Stage:
    """R2 (rule 11): the first vote post stands; every later vote or revoke is void and flagged."""

    def stage(readings: tuple[Reading, ...], ctx: Context) -> tuple[tuple[Reading, ...], tuple[Finding, ...]]:
        first: dict[str, tuple[str, Action]] = {}  # voter -> (post id, the vote that stands)
        out: list[Reading] = []
        findings: list[Finding] = []
        for reading in readings:
            voter = reading.voter
            if voter is None:
                out.append(reading)
                continue
            held = first.get(voter)
            if held is None:
                vote = next((s.action for s in reading.steps
                             if s.void is None and s.action.kind == "vote"), None)
                if vote is None:
                    out.append(reading)
                    continue
                first[voter] = (reading.post.id, vote)
                # a second vote (or a revoke) in the same post is a change too
                cut = _index(reading, vote)
                if any(s.void is None for s in reading.steps[cut + 1:]):
                    steps = reading.steps[:cut + 1] + void_steps(
                        replace(reading, steps=reading.steps[cut + 1:]), rule,
                        msg("the vote cannot be changed (rule 11)")).steps
                    reading = replace(reading, steps=steps)
                    findings.append(Finding(rule, msg("post {post} by {player}: more than one vote "
                                                      "in the post: the first stands (rule 11)",
                                                      post=reading.post.id, player=voter),
                                            reading.post.id, voter))
                out.append(reading)
                continue
            if any(s.void is None for s in reading.steps):
                post_id, vote = held
                reason = msg("second vote post: the vote for {player} in post {post} stands, it "
                             "cannot be changed (rule 11)", player=vote.target or "", post=post_id)
                reading = void_steps(reading, rule, reason)
                findings.append(Finding(rule, msg("post {post} by {player}: {why}",
                                                  post=reading.post.id, player=voter, why=reason),
                                        reading.post.id, voter))
            out.append(reading)
        return tuple(out), tuple(findings)

    return stage


def _index(reading: Reading, action: Action) -> int:
    return next(i for i, s in enumerate(reading.steps) if s.action is action)


def edited_votes(rule: str) -> Stage:
    """R2: the rulebook does not void an edited vote post (default: it counts as it reads), but
    the vote cannot be changed (rule 11): an edit in time by the player is flagged for the GM."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        edit = reading.post.edit
        live = any(s.void is None for s in reading.steps)
        if edit is None or not live or (edit.edited_at is not None and edit.edited_at > ctx.cutoff):
            return reading, ()
        if edit.editor and normalise(edit.editor) in {normalise(s) for s in ctx.game.staff}:
            kept = msg("edited by staff {editor}, kept", editor=edit.editor)
            return replace(reading, remarks=reading.remarks + (kept,)), ()
        note = msg("edited: taken as it reads; the vote cannot be changed (rule 11): the GM checks")
        flagged = replace(reading, evidence=reading.evidence + (msg("edit marker: {marker}",
                                                                    marker=edit.text),),
                          remarks=reading.remarks + (note,))
        return flagged, (Finding(rule, msg("post {post} by {player}: vote post {note}",
                                           post=reading.post.id, player=reading.voter or "",
                                           note=note),
                                 reading.post.id, reading.voter, needs_gm=True),)

    return v.each(check)


def self_vote(rule: str) -> Stage:
    """R9 (rule 10): a vote for oneself is void and means autokill: the GM is told."""

    def check(reading: Reading, ctx: Context) -> tuple[Reading, tuple[Finding, ...]]:
        voter = reading.voter
        if voter is None or not any(s.void is None and s.action.target == voter for s in reading.steps):
            return reading, ()
        reason = msg("a vote for oneself: autokill (rule 10)")
        voided = void_steps(reading, rule, reason, ("vote",), only=lambda a: a.target == voter)
        return voided, (Finding(rule, msg("post {post}: {player} votes for himself: autokill "
                                          "(rule 10)", post=reading.post.id, player=voter),
                                reading.post.id, voter, needs_gm=True),)

    return v.each(check)


# ---------------------------------------------------------------------------------------------
# R4-R8: the GM's events


@dataclass(frozen=True, slots=True)
class Secrets:
    """The day's secret effects that took effect, and a secret finding for every event."""

    shields: dict[str, tuple[str, str]]  # protected player -> (rule, why)
    blocked: dict[str, str]  # voter whose vote is not counted -> why
    extra: tuple[tuple[str, str], ...]  # (target, label) extra votes (R6)
    controlled: dict[str, str]  # Бомж -> the player whose choice his vote follows (R7)
    findings: tuple[Finding, ...]


def day_role_close(ctx: Context) -> datetime:
    """Rule 7: day roles choose by 14:00 on the voting day (the deadline's date), minute inclusive."""
    local = times.to_local(ctx.day.deadline, ctx.game.timezone).replace(tzinfo=None)
    naive = local.replace(hour=DAY_ROLE_HOUR, minute=0, second=0, microsecond=0)
    return times.localise(naive, ctx.game.timezone).utc + timedelta(minutes=1)


def secrets(ctx: Context, precision: str) -> Secrets:
    shields: dict[str, tuple[str, str]] = {}
    blocks: dict[str, Event] = {}
    keys: set[str] = set()
    extra: list[tuple[str, str]] = []
    controlled: dict[str, str] = {}
    findings: list[Finding] = []
    close = day_role_close(ctx)
    for event, why_not in _events(ctx, precision, close):
        role = ROLE_NAMES[event.kind]
        kind, when = event.kind.replace("_", " "), ctx.clock(event.at)
        head = (msg("{role} ({player}): {kind} {target} (at {when})", role=role, player=event.player,
                    kind=kind, target=event.target or "", when=when) if event.player else
                msg("{role}: {kind} {target} (at {when})", role=role, kind=kind,
                    target=event.target or "", when=when))
        rule = _RULE[event.kind]
        if why_not:
            findings.append(Finding(rule, msg("{head}: no effect: {why}", head=head, why=why_not),
                                    None, event.player, needs_gm=True, secret=True))
            continue
        target = event.target or ""
        if event.kind in ("advocate_protect", "bonus_protect"):
            shields.setdefault(target, (rule, msg("protected by the {role} ({player})", role=role,
                                                  player=event.player) if event.player
                                        else msg("protected by the {role}", role=role)))
        elif event.kind == "bouncer_block":
            blocks[target] = event
        elif event.kind == "keymaster_open":
            keys.add(target)
        elif event.kind == "prosecutor_vote":
            extra.append((target, msg("({role} {who})", role="Прокурор", who=event.player)))
        elif event.kind == "tramp_control" and event.player:
            controlled[event.player] = target
        findings.append(Finding(rule, msg("{head}: applied in the GM's count", head=head), None,
                                event.player, secret=True))
    blocked: dict[str, str] = {}
    for target, event in blocks.items():
        if target in keys:
            findings.append(Finding("R5", msg("the Ключник opened the door for {player}: the "
                                              "Вышибала's block is cancelled", player=target),
                                    None, target, secret=True))
        else:
            blocked[target] = (msg("blocked by the Вышибала ({player})", player=event.player)
                               if event.player else msg("blocked by the Вышибала"))
    return Secrets(shields, blocked, tuple(extra), controlled, tuple(findings))


_RULE = {"advocate_protect": "R4", "bouncer_block": "R5", "keymaster_open": "R5",
         "prosecutor_vote": "R6", "tramp_control": "R7", "bonus_protect": "R8"}


def _events(ctx: Context, precision: str, close: datetime) -> Iterator[tuple[Event, str]]:
    """This day's events, each with why it has no effect ("" when it takes effect)."""
    game = ctx.game
    seen: dict[str, int] = {}  # kind -> uses today (prosecutor: one extra vote a day)
    for event in game.events_of(*NEEDS):
        if event_day(event, game, precision) != ctx.day.number or event.at > ctx.as_of:
            continue  # C6: an action counts from its own time, not before
        why = ""
        died = ctx.life.death(event.player, event.at) if event.player else None
        if died is not None:
            why = msg("{player} was dead at the time (died {when})", player=event.player or "",
                      when=ctx.clock(died))
        elif event.kind in DAY_ROLES and event.at >= close:
            why = msg("after {hour}:00 (rule 7: one minute late is refused)", hour=DAY_ROLE_HOUR)
        elif event.kind in PER_TARGET and _earlier_uses(event, game, precision, ctx.day.number) >= 2:
            why = msg("{player} was already picked twice this game (at most twice)",
                      player=event.target or "")
        elif event.kind == "bonus_protect" and _earlier_uses(event, game, precision, ctx.day.number,
                                                               any_target=True):
            why = msg("the bonus is one per game and was used on an earlier day")
        elif event.kind in ("prosecutor_vote", "bonus_protect") and seen.get(event.kind):
            why = msg("one a day: the first holds")
        seen[event.kind] = seen.get(event.kind, 0) + (not why)
        yield event, why


def _earlier_uses(event: Event, game: Game, precision: str, day: int, any_target: bool = False) -> int:
    return sum(1 for e in game.events_of(event.kind)
               if (any_target or e.target == event.target)
               and (d := event_day(e, game, precision)) is not None and d < day)


def gm_counts(settlement: Settlement, readings: tuple[Reading, ...], counts: tuple[Count, ...],
              hidden: Secrets, ctx: Context) -> tuple[tuple[Count, ...], tuple[Finding, ...]]:
    """The public standing votes with R5 (blocks), R7 (Бомж) and R6 (Прокурор) applied."""
    rows: dict[str, list[tuple[str, str]]] = {c.player: [] for c in counts}  # public order first
    findings: list[Finding] = []
    for voter, vote in sorted(settlement.standing.items(), key=lambda item: item[1].index):
        post = readings[vote.index].post.id
        target, label = vote.target, voter
        if voter in hidden.blocked:
            findings.append(Finding("R5", msg("{player} is {why}: his vote for {target} (post "
                                              "{post}) is not counted", player=voter,
                                              why=hidden.blocked[voter], target=target, post=post),
                                    post, voter, secret=True))
            continue
        if voter in hidden.controlled:
            followed, label = _follow(voter, hidden.controlled[voter], settlement, findings)
            target = followed or target
        rows.setdefault(target, []).append((label, post))
    for tramp, boss in hidden.controlled.items():  # a Бомж who did not post still votes (R7)
        if tramp not in settlement.standing and tramp not in hidden.blocked and ctx.life.alive(tramp, ctx.cutoff):
            followed, label = _follow(tramp, boss, settlement, findings)
            if followed is not None:
                rows.setdefault(followed, []).append((label, ""))
    for target, label in hidden.extra:
        rows.setdefault(target, []).append((label, ""))
    out = [Count(t, len(r), tuple(lbl for lbl, _ in r), tuple(p for _, p in r)) for t, r in rows.items() if r]
    out.sort(key=lambda c: -c.votes)  # stable: the public order among equals
    return tuple(out), tuple(findings)


def _follow(tramp: str, boss: str, settlement: Settlement,
            findings: list[Finding]) -> tuple[str | None, str]:
    """R7: the target the Бомж's vote goes to (None: no order known, his own vote stands)."""
    order = settlement.standing.get(boss)
    if order is None:
        findings.append(Finding("R7", msg("Бомж {player} follows {boss}, who has no standing vote: "
                                          "the GM gives the order", player=tramp, boss=boss),
                                None, tramp, needs_gm=True, secret=True))
        return None, tramp
    findings.append(Finding("R7", msg("Бомж {player}'s vote follows {boss}: {target}", player=tramp,
                                      boss=boss, target=order.target), None, tramp, secret=True))
    return order.target, f"{tramp} (Бомж, as {boss})"


# ---------------------------------------------------------------------------------------------
# R3, R4, R8: the outcome


def mafia_outcome(counts: tuple[Count, ...], ctx: Context,
                  shields: dict[str, tuple[str, str]]) -> Outcome:
    """R3: the most voted leaves, a tie means nobody leaves. R4/R8: a protected leader is passed
    over: the next most voted leaves (in a tie with a protected player, the other leaves)."""
    top = [c for c in counts if c.votes > 0 and c.votes == counts[0].votes]
    if not top:
        return Outcome("none", None, "R3", msg("no votes"))
    tied = tuple(c.player for c in top) if len(top) > 1 else ()
    head = (tie_between(top[0].votes, tied) if tied
            else msg("{player} has most votes ({votes})", player=top[0].player,
                     votes=top[0].votes))
    guarded = [c.player for c in top if c.player in shields]
    rule = "R3"
    if guarded:
        rule = shields[guarded[0]][0]
        why = msg_clauses(*(msg("{player} is {why}", player=p, why=shields[p][1])
                            for p in guarded))
        rest = tuple(c for c in counts if c.player not in shields)
        nxt = [c for c in rest if c.votes > 0 and c.votes == rest[0].votes] if rest else []
        if not nxt:
            return Outcome("none", None, rule, msg("{head}; {why}; nobody else has votes",
                                                   head=head, why=why), tied)
        if len(nxt) > 1:
            names = tuple(c.player for c in nxt)
            return Outcome("none", None, rule, msg("{head}; {why}; next: {tie}: nobody leaves",
                                                   head=head, why=why,
                                                   tie=tie_between(nxt[0].votes, names)), tied)
        chosen, detail = nxt[0].player, msg("{head}; {why}: the next most voted leaves ({votes})",
                                            head=head, why=why, votes=nxt[0].votes)
    elif tied:
        return Outcome("none", None, "R3", msg("{head}: nobody leaves", head=head), tied)
    else:
        chosen, detail = top[0].player, most_votes(top[0].votes)
    died = ctx.life.death(chosen, ctx.cutoff)
    if died is not None:
        return Outcome("none", None, rule, already_dead(detail, chosen, ctx.clock(died)), tied)
    return Outcome("eliminated", chosen, rule, detail, tied)


# ---------------------------------------------------------------------------------------------
# R9-R11: the flags


def non_voters(readings: tuple[Reading, ...], ctx: Context, living: tuple[str, ...],
               settlement: Settlement) -> tuple[tuple[str, ...], tuple[Finding, ...]]:
    """R9 (rule 9): a living player with no vote in force is autokilled unless excused."""
    tried: dict[str, list[str]] = {}
    for r in readings:
        if r.voter and r.steps:
            tried.setdefault(r.voter, []).append(r.post.id)
    missing = tuple(p for p in living if p not in settlement.standing)
    findings: list[Finding] = []
    for p in missing:
        void = msg(" (void vote posts: {posts})", posts=tuple(tried[p])) if p in tried else ""
        if p in ctx.game.excused:
            findings.append(Finding("R9", msg("{player} did not vote{void}: excused by the GM",
                                              player=p, void=void), player=p))
        else:
            findings.append(Finding("R9", msg("{player} did not vote{void}: autokill (rule 9)",
                                              player=p, void=void), player=p, needs_gm=True))
    return missing, tuple(findings)


def activity(readings: tuple[Reading, ...], others: tuple[Thread, ...], ctx: Context,
             o: MafiaRuOptions) -> tuple[Finding, ...]:
    """R10 (rule 8): each living player's posts in the game day (22:00-21:00) across the game
    threads: this one and the game file's other `threads` when they were read (`others`, see
    rules.preset); a vote post counts as one. Fewer than `min_posts` is an autoban unless
    excused. A post of another thread counts for the player its author is (roster, C2). A post
    the moderators deleted or hid (flood) is not a "meaningful" post and does not count."""
    if o.min_posts == 0:
        return ()
    late = second_after(ctx.day.deadline, o.precision)
    living = ctx.life.living(ctx.cutoff)
    here: dict[str, int] = {p: 0 for p in living}
    there: dict[str, int] = {p: 0 for p in living}
    for r in readings:
        if r.voter in here and not r.post.deleted and ctx.day.start <= r.post.created_at < late:
            here[r.voter] += 1
    for thread in others:
        for post in thread.posts:
            author = ctx.extractor.roster.voter(post.author, post.author_id, post.created_at)
            if author in there and not post.deleted and ctx.day.start <= post.created_at < late:
                there[author] += 1
    findings: list[Finding] = []
    for player in living:
        n = here[player] + there[player]
        if n >= o.min_posts:
            continue
        if others:
            where = msg_n("{n} post in the game day across {threads} game threads (this thread "
                          "{here}, the others {there})",
                          "{n} posts in the game day across {threads} game threads (this thread "
                          "{here}, the others {there})", n=n, threads=len(others) + 1,
                          here=here[player], there=there[player])
            tail = msg("autoban (rule 8)")
        else:
            where = msg_n("{n} post in this thread in the game day",
                          "{n} posts in this thread in the game day", n=n)
            tail = msg("autoban unless the other game threads make up the rest (rule 8)")
        head = msg("{player}: {where}, fewer than {min}", player=player, where=where,
                   min=o.min_posts)
        if player in ctx.game.excused:
            findings.append(Finding("R10", msg("{head}: excused by the GM", head=head),
                                    player=player))
        else:
            findings.append(Finding("R10", msg("{head}: {tail}", head=head, tail=tail),
                                    player=player, needs_gm=True))
    return tuple(findings)


def dead_posts(readings: tuple[Reading, ...], ctx: Context) -> tuple[Finding, ...]:
    """R11 (rule 4): a dead player may write one post; every later one is flagged."""
    seen: set[tuple[str, datetime]] = set()
    findings: list[Finding] = []
    for r in readings:
        if r.voter is None:
            continue
        died = ctx.life.death(r.voter, r.post.created_at)
        if died is None:
            continue
        if (r.voter, died) not in seen:
            seen.add((r.voter, died))
            continue
        findings.append(Finding("R11", msg("post {post} by {player}, dead since {when}: a dead "
                                           "player may write only 1 post (rule 4): ban for 24 "
                                           "hours", post=r.post.id, player=r.voter,
                                           when=ctx.clock(died)),
                                r.post.id, r.voter, needs_gm=True))
    return tuple(findings)


# ---------------------------------------------------------------------------------------------
# The count


def decide(readings: tuple[Reading, ...], ctx: Context, o: MafiaRuOptions,
           findings: tuple[Finding, ...]) -> Tally:
    settlement = settle(readings)
    living = ctx.life.living(ctx.cutoff)
    found = piles(settlement, readings)
    public = tuple(p.count for p in found)
    absent, quiet = non_voters(readings, ctx, living, settlement)
    outcome = mafia_outcome(public, ctx, {})
    hidden = secrets(ctx, o.precision)
    counted, applied = gm_counts(settlement, readings, public, hidden, ctx)
    gm_outcome = mafia_outcome(counted, ctx, hidden.shields)
    flags = quiet + dead_posts(readings, ctx)  # R10: the preset's activity stage, after this
    result = tally(ctx, readings, settlement.verdicts, found, outcome,
                   findings + flags + hidden.findings + applied, living, absent)
    return replace(result, gm_counts=counted, gm_outcome=gm_outcome)


def notes(o: MafiaRuOptions) -> tuple[str, ...]:
    unit = msg("second") if o.precision == "second" else msg("minute")
    first = msg("R2: the first vote post stands; a later vote or revoke is void (rule 11)")
    return (
        msg("R1/C7: the deadline {unit} is inclusive (21:00 counts, 21:01 is late)", unit=unit),
        msg_clauses(first, msg("a nick alone on its line is a vote")) if o.bare_nick else first,
        msg("R2: an edited vote post counts as it reads (the rulebook is silent) and is flagged"),
        msg("R3: a tie means nobody leaves"),
        msg("R4/R5/R6: day roles choose by 14:00, the minute inclusive (rule 7)"),
        # min_posts = 0 turns R10 off (activity returns nothing): "fewer than 0" would be nonsense
        msg("R10: posts are counted in this thread and the game file's other threads when they "
            "are read (fewer than {n} flagged); without them, in this thread only", n=o.min_posts)
        if o.min_posts else msg("R10: the post count is off (min_posts = 0): nobody is flagged "
                                "for too few posts"),
        msg("R11: only the posts of this day are seen: a dead player's one post may be earlier"),
    )


PRESET = Preset(name="mafia-ru", syntax=pack("ru"), defaults=MafiaRuOptions(),
                validity=validity, decide=decide, notes=notes, event_kinds=EVENT_KINDS,
                event_needs=NEEDS, activity=activity)
