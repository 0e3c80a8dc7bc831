"""HTML helpers shared by engine parsers: lxml only (DESIGN.md "Performance": no BeautifulSoup).

Engine modules keep their own knowledge (which class is a quote on which forum); what lives here
is the engine-neutral work: decoding bytes with the charset the page declares, telling a cut
download, collapsing whitespace, finding the id a page's links name, and turning a message
element into a `Body` (own text with line breaks, bold spans, quotes, spoilers, code) given a
classifier that names the engine's blocks.
"""

from __future__ import annotations

import codecs
import re
import threading
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Literal

from lxml import etree
from lxml import html as lxml_html
from lxml.html import HtmlElement

from tally.model import Body, Quote

Aside = Literal["quote", "spoiler", "code", "signature", "drop"]
Classifier = Callable[[HtmlElement], "Aside | None"]

# Elements that start a new line of text when rendered (br is handled on its own).
BLOCK_TAGS = frozenset((
    "address", "article", "aside", "blockquote", "center", "dd", "div", "dl", "dt", "fieldset",
    "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main",
    "nav", "ol", "p", "pre", "section", "table", "tbody", "td", "th", "thead", "tr", "ul",
))
_SILENT_TAGS = frozenset(("script", "style", "noscript", "template", "button", "select"))
_CHARSET = re.compile(rb"""<meta[^>]+charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]+)""", re.IGNORECASE)
_BOLD_STYLE = re.compile(r"font-weight\s*:\s*(bold|[6-9]00)", re.IGNORECASE)


def closes_document(data: bytes, tail: int = 4096) -> bool:
    """Whether the page's last `tail` bytes close the document (`</html`, any case): a cut
    download does not, and its posts past the cut would be missing (base.py: TruncatedPage).
    The literal search runs first: most pages write the tag in lower case."""
    end = data[-tail:]
    return b"</html" in end or b"</html" in end.lower()


def declared_charset(data: bytes, default: str = "utf-8") -> str:
    """The charset a page declares in its first <meta> (old boards serve ISO-8859-1 or GBK)."""
    found = _CHARSET.search(data[:4096])
    if not found:
        return default
    name = found.group(1).decode("ascii", "replace").lower()
    try:
        "".encode(name)
    except LookupError:
        return default
    return name


def parse_tree(data: bytes) -> HtmlElement:
    """A whole page with the charset it declares (UTF-8 when it declares none), as plain lxml
    elements: no per-node class lookup, which makes walking every node of a message markedly
    faster. Use `text_of`, not `.text_content()`."""
    parser = etree.HTMLParser(encoding=declared_charset(data), remove_comments=True)
    root = etree.fromstring(data, parser=parser)
    if root is None:
        return lxml_html.document_fromstring(b"<html></html>")
    return root


def text_of(element: HtmlElement) -> str:
    """All the text under an element (what lxml.html's text_content() gives)."""
    return "".join(element.itertext())


def collapse(text: str) -> str:
    """One line, single spaces (non-breaking spaces included), no edges."""
    return " ".join(text.split())


def class_set(element: HtmlElement) -> frozenset[str]:
    return frozenset((element.get("class") or "").split())


def _lines(parts: list[str]) -> str:
    """Join rendered pieces: whitespace collapsed inside lines, blank lines dropped."""
    # One list comprehension, not nested generators: this runs for every body, quote and span.
    lines = [" ".join(line.split()) for line in "".join(parts).split("\n")]
    return "\n".join([line for line in lines if line])


def _render(element: HtmlElement, parts: list[str], visit: Callable[[HtmlElement], bool]) -> None:
    """Append the text of `element`'s content; `visit(child)` True means "taken out, skip it"."""
    if element.text:
        parts.append(element.text)
    for child in element:
        tag = child.tag
        if not isinstance(tag, str):  # comments, processing instructions
            pass
        elif tag == "br":
            parts.append("\n")
        elif tag in _SILENT_TAGS:
            pass
        elif visit(child):
            parts.append("\n")  # a removed block leaves a line break, not glued words
        elif tag in BLOCK_TAGS:
            parts.append("\n")
            _render(child, parts, visit)
            parts.append("\n")
        else:
            _render(child, parts, visit)
        if child.tail:
            parts.append(child.tail)


def _never(_element: HtmlElement) -> bool:
    return False


def block_text(element: HtmlElement, skip: Callable[[HtmlElement], bool] | None = None) -> str:
    """The text of `element` with line breaks kept ("\\n" at <br> and between blocks)."""
    parts: list[str] = []
    _render(element, parts, skip or _never)
    return _lines(parts)


class _Split:
    """One walk of a message for `split_body`: its own text, plus what it takes out (C1).

    The walk knows whether it is inside a bold element, so a bold span need not look up its
    ancestors to learn whether an outer bold already holds it (this runs for every node of
    every message).
    """

    __slots__ = ("classify", "read_quote", "read_aside", "parts", "quotes", "spoilers", "code",
                 "signature", "bold")

    def __init__(self, classify: Classifier, read_quote: Callable[[HtmlElement], Quote],
                 read_aside: Callable[[HtmlElement], str]) -> None:
        self.classify = classify
        self.read_quote = read_quote
        self.read_aside = read_aside
        self.parts: list[str] = []
        self.quotes: list[Quote] = []
        self.spoilers: list[str] = []
        self.code: list[str] = []
        self.signature: list[str] = []
        self.bold: list[str] = []

    def render(self, element: HtmlElement, in_bold: bool) -> None:
        """`_render` with `split_body`'s visit inlined; `in_bold`: an ancestor below the
        message is bold."""
        # Locals and inlined tests: this loop runs for every node of every message.
        append, classify = self.parts.append, self.classify
        text = element.text
        if text:
            append(text)
        for child in element:
            tag = child.tag
            if tag == "br":
                append("\n")
            elif tag.__class__ is not str or tag in _SILENT_TAGS:  # comments, PIs, scripts
                pass
            elif (kind := classify(child)) is not None:
                self.take_out(child, kind)
                append("\n")  # a removed block leaves a line break, not glued words
            elif tag in BLOCK_TAGS:  # never bold: only b, strong and span are
                append("\n")
                if len(child):
                    self.render(child, in_bold)
                elif text := child.text:  # a leaf: its text only (render would add just that)
                    append(text)
                append("\n")
            # bold: b, strong, or a span styled bold
            elif tag == "b" or tag == "strong" or (tag == "span" and bool(
                    _BOLD_STYLE.search(child.get("style") or ""))):
                if in_bold:
                    self.render(child, True)
                else:
                    # The span's own rendering is what this walk appends for it: read it off
                    # the parts rather than walking the span twice.
                    start = len(self.parts)
                    self.render(child, True)
                    span = " ".join("".join(self.parts[start:]).split())
                    if span:
                        self.bold.append(span)
            elif len(child):
                self.render(child, in_bold)
            elif text := child.text:  # a leaf
                append(text)
            tail = child.tail
            if tail:
                append(tail)

    def take_out(self, child: HtmlElement, kind: Aside) -> None:
        """Collect an engine block (quote, spoiler, code, signature; "drop" is only removed)."""
        if kind == "quote":
            self.quotes.append(self.read_quote(child))
        elif kind == "spoiler":
            self.spoilers.append(self.read_aside(child))
        elif kind == "code":
            self.code.append(self.read_aside(child))
        elif kind == "signature":
            self.signature.append(self.read_aside(child))


def split_body(
    message: HtmlElement,
    classify: Classifier,
    read_quote: Callable[[HtmlElement], Quote],
    read_aside: Callable[[HtmlElement], str] = block_text,
) -> Body:
    """Split a message element into the author's own text and what is not their voice (C1).

    `classify(element)` names an engine block ("quote", "spoiler", "code", "signature",
    "drop" for chrome such as attachment boxes) or returns None for ordinary markup. Only the
    outermost quote is collected: a nested quote is part of its parent's text.
    """
    split = _Split(classify, read_quote, read_aside)
    split.render(message, False)
    return Body(
        own=_lines(split.parts),
        bold=tuple(split.bold),
        quotes=tuple(split.quotes),
        spoilers=tuple(split.spoilers),
        code=tuple(split.code),
        signature="\n".join(s for s in split.signature if s),
    )


@lru_cache(maxsize=512)
def compiled(path: str) -> etree.XPath:
    """A compiled XPath, kept: compiling on every call costs more than the search itself."""
    return etree.XPath(path)


def first(element: HtmlElement, xpaths: tuple[str, ...]) -> HtmlElement | None:
    """The first element found by the first XPath (in order) that finds one."""
    for path in xpaths:
        found = compiled(path)(element)
        if found:
            return found[0]
    return None


def first_id(hrefs: Iterable[str], pattern: re.Pattern[str], *more: re.Pattern[str]) -> str | None:
    """The id the first of `hrefs` names: the first group that took part in the first of the
    patterns to find one in it. Where a page names its own topic (issue 16), `hrefs` come in
    the template's order of trust and are read lazily: the search stops at the first hit."""
    for href in hrefs:
        for each in (pattern, *more):
            found = each.search(href)
            if found:
                return next((group for group in found.groups() if group), None)
    return None


def has_class_xpath(name: str) -> str:
    """An XPath predicate body true for elements whose class list holds `name`."""
    return f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')"


# Charset labels as browsers read them (WHATWG Encoding Standard): a page that says gb2312 or
# gbk is decoded as GB18030 and one that says big5 as Big5-HKSCS, so characters outside the
# narrow tables still come out (FORUMS.md §4.4: Chinese boards run GBK/BIG5 editions).
_BROWSER_CODECS = {
    "gb2312": "gb18030", "gbk": "gb18030", "x-gbk": "gb18030", "gb_2312-80": "gb18030",
    "csgb2312": "gb18030", "chinese": "gb18030", "iso-ir-58": "gb18030",
    "big5": "big5hkscs", "big5-hkscs": "big5hkscs", "cn-big5": "big5hkscs",
    "x-x-big5": "big5hkscs", "csbig5": "big5hkscs",
    "iso-8859-1": "cp1252", "latin1": "cp1252", "us-ascii": "cp1252", "ascii": "cp1252",
}


def browser_codec(label: str) -> str:
    """The Python codec a browser would use for a declared charset label."""
    name = label.strip().lower()
    return _BROWSER_CODECS.get(name, name)


def parser_encoding(data: bytes) -> str:
    """The encoding to give libxml2 for a page: the charset it declares, read as a browser
    reads it. A page that says iso-8859-1 is windows-1252 to every browser, so the curly
    apostrophe of "O’Brien" (0x92) typed on such a board is a character, not a control code
    that no roster name matches."""
    return browser_codec(declared_charset(data))


def _c1_controls(error: UnicodeError) -> tuple[str, int]:
    """A decoding error handler for windows-1252: the five bytes its table leaves undefined
    (0x81, 0x8D, 0x8F, 0x90, 0x9D) read as browsers read them, as the C1 control of that number
    (WHATWG Encoding Standard)."""
    if not isinstance(error, UnicodeDecodeError):
        raise error
    return chr(error.object[error.start]), error.start + 1


codecs.register_error("tally-c1", _c1_controls)
_BYTE_ORDER_MARKS = (b"\xef\xbb\xbf", b"\xfe\xff", b"\xff\xfe")


@lru_cache(maxsize=64)
def _is_windows_1252(encoding: str) -> bool:
    try:
        return codecs.lookup(encoding).name == "cp1252"
    except LookupError:
        return False


def parser_input(data: bytes, encoding: str | None = None) -> tuple[bytes, str]:
    """The page and the encoding to give libxml2 for it (`parser_encoding`'s unless given).

    A windows-1252 page (every page that says ISO-8859-1) is decoded here, as browsers decode
    it, and handed over as UTF-8. libxml2's iconv stops at the first byte the table leaves
    undefined, and drops the rest of the page without an error: the posts after it were lost.
    It is also quicker (iconv costs about an eighth of the parse). A page that starts with a
    byte-order mark is left to libxml2, which reads the mark before the encoding it is given."""
    encoding = encoding or parser_encoding(data)
    if _is_windows_1252(encoding) and not data.startswith(_BYTE_ORDER_MARKS):
        return _utf8(data, encoding), "utf-8"
    return data, encoding


def _utf8(data: bytes, codec: str) -> bytes:
    """`data`, in `codec`, as UTF-8, decoded as a browser decodes it: windows-1252's undefined
    bytes as C1 controls, any other bad byte as U+FFFD."""
    errors = "tally-c1" if _is_windows_1252(codec) else "replace"
    return data.decode(codec, errors=errors).encode("utf-8")


def _as_browser_reads(data: bytes) -> bytes:
    """The page as UTF-8, decoded from its declared charset as a browser does."""
    codec = "utf-8" if data.startswith(b"\xef\xbb\xbf") else browser_codec(declared_charset(data))
    return data if codec in ("utf-8", "utf8") else _utf8(data, codec)


def parse_document_as_browser(data: bytes) -> HtmlElement:
    """A whole page, decoding the charset it declares as a browser does.

    Non-UTF-8 pages are decoded in Python (well-defined codecs, bad bytes replaced) and handed
    to lxml as UTF-8, so the result does not depend on the iconv libxml2 was built with.
    """
    parser = lxml_html.HTMLParser(encoding="utf-8", remove_comments=True)
    return lxml_html.document_fromstring(_as_browser_reads(data), parser=parser)


_BROWSER_PARSERS = threading.local()  # lxml parsers are not to be shared between threads


def parse_tree_as_browser(data: bytes) -> HtmlElement:
    """`parse_document_as_browser` with plain lxml elements (as `parse_tree`): no per-node
    class lookup, so use `text_of`/`string_of`, not `.text_content()`. Raises lxml's
    ParserError on an empty document, as document_fromstring does."""
    parser = getattr(_BROWSER_PARSERS, "parser", None)
    if parser is None:
        parser = _BROWSER_PARSERS.parser = etree.HTMLParser(encoding="utf-8",
                                                            remove_comments=True)
    root = etree.fromstring(_as_browser_reads(data), parser=parser)
    if root is None:
        raise etree.ParserError("Document is empty")
    return root


# What lxml.html's text_content() runs (XPath string()), for plain elements.
string_of = etree.XPath("string()", smart_strings=False)
