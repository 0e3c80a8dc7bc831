"""Invision's fast path (DESIGN.md "Performance"): stock IPB 3.4 / IPS 4.1 posts read from the
page's bytes.

A tree of the whole page, walked post by post, costs several times lxml's bare parse. Here each
post must match its version's stock markup (the skeletons below, as the skins print them:
FORUMS.md 5.1 skin_topic.php `post` and `softDeletedPostBit`, 5.2 theme.xml postContainer); its
chrome (id, "#n" link or permalink, author, time) is read from the match. What must be read as
HTML, the messages and signatures, is cut out whole and parsed in one go with the rest of the
page (pagination, title), each in a numbered wrapper where its post's chrome was, then read by
the tree path's own readers (invision's Ipb3Reader/Ips4Reader: `finish`, `body`, `signature`,
their page-level parts). The parts of the chrome a board fills in itself (profile pane, buttons)
are gaps of plain markup that must hold none of the classes and roles the tree path looks for.

fast_page() declines (None), and invision's tree path reads the page, on whatever the scan is
not sure of: markup off the skeleton, a post count that differs from the page's id markers,
markup that hides tags (comments, scripts) or moves them (tables), a "<" in an attribute value,
an entity other than a few plain ones, a NUL byte, a charset other than UTF-8, windows-1251 and
KOI8-R (those whose Python codec reads every byte as libxml2 does, given the same
`parser_encoding`), or bytes invalid in it. tests/test_invision_fastpath.py proves it agrees with
the tree path: the same Page on the saved pages, and the same Page or None on mutations of them.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from lxml import etree
from lxml.html import HtmlElement

from tally.adapters.base import PageContext
from tally.adapters.html import class_set, collapse, parser_encoding
from tally.adapters.invision import (
    UNREAD_BLOCKS,
    Invision,
    Ipb3Reader,
    Ips4Reader,
    iso,
    parse,
    profile_id_of,
    tagged,
)
from tally.model import Page, Post


class _Unsure(Exception):
    """The byte scan cannot be sure to read the page as the tree path does."""


# Charsets (as parser_encoding names them) whose Python codec reads every valid byte as libxml2
# does.
_FAST_CODECS = {"utf-8": "utf-8", "utf8": "utf-8", "windows-1251": "cp1251", "cp1251": "cp1251",
                "koi8-r": "koi8_r"}


def fast_page(engine: Invision, data: bytes, ctx: PageContext, head: bytes) -> Page | None:
    """The page read from its bytes, or None when the scan cannot be sure to read it as the
    tree path does (module docstring). `head` is the page's lower-cased head, as checked."""
    encoding = parser_encoding(data)
    codec = _FAST_CODECS.get(encoding)
    if codec is None or b"\x00" in data:
        return None
    try:
        if codec != "utf-8":  # libxml2 reads a bad UTF-8 byte alone, but cuts text at a bad
            data.decode(codec)  # byte of these; the scan decodes what it reads strictly
        low = head if len(head) == len(data) else data.lower()
        ips4 = b"elComment_" in data  # IPS 4 posts win, as in invision's _post_elements
        chrome = _scan_posts(data, low, ips4, codec)
        reader, cut = _cut_reader(engine, data, ctx, chrome, encoding, ips4, with_tail=False)
        page = engine.page(reader, (), ctx)
        if any(low.find(word, chrome[-1].end) >= 0 for word in _tail_words(reader)):
            reader, cut = _cut_reader(engine, data, ctx, chrome, encoding, ips4, with_tail=True)
            page = engine.page(reader, (), ctx)
        posts = _posts(reader, chrome, cut)
    except (_Unsure, UnicodeDecodeError):
        return None
    return replace(page, posts=posts)


def _cut_reader(engine: Invision, data: bytes, ctx: PageContext, chrome: list[Any],
                encoding: str, ips4: bool, with_tail: bool,
                ) -> tuple[Ipb3Reader | Ips4Reader, list[HtmlElement]]:
    """The reader of the cut page (see _cut_page), and its messages and signatures."""
    doc, cut = _cut_page(data, chrome, encoding, with_tail)
    reader = Ips4Reader(engine, doc, ctx) if ips4 else Ipb3Reader(engine, doc, ctx, frozenset())
    return reader, cut


def _posts(reader: Ipb3Reader | Ips4Reader, chrome: list[Any], cut: list[HtmlElement],
           ) -> tuple[Post, ...]:
    """Each post from its chrome and its message and signature (the cut's blocks, in order)."""
    blocks = iter(cut)
    if isinstance(reader, Ips4Reader):
        return tuple(_ips4_post(reader, post, index, next(blocks),
                                next(blocks) if post.signature else None)
                     for index, post in enumerate(chrome))
    return tuple(_ipb3_post(reader, post, index, next(blocks),
                            next(blocks) if post.signature else None)
                 for index, post in enumerate(chrome))


_SKELETON = re.compile(r"<(/?)([a-z0-9]+)((?:\s+[^\s=>]+(?:=\"[^\"]*\")?)*)\s*>|\{([^{}]*)\}|[^<{]+")
_SKELETON_ATTRIBUTE = re.compile(r"\s+([^\s=>]+)(?:=\"([^\"]*)\")?")
_PLACEHOLDER = re.compile(r"\{([^{}]*)\}")


def _names_pattern(names: list[str], any_case: bool = True) -> str:
    """Any of `names` (in any case, unless told), as a trie: a tag tried costs a few tests."""
    if "" in names:
        rest = [name for name in names if name]
        return f"(?:{_names_pattern(rest, any_case)})?" if rest else ""
    branches = []
    for first in sorted({name[0] for name in names}):
        letter = f"[{first}{first.upper()}]" if any_case and first.isalpha() else re.escape(first)
        branches.append(letter + _names_pattern([n[1:] for n in names if n[0] == first], any_case))
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


def _template(skeleton: str) -> re.Pattern[bytes]:
    """A regex for `skeleton` (stock markup, attributes double-quoted) however it is written:
    either quote around a value, attribute names as written or lower-cased, any whitespace
    between tags, `<br>` or `<br />`. Placeholders: `{name}` captures a whole attribute value or
    a text (`{name:regex}` with its own pattern, `{name:name}` a name in phrasing tags), `{*}`
    skips one (or part of a value), `{name~tag tag}` captures a gap: markup without those tags
    (in any case), `{@name}` marks a place. An attribute written `name?=` may be absent."""
    out: list[str] = []  # whitespace is allowed before each tag (a mark after one is at its end)
    for piece in _SKELETON.finditer(skeleton.strip()):
        closing, tag, attributes, placeholder = piece.groups()
        if tag and closing:
            out.append(rf"\s*+</{tag}\s*+>")
        elif tag:
            out.append(rf"\s*+<{tag}" + "".join(map(_attribute_pattern,
                                                     _SKELETON_ATTRIBUTE.finditer(attributes))))
            out.append(r"\s*+/?>")
        elif placeholder is not None:
            out.append(_placeholder_pattern(placeholder))
        elif piece.group(0).strip():
            out.append(r"\s*+" + r"\s+".join(map(re.escape, piece.group(0).split())))
    return re.compile("".join(out).encode())


def _attribute_pattern(found: re.Match[str]) -> str:
    name, value = found.groups()
    optional = name.endswith("?")
    name = name.removesuffix("?")
    names = re.escape(name) if name == name.lower() else f"(?:{re.escape(name)}|{re.escape(name.lower())})"
    captured = [spec.partition(":")[0] for spec in _PLACEHOLDER.findall(value or "")
                if spec[0] not in "*@"]
    if value is None:
        pattern = rf"\s+{names}(?:=\"\"|='')?"
    elif captured:  # one group per capture, behind either quote (the other may not occur)
        quote = f"q_{captured[0]}"
        pattern = (rf"\s+{names}\s*=\s*(?P<{quote}>[\"'])" + _value_pattern(value, "\"'")
                   + rf"(?P={quote})")
    else:  # skipped whole or in part: either quote, the other may occur inside
        quoted = [_value_pattern(value, quote) for quote in "\"'"]
        pattern = rf"\s+{names}\s*=\s*(?:\"{quoted[0]}\"|'{quoted[1]}')"
    return f"(?:{pattern})?" if optional else pattern


def _value_pattern(value: str, quotes: str) -> str:
    """An attribute value's literal text and placeholders, inside quotes that `quotes` holds."""
    out: list[str] = []
    at = 0
    for found in _PLACEHOLDER.finditer(value):
        name, _, body = found.group(1).partition(":")
        body = body or f"[^{quotes}<>]*" + ("+" if found.end() == len(value) else "")
        out += (re.escape(value[at:found.start()]), f"(?:{body})" if name == "*" else f"(?P<{name}>{body})")
        at = found.end()
    return "".join(out) + re.escape(value[at:])


# A name as shown: text, maybe in the phrasing tags a board's group formatting puts around it
# (tags whose quoted values hold no "<"); read as string() reads it (_name_text).
_PHRASING = "(?:span|strong|b|em|i|u|s|font|small)"
_NAME_TEXT = (rf"(?:[^<>]++|</?{_PHRASING}(?=[\s/>])[^<>\"']*+(?:(?:\"[^\"<]*+\"|'[^'<]*+')"
              rf"[^<>\"']*+)*+>)*?")  # lazy: the tags closing the name's own element follow
_NAME_TAG = re.compile(rb"<[^<>\"']*+(?:(?:\"[^\"<]*+\"|'[^'<]*+')[^<>\"']*+)*+>")


def _name_text(raw: bytes | None, codec: str) -> str:
    """A captured name (`{name:name}`) as string() reads its element: the text, whitespace
    collapsed."""
    raw = raw or b""
    return collapse(_decoded(_NAME_TAG.sub(b"", raw) if b"<" in raw else raw, codec) or "")


def _placeholder_pattern(spec: str) -> str:
    if spec.startswith("@"):  # before a tag: past the whitespace that may precede it
        return rf"\s*+(?P<{spec[1:]}>)"
    name, gap, stops = spec.partition("~")
    if gap:  # text, and tags whose quoted values hold no "<" (an unmatched quote would run on
        # over what follows; no tag can hide in such a value)
        stop = _names_pattern(sorted(set(stops.split())))
        body = (rf"[^<]*+(?:<(?!/?{stop}[\s/>])[^<>\"']*+(?:(?:\"[^\"<]*+\"|'[^'<]*+')"
                rf"[^<>\"']*+)*+>[^<]*+)*+")
    else:
        name, _, body = name.partition(":")
        body = _NAME_TEXT if body == "name" else body or "[^<>]*+"
    return f"(?:{body})" if name == "*" else f"(?P<{name}>{body})"


# Entities read as libxml2 reads them in any version; any other "&" sends the page to the tree.
_PLAIN_ENTITY = re.compile(r"&(?:amp|lt|gt|quot|nbsp|#0*39|#x0*27);")
_ENTITY_TEXT = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&nbsp;": "\xa0"}


def _decoded(raw: bytes | None, codec: str) -> str | None:
    """A captured text or attribute value as lxml gives it."""
    if raw is None:
        return None
    text = raw.decode(codec)
    if "&" in text:
        if text.count("&") == text.count("&amp;"):  # every "&" starts "&amp;" (URLs' queries)
            text = text.replace("&amp;", "&")
        elif "&" in _PLAIN_ENTITY.sub("", text):
            raise _Unsure
        else:
            text = _PLAIN_ENTITY.sub(lambda e: _ENTITY_TEXT.get(e.group(0), "'"), text)
    if "\r" in text:  # the parser reads CR LF and CR as LF
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


# A comment or declaration that could hide a tag or end otherwise than it reads: a plain
# comment (no "<", ">" or "--" inside) is dropped alike by both parses.
_ODD_COMMENT = rb"!(?!--(?:(?!--)[^<>])*+-->)"

# Gaps: the markup a board fills into the chrome. The tree path must find nothing there that it
# looks for (a class, role or id it reads, one its page-level readers look for), nor any markup
# that hides or moves tags: raw text and odd comments, tables (libxml2 lets no </div> close an
# open cell), document-level tags, and h1 (the page title). Searched in the lower-cased page.
_GAP_HIDES = re.compile(rb"<(?:" + _ODD_COMMENT + rb"|\?|/?" + _names_pattern(
    "script style textarea title xmp iframe noembed noframes noscript plaintext template html "
    "head body frameset frame table caption colgroup col thead tbody tfoot tr td th h1".split(),
    any_case=False).encode() + rb"[\s/>])")
# The rest of the tag after each such attribute (a stricter test than its value alone); each
# pattern has a literal start, which the regex engine looks for fast.
_GAP_VALUES = tuple(re.compile(name + rb"\s*=([^>]*)") for name in (b"class", b"rel", b"data-role"))
_GAP_QUOTES = bytes.maketrans(b"\"'=", b"   ")
_PAGE_TOKENS = frozenset((b"pagejump", b"no_pages", b"page", b"active", b"last", b"next",
                          b"pagination", b"ipspagination", b"ipstype_pagetitle"))
_UNREAD_TOKENS = frozenset(name.lower().encode() for name in UNREAD_BLOCKS)


def _check_gaps(low: bytes, spans: list[tuple[int, int]], tokens: frozenset[bytes],
                words: tuple[bytes, ...]) -> None:
    """A page's gaps (spans of the lower-cased page) must hold no hiding markup, no class,
    rel or role among `tokens` (lower-cased: a stricter test than the tree's) nor spelled
    with a character reference (libxml2 reads "&#101;dit" as "edit"), no word of `words`."""
    joined = b" ".join([low[a:b] for a, b in spans])
    if _GAP_HIDES.search(joined) or any(word in joined for word in words):
        raise _Unsure
    for name, pattern in zip((b"class", b"rel", b"data-role"), _GAP_VALUES):
        if name in joined:
            values = b" ".join(pattern.findall(joined))
            if b"&#" in values or not tokens.isdisjoint(values.translate(_GAP_QUOTES).split()):
                raise _Unsure


# A message or a signature: counted by its divs (libxml2's view when nothing hides a tag, no "<"
# sits in an attribute value and no table cell is open: libxml2 lets no </div> close one: the
# blocks of a page are searched for those at once, _check_blocks), then parsed as cut out
# (_cut_page checks the wrappers).
_DIV_EDGES = re.compile(rb"<(/?)div(?=[\s/>])[^>]*+>")
_HIDES = re.compile(rb"<(?:" + _ODD_COMMENT + rb"|\?|/?" + _names_pattern(
    "script style textarea title xmp iframe noembed noframes noscript plaintext template html "
    "head body frameset frame table caption colgroup col thead tbody tfoot tr td th".split(),
    any_case=False).encode() + rb"[\s/>])")
_LT_IN_VALUE = re.compile(rb"=\s*+(?:\"[^\"<]*+<|'[^'<]*+<)")  # apart: each has a literal start


def _block_end(low: bytes, tag_end: int) -> int:
    """Where the div whose start tag ends at tag_end ends (in the lower-cased page), as its
    divs count it: _check_blocks is to check what the block holds."""
    depth = 1
    for edge in _DIV_EDGES.finditer(low, tag_end):
        if edge.group(1):
            if edge.end() - edge.start() != 6 and edge.group(0)[5:-1].strip():
                raise _Unsure  # an end tag with more in it than its name
            depth -= 1
            if depth == 0:
                return edge.end()
        elif edge.group(0).endswith(b"/>"):
            raise _Unsure  # libxml2 closes <div/> at once, a browser does not
        else:
            depth += 1
    raise _Unsure


def _check_blocks(low: bytes, posts: list[Any], edit_words: tuple[bytes, ...]) -> None:
    """The messages and signatures (spans of the lower-cased page) must hold no markup that
    hides a tag and no "<" in an attribute value; posts whose blocks hold a word of
    `edit_words` are marked (_mark_edit_lines). Searched once, in the blocks joined: each
    starts with "<div" and ends with its end tag's ">", past which no pattern's quoted value,
    comment or word can run on, so the joined text matches where a block does."""
    pieces: list[bytes] = []
    ends: list[int] = []  # where each post's blocks end in the joined text
    at = 0
    for post in posts:
        for start, end in (post.body, post.signature or (0, 0)):
            pieces.append(low[start:end])
            at += end - start
        ends.append(at)
    blocks = b"".join(pieces)
    if _HIDES.search(blocks) or _LT_IN_VALUE.search(blocks):
        raise _Unsure
    _mark_edit_lines(blocks, ends, posts, edit_words)


def _mark_edit_lines(blocks: bytes, ends: list[int], posts: list[Any],
                     words: tuple[bytes, ...]) -> None:
    """Mark the posts whose message or signature may hold a child the tree path reads (the
    edit line): a word of `words`, or a character reference that could spell one. Most posts
    hold none, and their children need no look."""
    for word in words:
        hit = blocks.find(word)
        while hit >= 0:
            index = bisect_right(ends, hit)
            posts[index].marked = True
            hit = blocks.find(word, ends[index])  # on in the next post's blocks


# Skeleton pieces for the IPB 3 h3 header: its gaps take no element that would close it or hold
# a post part (moderator checkboxes and the like fit).
_IPB3_H3_STOPS = "div p h1 h2 h3 h4 h5 h6 ul ol li dl"
_IPB3_H3 = f"""
<h3 class="row2">{{h3_start~span {_IPB3_H3_STOPS}}}
<span class="post_id right ipsType_small desc blend_links">
<a itemprop="replyToUrl" data-entry-pid="{{*}}" href="{{permalink}}" rel="bookmark" title="{{*}}">{{number}}</a>
</span>{{h3_middle~span {_IPB3_H3_STOPS}}}
<span itemprop="creator name" class="author vcard"><a hovercard-ref="member" hovercard-id="{{hovercard}}" data-ipb="noparse" class="_hovertrigger url fn name " href="{{profile}}" title="{{*}}"><span itemprop="name">{{author:name}}</span></a></span>
{{h3_end~{_IPB3_H3_STOPS}}}</h3>"""
_IPB3_TIME = """
<p class="posted_info desc lighter ipsType_small">{*}<abbr class="published" itemprop="commentTime" title?="{title}">{shown}</abbr></p>
{@body}<div itemprop="commentText" class="post entry-content ">"""
_IPB3_START = """<div class="post_block hentry clear {state:[a-z ]*+}" id="post_id_{pid:[0-9]++}">
<a id="{*}"></a><div class="post_wrap">"""

# IPB 3.4 skin_topic.php `post` and `softDeletedPostBit` (FORUMS.md 5.1): up to the message's
# start tag, then what follows the message (the signature, when there is one, between).
_IPB3_HEAD = _template(_IPB3_START + _IPB3_H3 + """
<div class="author_info">{info~div}</div><div class="post_body">""" + _IPB3_TIME)
_IPB3_SOFT_HEAD = _template(_IPB3_START + _IPB3_H3 + """
<div class="post_body" id="postsDelete_{*}" style="{*}"><div class="post entry-content" style="{*}">{notice~div}</div></div>
<div id="postsDeleteShow_{*}" style="{*}"><div class="author_info">{info~div}</div><div class="post_body">""" + _IPB3_TIME)
_IPB3_LIKES_SKELETON = """<ul class="ipsList_inline ipsLikeBar right clearfix" id="{*}">{likes~ul div}</ul>"""
_IPB3_END_SKELETON = """<ul id="postControlsNormal_{*}" class="post_controls clear clearfix">{controls~ul div}</ul>
</div></div></div>"""
_IPB3_TAIL = _template(_IPB3_LIKES_SKELETON + _IPB3_END_SKELETON)  # no signature: one match
_IPB3_LIKES = _template(_IPB3_LIKES_SKELETON)
_IPB3_SIGNATURE = _template("""{@signature}<div class="signature" data-memberid="{*}">""")
_IPB3_END = _template(_IPB3_END_SKELETON)
_IPB3_SOFT_END = _template("""</div></div></div></div>""")

# IPS 4.1 forums theme.xml postContainer (FORUMS.md 5.2), the same way.
_IPS4_HEAD = _template(r"""
<article itemscope itemtype="http://schema.org/Comment" id="elComment_{pid:[0-9]++}" class="cPost ipsBox ipsComment ipsComment_parent ipsClearfix ipsClear ipsColumns ipsColumns_noSpacing ipsColumns_collapsePhone{state:[\w ]*+}">
<aside class="ipsComment_author cAuthorPane ipsColumn ipsColumn_medium ipsResponsive_hidePhone">
<h3 class="ipsType_sectionHead cAuthorPane_author ipsType_blendLinks ipsType_break" itemprop="creator" itemscope itemtype="http://schema.org/Person"><strong itemprop="name"><a href="{profile}" data-ipsHover data-ipsHover-target="{*}" title="{*}" class="ipsType_break">{author:name}</a></strong></h3>
<ul class="cAuthorPane_info ipsList_reset">{pane~ul div}</ul>
</aside>
<div class="ipsColumn ipsColumn_fluid">
<div id="comment-{*}_wrap" data-controller="core.front.core.comment" data-commentApp="forums" data-commentType="forums" data-commentID="{*}" data-quoteData="{*}" class="ipsComment_content ipsType_medium  ipsFaded_withHover">
<div class="ipsComment_meta ipsType_light">
<div class="ipsPos_right ipsType_light ipsType_reset ipsFaded ipsFaded_more ipsType_blendLinks">
<ul class="ipsList_inline ipsComment_tools">
<li><a class="ipsType_blendLinks" href="{permalink}" data-ipsTooltip title="#" data-ipsMenu data-ipsMenu-closeOnClick="false" id="elSharePost_{*}" data-role="shareComment"><i class="fa fa-share-alt"></i></a></li>
{tools~ul div}</ul>
</div>
<div class="ipsType_reset">
<a href="{*}" class="ipsType_blendLinks">{*}<time datetime="{datetime}" title="{title}" data-short="{*}">{shown}</time></a>
</div>
</div>
<div class="cPost_contentWrap ipsPad">
{@body}<div data-role="commentContent" class="ipsType_normal ipsType_richText ipsContained" data-controller="core.front.core.lightboxedImages">""")
_IPS4_CONTROLS_SKELETON = """<ul class="ipsComment_controls ipsClearfix" data-role="commentControls">{controls~ul div}</ul>"""
_IPS4_END_SKELETON = """</div></div></div></article>"""
_IPS4_TAIL = _template(_IPS4_CONTROLS_SKELETON + _IPS4_END_SKELETON)  # no signature: one match
_IPS4_CONTROLS = _template(_IPS4_CONTROLS_SKELETON)
_IPS4_SIGNATURE = _template("""{@signature}<div data-role="memberSignature" class="{*}">""")
_IPS4_END = _template(_IPS4_END_SKELETON)

# What the gaps must not hold (see _check_gaps), per version: the classes its reading looks for,
# the blocks whose inside it skips, the page-level readers' classes; ids and roles it reads.
_IPB3_GAP_TOKENS = frozenset((b"post_id", b"author", b"published", b"entry-content", b"signature",
                              b"edit")) | _UNREAD_TOKENS | _PAGE_TOKENS
_IPB3_GAP_WORDS = ()  # ids: _scan_posts counts them on the whole page
_IPS4_GAP_TOKENS = (frozenset((b"cauthorpane_author", b"ipscomment_meta", b"commentcontent", b"commenttext",
                               b"membersignature")) | _UNREAD_TOKENS | _PAGE_TOKENS)
_IPS4_GAP_WORDS = (b"excludequote",)  # an attribute name, in any case


@dataclass(slots=True)  # not frozen: a frozen __init__ costs a microsecond per post
class _Ipb3Chrome:
    """One IPB 3 post as the byte scan read it: what Ipb3Reader.post finds in the tree."""

    post_id: str
    start: int
    end: int
    deleted: bool
    number: tuple[str, str | None]
    author: str
    author_id: str | None
    stamp: tuple[str | None, str]
    body: tuple[int, int]
    signature: tuple[int, int] | None
    soft: bool  # a soft-deleted post, shown to a moderator
    marked: bool = False  # whether the message or signature may hold an edit line (_mark_edit_lines)


@dataclass(slots=True)
class _Ips4Chrome:
    """One IPS 4 post as the byte scan read it: what Ips4Reader.post finds in the tree."""

    post_id: str
    start: int
    end: int
    deleted: bool
    machine: datetime
    stamp: tuple[str | None, str]
    author: str
    author_id: str
    permalink: str
    body: tuple[int, int]
    signature: tuple[int, int] | None
    marked: bool = False


_IPB3_EDIT_WORDS = (b"edit", b"signature", b"&#")
_IPS4_EDIT_WORDS = (b"excludequote", b"membersignature", b"&#")
_IPB3_STATES = frozenset(("clearfix", "moderated", "hidden"))
_IPS4_STATES = frozenset(("ipsModerated",))


def _state(found: re.Match[bytes], allowed: frozenset[str]) -> frozenset[str]:
    """The post block's classes past the stock ones, when all are known ones."""
    state = frozenset(found.group("state").decode("ascii").split())
    if not state <= allowed:
        raise _Unsure
    return state


def _cut(low: bytes, found: re.Match[bytes], name: str) -> tuple[int, int]:
    """The span of the block whose start tag `found` ends with, marked `{@name}`."""
    return found.start(name), _block_end(low, found.end())


def _read_ipb3(data: bytes, low: bytes, start: int, codec: str, gaps: list[tuple[int, int]],
               ) -> _Ipb3Chrome:
    """The post's head up to the message, the message counted by its divs, then what follows:
    likes and buttons, a signature between them, or the soft-deleted post's end."""
    head = _IPB3_HEAD.match(data, start) or _IPB3_SOFT_HEAD.match(data, start)
    if head is None:
        raise _Unsure
    body = _cut(low, head, "body")
    gaps += (head.span("h3_start"), head.span("h3_middle"), head.span("h3_end"), head.span("info"),
             head.span("author"))  # a name's formatting tags must hold no marker either
    signature = None
    if head.re is _IPB3_SOFT_HEAD:
        gaps.append(head.span("notice"))
        end = _IPB3_SOFT_END.match(data, body[1])
    elif (end := _IPB3_TAIL.match(data, body[1])) is not None:
        gaps += (end.span("likes"), end.span("controls"))
    else:
        likes = _IPB3_LIKES.match(data, body[1])
        if likes is None:
            raise _Unsure
        found = _IPB3_SIGNATURE.match(data, likes.end())
        if found is not None:
            signature = _cut(low, found, "signature")
        end = _IPB3_END.match(data, signature[1] if signature else likes.end())
        if end is not None:
            gaps += (likes.span("likes"), end.span("controls"))
    if end is None:
        raise _Unsure
    state = _state(head, _IPB3_STATES)
    pid, name, number, permalink, profile, hovercard, title, shown = head.group(
        "pid", "author", "number", "permalink", "profile", "hovercard", "title", "shown")
    author = _name_text(name, codec)
    if not author:
        raise _Unsure
    return _Ipb3Chrome(
        post_id=pid.decode("ascii"), start=start, end=end.end(),
        deleted=head.re is _IPB3_SOFT_HEAD or not state.isdisjoint(("moderated", "hidden")),
        number=(_decoded(number, codec) or "", _decoded(permalink, codec)),
        author=author,
        author_id=profile_id_of(_decoded(profile, codec), _decoded(hovercard, codec)),
        stamp=(_decoded(title, codec), _decoded(shown, codec) or ""),
        body=body, signature=signature, soft=head.re is _IPB3_SOFT_HEAD)


def _read_ips4(data: bytes, low: bytes, start: int, codec: str, gaps: list[tuple[int, int]],
               ) -> _Ips4Chrome:
    """The post's head up to the message, the message counted by its divs, then the buttons,
    and a signature after them when there is one."""
    head = _IPS4_HEAD.match(data, start)
    if head is None:
        raise _Unsure
    body = _cut(low, head, "body")
    signature = None
    end = _IPS4_TAIL.match(data, body[1])
    if end is not None:
        buttons = end.span("controls")
    else:
        controls = _IPS4_CONTROLS.match(data, body[1])
        if controls is None:
            raise _Unsure
        buttons = controls.span("controls")
        found = _IPS4_SIGNATURE.match(data, controls.end())
        signature = _cut(low, found, "signature") if found is not None else None
        end = _IPS4_END.match(data, signature[1] if signature else controls.end())
        if end is None:
            raise _Unsure
    gaps += (head.span("pane"), head.span("tools"), head.span("author"), buttons)
    post_id = head.group("pid").decode("ascii")
    profile = _decoded(head.group("profile"), codec)
    permalink = _decoded(head.group("permalink"), codec)
    author = _name_text(head.group("author"), codec)
    author_id = profile_id_of(profile, None)
    machine = iso(_decoded(head.group("datetime"), codec))
    # The permalink is the post's first link to itself: the pane (a gap) and its author link
    # come before it.
    wanted = f"comment={post_id}"
    if (not author or author_id is None or machine is None or permalink is None
            or wanted not in permalink or wanted in (profile or "")
            or low.find(b"comment", *head.span("pane")) >= 0):
        raise _Unsure
    return _Ips4Chrome(
        post_id=post_id, start=start, end=end.end(),
        deleted="ipsModerated" in _state(head, _IPS4_STATES), machine=machine,
        stamp=(_decoded(head.group("title"), codec), _decoded(head.group("shown"), codec) or ""),
        author=author, author_id=author_id, permalink=permalink, body=body, signature=signature)


_IPB3_MARKER = b"post_id_"
_IPS4_MARKER = b"elComment_"


def _scan_posts(data: bytes, low: bytes, ips4: bool, codec: str) -> list[Any]:
    """Every post of the page, read at the tag holding each occurrence of its version's id
    marker: the marker must occur nowhere else, the posts must follow one another, and their
    gaps must hold nothing the tree path reads (checked once for the page)."""
    marker, read = (_IPS4_MARKER, _read_ips4) if ips4 else (_IPB3_MARKER, _read_ipb3)
    posts: list[Any] = []
    gaps: list[tuple[int, int]] = []
    hit = data.find(marker)
    while hit >= 0:
        post = read(data, low, data.rfind(b"<", 0, hit), codec, gaps)
        if posts and post.start < posts[-1].end or hit - post.start > 200:
            raise _Unsure
        posts.append(post)
        hit = data.find(marker, hit + len(marker))
    if not posts:
        raise _Unsure
    _check_blocks(low, posts, _IPS4_EDIT_WORDS if ips4 else _IPB3_EDIT_WORDS)
    if ips4:
        _check_gaps(low, gaps, _IPS4_GAP_TOKENS, _IPS4_GAP_WORDS)
    else:
        _check_gaps(low, gaps, _IPB3_GAP_TOKENS, _IPB3_GAP_WORDS)
        # Any element with such an id makes its post a soft-deleted one for the tree path.
        if data.count(b"postsDeleteShow_") != sum(post.soft for post in posts):
            raise _Unsure
    return posts


def _tail_words(reader: Ipb3Reader | Ips4Reader) -> tuple[bytes, ...]:
    """What, found after the last post, could change what `reader` read of the page without
    it. A page-level reader takes the first match in document order of the first of its paths
    that matches at all: the tail counts only for a reading that found nothing, or found it
    by a later path than one the tail could match."""
    words: list[bytes] = []
    if isinstance(reader, Ipb3Reader):
        if reader.pagination_text is None:
            words += (b"pagejump", b"no_pages", b"active", b"last", b"pagination")
        if reader.next_link[1] > 0:
            words.append(b"next")  # li.next before a[rel=next]
    elif isinstance(reader, Ips4Reader) and reader.pagination is None:
        words.append(b"ipspagination")
    if reader.title_heading[1] > 0:  # h1.ipsType_pagetitle before h1.ipsType_pageTitle, <title>
        words += (b"ipstype_page", b"<title")
    return tuple(words)


_CUT = etree.XPath("descendant::div[@data-tally-cut]")
_WHOLE_CUTS = etree.XPath("count(div[@data-tally-cut][count(node()) = 1 and div])")
# What may hold the posts: the page-level readers read the text of headings and pagination
# items, which would hold the posts' cut-out chrome too if the posts were inside one.
_POST_HOLDERS = frozenset(("div", "form", "main", "section", "body", "html"))


def _cut_page(data: bytes, posts: list[Any], encoding: str, with_tail: bool,
              ) -> tuple[HtmlElement, list[HtmlElement]]:
    """The page with each post's chrome cut out and its message and signature kept, each in a
    numbered wrapper, parsed in one go (what follows the last post only `with_tail`); the
    messages and signatures as elements, in order. Every post must be seen where the tree path
    sees it: what lies between the posts may hide one (an unclosed script)."""
    parts = [data[:posts[0].start]]
    count = 0
    for index, post in enumerate(posts):
        for span in (post.body, post.signature):
            if span is not None:
                parts += (b'<div data-tally-cut="%d">' % count, data[span[0]:span[1]], b"</div>")
                count += 1
        if index + 1 < len(posts):
            parts.append(data[post.end:posts[index + 1].start])
        elif with_tail:
            parts.append(data[post.end:])
    doc = parse(b"".join(parts), encoding)
    wrappers = _CUT(doc)
    parent = wrappers[0].getparent() if len(wrappers) == count else None
    # Each wrapper a child of the same parent, holding the one div cut out and nothing else.
    if (parent is None or _WHOLE_CUTS(parent) != count
            or [wrapper.get("data-tally-cut") for wrapper in wrappers] != [str(n) for n in range(count)]):
        raise _Unsure  # a block did not parse as the element the scan cut out
    if any(holder.tag not in _POST_HOLDERS for holder in (parent, *parent.iterancestors())):
        raise _Unsure  # a page-level element (a heading, a pagination item) holding the posts
    return doc, [wrapper[0] for wrapper in wrappers]


def _ipb3_edit_line(message: HtmlElement, signature: HtmlElement | None) -> HtmlElement | None:
    """The tree path's first class-"edit" element past the chrome: invision._scan sees only
    the children of the message and of the signature."""
    line = None
    for child in message:
        classes = class_set(child)
        if "signature" in classes:
            raise _Unsure
        if line is None and "edit" in classes:
            line = child
    if line is None and signature is not None and any("edit" in class_set(c) for c in signature):
        raise _Unsure
    return tagged(line, "p")


_EXCLUDED = etree.XPath("descendant::*[@data-excludequote]")


def _ips4_edit_line(message: HtmlElement, signature: HtmlElement | None) -> HtmlElement | None:
    """The tree path's first data-excludequote element past the chrome: a child of the message,
    or anything in the signature (whose inside invision._scan walks)."""
    line = None
    for child in message:
        if child.get("data-role") == "memberSignature":
            raise _Unsure
        if line is None and child.get("data-excludequote") is not None:
            line = child
    if line is None and signature is not None and _EXCLUDED(signature):
        raise _Unsure
    return line


def _ipb3_post(reader: Ipb3Reader, chrome: _Ipb3Chrome, index: int, message: HtmlElement,
               signature: HtmlElement | None) -> Post:
    """What Ipb3Reader.post gives, from the chrome read off the bytes."""
    edit = _ipb3_edit_line(message, signature) if chrome.marked else None
    return reader.finish(
        chrome.post_id, index,
        body=reader.signature(reader.body(chrome.post_id, message), signature),
        deleted=chrome.deleted, stamp=chrome.stamp, number=chrome.number,
        author=chrome.author, author_id=chrome.author_id, edit=edit)


def _ips4_post(reader: Ips4Reader, chrome: _Ips4Chrome, index: int, message: HtmlElement,
               signature: HtmlElement | None) -> Post:
    """What Ips4Reader.post gives, from the chrome read off the bytes."""
    edit = _ips4_edit_line(message, signature) if chrome.marked else None
    return reader.finish(
        chrome.post_id, index,
        body=reader.signature(reader.body(chrome.post_id, message), signature),
        machine=chrome.machine, stamp=chrome.stamp, author=chrome.author,
        author_id=chrome.author_id, permalink=chrome.permalink, edit=edit,
        deleted=chrome.deleted)
