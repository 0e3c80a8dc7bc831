"""A preset: a named composition of rule policies in fixed stages, plus typed options (STYLE.md).

    extract -> validity -> change policy -> count -> threshold -> tiebreak -> outcome

`extract` is done before the preset (tally.extract builds the Ballots) except for the C6 step
that swaps in the text a post had at the deadline (rules.reading.as_at). Each validity policy is
a pure function `(readings, ctx) -> (readings, findings)`; the change policy (rules.change) and
the count are shared; a preset's own module supplies the outcome stage (threshold, tiebreak,
outcome), which may also end the day early (the hammer, C3) by truncating the readings.

Options are a frozen dataclass per preset; the game file's `[rules]` table overrides the defaults
and `validate` rejects unknown keys and ill-typed values with the game file's line.

A preset that counts posts across the game's threads (R10: activity "across the game threads")
adds an `activity` stage: it runs after the outcome on the day's readings and on the game's other
threads (the game file's `threads`, each cut to the day's window by tally.engine), and its
findings are added to the Tally. The other threads are only read for such a preset; every other
preset is unchanged.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Generic, TypeVar

from tally.errors import GameFileError
from tally.game import CORE_EVENT_KINDS, Day, Game, VoteSyntax
from tally.model import Finding, Post, Tally, Thread
from tally.rules.change import Tallying
from tally.rules.reading import Context, Reading, Stage, as_at, readings_of
from tally.syntax import grammar_notes

Opts = TypeVar("Opts")

# The stage a preset adds after the shared ones: (readings, ctx, options) -> Tally.
Decide = Callable[[tuple[Reading, ...], Context, Any, tuple[Finding, ...]], Tally]
# The standing votes after one more reading: (state, index of the reading, reading, ctx) -> state.
Fold = Callable[[Tallying, int, Reading, Context], Tallying]
# A flag stage over the day's readings and the game's other threads, in the day's window:
# (readings, others, ctx, options) -> findings. The other threads are never judged as votes.
Activity = Callable[[tuple[Reading, ...], tuple[Thread, ...], Context, Any], tuple[Finding, ...]]


@dataclass(frozen=True)
class Preset(Generic[Opts]):
    """A named list of policies with typed options. `judge` is pure: same input, same Tally."""

    name: str
    syntax: VoteSyntax
    defaults: Opts
    validity: Callable[[Opts], tuple[Stage, ...]]  # the validity stage, in order, for these options
    decide: Decide  # change policy, count, threshold, tiebreak and outcome (see rules.outcome)
    notes: Callable[[Opts], tuple[str, ...]]  # what the preset assumes where the rulebook is silent
    event_kinds: frozenset[str] = field(default=CORE_EVENT_KINDS)
    # What each of the preset's events needs besides `at` and `kind` ("target", "day", ...).
    event_needs: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    activity: Activity | None = None  # reads the game's other threads too (R10)
    # The count one post at a time, for the votes-over-time chart (tally.timeline): only for a
    # preset whose validity stages judge each post on its own (rules.validity.Each), whose count
    # is this fold over the readings, and which has no secret effects. None: the chart judges
    # the window again at every moment.
    fold: Fold | None = None

    @property
    def language(self) -> str:
        """The home language of the preset's boards: what its counts are written in unless the
        game file says `language` (issue 14). It is the language its votes are written in."""
        return self.syntax.language or "en"

    @property
    def reads_other_threads(self) -> bool:
        """Whether a count needs the game file's other `threads` (so the CLI reads them)."""
        return self.activity is not None

    # -- the game file ---------------------------------------------------------------------
    def options(self, game: Game) -> Opts:
        """The defaults with the game file's [rules] table on top (checked, typed)."""
        return read_options(self.name, self.defaults, game)

    def validate(self, game: Game) -> None:
        """GameFileError (file:line) for an unknown event kind, an unknown/ill-typed option, or
        an event without a field the preset needs (`event_needs`)."""
        for event in game.events:
            if event.kind not in self.event_kinds:
                known = ", ".join(sorted(self.event_kinds))
                raise GameFileError(f"{game.path}:{event.line or '?'}: events: unknown event kind "
                                    f"{event.kind!r} for preset {self.name} (known: {known})")
        self.options(game)
        for event in game.events:
            for key in self.event_needs.get(event.kind, ()):
                if getattr(event, key) is None:
                    raise GameFileError(f"{game.path}:{event.line or '?'}: events: a {event.kind} "
                                        f"event needs {key!r}")

    # -- the count ---------------------------------------------------------------------------
    def context(self, game: Game, day: Day, as_of: datetime,
                history: Mapping[str, tuple[Post, ...]], options: Opts) -> Context:
        """What every stage reads beside the readings: the game, the day, the as-of point, the
        saved copies (C6) and the notes on the preset's defaults for the GM report."""
        notes = self.notes(options) + grammar_notes(game.votes.language or self.syntax.language)
        return Context(game=game, day=day, as_of=as_of, history=history, preset=self.name,
                       syntax=self.syntax, notes=notes)

    def judge(self, ballots: Sequence[Any], game: Game, day: Day, as_of: datetime,
              history: Mapping[str, tuple[Post, ...]], others: Sequence[Thread] = ()) -> Tally:
        """`others`: the game's other threads, cut to the day's window; only `activity` reads
        them, and a preset without one ignores them."""
        options = self.options(game)
        ctx = self.context(game, day, as_of, history, options)
        readings, findings = as_at(readings_of(ballots, game), ctx)
        for stage in self.validity(options):
            readings, found = stage(readings, ctx)
            findings += found
        result = self.decide(readings, ctx, options, findings)
        if self.activity is None:
            return result
        flags = self.activity(readings, tuple(others), ctx, options)
        return dataclasses.replace(result, findings=result.findings + flags)


# ---------------------------------------------------------------------------------------------
# Options from the game file's [rules] table


def read_options(preset: str, defaults: Opts, game: Game) -> Opts:
    known = {f.name: f for f in dataclasses.fields(defaults)}  # type: ignore[arg-type]
    changes: dict[str, Any] = {}
    for key, value in sorted(game.options.items()):
        where = f"{game.path}:{game.lines.get(f'rules.{key}', '?')}: rules.{key}"
        if key not in known:
            raise GameFileError(f"{where}: unknown option for preset {preset} "
                                f"(known: {', '.join(sorted(known))})")
        changes[key] = _typed(where, value, getattr(defaults, key), known[key].metadata)
    return dataclasses.replace(defaults, **changes)  # type: ignore[type-var]


def _typed(where: str, value: Any, default: Any, metadata: Mapping[str, Any]) -> Any:
    kind = type(default)
    ok = isinstance(value, kind) and not (kind is int and isinstance(value, bool))
    if not ok:
        raise GameFileError(f"{where}: expected {kind.__name__}, got {value!r}")
    choices = metadata.get("choices")
    if choices and value not in choices:
        raise GameFileError(f"{where}: expected one of {', '.join(choices)}, got {value!r}")
    minimum = metadata.get("min")
    if minimum is not None and value < minimum:
        raise GameFileError(f"{where}: expected at least {minimum}, got {value!r}")
    return value
