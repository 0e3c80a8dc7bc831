"""adapters/dates.py: the one reader of shown dates, for every engine and language.

Property tests: a random wall time rendered in a board's format and read back is the same wall
time (each language and format of FORUMS.md, with the variations language packs show: case,
accents, trailing dots, weekday prefixes, 12/24-hour clocks). Then the strict side: what it
cannot read gives None, never a guess.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tally.adapters import dates

# Names as the language packs print them (rendering side, written independently of dates.py).
EN_MONTHS = "January February March April May June July August September October November December".split()
EN_DAYS = "Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
ES_MONTHS = "Enero Febrero Marzo Abril Mayo Junio Julio Agosto Septiembre Octubre Noviembre Diciembre".split()
ES_MON = "Ene Feb Mar Abr May Jun Jul Ago Sep Oct Nov Dic".split()
ES_DAYS = "Lunes Martes Miércoles Jueves Viernes Sábado Domingo".split()
ES_DAY = "Lun Mar Miér Jue Vie Sáb Dom".split()
FR_MONTHS = "janvier février mars avril mai juin juillet août septembre octobre novembre décembre".split()
FR_MON = "janv. févr. mars avr. mai juin juil. août sept. oct. nov. déc.".split()
FR_DAY = "Lun Mar Mer Jeu Ven Sam Dim".split()
RU_MONTHS_GEN = "января февраля марта апреля мая июня июля августа сентября октября ноября декабря".split()
RU_MON = "янв фев мар апр май июн июл авг сен окт ноя дек".split()

WALL = st.datetimes(min_value=datetime(2001, 1, 1), max_value=datetime(2035, 12, 31))
NOW = datetime(2026, 6, 3, 14, 30, 15)  # the fetch time as a wall time in the board's zone


def _no_accents(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFD", text) if not unicodedata.combining(c))


def _h12(at: datetime, upper: bool) -> str:
    suffix = "pm" if at.hour >= 12 else "am"
    return f"{at.hour % 12 or 12}:{at.minute:02d} {suffix.upper() if upper else suffix}"


Render = Callable[[datetime, bool], str]  # (wall time, variant flag) -> shown text

ABSOLUTE: dict[str, Render] = {
    # English: phpBB "D M d, Y g:i a", "l F j, Y H:i", IPB 3 "d F Y - H:i"
    "en D M d, Y g:i a": lambda t, v: f"{EN_DAYS[t.weekday()][:3]} {EN_MONTHS[t.month - 1][:3]} "
                                      f"{t.day:02d}, {t.year} {_h12(t, v)}",
    "en l F j, Y H:i": lambda t, v: f"{EN_DAYS[t.weekday()]} {EN_MONTHS[t.month - 1]} {t.day}, "
                                    f"{t.year} {t:%H:%M}",
    "en d F Y - H:i": lambda t, v: f"{t.day:02d} {EN_MONTHS[t.month - 1]} {t.year} - {t:%H:%M}",
    # Spanish: Forumotion "D d M Y, H:i" (accents and dots as packs vary), long form with "de"
    "es D d M Y, H:i": lambda t, v: (
        f"{(_no_accents if v else str)(ES_DAY[t.weekday()])} {t.day:02d} "
        f"{ES_MON[t.month - 1].lower() + '.' if v else ES_MON[t.month - 1]} {t.year}, {t:%H:%M}"),
    "es l d de F de Y a las H:i": lambda t, v: f"{ES_DAYS[t.weekday()]} {t.day} de "
                                               f"{ES_MONTHS[t.month - 1]} de {t.year} a las {t:%H:%M}",
    # French: Forumotion "D d M Y - H:i", JV "d F Y à H:i:s"
    "fr D d M Y - H:i": lambda t, v: f"{FR_DAY[t.weekday()]} {t.day:02d} "
                                     f"{_no_accents(FR_MON[t.month - 1]) if v else FR_MON[t.month - 1]}"
                                     f" {t.year} - {t:%H:%M}",
    "fr d F Y à H:i:s": lambda t, v: f"{'1er' if t.day == 1 and v else f'{t.day:02d}'} "
                                     f"{FR_MONTHS[t.month - 1]} {t.year} à {t:%H:%M:%S}",
    # Russian: IPB 3 "d F Y - H:i" (genitive), "j F Y в H:i", abbreviated "d M Y, H:i"
    "ru d F Y - H:i": lambda t, v: f"{t.day:02d} {RU_MONTHS_GEN[t.month - 1]} {t.year} - {t:%H:%M}",
    "ru j F Y в H:i": lambda t, v: f"{t.day} {RU_MONTHS_GEN[t.month - 1]} {t.year} г. в {t:%H:%M}",
    "ru d M Y, H:i": lambda t, v: f"{t.day:02d} {RU_MON[t.month - 1]}{'.' if v else ''} {t.year}, "
                                  f"{t:%H:%M}",
    # Chinese: Discuz dgmdate "Y-n-j H:i" and with seconds
    "zh Y-n-j H:i": lambda t, v: f"{t.year}-{t.month}-{t.day} {t:%H:%M}",
    "zh Y-n-j H:i:s": lambda t, v: f"{t.year}{'/' if v else '-'}{t.month}{'/' if v else '-'}"
                                   f"{t.day} {t:%H:%M:%S}",
}
WITH_SECONDS = {"fr d F Y à H:i:s", "zh Y-n-j H:i:s"}


@pytest.mark.parametrize("form", sorted(ABSOLUTE))
@given(wall=WALL, variant=st.booleans())
@settings(max_examples=60, deadline=None)
def test_absolute_forms_read_back_to_the_same_wall_time(form: str, wall: datetime,
                                                        variant: bool) -> None:
    wall = wall.replace(microsecond=0, second=wall.second if form in WITH_SECONDS else 0)
    text = ABSOLUTE[form](wall, variant)
    shown = dates.read(text, NOW)
    assert shown is not None, text
    assert (shown.at, shown.has_time, shown.relative) == (wall, True, False), text
    assert shown.earliest <= wall <= shown.latest


# Relative forms: (render from a wall time on the fetch day or the day before, days back)
DAY_WORD: dict[str, tuple[str, str]] = {  # language: (today's form, yesterday's form), {} = clock
    "en": ("Today, {}", "Yesterday at {}"),
    "es": ("Hoy a las {}", "Ayer, {}"),
    "fr": ("Aujourd'hui à {}", "Hier à {}"),
    "ru": ("Сегодня, {}", "Вчера в {}"),
    "zh": ("今天 {}", "昨天 {}"),
}


@pytest.mark.parametrize("language", sorted(DAY_WORD))
@given(minutes=st.integers(min_value=0, max_value=2 * 24 * 60 - 1), twelve=st.booleans())
@settings(max_examples=60, deadline=None)
def test_today_and_yesterday_read_back(language: str, minutes: int, twelve: bool) -> None:
    start = datetime(NOW.year, NOW.month, NOW.day) - timedelta(days=1)
    wall = start + timedelta(minutes=minutes)
    back = (NOW.date() - wall.date()).days
    clock = _h12(wall, False) if twelve and language == "en" else f"{wall:%H:%M}"
    text = DAY_WORD[language][back].format(clock)
    shown = dates.read(text, NOW)
    assert shown is not None, text
    assert (shown.at, shown.relative) == (wall, True), text


AGO: dict[str, tuple[str, str]] = {  # (form with N, unit): read as the fetch time minus N units
    "en minutes": ("{} minutes ago", "minutes"),
    "en hours": ("{} hours ago", "hours"),
    "es minutos": ("hace {} minutos", "minutes"),
    "fr min": ("il y a {} min", "minutes"),
    "fr heures": ("il y a {} heures", "hours"),
    "ru минут": ("{} минут назад", "minutes"),
    "ru часов": ("{} часов назад", "hours"),
    "zh 分钟前": ("{} 分钟前", "minutes"),
    "zh 小时前": ("{}小时前", "hours"),
    "zh 秒前": ("{} 秒前", "seconds"),
}


@pytest.mark.parametrize("form", sorted(AGO))
@given(count=st.integers(min_value=1, max_value=59))
@settings(max_examples=30, deadline=None)
def test_durations_ago_read_back(form: str, count: int) -> None:
    pattern, unit = AGO[form]
    shown = dates.read(pattern.format(count), NOW)
    wall = NOW - timedelta(**{unit: count})
    assert shown is not None and shown.at == wall and shown.relative
    assert shown.earliest <= wall <= shown.latest


@pytest.mark.parametrize(("text", "wall"), [
    ("Dom 17 Ene 2016, 12:02", datetime(2016, 1, 17, 12, 2)),
    ("Mar 19 Ene 2016, 21:58", datetime(2016, 1, 19, 21, 58)),  # Martes, not marzo
    ("mar. 19 janv. 2016 - 21:58", datetime(2016, 1, 19, 21, 58)),  # mardi, not mars
    ("Sept 3, 2016 9:05 pm", datetime(2016, 9, 3, 21, 5)),
    ("3 Sept 2016 21:05", datetime(2016, 9, 3, 21, 5)),
    ("12 ene. 2016 09:00", datetime(2016, 1, 12, 9, 0)),
    ("3 févr 2016, 09:00", datetime(2016, 2, 3, 9, 0)),
    ("3 мая 2016, 09:00", datetime(2016, 5, 3, 9, 0)),
    ("3 октября 2016 в 09:00", datetime(2016, 10, 3, 9, 0)),
    ("Sun Jan 17, 2016 12:02 a.m.", datetime(2016, 1, 17, 0, 2)),
    ("Sun Jan 17, 2016 12:02 PM", datetime(2016, 1, 17, 12, 2)),
    ("2009-8-16 20:46", datetime(2009, 8, 16, 20, 46)),
    ("09.10.2017 23:20", datetime(2017, 10, 9, 23, 20)),
    ("刚刚", NOW),
    ("半小时前", NOW - timedelta(minutes=30)),
    ("前天 09:12", datetime(2026, 6, 1, 9, 12)),
    ("3 天前", datetime(2026, 5, 31)),
    ("less than a minute ago", NOW),
    ("Aujourd’hui à 21:58", datetime(2026, 6, 3, 21, 58)),
])
def test_named_forms(text: str, wall: datetime) -> None:
    shown = dates.read(text, NOW)
    assert shown is not None and shown.at == wall, text


def test_a_date_without_year_is_the_last_such_date() -> None:
    shown = dates.read("28 décembre", NOW)
    assert shown is not None and (shown.at, shown.has_time, shown.relative) == (
        datetime(2025, 12, 28), False, True)


def test_slashed_dates_follow_the_board() -> None:
    assert dates.read("10/09/2017 21:20", NOW).at == datetime(2017, 9, 10, 21, 20)
    us = dates.read("10/09/2017 09:20 PM", NOW, dates.Options(day_first=False))
    assert us is not None and us.at == datetime(2017, 10, 9, 21, 20)


def test_the_last_and_first_dates_inside_a_header() -> None:
    header = "Sujet: Re: vote du 17 Ene 2016, 12:00  Miér 20 Ene 2016, 22:01"
    last = dates.find_last(header, NOW)
    assert last is not None and (last.at, last.text) == (datetime(2016, 1, 20, 22, 1),
                                                          "Miér 20 Ene 2016, 22:01")
    first = dates.find_first("Le 03 août 2025 à 00:00:59 Pseudo a écrit :", NOW)
    assert first is not None and first.at == datetime(2025, 8, 3, 0, 0, 59)


@pytest.mark.parametrize("text", [
    "", "whenever", "31 February 2017 - 10:00", "Funday at 9:00", "17 Foo 2016, 12:00",
    "Lun 32 Ene 2016, 12:00", "25:10", "Hoy", "demain à 10:00", "上周", "13:00 pm 17 Jan 2016",
    "vote 17 Jan 2016 12:00",  # a word before the date that is no part of it
    "il y a longtemps", "5 parsecs ago",
])
def test_what_it_cannot_read_is_none_never_a_guess(text: str) -> None:
    assert dates.read(text, NOW) is None


def test_a_bare_clock_is_today_only_where_the_board_writes_it_so() -> None:
    assert dates.read("05:01:02", NOW) is None
    jv = dates.read("05:01:02", NOW, dates.Options(bare_clock=True))
    assert jv is not None and jv.at == datetime(2026, 6, 3, 5, 1, 2)


@pytest.mark.parametrize("name,number", [
    ("Ene", 1), ("Jan", 1), ("janv.", 1), ("févr.", 2), ("Feb", 2), ("Août", 8), ("Dic", 12),
    ("Sept", 9), ("octubre", 10), ("октября", 10), ("Мая", 5), ("май", 5), ("October", 10),
])
def test_month_names_in_the_forums_languages(name: str, number: int) -> None:
    # The one month table (tally.times had a second one, used by nothing but its own test).
    assert dates.MONTHS[dates.fold(name)] == frozenset({number})


def test_month_and_weekday_names_are_data() -> None:
    assert dates.MONTHS[dates.fold("Févr.")] == {2} and dates.MONTHS[dates.fold("октября")] == {10}
    assert dates.fold("Dom") not in dates.MONTHS and dates.fold("Miér") not in dates.MONTHS
    assert dates.WEEKDAYS["mier"] == frozenset({3}) and dates.DAY_WORDS["aujourd'hui"] == 0


# The fast paths (a regex for the stock forms, tried before the tokenizer) must read every text
# exactly as the general grammar does, and leave it to the grammar when unsure: the same text
# read with the fast paths switched off gives the same answer, None included.
PIECES_BEFORE = ("", "Dom ", "Dom, ", "dom. ", "Mensaje por X » ", "X»", "x-", "el ", "Dom el ",
                 "3 ", "mar ", "Пятница ", "Hoy ", "(Dom) ", "l'", "Le ", "Message édité le ",
                 "Sun ", "Sun, ", "by Alice » ", "Posted: ", "17 ")
PIECES_DATE = ("17 Ene 2016", "1 ene. 2016", "29 févr. 2016", "30 févr. 2016", "9 октября 2017",
               "17 May 2016", "17 set 2016", "17 Dom 2016", "17 Mar 2016", "17 Foo 2016",
               "17 Jan 0999", "09.10.2017", "31.02.2017", "2016-01-17", "2016-13-01",
               "17/01/2016", "Hoy", "Вчера", "Aujourd'hui", "avant-hier", "Пятница", "Mar",
               "xHoy", "de", "Ene", "28 декабря, 2017", "5 января", "31 ноября", "29 févr.",
               "17 Ene", "17 Ene.,", "Dom 17 Ene 0999", "Lun 5 mai", "Jan 17, 2016",
               "Sun Jan 17, 2016", "Jan. 17 2016", "Feb 30, 2016", "Mar 1, 2016", "Foo 17, 2016",
               "Jan 17,2016", "Jan 17th, 2016", "Yesterday", "Today")
PIECES_SEP = (" ", ", ", " - ", " à ", " a las ", " в ", ", в ", " at ", " de ", "")
PIECES_CLOCK = ("12:02", "23:59:59", "24:00", "7:05", "12:60", "12:02 pm", "12h02", "", "3:02 am",
                "12:30 AM", "11:58pm", "3:02 a.m.", "3:02:09 pm", "13:00 pm", "0:05 am", "3:02 amx")
PIECES_AFTER = ("", " par Pseudo", " Pseudo a écrit :", " 12:03", " 2016")


def _general(reader: Callable[..., object], *args: object) -> object:
    fast_last, fast_whole = dates._fast_last, dates._fast_whole
    dates._fast_last = dates._fast_whole = lambda *_: None  # type: ignore[assignment]
    try:
        return reader(*args)
    finally:
        dates._fast_last, dates._fast_whole = fast_last, fast_whole


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(PIECES_BEFORE), st.sampled_from(PIECES_DATE), st.sampled_from(PIECES_SEP),
       st.sampled_from(PIECES_CLOCK), st.sampled_from(PIECES_AFTER),
       st.datetimes(min_value=datetime(2016, 1, 1), max_value=datetime(2026, 12, 31)))
def test_the_fast_paths_read_as_the_grammar_does(before: str, date: str, sep: str, clock: str,
                                                 after: str, now: datetime) -> None:
    text = before + date + sep + clock + after
    for reader in (dates.read, dates.find_last, dates.find_first):
        assert reader(text, now) == _general(reader, text, now), (reader.__name__, text)


def test_the_fast_paths_take_the_stock_forms() -> None:
    """The engines' usual forms are read by the fast paths (the speed target of DESIGN.md)."""
    for text in ("Dom 17 Ene 2016, 12:02", "09 октября 2017 - 23:20", "02 juin 2026 à 22:25:06",
                 "28.12.2017 21:00", "2016-01-17 12:02:03", "Вчера, 21:58", "Hoy a las 21:58",
                 "28 декабря, 2017", "5 января", "Dom 17 Ene 2016", "Sun Jan 17, 2016 3:02 am",
                 "Mon Mar 14, 2016, 8:05 pm", "Yesterday, 10:12 am", "Today, 12:20 AM"):
        assert dates._fast_whole(text, NOW) == _general(dates.read, text, NOW) is not None
    for header in ("Mensaje por Zven » Dom 17 Ene 2016, 12:02",
                   "by Alice » Sun Jan 17, 2016 10:40 am"):
        assert dates._fast_last(header, NOW) == _general(dates.find_last, header, NOW) is not None


# Boards in further languages (nl, pl, ro, tr, cs) stopped with exit 4 on every date. The first
# four texts are as real phpBB boards print them (their posts' dates, kept in
# github:TUVIMEN/forumscraper @54cf74b6 examples/phpbb/10057, 810442, 18253, 2654665); the others
# follow the boards' language packs (DATE_FORMAT 'D d M Y, H:i' and the packs' day words).
@pytest.mark.parametrize(("text", "wall"), [
    ("czwartek, 28 lutego 2008, 21:42", datetime(2008, 2, 28, 21, 42)),  # fungi.pl (pl)
    ("14. 1. 2007 22:02", datetime(2007, 1, 14, 22, 2)),  # garaz.autorevue.cz (cs)
    ("05 Avr 2015, 11:01", datetime(2015, 4, 5, 11, 1)),  # forum.anime-ultime.net (fr)
    ("Tue Jul 02, 2024 3:19 am", datetime(2024, 7, 2, 3, 19)),  # phpbb.com (en)
    ("wo 13 mei 2020, 10:00", datetime(2020, 5, 13, 10, 0)),
    ("za 16 mrt 2019 21:05", datetime(2019, 3, 16, 21, 5)),
    ("Śr 13 maja 2020 10:00", datetime(2020, 5, 13, 10, 0)),
    ("pt 13 lis 2020 o 10:00", datetime(2020, 11, 13, 10, 0)),
    ("miercuri, 13 mai 2020, 10:00", datetime(2020, 5, 13, 10, 0)),
    ("Sâm 16 mar 2019 21:05", datetime(2019, 3, 16, 21, 5)),
    ("Pzt May 04, 2020 10:00 am", datetime(2020, 5, 4, 10, 0)),
    ("13 Ekim 2020 Salı 10:00", datetime(2020, 10, 13, 10, 0)),  # a weekday after the date
    ("13 Ağustos 2020, 10:00", datetime(2020, 8, 13, 10, 0)),
    ("středa 13. května 2020 10:00", datetime(2020, 5, 13, 10, 0)),
    ("Gisteren om 10:00", datetime(2026, 6, 2, 10, 0)),
    ("Wczoraj, 10:00", datetime(2026, 6, 2, 10, 0)),
    ("Bugün, 10:00", datetime(2026, 6, 3, 10, 0)),
    ("Dün 10:00", datetime(2026, 6, 2, 10, 0)),
    ("azi, 10:00", datetime(2026, 6, 3, 10, 0)),
    ("Vorgestern, 10:00", datetime(2026, 6, 1, 10, 0)),
    ("5 minuten geleden", NOW - timedelta(minutes=5)),
    ("vor 5 Minuten", NOW - timedelta(minutes=5)),
    ("5 minut temu", NOW - timedelta(minutes=5)),
    ("5 dakika önce", NOW - timedelta(minutes=5)),
    ("acum 5 minute", NOW - timedelta(minutes=5)),
    ("há 5 minutos", NOW - timedelta(minutes=5)),  # the accent was lost by folding before
    ("minder dan een minuut geleden", NOW),
    # Forumotion's Polish and Turkish boards abbreviate the weekday their own way.
    ("Śro 13 Mar 2019 - 21:05", datetime(2019, 3, 13, 21, 5)),
    ("Nie 17 Mar 2019 - 21:05", datetime(2019, 3, 17, 21, 5)),
    ("Ctesi 16 Mart 2019 - 21:05", datetime(2019, 3, 16, 21, 5)),
    ("Dzisiaj o 21:05", datetime(2026, 6, 3, 21, 5)),
    ("Ieri la 21:05", datetime(2026, 6, 2, 21, 5)),
    ("Bugün saat 21:05", datetime(2026, 6, 3, 21, 5)),
    ("剛剛", NOW),  # Discuz's traditional-character packs
])
def test_further_languages(text: str, wall: datetime) -> None:
    shown = dates.read(text, NOW)
    assert shown is not None and shown.at == wall, text


@pytest.mark.parametrize("text", [
    "ma 18:40",  # Monday (nl) or Tuesday (es "Ma"): no guess
    "do 18:40",  # Thursday (nl, de) or Sunday (es "Do")
    "13 Mayıs 2020 Foo, 10:00",
    "31 lutego 2008, 21:42",
])
def test_an_ambiguous_or_unknown_word_in_further_languages_is_none(text: str) -> None:
    assert dates.read(text, NOW) is None


def test_a_spaced_czech_date_inside_a_header() -> None:
    shown = dates.find_last("Napsal: Pepa » ne 14. 1. 2007 22:02", NOW)
    assert shown is not None and shown.at == datetime(2007, 1, 14, 22, 2)
