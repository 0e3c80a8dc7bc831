"""The one place that knows about time zones, DST and "now" (DESIGN.md "Time").

Engine parsers turn the text a page shows into a *naive local* datetime (with tally.adapters.dates,
which holds the month, weekday and relative words of every language); `localise` then attaches the forum's IANA zone and
converts to UTC, reporting DST gaps and overlaps instead of guessing silently. Every other module
works with aware UTC datetimes only.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from tally.errors import InputError
from tally.model import msg

UTC = UTC


def now() -> datetime:
    """The current time, aware UTC. `TALLY_NOW` (ISO 8601) pins it for tests and replays."""
    pinned = os.environ.get("TALLY_NOW")
    if pinned:
        try:
            return parse_iso(pinned)
        except InputError as exc:  # name the variable: the command line shows no such time
            raise InputError(f"TALLY_NOW: {exc} (e.g. TALLY_NOW=2026-01-15T11:00:00+01:00)") \
                from None
    return datetime.now(UTC)


@lru_cache(maxsize=64)
def zone(name: str) -> ZoneInfo:
    """The IANA zone `name`, or a clear error."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise InputError(f"unknown time zone {name!r} (use an IANA name such as Europe/Madrid)") from exc


@dataclass(frozen=True, slots=True)
class Localised:
    utc: datetime
    note: str | None = None  # set when the local time fell in a DST gap or overlap


def localise(naive: datetime, zone_name: str) -> Localised:
    """Attach `zone_name` to a naive local time and convert to UTC.

    A time in a DST overlap (shown twice, e.g. 02:30 on the night clocks go back) is read as the
    first occurrence; a time in a DST gap (never shown by a correct clock) is read with the offset
    in force before the gap. Both choices are reported in the note so the audit can show them.
    """
    if naive.tzinfo is not None:
        return Localised(naive.astimezone(UTC))
    hour = _plain_hour(zone_name, naive.year, naive.month, naive.day, naive.hour)
    if hour is not None:  # the common case: two subtractions, no zone lookups
        start, utc_start = hour
        return Localised(utc_start + (naive - start))
    return _localise(naive, zone_name)


@lru_cache(maxsize=8192)
def _plain_hour(zone_name: str, year: int, month: int, day: int,
                hour: int) -> tuple[datetime, datetime] | None:
    """The wall-clock hour's start and that instant in UTC, when the zone keeps one offset
    through the whole hour; None when the hour holds a DST change, a gap or an overlap (those
    go the long way, with their note). Zones change offset at most once an hour, so equal
    offsets at both ends hold in between; a thread's posts share few hours. Keyed by numbers:
    building the hour's datetime for every post cost more than the rest of `localise`."""
    start = datetime(year, month, day, hour)
    end = datetime(year, month, day, hour, 59, 59, 999999)
    first, last = _localise(start, zone_name), _localise(end, zone_name)
    if first.note or last.note:
        return None
    offset = start - first.utc.replace(tzinfo=None)
    return (start, first.utc) if offset == end - last.utc.replace(tzinfo=None) else None


def _localise(naive: datetime, zone_name: str) -> Localised:
    tz = zone(zone_name)
    first = naive.replace(tzinfo=tz, fold=0)
    second = naive.replace(tzinfo=tz, fold=1)
    off0, off1 = first.utcoffset(), second.utcoffset()
    if off0 == off1:
        return Localised(first.astimezone(UTC))
    # fold=0 and fold=1 disagree: the wall time is either repeated (overlap) or skipped (gap).
    # A wall time that survives a round trip through UTC exists; in a gap neither fold does.
    exists = first.astimezone(UTC).astimezone(tz).replace(tzinfo=None) == naive
    if exists:
        note = msg("{time} happens twice in {zone} (DST ends); read as the first, UTC{offset}",
                   time=naive.strftime("%Y-%m-%d %H:%M:%S"), zone=zone_name,
                   offset=_fmt_offset(off0))
        return Localised(first.astimezone(UTC), note)
    note = msg("{time} does not exist in {zone} (DST gap); read with the offset before the "
               "change, UTC{offset}", time=naive.strftime("%Y-%m-%d %H:%M:%S"), zone=zone_name,
               offset=_fmt_offset(off0))
    return Localised(first.astimezone(UTC), note)


def _fmt_offset(offset: timedelta | None) -> str:
    minutes = int((offset or timedelta()).total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def to_local(utc: datetime, zone_name: str) -> datetime:
    """An aware UTC datetime as wall time in `zone_name` (aware)."""
    return utc.astimezone(zone(zone_name))


def format_local(utc: datetime, zone_name: str, pattern: str, locale: str) -> str:
    """`utc` on the forum's clock, written with a CLDR pattern in `locale`'s own words (Babel):
    "EEE d MMM, HH:mm" in es is "sáb 21 nov, 22:00". The pattern comes from the output
    language's catalogue (tally.render.i18n), so a language brings its own date style."""
    from babel.dates import format_datetime

    return format_datetime(to_local(utc, zone_name), pattern, locale=locale)


def zone_abbreviation(utc: datetime, zone_name: str) -> str:
    """The zone's short name at that moment (CET, MSK), or the IANA name when it has none."""
    return to_local(utc, zone_name).tzname() or zone_name


def offset_text(offset: timedelta) -> str:
    """An offset as forums state it: "UTC-03:00", "UTC+05:30", "UTC"."""
    if not offset:
        return "UTC"
    minutes = int(offset.total_seconds() // 60)
    sign = "-" if minutes < 0 else "+"
    return f"UTC{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def zones_at_offset(offset: timedelta, at: datetime) -> list[tuple[str, tuple[str, ...]]]:
    """Every zone of the tz database's zone1970.tab (one per region whose clocks have agreed
    since 1970) that is `offset` from UTC at `at`, with its countries, in the table's order."""
    found = []
    for name, countries in _zone_table():
        try:
            if zone(name).utcoffset(at) == offset:
                found.append((name, countries))
        except InputError:
            continue  # listed by a newer table than this Python's zone data
    return found


@lru_cache(maxsize=1)
def _zone_table() -> tuple[tuple[str, tuple[str, ...]], ...]:
    from importlib import resources

    try:
        text = (resources.files("tzdata") / "zoneinfo" / "zone1970.tab").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError):  # the system's copy of the same table
        with open("/usr/share/zoneinfo/zone1970.tab", encoding="utf-8") as table:
            text = table.read()
    rows = []
    for line in text.splitlines():
        if line and not line.startswith("#"):
            codes, _, name = line.split("\t")[:3]
            rows.append((name, tuple(codes.split(","))))
    return tuple(rows)


def local_now(fetched_at: datetime, zone_name: str) -> datetime:
    """The fetch time as a naive wall time in the forum's zone: the anchor of relative dates."""
    return to_local(fetched_at, zone_name).replace(tzinfo=None)


def parse_iso(text: str) -> datetime:
    """A machine-readable ISO 8601 time with offset (or Z) as aware UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise InputError(f"not an ISO 8601 time: {text!r}") from exc
    if value.tzinfo is None:
        raise InputError(f"ISO 8601 time without an offset: {text!r}")
    return value.astimezone(UTC)


def from_unix(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, UTC)


def parse_game_time(text: str, zone_name: str) -> Localised:
    """A time from the game file: ISO 8601 with an offset, or a wall time in the game's zone."""
    raw = str(text).strip()
    try:
        value = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise InputError(
            f"cannot read the time {raw!r}: use 'YYYY-MM-DD HH:MM[:SS]' or ISO 8601 with an offset"
        ) from None
    if value.tzinfo is not None:
        return Localised(value.astimezone(UTC))
    return localise(value, zone_name)
