"""`tally init`: a first game file from a thread (DESIGN.md "The game file").

Pure: a `Thread` and the user's options in, TOML text out. Reading the thread (online or from
saved pages) and writing the file are the command's job (tally.cli). Everything the thread
cannot tell (the real zone, the deadline, who is staff besides the opening poster) is proposed
and marked "# CHECK" so the GM looks at it before the first count; the file loads and counts as
written all the same.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from tally import times
from tally.errors import InputError
from tally.model import Post, Thread

PRESETS = ("kira", "majority")
DEFAULT_PRESET = "majority"
FIRST_DAY_LENGTH = timedelta(hours=24)  # the deadline placeholder: one day after the start

# TOML basic strings: these must be escaped; every other character may stand as it is (UTF-8).
_SHORT_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f",
                  "\r": "\\r"}


@dataclass(frozen=True, slots=True)
class InitOptions:
    url: str  # the thread URL as the game file will hold it (no engine: prefix)
    engine: str  # the engine's short name (adapters.engines())
    zone: str  # IANA zone the forum shows times in
    zone_given: bool = False  # True when the user stated it (--timezone), not the engine default
    preset: str = DEFAULT_PRESET
    title: str = "New game"


@dataclass(frozen=True, slots=True)
class Proposal:
    """What the thread suggests: the GM (opening poster), the players, the first day's start."""

    gm: Post
    players: tuple[Post, ...]  # the first post of each other distinct author, thread order


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: quotes, backslashes and control characters escaped."""
    out = []
    for ch in text:
        if ch in _SHORT_ESCAPES:
            out.append(_SHORT_ESCAPES[ch])
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def propose(thread: Thread) -> Proposal:
    """The opening poster as GM and every other distinct author as a player (first post wins).

    Authors are told apart by account id where the page links one, else by name; two accounts
    showing the same name (case aside) would be one player in the roster, so the second is left
    out (game.load refuses a name listed twice).
    """
    posts = [post for post in thread.posts if post.author.strip()]
    if not posts:
        raise InputError(f"{thread.url}: the thread has no posts with an author: nothing to propose")
    gm = posts[0]
    seen_ids = {gm.author_id} if gm.author_id else set()
    seen_names = {gm.author.strip().casefold()}
    players: list[Post] = []
    for post in posts[1:]:
        name = post.author.strip().casefold()
        if (post.author_id and post.author_id in seen_ids) or name in seen_names:
            continue
        seen_names.add(name)
        if post.author_id:
            seen_ids.add(post.author_id)
        players.append(post)
    return Proposal(gm=gm, players=tuple(players))


def game_time(utc: datetime, zone: str) -> str:
    """A time for the game file: wall time in `zone`, or ISO 8601 with its offset where the wall
    time alone would be ambiguous (a DST overlap) or not exist."""
    local = times.to_local(utc, zone)
    naive = local.replace(tzinfo=None)
    if times.localise(naive, zone).utc != utc:
        return local.isoformat()
    return f"{naive:%Y-%m-%d %H:%M:%S}"


def render(thread: Thread, options: InitOptions) -> str:
    """The first game file for `thread`, as TOML text."""
    if options.preset not in PRESETS:
        raise InputError(f"unknown preset {options.preset!r} (known: {', '.join(PRESETS)})")
    times.zone(options.zone)  # an unknown zone is a one-line InputError here, not in the file
    proposal = propose(thread)
    parts = [
        _head(thread, options, proposal),
        _thread_table(options),
        _roster(proposal),
        _first_day(proposal, options),
        _votes_table(),
    ]
    return "\n".join(parts)


def _line(code: str, comment: str) -> str:
    """A key and its comment, the comments aligned as in README.md's example."""
    return f"{code:<35} # {comment}"


def _head(thread: Thread, options: InitOptions, proposal: Proposal) -> str:
    zone_note = ("the zone you gave (--timezone)" if options.zone_given
                 else f"the {options.engine} default")
    return "\n".join([
        f"# A first game file, written by `tally init` from {thread.url}",
        f"# ({len(thread.posts)} posts read). Check every line marked CHECK before the first count.",
        f"title = {toml_string(options.title)}",
        _line(f"preset = {toml_string(options.preset)}", "the rulebook: kira | majority"),
        _line(f"timezone = {toml_string(options.zone)}",
              f"CHECK: the zone the forum shows times in ({zone_note})"),
        "# Accounts whose edits never void a vote and who never vote; proposed: the opening poster.",
        _line(f"staff = [{toml_string(proposal.gm.author)}]", "CHECK: the GM and co-moderators"),
        "",
    ])


def _thread_table(options: InitOptions) -> str:
    return "\n".join([
        "[thread]",
        _line(f"url = {toml_string(options.url)}", "the game thread"),
        _line(f"engine = {toml_string(options.engine)}", "the forum engine, as detected"),
        '# language = "en"                 # the board\'s language: en | es | fr | ru | zh',
        "# per_page = 20                   # posts per page, when the board changed the default",
        "",
    ])


def _roster(proposal: Proposal) -> str:
    lines = [
        "# The roster: every author of the thread except the opening poster. CHECK: remove",
        "# spectators, add players who have not posted yet, and aliases (in-game names).",
    ]
    if not proposal.players:
        lines += [
            "# Nobody but the opening poster has posted yet: this placeholder keeps the file valid.",
            "[[players]]",
            'name = "Player 1"                 # CHECK: a placeholder, replace it',
            "",
        ]
        return "\n".join(lines)
    for post in proposal.players:
        lines.append("[[players]]")
        lines.append(_line(f"name = {toml_string(post.author.strip())}",
                           "the name in tallies (the account name as shown)"))
        if post.author_id:
            lines.append(_line(f"account_id = {toml_string(post.author_id)}",
                               "the forum user id: the surest link to the player"))
        lines.append("# aliases = []                   # other names players write for them")
        lines.append("")
    return "\n".join(lines)


def _first_day(proposal: Proposal, options: InitOptions) -> str:
    start = proposal.gm.created_at
    return "\n".join([
        "# The days: copy this table for each day of the game.",
        "[[days]]",
        "number = 1",
        _line(f"start = {toml_string(game_time(start, options.zone))}",
              "the opening post's time, in `timezone`"),
        _line(f"deadline = {toml_string(game_time(start + FIRST_DAY_LENGTH, options.zone))}",
              "CHECK: a placeholder (start + 24 h)"),
        "",
    ])


def _votes_table() -> str:
    return "\n".join([
        "[votes]                           # all optional: the preset's language pack is the default",
        '# language = "en"                 # vote words of the board\'s language: en | es | fr | ru | zh',
        '# vote = ["vote", "##vote"]',
        '# unvote = ["unvote", "##unvote"]',
        "",
        "# [[events]]                      # GM events: deaths, revivals, replacements, deadline moves",
        '# at = "YYYY-MM-DD HH:MM"',
        '# kind = "death"',
        '# player = "…"',
        "",
    ])
