"""`tally init`: a first game file from a thread (DESIGN.md "The game file").

Pure: a `Thread` and the user's options in, TOML text out. Reading the thread (online or from
saved pages) is tally.drafting's job, writing the file the command's (tally.cli). Everything the thread
cannot tell (the real zone, the deadline, who is staff besides the opening poster) is proposed
and marked "# CHECK" so the GM looks at it before the first count; the file loads and counts as
written all the same.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import datetime, timedelta

from tally import names, times
from tally.errors import InputError
from tally.model import Post, Thread

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
    title: str = "New game"  # the topic's title when the pages show one (Thread.title)
    zone_note: str = ""  # why this zone (propose_zone): the comment beside `timezone`
    language: str | None = None  # the board's language (board_language), when tally has it
    language_note: str = ""  # how it is known: the comment beside `language`


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
        elif ord(ch) < 0x20 or ord(ch) == 0x7F or unicodedata.category(ch) == "Cf":
            # Control characters, and invisible ones (a bidi override would turn the rest of
            # the line around in an editor, issue 17): escaped, the same string once read.
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


@dataclass(frozen=True, slots=True)
class ZoneProposal:
    zone: str
    note: str  # the comment beside `timezone`, "CHECK: …" when the GM must look


def propose_zone(thread: Thread, given: str | None, default: str, engine: str,
                 language: str | None) -> ZoneProposal:
    """The zone for the file (issue 16). The pages may state the offset their times are shown
    in (phpBB's "All times are UTC-03:00"): the zones at that offset when the pages were
    fetched are proposed, those of countries speaking the board's language first; a zone the
    user gave that disagrees with the pages is marked. Without a statement: the zone given,
    else the engine's default, to check."""
    stated = thread.utc_offsets[-1] if thread.utc_offsets else None
    if stated is None:
        if given:
            return ZoneProposal(given, "the zone the forum shows times in (--timezone)")
        return ZoneProposal(default, f"CHECK: the zone the forum shows times in (the {engine} "
                                     "default; the pages do not say)")
    offset, seen = stated
    says = f"the pages say their times are {times.offset_text(offset)}"
    if given:
        now = times.zone(given).utcoffset(seen) or timedelta()
        if now == offset:
            return ZoneProposal(given, f"the zone you gave (--timezone); {says}")
        return ZoneProposal(given, f"CHECK: {says}, but {given} was "
                                   f"{times.offset_text(now)} then (--timezone)")
    candidates = _ranked(times.zones_at_offset(offset, seen), language)
    if not offset:  # "All times are UTC": UTC itself first, a zone with no summer time
        candidates.insert(0, "UTC")
    if not candidates:
        return ZoneProposal(default, f"CHECK: {says}, and no zone is at that offset now "
                                     f"(the {engine} default)")
    spoken = f", where {language} is spoken first" if language else ""
    listed = ", ".join(candidates[:6]) + (", …" if len(candidates) > 6 else "")
    return ZoneProposal(candidates[0], f"CHECK: {says} ({seen:%Y-%m-%d}); zones at that "
                                       f"offset then{spoken}: {listed}")


def _ranked(zones: list[tuple[str, tuple[str, ...]]], language: str | None) -> list[str]:
    """One zone per country (the tz table's first), the board's language's countries first."""
    from babel.languages import get_territory_language_info

    def share(countries: tuple[str, ...]) -> float:
        if not language:
            return 0.0
        info = get_territory_language_info(countries[0])
        return float(info.get(language, {}).get("population_percent") or 0.0)

    first: dict[str, tuple[str, tuple[str, ...]]] = {}
    for zone, countries in zones:
        first.setdefault(countries[0], (zone, countries))
    ordered = sorted(first.values(), key=lambda row: -share(row[1]))  # stable: table order
    return [zone for zone, _ in ordered]


# Words a board's posts are written in, where its pages declare no language (Discuz! X's
# templates have no <html lang>): the script of most letters names it, marked CHECK.
_SCRIPT_LANGUAGES = (("CJK", "zh"), ("CYRILLIC", "ru"))


def board_language(declared: str | None, thread: Thread) -> tuple[str | None, str]:
    """The board's language, if tally reads votes and writes counts in it, and how it is known:
    the pages' <html lang>, else the script most letters of the posts are written in. A file
    that leaves it out reads every vote with the preset's pack: on a Spanish board a `majority`
    game read "Voto: Ana" as no vote at all and printed "No votes yet" (qa)."""
    from tally import syntax
    from tally.render import i18n

    known = set(syntax.PACKS) & set(i18n.languages())
    if declared:
        if declared not in known:  # said in the file, so the GM checks the vote words
            return None, (f'# CHECK: the pages say lang="{declared}", a language tally has no '
                          "vote words for: votes are read with the preset's (see [votes])")
        return declared, f'the count\'s language: the board\'s (the pages say lang="{declared}")'
    letters = [ch for post in thread.posts for ch in post.body.own if ch.isalpha()]
    for script, code in _SCRIPT_LANGUAGES:
        share = sum(1 for ch in letters if unicodedata.name(ch, "").startswith(script))
        if letters and share * 2 > len(letters) and code in known:
            shown = "Chinese" if script == "CJK" else script.title()
            return code, ("CHECK: the count's language: the pages declare none; most letters "
                          f"of the posts are {shown} script")
    return None, ""


_HTML_LANG = re.compile(rb"<html\b[^>]*?\blang\s*=\s*[\"']?([A-Za-z]{2,3})", re.IGNORECASE)


def page_language(data: bytes) -> str | None:
    """The language a page declares (<html lang="en-gb">: "en"), if it declares one."""
    found = _HTML_LANG.search(data[:4096])
    return found.group(1).decode("ascii").lower() if found else None


def suspicious(name: str, others: list[str]) -> list[str]:
    """Why a poster's name needs a look before it goes into posts (issue 17): brackets (read
    as BBCode or HTML where a post shows the name), invisible characters (bidi overrides turn
    the line around, zero-width ones hide a difference), a look-alike of another poster."""
    why = []
    if any(ch in name for ch in "[]<>"):
        why.append("has brackets")
    if any(unicodedata.category(ch) == "Cf" for ch in name):
        why.append("has invisible characters (direction controls or zero-width)")
    key = names.lookalike(name)
    twins = [other for other in others if other != name and names.lookalike(other) == key]
    if twins:
        why.append("looks like " + ", ".join(shown(other) for other in twins))
    return why


def shown(name: str) -> str:
    """A name for a comment line: quoted, control and invisible characters as \\u escapes."""
    return '"' + "".join(f"\\u{ord(ch):04X}" if unicodedata.category(ch) in ("Cc", "Cf")
                         else ch for ch in name) + '"'


def render(thread: Thread, options: InitOptions) -> str:
    """The first game file for `thread`, as TOML text."""
    from tally import rules

    if options.preset not in rules.names():  # every preset `count` knows
        raise InputError(f"unknown preset {options.preset!r} (known: "
                         f"{', '.join(sorted(rules.names()))})")
    times.zone(options.zone)  # an unknown zone is a one-line InputError here, not in the file
    proposal = propose(thread)
    parts = [
        _head(thread, options, proposal),
        _thread_table(options),
        _roster(proposal, [post.author.strip() for post in (proposal.gm, *proposal.players)]),
        _first_day(proposal, options),
        _votes_table(options.language),
    ]
    return "\n".join(parts)


def _line(code: str, comment: str) -> str:
    """A key and its comment, the comments aligned as in README.md's example."""
    return f"{code:<35} # {comment}"


def _head(thread: Thread, options: InitOptions, proposal: Proposal) -> str:
    from tally import rules

    zone_note = options.zone_note or (
        "the zone the forum shows times in (--timezone)" if options.zone_given
        else f"CHECK: the zone the forum shows times in (the {options.engine} default)")
    return "\n".join([
        f"# A first game file, written by `tally init` from {thread.url}",
        f"# ({len(thread.posts)} posts read). Check every line marked CHECK before the first count.",
        _line(f"title = {toml_string(options.title)}", "the topic's title" if thread.title
              else "the game's name in tallies"),
        _line(f"preset = {toml_string(options.preset)}",
              f"the rulebook: {' | '.join(sorted(rules.names()))}"),
        _line(f"timezone = {toml_string(options.zone)}", zone_note),
        *([_line(f"language = {toml_string(options.language)}", options.language_note)]
          if options.language else [options.language_note] if options.language_note else []),
        "# Accounts whose edits never void a vote and who never vote; proposed: the opening poster.",
        _line(f"staff = [{toml_string(proposal.gm.author)}]", "CHECK: the GM and co-moderators"),
        "",
    ])


def _thread_table(options: InitOptions) -> str:
    return "\n".join([
        "[thread]",
        _line(f"url = {toml_string(options.url)}", "the game thread"),
        _line(f"engine = {toml_string(options.engine)}", "the forum engine, as detected"),
        (_line(f"language = {toml_string(options.language)}",
               "the board's language: its vote words are read beside the preset's")
         if options.language else
         '# language = "en"                 # the board\'s language: en | es | fr | ru | zh'),
        "# per_page = 20                   # posts per page, when the board changed the default",
        "",
    ])


def _roster(proposal: Proposal, posters: list[str]) -> str:
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
        why = suspicious(post.author.strip(), posters)
        if why:
            lines.append(f"# CHECK: the name {shown(post.author.strip())} {'; '.join(why)}: "
                         "is it a player, and the account you mean?")
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


def _votes_table(language: str | None) -> str:
    # Never written: votes.language REPLACES the preset's words, so a kira game on JV would no
    # longer read "unvote", a majority game on a Discuz board no longer "##vote X". The board's
    # language stated in [thread] adds its words to the preset's (tally.extract.effective_syntax).
    return "\n".join([
        "[votes]                           # all optional: the preset's words, and those of "
        "[thread] language",
        _line(f"# language = {toml_string(language or 'en')}",
              "REPLACES the preset's vote words: en | es | fr | ru | zh"),
        '# vote = ["vote", "##vote"]',
        '# unvote = ["unvote", "##unvote"]',
        "",
        "# [[events]]                      # GM events: deaths, revivals, replacements, deadline moves",
        '# at = "YYYY-MM-DD HH:MM"',
        '# kind = "death"',
        '# player = "…"',
        "",
    ])
