"""The posting seam (issue 5): log in as the game's bot and reply in the thread.

One `Replier` subclass per engine, in `adapters/<engine>_reply.py`, found by `replier_for`.
A replier speaks the forum's own forms (FORUMS.md "Posting"/"Reply" of each engine) through an
`Http` that keeps the cookie jar; everything around it (when to post, never twice, the lock,
credentials, holds) lives once in tally/ and never in an adapter.

Errors a replier raises, each one line (tally.errors):
- LoginError: the forum refused the credentials (or the account is banned).
- CannotPostHere: a captcha or challenge stands in the way; no automatic post is possible.
  Its message ends "cannot post automatically here": the run adds where the count is left.
- FloodLimit(wait=…): too soon after the last post.
- SessionExpired: the stored session is no longer valid (the caller logs in again once).
- OutcomeUnknown: the reply went out and no answer came back; the post may exist.
- ForumError: anything else the forum said no to, quoting its message.
A post the forum took but holds for a moderator is not an error: a Reply with visible=False
(the run records it as posted, so the same count is never sent into the queue twice).
A replier never logs, prints or puts in a message the password or a cookie.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar, Protocol

from tally import fetch
from tally.errors import InputError
from tally.fetch import Response


@dataclass(frozen=True)
class Credentials:
    """The bot's account. The password never shows in a repr, a log or a message."""

    account: str
    password: str = field(repr=False)


@dataclass(frozen=True)
class Reply:
    """What the forum made of a reply: the new post's id and address, when it says; `visible`
    False when the post exists but waits for a moderator (Discuz "回复需要审核")."""

    post_id: str | None
    url: str | None = None
    visible: bool = True


FormData = fetch.FormData  # fields, or a body already encoded (str | bytes: Discuz, §4.4)


class Http(Protocol):
    """What a replier may do on the network (tally.fetch.Fetcher is one)."""

    def get(self, url: str) -> Response:
        """A polite GET with the session's cookies; retried on 5xx/429 as for reading."""

    def post(self, url: str, data: FormData, *, files: Mapping[str, tuple[str | None, str]] |
             None = None, headers: Mapping[str, str] | None = None) -> Response:
        """A POST with the session's cookies. Never retried: a retried reply may post twice.
        A lost answer is OutcomeUnknown; an HTTP error status is returned, not raised."""


class Replier(ABC):
    """Login and reply for one engine. One instance per run; the Http holds the session."""

    name: ClassVar[str]  # the engine's name, as in tally.adapters ("phpbb", ...)
    # False: the engine is never logged into by tally (JV: its login wants a captcha); the
    # session is a cookie the GM supplies, so no password is asked and the cookie file is the
    # GM's: never deleted when the session ends.
    password_login: ClassVar[bool] = True

    def __init__(self, http: Http) -> None:
        self.http = http

    @abstractmethod
    def logged_in(self, page: bytes, account: str) -> bool:
        """Whether a page fetched with the session shows `account` logged in."""

    @abstractmethod
    def login(self, thread_url: str, credentials: Credentials) -> None:
        """Log in; raises LoginError, CannotPostHere or ForumError."""

    @abstractmethod
    def reply(self, thread_url: str, text: str) -> Reply:
        """Post `text` (in the forum's markup) as a reply to the thread; see the module doc."""


_REPLIERS = {
    "phpbb": ("phpbb_reply", "PhpBBReplier"),
    "forumotion": ("forumotion_reply", "ForumotionReplier"),
    "discuz": ("discuz_reply", "DiscuzReplier"),
    "invision": ("invision_reply", "InvisionReplier"),
    "jv": ("jv_reply", "JVReplier"),
}


def replier_for(engine: str, http: Http) -> Replier:
    """The replier of an engine, or a one-line error when tally cannot post there."""
    if engine not in _REPLIERS:
        raise InputError(f"tally cannot post on {engine} forums")
    module_name, class_name = _REPLIERS[engine]
    module = __import__(f"tally.adapters.{module_name}", fromlist=[class_name])
    replier: Replier = getattr(module, class_name)(http)
    return replier
