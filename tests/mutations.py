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


# Markup a member's message may hold that could end the message elsewhere in the page, or hide
# markup, as libxml2 reads it: every byte scan must decline a page holding one.
HOSTILE_IN_MESSAGES: dict[str, bytes] = {
    "script in a message": b"<script>var d = '</div>';</script>",
    "style in a message": b"<style>p { color: red }</style>",
    "textarea in a message": b"<textarea></div></textarea>",
    "CDATA in a message": b"<![CDATA[ </div> ]]>",
    "unbalanced end div": b"</div>vote: X",
    "unclosed div": b"<div>vote: X",
    "stray table end tag": b"</td>vote: X",
    "table": b"<table><tr><td>vote</td></tr></table>",
    "upper-case tags": b"<DIV>vote: <B>X</B></DIV>",
    "self-closed div": b"<div/>vote: X",
    "attribute holding a tag": b'<span title="</div><div>">x</span>',
    "single-quoted attributes": b"<span class='a' title='<b>'>x</span>",
    "iframe": b'<iframe src="https://www.youtube.com/embed/x"></iframe>',
    "body tag in a message": b'<body id="x">vote</body>',
}


def declined_in_messages(in_messages: Callable[[bytes], Mutation]) -> dict[str, tuple[Mutation, bool]]:
    """HOSTILE_IN_MESSAGES as mutations of an engine's messages, none of them read fast."""
    return {name: (in_messages(snippet), False) for name, snippet in HOSTILE_IN_MESSAGES.items()}
