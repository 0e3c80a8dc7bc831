"""Forumotion's fast path (DESIGN.md "Performance"): stock pages read from their bytes.

Building the page's tree and walking it post by post costs several times lxml's bare parse.
A page whose posts are exactly a stock template (FORUMS.md §1.2; phpBB3 and ModernBB here) is
read from its bytes instead. Each post must match its theme's template: the chrome verbatim,
the holes the board fills (icons, names, ranks, dates) holding inline markup only, and the
member's own spans (message, edit notice, signature) holding nothing that may end them
elsewhere in the page or hide markup (comments, scripts, tables, stray or unclosed divs, deep
nesting), so that lxml reads them alone as it reads them in the page: all in one parse per
page. Anything else (a template the admin changed, hidden posts, a guest's post, a page
without its URL...) makes fast_page() decline with None, and forumotion's tree reader reads the
page. tests/test_forumotion_fastpath.py proves both give the same Page, on the saved pages and
on mutations of them. Docstrings here name the tree reader's step (in forumotion) each
function matches.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

from lxml import etree
from lxml.html import HtmlElement

from tally import times
from tally.adapters.base import PageContext
from tally.adapters.forumotion import (
    EDIT_WORD,
    PROFILE_LINK,
    Forumotion,
    PostReader,
    TopicUrl,
    calls_hidden,
    classify,
    find_time,
    js_pages,
    js_per_page,
    parser,
    read_aside,
    read_quote,
    split_topic_url,
)
from tally.adapters.html import block_text, collapse, parser_encoding, split_body
from tally.model import EditMarker, Page, Post

_WS = rb"[ \t\n\r\f]*+"
_ATTRS = (rb"(?:[ \t\n\r\f]++[^ \t\n\r\f\"'>/=]++(?:[ \t\n\r\f]*+=[ \t\n\r\f]*+"
          rb"(?:\"[^\"]*+\"|'[^']*+'|[^ \t\n\r\f\"'=<>`]++))?+)*+")
# Any tag, as the HTML tokenizer reads it (quoted attribute values may hold "<" and ">"); the
# second branch is a "<" that starts markup this pattern does not read: a comment ("<!--"),
# another "<!" or "<?" construct, or a malformed tag.
_TAG = re.compile(rb"<(?:(/?)([a-zA-Z][a-zA-Z0-9]*+)" + _ATTRS + rb"[ \t\n\r\f]*+/?>"
                  rb"|(?=[!?/a-zA-Z])(!--)?)")
_ATTR = re.compile(rb"[ \t\n\r\f]+([^ \t\n\r\f\"'>/=]+)(?:[ \t\n\r\f]*=[ \t\n\r\f]*"
                   rb"(?:\"([^\"]*)\"|'([^']*)'|([^ \t\n\r\f\"'=<>`]+)))?")

# Inline tags (a abbr b big em font i s small span strike strong sub sup u, and the void br img
# wbr), spelled as tries: the regex engine tries far fewer branches per tag.
_INLINE_PAIRED = rb"(?:a(?:bbr)?|b(?:ig)?|em|font|i|s(?:mall|pan|trike|trong|u[bp])?|u)"
_INLINE_NAME = rb"(?:a(?:bbr)?|b(?:ig|r)?|em|font|i(?:mg)?|s(?:mall|pan|trike|trong|u[bp])?|u|wbr)"
# A hole the board fills with inline markup: text, and inline tags whose attributes hold no
# "<" or ">". No block opens or closes in it, so it cannot move the template's own blocks.
_INLINE = (rb"(?:[^<]++|<" + _INLINE_NAME + rb"(?=[ \t\n\r\f/>])[^<>]*+>|</" + _INLINE_PAIRED
           + rb">)*+")

# Elements whose text the tokenizer does not read as markup (libxml2 2.14 follows HTML5).
_RAW_TEXT = frozenset(b"script style textarea title xmp iframe noembed noframes plaintext".split())
_RAW_NAMES = rb"script|style|t(?:extarea|itle)|xmp|iframe|no(?:embed|frames)|plaintext"


def _run(names: bytes) -> bytes:
    """Text and well-formed tags, up to a tag named here (in lower case) or spelled with
    capitals, or a "<!" or "<?" construct: where a scan must look closer."""
    return (rb"(?:[^<]++|<(?![!?]|/?(?:" + names + rb")[ \t\n\r\f/>])/?[a-z][a-z0-9]*+" + _ATTRS
            + rb"[ \t\n\r\f]*+/?>|<(?![!?/a-zA-Z]))*+")


# A member's markup up to its next tag that may change where its span ends. No start tag makes
# libxml2 close a div (htmlStartClose); an end tag only closes past a div when its own priority
# is higher (htmlEndPriority: the table family, head, body, html); an open table element stops
# a </div>. Other tags, balanced or not, stay inside the span, whatever surrounds it.
_FLAT = _run(rb"div|t(?:able|body|foot|head|[dhr])|c(?:aption|ol(?:group)?)|h(?:tml|ead)"
             rb"|body|frame(?:set)?|" + _RAW_NAMES)
_DIV = rb"<div" + _ATTRS + rb"[ \t\n\r\f]*+>"


def _member(depth: int, div: bytes = _DIV) -> bytes:
    """A member's span (message, edit notice, signature) whose divs nest `depth` deep at most,
    each closed by its own </div>."""
    span = _FLAT
    for _ in range(depth):
        span = _FLAT + rb"(?:" + div + span + rb"</div>" + _FLAT + rb")*+"
    return span


def _template(*parts: bytes) -> re.Pattern[bytes]:
    """A stock post's markup, one tag or hole per part, blanks allowed before each part."""
    return re.compile(_WS + _WS.join(parts))


# The post's own tag: its id and a post--ID class (§1.2, _post_elements); ONLINE_IMG_NEW, the
# group and THANK_BGCOLOR may add classes and attributes.
_POST_TAG = (rb'<div id="p(?P<id>[0-9]+)" class="(?P<cls>(?:[^"<>&]*[ \t\n\r\f])?post--(?P=id)'
             rb'(?:[ \t\n\r\f][^"<>&]*+)?)"(?:[ \t\n\r\f]++[a-z-]++="[^"<>&]*+")*+' + _WS + rb">")
_ANCHOR = rb'<div style="position: relative; top: -30px; width: 1px;" id="(?P=id)"></div>'
_PROFILE = (rb'<div class="postprofile" id="profile(?P=id)">'
            rb'(?:' + _WS + rb'<!-- div class="online2"></div-->)?')
_FIELDS = rb'(?P<fields>(?:<dd(?: class="[^"<>&]*+")?>' + _INLINE + rb"</dd>" + _WS + rb")*+)"
_ICONS = (rb'<ul class="profile-icons">(?P<icons>(?:' + _WS + rb'<li(?: class="[^"<>&]*+")?>'
          + _INLINE + rb"</li>)*+)")
_TITLE = (rb'<h2 class="topic-title">(?:' + _WS + rb"<img [^<>]*+>)?+" + _WS
          + rb'<a href="(?P<href>[^"<>&#]*+#(?P=id))">(?P<subject>[^<]*+)</a>')
_MESSAGE = rb"<div>(?P<message>" + _member(4) + rb")</div>"
_SIGNATURE = (rb'(?:(?P<signature><div class="signature_div" id="sig(?P=id)">' + _member(4)
              + rb"</div>)" + _WS + rb")?")

# phpBB3 (prosilver): Etana/template src/prosilver/viewtopic_body.tpl. {EDITED_MESSAGE} sits
# straight in div.postbody, before the signature.
_PHPBB3_VOTE = (
    rb'<div class="vote gensmall">(?:' + _WS + rb'(?:<div class="vote-button">'
    + _INLINE + rb'</div>|<div class="vote-bar" title="[^"<>]*">(?:' + _WS
    + rb'<div class="vote-bar-(?:plus|minus)" style="[^"<>]*+"></div>)*+' + _WS
    + rb'</div>|<div title="[^"<>]*+" class="vote-no-bar">[^<]*+</div>))*+' + _WS + rb"</div>")
_PHPBB3 = _template(
    _POST_TAG, rb'<div class="inner"><span class="corners-top"><span></span></span>', _ANCHOR,
    rb'<div class="postbody">', _ICONS, rb"</ul>", _TITLE, rb"</h2>",
    rb'<p class="author">(?P<byline>' + _INLINE + rb")</p>", rb'<div class="clearfix"></div>',
    rb"(?P<vote>(?:" + _PHPBB3_VOTE + rb")?+)", rb'<div style="display:none"></div>',
    rb'<div class="content clearfix">', _MESSAGE, rb"</div>",
    rb"(?P<notice>" + _member(4, rb'<div(?! class="signature_div" id="sig)' + _ATTRS + _WS
                              + rb">") + rb")" + _SIGNATURE + rb"</div>",
    _PROFILE, rb"<dl>", rb"<dt>(?P<box>" + _INLINE + rb")</dt>", _FIELDS, rb"</dl>", rb"</div>",
    rb'<div class="clear"></div>', rb'<p class="right">(?P<right>' + _INLINE + rb")</p>",
    rb'<span class="corners-bottom"><span></span></span></div>', rb"</div>")

# ModernBB: Etana/template src/modernbb/viewtopic_body.tpl. The profile comes first; the vote
# block sits in div.topic-date, {EDITED_MESSAGE} in a div.edited-message of its own.
_MODERNBB_VOTE = (
    rb'<div class="vote">(?:' + _WS + rb'(?:<a [^<>]*+></a>|<div class="vote-bar" '
    rb'title="[^"<>]*+">' + _WS + rb'<div class="vote-bar-desc">[^<]*+</div>' + _WS
    + rb'<div class="vote-bars">(?:' + _WS + rb'<div class="vote-bar-(?:plus|minus)" '
    rb'style="[^"<>]*+"></div>)*+' + _WS + rb"</div>" + _WS + rb'</div>|<div title="[^"<>]*+" '
    rb'class="vote-bar-empty"></div>))*+' + _WS + rb"</div>")
_MODERNBB = _template(
    _POST_TAG, _ANCHOR, _PROFILE, rb"<dl>", rb"<dt>",
    rb'<div class="postprofile-avatar">(?P<avatar>' + _INLINE + rb")</div>",
    rb'<div class="postprofile-name">(?P<box>' + _INLINE + rb")</div>",
    rb'<div class="postprofile-rank">(?P<rank>' + _INLINE + rb")</div>", rb"</dt>", _FIELDS,
    rb"</dl>", rb"</div>", rb'<div class="post-head">', _ICONS, rb"</ul>", _TITLE, rb"</h2>",
    rb'<div class="topic-date">(?P<byline>' + _INLINE + rb"(?:" + _MODERNBB_VOTE + rb")?"
    + _WS + rb")</div>", rb"</div>", rb'<div class="postbody">', rb'<div class="content">',
    _MESSAGE, rb"</div>", rb'<div class="edited-message">(?P<notice>' + _member(4) + rb")</div>"
    + _WS + _SIGNATURE + rb"</div>", rb"</div>")


@dataclass(frozen=True, slots=True)
class _Stock:
    """A stock theme the fast path reads."""

    theme: str  # as detect_theme() names it
    post: re.Pattern[bytes]  # one post; groups: id, cls, box (the /u link's box), byline (the
    # date line), href (the permalink), message, notice, signature, and the holes below
    holes: tuple[str, ...]  # the other groups the board fills: no edit or signature words
    notice_in_postbody: bool  # the notice's text lies straight in div.postbody (phpBB3)
    # What detect_theme() reads before this theme's body id, absent from the page's bytes:
    # classes and ids (bodylinewidth, fa_edge, ipbwrapper), class tokens ("pun").
    earlier: tuple[bytes, ...] = ()
    earlier_tokens: tuple[bytes, ...] = ()


_STOCKS = {  # by the body id detect_theme() reads them by
    "phpbb": _Stock("phpbb3", _PHPBB3, ("icons", "subject", "byline", "vote", "box", "fields",
                                        "right"), True, (b"bodylinewidth",)),
    "modernbb": _Stock("modernbb", _MODERNBB, ("avatar", "box", "rank", "fields", "icons",
                                               "subject", "byline"), False,
                       (b"bodylinewidth", b"fa_edge", b"ipbwrapper"), (b"pun",)),
}
# What the tree path decodes with (html.parser_encoding: iso-8859-1 is read as windows-1252).
_CODECS = {"utf-8": "utf-8", "cp1252": "cp1252"}
# Where a stock body id may be (_STOCKS): every body tag _body_tag() reads one from holds it.
_STOCK_BODY = re.compile(rb"<body[^>]*(?:phpbb|modernbb)")
# Bytes windows-1252 leaves undefined: the tree reads them as browsers do (html.parser_input);
# pages holding one are rare, and left to it.
_CP1252_HOLES = re.compile(rb"[\x81\x8d\x8f\x90\x9d]")


def fast_page(engine: Forumotion, data: bytes, ctx: PageContext) -> Page | None:
    """The page read from its bytes, or None when the scan is not sure (module docstring)."""
    if _STOCK_BODY.search(data) is None:
        return None  # first, the cheapest test: other themes' pages go to the tree at once
    body = _body_tag(data)
    stock = _STOCKS.get(body[0]) if body else None
    if body is None or stock is None:
        return None
    charset = parser_encoding(data)
    codec = _CODECS.get(charset)
    if codec == "cp1252" and _CP1252_HOLES.search(data):
        return None
    text = _decoded(data, codec)
    if (text is None or codec is None or _earlier_skeleton(data, stock) or calls_hidden(data)
            or _spelled_by_references(data)):
        return None
    title = _page_title(data, body[1], codec)
    posts = _stock_posts(data, title[1], stock) if title else None
    topic = split_topic_url(engine.normalise_url(ctx.url))
    paging = _fast_paging(engine, data, text, ctx, topic, len(posts)) if posts else None
    parts = _member_spans(data, posts, charset) if posts and paging else None
    if not (title and posts and paging and parts):
        return None
    number, count, per_page = paging
    reader = _StockReader(PostReader(engine, ctx, stock.theme, data), stock, codec)
    read = []
    for position, (post, elements) in enumerate(zip(posts, parts, strict=True),
                                                 start=(number - 1) * per_page + 1):
        if (found := reader.read(post, elements, position)) is None:
            return None
        read.append(found)
    return Page(
        url=ctx.url,
        number=number,
        count=count,
        posts=tuple(read),
        thread_id=topic.topic if topic else None,
        title=title[0],
        next_url=engine.next_url(topic, number, count, per_page),
        notes=(f"theme: {stock.theme}",),
    )


def _decoded(data: bytes, codec: str | None) -> str | None:
    """The page's text as parse_page decodes it for the pagination JS; None when the charset is
    not one the scan reads, or when the UTF-8 is broken (libxml2's recovery is not the scan's
    to guess) or starts with a byte-order mark."""
    if codec is None or data.startswith(b"\xef\xbb\xbf"):
        return None
    if codec != "utf-8":
        return data.decode("utf-8", "replace")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


# References that may spell what the scan looks for in the bytes (class names, edit words,
# link offsets): ASCII but for quotes, "&", "<" and ">"; the accented letters of edit words.
_SPELLING_REFERENCE = re.compile(
    rb"&(?:#([xX][0-9a-fA-F]{1,8}|[0-9]{1,10})|lowbar|UnderBar|num|sol|equals|[oO]acute|[cC]cedil"
    rb"|[aA]tilde)")
_UNSPELLING = frozenset(b"\"&'<>")
_EDIT_LETTERS = frozenset("óÓçÇãÃ".encode("latin-1"))


def _spelled_by_references(data: bytes) -> bool:
    """Whether a reference may spell what the scan reads in the bytes (see above)."""
    for ref in _SPELLING_REFERENCE.finditer(data):
        number = ref.group(1)
        if number is None:
            return True
        code = int(number[1:], 16) if number[:1] in b"xX" else int(number)
        if code < 0x80 and code not in _UNSPELLING or code in _EDIT_LETTERS:
            return True
    return False


def _earlier_skeleton(data: bytes, stock: _Stock) -> bool:
    """Whether the page may hold what detect_theme() would read before the stock theme's body
    id (anywhere in the page, to be safe, where detect_theme() looks at the body's first
    levels only). A class token is any occurrence not inside a longer word: str.split() also
    splits on blanks outside ASCII."""
    if any(mark in data for mark in stock.earlier):
        return True
    for token in stock.earlier_tokens:
        at = data.find(token)
        while at >= 0:
            end = at + len(token)
            if not (data[at - 1:at].isalnum() or data[end:end + 1].isalnum()):
                return True
            at = data.find(token, end)
    return False


_HEAD = re.compile(rb"(?:[ \t\n\r\f]++|<!DOCTYPE[^<>]*+>)*+<html" + _ATTRS + _WS + rb">" + _WS
                   + rb"<head" + _ATTRS + _WS + rb">")
_HEAD_ELEMENT = re.compile(rb"[ \t\n\r\f]*+(?:<(?:meta|link|base)" + _ATTRS + rb"[ \t\n\r\f]*+/?>"
                           rb"|<(title|script|style)" + _ATTRS + rb"[ \t\n\r\f]*+>|(<!--))")
_BODY = re.compile(rb"[ \t\n\r\f]*+</head>[ \t\n\r\f]*+<body(" + _ATTRS + rb")[ \t\n\r\f]*+>")


def _body_tag(data: bytes) -> tuple[str, int] | None:
    """The body's id and where its start tag ends, when the head holds head elements only: any
    other element or text there makes libxml2 imply a body, without the tag's id, before it."""
    head = _HEAD.match(data)
    at = head.end() if head else -1
    while at >= 0 and (element := _HEAD_ELEMENT.match(data, at)) is not None:
        if element.group(1):
            at = _raw_text_end(data, element.group(1), element.end(), len(data))
        elif element.group(2):
            at = _comment_end(data, element.start(2), len(data))
        else:
            at = element.end()
    body = _BODY.match(data, at) if at >= 0 else None
    if body is None:
        return None
    attributes = _attributes(body.group(1))
    body_id = attributes.get(b"id") if attributes else None
    if not body_id or b"&" in body_id:
        return None
    return body_id.decode("latin-1"), body.end()


_PAGE_TITLE = re.compile(rb'<h1 class="page-title">(' + _INLINE + rb")</h1>")


def _page_title(data: bytes, start: int, codec: str) -> tuple[str | None, int] | None:
    """_title() from the bytes: the first h1.page-title, when it is the first "page-title" of
    the page and holds inline markup only; and where it ends."""
    at = data.find(b"page-title", start) - len(b'<h1 class="')
    found = _PAGE_TITLE.match(data, at) if at >= start else None
    if found is None or not _markup_end(data, start, at):
        return None
    text = _inline_text(found.group(1), codec)
    return (collapse(text) or None, found.end()) if text is not None else None


_POST_MARK = re.compile(rb"post--[0-9]")


def _stock_posts(data: bytes, start: int, stock: _Stock) -> list[re.Match[bytes]] | None:
    """Every post of the page in order, when each post--ID class of the page is a stock post's
    own (one per post's tag: _post_elements() reads the first), each post starts in plain
    markup, and the tree path would read each post's parts where the scan does."""
    if _POST_MARK.search(data, 0, start):
        return None
    posts: list[re.Match[bytes]] = []
    seen: set[bytes] = set()
    end = start
    for mark in _POST_MARK.finditer(data, start):
        at = data.rfind(b"<", end, mark.start())
        post = stock.post.match(data, at) if at >= 0 and _markup_end(data, end, at) else None
        if (post is None or post.group("id") in seen
                or not post.start("cls") <= mark.start() < post.end("cls")
                or not _plain_post(data, post, stock)):
            return None
        seen.add(post.group("id"))
        posts.append(post)
        end = post.end()
    return posts or None


# Member text the tree path would take for a signature or an edit notice in the chrome: the
# words of EDIT_WORD and EDIT_RE, in lower case, UTF-8 or ISO-8859-1; signature classes.
_CHROME_WORDS = re.compile(rb"edi(?:c|ted|\xc3[\xa7\x87]|[\xe7\xc7])|dition|signature|sig-content")
# What the tree path would take from a member's span for a part it finds elsewhere: an author
# box (phpBB3's comes after the message and signature); a signature in the notice's place.
_SPAN_WORDS = re.compile(rb"postprofile")
_NOTICE_WORDS = re.compile(rb"postprofile|signature|sig-content")


def _plain_post(data: bytes, post: re.Match[bytes], stock: _Stock) -> bool:
    """Whether the tree path reads this post's parts where the scan finds them: no signature or
    edit words in the holes, no link before the title's (which ends with #ID: the permalink)
    that ends with #ID, no author box in the member's spans, no signature in the edit notice's
    place."""
    holes = b"\n".join(post.group(*stock.holes)).lower()
    return ((b"di" not in holes and b"sig" not in holes or _CHROME_WORDS.search(holes) is None)
            and data.find(b"#" + post.group("id"), post.start(), post.start("href")) < 0
            and not _SPAN_WORDS.search(data, *post.span("message"))
            and not _NOTICE_WORDS.search(data, *post.span("notice"))
            and not _SPAN_WORDS.search(data, *post.span("signature")))


# Plain markup, up to its next comment, raw-text element or odd construct.
_MARKUP_RUN = re.compile(_run(_RAW_NAMES))
_RAW_END = re.compile(rb"</(" + _RAW_NAMES + rb")[ \t\n\r\f/>]", re.IGNORECASE)


def _markup_end(data: bytes, start: int, end: int) -> bool:
    """Whether `end` lies in plain markup after `start`: between them only text, tags,
    comments and raw-text elements that close before `end`, so what begins at `end` is a tag
    and not part of a comment, a script or an attribute."""
    at = start
    while (run := _MARKUP_RUN.match(data, at, end)) is not None and (at := run.end()) < end:
        tag = _TAG.match(data, at, end)
        name = tag.group(2) if tag else None
        if tag is None or name is None and tag.group(3) is None:
            return False  # "<!DOCTYPE", "<?", a malformed tag
        if name is None:
            at = _comment_end(data, at, end)
        elif tag.group(1) or (name := name.lower()) not in _RAW_TEXT:
            at = tag.end()  # a stray end tag, a tag spelled with capitals: nothing to skip
        else:
            at = _raw_text_end(data, name, tag.end(), end)
        if at < 0:
            return False
    return True


def _comment_end(data: bytes, start: int, end: int) -> int:
    """The end of the comment at `start` ("<!--"), or -1 when it does not end before `end` in
    the plain form (HTML5 also ends comments at "--!>" and reads "<!-->" as a comment)."""
    if data.startswith((b"<!-->", b"<!--->"), start):
        return -1
    close = data.find(b"-->", start + 4, end)
    if close < 0 or data.find(b"--!>", start + 4, close) >= 0:
        return -1
    return close + 3


def _raw_text_end(data: bytes, name: bytes, start: int, end: int) -> int:
    """The end of a raw-text element's end tag, or -1: none before `end`, <plaintext> (which
    never ends), a script whose text holds "<!--" (HTML5 may not end it at "</script>")."""
    close = _RAW_END.search(data, start, end)
    while close is not None and close.group(1).lower() != name:
        close = _RAW_END.search(data, close.end(), end)
    if close is None or name == b"plaintext" or (
            name == b"script" and data.find(b"<!--", start, close.start()) >= 0):
        return -1
    gt = data.find(b">", close.start(), end)
    return gt + 1 if gt >= 0 else -1


_OFFSET_LINK = re.compile(rb"t[0-9]+p[0-9]|start")  # what _names_an_offset() looks for
_OFFSET_P = re.compile(rb"p[0-9]")


def _names_an_offset(data: bytes) -> bool:
    """_OFFSET_LINK.search(data), in two passes that each look for a literal first: "start",
    and each "p" and digit, whose digits before must follow a "t" (the regex itself tries
    every "t" of the page)."""
    if b"start" in data:
        return True
    for found in _OFFSET_P.finditer(data):
        at = found.start()
        while at > 0 and 0x30 <= data[at - 1] <= 0x39:  # the digits before the "p"
            at -= 1
        if at < found.start() and at > 0 and data[at - 1] == 0x74:  # "t"
            return True
    return False


def _fast_paging(engine: Forumotion, data: bytes, text: str, ctx: PageContext,
                 topic: TopicUrl | None, posts: int) -> tuple[int, int | None, int] | None:
    """(number, count, per page) as parse_page reads them, when no pagination link needs to be
    read: the JS holds both numbers, or no link of the page can name an offset. `topic`: the
    page's URL split."""
    if topic is None:
        return None  # a saved file: the tree asks the page where it sits
    if b"do_pagination_start" not in data:
        text = ""
    per_page = js_per_page(text) or ctx.per_page
    pages = js_pages(text)
    if not (per_page and pages):
        if topic.start or _names_an_offset(data):
            return None
        per_page = per_page or engine.default_per_page
    number = topic.start // per_page + 1
    count = max(pages, number) if pages else (number if posts < per_page else None)
    return number, count, per_page


_Parts = tuple[HtmlElement, HtmlElement | None, HtmlElement | None]  # message, notice, signature
_BLANK = b" \t\n\r\f"


def _member_spans(data: bytes, posts: list[re.Match[bytes]], charset: str) -> list[_Parts] | None:
    """Each post's message, edit notice (when something is in its place) and signature, as lxml
    reads them in the page: side by side in one parse. The notice's div stands for the element
    that holds it (div.postbody, div.edited-message). None when the parse does not give back
    one div per span, in order."""
    fragments: list[bytes] = []
    shapes: list[tuple[bool, bool]] = []  # whether each post has a notice, a signature
    for post in posts:
        fragments.append(data[post.start("message") - 5:post.end("message") + 6])
        notice = post.group("notice")
        shape = (bool(notice.strip(_BLANK)), post.start("signature") >= 0)
        if shape[0]:
            fragments.append(b"<div>" + notice + b"</div>")
        if shape[1]:
            fragments.append(post.group("signature"))
        shapes.append(shape)
    root = etree.fromstring(b"<html><body>" + b"".join(fragments) + b"</body></html>",
                            parser=parser(charset))
    body = root[0] if root is not None and len(root) == 1 else None
    found = list(body) if body is not None else []  # each element's proxy built once
    if (body is None or body.tag != "body" or body.text or len(found) != len(fragments)
            or any(e.tag != "div" or e.tail for e in found)):
        return None
    elements = iter(found)
    return [(next(elements), next(elements) if notice else None,
             next(elements) if signature else None) for notice, signature in shapes]


class _StockReader:
    """read() for the posts of a stock page, with what they share: the author of a box that
    comes again (a member posting twice on a page) is read once."""

    def __init__(self, reader: PostReader, stock: _Stock, codec: str) -> None:
        self.reader = reader
        self.stock = stock
        self.codec = codec
        self.authors: dict[bytes, tuple[str, str] | None] = {}

    def read(self, post: re.Match[bytes], parts: _Parts, position: int) -> Post | None:
        reader = self.reader
        message, notice, signature = parts
        box = post.group("box")
        if box not in self.authors:
            self.authors[box] = _box_author(box, self.codec)
        author = self.authors[box]
        byline = _inline_text(post.group("byline"), self.codec)
        shown = find_time(collapse(byline), reader.fetched_local) if byline is not None else None
        if author is None or shown is None:
            return None  # a guest, an unread date: the tree path knows what to say
        localised = times.localise(shown.naive, reader.ctx.zone)
        body = split_body(message, classify, read_quote, read_aside)
        body, edit = reader.edit_ending(body) or (body, self.edit(post, parts))
        if not body.signature and signature is not None:
            body = replace(body, signature=read_aside(signature))
        return reader.compose(post.group("id").decode("ascii"), position, author, shown,
                              localised, body, edit,
                              reader.resolve(post.group("href").decode(self.codec)))

    def edit(self, post: re.Match[bytes], parts: _Parts) -> EditMarker | None:
        """_edit() past the message's last line: the edit notice's place, the signature."""
        message, notice, signature = parts
        searched = signature if signature is not None and _EDIT_BYTES.search(
            post.group("signature")) else None  # no edit word: no holder in it
        if notice is None and searched is None:
            return None
        holders = _notice_holders(notice, searched)
        if not holders:
            return None
        return self.reader.last_edit(
            lines for h in holders
            for lines in _notice_lines(h, notice, self.stock, message, signature))


# What every EDIT_WORD match is made of, in the page's bytes (UTF-8 or ISO-8859-1).
_EDIT_BYTES = re.compile(rb"dici|dition|edited|di\xc3\xa7\xc3\xa3o|di\xe7\xe3o")


def _notice_holders(notice: HtmlElement | None,
                    signature: HtmlElement | None) -> list[HtmlElement]:
    """_edit_holders() for a stock post, last first: the elements holding edit words in the
    edit notice's place and in the signature (_plain_post: the chrome holds none)."""
    found: list[HtmlElement] = []
    for part in (notice, signature):
        if part is not None:
            _holders_in(part, found)
    return found[::-1]


def _holders_in(element: HtmlElement, found: list[HtmlElement]) -> None:
    """What _EDIT_WORDS finds under `element`, in document order, as holders: the parent of
    each text node holding an edit word (a tail's parent being the element before it)."""
    for event, node in etree.iterwalk(element, events=("start", "end")):
        if event == "start":
            if node.text and EDIT_WORD.search(node.text):
                found.append(node)
        elif node is not element and node.tail and EDIT_WORD.search(node.tail):
            found.append(node.getparent())


def _notice_lines(holder: HtmlElement, notice: HtmlElement | None, stock: _Stock,
                  message: HtmlElement, signature: HtmlElement | None) -> Iterator[list[str]]:
    """block_text(holder) split in lines, as the tree path reads it: in pieces, last piece
    first, each read only when last_edit() comes to it. Text straight in phpBB3's notice place
    belongs to div.postbody, whose lines that may hold an edit notice are the message's, the
    notice's and the signature's (_plain_post: the chrome's hold none); the notice is mostly
    found before the message is rendered again."""
    if holder is not notice or not stock.notice_in_postbody:
        yield block_text(holder).split("\n")
        return
    for part in (signature, notice, message):
        if part is not None:
            yield block_text(part).split("\n")


# A link in inline markup, its attributes, and what it holds up to its end tag (none when
# another link opens first: libxml2 then closes this one there).
_LINK = re.compile(rb"<a\b([^<>]*)>((?:[^<]++|<(?!/?a\b)[^<>]*+>)*+)(</a>)?")
_HREF_ONLY = re.compile(rb'[ \t\n\r\f]+href="([^"&]*)"[ \t\n\r\f]*')


def _box_author(box: bytes, codec: str) -> tuple[str, str] | None:
    """_profile_link() read in a stock author box (inline markup only, see _INLINE)."""
    for link in _LINK.finditer(box):
        raw, inner, closed = link.groups()
        plain = _HREF_ONLY.fullmatch(raw)
        if plain is not None:
            href = plain.group(1)
        else:
            attributes = _attributes(raw) if not raw.rstrip().endswith(b"/") else None
            href = attributes.get(b"href") if attributes is not None else b"&"
            if href is not None and b"&" in href:
                return None  # a repeated attribute, a self-closed link, a reference
        if closed is None:
            return None
        match = PROFILE_LINK.search(href.decode(codec)) if href is not None else None
        if match is None:
            continue
        name = _inline_text(inner, codec)
        if name is None:
            return None
        if name := collapse(name):
            return name, match.group(1)
    return None


def _attributes(raw: bytes) -> dict[bytes, bytes] | None:
    """A start tag's attributes (what _TAG reads as such), by lower-case name; None when one
    is repeated (which copy counts is not the scan's business)."""
    found: dict[bytes, bytes] = {}
    for attr in _ATTR.finditer(raw):
        name = attr.group(1).lower()
        if name in found:
            return None
        found[name] = attr.group(2) or attr.group(3) or attr.group(4) or b""
    return found


# Character references in text, as libxml2 decodes them; others make the scan decline.
_REFERENCE = re.compile(rb"&(#[0-9]{1,10};|#[xX][0-9a-fA-F]{1,8};|[a-zA-Z]+;?)?")
_NAMED = {b"nbsp;": "\xa0", b"amp;": "&", b"lt;": "<", b"gt;": ">", b"quot;": '"',
          b"apos;": "'"}
_TAGS = re.compile(rb"<[^>]*>")


def _inline_text(raw: bytes, codec: str) -> str | None:
    """The text of inline markup, as string() gives it once lxml parsed it: tags dropped,
    references decoded; None where this decoding may differ from lxml's."""
    text = _TAGS.sub(b"", raw) if b"<" in raw else raw
    if b"\x00" in text:
        return None  # libxml2 reads U+FFFD
    if b"&" not in text:
        return text.decode(codec)
    if text.count(b"&") == text.count(b"&nbsp;"):  # the common case: no-break spaces only
        return text.decode(codec).replace("&nbsp;", "\xa0")
    parts = []
    at = 0
    for ref in _REFERENCE.finditer(text):
        char = _reference(ref.group(1) or b"")
        if char is None:
            return None
        parts.append(text[at:ref.start()].decode(codec))
        parts.append(char)
        at = ref.end()
    parts.append(text[at:].decode(codec))
    return "".join(parts)


def _reference(body: bytes) -> str | None:
    if not body.startswith(b"#"):
        return _NAMED.get(body)
    code = int(body[2:-1], 16) if body[1:2] in b"xX" else int(body[1:-1])
    # Controls, C1 (which HTML5 maps as windows-1252), surrogates, non-characters: not here.
    if (code < 0x20 or 0x7F <= code < 0xA0 or 0xD800 <= code < 0xE000 or code > 0x10FFFF
            or 0xFDD0 <= code <= 0xFDEF or code & 0xFFFE == 0xFFFE):
        return None
    return chr(code)
