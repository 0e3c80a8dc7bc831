"""How phpBB writes a post's parts (FORUMS.md §2.1, §2.2): shown times, edit notices and the
blocks of a message (quotes, code, spoilers, signature), read from text or from one element.
Where each part is, is phpbb_layout's and the engine's post reader's (adapters/phpbb.py).
"""

from __future__ import annotations

import re
from dataclasses import replace
from datetime import datetime

from lxml import etree
from lxml import html as lxml_html
from lxml.html import HtmlElement

from tally import times
from tally.adapters import dates
from tally.adapters.html import Aside, block_text, class_set, collapse, first, parser_input
from tally.model import Body, EditMarker, Quote

# The text under an element, as html.text_of gives it (no comments, no processing
# instructions), in one libxml2 call: several times faster than joining itertext() on the
# date lines, names and pagination boxes read on every page (DESIGN.md "Performance").
_string = etree.XPath("string()", smart_strings=False)


def _text(element: HtmlElement) -> str:
    """_string's text; an element with no children (a name link, a <time>, an empty notice)
    holds only its .text, read without the XPath call (about ten times cheaper)."""
    if len(element):
        return _string(element)
    return element.text or ""


def _parse(data: bytes, encoding: str) -> HtmlElement:
    """html.parse_tree without libxml2's id index: nothing here looks elements up by id, and
    building the index costs about 5% of the parse (DESIGN.md "Performance"). `encoding` is
    html.parser_encoding's; html.parser_input decodes a windows-1252 page (every ISO-8859-1
    board) as browsers do."""
    data, encoding = parser_input(data, encoding)
    parser = etree.HTMLParser(encoding=encoding, remove_comments=True, collect_ids=False)
    root = etree.fromstring(data, parser=parser)
    return root if root is not None else lxml_html.document_fromstring(b"<html></html>")


# ---------------------------------------------------------------------------------------------
# Shown times (FORUMS.md §2.1 date formats, §2.2 phpBB 2): read by the shared reader of
# adapters/dates.py, which knows every language pack's names and relative forms.

# Where the date line's date ends: its clock (the rest of a subSilver line is the subject).
_CLOCK = re.compile(
    r"(?<![\d:])(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?(?:\s*(?P<ampm>[ap])\.?\s?m\b\.?)?",
    re.IGNORECASE,
)


def read_shown_time(text: str, fetched_local: datetime) -> datetime | None:
    """The naive wall time a phpBB date text shows ("Sun Jan 17, 2016 12:02 pm", "Dom 17 Ene
    2016, 12:02", "Today, 12:02", "5 minutes ago"), or None when it shows none."""
    shown = dates.find_last(text, fetched_local)
    return shown.at if shown is not None else None


# ---------------------------------------------------------------------------------------------
# Edit notices (§2.1 EDITED_TIMES_TOTAL, Spanish packs; §2.2 phpBB 2)

_EDIT = re.compile(
    r"(?:last\s+edited\s+by|[úu]ltima\s+edici[óo]n\s+por|derni[èe]re\s+[ée]dition\s+par"
    # de, nl, it, pt packs: the editor is plain text on phpBB 2 pages (a link on 3.x)
    r"|zuletzt\s+(?:ge[äa]ndert|bearbeitet)\s+von|laatst\s+(?:gewijzigd|aangepast|bewerkt)\s+door"
    r"|ultima\s+modifica\s+di|[úu]ltima\s+edi[çc][ãa]o\s+por)\s+"
    r"(?P<editor>.+?)\s+(?:on|el|le|am|op|il|em)\s+(?P<date>.+?)\s*[,;]\s*"
    r"(?:edited|editado|[ée]dit[ée]|insgesamt|in\s+totaal|modificato)\s+(?P<times>\d+)",
    re.IGNORECASE,
)
# The verb of every language pack's EDITED_TIMES_TOTAL (phpBB 3.x packs: ru "Последний раз
# редактировалось X Пн май 04, 2020 10:00 am, всего редактировалось 1 раз.", de "Zuletzt
# geändert von X am …, insgesamt 2-mal geändert.", nl "Laatst gewijzigd door X op …, 2 keer
# totaal gewijzigd.", pl "Ostatnio zmieniony … przez X, łącznie zmieniany 2 razy.", it "Ultima
# modifica di X il …", pt "Última edição por X em …", ro "Ultima oară modificat … de către X",
# tr "En son … tarihinde X tarafından … 2 kere düzenlendi.", no "Sist redigert av"; phpBB 2
# packs: tr "… tarafından … tarihinde değiştirildi", nl "Laatst aangepast door"). A
# div.notice without one (prosilver's "Last bumped by X on …") is no edit.
_EDIT_WORDS = re.compile(
    r"edited|edici[óo]n|editado|[ée]dit|edição|редактир|редагов|ge[äa]ndert|bearbeitet|"
    r"gewijzigd|bewerkt|zmienion|zmieniany|edytowan|modific|düzenlen|redigert|redigerad|"
    r"upraven|upravil|编辑|編輯|編集|промян|промен|değiştir|aangepast|"
    # Packs no fixture shows yet (da, hu, fi, el, et, lt, lv, sl, hr/sr, id, vi, ko, ar, he, fa,
    # th): a notice of theirs read as no edit would count an edited vote as unedited (K4).
    r"redigeret|szerkeszt|muokan|επεξεργ|muutis|redagav|labo|uredi|uređ|diubah|s[ửu]a|수정|"
    r"عدل|تعديل|נערך|ویرایش|แก้ไข",
    re.IGNORECASE)


def read_edit(notice: str, editor_link: str | None, fetched_local: datetime,
              zone: str) -> EditMarker | None:
    """An EditMarker from the notice text; None when the text is no edit notice.

    Packs put the editor, the date and the count in any order; the count is the last number
    of every pack's wording, the date is read once the editor's name is taken out (a name may
    hold digits)."""
    text = collapse(notice)
    found = _EDIT.search(text)
    if found is None:
        if not _EDIT_WORDS.search(text):
            return None
        rest = text.replace(editor_link, " ") if editor_link else text
        times_found = re.search(r"(\d+)\D*$", rest)
        shown = read_shown_time(rest, fetched_local)
        return EditMarker(text=text, editor=editor_link,
                          edited_at=times.localise(shown, zone).utc if shown else None,
                          times=int(times_found.group(1)) if times_found else None)
    shown = read_shown_time(found["date"], fetched_local)
    return EditMarker(
        text=text,
        editor=editor_link or found["editor"].strip(),
        edited_at=times.localise(shown, zone).utc if shown else None,
        times=int(found["times"]),
    )


# ---------------------------------------------------------------------------------------------
# Message bodies: quotes, code, spoilers, signature (§2.1 bbcode.html, §2.2 bbcode.tpl)

_QUOTE_TABLE = etree.XPath(
    "./tr/td[contains(@class, 'quote')] | ./tbody/tr/td[contains(@class, 'quote')]")
_CODE_TABLE = etree.XPath(
    "./tr/td[contains(@class, 'code')] | ./tbody/tr/td[contains(@class, 'code')]")
_CITE = etree.XPath("./cite | ./div/cite")
_WROTE = re.compile(
    r"^\s*(?P<author>.+?)\s+(?:wrote|escribi[óo]|a\s+[ée]crit|ha\s+scritto|scrisse|escreveu|"
    r"schrieb|(?:на)?писала?|schreef|napisał|napisal|yazdı|a\s+scris|napsal|написа|写道|寫道)\b",
    re.IGNORECASE)
_DROP_CLASSES = frozenset(("attachbox", "inline-attachment", "notice", "post-notice"))
# subsilver2's bbcode.html writes a caption div, then the block as its next sibling.
_CAPTIONED: dict[str, Aside] = {
    "quotecontent": "quote", "codecontent": "code", "quotetitle": "drop", "codetitle": "drop",
    "attachtitle": "drop", "attachcontent": "drop"}


def classify(element: HtmlElement) -> Aside | None:
    tag = element.tag
    if tag == "blockquote" or (tag == "table" and _QUOTE_TABLE(element)):
        return "quote"
    raw = element.get("class")
    if not raw and tag != "table" and tag != "details":
        return None  # every other block is known by its class (called on every child element)
    classes = frozenset((raw or "").split())
    if tag == "div" and not classes.isdisjoint(_CAPTIONED):
        return next(_CAPTIONED[name] for name in classes if name in _CAPTIONED)
    if "codebox" in classes or (tag == "table" and _CODE_TABLE(element)):
        return "code"
    if tag == "details" or "spoil" in (element.get("class") or "").lower():
        return "spoiler"  # no stock spoiler BBCode: extensions use spoiler*/spoil* classes
    if "signature" in classes:
        return "signature"
    if classes & _DROP_CLASSES or (tag == "span" and "gensmall" in classes):
        return "drop"  # attachments, notices; subSilver's edit notice span in the message cell
    return None


def _profile_link(element: HtmlElement) -> HtmlElement | None:
    """The first link to a member's profile under `element`; a walk, not an XPath, on the few
    nodes of a name cell, caption or notice (several times cheaper)."""
    for link in element.iterdescendants("a"):
        if "mode=viewprofile" in (link.get("href") or ""):
            return link
    return None


def _quote_author(header: HtmlElement | None) -> str | None:
    if header is None:
        return None
    link = _profile_link(header)
    if link is not None:  # 3.2+: <cite><a href="memberlist…">Bob</a> wrote: …</cite>
        return collapse(_text(link)) or None
    found = _WROTE.match(collapse(_text(header)))
    return found["author"] if found else None


def read_quote(element: HtmlElement) -> Quote:
    """A prosilver blockquote (cite inside), a subSilver quote table ("X wrote:" row) or a
    subsilver2 div.quotecontent (its caption "X wrote:" is the div.quotetitle before it)."""
    if element.tag == "table":
        cell = _QUOTE_TABLE(element)[0]
        header = first(element, ("./tr[1]/td", "./tbody/tr[1]/td"))
        return Quote(text=block_text(cell), author=_quote_author(header))
    if element.tag == "div":
        caption = element.getprevious()
        if caption is not None and "quotetitle" in class_set(caption):
            return Quote(text=block_text(element), author=_quote_author(caption))
    cites = _CITE(element)
    cite = cites[0] if cites else None
    text = block_text(element, lambda child: child is cite)
    return Quote(text=text, author=_quote_author(cite))


def read_aside(element: HtmlElement) -> str:
    """Spoiler, code and signature text without their captions ("Code: Select all", buttons)."""
    if "codebox" in class_set(element):
        code = first(element, (".//pre", ".//code"))
        if code is not None:
            return block_text(code)
    return block_text(element)


_SIG_RULE = "_________________"  # phpBB 2 appends "<br />_________________<br />{signature}"


def split_signature(body: Body) -> Body:
    own, rule, signature = body.own.partition(_SIG_RULE)
    if not rule:
        return body
    return replace(body, own=own.rstrip("\n"), signature=signature.strip("\n"))

