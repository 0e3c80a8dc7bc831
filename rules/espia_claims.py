"""Role claims in the `espia` voting thread: the Sacerdote's protection (E5) and the Alcalde's
redirect (E7) are posts, so anyone can write one; who really holds the role is the GM's (C5).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tally.game import Game
from tally.model import NameMatch, Post
from tally.names import normalise
from tally.rules.reading import Context, Reading, second_after


@dataclass(frozen=True, slots=True)
class Claim:
    post: Post
    claimant: str
    match: NameMatch
    index: int  # into the readings

    @property
    def target(self) -> str | None:
        return self.match.player


def claims(readings: tuple[Reading, ...], ctx: Context, precision: str,
           pattern: re.Pattern[str]) -> tuple[Claim, ...]:
    """Claims of a role's power (`pattern`: the Sacerdote's protection, the Alcalde's redirect)
    by players in the voting thread, in time (E1), in thread order."""
    late = second_after(ctx.day.deadline, precision)
    out: list[Claim] = []
    for index, reading in enumerate(readings):
        post = reading.post
        if reading.voter is None or reading.silent or post.created_at >= late:
            continue
        for m in pattern.finditer(post.body.own):  # own text only: a quote claims nothing (C1)
            match = ctx.extractor.roster.match(m.group("target"))
            if match.how == "unknown" or (match.how == "mixed_script" and match.runner_up is None):
                continue  # "protejo a mi familia": prose, no player named (as extract's loose form)
            out.append(Claim(post, reading.voter, match, index))
    return tuple(out)


def role_of(game: Game, player: str) -> str | None:
    """The player's role from the game file (GM-only), normalised: "sacerdote", "alcalde"."""
    found = game.player(player)
    return normalise(found.role) if found and found.role else None


def holder(game: Game, role: str) -> str | None:
    """The first player the game file gives `role` (normalised), or None."""
    return next((p.name for p in game.players if role_of(game, p.name) == role), None)
