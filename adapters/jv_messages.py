"""jeuxvideo.com's messages as each markup gives them (FORUMS.md §3.2, §3.3): a payload item of
the 2026 JSON, a `div.messageUser` of the 2026 HTML or a `div.bloc-message-forum` of the legacy
"respeed" HTML, each read into one `Message` before its time is localised; the message bodies
(quotes, spoilers, code, signature, edit notice); the shown times; and what sits beside the
messages of a page and is not one. The engine (adapters/jv.py) reads the page with these.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from lxml import etree
from lxml.html import HtmlElement

from tally.adapters import dates
from tally.adapters.html import (
    Aside,
    block_text,
    class_set,
    collapse,
    declared_charset,
    has_class_xpath,
    parse_tree,
    split_body,
)
from tally.errors import ForumError
from tally.model import Body, Quote, msg

# ---------------------------------------------------------------------------------------------
# Times. The post header shows "02 juin 2026 à 22:25:06" (both front-ends, §3.2/§3.3). The short
# forms of the 2026 payload (`publishedDateRelative` "02 juin", `…Alt` "02/06/2026") and the
# usual French relative wordings are read too, in case a theme shows them (UNVERIFIED on JV).

_READING = dates.Options(bare_clock=True)  # JV lists write today's times as a bare clock
_NO_ANCHOR = datetime(2000, 1, 1)  # full dates need no fetch time: relative readings are refused


@dataclass(frozen=True, slots=True)
class Shown:
    """What a shown time says: the naive Paris wall time, and how exact and how anchored."""

    at: datetime
    relative: bool = False  # read against the fetch time
    dated_only: bool = False  # no time of day on the page


def full_date(text: str) -> datetime | None:
    """The first "02 juin 2026 à 22:25:06" in `text` (also "1er", no seconds), naive."""
    stock = dates.stock_date(text)  # the header's own form, one match
    if stock is not None:
        return stock
    shown = dates.find_first(text, _NO_ANCHOR)
    return shown.at if shown is not None and not shown.relative else None


def read_shown_time(text: str, fetched_local: datetime) -> Shown | None:
    """Read a JV time as shown, absolute or relative to the fetch wall time (Paris), with the
    shared reader of adapters/dates.py."""
    shown = dates.read(text, fetched_local, _READING)
    if shown is None:
        return None
    return Shown(shown.at, relative=shown.relative, dated_only=not shown.has_time)


# ---------------------------------------------------------------------------------------------
# Message bodies: quotes, spoilers, code, signature, edit notice (FORUMS.md §3.2, §3.3).

# "Le 02 juin 2026 à 22:20:01 Pseudo a écrit :", or on real 2026 pages often without the author:
# "Le 22 juillet 2026 à 11:36:56 :" (fixtures/jv/real-2026).
_QUOTE_HEAD = re.compile(
    r"^Le\s+(.+?\d{1,2}[:h]\d{2}(?::\d{2})?)(?:\s+(.+?)\s+a\s+écrit)?\s*:?\s*$")
_SPOILER = frozenset(("bloc-spoil-jv", "message__spoil"))
_SPOILER_CONTENT = etree.XPath(
    f"descendant::*[{has_class_xpath('contenu-spoil')} or {has_class_xpath('message__spoilContent')}]")
_EDIT_NOTICE = frozenset(("info-edition-msg", "messageUser__dateEdit"))
_EDIT_TEXT = re.compile(r"Message\s+édité\s+le\s+(.+?)\s+par\s*(.*)$")


def _classify(element: HtmlElement) -> Aside | None:
    """Which JV blocks inside a message are not the author's own voice (C1)."""
    tag = element.tag
    if tag == "blockquote":  # blockquote.blockquote-jv / blockquote.message__blockquote
        return "quote"
    if tag == "pre":  # pre.pre-jv > code.code-jv / pre.message__pre > code.message__code
        return "code"
    names = element.get("class")
    if not names:  # most nodes of a message: nothing to look up (this runs for every node)
        return None
    try:
        return _ASIDE_OF[names]
    except KeyError:
        return _aside_of(names)


# Class attribute -> its block: a theme repeats the same few class lists in every message.
_ASIDE_OF: dict[str, Aside | None] = {}


def _aside_of(names: str) -> Aside | None:
    classes = names.split()
    kind: Aside | None = None
    if not _SPOILER.isdisjoint(classes):
        kind = "spoiler"
    elif not _EDIT_NOTICE.isdisjoint(classes):
        kind = "drop"  # read on its own, as the edit marker
    elif "signature" in names and any("signature" in c for c in classes):
        kind = "signature"
    if len(_ASIDE_OF) < 4096:  # a bound, for pages that vary their class lists
        _ASIDE_OF[names] = kind
    return kind


def _spoiler_text(element: HtmlElement) -> str:
    """A spoiler's hidden text, without its "Spoil" / "Afficher" / "Masquer" toggles."""
    content = _SPOILER_CONTENT(element)
    return "\n".join(block_text(c) for c in content) if content else block_text(element)


def _aside_text(element: HtmlElement) -> str:
    return _spoiler_text(element) if class_set(element) & _SPOILER else block_text(element)


# A spoiler's toggles ("Spoil", "Afficher", "Masquer"): chrome, also inside a quote, where the
# spoiler is not taken out (real legacy markup, fixtures/jv/legacy-guest-2025).
_TOGGLES = frozenset(("barre-head", "message__spoilLabel", "message__spoilButton"))


def _is_toggle(element: HtmlElement) -> bool:
    names = element.get("class")
    return bool(names) and not _TOGGLES.isdisjoint(names.split())


def _read_quote(element: HtmlElement) -> Quote:
    """"Le 02 juin 2026 à 22:20:01 Pseudo a écrit :" heads a quote: its date is not the post's."""
    text = block_text(element, _is_toggle)
    head, _, rest = text.partition("\n")
    found = _QUOTE_HEAD.match(head)
    # The header's own date in one match (the stock form); any other wording is searched for.
    if found and (dates.stock_date(found.group(1)) or full_date(head)):
        return Quote(text=rest, author=found.group(2))
    return Quote(text=text)


def read_body(message: HtmlElement) -> Body:
    return split_body(message, _classify, _read_quote, _aside_text)


_FRAGMENT_PARSER = etree.HTMLParser(remove_comments=True, collect_ids=False)


def _fragment(html_text: str) -> HtmlElement:
    """A payload's `renderedText` as an element (plain lxml elements: no per-node class lookup)."""
    root = etree.fromstring(f"<html><body><div>{html_text}</div></body></html>", _FRAGMENT_PARSER)
    return root[0][0]


# Markup that a fragment parse and a parse of all fragments side by side may read differently
# (document-level tags, comments that may swallow what follows): such pages parse one by one.
_ONE_BY_ONE = re.compile(r"<\s*/?\s*(?:html|head|body|frameset)\b|<!|<\?", re.IGNORECASE)
# What every text _ONE_BY_ONE matches holds, quicker to look for.
_MAYBE_ONE_BY_ONE = re.compile(r"<[\s/]*(?:[hH][tTeE]|[bB][oO]|[fF][rR]|[!?])")


def _one_by_one(text: str) -> bool:
    return bool(_MAYBE_ONE_BY_ONE.search(text)) and bool(_ONE_BY_ONE.search(text))


def wrapped(document: str | bytes, count: int, parser: etree.HTMLParser) -> list[HtmlElement] | None:
    """The `count` numbered wrappers of a document built as `<html><body><div data-tally-n="0">
    …</div>…</body></html>`, or None when they do not come out side by side and in order (or
    are more than it numbers: not parsed)."""
    if count > len(_NUMBERS):
        return None
    root = etree.fromstring(document, parser)
    body = root[0] if root is not None and len(root) == 1 else None
    if body is None or body.tag != "body" or len(body) != count or body.text:
        return None
    wrappers = list(body)
    numbers = [w.get("data-tally-n") if w.tag == "div" and w.tail is None else None
               for w in wrappers]
    return wrappers if numbers == _NUMBERS[:count] else None


_NUMBERS = [str(n) for n in range(64)]  # wrapper numbers; a page holds 20 messages


def _fragments(texts: list[str]) -> list[HtmlElement]:
    """Every `renderedText` of a page as an element, as `_fragment` gives each: one parse of
    them all, side by side in numbered wrappers, costs a fraction of a parse per message. When
    the wrappers do not come out as the page's fragments in order (a fragment that closes more
    than it opens, or leaves a block open), each is parsed on its own."""
    if not 2 <= len(texts) <= len(_NUMBERS):
        return [_fragment(t) for t in texts]
    joined = "".join([f'<div data-tally-n="{n}">{t}</div>' for n, t in enumerate(texts)])
    wrappers = (None if _one_by_one(joined) else
                wrapped(f"<html><body>{joined}</body></html>", len(texts), _FRAGMENT_PARSER))
    return wrappers if wrappers is not None else [_fragment(t) for t in texts]


def _parse(data: bytes) -> HtmlElement:
    """`parse_tree` without libxml2's table of ids: JV is read by class and attribute, never
    looked up by id, and filling the table costs about a tenth of the parse."""
    parser = etree.HTMLParser(encoding=declared_charset(data), remove_comments=True,
                              collect_ids=False)
    root = etree.fromstring(data, parser=parser)
    return parse_tree(data) if root is None else root  # its fallback for an empty document


# ---------------------------------------------------------------------------------------------
# One message, as each markup gives it, before times are read.


@dataclass(slots=True)  # not frozen: a frozen __init__ sets each field through object.__setattr__
class Message:
    id: str
    author: str
    author_id: str | None
    time_text: str
    body: Body
    edit_text: str = ""  # "Message édité le … par X", collapsed
    editor: str | None = None
    deleted: bool = False
    time_title: str = ""  # a full date in the date element's title, when a theme adds one


def _payload_edit(item: dict[str, Any]) -> tuple[str, str | None]:
    """The edit notice of a payload message (`updatedText` ends with "par ", §3.3)."""
    when = collapse(str(item.get("updatedDate") or ""))
    if not when:
        return "", None
    editor = collapse(str(item.get("updatedAuthorName") or "")) or None
    lead = collapse(str(item.get("updatedText") or ""))
    if not lead or when not in lead:
        lead = f"Message édité le {when} par"
    return collapse(f"{lead} {editor or ''}"), editor


def _payload_items(items: list[Any], where: str) -> tuple[list[dict[str, Any]], list[str]]:
    """The payload's messages, and the notes on the items that are not messages (issue 13):
    placeholders of deleted messages that name no author or time. Any other item that cannot
    be read stops the count."""
    kept: list[dict[str, Any]] = []
    skipped: list[str] = []
    for item in items:
        if not isinstance(item, dict):
            raise ForumError(f"{where}: a listMessage item is not an object: {item!r:.60}")
        placeholder = not (item.get("publishedAuthorName") and item.get("publishedDate"))
        if item.get("stateMessage") == "msg-deleted" and placeholder:
            skipped.append(msg("message {post} skipped: a deleted message's placeholder "
                               "(msg-deleted), no author or time in the payload",
                               post=str(item.get("id"))))
        elif item.get("id") is None:
            raise ForumError(f"{where}: a listMessage item without an id "
                             f"(by {item.get('publishedAuthorName')!r}): cannot tell which post")
        elif item.get("isBlacklisted") and not item.get("renderedText"):
            raise ForumError(f"{where}: post {item['id']}: hidden by the blacklist of the account "
                             "that saved the page; save it logged out, or with the blacklist off")
        else:
            kept.append(item)
    return kept, skipped


def _from_payload_item(item: dict[str, Any], body: Body) -> Message:
    edit_text, editor = _payload_edit(item)
    author_id = item.get("publishedAuthorId")
    return Message(
        id=str(item["id"]),
        author=collapse(str(item.get("publishedAuthorName") or "")),
        author_id=str(author_id) if author_id not in (None, "", 0) else None,
        time_text=collapse(str(item.get("publishedDate") or "")),
        body=body,
        edit_text=edit_text,
        editor=editor,
        deleted=item.get("stateMessage") == "msg-deleted",
    )


def _first_pager_item(root: HtmlElement) -> HtmlElement | None:
    """What `//*[contains(@class, 'pagination__item')]/..` gives first (§3.3: the items' parent),
    without collecting every item's parent, a search that costs a tenth of the page's parse."""
    if "pagination__item" in (root.get("class") or ""):  # its parent would be the document
        found = _PAGER_ITEMS_PARENTS(root)
        return found[0] if found else None
    item = _first_with_class(root.iterdescendants(etree.Element), "pagination__item")
    if item is None:
        return None
    pager = item.getparent()
    # An ancestor holding another item comes first in document order: the highest one wins.
    for ancestor in pager.iterancestors():
        if any(isinstance(child.tag, str) and "pagination__item" in (child.get("class") or "")
               for child in ancestor):
            pager = ancestor
    return pager


_PAGER_ITEMS_PARENTS = etree.XPath("//*[contains(@class, 'pagination__item')]/..")


def _first_with_class(elements: Iterator[HtmlElement], fragment: str) -> HtmlElement | None:
    """The first element whose class attribute contains `fragment` (XPath's contains(@class)):
    walking in Python to the pager near the top of the page is cheaper than an XPath search,
    which builds a string for every @class it tests."""
    for element in elements:
        if fragment in (element.get("class") or ""):
            return element
    return None


def _first_respeed_pager(root: HtmlElement) -> HtmlElement | None:
    return _first_with_class(root.iterdescendants("div"), "bloc-liste-num-page")


@dataclass(frozen=True, slots=True)
class Markup:
    """Where one HTML front-end keeps each part of a message (FORUMS.md §3.2 / §3.3)."""

    name: str
    marker: bytes  # in the raw page when it uses this markup: skips a search of the tree
    # Candidates; `is_message` confirms the class token. The cheap test of the id attribute's
    # presence comes first, so contains(@class), which builds a string, runs on few nodes.
    messages: etree.XPath
    message_class: str
    id_of: Callable[[HtmlElement], str]  # "" when the element has no id of this markup
    roles: dict[str, str]  # class token -> part of the message ("author", "date", "text", ...)
    role_hint: str  # in every class token of `roles`: most class lists need no split
    edit_link: frozenset[str]
    deleted: frozenset[str]
    pager_marker: bytes
    pager: Callable[[HtmlElement], HtmlElement | None]
    blacklisted: str  # in the class of a message hidden by the reader's blacklist
    role_count: int = field(init=False)  # parts a message can have: the walk ends when all found
    # Class attribute -> the roles of its tokens, in order: a theme repeats the same few class
    # lists on every message, and a lookup costs less than splitting each again.
    _roles_of: dict[str, tuple[str, ...]] = field(init=False, default_factory=dict, repr=False,
                                                  compare=False)

    def __post_init__(self) -> None:
        if not all(self.role_hint in token for token in self.roles):
            raise ValueError(f"{self.name}: role_hint {self.role_hint!r} misses a role token")
        object.__setattr__(self, "role_count", len(set(self.roles.values())))

    def is_message(self, element: HtmlElement) -> bool:
        return (self.message_class in (element.get("class") or "").split()
                and bool(self.id_of(element)))

    def find_parts(self, div: HtmlElement, wanted: str | None = None) -> dict[str, HtmlElement]:
        """One walk of a message for every part: a search per part costs more than parsing.
        The walk is in Python (XPath builds a string per @class it tests) and ends once the
        `wanted` part, when one is named, or every part is found. It does not enter the
        message's text (two thirds of a message's elements on real 2026 pages): a part's class
        inside what a member wrote is not the page's part."""
        parts: dict[str, HtmlElement] = {}
        text = self._take(div.iterdescendants(etree.Element), parts, wanted)  # as XPath's *
        if text is not None:
            self._take(_following(text, div), parts, wanted)
        return parts

    def _take(self, elements: Iterator[HtmlElement], parts: dict[str, HtmlElement],
              wanted: str | None) -> HtmlElement | None:
        """`find_parts`' walk over `elements`, until the text part (returned) or the end."""
        hint, count, roles_of = self.role_hint, self.role_count, self._roles_of
        for element in elements:
            names = element.get("class")
            if not names or hint not in names:  # no part's class in this list
                continue
            found = roles_of.get(names)
            if found is None:
                found = self._roles_in(names)
            for role in found:
                if role not in parts:
                    parts[role] = element
                    if role == wanted or len(parts) == count:  # nothing left to find
                        return None
            if parts.get("text") is element:
                return element
        return None

    def _roles_in(self, names: str) -> tuple[str, ...]:
        roles = self.roles
        found = tuple(roles[token] for token in names.split() if token in roles)
        if len(self._roles_of) < 4096:  # a bound, for pages that vary their class lists
            self._roles_of[names] = found
        return found

    def editor_in(self, edit: HtmlElement) -> HtmlElement | None:
        return next((e for e in edit.iterdescendants() if class_set(e) & self.edit_link), None)


def _following(element: HtmlElement, top: HtmlElement) -> Iterator[HtmlElement]:
    """The elements after `element`'s subtree, in document order, up to the end of `top`."""
    node = element
    while node is not top:
        for sibling in node.itersiblings(etree.Element):
            yield sibling
            yield from sibling.iterdescendants(etree.Element)
        node = node.getparent()


def _message_id_2026(element: HtmlElement) -> str:
    message_id = element.get("id", "")
    return message_id.removeprefix("message-") if message_id.startswith("message-") else ""


MARKUP_2026 = Markup(
    name="2026 HTML",
    marker=b"messageUser",
    messages=etree.XPath("descendant::div[@id][contains(@class, 'messageUser')]"),
    message_class="messageUser",
    id_of=_message_id_2026,
    roles={"messageUser__label": "author", "messageUser__date": "date",
           "messageUser__msg": "text", "messageUser__dateEdit": "edit",
           "messageUser__signature": "signature"},
    role_hint="messageUser__",
    edit_link=frozenset(("messageUser__dateEditLink", "JvCare")),
    deleted=frozenset(("msg-deleted", "messageUser--deleted", "msg-supprime")),
    # §3.3: .pagination__item--current, JvCare page links; the items' parent holds them all.
    pager_marker=b"pagination__item",
    pager=_first_pager_item,
    blacklisted="blacklist",  # UNVERIFIED on the 2026 HTML (the payload says `isBlacklisted`)
)
MARKUP_RESPEED = Markup(
    name="respeed HTML",
    marker=b"bloc-message-forum",
    messages=etree.XPath("descendant::div[@data-id][contains(@class, 'bloc-message-forum')]"),
    message_class="bloc-message-forum",
    id_of=lambda e: e.get("data-id", ""),
    roles={"bloc-pseudo-msg": "author", "bloc-date-msg": "date", "txt-msg": "text",
           "info-edition-msg": "edit", "signature-msg": "signature"},
    role_hint="-msg",
    edit_link=frozenset(("JvCare", "lien-jv")),
    deleted=frozenset(("msg-supprime",)),
    pager_marker=b"bloc-liste-num-page",  # §3.2, current page span.page-active
    pager=_first_respeed_pager,
    blacklisted="msg-pseudo-blacklist",  # TopicLive skips div.bloc-message-forum.msg-pseudo-blacklist
)
MARKUPS = (MARKUP_2026, MARKUP_RESPEED)


# text_of's result ("".join(itertext())) read by libxml2 in one call: several times faster.
_STRING = etree.XPath("string()", smart_strings=False)


def _text(element: HtmlElement | None) -> str:
    if element is None:
        return ""
    if not len(element):  # a leaf (the author's name): its text is all string() would give
        return collapse(element.text or "")
    return collapse(_STRING(element))


def _classes(element: HtmlElement) -> list[str]:
    return (element.get("class") or "").split()


def _from_html(div: HtmlElement, markup: Markup, where: str) -> Message | str:
    """A message of the HTML, or why it is a placeholder and not a message (issue 13): a
    deleted message shown with neither author nor text. A message hidden by the saving
    account's blacklist is a real message that cannot be read: it stops the count."""
    message_id = markup.id_of(div)
    parts = markup.find_parts(div)
    text, author = parts.get("text"), _text(parts.get("author"))
    classes = _classes(div)
    deleted = not markup.deleted.isdisjoint(classes)
    if deleted and (text is None or not author):
        return (f"message {message_id} skipped: a deleted message's placeholder "
                f"({' '.join(classes)}), no author or text shown")
    if text is None and any(markup.blacklisted in c for c in classes):
        raise ForumError(f"{where}: post {message_id}: hidden by the blacklist of the account "
                         "that saved the page; save it logged out, or with the blacklist off")
    if text is None:
        raise ForumError(f"{where}: post {message_id}: no message text ({markup.name})")
    body = read_body(text)
    signature = parts.get("signature")
    if signature is not None and not body.signature:
        body = replace(body, signature=block_text(signature))
    date, edit = parts.get("date"), parts.get("edit")
    edit_text = editor = ""
    if edit is not None:  # most messages are not edited: no search for an editor link
        edit_text = _text(edit)
        editor = _text(markup.editor_in(edit))
    return Message(
        id=message_id,
        author=author,
        author_id=None,  # JV pages link profiles by pseudo only; the id is in the payload
        time_text=_text(date),
        body=body,
        edit_text=edit_text,
        editor=editor or None,
        deleted=deleted,
        time_title=collapse(date.get("title", "")) if date is not None else "",
    )


# ---------------------------------------------------------------------------------------------
# What sits beside the messages of a real page and is not one (issue 13): JV's ad slots
# (`<ins data-ad-position="rectangle_mtf">` between messages on real 2026 guest pages,
# fixtures/jv/real-2026), login prompts, placeholders. Skipped, and named in Page.notes.

_SILENT = frozenset(("script", "style", "noscript", "template", "link", "meta", "br", "hr"))
_AD_TOKENS = frozenset(("ad", "ads", "pub", "dfp"))
_AD_PARTS = ("dfp", "sponso", "advert", "pub-", "ad-slot", "ad-container")
_LOGIN_WORDS = ("connect", "login", "sso", "inscri")
# The page's own chrome inside the message list: real legacy pages end the list with the bottom
# pager (div.bloc-pagi-default, RespawnIRC expForEntireMessage) and, for moderators, their tools.
_CHROME = ("bloc-pagi-default", "pagination", "bloc-outils")


def _is_ad(tag: str, names: str, element: HtmlElement) -> bool:
    """JV's ad slots (`<ins data-ad-position>` on real pages) and the usual ad class names."""
    return (tag == "ins" or element.get("data-ad-position") is not None
            or not _AD_TOKENS.isdisjoint(names.split()) or any(p in names for p in _AD_PARTS))


def _is_anchor(element: HtmlElement) -> bool:
    """span#post_{id}, the in-page anchor before each message (§3.2, §3.3)."""
    return (element.get("id") or "").startswith("post_") and not len(element)


def _what_block(element: HtmlElement, markup: Markup) -> str | None:
    """Why a block beside the messages is not a message, as a note; "" for the page's own
    chrome (no note); None when it holds nothing worth a look (an empty slot, a script)."""
    tag = element.tag
    if not isinstance(tag, str) or tag in _SILENT:
        return None
    names = (element.get("class") or "").lower()
    if any(part in names for part in _CHROME):
        return ""  # nothing to note, but still looked into (`html_messages`)
    if _is_ad(tag, names, element):
        return msg("ad slots between the messages skipped (<ins data-ad-position>, ads): not "
                   "messages")
    if markup.deleted & set(names.split()):
        return msg("a deleted message's placeholder ({names}) skipped: no message id",
                   names=names)
    if markup.blacklisted in names:
        return msg("a blacklisted author's placeholder ({names}) skipped: no message id",
                   names=names)
    text = collapse(_STRING(element))
    if any(word in names for word in _LOGIN_WORDS) or "connecte" in text.lower():
        return msg("a login prompt between the messages skipped: not a message")
    if not text and not len(element):
        return None
    block = f'<{tag} class="{names}">'
    return msg("a {block} block between the messages skipped: not a message", block=block)


@dataclass(frozen=True, slots=True)
class HtmlMessages:
    """A page's HTML messages, and what beside them was skipped (page notes)."""

    markup: Markup | None
    divs: list[HtmlElement]
    skipped: list[str]


def html_messages(root: HtmlElement, data: bytes, where: str, alone: bool) -> HtmlMessages:
    """The message elements of the first markup the page uses; then each other block of the
    lists holding them, once, for what it is. When the HTML is the page's only reading
    (`alone`: no payload), a block with a message's parts but no id is a message that cannot
    be read: it stops the count."""
    for markup in MARKUPS:
        if markup.marker not in data:
            continue
        divs = [div for div in markup.messages(root) if markup.is_message(div)]
        if not divs:
            continue
        skipped: list[str] = []
        known = set(divs)
        for parent in _lists(divs):
            for element in parent:
                if element in known or _is_anchor(element):
                    continue
                note = _what_block(element, markup)
                if note is None:
                    continue
                # Every block, also the second of a kind and the page's own chrome: a message
                # wrapped in any of them would otherwise be dropped without a word.
                if alone and _unread_message(element, markup, known):
                    raise ForumError(f"{where}: a message without an id ({element.tag} class "
                                     f"{element.get('class')!r}): cannot tell which post it is")
                if note and note not in skipped:
                    skipped.append(note)
        return HtmlMessages(markup, divs, skipped)
    return HtmlMessages(None, [], [])


def _lists(divs: list[HtmlElement]) -> list[HtmlElement]:
    """The elements that list the messages: the parents of two messages or more (a message
    out of its list is checked against the payload, its chrome is no list), or of the only one."""
    held = Counter(div.getparent() for div in divs)
    lists = [parent for parent, count in held.items() if count > 1]
    return lists or list(held)


def _unread_message(element: HtmlElement, markup: Markup, known: set[HtmlElement]) -> bool:
    """Whether a block holds a message's date or text but none of the messages read."""
    if not (markup.find_parts(element, "date") or markup.find_parts(element, "text")):
        return False
    return not any(div in known for div in markup.messages(element))
