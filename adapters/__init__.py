"""Forum engines. A short explicit list (STYLE.md): each entry is one engine serving many sites.

`REGISTRY` is the one place an engine is named: its reader (the Engine subclass that reads its
pages), its replier (tally.adapters.reply: how tally posts there) and the markup its posts are
written in. Adding an engine is adding a line here, its modules in adapters/ and its fixture
cases in fixtures/<engine>/ (tests/test_engine_registry.py checks all three).

`for_url(url, forced=None)` picks the engine for a thread URL; an `engine:URL` prefix or the game
file's `thread.engine` forces one. `sniff(data)` recognises a saved page.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from tally.adapters.base import Engine, PageContext
from tally.errors import InputError

__all__ = ["Engine", "PageContext", "ENGINES", "REGISTRY", "Registered", "engines", "get",
           "registered", "for_url", "sniff", "split_forced"]


@dataclass(frozen=True)
class Registered:
    """One engine: where its reader and its replier live ("module:Class" in adapters/)."""

    name: str  # as in game files (thread.engine), engine:URL and the store
    reader: str  # an Engine subclass
    replier: str | None  # a tally.adapters.reply.Replier subclass; None: tally cannot post there
    no_replier: str = ""  # why there is none (required when `replier` is None)
    markup: str = "bbcode"  # what a post in its threads is written in (tally.render.post)

    def load(self, spec: str) -> Any:
        module_name, _, class_name = spec.partition(":")
        return getattr(importlib.import_module(f"tally.adapters.{module_name}"), class_name)


# The order is the order detection tries them in.
REGISTRY: tuple[Registered, ...] = (
    Registered("phpbb", "phpbb:PhpBB", "phpbb_reply:PhpBBReplier"),
    Registered("forumotion", "forumotion:Forumotion", "forumotion_reply:ForumotionReplier"),
    Registered("jv", "jv:JV", "jv_reply:JVReplier", markup="jv"),
    Registered("discuz", "discuz:Discuz", "discuz_reply:DiscuzReplier"),
    Registered("invision", "invision:Invision", "invision_reply:InvisionReplier"),
)


def registered(name: str) -> Registered:
    for entry in REGISTRY:
        if entry.name == name:
            return entry
    raise InputError(f"unknown forum engine {name!r} (known: "
                     f"{', '.join(e.name for e in REGISTRY)})")


def _engines() -> dict[str, Engine]:
    found: dict[str, Engine] = {}
    for entry in REGISTRY:
        engine: Engine = entry.load(entry.reader)()
        found[engine.name] = engine
    return found


ENGINES: dict[str, Engine] = {}


def engines() -> dict[str, Engine]:
    if not ENGINES:
        ENGINES.update(_engines())
    return ENGINES


def get(name: str) -> Engine:
    try:
        return engines()[name]
    except KeyError:
        known = ", ".join(engines())
        raise InputError(f"unknown forum engine {name!r} (known: {known})") from None


def split_forced(url: str) -> tuple[str | None, str]:
    """'phpbb:https://…' -> ('phpbb', 'https://…'); a plain URL -> (None, url)."""
    head, sep, rest = url.partition(":")
    if sep and head in engines() and not rest.startswith("//"):
        return head, rest
    return None, url


def for_url(url: str, forced: str | None = None) -> Engine:
    prefix, url = split_forced(url)
    if forced or prefix:
        return get(forced or prefix or "")
    for engine in engines().values():
        if engine.accepts(url):
            return engine
    raise InputError(
        f"{url}: not a thread URL of a known forum engine ({', '.join(engines())}); "
        "set thread.engine in the game file or write engine:URL"
    )


def sniff(data: bytes) -> Engine | None:
    for engine in engines().values():
        if engine.looks_like(data):
            return engine
    return None
