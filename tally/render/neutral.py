"""Forum text made inert for the markup it is pasted into (issue 17).

A name, a quote or a reason reaches a post as the forum wrote it: never translated, never
reworded. Only what the target markup would read as markup is changed, and the same way in every
place, so a player can still recognise the name:

- Bidirectional controls (U+202A-U+202E, U+2066-U+2069, and the marks U+200E, U+200F, U+061C)
  are removed in every format: a right-to-left override in a name would reverse the rest of the
  line (the markup and the other names after it).
- BBCode has no escape, and `[noparse]` exists on none of the engines tally posts to (phpBB,
  Forumotion, Discuz, Invision): square brackets become parentheses, `[` -> `(` and `]` -> `)`.
  Parentheses are no tag on any board and look like no bracket-lookalike (no fullwidth `［`), so
  `Judy[/url][url=http://evil.example]pwn` shows as `Judy(/url)(url=http://evil.example)pwn`,
  inside its own link.
- JV's markup: the same for `[` `]` (its stickers are `[[sticker:…]]`) and `<` `>` (its
  `<spoil>`, `<code>`), and a run of two or more apostrophes (`''` italic, `'''` bold) gets
  typographic ones (’), which JV does not read as markup; a single apostrophe (D'Artagnan)
  stays.
- Markdown escapes its punctuation with a backslash; HTML escapes with entities (in html.py).
"""

from __future__ import annotations

import re

BIDI = re.compile("[\u200e\u200f\u061c\u202a-\u202e\u2066-\u2069]")
_BBCODE = str.maketrans({"[": "(", "]": ")"})
_JV = str.maketrans({"[": "(", "]": ")", "<": "(", ">": ")"})
_APOSTROPHES = re.compile(r"'{2,}")


def strip_bidi(text: str) -> str:
    return BIDI.sub("", text)


def bbcode(text: str) -> str:
    return strip_bidi(text).translate(_BBCODE)


def jv(text: str) -> str:
    return _APOSTROPHES.sub(lambda m: "’" * len(m.group()), strip_bidi(text).translate(_JV))


def markdown(text: str) -> str:
    return "".join("\\" + c if c in "\\`*_[]()#<>|~" else c for c in strip_bidi(text))


def plain(text: str) -> str:
    return strip_bidi(text)
