"""Where each phpBB style puts the posts and their parts (FORUMS.md §2.1 prosilver, §2.2
subSilver, subsilver2): the post elements of a page, each with its parts by name ("author",
"content", "notice", "signature", ...), and the pagination boxes. What a part says is read by
phpbb_parts; the engine (adapters/phpbb.py) puts a post together from both.
"""

from __future__ import annotations

import re

from lxml.html import HtmlElement

from tally.adapters.html import collapse
from tally.adapters.phpbb_parts import _EDIT_WORDS, _SIG_RULE, _text

# A pagination box's "Page x of y" (§2.1, §2.2), in the languages of the packs seen.
_PAGE_OF = re.compile(
    r"(?:Page|P[áa]gina|Seite|Strona)\s+(\d+)\s+(?:of|de|di|von|sur|z)\s+(\d+)"
    r"|(?<![\d/])(\d+)\s*/\s*(\d+)(?![\d/])", re.IGNORECASE)

# What a text needs to hold a page number: a character str.isdigit() may take (every \d of
# _PAGE_OF is one): 0-9, the Latin-1 ¹²³, or a character past Latin-1. Most pagination boxes
# (subSilver's "Back to top" on every post, "View previous topic", &nbsp;) hold none.
_MAY_NUMBER = re.compile("[0-9\xb2\xb3\xb9\u0100-\U0010ffff]")


def _page_of(text: str) -> re.Match[str] | None:
    """"Page x of y" (or "x / y") in a box's text; a text with no digit is spared the search."""
    return _PAGE_OF.search(collapse(text)) if _MAY_NUMBER.search(text) else None


# "profile", "author", "content", "notice", "deleted", "signature"; subsilver2 adds "name",
# "user_link" and "hidden" (a post shown as a one-line notice: ignored author, deleted post).
Parts = dict[str, HtmlElement]

# Posts and their parts are found by plain element walks (DESIGN.md "Performance": several
# times faster than XPath class tests here); a part a template moved is searched per post.
# _part_kind checks the exact class tokens.
_PART_WORDS = re.compile("post|content|notice|signature|author|ignore")
_POST_ID = re.compile(r"p\d+$")


def _part_kind(tag: str, class_attr: str) -> str | None:
    classes = class_attr.split()
    if tag == "dl":
        return "profile" if "postprofile" in classes else None
    if tag == "p" and "author" in classes:
        return "author"
    if "post_deleted_msg" in classes or "post-notice" in classes:
        return "deleted" if "post_deleted_msg" in classes or "deleted" in classes else None
    if tag == "div" and "ignore" in classes:
        return "ignore"  # "This post was made by X who is on your ignore list" / "deleted by"
    for kind in ("content", "notice", "signature"):
        if kind in classes:
            return kind
    return None


def _parts_of(post: HtmlElement) -> Parts:
    """The first element of each kind inside one post."""
    parts: Parts = {}
    search = _PART_WORDS.search
    for element in post.iterdescendants("div", "dl", "p"):
        classes = element.get("class")
        if classes and search(classes):
            kind = _part_kind(element.tag, classes)
            if kind is not None and kind not in parts:
                parts[kind] = element
    return parts


def _landmarks(root: HtmlElement) -> tuple[dict[str, tuple[HtmlElement, Parts]], list[HtmlElement]]:
    """One walk: prosilver posts (div#p{ID}.post) with their parts, and the pagination boxes
    (prosilver div.pagination; subSilver span.nav / td.nav: "Page 1 of 2", "Goto page")."""
    posts: dict[str, tuple[HtmlElement, Parts]] = {}
    boxes = []
    for element in root.iter("div", "span", "td"):
        classes = element.get("class")
        if not classes:
            continue
        element_id = element.get("id") if "post" in classes else None  # most are not posts
        if element_id and _POST_ID.match(element_id) and "post" in classes.split():
            parts = _parts_of(element)
            if "ignore" in parts and "content" not in parts:
                parts["hidden"] = parts["ignore"]  # 3.0: the placeholder replaces the post
            posts.setdefault(element_id[1:], (element, parts))
        elif "pagination" in classes or "nav" in classes:
            tokens = classes.split()
            if "pagination" in tokens or (element.tag != "div" and "nav" in tokens):
                boxes.append(element)
    return posts, boxes


def _subsilver_parts(row: HtmlElement) -> Parts:
    """§2.2: span.name > b (author), the span.postdetails that is not the "Joined: …" one beside
    the name (date), the cell holding span.postbody (message), span.gensmall after it (edit)."""
    parts: Parts = {}
    for span in row.iter("span"):
        classes = span.get("class")
        if not classes:
            continue
        if "name" in classes and "name" not in parts and "name" in classes.split():
            parts["name"] = next(span.iter("b"), span)
        elif "postdetails" in classes and "author" not in parts and not _beside_name(span):
            parts["author"] = span
        elif "postbody" in classes and "content" not in parts:
            parts["content"] = span.getparent()
        elif "gensmall" in classes and "notice" not in parts and \
                span.getparent() is parts.get("content"):
            parts["notice"] = span
    return parts


def _beside_name(span: HtmlElement) -> bool:
    cell = span.getparent()
    while cell is not None and cell.tag != "td":
        cell = cell.getparent()
    if cell is None:
        return False
    for child in cell.iterchildren("span"):
        if "name" in (child.get("class") or "").split():
            return True
    return False


def _post_elements(root: HtmlElement) -> tuple[dict[str, tuple[HtmlElement, Parts]], str,
                                               list[HtmlElement]]:
    """Post id -> (post element, its parts), in page order, the template family and the
    pagination boxes."""
    posts, boxes = _landmarks(root)
    if posts:
        return posts, "prosilver", boxes
    # The table styles mark posts by named anchors: one walk finds them for both.
    anchors = [anchor for anchor in root.iter("a") if anchor.get("name")]
    rows = _subsilver_posts(anchors)
    if rows:
        return rows, "subsilver", boxes
    return _subsilver2_posts(anchors), "subsilver2", _with_page_links(boxes)


def _subsilver_posts(anchors: list[HtmlElement]) -> dict[str, tuple[HtmlElement, Parts]]:
    """Post id -> (row, parts) for each span.name > a[name=ID] (§2.2), in page order."""
    rows: dict[str, tuple[HtmlElement, Parts]] = {}
    for anchor in anchors:
        name = anchor.get("name")
        if name.isdigit() and _in_name_span(anchor):
            row = next(anchor.iterancestors("tr"), None)
            if row is not None:
                rows[name] = (row, _subsilver_parts(row))
    return rows


def _in_name_span(anchor: HtmlElement) -> bool:
    """span[contains(@class, 'name')] > a, as a test of the anchor's parent."""
    parent = anchor.getparent()
    return parent is not None and parent.tag == "span" and "name" in (parent.get("class") or "")


# subsilver2 (phpBB 3.0-3.2's table style, viewtopic_body.html): each post is a table.tablebg
# of a header row (<a name="p{ID}">, b.postauthor, td.gensmall "<b>Posted:</b> DATE"), a body
# row (td.profile, then div.postbody, the signature as a .postbody after "_________________",
# the edit notice) and a footer row (the profile button, memberlist.php?mode=viewprofile&u=ID).
# A hidden post (ignored author, 3.1+ soft-deleted) is a header row of one td.gensmall only.


def _subsilver2_posts(anchors: list[HtmlElement]) -> dict[str, tuple[HtmlElement, Parts]]:
    """Post id -> (header row, parts), in page order, from the page's named anchors; empty when
    no header row has a b.postauthor (the page is another style's)."""
    heads: dict[str, HtmlElement] = {}
    for anchor in anchors:
        name = anchor.get("name")
        if _POST_ID.match(name):
            row = _header_row(anchor)
            if row is not None:
                heads.setdefault(name[1:], row)
    names = {pid: _postauthor(row) for pid, row in heads.items()}
    if not any(name is not None for name in names.values()):
        return {}
    starts = set(heads.values())
    return {pid: (row, _subsilver2_parts(_post_rows(row, starts), names[pid]))
            for pid, row in heads.items()}


def _header_row(anchor: HtmlElement) -> HtmlElement | None:
    """The row holding a post anchor; None for an anchor in a message or signature (a
    user's)."""
    for up in anchor.iterancestors():
        if up.tag == "tr":
            return up
        if "postbody" in (up.get("class") or ""):
            return None
    return None


def _post_rows(head: HtmlElement, starts: set[HtmlElement]) -> list[HtmlElement]:
    """The header row and the rows after it, up to the next post's header row."""
    rows = [head]
    for row in head.itersiblings("tr"):
        if row in starts:
            break
        rows.append(row)
    return rows


def _postauthor(row: HtmlElement) -> HtmlElement | None:
    for bold in row.iter("b"):
        if "postauthor" in (bold.get("class") or "").split():
            return bold
    return None


def _subsilver2_parts(rows: list[HtmlElement], name: HtmlElement | None) -> Parts:
    """The parts of one post's rows; `name` is the header row's b.postauthor."""
    content, footer = None, []
    for at, row in enumerate(rows):
        content = _first_postbody(row)
        if content is not None:
            footer = rows[at + 1:]
            break
    if name is None and content is None:
        cells = rows[0].findall("td")
        if len(cells) == 1:
            return {"hidden": cells[0]}
    parts: Parts = {}
    if name is not None:
        parts["name"] = name
        label = _posted_label(rows[0], name)
        if label is not None:
            parts["author"] = label.getparent()
    if content is not None:
        parts["content"] = content
        parts.update(_after_message(content))
        link = next((a for row in footer for a in row.iter("a")
                     if "mode=viewprofile" in (a.get("href") or "")), None)
        if link is not None:
            parts["user_link"] = link
    return parts


def _first_postbody(row: HtmlElement) -> HtmlElement | None:
    for element in row.iter("div", "span"):
        classes = element.get("class")
        if classes and "postbody" in classes and "postbody" in classes.split():
            return element
    return None


def _posted_label(head: HtmlElement, name: HtmlElement) -> HtmlElement | None:
    """The last bold label of the header row, "<b>Posted:</b>": the date follows it (the
    subject, user text, comes before it)."""
    inside = set(name.iter()) if len(name) else None  # bold inside a name is no label
    label = None
    for bold in head.iter("b", "strong"):
        if bold is not name and (inside is None or bold not in inside):
            label = bold
    return label


def _after_message(content: HtmlElement) -> Parts:
    """The signature and the edit notice among what follows the message in its cell (§2.1
    wording; with a reason, the notice is in a table.tablebg of td.row3 > span.gensmall), also
    when a board wrapped the message in more divs. Other span.gensmall there (bump notice,
    download notice, attachment sizes) are not edits."""
    parts: Parts = {}
    element = content
    while True:
        for sibling in element.itersiblings():
            classes = sibling.get("class")
            if classes and "postbody" in classes.split() and \
                    collapse(_text(sibling)).startswith(_SIG_RULE):
                parts.setdefault("signature", sibling)
            elif "notice" not in parts and (sibling.tag == "span" or sibling.tag == "table"):
                notice = _edit_span(sibling)
                if notice is not None:
                    parts["notice"] = notice
        parent = element.getparent()
        if parent is None or parent.tag == "td":
            return parts
        element = parent


def _before_reason(notice: HtmlElement) -> str:
    """The notice's text up to the <br> after it: prosilver writes the edit reason after one
    ("<br><strong>Reason:</strong> <em>…</em>"), and a reason's numbers or dates are no part of
    the edit count or time (phpBB 2 puts two <br> before its notice)."""
    if notice.find(".//br") is None:
        return _text(notice)
    pieces = [notice.text or ""]
    for child in notice:
        if child.tag == "br" and "".join(pieces).strip():
            break
        pieces.append(_text(child))
        pieces.append(child.tail or "")
    return "".join(pieces)


def _edit_span(element: HtmlElement) -> HtmlElement | None:
    """`element` itself when it is an edit notice span, or the notice in its td.row3."""
    tag = element.tag
    if tag == "span":
        return element if _is_edit_notice(element) else None
    if tag != "table":
        return None
    return next((span for span in element.iter("span")
                 if "row3" in (span.getparent().get("class") or "").split()
                 and _is_edit_notice(span)), None)


def _is_edit_notice(span: HtmlElement) -> bool:
    classes = (span.get("class") or "").split()
    return "gensmall" in classes and "error" not in classes and \
        _EDIT_WORDS.search(_text(span)) is not None


def _with_page_links(boxes: list[HtmlElement]) -> list[HtmlElement]:
    """subsilver2 shows "Page 1 of 3" in a td.nav and the page links (with start=) in the
    td.gensmall cells beside it."""
    out = []
    for box in boxes:
        out.append(box)
        if box.tag == "td" and _page_of(_text(box)):
            out.extend(box.itersiblings("td"))
    return out

