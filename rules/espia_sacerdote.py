"""The Sacerdote in `espia` (RULES.md E5, rulebook 6.4B and its notes).

A protection claimed in the voting thread spares the most voted if the claimant really is the
Sacerdote (who holds the role is the GM's: every finding here is secret, C5); anyone else who
claims it dies with the most voted (Nota 1). A player protected on the first day of the cycle is
immune to the vote (Nota 2): a GM event.
"""

from __future__ import annotations

import re

from tally.model import Finding
from tally.rules.espia_claims import Claim, claims, holder, role_of
from tally.rules.reading import Context, Reading

# "Protejo a Watson", "protegeré a Watson", "protejo: Watson" (6.4B: "decidiste proteger a").
_PROTECTS = re.compile(r"(?<!\w)(?:protejo|proteger[ée]|protegeremos|decido proteger|"
                       r"decid[íi] proteger)(?:\s+a\b|\s*:)\s*(?P<target>[^\n,.;!?()]+)", re.IGNORECASE)


def protection_claims(readings: tuple[Reading, ...], ctx: Context, precision: str) -> tuple[Claim, ...]:
    """Every protection claimed by a player in the voting thread, in time (E1)."""
    return claims(readings, ctx, precision, _PROTECTS)


def sacerdote_findings(found: tuple[Claim, ...], ctx: Context) -> tuple[dict[str, str], tuple[Finding, ...]]:
    """The GM's side of the claims: who is really protected (player -> why), and the flags.

    All of these findings are secret: they tell who holds which role (C5)."""
    known = holder(ctx.game, "sacerdote") is not None
    protected: dict[str, str] = {}
    findings: list[Finding] = []
    used = False
    for claim in found:
        post, who = claim.post, claim.claimant
        named = claim.target or repr(claim.match.written)
        head = f"post {post.id}: {who} claims the Sacerdote's protection of {named}"
        if not known:
            findings.append(Finding("E5", f"{head}; the game file names no Sacerdote (players.role): "
                                    "the GM checks the claim", post.id, who, needs_gm=True, secret=True))
            if claim.target:
                protected.setdefault(claim.target, f"claimed protected in post {post.id}, unchecked")
            continue
        if role_of(ctx.game, who) != "sacerdote":
            findings.append(Finding("E5", f"{head}, but {who} is not the Sacerdote: he dies with the "
                                    "most voted (Nota 1)", post.id, who, needs_gm=True, secret=True))
            continue
        if not ctx.life.alive(who, post.created_at):
            findings.append(Finding("E5", f"{head}, but the Sacerdote was dead at "
                                    f"{ctx.clock(post.created_at)}: no effect", post.id, who, secret=True))
        elif claim.target is None:
            findings.append(Finding("E5", f"{head}: the name does not point at one player",
                                    post.id, who, needs_gm=True, secret=True))
        elif used:
            findings.append(Finding("E5", f"{head}: the Sacerdote saves one player per cycle; the "
                                    "first claim holds", post.id, who, needs_gm=True, secret=True))
        else:
            used = True
            protected[claim.target] = f"protected by the Sacerdote ({who}) in post {post.id} (6.4B)"
            findings.append(Finding("E5", f"{head}: the real Sacerdote", post.id, who, secret=True))
    return protected, tuple(findings)


def immunities(ctx: Context) -> tuple[dict[str, str], tuple[Finding, ...]]:
    """E5 Nota 2: a player the Sacerdote protected on the first day of the cycle is immune to
    the vote: an `immunity` event (player, day), or a `sacerdote_protect` event (player: the
    Sacerdote, target, day: the voting day) sent before the voting day starts."""
    immune: dict[str, str] = {}
    findings: list[Finding] = []
    for event in ctx.game.events_of("immunity", "sacerdote_protect"):
        if event.day != ctx.day.number or event.at > ctx.as_of:  # C6: not sent yet at the count
            continue
        if event.kind == "immunity" and event.player:
            immune[event.player] = "immune to the vote this cycle (Nota 2)"
        elif event.kind == "sacerdote_protect" and event.target:
            if event.at < ctx.day.start:
                immune[event.target] = (f"protected by the Sacerdote ({event.player}) on the first "
                                        "day of the cycle: immune to the vote (Nota 2)")
            else:
                findings.append(Finding("E5", f"the Sacerdote's PM protection of {event.target} sent "
                                        f"{ctx.clock(event.at)}, on the voting day: it guards against "
                                        "role kills only (6.4A)", None, event.target, secret=True))
                continue
        else:
            continue
        who = event.player if event.kind == "immunity" else event.target
        findings.append(Finding("E5", f"{who}: {immune[who or '']}", None, who, secret=True))
    return immune, tuple(findings)

