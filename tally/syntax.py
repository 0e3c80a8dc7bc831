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
