"""The posting seam (issue 5): log in as the game's bot and reply in the thread.

One `Replier` subclass per engine, in `adapters/<engine>_reply.py`, named by the engine's line
in tally.adapters.REGISTRY and found by `replier_for`.
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
(the run remembers it as held, so the same count is never sent into the queue twice). An answer
that is neither the engine's confirmation nor a known refusal is a ForumError, never a Reply.
A replier never logs, prints or puts in a message the password or a cookie.
"""

from __future__ import annotations

import codecs
import re
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import ClassVar, Protocol
from urllib.parse import urlencode

from tally import adapters, fetch
from tally.adapters.html import browser_codec, declared_charset
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


def replier_for(engine: str, http: Http) -> Replier:
    """The replier the engine's registry line names (tally.adapters.REGISTRY), or a one-line
    error when tally cannot post there."""
    entry = next((e for e in adapters.REGISTRY if e.name == engine), None)
    if entry is None or entry.replier is None:
        raise InputError(f"tally cannot post on {engine} forums")
    replier: Replier = entry.load(entry.replier)(http)
    return replier


# ---------------------------------------------------------------------------------------------
# Forms as a browser sends them

_CT_CHARSET = re.compile(r"charset=([A-Za-z0-9_.:-]+)", re.IGNORECASE)
_XML_ENCODING = re.compile(rb"""<\?xml[^>]*encoding=["']([A-Za-z0-9_.:-]+)""")
# The encoder a browser uses for a page's form (WHATWG Encoding Standard): GBK for the
# gb2312/gbk labels, windows-1252 for iso-8859-1 and ascii (browser_codec), the label's own
# codec otherwise.
_FORM_CODECS = {"gb2312": "gbk", "gbk": "gbk", "x-gbk": "gbk", "gb_2312-80": "gbk",
                "csgb2312": "gbk", "chinese": "gbk", "iso-ir-58": "gbk"}


def page_charset(response: Response) -> str:
    """The charset an answer declares: Content-Type, the XML declaration, then the page's meta."""
    header = _CT_CHARSET.search(response.headers.get("Content-Type", ""))
    if header:
        return header.group(1).lower()
    xml = _XML_ENCODING.search(response.body[:200])
    if xml:
        return xml.group(1).decode("ascii").lower()
    return declared_charset(response.body)


def encode_form(fields: Mapping[str, str] | Sequence[tuple[str, str]],
                charset: str) -> tuple[str, dict[str, str]]:
    """The form as a browser on a page of `charset` sends it: urlencoded in that charset, a
    character it lacks as a &#N; reference (phpBB 2 and Discuz keep those as characters).
    Sending UTF-8 to an ISO-8859-1 or GBK board would store mojibake, and the count's own
    marker would no longer be found in the thread (the never-twice check)."""
    codec = _FORM_CODECS.get(charset.lower()) or browser_codec(charset)
    try:
        codecs.lookup(codec)
    except LookupError:
        codec = "utf-8"
    items = list(fields.items()) if isinstance(fields, Mapping) else list(fields)
    body = urlencode(items, encoding=codec, errors="xmlcharrefreplace")
    return body, {"Content-Type": f"application/x-www-form-urlencoded; charset={charset}"}
