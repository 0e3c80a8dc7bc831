"""Rewrites of a saved page's bytes for the fast-path tests (tests/test_*_fastpath.py): each
mutated page must read the same by the byte scan and the tree, or the scan must decline."""

from __future__ import annotations

import re
from collections.abc import Callable

Mutation = Callable[[bytes], bytes]


def sub(pattern: bytes, repl: bytes, count: int = 1) -> Mutation:
    """The first `count` matches of `pattern` replaced by `repl` (re.sub)."""
    def mutate(data: bytes) -> bytes:
        return re.sub(pattern, repl, data, count=count)
    return mutate


def to_latin1(data: bytes) -> bytes:
    """A UTF-8 page as an ISO-8859-1 board serves it: the meta says so, characters outside
    Latin-1 are numeric references."""
    text = re.sub(r'charset=("?)[Uu][Tt][Ff]-8\1', r"charset=\1iso-8859-1\1", data.decode("utf-8"))
    return text.encode("latin-1", "xmlcharrefreplace")
