"""The order of the night in `espia` (RULES.md E8, rulebook section 7), as far as the count goes.

    Sacerdote > Justiciero > Espías > Tramposo > Alcalde > votes > Psíquico/Agente Doble

A Tramposo or an Alcalde dead before his action has no effect. One who died later the same day
may have been the Justiciero's kill, which resolves before his action: the GM is asked.
"""

from __future__ import annotations

from datetime import datetime

from tally.model import msg
from tally.rules.reading import Context


def dead_before(who: str, at: datetime, ctx: Context) -> str | None:
    """Why an action sent at `at` has no effect because `who` was dead then (None: alive)."""
    died = ctx.life.death(who, at)
    return None if died is None else msg("he was dead at the time (died {when}; E8)",
                                         when=ctx.clock(died))


def justiciero_caveat(who: str, ctx: Context, after: str, action: str) -> str | None:
    """For a role holder who acted and died later that day: the Justiciero may have come first."""
    later = ctx.life.death(who, ctx.cutoff)
    if later is None or later < ctx.day.start:
        return None
    return msg("died at {when}, after {after}: if the Justiciero killed him, {action} has no "
               "effect (section 7)", when=ctx.clock(later), after=after, action=action)
