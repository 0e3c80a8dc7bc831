"""Where each Invision version keeps a post and its parts (FORUMS.md 5.1, 5.2), as data: the
`Markup` of IPB 3 and of IPS 4 (Invision Community 5 reads through IPS 4's fallbacks), the
landmarks of a page (pagination, title, topic), and what between the posts is not one. The
reader that asks these queries is adapters/invision.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

from lxml import etree
from lxml.html import HtmlElement

# ---------------------------------------------------------------------------------------------
# Where each version keeps what (FORUMS.md 5.1, 5.2). A post's parts as the stock template
# places them are found by one query of child steps (`Part`s: a few nodes visited, one call a
# post); a part a board's skin moved is then searched for with the version's fallback queries,
# the first that finds something winning. A descendant search walks the whole post: each costs
# about a tenth of lxml's parse of the post, so the stock paths come first.

Query = tuple[etree.XPath, ...]


def _queries(*paths: str) -> Query:
    return tuple(etree.XPath(path) for path in paths)


def _cls(name: str) -> str:
    """An XPath test for a class name: contains() first (cheap), then the exact word."""
    return (f"contains(@class, '{name}') and "
            f"contains(concat(' ', normalize-space(@class), ' '), ' {name} ')")


@dataclass(frozen=True)
class Part:
    """A part of a post where the stock template puts it: a path of child steps from the post
    block, and what tells its elements from the other parts' (the tag, and a word the
    attribute holds)."""

    name: str  # author, number, stamp, message, edit, signature
    path: str
    tag: str
    attribute: str = ""
    word: str = ""

    def holds(self, element: HtmlElement) -> bool:
        """Whether `element` (found by the stock query) is this part."""
        return element.tag == self.tag and (
            not self.attribute or self.word in (element.get(self.attribute) or "").split())


@dataclass(frozen=True)
class Markup:
    """One Invision version's markup: what the reader asks of each post."""

    version: str  # for messages: "IPB 3", "IPS 4"
    id_prefix: str  # a post block's id is this prefix and the post id
    parts: tuple[Part, ...]  # the stock places, found in one query
    machine: str  # the stamp's attribute with the machine time (ISO)
    hidden: frozenset[str]  # classes of a post shown hidden, queued or deleted to staff
    per_page: int  # the engine's default posts per page
    # Fallbacks, per post (relative to the post block)
    author: Query  # the element (or text) holding the author's name
    profile: Query  # the link to the author's profile (account id)
    stamp: Query  # the element with the post time
    message: Query
    number: Query  # IPB 3's "#n" link (position and permalink)
    permalink: Query  # the href of the post's link to itself (IPS 4)
    # Fallbacks, per message
    edit: Query  # the edit notice inside the message
    signature: Query  # the signature, after the message

    @cached_property
    def stock(self) -> etree.XPath:
        return etree.XPath(" | ".join(part.path for part in self.parts))

    @cached_property
    def parts_by_tag(self) -> dict[str, tuple[Part, ...]]:
        return {tag: tuple(p for p in self.parts if p.tag == tag) for tag in {p.tag for p in self.parts}}


_IPB3_MESSAGE = "*/div/div[@itemprop='commentText']"
IPB3 = Markup(
    version="IPB 3",
    id_prefix="post_id_",
    # skin_topic.php `post`: div.post_wrap > h3 > span.post_id > a "#n", span.author > a;
    # div.post_body > p.posted_info > abbr.published, div.post.entry-content > p.edit;
    # div.signature after the message
    parts=(Part("number", f"*/h3/span[{_cls('post_id')}]/a", "a"),
           Part("author", f"*/h3/span[{_cls('author')}]", "span"),
           Part("stamp", "*/div/p/abbr", "abbr"),
           Part("message", _IPB3_MESSAGE, "div", "itemprop", "commentText"),
           Part("edit", f"{_IPB3_MESSAGE}/p[{_cls('edit')}]", "p"),
           Part("signature", f"*/div/div[{_cls('signature')}]", "div", "class", "signature")),
    machine="title",
    hidden=frozenset(("moderated", "hidden")),
    per_page=20,  # display_max_posts
    author=_queries(f"descendant::span[{_cls('author')}][1]",
                    "descendant::h3[1]/text()[normalize-space()][1]"),  # a guest: plain name
    profile=_queries(f"descendant::span[{_cls('author')}][1]//a[1]",
                     "descendant::a[@hovercard-id][1]"),
    stamp=_queries(f"descendant::abbr[{_cls('published')}][1]",
                   f"descendant::p[{_cls('posted_info')}][1]"),
    # softDeletedPostBit shows the original only inside postsDeleteShow_ (moderator view).
    message=_queries("descendant::div[@itemprop='commentText'][1]",
                     "(descendant::*[starts-with(@id, 'postsDeleteShow_')]"
                     f"//div[{_cls('entry-content')}])[1]",
                     f"descendant::div[{_cls('entry-content')}][1]",
                     f"descendant::div[{_cls('post')}][1]"),
    number=_queries(f"descendant::span[{_cls('post_id')}][1]/a[1]",
                    "descendant::a[@data-entry-pid][1]"),
    permalink=(),
    edit=_queries(f"p[{_cls('edit')}][last()]"),
    signature=_queries(f"following-sibling::div[{_cls('signature')}][1]"),
)

_IPS4_MESSAGE = "div/div/div/div[@data-role='commentContent']"
IPS4 = Markup(
    version="IPS 4",
    id_prefix="elComment_",
    # theme.xml postContainer and post: aside > h3.cAuthorPane_author > strong > a;
    # div > div#comment-N_wrap > div.ipsComment_meta > p (or div) > a > time; the wrap's
    # div.cPost_contentWrap > div[data-role=commentContent] > span[data-excludequote] (the
    # edit line), then div[data-role=memberSignature]
    parts=(Part("author", "aside/h3/strong", "strong"),
           Part("stamp", f"div/div/div[{_cls('ipsComment_meta')}]/*/a/time", "time"),
           Part("message", _IPS4_MESSAGE, "div", "data-role", "commentContent"),
           Part("edit", f"{_IPS4_MESSAGE}/span[@data-excludequote]", "span"),
           Part("signature", "div/div/div/div[@data-role='memberSignature']", "div",
                "data-role", "memberSignature")),
    machine="datetime",
    hidden=frozenset(("ipsModerated",)),
    per_page=25,  # forums_posts_per_page
    # Invision Community 5 (5.0.14 forums/front/topics postContainer, postHeader, post):
    # h3.ipsEntry__username holds the userLink a.ipsUsername and, in the post header, the
    # group's span.ipsEntry__group, so the name is the link's text, never the heading's;
    # div.ipsEntry__meta > a.ipsEntry__date > time (or p.ipsPhotoPanel__secondary > a > time)
    author=_queries(f"descendant::*[{_cls('cAuthorPane_author')}][1]//*[@itemprop='name'][1]",
                    f"descendant::*[{_cls('cAuthorPane_author')}][1]",
                    f"descendant::*[{_cls('ipsEntry__username')}][1]//*[{_cls('ipsUsername')}][1]",
                    "descendant::aside[1]//h3[1]"),
    profile=_queries(f"descendant::*[{_cls('cAuthorPane_author')}][1]//a[1]",
                     f"descendant::*[{_cls('ipsEntry__username')}][1]//a[{_cls('ipsUsername')}][1]",
                     "descendant::aside[1]//h3[1]//a[1]"),
    stamp=_queries(f"descendant::div[{_cls('ipsComment_meta')}][1]//time[1]",
                   f"descendant::div[{_cls('ipsEntry__meta')}][1]//time[1]",
                   f"descendant::*[{_cls('ipsPhotoPanel__secondary')}][1]//time[1]"),
    message=_queries("descendant::*[@data-role='commentContent'][1]"),
    number=(),
    permalink=_queries("descendant::a[contains(@href, 'comment=')][1]/@href",
                       "descendant::a[contains(@href, '#findComment-')][1]/@href"),  # IC5
    edit=_queries("*[@data-excludequote][last()]"),
    signature=_queries("following-sibling::div[@data-role='memberSignature'][1]"),
)
IPS4_PER_PAGE = IPS4.per_page

# The page's landmarks, found by walking the page's elements of a few tags (lxml's iter()
# filters the tags in C; an XPath with attribute tests on every element, or one walk per
# landmark, costs a fifth of lxml's parse or more): (tag, attribute, value, what). A class is
# matched by word, a value ending in "_" as a prefix, any other by the whole value ("": present).
_LANDMARKS: tuple[tuple[str, str, str, str], ...] = (
    ("li", "class", "pagejump", "pages"),  # IPB 3 "Страница 1 из 3"
    ("ul", "data-pages", "", "pages"),  # IPS 4 ul.ipsPagination > li.ipsPagination_active
    ("li", "class", "page", "pagination"),  # IPB 3 page links
    ("li", "class", "next", "next"),  # IPB 3 li.next > a
    ("li", "class", "ipsPagination_next", "next"),  # IPS 4, ipsPagination_inactive on the last
    ("li", "class", "ipsPagination__next", "next"),  # Invision Community 5, ipsPagination__inactive
    ("h1", "class", "ipsType_pagetitle", "title"),  # IPB 3
    ("h1", "class", "ipsType_pageTitle", "title"),  # IPS 4
    ("h1", "data-ips-hook", "title", "title"),  # Invision Community 5: div.ipsPageHeader__title > h1
    # Which topic the page shows (issue 16): the canonical link, the fast-reply and moderation
    # forms' `t` (IPB 3), the comment form's commentform_{tid}_submitted (IPS 4)
    ("link", "rel", "canonical", "topic"),
    ("input", "name", "t", "topic"),
    ("input", "name", "commentform_", "topic"),
    # The guest sign-in prompt (issue 13): IPB 3's disabled reply button "Авторизуйтесь для
    # ответа в теме" (topic_no_reply_guest), IPS 4's guestCommentTeaser heading
    ("li", "class", "disabled", "guest"),
    ("h2", "class", "ipsType_pageTitle", "guest"),
    ("h2", "class", "ipsTitle", "guest"),  # IC5 div.cGuestTeaser > h2.ipsTitle (teaser_title_reg)
)
_BY_TAG: dict[str, list[tuple[str, re.Pattern[str], dict[str, str]]]] = {}
for _tag in dict.fromkeys(tag for tag, *_ in _LANDMARKS):
    for _attribute in dict.fromkeys(a for t, a, *_ in _LANDMARKS if t == _tag):
        _wanted = {v: w for t, a, v, w in _LANDMARKS if (t, a) == (_tag, _attribute)}
        # one regex test a candidate: class words, prefixes, whole values
        _pattern = "|".join(
            rf"(?:^|\s)({re.escape(v)})(?:\s|$)" if _attribute == "class"
            else f"^({re.escape(v)})" if v.endswith("_") or not v else f"^({re.escape(v)})$"
            for v in _wanted)
        _BY_TAG.setdefault(_tag, []).append((_attribute, re.compile(_pattern), _wanted))


# A page's list items are many (profile panes, post buttons): the few whose class holds a word
# of the table are picked by libxml2, the rest of the tags walked (the list stays in page order
# within each tag, which is all the readers need).
_ITEMS = etree.XPath("/descendant::li/@class[" + " or ".join(
    f"contains(., '{value}')" for tag, attribute, value, _ in _LANDMARKS
    if tag == "li" and attribute == "class") + "]/..")
_OTHER_TAGS = tuple(tag for tag in _BY_TAG if tag != "li")


def _landmarks(doc: HtmlElement) -> dict[str, list[HtmlElement]]:
    """The page's landmarks by what they are."""
    marks: dict[str, list[HtmlElement]] = {}
    for element in (*_ITEMS(doc), *doc.iter(*_OTHER_TAGS)):
        for attribute, pattern, wanted in _BY_TAG[element.tag]:
            found = element.get(attribute)
            matched = pattern.search(found) if found is not None else None
            if matched:
                what = wanted[next(group for group in matched.groups() if group is not None)]
                marks.setdefault(what, []).append(element)
                break
    return marks


_IPB3_POSTS = etree.XPath("/descendant::div/@id[starts-with(., 'post_id_')]/..")


def _posts(doc: HtmlElement) -> tuple[Markup, list[HtmlElement]]:
    """The version and its post blocks, in page order: IPS 4's article#elComment_N, else IPB
    3's div#post_id_N (post and softDeletedPostBit)."""
    posts = [e for e in doc.iter("article") if (e.get("id") or "").startswith("elComment_")]
    return (IPS4, posts) if posts else (IPB3, _IPB3_POSTS(doc))


_COMMENT_FEED = etree.XPath("/descendant::div[@data-role='commentFeed'][1]")


def _featured_first_post(doc: HtmlElement, posts: list[HtmlElement]) -> HtmlElement | None:
    """The topic's first post when the page repeats it above the comment feed: Invision
    Community 5's "first post" topic layout (forum_topic_view_firstpost) prints it in the
    topic header on every page and starts the feed after it (forums topic.php: offset
    (page - 1) * per_page + 1). None for any other page: it takes one post outside the feed,
    ahead of the feed's, marked data-ips-first-post."""
    if posts[0].get("data-ips-first-post") is None:  # postContainer marks the topic's first post
        return None
    feed = _COMMENT_FEED(doc)
    if not feed:
        return None
    in_feed = set(feed[0].iter("article"))
    outside = [post for post in posts if post not in in_feed]
    return posts[0] if outside == posts[:1] else None


_PAGES_SHOWN = re.compile(r"(\d+)\s+(?:из|of)\s+(\d+)")
# IPS 4 li.ipsPagination_active, Invision Community 5 li.ipsPagination__page.ipsPagination__active
_ACTIVE_PAGE = etree.XPath(f"li[({_cls('ipsPagination_active')}) or ({_cls('ipsPagination__active')})][1]")
_INACTIVE = frozenset(("ipsPagination_inactive", "ipsPagination__inactive"))
_NEXT_HREF = etree.XPath("a[1]/@href")
_TOPIC_IN_SOURCE = re.compile(r"^(\d+)$|^commentform_(\d+)_|[?&]showtopic=(\d+)|/topic/(\d+)(?:-|/|$)")
_GUEST_WORDS = ("Авторизуйтесь", "войдите", "Войдите", "Log in", "Sign in", "sign in")


# ---------------------------------------------------------------------------------------------
# What is not a post (issue 13). Between the posts: post anchors and separators are chrome; a
# block with a post's parts but no post id is a post that cannot be read; anything else is
# skipped and noted (the board's ad code, IPS 4's ipsAdvertisement / ipsAd blocks).

_BETWEEN_POSTS_CHROME = frozenset(("a", "hr", "script", "noscript", "style", "input", "br"))
_LOOKS_LIKE_A_POST = etree.XPath(
    "descendant-or-self::*[@itemprop='commentText' or @data-role='commentContent'"
    f" or self::abbr[{_cls('published')}] or self::time[@datetime]][1]")
_AD_CLASSES = re.compile(r"\b(?:ipsAd\w*|ipsSpacer\w*|adsbygoogle|advert\w*|sponsor\w*|ad_?code)\b",
                         re.IGNORECASE)
# IPS 4 shows a user the viewer ignores as a placeholder and keeps the post hidden (ipsHide);
# IPB 3 puts the placeholder inside the post and hides its post_wrap.
# Invision Community 5 prints div.ipsEntry--ignored before the post's anchors.
_IGNORED_PLACEHOLDER = frozenset(("ipsComment_ignored", "post_ignore", "ipsEntry--ignored"))
