"""tally: counts the votes of forum-played social-deduction games from the thread itself."""

__version__ = "0.1.0"
