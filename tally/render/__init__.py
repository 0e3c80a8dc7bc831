"""Renderers: Tally -> text. They consume records only and never import scraping code.

Public formats (bbcode, markdown, jv) never see GM-only data (C5): they are built from
`public_view(tally)`, which drops findings, secret effects and the GM's result. The GM formats
(text, json) add the GM report after the public part.
"""

from __future__ import annotations

from tally.errors import InputError
from tally.model import Tally

FORMATS = ("bbcode", "markdown", "jv", "text", "json")


def render(tally: Tally, fmt: str, *, public: bool = False, lang: str = "en") -> str:
    """`tally` in the format `fmt`, written in `lang` (JSON is data: its keys and the rules'
    reasons stay as they are, in English)."""
    from tally.render import gmreport, jsonout, post

    if fmt in ("bbcode", "markdown", "jv"):
        return post.render_post(tally, fmt, lang)
    if fmt == "text":
        text = post.render_post(tally, "text", lang)
        return text if public else text + "\n" + gmreport.render_gm(tally, lang)
    if fmt == "json":
        return jsonout.render_json(tally, public=public)
    raise InputError(f"unknown format {fmt!r} (known: {', '.join(FORMATS)})")
