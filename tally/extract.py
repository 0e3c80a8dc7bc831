"""Vote extraction: a Post's own text -> Ballot (DESIGN.md data flow, RULES.md C1-C3).

Only `Body.own` is read: quotes, spoilers and code are someone else's words or hidden text, and
the adapters have already taken them out (C1). Every action on every line counts, in the order
written ("unvote" then "vote: B" is two actions; K7).

Forms, case-insensitive:
- strict: "<word>: X" (any colon, "：" too), "##vote X", "[vote]X[/vote]", the game's own regexes
  (`votes.patterns`, matched case-insensitively like the words).
  The target is whatever is written; an unknown name is kept for the GM (C2).
- loose: "<word> X". It reads like prose ("I will vote later"), so it counts only when X resolves
  to a roster name (exact, alias, fuzzy, or a near miss the GM must see).
A target runs to the end of its line or to the next vote word on it. A vote needs a target:
"vote: ?" or a bare "vote" is not a vote. One target names one player (tally.names): "vote:
Alice or Bob" counts for nobody and goes to the GM.

Where a command stands (issue 13). A revoke word, or a vote word without a colon, is a command
only where a command is written:
- at the start of a line, of a sentence (after ". ", "? ", "。"), of a bold span, or of a clause
  opened by "but"/"so" ("Soy un fantasma pero voto a Ana"), list marks ("- ", "> ") and a
  subject pronoun allowed before it ("I vote for Bob", "Je vote", "Yo voto", "Я голосую",
  "我投票");
- right after another command on the same line ("unvote, vote Bob", "取消投票，投票 X").
Inside a sentence it is prose ("Why the unvote, José?", "I think we should vote Bob tomorrow",
"你为什么取消投票"), and so is a question ("Unvote?", "¿Voto a Ana?"). A colon form ("vote: X",
"投票：X"), the "##" form of any word ("##unvote", "##voto Ana"), a tag ("[vote]X[/vote]",
"[unvote]") and the game's own patterns are commands wherever they stand; so is a Chinese vote
word followed by a space ("投票 张三", the T-defaults format: Chinese prose has no spaces).
Prose that would have cast or revoked is kept in `Ballot.prose` for the audit.

A target that is a format placeholder of the language pack ("Voto: Nombre", "##vote PlayerName",
"投票 X"; tally.syntax.placeholders) is a format example, not a vote, unless the roster has a
player of that name: the Ballot keeps the phrase in `examples` so the audit can say so (C4).
A strict form is an example when its target begins with a placeholder ("Voto: Nombre del
jugador votado"); a loose one only when the whole target is one ("vote name your suspect" is
prose).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from typing import Literal

from tally.errors import InputError
from tally.game import Game, VoteSyntax
from tally.model import Action, Ballot, NameMatch, Post
from tally.names import Roster, normalise
from tally.syntax import PACKS, pack, placeholders, with_words_of

_NEVER = r"(?!)"  # an alternative that matches nothing, for an empty word list


def _is_cjk(ch: str) -> bool:
    return "\u3040" <= ch <= "\u9fff" or "\uac00" <= ch <= "\ud7af" or "\uf900" <= ch <= "\ufaff"


def _word_regex(word: str) -> str:
    """`word` as a whole word: not inside "devote", "voted", "voters".

    CJK words take no boundary (no spaces between Chinese words), except a one-character word,
    which must stand alone: "票" is inside many compounds ("选票").
    """
    body = r"\s+".join(re.escape(part) for part in word.split())
    # after "##" a word is the "##" form of itself ("##voto Ana"); after one "#" it is not a word
    if _is_cjk(word[0]):
        left = r"(?:(?<![\w#])|(?<=##))" if len(word) == 1 else ""
    else:
        left = r"(?:(?<![\w#])|(?<=##))"
    right = "" if _is_cjk(word[-1]) or not word[-1].isalnum() else r"(?!\w)"
    return left + body + right


def _alternation(words: Iterable[str]) -> str:
    # Longest first, so that "vote for" wins over "vote" and "##unvote" over "unvote".
    pieces = [_word_regex(w) for w in sorted(set(words), key=len, reverse=True) if w.strip()]
    return "|".join(pieces) or _NEVER


def _names_nobody(match: NameMatch) -> bool:
    """No player, and nothing the GM should look at: a loose "<word> X" that is just prose."""
    return match.how == "unknown" or (match.how == "mixed_script" and match.runner_up is None)


_REAL = frozenset({"exact", "alias", "resolution"})  # the roster really has that name

# Issue 13: what may stand before a command on its line. A sentence ends at . ! ? … ; : followed
# by a space (not "21.30"), or at CJK 。！？；：.
_SENTENCE_BREAK = re.compile(r"[.!?…;:]+[\s\u00a0]+|[。！？；：]+\s*")
# A clause opened by "but"/"so" starts afresh: "Soy un fantasma pero voto a Danielle", "ok so
# vote Bob", "所以取消投票". Not "and", "y", "и": those join names and nouns too.
_CLAUSE = re.compile(r"(?<!\w)(?:but|so|pero|así que|entonces|mais|donc|alors|но|так что|"
                     r"поэтому|итак)\s+|(?:但是|所以|那么)", re.IGNORECASE)
# Before a command on its line only marks may stand (list marks, brackets, a smiley: "- vote
# Bob", "> unvote", ":) unvote"), and a subject pronoun: "I vote", "Je vote", "Yo voto",
# "Я голосую", "我投票".
_PRONOUN = re.compile(r"i|je|j'|j’|yo|я|ich|我", re.IGNORECASE)


def _only_marks(lead: str) -> bool:
    """Whether `lead` holds no word but a subject pronoun."""
    words = "".join(ch if ch.isalnum() or ch in "'’" else " " for ch in lead).split()
    return not words or (len(words) == 1 and _PRONOUN.fullmatch(words[0]) is not None)


# Between two commands on one line: "unvote, vote Bob", "unvote and vote Bob", "取消投票，投票 X".
_CHAIN = re.compile(r"[\s\W]*(?:(?:and|then|y|luego|et|puis|и|потом|然后|再)[\s\W]*)?",
                    re.IGNORECASE)
# A question is not a command ("Unvote?", "¿Voto a Ana?"); a question after a comma is the
# reason given for one ("unvote, why would I keep it?").
_QUESTION_END = re.compile(r"[^.!…;:。！；：,，\n]*?[?？]")


def _is_question(text: str, start: int) -> bool:
    """Whether the sentence holding text[start] is a question."""
    line_start = text.rfind("\n", 0, start) + 1
    breaks = [m.end() for m in _SENTENCE_BREAK.finditer(text, line_start, start)]
    opener = text.rfind("¿", breaks[-1] if breaks else line_start, start)
    return opener >= 0 or _QUESTION_END.match(text, start) is not None


@dataclass(frozen=True, slots=True)
class _Example:
    """A vote phrase whose target is a format placeholder: "Voto: Nombre"."""

    text: str


@dataclass(frozen=True, slots=True)
class _Prose:
    """A line whose vote or revoke word stands inside a sentence: prose, not a command."""

    text: str


@dataclass(frozen=True, slots=True)
class _Hit:
    start: int
    end: int
    kind: Literal["vote", "unvote"]
    strict: bool
    target: str | None = None  # set by tags and patterns; None: runs to the line's end
    anywhere: bool = False  # a command wherever it stands: colon, "##", tag, pattern, "投票 X"


def _starts(text: str, spans: tuple[str, ...]) -> tuple[int, ...]:
    """Where the bold spans begin in `text` (a command may start a bold span)."""
    starts: list[int] = []
    at = 0
    for span in spans:
        found = text.find(span, at) if span.strip() else -1
        if found >= 0:
            starts.append(found + len(span) - len(span.lstrip()))
            at = found + len(span)
    return tuple(starts)


def _line_of(text: str, start: int) -> str:
    """The line holding text[start], stripped and cut short, for the audit."""
    begin = text.rfind("\n", 0, start) + 1
    end = text.find("\n", start)
    line = text[begin:len(text) if end < 0 else end].strip()
    return line if len(line) <= 100 else line[:99] + "…"


def effective_syntax(game: Game, defaults: VoteSyntax | None) -> VoteSyntax:
    """The preset's syntax with the game file's `[votes]` on top.

    Base: the game's `votes.language` pack, else `defaults`, else the board's language pack, else
    English. A language set in the game file swaps the words, tags and no-elimination words but
    keeps the preset's other choices (bold, joke markers, patterns). A board whose stated
    language (`[thread] language`) is not the preset's, with no `votes.language`, takes both
    packs' words: players of an English-convention game on a Chinese board write "投票 X" as
    well as "vote: X", and reading only the preset's words counted none of them ("No votes
    yet", exit 0).
    """
    own = game.votes
    base = defaults
    if own.language and (base is None or own.language != base.language):
        try:
            words = pack(own.language, no_elimination=bool(base and base.no_elimination))
        except InputError as exc:
            line = game.lines.get("votes.language")
            raise InputError(f"{game.path}{f':{line}' if line else ''}: votes.language: {exc}") \
                from None
        base = words if base is None else replace(
            words, require_bold=base.require_bold, joke_markers=base.joke_markers,
            patterns=base.patterns)
    board = game.board.language
    if base is None:
        base = pack(board if board in PACKS else "en")
    elif not own.language and board in PACKS and board != base.language:
        base = with_words_of(base, pack(board, no_elimination=bool(base.no_elimination)))
    changes = {f.name: getattr(own, f.name) for f in fields(VoteSyntax)
               if isinstance(getattr(own, f.name), tuple) and getattr(own, f.name)}
    if own.require_bold:
        changes["require_bold"] = True
    return replace(base, **changes)


class Extractor:
    """Reads posts for vote actions with one game's syntax and roster. Regexes compile once."""

    def __init__(self, game: Game, defaults: VoteSyntax | None = None) -> None:
        self.game = game
        self.syntax = effective_syntax(game, defaults)
        self.roster = Roster(game)
        syntax = self.syntax
        tags = "|".join(re.escape(t) for t in syntax.tags) or _NEVER
        # A post is mostly prose: a lookahead on the characters a vote word or tag can start
        # with lets the regex skip every other position at once (about 5x faster per post).
        firsts = {w.strip()[0] for w in (*syntax.unvote_words, *syntax.vote_words) if w.strip()}
        lead = "".join(re.escape(c) for c in sorted(firsts | {"[", "#"}))
        # "[unvote]" (or "[unvote][/unvote]"): a one-word revoke written as a tag is a command
        untags = "|".join(re.escape(w) for w in syntax.unvote_words
                          if w.strip() and len(w.split()) == 1 and w[0].isalnum()) or _NEVER
        self._keywords = re.compile(
            rf"(?=[{lead}])(?:"
            rf"\[(?P<untag>{untags})\](?:[ \t]*\[/(?P=untag)\])?"
            rf"|(?P<hash>##)?(?P<unvote>{_alternation(syntax.unvote_words)})"
            rf"|\[(?P<tag>{tags})\][ \t]*(?P<tagtarget>[^\[\]\n]*?)[ \t]*\[/(?P=tag)\]"
            rf"|(?P<vhash>##)?(?P<vote>{_alternation(syntax.vote_words)})"
            rf"(?:(?P<colon>[ \t]*[:：])|(?P<space>(?<=[\u3040-\u9fff])[ \t]+))?)",
            re.IGNORECASE,
        )
        self._patterns = tuple(self._compile(p) for p in syntax.patterns)
        self._joke = re.compile(_alternation(syntax.joke_markers), re.IGNORECASE)
        self._no_elimination = tuple(normalise(w) for w in syntax.no_elimination if normalise(w))
        self._placeholders = placeholders(syntax.language) | (
            placeholders(game.board.language) if game.board.language in PACKS else frozenset())
        self._placeholder_words = max(len(p.split(" ")) for p in self._placeholders)

    def _compile(self, pattern: str) -> re.Pattern[str]:
        try:
            compiled = re.compile(pattern, re.IGNORECASE)
        except re.error as exc:
            raise InputError(f"{self.game.path}: votes.patterns: bad regex {pattern!r}: {exc}") from None
        if "target" not in compiled.groupindex:
            raise InputError(f"{self.game.path}: votes.patterns: regex {pattern!r} needs a group "
                             "(?P<target>…)")
        return compiled

    # -- public ------------------------------------------------------------------------------
    def ballot(self, post: Post) -> Ballot:
        voter = self.roster.voter(post.author, post.author_id, post.created_at)
        found = self._found(post.body.own, post.body.bold)
        if not found:  # most posts: no vote word at all
            return Ballot(post=post, voter=voter)
        actions = tuple(f for f in found if isinstance(f, Action))
        if len(actions) == len(found):
            return Ballot(post=post, voter=voter, actions=actions)
        examples = tuple(f.text for f in found if isinstance(f, _Example))
        prose = tuple(dict.fromkeys(f.text for f in found if isinstance(f, _Prose)))
        return Ballot(post=post, voter=voter, actions=actions, examples=examples, prose=prose)

    def actions(self, text: str, bold: tuple[str, ...] = ()) -> tuple[Action, ...]:
        """Vote actions in `text`, in order; with require_bold, in the bold spans only."""
        return tuple(f for f in self._found(text, bold) if isinstance(f, Action))

    def _found(self, text: str, bold: tuple[str, ...]) -> list[Action | _Example | _Prose]:
        if not self.syntax.require_bold:
            return self._span_actions(text, bold)
        found: list[Action | _Example | _Prose] = []
        for span in bold:
            found += self._span_actions(span, ())
        return found

    # -- steps -------------------------------------------------------------------------------
    def _hits(self, text: str) -> list[_Hit]:
        """Every vote word, tag and pattern in `text`, left to right, overlaps dropped."""
        hits: list[_Hit] = []
        for m in self._keywords.finditer(text):
            if m.group("untag") is not None:
                hits.append(_Hit(m.start(), m.end(), "unvote", True, anywhere=True))
            elif m.group("unvote") is not None:
                hashed = m.group("hash") is not None or not m.group("unvote")[0].isalnum()
                hits.append(_Hit(m.start(), m.end(), "unvote", True, anywhere=hashed))
            elif m.group("tag") is not None:
                hits.append(_Hit(m.start(), m.end(), "vote", True, m.group("tagtarget"), True))
            else:
                strict = (m.group("colon") is not None or m.group("vhash") is not None
                          or not m.group("vote")[0].isalnum())
                hits.append(_Hit(m.start(), m.end(), "vote", strict,
                                 anywhere=strict or m.group("space") is not None))
        for pattern in self._patterns:
            hits += [_Hit(m.start(), m.end(), "vote", True, m.group("target") or "", True)
                     for m in pattern.finditer(text)]
        if self._patterns:  # keyword hits never overlap each other; pattern hits may
            hits.sort(key=lambda h: (h.start, -h.end))
            kept: list[_Hit] = []
            for hit in hits:
                if not kept or hit.start >= kept[-1].end:
                    kept.append(hit)
            hits = kept
        return hits

    def _span_actions(self, text: str, bold: tuple[str, ...]) -> list[Action | _Example | _Prose]:
        hits = self._hits(text)
        if not hits:  # most posts
            return []
        found: list[Action | _Example | _Prose] = []
        bold_starts = _starts(text, bold) if bold else ()
        chain = -1  # where a command chained to the previous one may start (issue 13)
        for i, hit in enumerate(hits):
            line_end = text.find("\n", hit.end)
            line_end = len(text) if line_end < 0 else line_end
            command = hit.anywhere or self._in_command_place(text, hit.start, bold_starts, chain)
            if hit.kind == "unvote":
                if command:
                    found.append(Action("unvote", text=text[hit.start:hit.end]))
                    chain = hit.end
                else:
                    found.append(_Prose(_line_of(text, hit.start)))
                continue
            end = hit.end
            target = hit.target
            if target is None:  # "<word> X": X runs to the line's end or the next vote word
                end = min(line_end, hits[i + 1].start if i + 1 < len(hits) else line_end)
                target = text[hit.end:end]
            line_start = text.rfind("\n", 0, hit.start) + 1
            action = self._vote(target, hit.strict, text[hit.start:end].strip(),
                                bool(self._joke.search(text, line_start, line_end)))
            if action is None:
                continue
            if not command:  # "I think we should vote Bob tomorrow": prose that names a player
                # a format example stays one wherever it stands ("to vote, write vote Name")
                found.append(_Prose(_line_of(text, hit.start)) if isinstance(action, Action)
                             else action)
                continue
            found.append(action)
            # "vote Bob, unvote": a command may follow a vote whose target is just the name
            chain = end if hit.target is not None or self.roster.is_name(target) else -1
        return found

    def _in_command_place(self, text: str, start: int, bold_starts: tuple[int, ...],
                          chain: int) -> bool:
        """Whether a vote/revoke word at text[start] is written as a command (issue 13): first on
        its line, sentence or bold span (list marks and a subject pronoun before it allowed), or
        chained to the command before it on the line; never in a question."""
        line_start = text.rfind("\n", 0, start) + 1
        if chain >= line_start and _CHAIN.fullmatch(text, chain, start):
            return not _is_question(text, start)
        anchors = [line_start, *(b for b in bold_starts if line_start <= b <= start)]
        anchors += [m.end() for m in _SENTENCE_BREAK.finditer(text, line_start, start)]
        anchors += [m.end() for m in _CLAUSE.finditer(text, line_start, start)]
        if not _only_marks(text[max(anchors):start]):
            return False
        return not _is_question(text, start)

    def _vote(self, target: str, strict: bool, phrase: str, joke: bool) -> Action | _Example | None:
        written = self._joke.sub(" ", target).strip()
        key = normalise(written)
        if not key:  # "vote: ?", "vote:" — a vote needs a target
            return None
        if any(key == w or key.startswith(w + " ") for w in self._no_elimination):
            return Action("no_elimination", written=written, joke=joke, text=phrase)
        match = self.roster.match(written)
        if match.how not in _REAL and self._is_placeholder(key, strict):
            return _Example(phrase)  # "Voto: Nombre": the GM showing the format (C4)
        if not strict and _names_nobody(match):  # prose: "I will vote later"
            return None
        return Action("vote", written=written, match=match, joke=joke, text=phrase)

    def _is_placeholder(self, key: str, strict: bool) -> bool:
        """Whether a target (normalised) is a format placeholder: the whole of it, or for a
        strict form its first words ("nombre del jugador votado")."""
        if key in self._placeholders:
            return True
        if not strict:
            return False
        words = key.split(" ")
        return any(normalise(" ".join(words[:n])) in self._placeholders
                   for n in range(min(len(words), self._placeholder_words), 0, -1))
