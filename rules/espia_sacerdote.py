"""The Sacerdote in `espia` (RULES.md E5, rulebook 6.4B and its notes).

A protection claimed in the voting thread spares the most voted if the claimant really is the
Sacerdote (who holds the role is the GM's: every finding here is secret, C5); anyone else who
claims it dies with the most voted (Nota 1). A player protected on the first day of the cycle is
immune to the vote (Nota 2): a GM event.
"""

from __future__ import annotations

import re

from tally.model import Finding, msg
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
        head = msg("post {post}: {player} claims the Sacerdote's protection of {target}",
                   post=post.id, player=who, target=named)
        if not known:
            findings.append(Finding("E5", msg("{head}; the game file names no Sacerdote "
                                              "(players.role): the GM checks the claim", head=head),
                                    post.id, who, needs_gm=True, secret=True))
            if claim.target:
                protected.setdefault(claim.target, msg("claimed protected in post {post}, unchecked",
                                                       post=post.id))
            continue
        if role_of(ctx.game, who) != "sacerdote":
            findings.append(Finding("E5", msg("{head}, but {player} is not the Sacerdote: he dies "
                                              "with the most voted (Nota 1)", head=head, player=who),
                                    post.id, who, needs_gm=True, secret=True))
            continue
        if not ctx.life.alive(who, post.created_at):
            findings.append(Finding("E5", msg("{head}, but the Sacerdote was dead at {when}: no "
                                              "effect", head=head, when=ctx.clock(post.created_at)),
                                    post.id, who, secret=True))
        elif claim.target is None:
            findings.append(Finding("E5", msg("{head}: the name does not point at one player",
                                              head=head), post.id, who, needs_gm=True, secret=True))
        elif used:
            findings.append(Finding("E5", msg("{head}: the Sacerdote saves one player per cycle; "
                                              "the first claim holds", head=head),
                                    post.id, who, needs_gm=True, secret=True))
        else:
            used = True
            protected[claim.target] = msg("protected by the Sacerdote ({player}) in post {post} "
                                          "(6.4B)", player=who, post=post.id)
            findings.append(Finding("E5", msg("{head}: the real Sacerdote", head=head), post.id,
                                    who, secret=True))
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
            immune[event.player] = msg("immune to the vote this cycle (Nota 2)")
        elif event.kind == "sacerdote_protect" and event.target:
            if event.at < ctx.day.start:
                immune[event.target] = msg("protected by the Sacerdote ({player}) on the first day "
                                           "of the cycle: immune to the vote (Nota 2)",
                                           player=event.player or "")
            else:
                findings.append(Finding("E5", msg("the Sacerdote's PM protection of {player} sent "
                                                  "{when}, on the voting day: it guards against "
                                                  "role kills only (6.4A)", player=event.target,
                                                  when=ctx.clock(event.at)),
                                        None, event.target, secret=True))
                continue
        else:
            continue
        who = event.player if event.kind == "immunity" else event.target
        findings.append(Finding("E5", msg("{player}: {why}", player=who or "", why=immune[who or ""]),
                                None, who, secret=True))
    return immune, tuple(findings)

