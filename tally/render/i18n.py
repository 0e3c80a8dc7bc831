"""The output language of a count (issue 14): gettext catalogues and CLDR, through Babel.

    tally/locale/<lang>/LC_MESSAGES/tally.po   the translations, written by hand
    tally/locale/<lang>/LC_MESSAGES/tally.mo   compiled by `pybabel compile` (shipped in the wheel)
    tally/locale/tally.pot                     the message ids, extracted by `pybabel extract`

English is the message ids themselves and needs no catalogue. A sixth language is one more
folder with its tally.po and tally.mo: `languages()` lists the folders, no code names a language.
Plural forms come from each .po's Plural-Forms header (Russian three, Chinese one); dates,
times and numbers from CLDR in that language (Babel), through tally.times. The date patterns
themselves are messages, so each language writes a time in its forum's own style.

Names, quotes and the forum's text are parameters and are never translated: a renderer passes
them through its markup's `clean` (tally.render.neutral) and nothing else.
"""

from __future__ import annotations

import gettext
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from babel import Locale
from babel.numbers import format_decimal
from babel.support import Translations

from tally import times
from tally.errors import GameFileError, InputError
from tally.model import Message

if TYPE_CHECKING:
    from tally.game import Game

DOMAIN = "tally"
LOCALE_DIR = Path(__file__).resolve().parent.parent / "locale"
SOURCE = "en"  # the language of the message ids

Clean = Callable[[str], str]


def _same(text: str) -> str:
    return text


def languages() -> tuple[str, ...]:
    """Every language with a compiled catalogue, and English."""
    found = {p.parent.parent.name for p in LOCALE_DIR.glob(f"*/LC_MESSAGES/{DOMAIN}.mo")}
    return tuple(sorted(found | {SOURCE}))


def check(code: str) -> str:
    if code not in languages():
        raise InputError(f"unknown language {code!r} (known: {', '.join(languages())})")
    return code


@dataclass(frozen=True)
class Lang:
    """One output language: its catalogue and its CLDR locale."""

    code: str
    catalogue: gettext.NullTranslations
    locale: Locale

    def _(self, msgid: str, /, **params: object) -> str:
        """`msgid` in this language with its {fields} filled. String parameters go in as given:
        the caller has already made a name safe for its markup."""
        return self._fill(self.catalogue.gettext(msgid), params, _same)

    def n_(self, singular: str, plural: str, /, **params: object) -> str:
        """The plural form for the count `n`."""
        count = params["n"]
        assert isinstance(count, int)
        return self._fill(self.catalogue.ngettext(singular, plural, count), params, _same)

    def p_(self, context: str, msgid: str) -> str:
        """A short word or separator whose English alone is ambiguous."""
        return self.catalogue.pgettext(context, msgid)

    def text(self, said: str, clean: Clean = _same) -> str:
        """What the rules said (a Message) in this language, every name in it passed through
        `clean`; a plain string (the forum's text, a name, an older English note) only cleaned."""
        if not isinstance(said, Message):
            return clean(said)
        if said.plural is not None:
            count = said.params.get("n")
            template = self.catalogue.ngettext(said.msgid, said.plural,
                                               count if isinstance(count, int) else 2)
        else:
            template = self.catalogue.gettext(said.msgid)
        return self._fill(template, said.params, clean)

    def number(self, value: int) -> str:
        """An integer in the language's digits (CLDR), never grouped: post numbers stay whole."""
        return format_decimal(value, locale=self.locale, group_separator=False)

    def names(self, names: Iterable[str], clean: Clean = _same) -> str:
        """Names one after another, with the language's separator ("a, b"; Chinese "甲、乙")."""
        return self.p_("between names", ", ").join(clean(n) for n in names)

    def timef(self, utc: datetime, zone: str, pattern: str) -> str:
        """`utc` on the forum's clock; `pattern` is a CLDR pattern message, so the catalogue
        gives each language its own layout ("EEE d MMM, HH:mm" -> "sáb 21 nov, 22:00")."""
        return times.format_local(utc, zone, self.catalogue.gettext(pattern), str(self.locale))

    def _fill(self, template: str, params: object, clean: Clean) -> str:
        assert isinstance(params, dict) or hasattr(params, "items")
        return template.format(**{k: self._param(v, clean) for k, v in params.items()})  # type: ignore[attr-defined]

    def _param(self, value: object, clean: Clean) -> str:
        if isinstance(value, Message):
            return self.text(value, clean)
        if isinstance(value, str):
            return clean(value)
        if isinstance(value, bool):
            return str(value)
        if isinstance(value, int):
            return self.number(value)
        if isinstance(value, tuple):  # names, or the rules' phrases, one after another
            return self.p_("between names", ", ").join(self._param(v, clean) for v in value)
        return str(value)


def language_for(game: Game, given: str | None = None) -> str:
    """The language a game's count is written in: `--lang`, else the game file's `language`,
    else its preset's home language (espia, lupus: es; mafia-ru: ru; trigger-cn: zh; kira,
    majority: en)."""
    from tally import rules

    if given is not None:
        return check(given)
    if game.language is not None:
        if game.language not in languages():
            line = game.lines.get("language")
            raise GameFileError(f"{game.path}{f':{line}' if line else ''}: language: "
                                f"unknown language {game.language!r} "
                                f"(known: {', '.join(languages())})")
        return game.language
    return check(rules.get(game.preset).language)


@lru_cache(maxsize=16)
def get(code: str = SOURCE) -> Lang:
    """The language `code` (checked against the catalogues found)."""
    check(code)
    if code == SOURCE:
        catalogue: gettext.NullTranslations = gettext.NullTranslations()
    else:
        catalogue = Translations.load(str(LOCALE_DIR), [code], DOMAIN)
    return Lang(code, catalogue, Locale.parse(code))

