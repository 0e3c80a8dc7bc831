"""Settings every test file shares: no wall-clock time anywhere.

Hypothesis: no per-example deadline. A deadline measures wall-clock time, and on a loaded
2-core machine a fast example can take seconds (issue 17: DeadlineExceeded in test_names.py
and a JV edit-date test); a test's own @settings may still lower max_examples, never restore a
deadline. The too_slow health check is off for the same reason: it times the generation of
examples by the wall clock. Set HYPOTHESIS_PROFILE=dev locally to keep Hypothesis' defaults.
"""

from __future__ import annotations

import os

import pytest
from fakeclock import FakeClock
from hypothesis import HealthCheck, settings

from tally import fetch

settings.register_profile("tally", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("dev")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "tally"))


@pytest.fixture(autouse=True)
def fetcher_clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    """Every Fetcher a test makes without its own clock waits on a fake one: politeness delays
    and backoffs cost no real time, and no result depends on how fast the machine is. (A
    `tally` run in a subprocess keeps the real clock.)"""
    clock = FakeClock()
    monkeypatch.setattr(fetch, "DEFAULT_CLOCK", clock.clock)
    return clock
