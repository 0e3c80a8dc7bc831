"""Who a written name means, and who is behind a post's author (RULES.md C2, K14).

`normalise` is the one comparison form for names. `Roster.match` resolves a name as written in a
vote to a roster player, in this order (C2):

1. the game file's `[resolutions]` table (the GM's word; "ignore" drops the vote),
2. a player's exact name, 3. an alias (aliases, in-game names K14, account names),
4. a mixed-script check: a name that only matches by mixing Latin with Cyrillic/Greek
   lookalikes ("Аlice" with a Cyrillic А) is flagged, never matched silently,
5. fuzzy matching, accepted only for a clear winner (score >= names.threshold and a lead
   >= names.margin over the best *other* player); else "ambiguous" or "unknown".

Fuzzy scorer: rapidfuzz Jaro-Winkler similarity x 100 over normalised names and aliases. It is
made for short personal names: it forgives transpositions ("Alcie" -> Alice, 94.7) and rewards a
correct beginning, and unlike partial ratios (WRatio) it does not score a fragment as a match of a
longer name ("es" is not "Jesse"). Written names shorter than 3 letters are never fuzzy-matched.

A vote line often goes on after the name ("vote: Bob because he lied"): every tier tries the
longest prefix of words first, then shorter ones; all prefixes go through the exact tiers before
any goes through the fuzzy one, so a name written exactly always beats a guess.

One name per vote (issue 13): after the name, the rest of the line up to a sentence break is
read for a second player. A line that names two or more ("Alice Bob", "Alice, Bob", "Alice or
Bob", "Alice o Bob", "Alice или Bob", "Alice 或 Bob", "Alice 还是 Bob") is ambiguous: it counts
for nobody and `NameMatch.named` lists them for the GM. The second name is found by the exact
tiers only (resolution, name, alias), or by the fuzzy one too after an alternative word ("or",
"o", "ou", "или", "或", "还是", "/"). A second name followed directly by more words that are
not a name starts a comment about that player: "vote: Alice, Bob never votes" is a vote for
Alice. A name written with spaces ("Irene Adler") is one name: the longest name wins first.
"""

from __future__ import annotations

import re
import string
import unicodedata
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from rapidfuzz.distance import JaroWinkler

from tally.game import Game, Player
from tally.model import NameMatch

_SPACE = re.compile(r"\s+")
# Between two names on a vote line (compared in the normalised form). Alternatives make a list
# whatever follows; the other separators make one only when the second name ends the clause.
_ALTERNATIVES = frozenset({"or", "o", "u", "ou", "или", "либо", "或", "或者", "还是", "/", "|"})
_JOINERS = frozenset({",", "、", "，", "&", "+", "(", "（", "and", "y", "e", "et", "и", "和", "与",
                      "跟"})
_BREAKS = frozenset({";", "；", ":", "：", "!", "！", "?", "？", "。", "…", ")", "）"})
_SPLIT = ",/|&+;；:：!！?？。…()（）、，"  # split off as words of their own
_CJK_JOINERS = ("或者", "还是", "或", "和", "与", "跟", "、", "，")
_BBCODE = re.compile(r"\[/?[a-z*]+(?:=[^\]\n]*)?\]", re.IGNORECASE)
_MIN_FUZZY_LEN = 3  # too little evidence below this: "al" would score 84 against "alice"


def _is_edge_junk(ch: str) -> bool:
    """Punctuation, symbols and spaces that may surround a name ("@Bob", "Bob!", "«Bob»")."""
    return ch.isspace() or unicodedata.category(ch)[0] in "PSZ"


_ASCII_EDGE = string.punctuation + " "  # all of category P or S, plus the space


def _normalise_once(text: str) -> str:
    if text.isascii():  # the common case, 10x faster; same result as the general path
        return " ".join(text.lower().split()).strip(_ASCII_EDGE)
    # Format characters (zero-width space/joiner, BOM, bidi marks) go first, so that NFKC can
    # compose what they separated.
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Cf")
    text = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", text).casefold())
    text = _SPACE.sub(" ", text)
    start, end = 0, len(text)
    while start < end and _is_edge_junk(text[start]):
        start += 1
    while end > start and _is_edge_junk(text[end - 1]):
        end -= 1
    return text[start:end]


@lru_cache(maxsize=1 << 16)
def normalise(text: str) -> str:
    """The comparison form of a name: NFKC, casefolded, no format chars, spaces collapsed, no
    surrounding punctuation. Repeated until stable, so that it is idempotent for any input."""
    for _ in range(4):  # casefold/NFKC interplay settles in one or two rounds
        again = _normalise_once(text)
        if again == text:
            break
        text = again
    return text


# ---------------------------------------------------------------------------------------------
# Scripts and lookalikes (the mixed-script check)

# Cyrillic and Greek letters (casefolded) that render like a Latin letter.
_CONFUSABLES = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "і": "i", "ї": "i", "ј": "j", "к": "k", "м": "m",
    "н": "h", "о": "o", "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԁ": "d",
    "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l", "ү": "y",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "μ": "u", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ζ": "z", "ϲ": "c", "ϳ": "j",
})


def _script(ch: str) -> str | None:
    """The script of a letter, for the three that share lookalikes; None for anything else."""
    code = ord(ch)
    if not ch.isalpha():
        return None
    if code < 0x0250 or 0x1E00 <= code <= 0x1EFF:
        return "latin"
    if 0x0370 <= code <= 0x03FF or 0x1F00 <= code <= 0x1FFF:
        return "greek"
    if 0x0400 <= code <= 0x052F:
        return "cyrillic"
    return None


def _scripts(text: str) -> frozenset[str]:
    return frozenset(s for s in map(_script, text) if s)


def _mixes_scripts(text: str) -> bool:
    """A word with Latin letters next to Cyrillic or Greek ones: a lookalike, not a name."""
    return any(len(_scripts(word)) > 1 for word in text.split(" "))


def _skeleton(text: str) -> str:
    return text.translate(_CONFUSABLES)


def _has_cjk(text: str) -> bool:
    return any("\u3040" <= ch <= "\u9fff" or "\uf900" <= ch <= "\ufaff" for ch in text)


_SPLITTER = re.compile(f"([{re.escape(_SPLIT)}])")


def _split(key: str) -> str:
    """A comparison form with separators as words of their own: "alice/bob" -> "alice / bob"."""
    return " ".join(_SPLITTER.sub(r" \1 ", key).split())


def _ends_sentence(token: str) -> bool:
    """"Moriarty." ends its sentence: nothing after it belongs to the vote's name list."""
    return token in _BREAKS or (len(token) > 1 and token[-1] in ".…")


# ---------------------------------------------------------------------------------------------
# The roster


@dataclass(frozen=True, slots=True)
class _Holder:
    """An account holding a player's slot from `start` (inclusive) to `end` (exclusive)."""

    player: str
    names: frozenset[str]  # normalised account/display names
    ids: frozenset[str]
    start: datetime | None
    end: datetime | None

    def holds_at(self, at: datetime) -> bool:
        return (self.start is None or self.start <= at) and (self.end is None or at < self.end)


class Roster:
    """The game's players as names to match (C2) and accounts that vote (K2, replacements)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.threshold = game.names.threshold
        self.margin = game.names.margin
        self._resolutions = {normalise(k): v for k, v in game.resolutions.items()}
        self._exact = {normalise(p.name): p.name for p in game.players}
        self._aliases: dict[str, set[str]] = {}
        aliases = [(a, p.name) for p in game.players for a in (*p.aliases, *p.accounts)]
        # a replacement's account is a name players write for the slot it took over
        aliases += [(e.account, e.player) for e in game.events_of("replacement")
                    if e.account and e.player]
        for alias, name in aliases:
            self._aliases.setdefault(normalise(alias), set()).add(name)
        # every key fuzzy matching and the lookalike check compare against, with its player;
        # sorted, so that the same game file gives the same audit byte for byte
        self._keys = sorted(self._exact.items())
        self._keys += sorted((key, name) for key, names in self._aliases.items() for name in names)
        self._skeletons: dict[str, list[tuple[str, str]]] = {}
        for key, name in self._keys:
            self._skeletons.setdefault(_skeleton(key), []).append((key, name))
        every_key = (*self._resolutions, *self._exact, *self._aliases)
        # a name written with a separator ("AC/DC") is found in its split form ("ac / dc")
        self._unsplit = {split: key for key in every_key if (split := _split(key)) != key}
        self._max_words = max(len(_split(key).split(" ")) for key in every_key)
        self._cjk_keys = sorted((k for k in every_key if _has_cjk(k)), key=len, reverse=True)
        self._staff = {normalise(s) for s in game.staff}
        self._holders = tuple(h for p in game.players for h in self._slot_holders(p))
        # The holders by account id and by name, in roster order: `voter` runs for every post,
        # and looks only at the few holders that could be the author.
        self._by_id: dict[str, list[_Holder]] = {}
        self._by_name: dict[str, list[_Holder]] = {}
        for holder in self._holders:
            for account_id in holder.ids:
                self._by_id.setdefault(account_id, []).append(holder)
            for name in holder.names:
                self._by_name.setdefault(name, []).append(holder)
        self._memo: dict[str, NameMatch] = {}

    # -- who wrote the post ------------------------------------------------------------------
    def _slot_holders(self, player: Player) -> list[_Holder]:
        """The accounts that held `player`'s slot, in time order (replacement events)."""
        moves = sorted((e for e in self.game.events_of("replacement") if e.player == player.name),
                       key=lambda e: e.at)
        holders: list[_Holder] = []
        names = frozenset(normalise(n) for n in (player.name, *player.accounts))
        ids = frozenset({player.account_id} if player.account_id else ())
        start: datetime | None = None
        for move in moves:
            holders.append(_Holder(player.name, names, ids, start, move.at))
            names = frozenset({normalise(move.account or "")})
            ids = frozenset({move.account_id} if move.account_id is not None else ())
            start = move.at
        holders.append(_Holder(player.name, names, ids, start, None))
        return holders

    def voter(self, author: str, author_id: str | None, at: datetime) -> str | None:
        """The player whose slot `author` held at `at`; None for staff and non-players.

        The account id is the surest link; a name match is refused when both sides carry an id and
        the ids differ (a renamed or look-alike account is not the player).
        """
        name = normalise(author)
        if name in self._staff:
            return None
        if author_id is not None:
            for holder in self._by_id.get(author_id, ()):
                if holder.holds_at(at):
                    return holder.player
        for holder in self._by_name.get(name, ()):
            if holder.holds_at(at) and not (author_id and holder.ids):
                return holder.player
        return None

    # -- who a written name means (C2) -------------------------------------------------------
    def match(self, written: str) -> NameMatch:
        found = self._memo.get(written)
        if found is None:
            found = self._memo[written] = self._match(written)
        return found

    def _match(self, written: str) -> NameMatch:
        tokens = self._tokens(written)
        first, used = self._first(written, tokens)
        if first.player is None:
            return first
        named = self._listed(tokens, used, first.player)
        if len(named) < 2:
            return first
        # Issue 13: two players on one vote line; only the GM can say which, if either, was meant.
        return NameMatch(written, None, "ambiguous", first.score, first.player, first.score, named)

    def _tokens(self, written: str) -> list[str]:
        """The normalised words of `written`, separators and CJK name lists split apart."""
        key = _split(normalise(_BBCODE.sub(" ", written)))
        tokens = key.split()
        if self._cjk_keys and _has_cjk(key):
            tokens = [piece for token in tokens for piece in self._segment(token)]
        return tokens or [""]

    def _segment(self, token: str) -> list[str]:
        """"张三或李四" -> 张三, 或, 李四: Chinese writes a list without spaces. A name is split off
        only when a joiner or another name follows it ("张三丰" stays one word)."""
        pieces: list[str] = []
        rest = token
        while rest and rest not in self._exact and rest not in self._aliases:
            name = next((k for k in self._cjk_keys if rest.startswith(k) and len(rest) > len(k)
                         and (rest[len(k):].startswith(_CJK_JOINERS)
                              or any(rest[len(k):].startswith(o) for o in self._cjk_keys))), None)
            if name is None:
                break
            pieces.append(name)
            rest = rest[len(name):]
            joiner = next((j for j in _CJK_JOINERS if rest.startswith(j)), "")
            if joiner:
                pieces.append(joiner)
                rest = rest[len(joiner):]
        return pieces + ([rest] if rest else [])

    def _prefixes(self, tokens: list[str], start: int = 0) -> list[tuple[int, str]]:
        """(words used, comparison form) of the word prefixes from `start`, longest first; a
        prefix never ends on a separator ("alice ," is "alice")."""
        longest = min(len(tokens) - start, self._max_words + 1)
        return [(n, p) for n in range(longest, 0, -1)
                if normalise(last := tokens[start + n - 1])
                and (n == 1 or (last not in _ALTERNATIVES and last not in _JOINERS))
                and (p := self._whole(" ".join(tokens[start:start + n])))]

    def _whole(self, joined: str) -> str:
        key = normalise(joined)
        return self._unsplit.get(key, key)

    def _first(self, written: str, tokens: list[str]) -> tuple[NameMatch, int]:
        """The name a vote line starts with and how many words it used."""
        prefixes = self._prefixes(tokens)
        for used, prefix in prefixes:
            exact = self._exact_tiers(written, prefix)
            if exact:
                return exact, used
        best: NameMatch | None = None
        for used, prefix in prefixes:
            found = self._lookalike(written, prefix) or self._fuzzy(written, prefix)
            if found.how != "unknown":
                return found, used
            if best is None or found.runner_up_score > best.runner_up_score:
                best = found
        return best or NameMatch(written, None, "unknown", 0.0), 0

    def _listed(self, tokens: list[str], used: int, first: str) -> tuple[str, ...]:
        """The players named from the first one on, up to a sentence break (issue 13)."""
        named = [first]
        at = used
        while at < len(tokens) and not _ends_sentence(tokens[at - 1]):
            explicit = False
            while at < len(tokens) and (tokens[at] in _ALTERNATIVES or tokens[at] in _JOINERS):
                explicit = explicit or tokens[at] in _ALTERNATIVES
                at += 1
            if at == len(tokens) or tokens[at] in _BREAKS:
                break
            player, width = self._named_at(tokens, at, fuzzy=explicit)
            if player is None:
                break
            after = at + width
            ends = (after == len(tokens) or _ends_sentence(tokens[after - 1])
                    or tokens[after] in _ALTERNATIVES or tokens[after] in _JOINERS
                    or tokens[after] in _BREAKS)
            if not explicit and not ends:
                break  # "Alice, Bob never votes": the second name begins a comment
            if player not in named:
                named.append(player)
            at = after
        return tuple(named)

    def _named_at(self, tokens: list[str], start: int, fuzzy: bool) -> tuple[str | None, int]:
        """A player named exactly (or, with `fuzzy`, clearly misspelt) at tokens[start:]."""
        prefixes = self._prefixes(tokens, start)
        for used, prefix in prefixes:
            found = self._exact_tiers(prefix, prefix)
            if found is not None and found.player is not None:
                return found.player, used
        if fuzzy:
            for used, prefix in prefixes:
                found = self._fuzzy(prefix, prefix)
                if found.player is not None:
                    return found.player, used
        return None, 0

    def is_name(self, written: str) -> bool:
        """Whether `written` is, as a whole, a name the roster knows (exact, alias, resolution)."""
        found = self._exact_tiers(written, normalise(_BBCODE.sub(" ", written)))
        return found is not None and found.player is not None

    def _exact_tiers(self, written: str, key: str) -> NameMatch | None:
        if key in self._resolutions:
            player = self._resolutions[key]
            if player == "ignore":
                return NameMatch(written, None, "ignored")
            return NameMatch(written, player, "resolution")
        if key in self._exact:
            return NameMatch(written, self._exact[key], "exact")
        players = sorted(self._aliases.get(key, ()))
        if len(players) == 1:
            return NameMatch(written, players[0], "alias")
        if players:  # one alias, two players: only the GM can say
            return NameMatch(written, None, "ambiguous", 100.0, players[0], 100.0)
        return None

    def _lookalike(self, written: str, key: str) -> NameMatch | None:
        """Flag a name that matches only through Cyrillic/Greek lookalikes of Latin letters."""
        mixed = _mixes_scripts(key)
        skeleton = _skeleton(key)
        for roster_key, player in self._skeletons.get(skeleton, ()):
            if _scripts(roster_key) != _scripts(key):
                return NameMatch(written, None, "mixed_script", 0.0, player, 100.0)
        if not mixed:
            return None
        guess = self._fuzzy(written, skeleton)  # "looks like Alice" even with a typo
        if guess.how == "unknown":  # mixes scripts and resembles nobody: still never a match
            return NameMatch(written, None, "mixed_script", 0.0)
        return NameMatch(written, None, "mixed_script", 0.0, guess.player or guess.runner_up,
                         guess.score)

    def _fuzzy(self, written: str, key: str) -> NameMatch:
        ranked = self._ranked(key)
        if not ranked:
            return NameMatch(written, None, "unknown", 0.0)
        top, top_score = ranked[0]
        second, second_score = ranked[1] if len(ranked) > 1 else (None, 0.0)
        if len(key) < _MIN_FUZZY_LEN or top_score < self.threshold:
            return NameMatch(written, None, "unknown", 0.0, top, top_score)
        if top_score - second_score >= self.margin:
            return NameMatch(written, top, "fuzzy", top_score, second, second_score)
        # Two players close together: the GM decides (C2). runner_up names the closest one.
        return NameMatch(written, None, "ambiguous", top_score, top, top_score)

    def _ranked(self, key: str) -> list[tuple[str, float]]:
        """Players by their best key's similarity to `key`, best first (ties by name)."""
        best: dict[str, float] = {}
        for roster_key, player in self._keys:
            score = JaroWinkler.normalized_similarity(key, roster_key) * 100.0
            if score > best.get(player, -1.0):
                best[player] = score
        return sorted(best.items(), key=lambda item: (-item[1], item[0]))


def lookalike(text: str) -> str:
    """The form two names share when they look alike: normalised, with the Cyrillic and Greek
    letters that render as Latin ones read as those (`tally init` flags an account whose name
    looks like another poster's, issue 17)."""
    return _skeleton(normalise(text))
