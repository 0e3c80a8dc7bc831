"""A clock for tests: time moves only when someone sleeps, so no test waits or measures in
wall-clock time (issue 17). One instance is shared by the code under test (tally.fetch.Clock:
sleep and monotonic) and the fake board it talks to (form ages, flood intervals)."""

from __future__ import annotations

import threading

from tally.fetch import Clock

EPOCH = 1_768_471_200.0  # 2026-01-15 10:00 UTC: a plausible Unix time for form keys


class FakeClock:
    def __init__(self, start: float = EPOCH) -> None:
        self.now = start
        self.sleeps: list[float] = []  # every wait asked for, in order
        self._lock = threading.Lock()

    def time(self) -> float:
        """Unix time, as PHP's time() gives it to the fake board."""
        with self._lock:
            return self.now

    monotonic = time

    def sleep(self, seconds: float) -> None:
        with self._lock:
            self.sleeps.append(seconds)
            self.now += max(0.0, seconds)

    def advance(self, seconds: float) -> None:
        """Time passes without anyone waiting for it (a slow answer, a gap between runs)."""
        with self._lock:
            self.now += seconds

    @property
    def clock(self) -> Clock:
        """This clock as tally.fetch takes it."""
        return Clock(sleep=self.sleep, monotonic=self.monotonic)
