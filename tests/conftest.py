"""Settings every test file shares.

Hypothesis: no per-example deadline. A deadline measures wall-clock time, and on a loaded
2-core machine a fast example can take seconds (issue 17: DeadlineExceeded in test_names.py
and a JV edit-date test); a test's own @settings may still lower max_examples, never restore a
deadline. Set HYPOTHESIS_PROFILE=dev locally to keep Hypothesis' default deadline.
"""

from __future__ import annotations

import os

from hypothesis import settings

settings.register_profile("tally", deadline=None)
settings.register_profile("dev")
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "tally"))
