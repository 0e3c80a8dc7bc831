"""The scheduled run (issue 5): `tally post GAME.toml`, from cron, as the game's bot.

    lock ─► count (through the snapshot store: the thread's tail is fetched and kept)
         ─► settle an interrupted post ('sending' row: is the bot's post in the tail?)
         ─► decide (tally.when) ─► hold on doubt? ─► already in the thread?
         ─► render (tally.render.update) ─► 'sending' ─► reply ─► 'posted' | 'failed'

A post the forum holds for a moderator (phpBB POST_STORED_MOD, Discuz "回复需要审核", …) is
'posted' with the note "awaiting moderation" and exit 10: it exists, so it is never sent again,
and every run exits 10 while the same count waits and the thread does not show it; once its
marker shows in the thread the row is recorded as posted there (settle_held).

Never twice: the lock stops a second run; the intent row is written before the reply call, so
a crash after the forum took the post leaves 'sending', and the next run looks for the post's
marker (the content hash in its last line) among the bot's posts before anything else; and a
count whose marker is already in the thread after the last posted one is recorded, not posted.

The reading side is a guest: the pages kept in the snapshot store are fetched without the bot's
cookies, so no stored page carries its session. The bot's session lives only in the posting
Fetcher and in the cookie file (tally.credentials).

Engine-neutral: everything forum-specific is behind the Replier seam (adapters/reply.py).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import requests

from tally import adapters, counting, crawl, credentials, times
from tally.adapters.reply import Credentials, Http, Replier, replier_for
from tally.crawl import StoredThread
from tally.errors import (
    EXIT_AWAITING_MODERATION,
    EXIT_NEEDS_GM,
    EXIT_NOTHING_TO_POST,
    EXIT_OK,
    CannotPostHere,
    Challenged,
    ForumError,
    OutcomeUnknown,
    SessionExpired,
    TallyError,
    ThreadMovedOn,
)
from tally.fetch import SYSTEM_CLOCK, Clock, Fetcher
from tally.game import Game
from tally.lock import hold, lock_path_of
from tally.model import Post, Tally, Thread
from tally.render.i18n import language_for
from tally.render.update import marker, render_update
from tally.store import Posted, Store
from tally.when import Decision, LastPosted, clock, content_sha256, decide, summarise

log = logging.getLogger(__name__)

MAX_COUNTS = 3  # a thread that moves on while replying is counted again, this many times at most


@dataclass(frozen=True)
class Result:
    """What the run did: the exit code, the one line for stdout, and (dry run) the text."""

    code: int
    line: str
    text: str | None = None


RUN_LIMIT = 240.0  # seconds a whole run may spend on the network: cron's next run (every 5 min)
# must not find the lock still held by a run stuck on a slow forum (issue 17)


@dataclass(frozen=True)
class Network:
    """How the run reaches the forum; tests swap in faster ones."""

    reader: Callable[[], Fetcher] = Fetcher  # the guest that reads the thread
    poster: Callable[[requests.Session], Fetcher] = lambda session: Fetcher(session=session)
    replier: Callable[[str, Http], Replier] = replier_for
    run_limit: float = RUN_LIMIT  # every request and wait of the run ends within it
    clock: Clock = SYSTEM_CLOCK  # what the run's limit is measured by


NETWORK = Network()


@dataclass(frozen=True)
class Options:
    day: int | None = None
    dry_run: bool = False
    force: bool = False
    store_path: Path | None = None
    lang: str | None = None  # --lang; None: the game file's language, else the preset's


class _Recount(Exception):
    """The thread moved on while replying: count again."""


def run(game_path: Path, options: Options = Options(), network: Network | None = None) -> Result:
    game = counting.load_game(game_path)
    store_file = counting.store_path_of(game.path, options.store_path)
    with hold(lock_path_of(store_file), game.path.name), Store(store_file) as store:
        return _Run(game, store, store_file, options, network or NETWORK).go()


@dataclass
class _Counted:
    main: StoredThread
    tally: Tally
    day: int
    url: str  # the thread's address, without an engine: prefix
    engine: str


@dataclass
class _Run:
    game: Game
    store: Store
    store_file: Path
    options: Options
    network: Network
    account: str | None = field(init=False)
    began: float = field(init=False)
    approved: list[str] = field(init=False, default_factory=list)  # held posts now shown

    def __post_init__(self) -> None:
        self.account = self.game.posting.account or os.environ.get("TALLY_ACCOUNT")
        self.began = self.network.clock.monotonic()

    def limited(self, fetcher: Fetcher) -> Fetcher:
        """The fetcher, bound by what is left of the run's time limit."""
        clock, began, limit = self.network.clock, self.began, self.network.run_limit
        fetcher.limit_run(limit, lambda: limit - (clock.monotonic() - began))
        return fetcher

    def go(self) -> Result:
        for _ in range(MAX_COUNTS):
            try:
                return self.once()
            except _Recount:
                log.info("new posts while replying: counting again")
        raise ForumError("new posts kept arriving while replying; nothing was posted; the next "
                         "run tries again")

    def once(self) -> Result:
        counted = self.count()
        self.settle_interrupted(counted)
        rows = self.settle_held(counted)
        posted = [row for row in rows if row.state == "posted"]
        queued = [row for row in posted if _awaiting(row)]
        last = _last(posted)
        final_posted = next((r.posted_at or r.started_at for r in posted
                             if r.summary.get("final")), None)
        now = times.now()
        decision = decide(counted.tally, last, self.game.posting, now, final_posted=final_posted)
        summary = summarise(counted.tally, decision.final)
        sha = content_sha256(summary)
        decision = self.forced(decision, last, sha)
        waiting = next((row for row in queued if row.sha256 == sha), None)
        if waiting is None and not decision.post and posted and _awaiting(posted[-1]):
            waiting = posted[-1]
        if waiting is not None and waiting.sha256 == sha and self.options.force:
            # The GM's call: the moderators refused (or lost) the held copy; send it again.
            decision = Decision(True, f"forced: the count held since "
                                f"{clock(_sent_at(waiting), self.game.timezone)} sent again",
                                decision.final)
            waiting = None
        if waiting is not None:
            # The players have not seen the count in the queue: never "nothing to post" as if
            # they had, never the same count into the queue again (issue 13).
            why = "" if decision.post else f" ({decision.reason})"
            return Result(EXIT_AWAITING_MODERATION, f"{self.dry}held by the forum: the count "
                          f"sent at {clock(_sent_at(waiting), self.game.timezone)} still waits "
                          "for a moderator's approval and is not in the thread; nothing was "
                          f"posted{why}")
        if not decision.post:
            return Result(EXIT_NOTHING_TO_POST, f"{self.dry}nothing to post: {decision.reason}"
                          + "".join(f" (the held count is now in the thread as post {post_id})"
                                    for post_id in self.approved))
        doubts = summary["doubts"]
        if doubts and self.game.posting.on_doubt == "hold":
            return Result(EXIT_NEEDS_GM, f"{self.dry}held for the GM: " + "; ".join(doubts) +
                          " (on_doubt = \"hold\"; nothing was posted)")
        after = _position(counted.main.thread, posted[-1].post_id) if posted else None
        there = own_post(counted.main.thread, sha, self.account, after=after)
        if there is not None:
            if not self.options.dry_run:
                row = self.store.begin_post(thread_key=counted.main.key, day=counted.day,
                                            sha256=sha, summary=summary, body="",
                                            last_seen=_last_post_id(counted.main.thread))
                self.store.finish_post(row, state="posted", post_id=there.id,
                                       posted_at=there.created_at, note="found in the thread")
            return Result(EXIT_NOTHING_TO_POST, f"{self.dry}nothing to post: this count is "
                          f"already in the thread as post {there.id}")
        text = render_update(counted.tally, summary=summary, sha256=sha,
                             last=last.summary if last else None, last_at=last.at if last else None,
                             now=now, dialect=self.markup(counted.engine),
                             lang=language_for(self.game, self.options.lang))
        if self.options.dry_run:
            return Result(EXIT_OK, f"dry run: would post the count to {counted.url}: "
                          f"{decision.reason}", text)
        return self.post(counted, summary, sha, text, decision)

    @property
    def dry(self) -> str:
        return "dry run: " if self.options.dry_run else ""

    # -- counting ------------------------------------------------------------------------------

    def count(self) -> _Counted:
        game = self.game
        day = self.options.day if self.options.day is not None else self.closing_day()
        day = counting.pick_day(game, day, times.now())
        engine, url = crawl.engine_for(game.day(day).thread_url or game.thread_url,
                                       game.board.engine)
        counted = counting.count_stored(game, day, self.store, command="post",
                                        fetcher=self.limited(self.network.reader()), bar=False)
        assert counted.main is not None  # read through the store
        return _Counted(counted.main, counted.tally, day, url, engine.name)

    def closing_day(self) -> int | None:
        """Back-to-back days (K1, R1: the next day opens as one closes): right after a deadline
        the day whose window holds now is already the next one, and the final count of the day
        that just closed was never posted ("nothing to post: no votes yet in day 2", qa). The
        last closed day this bot posted in without its final count yet, if any."""
        now = times.now()
        closed = [d for d in self.game.days if d.deadline < now]
        if not closed or not self.game.posting.at_deadline:
            return None
        day = max(closed, key=lambda d: d.deadline)
        engine, url = crawl.engine_for(day.thread_url or self.game.thread_url,
                                       self.game.board.engine)
        rows = [r for r in self.store.posted(engine.thread_key(url), day.number)
                if r.state == "posted"]
        return day.number if rows and not any(r.summary.get("final") for r in rows) else None

    def settle_interrupted(self, counted: _Counted) -> None:
        """A 'sending' row: the reply went out and no outcome was written (a crash, a lost
        answer). The thread's tail, just read, says whether the forum took it."""
        if self.options.dry_run:
            return  # a dry run changes nothing; the next real run settles it
        for row in self.store.posted(counted.main.key, counted.day):
            if row.state != "sending":
                continue
            found = own_post(counted.main.thread, row.sha256, self.account)
            if found is not None:
                self.store.finish_post(row.id, state="posted", post_id=found.id,
                                       posted_at=found.created_at,
                                       note="found in the thread after an interrupted run")
                log.info("interrupted post %s found in the thread as post %s", row.id, found.id)
            else:
                self.store.finish_post(row.id, state="failed",
                                       note="not in the thread after an interrupted run")

    def settle_held(self, counted: _Counted) -> list[Posted]:
        """Counts the forum held for a moderator: one whose marker now shows in the thread was
        approved, and is recorded as posted there (a dry run only reads). The rows, updated."""
        rows = self.store.posted(counted.main.key, counted.day)
        settled: list[Posted] = []
        for row in rows:
            found = own_post(counted.main.thread, row.sha256, self.account) \
                if row.state == "posted" and _awaiting(row) else None
            if found is not None:
                note = f"approved: in the thread as post {found.id}"
                self.approved.append(found.id)
                if not self.options.dry_run:
                    self.store.finish_post(row.id, state="posted", post_id=found.id,
                                           posted_at=found.created_at, note=note)
                log.info("the count held for a moderator is in the thread as post %s", found.id)
                row = replace(row, post_id=found.id, posted_at=found.created_at, note=note)
            settled.append(row)
        return settled

    def forced(self, decision: Decision, last: LastPosted | None, sha: str) -> Decision:
        """--force posts what the policy holds back, but never the same count twice."""
        if decision.post or not self.options.force:
            return decision
        if last is not None and last.sha256 == sha:
            return Decision(False, f"the same count was posted at {clock(last.at, self.game.timezone)}"
                            " (--force never posts the same count twice)", decision.final)
        return Decision(True, f"forced ({decision.reason})", decision.final)

    def markup(self, engine: str) -> str:
        """posting.format (checked when the game was loaded), else the engine's own markup."""
        return self.game.posting.format or adapters.registered(engine).markup

    # -- posting -------------------------------------------------------------------------------

    def post(self, counted: _Counted, summary: dict[str, Any], sha: str, text: str,
             decision: Decision) -> Result:
        """Reply with `text`; where the forum wants a human (a captcha, a challenge), the count
        is left in a file beside the store, ready to paste."""
        try:
            return self.reply(counted, summary, sha, text, decision)
        except Challenged as exc:  # the CDN's challenge on a page or the reply: a human posts
            return self.paste(CannotPostHere(f"{exc}: cannot post automatically here"), text)
        except CannotPostHere as exc:
            return self.paste(exc, text)

    def paste(self, exc: CannotPostHere, text: str) -> Result:
        """Leave the count in `.tally/<game>.paste.txt` and say so once, in the error's line."""
        paste = self.store_file.with_suffix(".paste.txt")
        try:
            paste.write_text(text, encoding="utf-8")
        except OSError:
            raise exc from None
        raise CannotPostHere(f"{exc}; the count is ready to paste from {paste}") from None

    def reply(self, counted: _Counted, summary: dict[str, Any], sha: str, text: str,
              decision: Decision) -> Result:
        host = urlsplit(counted.url).hostname or counted.url
        cookie_file = credentials.cookie_path_of(self.store_file)
        session = requests.Session()
        had_session = credentials.load_cookies(cookie_file, session) > 0
        replier = self.network.replier(counted.engine, self.limited(self.network.poster(session)))
        # A supplied-cookie engine (JV): no password is ever asked, and the cookie file is the
        # GM's: never deleted, and rewritten only after a reply the session made.
        supplied = not replier.password_login

        def keep() -> None:
            if not supplied:
                credentials.save_cookies(cookie_file, session)

        def login() -> None:
            if supplied:
                try:  # only checks that the GM's session is connected
                    replier.login(counted.url, Credentials(self.account or "", ""))
                except CannotPostHere as exc:
                    raise CannotPostHere(f"{exc}; {self.supply(cookie_file, had_session)}") \
                        from None
                return
            found = credentials.credentials(self.game.posting.account, self.game.path.name, host)
            replier.login(counted.url, found)
            credentials.save_cookies(cookie_file, session)

        if not had_session or supplied:
            login()
        row = self.store.begin_post(thread_key=counted.main.key, day=counted.day, sha256=sha,
                                    summary=summary, body=text,
                                    last_seen=_last_post_id(counted.main.thread))
        try:
            try:
                reply = replier.reply(counted.url, text)
            except SessionExpired as expired:
                if supplied:  # logging in is the GM's part: a fresh cookie
                    raise CannotPostHere(f"{expired}: cannot post automatically here; "
                                         f"{self.supply(cookie_file, True)}") from None
                if not had_session:
                    raise  # a session made a moment ago: logging in again would loop
                log.info("%s: session expired; logging in again", host)
                credentials.forget_cookies(cookie_file, session)
                login()
                reply = replier.reply(counted.url, text)
        except OutcomeUnknown as exc:
            # The row stays 'sending': the next run reads the tail before posting anything.
            keep()
            raise OutcomeUnknown(f"{exc}; the next run checks the thread before posting "
                                 "again") from None
        except TallyError as exc:
            note = str(exc)
            self.store.finish_post(row, state="failed", note=note)
            keep()
            if isinstance(exc, ThreadMovedOn):
                raise _Recount() from None
            raise
        if not reply.visible:
            # The post exists in the moderation queue: recorded with the note, so this count is
            # never sent into the queue again and every run says it waits (exit 10) until its
            # marker shows in the thread (settle_held); a changed count is decided as any other.
            self.store.finish_post(row, state="posted", post_id=reply.post_id,
                                   posted_at=times.now(), note=AWAITING_MODERATION)
            credentials.save_cookies(cookie_file, session)
            queued = f" as post {reply.post_id}" if reply.post_id else ""
            return Result(EXIT_AWAITING_MODERATION, f"held by the forum: the count sent to "
                          f"{counted.url}{queued} waits for a moderator's approval; players see "
                          "it once it is approved (ask the board's staff to exempt the bot's "
                          f"account): {decision.reason}")
        as_post = f" as post {reply.post_id}" if reply.post_id else " (the forum gave no post id)"
        self.store.finish_post(row, state="posted", post_id=reply.post_id, posted_at=times.now())
        credentials.save_cookies(cookie_file, session)
        return Result(EXIT_OK, f"posted the count to {counted.url}{as_post}: {decision.reason}")

    def supply(self, cookie_file: Path, had_session: bool) -> str:
        """What the GM does when the supplied session is missing or over (JV)."""
        fix = f"`TALLY_COOKIE='name=value; …' tally post {self.game.path.name} --cookie-from-env`"
        if had_session:
            return f"the session cookie in {cookie_file} is no longer logged in: supply a " \
                   f"fresh one from a browser: {fix}"
        return f"no session cookie in {cookie_file}: supply the bot's from a browser: {fix}"


AWAITING_MODERATION = "awaiting moderation"


def take_cookie(game_path: Path, store_path: Path | None, header: str | None) -> Result:
    """`tally post GAME --cookie-from-env`: the bot's session cookie, as a browser sends it
    ("name=value; name2=value2", env TALLY_COOKIE), into the game's cookie file (0600), for an
    engine tally does not log in to (JV). Under the game's lock: a running post cannot
    overwrite it. The values are never printed."""
    game = counting.load_game(game_path)
    _, url = crawl.engine_for(game.thread_url, game.board.engine)
    host = urlsplit(url).hostname or ""
    store_file = counting.store_path_of(game.path, store_path)
    cookie_file = credentials.cookie_path_of(store_file)
    with hold(lock_path_of(store_file), game.path.name):
        names = credentials.supply_cookies(cookie_file, header, host)
    return Result(EXIT_OK, f"saved the session cookie{'s' if len(names) > 1 else ''} "
                  f"{', '.join(names)} for {host} to {cookie_file} (mode 0600)")


# ---------------------------------------------------------------------------------------------
# The thread's tail


def own_post(thread: Thread, sha256: str, account: str | None,
             after: int | None = None) -> Post | None:
    """The bot's post carrying the marker of this count, later than position `after`."""
    wanted = marker(sha256)
    name = account.casefold() if account else None
    for post in reversed(thread.posts):
        if after is not None and post.position <= after:
            break
        if name is not None and post.author.casefold() != name:
            continue
        if wanted in post.body.own:
            return post
    return None


def _position(thread: Thread, post_id: str | None) -> int | None:
    return next((p.position for p in thread.posts if p.id == post_id), None) if post_id else None


def _last_post_id(thread: Thread) -> str | None:
    return max(thread.posts, key=lambda p: p.position).id if thread.posts else None


def _awaiting(row: Posted) -> bool:
    """A count the forum took into its moderation queue and the thread does not show yet."""
    return row.note == AWAITING_MODERATION


def _sent_at(row: Posted) -> datetime:
    return row.posted_at or row.started_at


def _last(posted: list[Posted]) -> LastPosted | None:
    if not posted:
        return None
    row = posted[-1]
    return LastPosted(summary=row.summary, at=row.posted_at or row.started_at, sha256=row.sha256)
