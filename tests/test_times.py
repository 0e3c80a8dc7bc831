"""The one time module: localisation with DST reported, game times, month names."""

from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tally import times
from tally.errors import InputError


def test_localise_plain_time_converts_to_utc():
    got = times.localise(datetime(2016, 1, 17, 22, 0), "Europe/Madrid")
    assert got.utc == datetime(2016, 1, 17, 21, 0, tzinfo=UTC)
    assert got.note is None


def test_localise_overlap_reads_first_occurrence_and_says_so():
    got = times.localise(datetime(2026, 10, 25, 2, 30), "Europe/Madrid")
    assert got.utc == datetime(2026, 10, 25, 0, 30, tzinfo=UTC)
    assert got.note == ("2026-10-25 02:30:00 happens twice in Europe/Madrid (DST ends); "
                        "read as the first, UTC+02:00")


def test_localise_gap_uses_offset_before_change_and_says_so():
    got = times.localise(datetime(2026, 3, 29, 2, 30), "Europe/Madrid")
    assert got.utc == datetime(2026, 3, 29, 1, 30, tzinfo=UTC)
    assert "does not exist in Europe/Madrid (DST gap)" in (got.note or "")


def test_game_time_wall_and_iso_forms():
    assert times.parse_game_time("2016-01-18 02:59:59", "UTC").utc == datetime(
        2016, 1, 18, 2, 59, 59, tzinfo=UTC)
    assert times.parse_game_time("2016-01-17T22:00:00+01:00", "Asia/Shanghai").utc == datetime(
        2016, 1, 17, 21, 0, tzinfo=UTC)
    assert times.parse_game_time("2016-01-17 22:00", "Europe/Moscow").utc == datetime(
        2016, 1, 17, 19, 0, tzinfo=UTC)


def test_game_time_rejects_nonsense_with_the_form_to_use():
    with pytest.raises(InputError, match=r"cannot read the time 'tomorrow'.*YYYY-MM-DD HH:MM"):
        times.parse_game_time("tomorrow", "UTC")


def test_unknown_zone_is_a_clear_error():
    with pytest.raises(InputError, match="unknown time zone 'Mars/Olympus'"):
        times.zone("Mars/Olympus")


def test_now_can_be_pinned_for_replays(monkeypatch):
    monkeypatch.setenv("TALLY_NOW", "2016-01-18T03:00:00Z")
    assert times.now() == datetime(2016, 1, 18, 3, 0, tzinfo=UTC)


@given(st.datetimes(min_value=datetime(2015, 1, 1), max_value=datetime(2027, 12, 31)),
       st.sampled_from(["Europe/Paris", "Europe/Moscow", "America/Santiago",
                        "Australia/Lord_Howe", "Asia/Shanghai", "UTC"]))
def test_the_hour_cache_localises_as_the_long_way(naive: datetime, zone_name: str) -> None:
    """localise's per-hour cache gives what the full fold check gives, note included:
    DST gaps and overlaps (and Lord Howe's half-hour change) never take the cached path."""
    assert times.localise(naive, zone_name) == times._localise(naive, zone_name)
