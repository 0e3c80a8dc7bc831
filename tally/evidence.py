"""Snapshots of counts (issue 6): what a count read and found, and its exact repetition.

    count ─► record(): the page versions read, the game file's text, a compact result
    snapshot ─► replay(): the same versions (every blob's SHA-256 checked) + the same game file
             ─► the same count, compared with what was recorded
             ─► today(): everything stored now + the game file now, and why that differs

The result kept is what a dispute turns on: the day, the as-of point, the counts, the outcome
and each verdict's post, verdict, target and rule (C4). No network on the replay path: the pages
come from the store only (DESIGN.md "Snapshots").
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from tally import __version__, crawl, engine, times
from tally.assemble import content_of
from tally.crawl import StoredThread
from tally.errors import InputError, TallyError
from tally.game import Game
from tally.model import Tally
from tally.store import Snapshot, Store, StoredPage

# The parts of a recorded result that a recomputation must give again, byte for byte.
COMPARED = ("day", "as_of", "counts", "outcome", "verdicts")


# ---------------------------------------------------------------------------------------------
# Recording


@dataclass(frozen=True)
class Asked:
    """The count's own point in time, as the user asked for it (--as-of), if at all."""

    as_of: datetime | None = None
    up_to_post: str | None = None


def result_of(tally: Tally) -> dict[str, Any]:
    """The compact result a snapshot keeps (and a replay must give again)."""
    return {
        "day": tally.day,
        "as_of": iso(tally.as_of),
        "deadline": iso(tally.deadline),
        "counted_up_to": tally.counted_up_to,
        "counts": [{"player": c.player, "votes": c.votes, "voters": list(c.voters)}
                   for c in tally.counts],
        "outcome": {"result": tally.outcome.result, "player": tally.outcome.player,
                    "rule": tally.outcome.rule, "tied": list(tally.outcome.tied)},
        "verdicts": [[v.post_id, v.verdict, v.target, v.rule] for v in tally.verdicts],
    }


def record(store: Store, *, command: str, main: StoredThread, others: Sequence[StoredThread],
           game_text: str, tally: Tally, asked: Asked) -> int:
    """Keep what this count read and found; returns the snapshot id."""
    result = result_of(tally) | {
        "asked": {"as_of": iso(asked.as_of), "up_to_post": asked.up_to_post},
        "pages": len({v.page for v in main.versions}),
        "posts": len(main.thread.posts),
        "tally": __version__,
    }
    ids = list(main.version_ids) + [i for other in others for i in other.version_ids]
    return store.record_snapshot(thread_key=main.key, url=main.url, command=command,
                                 game_text=game_text, version_ids=ids, result=result)


def page_set_sha256(thread: StoredThread) -> str:
    """SHA-256 of the thread's page set: one line "<page> <sha256 of its bytes>" per page, for
    the newest version of each page, in page order. Anyone holding the pages can recompute it."""
    newest: dict[int, str] = {}
    for version in thread.versions:  # oldest fetch first: the last one wins
        newest[version.page] = version.sha256
    lines = "".join(f"{page} {digest}\n" for page, digest in sorted(newest.items()))
    return hashlib.sha256(lines.encode("ascii")).hexdigest()


def summary(result: Mapping[str, Any]) -> str:
    """One line for --list and the verdict lines: "day 1: Dan 4, Bob 2; Dan eliminated [K10]"."""
    if "counts" not in result:
        if "posts" in result:
            return f"{result['posts']} posts, page set sha256 {str(result.get('page_set', ''))[:16]}…"
        return "pages only"
    counts = ", ".join(f"{c['player']} {c['votes']}" for c in result["counts"]) or "no votes"
    return f"day {result['day']}: {counts}; {_outcome(result['outcome'])}"


def _outcome(outcome: Mapping[str, Any]) -> str:
    rule = f" [{outcome['rule']}]" if outcome.get("rule") else ""
    if outcome["result"] == "eliminated":
        return f"{outcome['player']} eliminated{rule}"
    if outcome["result"] == "tie":
        return f"tie between {', '.join(outcome.get('tied') or ())}{rule}"
    if outcome["result"] == "none":
        return f"no elimination{rule}"
    return f"undecided{rule}"


# ---------------------------------------------------------------------------------------------
# Replaying


@dataclass(frozen=True)
class Replay:
    snapshot: Snapshot
    game: Game  # the game file as recorded
    main: StoredThread
    others: tuple[StoredThread, ...]
    tally: Tally
    asked: Asked
    differences: tuple[str, ...]  # recorded vs recomputed; empty: recomputed exactly

    @property
    def exact(self) -> bool:
        return not self.differences

    @property
    def recorded_count(self) -> bool:
        """False for a `tally snapshot` row: it keeps pages, and no count to compare with."""
        return "day" in self.snapshot.result


DayPicker = Callable[[Game, int | None, datetime], int]  # cli.pick_day


def replay(store: Store, snapshot_id: int, game_path: Path, pick_day: DayPicker) -> Replay:
    """Count again from exactly the snapshot's page versions and game file (no network).

    A version missing, or a blob whose bytes no longer hash to the recorded SHA-256, means the
    store was altered: an InputError (exit 3) naming the version.
    """
    from tally import game as game_file
    from tally import rules

    snap = store.snapshot(snapshot_id)
    if not snap.version_ids:
        raise _cannot(snap, "it names no page versions (a snapshot of nothing)")
    try:
        versions = store.pages(snap.version_ids)
    except InputError as exc:
        raise _cannot(snap, str(exc)) from None
    for version in versions:
        _check_hash(snap, version)
    game = game_file.loads(snap.game_text, game_path)
    rules.for_game(game)
    result = snap.result
    main = _thread(versions, snap.thread_key, snap.url, game)
    others = _other_threads(versions, game, snap.thread_key) if _reads_others(game) else ()
    asked = Asked(_time(result.get("asked", {}).get("as_of")),
                  result.get("asked", {}).get("up_to_post"))
    # A `tally snapshot` row keeps pages, not a count: count the day it was taken in.
    day = int(result["day"]) if "day" in result else pick_day(game, None, snap.taken_at)
    tally = engine.count(main.thread, game, day, as_of=_time(result.get("as_of")),
                         up_to_post=asked.up_to_post, others=tuple(o.thread for o in others))
    differences: tuple[str, ...] = ()
    if "day" in result:
        differences = tuple(compare(result, result_of(tally), ("recorded", "recomputed")))
    return Replay(snap, game, main, others, tally, asked, differences)


def _cannot(snap: Snapshot, why: str) -> InputError:
    return InputError(f"snapshot {snap.id} cannot be recomputed: {why}")


def _check_hash(snap: Snapshot, version: StoredPage) -> None:
    if hashlib.sha256(version.body).hexdigest() != version.sha256:
        raise _cannot(snap, f"page version {version.id} ({version.url}, fetched "
                      f"{version.fetched_at:%Y-%m-%d %H:%M:%S} UTC) no longer matches its recorded "
                      "SHA-256 (the store was altered)")


def _reads_others(game: Game) -> bool:
    from tally import rules

    return rules.get(game.preset).reads_other_threads


def _thread(versions: Sequence[StoredPage], key: str, url: str, game: Game,
            known: Sequence[crawl.Sighting] = ()) -> StoredThread:
    engine_, plain = crawl.engine_for(url, game.board.engine)
    mine = [v for v in versions if v.thread_key == key]
    return crawl.thread_from_versions(mine, plain, engine_, zone=game.timezone,
                                      language=game.board.language, per_page=game.board.per_page,
                                      floor_names=game.board.floor_names, known=known)


def _read_alike(one: Game, other: Game) -> bool:
    """Pages parse alike under both game files (same zone and board): a parse can be reused."""
    return (one.timezone, one.board) == (other.timezone, other.board)


def _other_threads(versions: Sequence[StoredPage], game: Game, main_key: str) -> tuple[StoredThread, ...]:
    out: list[StoredThread] = []
    for url in game.extra_threads:
        engine_, plain = crawl.engine_for(url, game.board.engine)
        key = engine_.thread_key(plain)
        if key != main_key and any(v.thread_key == key for v in versions):
            out.append(_thread(versions, key, url, game))
    return tuple(out)


def compare(then: Mapping[str, Any], now: Mapping[str, Any],
            labels: tuple[str, str] = ("then", "now")) -> list[str]:
    """What differs between two results, one line each (nothing: the same result)."""
    a, b = labels
    lines: list[str] = []
    for key in ("day", "as_of"):
        if then.get(key) != now.get(key):
            lines.append(f"{key.replace('_', '-')}: {then.get(key)} {a}, {now.get(key)} {b}")
    if then.get("counts") != now.get("counts") or then.get("outcome") != now.get("outcome"):
        lines.append(f"count: {summary(then)} {a}; {summary(now)} {b}")
    before = {row[0]: row for row in then.get("verdicts", [])}
    after = {row[0]: row for row in now.get("verdicts", [])}
    for post in sorted(before.keys() | after.keys(), key=_post_order):
        old, new = before.get(post), after.get(post)
        if old == new or _chatter(old, new):
            continue
        lines.append(f"post {post}: {_verdict(old)} {a}, {_verdict(new)} {b}")
    return lines


def _chatter(old: Sequence[Any] | None, new: Sequence[Any] | None) -> bool:
    """A post in one window only that is no vote either way: the window moved, nothing more."""
    one = new if old is None else old if new is None else None
    return one is not None and one[1] == "not_a_vote"


def _post_order(post: str) -> tuple[int, int, str]:
    return (0, int(post), post) if post.isdigit() else (1, 0, post)


def _verdict(row: Sequence[Any] | None) -> str:
    if row is None:
        return "not in the window"
    _, verdict, target, rule = row
    text = str(verdict) + (f" -> {target}" if target else "")
    return text + (f" [{rule}]" if rule else "")


# ---------------------------------------------------------------------------------------------
# Today: the same count from everything stored now and the game file as it is now


@dataclass(frozen=True)
class Today:
    same: bool
    lines: tuple[str, ...]  # why it differs (or why it could not be compared)
    tally: Tally | None = None
    versions: int = 0  # the page versions stored now that the count read


def today(store: Store, replayed: Replay, game_path: Path,
          load_game: Callable[[Path], Game]) -> Today:
    """Count the snapshot's day again from every stored version and the current game file, and
    say what differs from the replayed count and why: the game file's lines, the posts that
    changed, vanished or appeared in newer page versions, and the verdicts that moved."""
    try:
        game = load_game(game_path)
        day = replayed.tally.day
        game.day(day)
        known = replayed.main.sightings if _read_alike(replayed.game, game) else ()
        main = _thread(store.versions(replayed.main.key), replayed.main.key, replayed.main.url,
                       game, known)
        others = _stored_others(store, game, replayed.main.key)
        now = engine.count(main.thread, game, day, as_of=replayed.asked.as_of,
                           up_to_post=replayed.asked.up_to_post,
                           others=tuple(o.thread for o in others))
    except TallyError as exc:
        return Today(False, (f"not compared: {exc}",))
    then_result, now_result = result_of(replayed.tally), result_of(now)
    versions = len(main.versions) + sum(len(other.versions) for other in others)
    differences = compare(then_result, now_result, ("in the snapshot", "today"))
    # What the count says (day, counts, outcome, verdicts other than window chatter) decides
    # "the same": the as-of stamp moves with every newer fetch when no --as-of was given, and
    # that alone is not a different result (issue 17).
    if all(line.startswith("as-of:") for line in differences):
        return Today(True, (), now, versions)
    reasons = _game_changes(replayed.snapshot.game_text, game.path.read_text(encoding="utf-8"))
    reasons += _page_changes(replayed.main, main)
    if not reasons:
        reasons = ["neither the game file nor the stored pages changed: the count's point in time "
                   "moved (no --as-of was given, so it is the newest fetch)"]
    return Today(False, tuple(differences + reasons), now, versions)


def _stored_others(store: Store, game: Game, main_key: str) -> tuple[StoredThread, ...]:
    """The game's other threads as stored now (for a preset that reads them, R10)."""
    if not _reads_others(game):
        return ()
    out = []
    for url in game.extra_threads:
        engine_, plain = crawl.engine_for(url, game.board.engine)
        key = engine_.thread_key(plain)
        if key != main_key and store.last_page(key) is not None:
            out.append(_thread(store.versions(key), key, url, game))
    return tuple(out)


_TABLE = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?")


def _game_changes(then: str, now: str) -> list[str]:
    """The game file's changed lines, each with the table it sits in."""
    if then == now:
        return []
    old, new = then.splitlines(), now.splitlines()
    lines = ["the game file changed since the snapshot:"]
    matcher = difflib.SequenceMatcher(a=old, b=new, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        for offset in range(max(a2 - a1, b2 - b1)):
            was = old[a1 + offset] if a1 + offset < a2 else None
            now_line = new[b1 + offset] if b1 + offset < b2 else None
            where = b1 + offset + 1 if now_line is not None else a1 + offset + 1
            table = _table_at(new if now_line is not None else old, where - 1)
            head = f"  line {where}{f' ({table})' if table else ''}: "
            if was is not None and now_line is not None:
                lines.append(f"{head}{was.strip()!r} is now {now_line.strip()!r}")
            elif now_line is not None:
                lines.append(f"{head}added {now_line.strip()!r}")
            else:
                lines.append(f"{head}removed {was.strip()!r}" if was is not None else head)
    return lines


def _table_at(lines: list[str], index: int) -> str:
    for number in range(min(index, len(lines) - 1), -1, -1):
        found = _TABLE.match(lines[number])
        if found:
            return lines[number].strip().split("#", 1)[0].strip()
    return ""


def _page_changes(then: StoredThread, now: StoredThread) -> list[str]:
    """Posts that newer page versions show changed, vanished or appeared."""
    newer = [v for v in now.versions if v.id not in set(then.version_ids)]
    if not newer:
        return []
    first, last = min(v.fetched_at for v in newer), max(v.fetched_at for v in newer)
    span = f"{first:%Y-%m-%d %H:%M:%S}" + (f" to {last:%Y-%m-%d %H:%M:%S}" if last != first else "")
    lines = [f"{len(newer)} newer page version{'s' if len(newer) != 1 else ''} fetched {span} UTC:"]
    old = {p.id: p for p in then.thread.posts}
    appeared = [post for post in now.thread.posts if post.id not in old]
    for post in now.thread.posts:
        was = old.get(post.id)
        if was is None and len(appeared) <= 10:
            lines.append(f"  post {post.id} by {post.author} appeared")
        elif was is not None and content_of(was) != content_of(post):
            lines.append(f"  post {post.id} by {post.author} changed")
        if post.id in now.thread.vanished and post.id not in then.thread.vanished:
            lines.append(f"  post {post.id} by {post.author} vanished")
    if len(appeared) > 10:  # a thread that went on: say how far, not every post
        lines.append(f"  {len(appeared)} posts appeared, from post {appeared[0].id} to post "
                     f"{appeared[-1].id}")
    return lines


# ---------------------------------------------------------------------------------------------


def iso(value: datetime | None) -> str | None:
    return None if value is None else value.astimezone(times.UTC).isoformat().replace("+00:00", "Z")


def _time(text: str | None) -> datetime | None:
    return None if not text else times.parse_iso(text)
