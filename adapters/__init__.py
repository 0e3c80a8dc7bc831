"""Forum engines. A short explicit list (STYLE.md): each entry is one engine serving many sites.

`for_url(url, forced=None)` picks the engine for a thread URL; an `engine:URL` prefix or the game
file's `thread.engine` forces one. `sniff(data)` recognises a saved page.
"""

from __future__ import annotations

from tally.adapters.base import Engine, PageContext
from tally.errors import InputError

__all__ = ["Engine", "PageContext", "ENGINES", "get", "for_url", "sniff", "split_forced"]


def _engines() -> dict[str, Engine]:
    found: dict[str, Engine] = {}
    # The order is the order detection tries them in.
    for module_name, class_name in (
        ("phpbb", "PhpBB"),
        ("forumotion", "Forumotion"),
        ("jv", "JV"),
        ("discuz", "Discuz"),
        ("invision", "Invision"),
    ):
        try:
            module = __import__(f"tally.adapters.{module_name}", fromlist=[class_name])
        except ModuleNotFoundError as exc:
            if exc.name != f"tally.adapters.{module_name}":
                raise
            continue
        engine = getattr(module, class_name)()
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
