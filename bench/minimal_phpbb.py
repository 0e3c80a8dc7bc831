"""The least a phpBB reader must do, in plain lxml: the yardstick of issue 15's question.

    python bench/minimal_phpbb.py FOLDER

Parses every page-N.html of FOLDER and reads each prosilver post's id, author, date text, text
(quotes dropped) and edit notice, then prints how many posts it read. bench.py runs it in a child
process beside `tally count --from` on the same pages and compares their CPU times.
"""

from __future__ import annotations

import sys
from pathlib import Path

import lxml.html

POSTS = "//div[starts-with(@id, 'p')][contains(concat(' ', @class, ' '), ' post ')]"


def read(folder: Path) -> list[tuple[str, str, str, str, str]]:
    out = []
    for path in sorted(folder.glob("page-*.html")):
        root = lxml.html.fromstring(path.read_bytes())
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


if __name__ == "__main__":
    print(len(read(Path(sys.argv[1]))))
