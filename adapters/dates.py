"""The one reader of dates as forums show them: shown text -> naive wall time (DESIGN.md "Time").

Every engine shows its post times as text in the board's language and zone ("Dom 17 Ene 2016,
12:02", "09 October 2017 - 23:20", "02 juin 2026 à 22:25:06", "Вчера, 21:58", "2009-8-16
20:46", "3 天前"). This module reads all of them with one tokenizer and one grammar; the names
of months, weekdays and relative words of en/es/fr/ru/zh (and the it/pt/de words boards of the
same engines use) are data below. The result is a naive wall time in the board's zone, plus the
span the real time lies in; tally.times localises it (the only module with zoneinfo and the
clock). Relative forms ("Hoy", "Hier à", "Сегодня", "昨天", "5 minutes ago") are resolved against
the page's fetch time, given as a naive wall time in the board's zone.

Tolerant of what varies between boards and language packs: abbreviated or full names, accents
or none, trailing dots ("ene.", "janv."), weekday prefixes, 12/24-hour clocks, optional seconds,
the separators "à", "a las", "в", "at", "-", ",". Strict where a wrong answer would change a
count: a text it cannot read in full gives None (the engine then names the text and the post in
its error), never a guess; 31 February is no date.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from functools import lru_cache
from typing import NamedTuple

# ---------------------------------------------------------------------------------------------
# Names, as data. Keys are folded (casefolded, accents and a trailing dot removed).

_MONTHS_BY_LANGUAGE = {
    "en": ("january february march april may june july august september october november "
           "december", "jan feb mar apr may jun jul aug sep oct nov dec",
           "- - - - - - - - sept - - -"),
    "es": ("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre "
           "diciembre", "ene feb mar abr may jun jul ago sep oct nov dic",
           "- - - - - - - - sept - - -", "- - - - - - - - set - - -",
           "- - - - - - - - setiembre - - -"),
    "fr": ("janvier fevrier mars avril mai juin juillet aout septembre octobre novembre "
           "decembre", "janv fevr mars avr mai juin juil aout sept oct nov dec",
           "jan fev mar avr mai jun jul aou sep oct nov dec"),
    # Russian: nominative, genitive ("9 октября") and abbreviations.
    "ru": ("январь февраль март апрель май июнь июль август сентябрь октябрь ноябрь декабрь",
           "января февраля марта апреля мая июня июля августа сентября октября ноября декабря",
           "янв фев мар апр май июн июл авг сен окт ноя дек",
           "- февр - - - - - - сент - нояб -"),
    "zh": ("一月 二月 三月 四月 五月 六月 七月 八月 九月 十月 十一月 十二月",),
    "it": ("gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre "
           "novembre dicembre", "gen feb mar apr mag giu lug ago set ott nov dic"),
    "pt": ("janeiro fevereiro marco abril maio junho julho agosto setembro outubro novembro "
           "dezembro", "jan fev mar abr mai jun jul ago set out nov dez"),
    "de": ("januar februar marz april mai juni juli august september oktober november dezember",
           "jan feb mar apr mai jun jul aug sep okt nov dez"),
    # Boards of these languages stopped with exit 4 on every date (CLDR's names, as babel
    # gives them; phpBB's nl pack abbreviates March "maart", Polish and Czech packs print the
    # genitive: "czwartek, 28 lutego 2008, 21:42" on a real phpBB 3 board).
    "nl": ("januari februari maart april mei juni juli augustus september oktober november "
           "december", "jan feb mrt apr mei jun jul aug sep okt nov dec"),
    "pl": ("styczeń luty marzec kwiecień maj czerwiec lipiec sierpień wrzesień październik "
           "listopad grudzień", "stycznia lutego marca kwietnia maja czerwca lipca sierpnia "
           "września października listopada grudnia",
           "sty lut mar kwi maj cze lip sie wrz paź lis gru"),
    "ro": ("ianuarie februarie martie aprilie mai iunie iulie august septembrie octombrie "
           "noiembrie decembrie", "ian feb mar apr mai iun iul aug sept oct noi dec"),
    "tr": ("ocak şubat mart nisan mayıs haziran temmuz ağustos eylül ekim kasım aralık",
           "oca şub mar nis may haz tem ağu eyl eki kas ara"),
    "cs": ("leden únor březen duben květen červen červenec srpen září říjen listopad prosinec",
           "ledna února března dubna května června července srpna září října listopadu "
           "prosince", "led úno bře dub kvě čvn čvc srp zář říj lis pro"),
}
_WEEKDAYS_BY_LANGUAGE = {  # Monday first
    "en": ("monday tuesday wednesday thursday friday saturday sunday",
           "mon tue wed thu fri sat sun", "- tues - thur - - -", "- - - thurs - - -"),
    "es": ("lunes martes miercoles jueves viernes sabado domingo",
           "lun mar mie jue vie sab dom", "- - mier - - - -", "lu ma mi ju vi sa do"),
    "fr": ("lundi mardi mercredi jeudi vendredi samedi dimanche",
           "lun mar mer jeu ven sam dim"),
    "ru": ("понедельник вторник среда четверг пятница суббота воскресенье",
           "- - среду - пятницу субботу -",  # "в среду"
           "пн вт ср чт пт сб вс", "пон вто сре чет пят суб вос"),
    "zh": ("星期一 星期二 星期三 星期四 星期五 星期六 星期日", "周一 周二 周三 周四 周五 周六 周日",
           "- - - - - - 星期天", "- - - - - - 周天"),
    "it": ("lunedi martedi mercoledi giovedi venerdi sabato domenica",
           "lun mar mer gio ven sab dom"),
    "pt": ("segunda terca quarta quinta sexta sabado domingo", "seg ter qua qui sex sab dom"),
    "de": ("montag dienstag mittwoch donnerstag freitag samstag sonntag",
           "mo di mi do fr sa so"),
    "nl": ("maandag dinsdag woensdag donderdag vrijdag zaterdag zondag",
           "ma di wo do vr za zo"),
    "pl": ("poniedziałek wtorek środa czwartek piątek sobota niedziela",
           "pon wt śr czw pt sob niedz", "pn - - - - - nd", "- - - cz - so -",
           "- wto śro - pią - nie", "- - - - - - ndz"),  # three-letter forms of Forumotion
    "ro": ("luni marți miercuri joi vineri sâmbătă duminică", "lun mar mie joi vin sâm dum"),
    "tr": ("pazartesi salı çarşamba perşembe cuma cumartesi pazar",
           "pzt sal çar per cum cmt paz", "ptesi - çarş perş - ctesi -"),
    "cs": ("pondělí úterý středa čtvrtek pátek sobota neděle",),
}
# Day words: how many days before the fetch date they name ("Hoy a las 21:58": 0).
_DAY_WORDS_BY_LANGUAGE = {
    "en": {"today": 0, "yesterday": 1},
    "es": {"hoy": 0, "ayer": 1, "anteayer": 2},
    "fr": {"aujourd'hui": 0, "hier": 1, "avant-hier": 2},
    "ru": {"сегодня": 0, "вчера": 1, "позавчера": 2},
    "zh": {"今天": 0, "昨天": 1, "前天": 2},
    "it": {"oggi": 0, "ieri": 1},
    "pt": {"hoje": 0, "ontem": 1},
    "de": {"heute": 0, "gestern": 1, "vorgestern": 2},
    "nl": {"vandaag": 0, "gisteren": 1, "eergisteren": 2},
    "pl": {"dzisiaj": 0, "dziś": 0, "wczoraj": 1, "przedwczoraj": 2},
    "ro": {"azi": 0, "astăzi": 0, "ieri": 1, "alaltăieri": 2},
    "tr": {"bugün": 0, "dün": 1},
    "cs": {"dnes": 0, "včera": 1, "předevčírem": 2},
}
# Words that may stand between the parts of a date and its clock, and carry no meaning:
# "17 de Enero de 2016", "Hoy a las 21:58", "à 22:25", "в 21:58", "Today at", "el", "um",
# "2017 г., 23:20", "1er février", Chinese "日"/"号" after the day.
_FILLERS = frozenset((
    "de", "del", "a", "las", "la", "el", "le", "les", "à", "a", "at", "on", "в", "во", "г",
    "года", "um", "alle", "às", "as", "er", "о", "om", "il", "the", "of", "年", "月", "日", "号",
    "o", "v", "ve", "ora", "saat",  # pl "o 21:42", cs "v 21:42", ro "ora", tr "saat"
))
_JUST_NOW_WORDS = (
    "just now", "now", "less than a minute ago", "a moment ago", "hace un momento",
    "hace menos de un minuto", "ahora", "ahora mismo", "à l'instant", "a l'instant",
    "maintenant", "il y a moins d'une minute", "moins d'une minute", "только что", "刚刚", "剛剛",
    "adesso", "agora", "vor weniger als einer minute", "minder dan een minuut geleden",
    "mniej niż minutę temu", "meno di un minuto fa", "há menos de um minuto",
    "acum mai puțin de un minut", "bir dakikadan az önce", "az önce", "zojuist", "teraz",
)
# Relative durations: unit word (folded, any ending) -> timedelta keyword.
_UNITS = (
    ("seconds", ("second", "sec", "s", "segundo", "seconde", "секунд", "сек", "秒", "sekund",
                 "saniye")),
    ("minutes", ("minute", "min", "mn", "minuto", "минут", "мин", "分钟", "分鐘", "分", "minut",
                 "minuut", "dakika")),
    ("hours", ("hour", "h", "hr", "hora", "heure", "час", "小时", "小時", "個小時", "个小时", "stunde",
               "uur", "godzin", "ore", "ora", "saat")),
    ("days", ("day", "dia", "jour", "j", "день", "дня", "дней", "сутки", "суток", "天", "tag",
              "dag", "dni", "dzien", "zile", "gun")),
)


@lru_cache(maxsize=4096)  # a board repeats the same few names on every post
def fold(word: str) -> str:
    """Casefold, strip accents and a trailing dot; ’ becomes ': 'Févr.' -> 'fevr'.

    Cyrillic й and ё keep their marks (folding them would merge distinct letters)."""
    word = word.strip().rstrip(".").casefold().replace("’", "'")
    if word.isascii():
        return word
    decomposed = unicodedata.normalize("NFD", word)
    kept = [c for i, c in enumerate(decomposed)
            if not unicodedata.combining(c) or (i and decomposed[i - 1] in "иеИЕ")]
    return unicodedata.normalize("NFC", "".join(kept))


def _table(by_language: dict[str, tuple[str, ...]]) -> dict[str, frozenset[int]]:
    """Folded name -> every number it may mean ("mar": March, or Tuesday in es/fr)."""
    table: dict[str, set[int]] = {}
    for rows in by_language.values():
        for row in rows:
            for number, name in enumerate(row.split(), start=1):
                if name != "-":
                    table.setdefault(fold(name), set()).add(number)
    return {name: frozenset(numbers) for name, numbers in table.items()}


MONTHS = _table(_MONTHS_BY_LANGUAGE)
_JUST_NOW = frozenset(fold(phrase) for phrase in _JUST_NOW_WORDS)
WEEKDAYS = _table(_WEEKDAYS_BY_LANGUAGE)  # 1 = Monday
DAY_WORDS = {fold(w): n for words in _DAY_WORDS_BY_LANGUAGE.values() for w, n in words.items()}


# ---------------------------------------------------------------------------------------------
# What a shown time says


@dataclass(frozen=True, slots=True)
class ShownTime:
    """A shown time read as a naive wall time in the board's zone."""

    at: datetime  # the wall time to use
    earliest: datetime  # the real time lies in [earliest, latest] (a clock without seconds
    latest: datetime  # covers its minute; "3 天前" a whole day)
    relative: bool  # read against the fetch time ("Hoy", "3 minutes ago", a date without year)
    has_time: bool  # False for a date without a time of day (read as 00:00)
    text: str  # the part of the input that was read

    @property
    def precise(self) -> bool:
        """To the minute or better."""
        return self.latest - self.earliest < timedelta(minutes=1)


def _exact(at: datetime, text: str, relative: bool) -> ShownTime:
    return ShownTime(at, at, at, relative, True, text)


def _minute(at: datetime, seconds_shown: bool, text: str, relative: bool) -> ShownTime:
    latest = at if seconds_shown else at + timedelta(seconds=59)
    return ShownTime(at, at, latest, relative, True, text)


# ---------------------------------------------------------------------------------------------
# Tokens

_CLOCK = (r"(?<![\d:])(?P<h>\d{1,2})[:hH](?P<mi>\d{2})(?::(?P<s>\d{2}))?(?![\d:])"
          r"(?:\s*(?P<ampm>[aApP])\.?\s?[mM]\b\.?)?")
_CLOCKS = re.compile(_CLOCK)
# Digits with their separators ("12:02", "2009-8-16", "09.10.2017", "21h58") and an am/pm
# after them, or a word: what each is, Python tells from the separators (cheaper than one
# alternative per kind in the pattern).
_TOKENS = re.compile(r"(\d+(?:[:hH./-]\d+)*)(\s*[aApP]\.?\s?[mM]\b\.?)?"
                     r"|([^\W\d_]+(?:['’-][^\W\d_]+)*\.?)")
_NUMERIC_PARTS = re.compile(r"\d+")
_WINDOW = 100  # characters before a clock that its date may take ("Miércoles 20 de …")


class _Token(NamedTuple):
    kind: str  # clock, ymd, dmy, number, word
    text: str
    start: int
    end: int
    value: tuple[int, ...] = ()  # clock (h, m, s, seconds shown); ymd/dmy (y, m, d); number
    folded: str = ""


def _clock_value(parts: list[str], ampm: str | None) -> tuple[int, ...] | None:
    """(hour, minute, second, seconds shown) of "12:02", "21h58", "22:25:06" + "pm"."""
    if len(parts) not in (2, 3) or len(parts[0]) > 2 or any(len(p) != 2 for p in parts[1:]):
        return None
    hour = int(parts[0])
    if ampm:  # 'g:i a': 12 am is midnight, 12 pm is noon; "13:00 pm" is no time
        hour = hour % 12 + (12 if ampm.strip()[0] in "pP" else 0) if 1 <= hour <= 12 else 99
    return (hour, int(parts[1]), int(parts[2]) if len(parts) == 3 else 0, len(parts) == 3)


_ZEROS = str.maketrans("123456789", "000000000")


def _tokens(text: str) -> list[_Token]:
    """The tokens of `text`. A board prints every post's time in one format: the text with
    its digits zeroed is the same on every post, so what each token is (and every word's
    folding) is worked out once per shape and only the numbers are read again."""
    out: list[_Token] = []
    append = out.append
    for kind, start, end, digits_end, extra in _shape_tokens(text.translate(_ZEROS)):
        if kind == "word" or kind == "junk":
            append(_Token(kind, text[start:end], start, end, (), extra))
        elif kind == "number":
            append(_Token(kind, text[start:end], start, end, (int(text[start:end]),)))
        elif kind == "clock":
            value = _clock_value(_CLOCK_PARTS.split(text[start:digits_end]), extra)
            append(_Token("clock", text[start:end], start, end, value) if value is not None
                   else _Token("junk", text[start:end], start, end))
        else:
            parts = tuple(int(n) for n in _NUMERIC_PARTS.findall(text[start:end]))
            append(_Token(kind, text[start:end], start, end, parts))
    return out


_CLOCK_PARTS = re.compile(r"[:hH]")
Shape = tuple[tuple[str, int, int, int, str], ...]


@lru_cache(maxsize=512)
def _shape_tokens(shape: str) -> Shape:
    """(kind, start, end, end of the digits, folded word or am/pm text) of each token of a
    text whose digits are all zeros."""
    out = []
    for found in _TOKENS.finditer(shape):
        digits, ampm, word = found.groups()
        start, end = found.start(), found.end()
        if word is not None:
            out.append(("word", start, end, end, fold(word)))
            continue
        digits_end = found.end(1)
        if ampm is not None and ":" not in digits and "h" not in digits.lower():
            end = digits_end  # "5 am…" is no clock: the number, then the word
            ampm = None
            out.append(("number" if digits.isdigit() else "junk", start, end, end, ""))
            word_found = _TOKENS.match(shape, found.start(2) + len(found.group(2)) - len(
                found.group(2).lstrip()))
            if word_found is not None and word_found.group(3):
                out.append(("word", word_found.start(), word_found.end(), word_found.end(),
                            fold(word_found.group(3))))
            continue
        if digits.isdigit():
            out.append(("number", start, end, end, ""))
        elif ":" in digits or "h" in digits or "H" in digits:
            plain = "." not in digits and "-" not in digits and "/" not in digits
            parts = _CLOCK_PARTS.split(digits)
            fits = len(parts) in (2, 3) and len(parts[0]) <= 2 and all(len(x) == 2 for x in parts[1:])
            out.append(("clock" if plain and fits else "junk", start, end, digits_end, ampm or ""))
        else:
            parts = _NUMERIC_PARTS.findall(digits)
            separators = set(digits) - {"0"}
            three = len(parts) == 3 and len(separators) == 1
            if three and len(parts[0]) == 4 and len(parts[1]) <= 2 and len(parts[2]) <= 2:
                out.append(("ymd", start, end, end, ""))
            elif three and len(parts[2]) == 4 and len(parts[0]) <= 2 and len(parts[1]) <= 2:
                out.append(("dmy", start, end, end, ""))
            else:
                out.append(("junk", start, end, end, ""))
    return tuple(out)


# ---------------------------------------------------------------------------------------------
# Relative durations ("5 minutes ago", "hace 5 minutos", "il y a 5 min", "5 минут назад",
# "5 分钟前", "半小时前")

_COUNT = r"(?:(?P<n>\d+)\s*|(?P<w>an?|one|un|une|una|uno|одну|один|одна)\s+)?"
_AGO_BEFORE = re.compile(rf"^(?:hace|il y a|há|ha|vor|acum)\s+{_COUNT}(?P<unit>[^\W\d_]+)$")
_AGO_AFTER = re.compile(
    rf"^{_COUNT}(?P<unit>[^\W\d_]+)\s+(?:ago|назад|atrás|fa|geleden|temu|önce|once)$")
_AGO_ZH = re.compile(r"^(?P<n>\d+)\s*(?P<unit>秒|分钟|分鐘|小时|小時|天)前$")
_HALF_HOUR = re.compile(r"^(?:半小[时時]前|half an hour ago|hace media hora|il y a une demi-heure"
                        r"|полчаса назад)$")


@lru_cache(maxsize=256)  # a handful of unit words, on every relative time
def _unit_of(word: str) -> str | None:
    for unit, stems in _UNITS:
        for stem in stems:
            if word == stem or (len(stem) > 2 and word.startswith(stem)) or (
                    len(stem) <= 2 and word in (stem + "s",)):
                return unit
    return None


def _ago(folded: str, now: datetime) -> ShownTime | None:
    if folded in _JUST_NOW:
        return _exact(now, folded, True)
    if _HALF_HOUR.match(folded):  # 30 to 60 minutes old (Discuz dgmdate)
        at = now - timedelta(minutes=30)
        return ShownTime(at, now - timedelta(minutes=60), at, True, True, folded)
    found = _AGO_BEFORE.match(folded) or _AGO_AFTER.match(folded) or _AGO_ZH.match(folded)
    if not found:
        return None
    unit = _unit_of(found["unit"])
    if unit is None:
        return None
    count = int(found["n"]) if found["n"] else 1  # "an hour ago", "минуту назад"
    if unit == "days" and found.re is _AGO_ZH:
        # "N 天前" names the calendar day N days before today, not the hour (Discuz dgmdate).
        day = now.date() - timedelta(days=count)
        at = datetime(day.year, day.month, day.day)
        return ShownTime(at, at, at + timedelta(days=1, seconds=-1), True, True, folded)
    at = now - timedelta(**{unit: count})
    # The forum rounds elapsed time down to whole units: the post is N to N+1 units old.
    slack = {"seconds": timedelta(0), "minutes": timedelta(seconds=59),
             "hours": timedelta(minutes=59, seconds=59), "days": timedelta(days=1, seconds=-1)}
    return ShownTime(at, at - slack[unit], at, True, True, folded)


# ---------------------------------------------------------------------------------------------
# The grammar, read backwards from the clock (or from the end of a date-only text):
#     [weekday] (day [month] | month day) [year] [fillers] clock
#     [weekday] ymd | dmy [fillers] clock
#     day-word [fillers] clock                    ("Hoy a las", "Вчера в", "昨天")
#     weekday [fillers] clock                     ("Пятница в 18:40": the last such day)


@dataclass(frozen=True, slots=True)
class Options:
    day_first: bool = True  # "10/09/2017": 10 September (False: October 9, US English IPS 4)
    bare_clock: bool = False  # "21:58" alone is today's (JV lists)


_DEFAULT = Options()


def _nearest_year(now: datetime, month: int, day: int) -> int:
    """A date shown without its year is the latest such date not after the fetch day (a day
    of slack for a board clock ahead of ours)."""
    if (month, day) > (now.month, now.day + 1):
        return now.year - 1
    return now.year


def _date(year: int, month: int, day: int) -> date | None:
    try:
        return date(year, month, day)
    except ValueError:
        return None


class _Span:
    """One backward reading of the tokens before a clock (or the end)."""

    def __init__(self, tokens: list[_Token], end: int, now: datetime, options: Options) -> None:
        self.tokens, self.end, self.now, self.options = tokens, end, now, options

    def read(self) -> tuple[date, int, bool] | tuple[int, int] | None:
        """(date, index of the first token used, year missing) for an absolute date;
        ("days back", index) for a day word or weekday; None when nothing reads."""
        i = self.end - 1
        while i >= 0 and self.tokens[i].kind == "word" and self.tokens[i].folded in _FILLERS:
            i -= 1
        if i < 0:
            return None
        token = self.tokens[i]
        if token.kind == "word" and token.folded in DAY_WORDS:
            return (DAY_WORDS[token.folded], i)
        if token.kind == "word" and token.folded in WEEKDAYS and token.folded not in MONTHS:
            j = self._skip_fillers(i - 1)
            if j >= 0 and self.tokens[j].kind != "word":  # "13 Mayıs 2020 Çar, 10:00" (tr)
                after = _Span(self.tokens, j + 1, self.now, self.options).read()
                if after is not None and len(after) == 3:
                    return after
            if len(WEEKDAYS[token.folded]) != 1:
                return None  # "ma 18:40": Monday (nl) or Tuesday (es); no guess
            weekday = min(WEEKDAYS[token.folded]) - 1
            back = (self.now.weekday() - weekday) % 7 or 7  # the last such day before today
            return (back, i)
        if token.kind in ("ymd", "dmy"):
            if token.kind == "ymd":
                year, month, day = token.value
            else:  # "09.10.2017" is always day first; "10/09/2017" as the board writes it
                a, b, year = token.value
                slashed = "/" in token.text
                day, month = (a, b) if self.options.day_first or not slashed else (b, a)
            found = _date(year, month, day)
            return (found, self._weekday_before(i), False) if found else None
        return self._wordy(i)

    def _weekday_before(self, i: int) -> int:
        j = i - 1
        while j >= 0 and self.tokens[j].kind == "word" and self.tokens[j].folded in _FILLERS:
            j -= 1
        if j >= 0 and self.tokens[j].kind == "word" and self.tokens[j].folded in WEEKDAYS:
            return j
        return i

    def _wordy(self, i: int) -> tuple[date, int, bool] | None:
        """day month [year], month day [year], weekday first; read from the right."""
        year: int | None = None
        token = self.tokens[i]
        if token.kind == "number" and token.value[0] >= 1000:
            year = token.value[0]
            i = self._skip_fillers(i - 1)
            if i < 0:
                return None
            token = self.tokens[i]
        if token.kind == "number":  # "Jan 17, 2016": the day, the month before it
            day = token.value[0]
            j = self._skip_fillers(i - 1)
            month = self._month_at(j)
            if month is None:
                return None
            first = j
        elif token.kind == "word":  # "17 Ene 2016", "17 de Enero de 2016", "9 октября"
            month = self._month_at(i)
            j = self._skip_fillers(i - 1)
            if month is None or j < 0 or self.tokens[j].kind != "number":
                return None
            day = self.tokens[j].value[0]
            first = j
        else:
            return None
        found = _date(year if year is not None else _nearest_year(self.now, month, day),
                      month, day)
        if found is None:
            return None
        k = self._skip_fillers(first - 1)
        if k >= 0 and self.tokens[k].kind == "word" and self.tokens[k].folded in WEEKDAYS:
            first = k
        return found, first, year is None

    def _skip_fillers(self, i: int) -> int:
        while i >= 0 and self.tokens[i].kind == "word" and self.tokens[i].folded in _FILLERS:
            i -= 1
        return i

    def _month_at(self, i: int) -> int | None:
        if i < 0 or self.tokens[i].kind != "word":
            return None
        numbers = MONTHS.get(self.tokens[i].folded)
        return min(numbers) if numbers and len(numbers) == 1 else None


def _read_at(tokens: list[_Token], clock_index: int | None, end: int, now: datetime,
             text: str, options: Options) -> tuple[ShownTime, int] | None:
    """The time whose date part ends at token `end` (exclusive) and whose clock, if any, is
    token `clock_index`; with the index of its first token."""
    clock = tokens[clock_index] if clock_index is not None else None
    if clock is not None:
        hour, minute, second, seconds_shown = clock.value
        if hour > 23 or minute > 59 or second > 59:
            return None
    span = _Span(tokens, end, now, options).read()
    last = clock if clock is not None else tokens[end - 1] if end else None
    if span is None:
        if clock is not None and options.bare_clock and end == 0:
            at = datetime(now.year, now.month, now.day, hour, minute, second)
            return _minute(at, bool(seconds_shown), clock.text, True), clock_index or 0
        return None
    if len(span) == 2:  # a day word or a weekday: days back from the fetch date
        back, first = span  # type: ignore[misc]
        if clock is None:
            return None  # "Hoy" alone says no time of day
        day = now.date() - timedelta(days=back)
        at = datetime(day.year, day.month, day.day, hour, minute, second)
        shown = text[tokens[first].start: clock.end]
        return _minute(at, bool(seconds_shown), shown, True), first
    found, first, year_missing = span  # type: ignore[misc]
    assert last is not None
    shown = text[tokens[first].start: last.end]
    if clock is None:
        at = datetime(found.year, found.month, found.day)
        return ShownTime(at, at, at + timedelta(days=1, seconds=-1), year_missing, False,
                         shown), first
    at = datetime(found.year, found.month, found.day, hour, minute, second)
    return _minute(at, bool(seconds_shown), shown, year_missing), first


# Czech and Slovak boards space their numeric dates: "14. 1. 2007 22:02" (a real phpBB board).
_SPACED_DMY = re.compile(r"(?<![\d.])(\d{1,2})\. (\d{1,2})\. (\d{4})(?![\d.])")


def _normalise(text: str) -> str:
    text = " ".join(text.replace("\u2009", " ").split())
    return _SPACED_DMY.sub(r"\1.\2.\3", text) if ". " in text else text


# ---------------------------------------------------------------------------------------------
# The fast path: the stock absolute form of most boards ("[Dom] 17 Ene 2016, 12:02", "09 октября
# 2017 - 23:20", "02 juin 2026 à 22:25:06", English "[Sun] Jan 17, 2016 3:02 am"), read by one
# regex before the tokenizer. It takes only texts the grammar above reads the same way (a day, a
# month name one language pack gives one number, a four-digit year, a filler, a 24-hour clock or
# a 12-hour one with am/pm) and hands everything else, and every doubt (an unknown word,
# 31 February, 25:00, 13:00 pm), to the general path; it never says None itself.

_SEP = r"(?:,| -| –| à| a las| at| в|, в| um| alle| às)? "  # fillers and signs only
# 24-hour, or 12-hour with "am", "PM", "a.m." (as _CLOCK reads them in normalised text); nothing after
_CLOCK_END = r"(?P<h>\d{1,2}):(?P<mi>\d{2})(?::(?P<s>\d{2}))?(?: ?(?P<ap>[aApP])\.? ?[mM]\.?)?$"
_FAST_DATES = (
    r"(?:(?P<d>\d{1,2}) (?P<mon>[^\W\d_]++)\.?,? (?P<y>\d{4})"  # 17 Ene 2016 (++: no letter
    # given back could match what follows a month, a dot, comma or space)
    r"|(?P<fm>[^\W\d_]++)\.? (?P<fd>\d{1,2}),? (?P<fy>\d{4})"  # Jan 17, 2016 (month first)
    r"|(?P<dd>\d{1,2})\.(?P<dm>\d{1,2})\.(?P<dy>\d{4})"  # 09.10.2017: always day first
    r"|(?P<iy>\d{4})-(?P<im>\d{1,2})-(?P<id>\d{1,2}))"  # 2016-01-17
)
_FAST_END = re.compile(r"(?<![\w.:/'’-])" + _FAST_DATES + _SEP + _CLOCK_END)  # a header's end
_FAST_WHOLE = re.compile(r"(?:(?P<wd>[^\W\d_]+)\.?,? )?" + _FAST_DATES + _SEP + _CLOCK_END)
# "Вчера, 21:58", "Hoy a las 21:58", "Aujourd'hui à 21:58", "Пятница в 18:40".
_FAST_WORD = re.compile(r"(?P<w>[^\W\d_]+(?:['’-][^\W\d_]+)*)" + _SEP + _CLOCK_END)


def _clock(found: re.Match[str]) -> tuple[int, int, int] | None:
    hour, minute = int(found["h"]), int(found["mi"])
    second = int(found["s"]) if found["s"] else 0
    if found["ap"]:  # as _clock_value: 12 am is midnight, 12 pm noon, "13:00 pm" no time
        if not 1 <= hour <= 12:
            return None
        hour = hour % 12 + (12 if found["ap"] in "pP" else 0)
    return (hour, minute, second) if hour <= 23 and minute <= 59 and second <= 59 else None


def _fast(found: re.Match[str]) -> datetime | None:
    """The wall time of a _FAST_END/_FAST_WHOLE match, or None for the general path."""
    clock = _clock(found)
    if clock is None:
        return None
    if found["mon"] is not None or found["fm"] is not None:
        first = found["mon"] is None  # the month first ("Jan 17, 2016")
        numbers = MONTHS.get(fold(found["fm"] if first else found["mon"]))
        year = int(found["fy"] if first else found["y"])
        if not numbers or len(numbers) != 1 or year < 1000:
            return None
        (month,) = numbers
        day = int(found["fd"] if first else found["d"])
    elif found["dd"] is not None:
        year, month, day = int(found["dy"]), int(found["dm"]), int(found["dd"])
    else:
        year, month, day = int(found["iy"]), int(found["im"]), int(found["id"])
    try:
        return datetime(year, month, day, *clock)
    except ValueError:
        return None


def _weekday_start(text: str, day_start: int) -> int | None:
    """Where the shown time starts given its date at `day_start`: at a weekday right before
    it ("Dom 17 Ene"), else at the date; None when the general path must decide (a filler
    there may hide a weekday before it; a word glued to other signs)."""
    i = day_start
    while i and not text[i - 1].isalnum():
        i -= 1
    j = i
    while j and text[j - 1].isalpha():
        j -= 1
    if j == i:  # no word before: a number, or nothing
        return day_start
    if j and not text[j - 1].isspace():
        return None
    word = fold(text[j:i])
    if word in _FILLERS:
        return None
    return j if word in WEEKDAYS else day_start


def _fast_word(found: re.Match[str], now: datetime) -> datetime | None:
    """The wall time of a day word or weekday and its clock, or None for the general path."""
    clock = _clock(found)
    word = fold(found["w"])
    if clock is None or word in _FILLERS:
        return None
    if word in DAY_WORDS:
        back = DAY_WORDS[word]
    elif word in WEEKDAYS and word not in MONTHS and len(WEEKDAYS[word]) == 1:
        back = (now.weekday() - (min(WEEKDAYS[word]) - 1)) % 7 or 7  # the last such day
    else:
        return None
    day = now.date() - timedelta(days=back)
    return datetime(day.year, day.month, day.day, *clock)


def _fast_last(text: str, now: datetime) -> ShownTime | None:
    found = _FAST_END.search(text)
    if found is not None:
        at = _fast(found)
        start = _weekday_start(text, found.start()) if at is not None else None
        if at is None or start is None:
            return None
        return _minute(at, bool(found["s"]), text[start:], False)
    found = _FAST_WORD.search(text)
    if found is None or (found.start() and not text[found.start() - 1].isspace()):
        return None
    at = _fast_word(found, now)
    return _minute(at, bool(found["s"]), text[found.start():], True) if at else None


# A date without a clock ("28 декабря, 2017", "5 января", "Dom 17 Ene 2016"), whole text.
_FAST_DAY = re.compile(r"(?:(?P<wd>[^\W\d_]+)\.?,? )?(?P<d>\d{1,2}) (?P<mon>[^\W\d_]+\.?)"
                       r"(?:,? (?P<y>\d{4}))?$")


def _fast_day(found: re.Match[str], now: datetime) -> ShownTime | None:
    numbers = MONTHS.get(fold(found["mon"]))
    if not numbers or len(numbers) != 1 or (found["wd"] is not None
                                            and fold(found["wd"]) not in WEEKDAYS):
        return None
    (month,) = numbers
    day = int(found["d"])
    year = int(found["y"]) if found["y"] else _nearest_year(now, month, day)
    found_date = _date(year, month, day) if year >= 1000 else None
    if found_date is None:
        return None
    at = datetime(found_date.year, found_date.month, found_date.day)
    return ShownTime(at, at, at + timedelta(days=1, seconds=-1), not found["y"], False,
                     found.string)


def stock_date(text: str) -> datetime | None:
    """A text that is exactly one absolute date with a clock, as forums print their headers
    ("02 juin 2026 à 22:25:06", "17 Ene 2016, 12:02", "2016-01-17 12:02"), read in one match
    without normalising; None sends the caller to find_first/read, which read it alike."""
    found = _FAST_WHOLE.match(text)
    return _fast(found) if found is not None and found["wd"] is None else None


def _fast_whole(text: str, now: datetime) -> ShownTime | None:
    if ":" not in text:
        found = _FAST_DAY.match(text)
        return _fast_day(found, now) if found is not None else None
    found = _FAST_WHOLE.match(text)
    if found is not None:
        if found["wd"] is not None and fold(found["wd"]) not in WEEKDAYS:
            return None
        at = _fast(found)
        return _minute(at, bool(found["s"]), text, False) if at else None
    found = _FAST_WORD.match(text)
    if found is None:
        return None
    at = _fast_word(found, now)
    return _minute(at, bool(found["s"]), text, True) if at else None


def read(text: str, now: datetime, options: Options = _DEFAULT) -> ShownTime | None:
    """The whole of `text` as a shown time, or None when any part of it does not read.

    `now` is the fetch time as a naive wall time in the board's zone."""
    text = _normalise(text)
    if not text:
        return None
    fast = _fast_whole(text, now)
    if fast is not None:
        return fast
    relative = _ago(fold(text), now)
    if relative is not None:
        return relative
    tokens = _tokens(text)
    if not tokens or _unexplained(text, tokens):
        return None
    if tokens[-1].kind == "clock":
        found = _read_at(tokens, len(tokens) - 1, len(tokens) - 1, now, text, options)
    else:
        found = _read_at(tokens, None, len(tokens), now, text, options)
    if found is None:
        return None
    shown, first = found
    if any(t.kind != "word" or t.folded not in _FILLERS for t in tokens[:first]):
        return None  # words before the date that are not part of it: not a date we know
    return shown


def _at_clock(text: str, clock: re.Match[str], now: datetime,
              options: Options) -> ShownTime | None:
    """The date whose clock is `clock`, read in the window of text ending there: a date takes
    a few words before its clock; tokenizing a whole header line costs more than the rest."""
    start = max(0, clock.start() - _WINDOW)
    window = text[start: clock.end()]
    tokens = _tokens(window)
    if start:
        tokens = tokens[1:]  # the first may be a piece of a longer word
    if not tokens or tokens[-1].kind != "clock":
        return None
    found = _read_at(tokens, len(tokens) - 1, len(tokens) - 1, now, window, options)
    return found[0] if found is not None else None


def find_last(text: str, now: datetime, options: Options = _DEFAULT) -> ShownTime | None:
    """The last date with a time of day inside a longer text (a header line "Mensaje por X
    Dom 17 Ene 2016, 12:02", whose subject may hold a date too), or a relative duration."""
    text = _normalise(text)
    fast = _fast_last(text, now)
    if fast is not None:
        return fast
    for clock in reversed(list(_CLOCKS.finditer(text))):
        shown = _at_clock(text, clock, now, options)
        if shown is not None:
            return shown
    return _find_ago(text, now)


def find_first(text: str, now: datetime, options: Options = _DEFAULT) -> ShownTime | None:
    """The first date with a time of day inside a longer text ("Le 03 août 2025 à 00:00:59
    Pseudo a écrit :")."""
    text = _normalise(text)
    clock = _CLOCKS.search(text)
    fast = _fast_last(text[: clock.end()], now) if clock is not None else None
    if fast is not None:  # what the loop below reads at the first clock
        return fast
    for clock in _CLOCKS.finditer(text):
        shown = _at_clock(text, clock, now, options)
        if shown is not None:
            return shown
    return None


_AGO_IN_TEXT = re.compile(
    r"less than a minute ago|menos de un minuto|moins d.une minute|"
    r"(?:hace|il y a|há|vor|acum)\s+\d+\s*[^\W\d_]+"
    r"|\d+\s*[^\W\d_]+\s+(?:ago|назад|geleden|temu|önce|fa)\b", re.IGNORECASE)


def _find_ago(text: str, now: datetime) -> ShownTime | None:
    found = _AGO_IN_TEXT.search(text)
    if not found:
        return None
    phrase = found.group(0)
    if phrase.casefold().startswith(("menos", "moins")):
        phrase = ("hace " if phrase.casefold().startswith("menos") else "il y a ") + phrase
    return _ago(fold(phrase), now)


def _unexplained(text: str, tokens: list[_Token]) -> bool:
    """Words that are no date part, filler, weekday, month or day word: not a date we know."""
    for token in tokens:
        if token.kind == "junk":
            return True
        if token.kind == "word" and token.folded not in _FILLERS and \
                token.folded not in MONTHS and token.folded not in WEEKDAYS and \
                token.folded not in DAY_WORDS:
            return True
    return False
