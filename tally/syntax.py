"""Language packs: how votes are written on the boards tally reads (RULES.md C3, T-defaults).

A pack is a `VoteSyntax`. Vote words cast "<word>: X" or "<word> X"; the bare form (no colon, no
"##", no tag) reads like prose ("I will vote later"), so the extractor keeps it only when X is a
name from the roster (see tally.extract). Words are matched case-insensitively, as whole words
(CJK words excepted: Chinese writes "投票张三" without a space).

Joke markers are explicit tags only ("(joke)"), never bare words that could be part of a name:
a vote carrying one is void (K4 "clearly marked as a joke vote").

No-elimination words ("no lynch", "sleep") are left out of the packs: only a preset that allows a
no-elimination vote asks for them, with `pack(name, no_elimination=True)`.
"""

from __future__ import annotations

from dataclasses import replace

from tally.errors import InputError
from tally.game import VoteSyntax
from tally.model import msg

PACKS: dict[str, VoteSyntax] = {
    # The usual forum-mafia convention (C3) plus the plain forms.
    "en": VoteSyntax(
        vote_words=("##vote", "vote for", "vote"),
        unvote_words=("##unvote", "unvote"),
        tags=("vote",),
        joke_markers=("(joke)", "(jk)", "[joke]", "joke vote"),
        language="en",
    ),
    # La Ratonera (forosactivos): "Voto a X", "Voto: X", [voto]X[/voto].
    "es": VoteSyntax(
        vote_words=("voto a", "voto"),
        unvote_words=("retiro mi voto", "desvoto"),
        tags=("voto",),
        joke_markers=("(broma)", "[broma]", "voto de broma"),
        language="es",
    ),
    "fr": VoteSyntax(
        vote_words=("je vote pour", "je vote", "vote"),
        unvote_words=("je retire mon vote", "dévote"),
        tags=("vote",),
        joke_markers=("(blague)", "[blague]", "vote blague"),
        language="fr",
    ),
    # Invision mafia boards: "Голосую за X", "Голос: X".
    "ru": VoteSyntax(
        vote_words=("голосую за", "голос за", "голос"),
        unvote_words=("снимаю голос", "отменяю голос"),
        joke_markers=("(шутка)", "[шутка]", "шуточный голос"),
        language="ru",
    ),
    # RULES.md section 5 defaults: "投票 X" / "投票：X" casts, "取消投票" revokes.
    "zh": VoteSyntax(
        vote_words=("投票给", "投票", "票"),
        unvote_words=("取消投票",),
        joke_markers=("(玩笑)", "（玩笑）", "开玩笑"),
        language="zh",
    ),
}

NO_ELIMINATION: dict[str, tuple[str, ...]] = {
    "en": ("no lynch", "no elimination", "no one", "nolynch", "sleep"),
    "es": ("no linchamiento", "no eliminación", "nadie"),
    "fr": ("pas de lynchage", "pas d'élimination", "personne"),
    "ru": ("никого", "без линча"),
    "zh": ("弃票", "不处决"),
}


# What a GM writes where a name goes when he shows the vote format ("Para votar escribid: Voto:
# Nombre", "Format: ##vote PlayerName", "投票 X"), in the comparison form of tally.names.normalise
# (brackets and quotes around them fall away: "<name>", "[Nombre]"). A vote for one of these is
# a format example, not a vote (C4), unless the roster has a player of that name.
PLACEHOLDERS: dict[str, frozenset[str]] = {
    "en": frozenset({"name", "playername", "player name", "player's name", "name of the player",
                     "player", "username", "user name", "someone", "somebody", "target",
                     "target's name"}),
    "es": frozenset({"nombre", "jugador", "jugadora", "nombre del jugador", "nombre de jugador",
                     "nombredeljugador", "nombre del jugador votado", "alguien", "fulano",
                     "fulanito"}),
    "fr": frozenset({"nom", "pseudo", "joueur", "joueuse", "nom du joueur", "pseudo du joueur",
                     "quelqu'un"}),
    "ru": frozenset({"ник", "игрок", "имя", "ник игрока", "имя игрока", "никнейм", "кто-то"}),
    "zh": frozenset({"某人", "某某", "某玩家", "玩家", "玩家名", "玩家名字", "玩家昵称", "名字",
                     "昵称", "id"}),
}
# The same in every language: "Vote: X", "投票 X", "Voto: XXX".
COMMON_PLACEHOLDERS = frozenset({"x", "xx", "xxx"})


def with_words_of(syntax: VoteSyntax, other: VoteSyntax) -> VoteSyntax:
    """`syntax` also taking `other`'s vote, revoke, tag, no-elimination and joke words (the
    board's language beside the preset's); its own language and choices stay."""
    def both(name: str) -> tuple[str, ...]:
        return tuple(dict.fromkeys(getattr(syntax, name) + getattr(other, name)))

    return replace(syntax, vote_words=both("vote_words"), unvote_words=both("unvote_words"),
                   tags=both("tags"), no_elimination=both("no_elimination"),
                   joke_markers=both("joke_markers"))


def placeholders(language: str | None) -> frozenset[str]:
    """The format placeholders of a language pack (English when the syntax names none)."""
    return COMMON_PLACEHOLDERS | PLACEHOLDERS.get(language or "en", PLACEHOLDERS["en"])


def pack(name: str, *, no_elimination: bool = False) -> VoteSyntax:
    """The language pack `name`; with `no_elimination`, its no-elimination words as well."""
    try:
        syntax = PACKS[name]
    except KeyError:
        known = ", ".join(sorted(PACKS))
        raise InputError(f"unknown vote language {name!r} (known: {known})") from None
    if no_elimination:
        syntax = replace(syntax, no_elimination=NO_ELIMINATION[name])
    return syntax


# Examples for the preset defaults notes of the vote grammar (issue 13), per pack: a command, a
# sentence that only mentions the word, a line that names two players, and a comment after one.
_GRAMMAR_EXAMPLES: dict[str, tuple[str, str, str, str]] = {
    "en": ("'unvote', 'I vote for Bob'", "'Why the unvote, José?'", "'vote: Alice or Bob'",
           "'vote: Alice, Bob never votes'"),
    "es": ("'Retiro mi voto', 'Voto a Ana'", "'No sé por qué dices que retiro mi voto'",
           "'Voto: Ana o Luis'", "'Voto: Ana, Luis nunca vota'"),
    # Each language's own quotes: the note is read in that language (issue 14).
    "fr": ("« Je retire mon vote », « Je vote pour Luc »", "« Tu crois que je retire mon vote ? »",
           "« vote: Luc ou Zoé »", "« vote: Luc, Zoé ne vote jamais »"),
    "ru": ("«Снимаю голос», «Голосую за Вову»", "«Думаешь, я снимаю голос?»",
           "«Голос: Алиса или Вова»", "«Голос: Алиса, Вова никогда не голосует»"),
    "zh": ("“取消投票”、“投票 张三”", "“你为什么取消投票”", "“投票：张三或李四”",
           "“投票：张三，李四从来不投票”"),
}


def grammar_notes(language: str | None) -> tuple[str, ...]:
    """What the vote grammar assumes where no rulebook says how votes are written (issue 13),
    for the GM report's preset defaults, with the pack's own examples."""
    command, prose, two, comment = _GRAMMAR_EXAMPLES.get(language or "en", _GRAMMAR_EXAMPLES["en"])
    # Messages (tally.model.msg): the GM report gives them in the game's language (issue 14).
    return (
        msg("vote grammar (default): a revoke, or a vote word without a colon, is a command at "
            "the start of a line, sentence, bold span or 'but'/'so' clause ({command}); inside a "
            "sentence or in a question it is prose and changes nothing ({prose}); colon forms, "
            "'##' forms and tags are commands wherever they stand", command=command, prose=prose),
        msg("C2 (default): a vote line naming two or more players before a sentence break "
            "({two}) counts for nobody and goes to the GM with the names; a second name followed "
            "directly by more words begins a comment, and the vote counts for the first "
            "({comment})", two=two, comment=comment),
    )
