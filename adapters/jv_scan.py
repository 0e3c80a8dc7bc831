"""jeuxvideo.com pages read from their bytes: the fast path of adapters/jv.py (FORUMS.md §3).

Building a page's tree and walking it message by message costs several times lxml's bare parse,
so `html_from_bytes` reads a page whose markup is plain from its bytes, and gives the `jv.Html`
the tree reader (`JV._html_from_tree`) would give:

- a page without a payload (the legacy "respeed" HTML, or the 2026 HTML alone): each message's
  id, author, shown time and date title, edit notice and editor, and deleted mark, found by
  searching the page or by a template of a message read before; the page's title; and, parsed
  by lxml in one call per page, the messages' texts and signatures and the pager (the 2026
  pager when it is a flat <nav>);
- a 2026 page with a payload and its pagerView: each message's id and shown time (the header
  the payload is checked against) and the title; the rest of its HTML is left unread.

It answers only where it reads the page exactly as the tree does. Anything else raises
`_Unsure`, and the tree reads the page: a charset other than UTF-8; a comment, script, style,
textarea, CDATA or the like among the messages; a block left open or nested over 16 deep; a tag
not in plain form (attribute names in capitals, values not double-quoted, an attribute twice);
an entity in a text or value read here; a message or part marker in a user's text or in another
attribute; a part it cannot find; a pager marker outside a pager as JV writes it; a page
without messages (the tree says what it is). Structure is read on the lowered bytes (tag names
ignore case), tokens and texts on the page's own.

tests/test_jv_fastpath.py proves it agrees with the tree path: on every saved page, mutated
copies of them and generated markup, `JV.parse_page` gives `JV.tree_page`'s Page or the scan
declines.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import suppress
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

from lxml import etree
from lxml.html import HtmlElement

from tally.adapters.html import block_text, collapse, declared_charset
from tally.adapters.jv import (
    MARKUP_2026,
    MARKUP_RESPEED,
    MARKUPS,
    Html,
    Markup,
    Message,
    Payload,
    read_body,
    title_of,
    wrapped,
)
from tally.model import Body

# ---------------------------------------------------------------------------------------------
# Plain markup: what the scan follows, and where tags, elements and class tokens are in it.


class _Unsure(Exception):
    """The page holds markup the byte scan might read otherwise than the tree."""


# Markup the scan does not follow, searched in lowered bytes: comments and the like, "</" not
# before a name (a bogus comment), elements whose content is not markup, the document's own tags,
# table parts (their end tags may close an open <div>: libxml2's end-tag priorities), and names
# that only start like "div". This search runs over every message, so it is written for `re`:
# each test after "<" starts with a literal, rejected at once, and a name ends at the next byte,
# not at a lookahead (a third slower). At the end of the span there is no next byte, but a span
# ending inside a tag fails `_angles_alternate`, its partner in `_require_plain_markup`.
_HAZARD_NAMES = (rb"(?:s(?:cript|tyle)|t(?:extarea|itle|emplate|able|body|head|foot|[rdh])|xmp|"
                 rb"iframe|no(?:embed|frames|script)|plaintext|h(?:tml|ead)|body|frame(?:set)?|"
                 rb"caption|col(?:group)?)[^a-z0-9]")
_HAZARDS = re.compile(rb"<(?:!|\?|/(?:[^a-z]|div[^ \t\n\r>]|" + _HAZARD_NAMES + rb")|div[^ \t\n\r/>]|"
                      + _HAZARD_NAMES + rb")")
_NOT_ANGLES = bytes(b for b in range(256) if b not in b"<>")


def _angles_alternate(low: bytes, start: int, end: int) -> bool:
    """low[start:end] starts and ends outside tags, and every "<" in it is closed by the next
    ">" before another "<" or ">": no tag holds "<" or ">" (a quoted value may hide a tag, as
    in a='<div>'), no text holds ">"."""
    angles = b">" + low[start:end].translate(None, _NOT_ANGLES) + b"<"
    return b"<<" not in angles and b">>" not in angles


def _require_plain_markup(low: bytes, start: int, end: int) -> None:
    """Lowered bytes in which every "<" opens a tag the scan follows, whole."""
    if _HAZARDS.search(low, start, end) or not _angles_alternate(low, start, end):
        raise _Unsure


def _require_plain_spans(low: bytes, spans: list[tuple[int, int]]) -> None:
    """`_require_plain_markup` for every span, in one search of them joined by "<>": the joint
    forms no hazard, and keeps each span's angles apart."""
    joined = b"<>".join([low[start:end] for start, end in spans])
    _require_plain_markup(joined, 0, len(joined))


def _nested(depth: int) -> bytes:
    """Plain lowered markup in which each <div> opened closes again, `depth` deep at most."""
    inner = rb"(?:[^<]++|<(?!/?div[ \t\n\r/>]))*+"  # a tag that is no div: read as text
    for _ in range(depth):
        inner = (rb"(?:[^<]++|<(?!/?div[ \t\n\r/>])|<div(?=[ \t\n\r/>])[^<>]*+>" + inner
                 + rb"</div[ \t\n\r]*+>)*+")
    return inner


# Possessive throughout: one pass, no backtracking. From inside a <div>, it ends at the </div>
# closing it.
_BALANCED = re.compile(_nested(16))
_CLOSING_DIV = re.compile(rb"</div[ \t\n\r]*>")


def _div_end(low: bytes, start: int) -> tuple[int, int]:
    """Where the <div> whose content starts at `start` ends: its content's end, and its end
    tag's end (in plain markup, `_require_plain_markup`)."""
    balanced = _BALANCED.match(low, start)
    closing = _CLOSING_DIV.match(low, balanced.end()) if balanced else None
    if balanced is None or closing is None:
        raise _Unsure  # a block left open, or more than 16 deep
    return balanced.end(), closing.end()


# A start tag in plain form (lower-case attribute names, double-quoted values), capturing the
# attributes the scan reads: class, id, data-id, title, href.
_START_TAG = re.compile(
    rb'<([a-zA-Z][a-zA-Z0-9]*)((?:[ \t\n\r]+(?:class="([^"<>]*)"|id="([^"<>]*)"|data-id="([^"<>]*)"|'
    rb'title="([^"<>]*)"|href="([^"<>]*)"|[a-z][a-z0-9_:.-]*(?:="[^"<>]*")?))*)[ \t\n\r]*/?>')
_READ = {b"class": 0, b"id": 1, b"data-id": 2, b"title": 3, b"href": 4}
_READ_NAMES = re.compile(rb'[ \t\n\r](class|id|data-id|title|href)=')


class _Tag(NamedTuple):
    """A start tag in the page: its lower-case name, where it starts and ends, and the values of
    the attributes the scan reads (None when absent)."""

    name: bytes
    start: int
    end: int
    values: tuple[bytes | None, ...]

    def get(self, name: bytes) -> str | None:
        """An attribute's value as lxml gives it, None when absent."""
        value = self.values[_READ[name]]
        if value is None:
            return None
        if b"&" in value:
            raise _Unsure  # an entity to decode
        return _decoded(value)

    @property
    def classes(self) -> list[str]:
        return (self.get(b"class") or "").split()


def _decoded(raw: bytes) -> str:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise _Unsure from None


def _tag_around(data: bytes, at: int, floor: int) -> _Tag:
    """The start tag holding position `at` (no "<" between `floor` and its own)."""
    start = data.rfind(b"<", floor, at)
    found = _START_TAG.match(data, start) if start >= 0 else None
    if found is None or found.end() <= at:
        raise _Unsure  # text, an end tag, a comment, or a tag not in plain form
    values = found.groups()[2:]
    names = _READ_NAMES.findall(found.group(2)) if values.count(None) < len(values) else []
    if len(set(names)) != len(names):
        raise _Unsure  # an attribute read twice: the regex keeps the last, lxml the first
    return _Tag(found.group(1).lower(), start, found.end(), values)


# Bytes that may sit either side of a class token: str.split() splits on Unicode whitespace,
# whose UTF-8 forms start with C2, E1, E2 or E3 and end in 80-BF, and an entity (";", "&") may
# write one. Other bytes glue the token to a longer one.
_BEFORE_TOKEN = frozenset(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\"'=;" + bytes(range(0x80, 0xC0)))
_AFTER_TOKEN = rb"""[ \t\n\r\x0b\x0c\x1c-\x1f"'>/&\xc2\xe1-\xe3]"""
_AFTER_TOKEN_BYTES = frozenset(b" \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\"'>/&\xc2\xe1\xe2\xe3")


def _token_pattern(token: str) -> re.Pattern[bytes]:
    """Where `token` may end a class token (the byte before is checked apart: a literal first
    lets `re` skip ahead to each candidate)."""
    return re.compile(re.escape(token.encode("ascii")) + rb"(?=" + _AFTER_TOKEN + rb"|\Z)")


class _Tokens(NamedTuple):
    """A markup's class tokens, as searched for in the bytes."""

    message: re.Pattern[bytes]  # the message class, where it may end a token
    roles: dict[str, bytes]  # role -> its class token
    hint: bytes  # the markup's `role_hint`, in every role's token


def _tokens_of(markup: Markup) -> _Tokens:
    if len(set(markup.roles.values())) != len(markup.roles):
        raise ValueError(f"{markup.name}: a role with two tokens is not read from the bytes")
    return _Tokens(_token_pattern(markup.message_class),
                   {role: token.encode("ascii") for token, role in markup.roles.items()},
                   markup.role_hint.encode("ascii"))


_TOKENS = {markup.name: _tokens_of(markup) for markup in MARKUPS}


def _class_tag(data: bytes, token: bytes, start: int, end: int) -> _Tag | None:
    """The first element starting in data[start:end] whose class holds `token`; None when no
    element does. Every free-standing `token` there must be such a class token."""
    at = data.find(token, start, end)
    while at >= 0:
        after = at + len(token)
        if data[at - 1] in _BEFORE_TOKEN and (after == len(data) or data[after] in _AFTER_TOKEN_BYTES):
            tag = _tag_around(data, at, start)
            if token.decode("ascii") not in tag.classes:
                raise _Unsure  # in another attribute or in text: the tree may see otherwise
            return tag
        at = data.find(token, after, end)
    return None


# The inline markup a small part (a name, a date, an edit notice) may hold: its text is the
# bytes without tags. Entities, control characters and other tags are left to the tree.
_INLINE_NAMES = (b"a", b"abbr", b"b", b"bdi", b"bdo", b"br", b"em", b"i", b"img", b"small", b"span",
                 b"strong", b"sub", b"sup", b"time", b"u", b"wbr")
_INLINE = re.compile(rb"(?:[^<&\x00-\x08\x0b\x0c\x0e-\x1f]++|</?(?:" + b"|".join(_INLINE_NAMES)
                     + rb")(?=[ \t\n\r/>])[^<>]*+>)*+")
_ANY_TAG = re.compile(rb"<[^<>]*>")
_START_NAMES = re.compile(rb"<([a-z][a-z0-9]*)")
_BLANK_BETWEEN_TAGS = re.compile(rb">[ \t\n\r\f]+<")  # dropped by some libxml2 versions
_END_TAGS: dict[bytes, re.Pattern[bytes]] = {}


def _element_end(low: bytes, tag: _Tag) -> int:
    """Where the content of the element `tag` opens ends: at its end tag."""
    if tag.name == b"div":
        return _div_end(low, tag.end)[0]
    pattern = _END_TAGS.get(tag.name)
    if pattern is None:
        pattern = _END_TAGS[tag.name] = re.compile(rb"</" + tag.name + rb"[ \t\n\r]*>")
    closing = pattern.search(low, tag.end)
    if closing is None:
        raise _Unsure
    return closing.start()


# Where a parser stops reading markup (searched in lowered bytes): comments, <!…>, <?…>, and the
# elements whose content is text.
_OPENER = re.compile(rb"<(?:(!--)|[!?]|(script|style|textarea|title|xmp|iframe|noembed|noframes|"
                     rb"noscript|plaintext)(?=[ \t\n\r/>]))")
_RAW_ENDS: dict[bytes, re.Pattern[bytes]] = {}


def _hidden_until(low: bytes, opener: re.Match[bytes]) -> int:
    """Where the markup `opener` hides from a parser ends; -1 when parsers may disagree."""
    start = opener.end()
    if opener.group(1):  # a comment
        end = low.find(b"-->", start)
        if low.startswith((b">", b"->"), start) or low.find(b"--!>", start, end) >= 0:
            return -1  # "<!-->", "--!>": not every libxml2 ends the comment there
        return end + 3 if end >= 0 else -1
    name = opener.group(2)
    closing = None
    if name is not None and name != b"plaintext":
        pattern = _RAW_ENDS.get(name)
        if pattern is None:
            pattern = _RAW_ENDS[name] = re.compile(rb"</" + name + rb"(?=[ \t\n\r/>])")
        closing = pattern.search(low, start)
        if closing is None or name == b"script" and low.find(b"<!--", start, closing.start()) >= 0:
            return -1  # never closed, or a script whose "<!--" changes where it ends
    end = low.find(b">", closing.end() if closing else start)  # <!DOCTYPE…>, <?…>: to ">"
    return end + 1 if end >= 0 else -1


# A page's chrome in a form that alternating angles do not prove plain: any attribute quoting.
_QUOTED_TAGS = re.compile(rb"""(?:[^<]++|<(?:[a-z][^ \t\n\r/>]*+(?:[ \t\n\r/]++[^ \t\n\r"'>/=]++"""
                          rb"""(?:[ \t\n\r]*+=[ \t\n\r]*+(?:"[^"]*+"|'[^']*+'|[^ \t\n\r"'=<>`]++))?)*+"""
                          rb"""[ \t\n\r/]*+|/[a-z][^>]*+)>)*+""")


def _require_markup_at(low: bytes, *positions: int) -> None:
    """Every position is one where a parser reads markup: outside comments, scripts and the
    like, and outside any tag, following them from the page's start."""
    at, last = 0, max(positions)
    while True:
        opener = _OPENER.search(low, at, last)
        upto = last if opener is None else opener.start()
        if not _angles_alternate(low, at, upto) and not _QUOTED_TAGS.fullmatch(low, at, upto):
            raise _Unsure
        if opener is None:
            return
        end = _hidden_until(low, opener)
        if end < 0 or any(opener.start() < p < end for p in positions):
            raise _Unsure
        at = end


_TITLE = re.compile(rb"<title>([^<&\x00-\x08\x0b\x0c\x0e-\x1f]*)</title[ \t\n\r]*>")


def _plain_title(data: bytes, low: bytes) -> str:
    """The <title> text as `JV._title` reads it."""
    start = low.find(b"<title")
    title = _TITLE.match(low, start) if start >= 0 else None
    if title is None:
        raise _Unsure
    _require_markup_at(low, start)
    return collapse(_decoded(data[title.start(1):title.end(1)]))


def _lowered_plain_page(data: bytes) -> bytes:
    """The page lowered, when it is UTF-8 (the scan reads no other charset)."""
    if declared_charset(data) not in ("utf-8", "utf8"):
        raise _Unsure
    return data.lower()


# ---------------------------------------------------------------------------------------------
# Messages and their parts, found by search.


class _Part(NamedTuple):
    """A part of a message (author, date, text...) as found in the bytes: its element's name,
    where its start tag starts, its raw title value, its content's span."""

    name: bytes
    start: int
    title: bytes | None
    content: tuple[int, int]


class _Found(NamedTuple):
    """A message as found in the bytes: its id, whether its class marks it deleted, where its
    start tag starts and ends, where its content and its end tag end, and its parts by role."""

    ident: str
    deleted: bool
    start: int
    head_end: int
    content_end: int
    end: int
    parts: dict[str, _Part]


def _message_starts(data: bytes, markup: Markup) -> list[int]:
    """Where each message class token that may stand free in the page is (the byte after is
    checked by the pattern, the one before here): each must be a message's."""
    token = _TOKENS[markup.name].message
    return [m.start() for m in token.finditer(data) if data[m.start() - 1] in _BEFORE_TOKEN]


def _scan_messages(data: bytes, low: bytes, markup: Markup) -> list[_Found]:
    """The page's messages as `JV._html_messages` finds them, with their parts; the markup
    between two messages is checked plain (that the first one starts in markup is left to
    `_scan_html`, which checks it in one walk with the pager's)."""
    found: list[_Found] = []
    between: list[tuple[int, int]] = []
    for at in _message_starts(data, markup):
        if found and at < found[-1].end:
            if at < found[-1].head_end:
                continue  # the token twice in one class
            raise _Unsure  # a message inside another
        start = data.rfind(b"<", 0, at)
        message = _by_template(data, low, markup, start, at) or _by_search(data, low, markup, at)
        if found:
            between.append((found[-1].end, start))
        found.append(message)
    _require_plain_spans(low, between)
    return found


def _by_search(data: bytes, low: bytes, markup: Markup, at: int) -> _Found:
    """The message whose start tag holds position `at`, its parts searched for one by one; a
    template of it reads the next ones."""
    tag = _tag_around(data, at, 0)
    ident = markup.id_value(tag.get(markup.id_attribute) or "")
    classes = tag.classes
    if tag.name != b"div" or markup.message_class not in classes or not ident:
        raise _Unsure
    content_end, end = _div_end(low, tag.end)
    _require_plain_markup(low, tag.end, content_end)
    parts = {}
    for role, token in _TOKENS[markup.name].roles.items():
        part = _class_tag(data, token, tag.end, content_end)
        if part is not None:
            parts[role] = _Part(part.name, part.start, part.values[3],
                                (part.end, _element_end(low, part)))
    deleted = not markup.deleted.isdisjoint(classes)
    message = _Found(ident, deleted, tag.start, tag.end, content_end, end, parts)
    _learn_template(data, low, markup, tag, message)
    return message


def _part_text(data: bytes, low: bytes, part: _Part | None) -> str:
    """What `jv._text` gives for a part's element, read from the bytes."""
    if part is None:
        return ""
    start, end = part.content
    if not _INLINE.fullmatch(low, start, end):
        raise _Unsure
    content = data[start:end]
    if b"<" not in content:
        return collapse(_decoded(content))
    name = part.name.lower()  # only an inline part may hold its like: `_INLINE` takes no other
    if (_BLANK_BETWEEN_TAGS.search(data, start, end)  # between two tags: never at an edge
            or name in _INLINE_NAMES and name in _START_NAMES.findall(low, start, end)):
        raise _Unsure  # a blank some parsers drop, or a tag like it inside (its end would end it)
    return collapse(_decoded(_ANY_TAG.sub(b"", content)))


def _editor_text(data: bytes, low: bytes, edit: _Part, links: frozenset[str]) -> str:
    """`jv._text(markup.editor_in(edit))`: the first element in the notice with an editor link's
    class (the notice is inline markup: `_part_text` has checked it)."""
    at, end = edit.content
    while (opening := _START_NAMES.search(low, at, end)) is not None:
        tag = _tag_around(data, opening.start() + 1, at)
        if not links.isdisjoint(tag.classes):
            return _part_text(data, low, _Part(tag.name, tag.start, None,
                                               (tag.end, _element_end(low, tag))))
        at = tag.end
    return ""


# ---------------------------------------------------------------------------------------------
# Message templates. The messages of a page repeat the same markup around their own texts: the
# markup of a message read by search (its tag names and attribute names, in order) makes a regex
# that reads the next ones in one match, leaving free only texts, attribute values and the
# parts' contents. A message it matches has the searched one's structure, so the same parts in
# the same places; its own values and contents are then checked and read as a search reads
# them. Templates are kept from page to page: a thread's pages share their markup.

_ANY_TEXT = rb"[^<]*+"
_PLAIN_TAG = re.compile(rb"<(/?)([a-zA-Z][a-zA-Z0-9]*)((?:[ \t\n\r]+[a-z][a-z0-9_:.-]*"
                        rb'(?:="[^"<>]*")?)*)[ \t\n\r]*/?>')
_ATTRIBUTES = re.compile(rb'[ \t\n\r]+([a-z][a-z0-9_:.-]*)(="[^"<>]*")?')
_TAGS_AND_TEXTS = re.compile(rb"<[^<>]*>|[^<]+")


def _tag_pattern(tag: bytes, groups: dict[bytes, str], hint: bytes = b"") -> bytes | None:
    """A regex of start or end tags like `tag`: the same name, attribute names in the same
    order and classes, any other values; the values of the attributes `groups` names are
    captured (with no entity). JvCare codes (a link's URL) are let free, and with a `hint` (a
    part's start tag) every class token without it: no part's token can take their place."""
    found = _PLAIN_TAG.fullmatch(tag)
    if found is None:
        return None
    closing, name, attributes = found.groups()
    if closing:
        return rb"</(?i:" + name + rb")[ \t\n\r]*+>"
    pattern = [rb"<" + name]
    for attribute, value in _ATTRIBUTES.findall(attributes):
        if attribute in groups:
            value = rb'="(?P<%s>[^"<>&]*+)"' % groups[attribute].encode()
        elif attribute == b"class":
            value = b'="' + _classes_pattern(value[2:-1], hint) + b'"'
        elif value:
            value = rb'="[^"<>]*+"'
        pattern.append(rb"[ \t\n\r]++" + attribute + value)
    pattern.append(rb"[ \t\n\r]*+/?>")
    return b"".join(pattern)


_SPACES = re.compile(rb"([ \t\n\r]+)")
_JVCARE_CODE = re.compile(rb"[0-9A-F]{8,}")


def _classes_pattern(classes: bytes, hint: bytes) -> bytes:
    """A class list like `classes`, JvCare codes free, and with a `hint` its tokens without it."""
    pieces = []
    for piece in _SPACES.split(classes):
        if _JVCARE_CODE.fullmatch(piece):
            pieces.append(rb"[0-9A-F]++")
        elif hint and piece.strip() and hint not in piece:
            pieces.append(rb'(?:(?!' + re.escape(hint) + rb')[^ \t\n\r"<>&])++')
        else:
            pieces.append(re.escape(piece))
    return b"".join(pieces)


def _markup_pattern(data: bytes, start: int, end: int) -> bytes | None:
    """A regex of markup with the tags of data[start:end], any texts between them."""
    pattern = [_ANY_TEXT]
    for piece in _TAGS_AND_TEXTS.finditer(data, start, end):
        if piece.group().startswith(b"<"):
            tag = _tag_pattern(piece.group(), {})
            if tag is None:
                return None
            pattern += (tag, _ANY_TEXT)
    return b"".join(pattern)


_BODY = rb"(?:[^<]++|<(?!/?(?i:div)[ \t\n\r/>]))*+"
for _depth in range(16):
    _BODY = (rb"(?:[^<]++|<(?!/?(?i:div)[ \t\n\r/>])|<(?i:div)(?=[ \t\n\r/>])[^<>]*+>" + _BODY
             + rb"</(?i:div)[ \t\n\r]*+>)*+")


def _content_pattern(role: str, name: bytes) -> bytes:
    """A part's content: up to its element's end tag, as `_element_end` finds it."""
    if role in ("text", "signature"):
        return _BODY  # checked plain (`_require_plain_markup`) once matched
    if name.lower() == b"div":
        return rb"(?:[^<]++|<(?!/?(?i:div)[ \t\n\r/>]))*+"
    return rb"(?:[^<]++|<(?!/(?i:" + name + rb")[ \t\n\r]*>))*+"


class _PartGroups(NamedTuple):
    """Where a template's match holds a part: the numbers of its groups (content, start tag's
    start, title: 0 when its start tag has none), and its element's name."""

    role: str
    content: int
    at: int
    title: int
    name: bytes


@dataclass(frozen=True, slots=True, eq=False)  # one per source (`_COMPILED`): `is` tells them apart
class _Template:
    pattern: re.Pattern[bytes]
    deleted: bool  # whether the message's class (the same in every match) marks it deleted
    names: dict[str, bytes]  # the parts it captures -> their elements' names
    order: tuple[str, ...]  # those parts in page order
    titled: frozenset[str]  # the parts whose start tag has a title
    header: re.Pattern[bytes] | None  # up to the end of the date part, when there is one
    # By number, not name: a match's `regs` gives every span in one call (the header's groups
    # are numbered as the pattern's: it is a prefix of it).
    groups: tuple[_PartGroups, ...] = field(init=False)  # the parts, in page order
    date_index: int = field(init=False)  # the date's place among them, when there is one
    id_group: int = field(init=False)
    end_group: int = field(init=False)  # "m_end", where the message's start tag ends
    close_group: int = field(init=False)  # "m_close", where its content ends

    def __post_init__(self) -> None:
        number = self.pattern.groupindex
        groups = tuple(_PartGroups(role, number[role], number[_AT_GROUP[role]],
                                   number[_TITLE_GROUP[role]] if role in self.titled else 0,
                                   self.names[role])
                       for role in self.order)
        object.__setattr__(self, "groups", groups)
        object.__setattr__(self, "date_index", self.order.index("date") if self.header else -1)
        object.__setattr__(self, "id_group", number["m_id"])
        object.__setattr__(self, "end_group", number["m_end"])
        object.__setattr__(self, "close_group", number["m_close"])


# Markup name -> templates, the latest used first (a short list: a page's messages come in a
# few shapes, with or without an edit notice or a signature), and the compiled ones by source.
_TEMPLATES: dict[str, list[_Template]] = {}
_KEPT_TEMPLATES = 8
_COMPILED: dict[bytes, _Template] = {}


def _keep(markup: Markup, template: _Template) -> None:
    """Put a template first among its markup's (lists may race between threads: no harm)."""
    kept = _TEMPLATES.setdefault(markup.name, [])
    if kept and kept[0] is template:
        return
    with suppress(ValueError):
        kept.remove(template)
    kept.insert(0, template)
    del kept[_KEPT_TEMPLATES:]


def _learn_template(data: bytes, low: bytes, markup: Markup, tag: _Tag, message: _Found) -> None:
    """Keep a template of a message read by search (none when its parts nest or a tag is not
    in plain form)."""
    head = _tag_pattern(data[tag.start:tag.end], {markup.id_attribute: "m_id"})
    if head is None:
        return
    pattern, at, titled = [head, rb"(?P<m_end>)"], tag.end, set()
    header = None
    for role, part in sorted(message.parts.items(), key=lambda item: item[1].start):
        closing = _CLOSING_TAG.match(low, part.content[1])
        own_end = data.find(b">", part.start) + 1
        between = _markup_pattern(data, at, part.start) if part.start >= at else None
        own = _tag_pattern(data[part.start:own_end], {b"title": f"{role}_title"},
                           markup.role_hint.encode("ascii"))
        if between is None or own is None or closing is None:
            return
        if part.title is not None:
            titled.add(role)
        element = (rb"(?P<%s_at>)" % role.encode() + own
                   + rb"(?P<%s>" % role.encode() + _content_pattern(role, part.name) + rb")"
                   + rb"</(?i:" + part.name + rb")[ \t\n\r]*+>")
        # An edit notice or a signature only some messages have: one template for both, but
        # for a message holding its token further on (without the part, that would be it).
        optional = (role in _OPTIONAL
                    and data.find(_TOKENS[markup.name].roles[role], closing.end(), message.end) < 0)
        pattern += (between, rb"(?:" + element + rb")?" if optional else element)
        if role == "date":
            header = b"".join(pattern)
        at = closing.end()
    rest = _markup_pattern(data, at, message.content_end) if at <= message.content_end else None
    if rest is not None:
        source = b"".join(pattern) + rest + rb"(?P<m_close>)</(?i:div)[ \t\n\r]*+>"
        template = _COMPILED.get(source)
        if template is None:
            if len(_COMPILED) >= 64:
                _COMPILED.clear()  # a bound, for pages of ever new shapes
            names = {role: part.name for role, part in message.parts.items()}
            order = tuple(sorted(names, key=lambda role: message.parts[role].start))
            template = _COMPILED[source] = _Template(
                re.compile(source), message.deleted, names, order, frozenset(titled),
                re.compile(header) if header else None)
        _keep(markup, template)


_CLOSING_TAG = re.compile(rb"</[a-z][a-z0-9]*[ \t\n\r]*>")
_OPTIONAL = ("edit", "signature")


def _by_template(data: bytes, low: bytes, markup: Markup, start: int, at: int) -> _Found | None:
    """The message whose start tag starts at `start` (holding the token at `at`), read by a
    kept template; None when none fits."""
    for template in tuple(_TEMPLATES.get(markup.name, ())):
        found = template.pattern.match(data, start)
        if found is not None and at < found.start("m_end"):
            try:
                message = _templated(data, low, markup, template, found)
            except _Unsure:
                return None  # values or contents a search reads otherwise, or declines
            _keep(markup, template)
            return message
    return None


def _templated(data: bytes, low: bytes, markup: Markup, template: _Template,
               found: re.Match[bytes]) -> _Found:
    """The message a template matched: its id and parts. Its classes are the template's, so
    no element outside the parts' contents has a part's class; inside a content before the
    last part none may (`role_hint` is in each part's class), nor in any when a part is
    missing (its token could be anywhere). The contents are checked when read: texts and
    signatures with the page's (`_parse_spans`), the others by `_part_text`."""
    regs = found.regs
    ident = _templated_id(data, markup, template, regs)
    if not ident:
        raise _Unsure
    present = [part for part in template.groups if regs[part.content][0] >= 0]  # its groups or none
    before = present[:-1] if len(present) == len(_TOKENS[markup.name].roles) else present
    if _holds_part_token(data, markup, [regs[part.content] for part in before]):
        raise _Unsure
    parts = {}
    for part in present:  # `_templated_part`, inlined: this runs for every part of every message
        title = regs[part.title] if part.title else None
        parts[part.role] = _new(_Part, (part.name, regs[part.at][0],
                                        data[title[0]:title[1]] if title else None,
                                        regs[part.content]))
    return _new(_Found, (ident, template.deleted, regs[0][0], regs[template.end_group][0],
                         regs[template.close_group][0], regs[0][1], parts))


_new = tuple.__new__  # builds a NamedTuple without its __new__, a Python call


def _templated_id(data: bytes, markup: Markup, template: _Template,
                  regs: tuple[tuple[int, int], ...]) -> str:
    start, end = regs[template.id_group]
    return markup.id_value(_decoded(data[start:end]))


def _templated_part(data: bytes, part: _PartGroups, regs: tuple[tuple[int, int], ...]) -> _Part:
    title = regs[part.title] if part.title else None
    return _new(_Part, (part.name, regs[part.at][0], data[title[0]:title[1]] if title else None,
                        regs[part.content]))


# A part's groups in a template besides its content's: where its start tag starts, its title.
_ROLES = {role for markup in MARKUPS for role in markup.roles.values()}
_AT_GROUP = {role: f"{role}_at" for role in _ROLES}
_TITLE_GROUP = {role: f"{role}_title" for role in _ROLES}


def _holds_part_token(data: bytes, markup: Markup, spans: list[tuple[int, int]]) -> bool:
    """Whether a span of data may hold a part's class token (`role_hint` tells most at once)."""
    tokens = _TOKENS[markup.name]
    for start, end in spans:
        if data.find(tokens.hint, start, end) < 0:
            continue
        for token in tokens.roles.values():
            at = data.find(token, start, end)
            while at >= 0:
                after = at + len(token)
                if data[at - 1] in _BEFORE_TOKEN and data[after] in _AFTER_TOKEN_BYTES:
                    return True
                at = data.find(token, after, end)
    return False


# ---------------------------------------------------------------------------------------------
# Pages: a page's `Html` from its messages, bodies, pager and title, or a payload page's headers.


def _tag_value(raw: bytes) -> str:
    if b"&" in raw:
        raise _Unsure  # an entity to decode
    return _decoded(raw)


def _pager_content(data: bytes, low: bytes) -> tuple[tuple[int, int] | None, list[int]]:
    """Where the content of the pager `jv._pager` finds in the tree is (None when there is
    none), checked plain, and the start tags it is read from: those must be markup."""
    if MARKUP_2026.pager_marker in data:
        return _nav_pager_content(data, low)
    at = data.find(MARKUP_RESPEED.pager_marker)
    if at < 0:
        return None, []
    tag = _tag_around(data, at, 0)
    if (tag.name != b"div" or "bloc-liste-num-page" not in (tag.get(b"class") or "")
            or tag.get(b"href") is not None or "JvCare" in tag.classes):
        raise _Unsure  # not the first such <div>, or one whose own link names a page
    end, pager_end = _div_end(low, tag.end)
    _require_plain_markup(low, tag.start, pager_end)
    return (tag.end, end), [tag.start]


# The 2026 pager as JV writes it (§3.3): a <nav> whose children are its buttons and items, each
# a <span> or an <a> holding text alone. Matched from the end of the <nav>'s start tag, in the
# lowered bytes, to its end tag.
_FLAT_NAV = re.compile(rb"(?:[^<]++|<(span|a)(?=[ \t\n\r/>])[^<>]*+>[^<]*+</\1[ \t\n\r]*+>)*+"
                       rb"(?=</nav[ \t\n\r]*+>)")


def _nav_pager_content(data: bytes, low: bytes) -> tuple[tuple[int, int], list[int]]:
    """The 2026 pager's content, and its <nav>s' starts: the tree's pager is the parent of the
    first element whose class holds "pagination__item", or the highest ancestor with such a
    child (`jv._first_pager_item`). When every such class in the page is a child's in a flat
    <nav> (`_FLAT_NAV`), no such element has a parent but its <nav>, and no <nav> has an
    ancestor holding one: the pager is the first one's <nav>. Inside a flat <nav> the marker
    can only be where the tree sees no more than a child's class."""
    marker = MARKUP_2026.pager_marker
    navs: list[tuple[int, int, int]] = []  # each <nav>: its start, its content's start and end
    at = data.find(marker)
    while at >= 0:
        if navs and at < navs[-1][2]:
            at = data.find(marker, at + len(marker))
            continue
        tag = _tag_around(data, at, 0)
        if marker.decode("ascii") not in (tag.get(b"class") or ""):
            raise _Unsure  # in a text or another attribute: the tree may see otherwise
        navs.append(_flat_nav(data, low, tag.start))
        at = data.find(marker, tag.end)
    return (navs[0][1], navs[0][2]), [start for start, _content, _end in navs]


def _flat_nav(data: bytes, low: bytes, child: int) -> tuple[int, int, int]:
    """The flat <nav> (`_FLAT_NAV`) holding the child whose start tag starts at `child`: its
    start, its content's start and end."""
    start = low.rfind(b"<nav", 0, child)
    nav = _tag_around(data, start + 1, start) if start >= 0 else None
    content = _FLAT_NAV.match(low, nav.end) if nav is not None and nav.name == b"nav" else None
    if (nav is None or content is None or not nav.end <= child < content.end()
            or data[nav.end - 2] == ord("/") or nav.get(b"href") is not None
            or "JvCare" in nav.classes):
        raise _Unsure  # no such <nav>, or one whose own start tag may name a page
    return nav.start, nav.end, content.end()


_SPAN_PARSER = etree.HTMLParser(encoding="utf-8", remove_comments=True, collect_ids=False)


def _parse_spans(data: bytes, spans: list[tuple[int, int]]) -> list[HtmlElement]:
    """Each span of the page, parsed as the content of a <div>: one parse for them all. The
    spans are whole blocks of plain markup, so the wrappers come out side by side."""
    pieces: list[bytes] = []
    for n, (start, end) in enumerate(spans):
        pieces += (b'<div data-tally-n="%d">' % n, data[start:end], b"</div>")
    joined = b"".join(pieces)
    _require_plain_markup(joined.lower(), 0, len(joined))
    wrappers = wrapped(b"<html><body>" + joined + b"</body></html>", len(spans), _SPAN_PARSER)
    if wrappers is None:
        raise _Unsure
    return wrappers


def _html_markup(data: bytes, low: bytes) -> tuple[Markup, list[_Found]]:
    """The markup and the messages `JV._html_messages` finds."""
    for markup in MARKUPS:
        if markup.marker in data:
            found = _scan_messages(data, low, markup)
            if found:
                return markup, found
    raise _Unsure  # no message: the tree says what the page is


def _bodies(found: _Found) -> tuple[tuple[int, int], tuple[int, int] | None]:
    """The spans of a message's text and signature (both <div>s, as `_parse_spans` needs)."""
    text, signature = found.parts.get("text"), found.parts.get("signature")
    if text is None or text.name != b"div" or signature is not None and signature.name != b"div":
        raise _Unsure  # no text (the tree says so), or a body whose end is not read here
    return text.content, signature.content if signature else None


def _scan_html(data: bytes) -> Html | None:
    """A page without a payload read from its bytes; None leaves it to the tree."""
    try:
        low = _lowered_plain_page(data)
        title = title_of(_plain_title(data, low))
        markup, found = _html_markup(data, low)
        pager, pager_tags = _pager_content(data, low)
        _require_markup_at(low, found[0].start, *pager_tags)  # one walk from the page's start
        spans: list[tuple[int, int]] = []
        for scanned in found:
            text, signature = _bodies(scanned)
            spans.append(text)
            if signature is not None:
                spans.append(signature)
        if pager is not None:
            spans.append(pager)
        messages = [_message_of(data, low, markup, message) for message in found]
        elements = iter(_parse_spans(data, spans))
    except _Unsure:
        return None
    for message, parts in zip(messages, found):
        message.body = _body_of(elements, signed="signature" in parts.parts)
    return Html(messages, {}, next(elements) if pager is not None else None, title)


def _message_of(data: bytes, low: bytes, markup: Markup, found: _Found) -> Message:
    """`jv._from_html`'s message from the bytes, but for its body (`_body_of`, after the parse)."""
    parts = found.parts
    date, edit = parts.get("date"), parts.get("edit")
    return Message(
        id=found.ident,
        author=_part_text(data, low, parts.get("author")),
        author_id=None,
        time_text=_part_text(data, low, date),
        body=_NO_BODY,
        edit_text=_part_text(data, low, edit),
        editor=(_editor_text(data, low, edit, markup.edit_link) if edit else "") or None,
        deleted=found.deleted,
        time_title=collapse(_tag_value(date.title)) if date and date.title is not None else "",
    )


_NO_BODY = Body(own="")


def _body_of(elements: Iterator[HtmlElement], signed: bool) -> Body:
    """A message's body from its parsed text, and signature when it has one."""
    body = read_body(next(elements))
    if signed:
        signature = next(elements)
        if not body.signature:
            body = replace(body, signature=block_text(signature))
    return body


def _scan_2026(data: bytes) -> Html | None:
    """A payload page's HTML from its bytes: each message's shown time and the title (§3.3);
    None leaves it to the tree. Only what leads to each date is read: the markup between two
    dates is checked plain, so no message marker hides in it."""
    try:
        low = _lowered_plain_page(data)
        title = title_of(_plain_title(data, low))
        shown: dict[str, str] = {}
        plain: list[tuple[int, int]] = []  # spans to check plain: between dates, and in headers
        # The first message's start; the last message's start tag's end and date's end.
        first = head_end = date_end = -1
        for at in _message_starts(data, MARKUP_2026):
            if at < head_end:
                continue  # the token twice in one class
            start = data.rfind(b"<", 0, at)
            if start < date_end:
                raise _Unsure  # a marker before the last date
            if first < 0:
                first = start
            else:
                plain.append((date_end, start))
            ident, head_end, date, date_end = (_date_by_template(data, start, at, plain)
                                               or _date_by_search(data, low, at))
            shown[ident] = _part_text(data, low, date)
        if not shown:
            return None
        _require_markup_at(low, first)
        _require_plain_spans(low, plain)
    except _Unsure:
        return None
    return Html([], shown, None, title)


def _date_by_template(data: bytes, start: int, at: int,
                      plain: list[tuple[int, int]]) -> tuple[str, int, _Part, int] | None:
    """A message's id, start tag end, date part and date end, read by a kept template's
    header; the parts before the date are unread, but checked as `_templated` checks them (their
    spans are added to those to check `plain`)."""
    for template in tuple(_TEMPLATES.get(MARKUP_2026.name, ())):
        found = template.header.match(data, start) if template.header else None
        regs = found.regs if found is not None else None
        if regs is None or at >= regs[template.end_group][0]:
            continue
        ident = _templated_id(data, MARKUP_2026, template, regs)
        spans = [regs[part.content] for part in template.groups[:template.date_index]
                 if regs[part.content][0] >= 0]
        if not ident or _holds_part_token(data, MARKUP_2026, spans):
            return None
        plain += spans
        date = _templated_part(data, template.groups[template.date_index], regs)
        _keep(MARKUP_2026, template)
        return ident, regs[template.end_group][0], date, regs[0][1]
    return None


def _date_by_search(data: bytes, low: bytes, at: int) -> tuple[str, int, _Part, int]:
    message = _by_search(data, low, MARKUP_2026, at)
    date = message.parts.get("date")
    closing = _CLOSING_TAG.match(low, date.content[1]) if date else None
    if date is None or closing is None:
        raise _Unsure
    return message.ident, message.head_end, date, closing.end()


def html_from_bytes(data: bytes, payload: Payload | None,
                     pager_view: dict[str, Any]) -> Html | None:
    """`Html` read from the bytes when the markup allows, else None. Beside a payload the HTML
    is only checked against it and gives the title, its pager unread: that needs a pagerView."""
    if payload is None:
        return _scan_html(data)
    if pager_view and MARKUP_2026.marker in data:
        return _scan_2026(data)
    return None
