"""The `espia` preset: ¿Quién es el Espía? on La Ratonera (RULES.md section 2, E1-E9).

Votes go in the day's voting thread ("Voto a X", "Voto: X", [voto]X[/voto]) and close at 22:00
with the whole minute inclusive (E1, C7). A player's first vote is final: a change voids his vote
and a second change is his death (E3, 8A). The public count is the thread's; the GM's result
(`gm_counts`, `gm_outcome`) adds what only the GM knows: the Tramposo's secret votes (E6), the
roles behind Sacerdote claims (E5) and immunities (E5 Nota 2).

The Alcalde's redirect (E7, E8) is a post in the voting thread, so it is public: the public count
moves every vote to its target. Who really holds the role and the Tramposo's votes in a revealed
Alcalde's lead check are the GM's: the redirect is judged twice, once on public information only
(the public count; "pending the GM" where the secret part may change it) and once with everything
(`gm_counts`, `gm_outcome`).

This module assembles the preset (options, stages, the outcome, E4's non-voters, the notes); each
role has its own module: espia_change (E3), espia_sacerdote (E5), espia_tramposo (E6),
espia_alcalde (E7), espia_priority (E8), and espia_claims for the role claims E5 and E7 share.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from tally.errors import GameFileError
from tally.game import CORE_EVENT_KINDS, Game
from tally.model import Count, Finding, Outcome, OutcomeResult, Tally, msg
from tally.rules import validity as v
from tally.rules.change import settle
from tally.rules.espia_alcalde import (
    redirect_claims,
    redirect_outcome,
    redirect_verdicts,
    redirected,
    redirection,
)
from tally.rules.espia_change import first_vote_stands, voided_by_change
from tally.rules.espia_sacerdote import immunities, protection_claims, sacerdote_findings
from tally.rules.espia_tramposo import tramposo, with_tricks
from tally.rules.outcome import (
    already_dead,
    draw,
    draw_seed,
    drawn,
    most_votes,
    piles,
    tally,
    tie_between,
    tiebreak_note,
)
from tally.rules.preset import Preset
from tally.rules.reading import Context, Reading, Stage
from tally.syntax import pack

# GM events this preset reads (E5, E6, E7). The Tramposo's and the Sacerdote's are GM-only whatever
# their `secret` says; `alcalde_revealed` (player, at: when his role became known) is public.
EVENT_KINDS = CORE_EVENT_KINDS | {"tramposo_add", "tramposo_remove", "sacerdote_protect", "immunity",
                                  "alcalde_revealed"}


@dataclass(frozen=True)
class EspiaOptions:
    precision: str = field(default="minute", metadata={"choices": ("second", "minute")})  # E1, C7
    tiebreak: str = field(default="gm", metadata={"choices": ("gm", "random", "none")})  # E9


def validity(o: EspiaOptions) -> tuple[Stage, ...]:
    return (
        v.late("E1", o.precision),
        v.voter_may_vote("E2", "E2"),
        v.no_elimination("E2", allowed=False),
        v.names_resolved("C2"),
        v.target_alive("E2"),
        v.joke("E2"),
        first_vote_stands("E3", o.precision),  # last: only votes valid otherwise can be a change
    )


# ---------------------------------------------------------------------------------------------
# The outcome (E2, E5, E9)

# player -> (result, why) when the vote spares him
Shield = Callable[[str], tuple[OutcomeResult, str] | None]


def espia_outcome(counts: tuple[Count, ...], ctx: Context, o: EspiaOptions,
                  shield: Shield) -> tuple[Outcome, str | None]:
    """E2: the most voted dies; E9: a tie goes to the option `tiebreak` (default: the GM)."""
    top = [c for c in counts if counts and c.votes == counts[0].votes and c.votes > 0]
    if not top:
        return Outcome("none", None, "E2", msg("no votes")), None
    votes = top[0].votes
    tied = tuple(c.player for c in top) if len(top) > 1 else ()
    seed = None
    chosen, detail, rule = top[0].player, most_votes(votes), "E2"
    if tied:
        head = tie_between(votes, tied)
        if o.tiebreak == "gm":
            return Outcome("tie", None, "E9", msg("{head}: the GM decides", head=head), tied), None
        if o.tiebreak == "none":
            return Outcome("none", None, "E9", msg("{head}: nobody dies (game file)", head=head),
                           tied), None
        seed = draw_seed(ctx)
        chosen, rule = draw(tied, seed), "E9"
        detail = drawn(head, seed, chosen)
    died = ctx.life.death(chosen, ctx.cutoff)
    if died is not None:
        return Outcome("none", None, rule, already_dead(detail, chosen, ctx.clock(died)),
                       tied), seed
    spared = shield(chosen)
    if spared is not None:
        result, why = spared
        return Outcome(result, None, "E5", msg("{player} has {detail}; {why}", player=chosen,
                                               detail=detail, why=why), tied), seed
    return Outcome("eliminated", chosen, rule, detail, tied), seed


def decide(readings: tuple[Reading, ...], ctx: Context, o: EspiaOptions,
           findings: tuple[Finding, ...]) -> Tally:
    settlement = settle(readings)
    living = ctx.life.living(ctx.cutoff)
    absent, quiet = non_voters(readings, ctx, living, settlement.standing)

    said = protection_claims(readings, ctx, o.precision)
    claimed = {c.target: c for c in reversed(said) if c.target}  # the first claim per player

    def public_shield(player: str) -> tuple[OutcomeResult, str] | None:
        claim = claimed.get(player)
        if claim is None:
            return None
        return "undecided", msg("the Sacerdote's protection of {player} is claimed in post "
                                "{post}: the GM announces whether he dies (6.4B)", player=player,
                                post=claim.post.id)

    protected, sacerdote = sacerdote_findings(said, ctx)
    immune, nota2 = immunities(ctx)
    tricks, secret = tramposo(ctx, o.precision)
    # E7: the redirect is a public post, so the public count moves the votes; who holds the
    # role and the Tramposo's votes in the lead check are the GM's (C5): two views.
    redirects = redirect_claims(readings, ctx, o.precision)
    seen = redirection(redirects, readings, ctx, o.precision, (), gm=False)
    told = redirection(redirects, readings, ctx, o.precision, tricks, gm=True)

    def gm_shield(player: str) -> tuple[OutcomeResult, str] | None:
        if player in immune:
            return "none", immune[player]
        why = protected.get(player)
        if why is None:
            return None
        return ("undecided" if why.endswith("unchecked") else "none"), why

    found = piles(redirected(settlement, seen), readings)
    public = tuple(p.count for p in found)
    outcome, seed = espia_outcome(public, ctx, o, public_shield)
    outcome = redirect_outcome(outcome, seen)
    gm_counts = with_tricks(tuple(p.count for p in piles(redirected(settlement, told), readings)), tricks)
    gm_outcome, _ = espia_outcome(gm_counts, ctx, o, gm_shield)
    gm_outcome = redirect_outcome(gm_outcome, told)
    for rule, role, fate in (("Nota 1", "Sacerdote", msg("dies with the most voted")),
                             ("Nota 5", "Alcalde", msg("dies"))):
        fakes = dict.fromkeys(f.player for f in sacerdote + told.findings if rule in f.message and f.player)
        if fakes:
            gm_outcome = replace(gm_outcome, detail=msg(
                "{detail}; {players} posed as the {role}: {fate} ({rule})",
                detail=gm_outcome.detail, players=tuple(p for p in fakes if p), role=role,
                fate=fate, rule=rule))
    verdicts = redirect_verdicts(settlement.verdicts, settlement, readings, seen)
    result = tally(ctx, readings, verdicts, found, outcome,
                   findings + quiet + sacerdote + nota2 + secret + told.findings, living, absent, seed=seed)
    return replace(result, gm_counts=gm_counts, gm_outcome=gm_outcome)


def non_voters(readings: tuple[Reading, ...], ctx: Context, living: tuple[str, ...],
               standing: Mapping[str, object]) -> tuple[tuple[str, ...], tuple[Finding, ...]]:
    """E4 (8C): living players with no vote are expelled unless the GM excused them. A player
    whose vote E3 voided did vote: his case is E3's, not inactivity."""
    changed = {r.voter for r in readings if voided_by_change(r)}
    tried: dict[str, list[str]] = {}
    for r in readings:
        if r.voter and r.steps:
            tried.setdefault(r.voter, []).append(r.post.id)
    missing = tuple(p for p in living if p not in standing and p not in changed)
    findings: list[Finding] = []
    for p in missing:
        void = msg(" (void vote posts: {posts})", posts=tuple(tried[p])) if p in tried else ""
        if p in ctx.game.excused:
            findings.append(Finding("E4", msg("{player} did not vote{void}: excused by the GM (8C)",
                                              player=p, void=void), player=p))
        else:
            findings.append(Finding("E4", msg("{player} did not vote{void}: expelled for inactivity "
                                              "(8C)", player=p, void=void),
                                    player=p, needs_gm=True))
    return missing, tuple(findings)


def notes(o: EspiaOptions) -> tuple[str, ...]:
    tie = tiebreak_note(o.tiebreak, msg("nobody dies (game file)"))
    unit = msg("second") if o.precision == "second" else msg("minute")
    return (
        msg("E1/C7: the deadline {unit} is inclusive (22:00 counts, 22:01 is late)", unit=unit),
        msg("E3: a revoke is a change of vote; repeating the same target is not"),
        msg("E3: an edit is a change only when a saved copy shows a different earlier target; "
            "otherwise the post is taken as it reads and the GM is asked"),
        msg("E9: a tie: {tie}", tie=tie),
        msg("E5: a protection claim on the most voted makes the public result wait for the GM"),
        msg("E6: a Tramposo power used on an earlier day is spent, whether or not it took effect"),
        msg("E7: the Alcalde's redirect is a public post: the public count moves the votes; "
            "whether the claimant holds the role, and a revealed Alcalde's lead counting the "
            "Tramposo's votes (Tip 2), are the GM's: the public result waits for the GM when "
            "either may change it"),
        msg("E7: the window 21:30-21:45 and the 5 minutes between tries are read like E1 (the "
            "minute 21:45 is in); a void try uses one of the two"),
        msg("E7: a tie made by the Alcalde's own vote is one he would lead without his standing "
            "vote"),
        msg("E7: the Tramposo's votes are not moved by a redirect: they stay on their targets in "
            "the GM's count (the rulebook is silent)"),
    )


@dataclass(frozen=True)
class EspiaPreset(Preset[EspiaOptions]):
    def validate(self, game: Game) -> None:
        """Also: the Tramposo adds 1 or 2 votes (E6)."""
        super().validate(game)
        for event in game.events:
            votes = 2 if event.votes is None else event.votes
            if event.kind == "tramposo_add" and votes not in (1, 2):
                raise GameFileError(f"{game.path}:{event.line or '?'}: events: a tramposo_add "
                                    f"event adds 1 or 2 votes, got {votes!r}")


PRESET = EspiaPreset(name="espia", syntax=pack("es"), defaults=EspiaOptions(), validity=validity,
                     decide=decide, notes=notes, event_kinds=EVENT_KINDS,
                     event_needs={"tramposo_add": ("player", "target"),
                                  "tramposo_remove": ("player", "target"),
                                  "immunity": ("player", "day"),
                                  "sacerdote_protect": ("player", "target", "day"),
                                  "alcalde_revealed": ("player",)})
