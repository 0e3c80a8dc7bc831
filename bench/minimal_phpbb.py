"""The least a phpBB reader must do: the yardstick of issue 15's question.

    python bench/minimal_phpbb.py [--lexbor] FOLDER

Parses every page-N.html of FOLDER and reads each prosilver post's id, author, date text, text
(quotes dropped) and edit notice, then prints how many posts it read: with lxml, or with
--lexbor with selectolax's Lexbor parser (the HTML5 parser issue 15 names as the other candidate
backend; optional, not a dependency of tally). bench.py runs it in a child process beside
`tally count --from` on the same pages and compares their CPU times.
"""

from __future__ import annotations

import sys
from pathlib import Path

POSTS = "//div[starts-with(@id, 'p')][contains(concat(' ', @class, ' '), ' post ')]"
Row = tuple[str, str, str, str, str]


def read_lxml(pages: list[bytes]) -> list[Row]:
    import lxml.html

    out = []
    for data in pages:
        root = lxml.html.fromstring(data)
        for post in root.xpath(POSTS):
            author = post.xpath(".//dl[contains(@class, 'postprofile')]/dt/a"
                                "[contains(@class, 'username')]")
            when = post.xpath(".//p[contains(@class, 'author')]")
            content = post.xpath(".//div[@class='content']")
            notice = post.xpath(".//div[@class='notice']")
            if not content:
                continue
            for quote in content[0].xpath(".//blockquote"):
                quote.drop_tree()
            out.append((post.get("id")[1:],
                        author[0].text_content() if author else "",
                        when[0].text_content().rsplit("»", 1)[-1].strip() if when else "",
                        content[0].text_content(),
                        notice[0].text_content().strip() if notice else ""))
    return out


def read_lexbor(pages: list[bytes]) -> list[Row]:
    from selectolax.lexbor import LexborHTMLParser

    out = []
    for data in pages:
        tree = LexborHTMLParser(data)
        for post in tree.css("div.post[id^=p]"):
            author = post.css_first("dl.postprofile dt a.username, "
                                    "dl.postprofile dt a.username-coloured")
            when = post.css_first("p.author")
            content = post.css_first("div.content")
            notice = post.css_first("div.notice")
            if content is None:
                continue
            for quote in content.css("blockquote"):
                quote.decompose()
            out.append(((post.attributes.get("id") or "p")[1:],
                        author.text() if author else "",
                        when.text().rsplit("»", 1)[-1].strip() if when else "",
                        content.text(),
                        notice.text().strip() if notice else ""))
    return out


def main(argv: list[str]) -> None:
    lexbor = "--lexbor" in argv
    folder = Path([arg for arg in argv if arg != "--lexbor"][0])
    pages = [path.read_bytes() for path in sorted(folder.glob("page-*.html"))]
    print(len((read_lexbor if lexbor else read_lxml)(pages)))


if __name__ == "__main__":
    main(sys.argv[1:])
