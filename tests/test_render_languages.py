"""The count in the forum's own language (issue 14) and hostile names made inert (issue 17).

Each bundled example is counted by `tally count` with the preset its board plays (the game files
of tests/test_cli_presets.py: espia on La Ratonera, mafia-ru on the Invision board, trigger-cn on
the Discuz board) or with `language` in the game file (the French phpBB 2 board plays `majority`,
whose home language is English), and the whole post is compared: the words are the boards' own
(rulebooks in shared/rulebooks: "Recuento", "votaciones"; "Итоги голосования", "голос";
"票型", "楼"; "décompte", "votes"), the numbers and names are the count's.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tally.cli import app
from tally.model import Count, Finding, Outcome, Tally, Verdict, msg
from tally.render import i18n, render
from tally.render.update import countdown, forum_time, render_update
from tally.rules.outcome import most_votes, tie_between
from tally.when import content_sha256, summarise

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ESPIA = FIXTURES / "forumotion" / "espia-phpbb3-es"
MAFIA = FIXTURES / "invision" / "mafia-ipb3-ru"
TRIGGER = FIXTURES / "discuz" / "trigger-utf8"
LOUPS = FIXTURES / "phpbb" / "subsilver2-fr"
KIRA = FIXTURES / "phpbb" / "kira-en"


def game_file(tmp_path: Path, case: Path, *edits: tuple[str, str]) -> Path:
    text = (case / "game.toml").read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, f"{case.name}/game.toml: {old!r} not found"
        text = text.replace(old, new, 1)
    path = tmp_path / f"{case.name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def count(game: Path, source: Path, fetched_at: str, *more: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, ["count", str(game), "--from", str(source),
                                      "--fetched-at", fetched_at, *more])
    assert result.exit_code == code, result.output
    return result.stdout


# ---------------------------------------------------------------------------------------------
# Whole posts, one per language

ESPIA_POST = """\
[b][u]Recuento de votaciones, día 1 (final): ¿Quién es el Espía? — Día 1[/u][/b]

[b]Moriarty[/b] (3): [url=https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia#3102]Irene Adler[/url], [url=https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia#3104]Watson[/url], [url=https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia#3105]Mrs Hudson[/url]
[b]Lestrade[/b] (1): [url=https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia#3103]Sherlock[/url]
[b]Sherlock[/b] (1): [url=https://laratonera.foroactivo.com/t245p5-votaciones-dia-1-quien-es-el-espia#3107]Moriarty[/url]

[b]Sin votar[/b] (1): Lestrade
Moriarty es eliminado (E2: más votos (3))
1 voto espera al moderador: se editó después del cierre y no consta su texto al cierre. Este recuento aún puede cambiar.

Contado hasta el mensaje #9 (3111), el mié 20 ene 2016, 23:30:00 CET (22:30:00 UTC).
Cierre de las votaciones: lun 18 ene 2016, 22:00:00 CET (21:00:00 UTC).
Recuento hecho por tally 0.1.0, reglas espia.
"""

ESPIA_POST_EN = """\
[b][u]Vote count, day 1 (final): ¿Quién es el Espía? — Día 1[/u][/b]

[b]Moriarty[/b] (3): [url=https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia#3102]Irene Adler[/url], [url=https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia#3104]Watson[/url], [url=https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia#3105]Mrs Hudson[/url]
[b]Lestrade[/b] (1): [url=https://laratonera.foroactivo.com/t245-votaciones-dia-1-quien-es-el-espia#3103]Sherlock[/url]
[b]Sherlock[/b] (1): [url=https://laratonera.foroactivo.com/t245p5-votaciones-dia-1-quien-es-el-espia#3107]Moriarty[/url]

[b]Not voting[/b] (1): Lestrade
Moriarty is eliminated (E2: most votes (3))
1 vote waits for the moderator: it was edited after the deadline and its text at the deadline is not proven. This count may still change.

Counted up to post #9 (3111), as of 2016-01-20 23:30:00 CET (22:30:00 UTC).
Deadline: 2016-01-18 22:00:00 CET (21:00:00 UTC).
Counted by tally 0.1.0, preset espia.
"""

MAFIA_POST = """\
'''Итоги голосования, день 2: Мафия — голосование, день 2'''

'''Азазелло''' (6): Воланд, Фагот, Мастер, Понырев, Стравинский, Гелла
'''Фагот''' (4): Кот Бегемот, Азазелло, Лиходеев, Коровьев
'''Берлиоз''' (3): Марго, Варенуха, Римский
'''Мастер''' (2): Берлиоз, Аннушка
'''Воланд''' (1): Босой

'''Не голосовали''' (2): Алоизий, Соков
Азазелло выбывает (R3: больше всего голосов (6))

Учтено до сообщения #45 (900285), по состоянию на 11 октября 2017, 11:00:00 MSK (08:00:00 UTC).
Конец голосования: 10 октября 2017, 21:00:00 MSK (18:00:00 UTC).
Подсчитано tally 0.1.0, правила mafia-ru.
"""

TRIGGER_POST = """\
'''第1日票型（最终）：第七届触发杀 桃源村命案 第一日'''

'''桃花'''（2）：青蛙王子、月下独酌
'''老猫'''（2）：风清扬、阿飞
'''青蛙王子'''（2）：桃花、白菜

'''未投票者'''（2）：小鱼儿、老猫
平票（计票：桃花、老猫、青蛙王子各得 2 票，由法官决定）

计至第 28 楼（帖子编号 2310569），截至 2026年11月20日 12:00:00 CST（UTC 04:00:00）。
截止时间：2026年11月18日 18:00:00 CST（UTC 10:00:00）。
由 tally 0.1.0 统计，规则 trigger-cn。
"""

LOUPS_POST = """\
[b][u]Décompte des votes, jour 2 (final) : Les Loups de Thiercelieux — partie 12, jour 2[/u][/b]

[b]Basile[/b] (3) : [url=http://loups.example.fr/forum/viewtopic.php?p=8805#p8805]Dorian[/url], [url=http://loups.example.fr/forum/viewtopic.php?p=8808#p8808]Fabien[/url], [url=http://loups.example.fr/forum/viewtopic.php?p=8810#p8810]Hortense[/url]
[b]Gaspard[/b] (2) : [url=http://loups.example.fr/forum/viewtopic.php?p=8811#p8811]Isidore[/url], [url=http://loups.example.fr/forum/viewtopic.php?p=8812#p8812]Amélie[/url]
[b]Dorian[/b] (1) : [url=http://loups.example.fr/forum/viewtopic.php?p=8807#p8807]Élise[/url]
[b]Fabien[/b] (1) : [url=http://loups.example.fr/forum/viewtopic.php?p=8809#p8809]Gaspard[/url]

[b]N'ont pas voté[/b] (2) : Basile, Céleste
Avec 9 vivants, il faut 5 votes pour éliminer.
Basile est éliminé (C3 : le plus de votes (3), pas de majorité)

Compté jusqu'au message #14 (8814), le mer. 16 mars 2016, 20:30:00 CET (19:30:00 UTC).
Fin des votes : mer. 16 mars 2016, 20:00:00 CET (19:00:00 UTC).
Décompte fait par tally 0.1.0, règles majority.
"""


def espia_game(tmp_path: Path) -> Path:
    return game_file(tmp_path, ESPIA, ('preset = "majority"', 'preset = "espia"'))


def test_espia_posts_in_spanish_by_default(tmp_path: Path) -> None:
    assert count(espia_game(tmp_path), ESPIA, "2016-01-20T22:30:00Z") == ESPIA_POST


def test_lang_en_gives_the_english_post(tmp_path: Path) -> None:
    assert count(espia_game(tmp_path), ESPIA, "2016-01-20T22:30:00Z", "--lang", "en") == ESPIA_POST_EN


def test_mafia_ru_posts_in_russian(tmp_path: Path) -> None:
    # The majority file's own nick pattern and void_edited give way to the preset's R2.
    game = game_file(tmp_path, MAFIA, ('preset = "majority"', 'preset = "mafia-ru"'),
                     ("patterns = ['(?m)^[ \\t]*(?P<target>\\w+(?:[ \\t]\\w+)?)[ \\t]*$']\n", ""),
                     ('void_edited = true                  # "Правленые посты не засчитываются"\n',
                      ""))
    assert count(game, MAFIA, "2017-10-11T08:00:00Z", "--format", "jv") == MAFIA_POST


def test_trigger_cn_posts_in_chinese(tmp_path: Path) -> None:
    game = game_file(tmp_path, TRIGGER, ('preset = "majority"', 'preset = "trigger-cn"'))
    assert count(game, TRIGGER, "2026-11-20T04:00:00Z", "--format", "jv") == TRIGGER_POST


def test_the_game_files_language_wins_over_the_presets(tmp_path: Path) -> None:
    game = game_file(tmp_path, LOUPS, ('preset = "majority"', 'preset = "majority"\nlanguage = "fr"'))
    assert count(game, LOUPS, "2016-03-16T19:30:00Z") == LOUPS_POST
    english = count(game, LOUPS, "2016-03-16T19:30:00Z", "--lang", "en")
    assert english.startswith("[b][u]Vote count, day 2 (final): Les Loups") and "Basile is eliminated" in english


def test_majority_and_kira_stay_english_by_default() -> None:
    post = count(KIRA / "game.toml", KIRA, "2016-01-18 03:10")
    assert post.startswith("[b][u]Vote count, day 1 (final): Kira, game 3[/u][/b]\n")
    assert "Dan is eliminated (K10: most votes (4))" in post


def test_an_unknown_language_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["count", str(KIRA / "game.toml"), "--from", str(KIRA),
                                      "--lang", "xx"])
    assert result.exit_code == 2
    assert result.stderr == "tally: error: --lang 'xx': unknown language (known: en, es, fr, ru, zh)\n"
    assert result.stdout == ""
    game = game_file(tmp_path, KIRA, ('preset = "kira"', 'preset = "kira"\nlanguage = "klingon"'))
    out = count(game, KIRA, "2016-01-18 03:10", code=3)
    assert out == ""


# ---------------------------------------------------------------------------------------------
# Plurals, dates and numbers from the catalogues and CLDR

def test_russian_has_three_plural_forms_and_chinese_one() -> None:
    ru, zh = i18n.get("ru"), i18n.get("zh")
    forms = [ru.text(tie_between(n, ("Фагот", "Берлиоз"))) for n in (1, 2, 5, 21, 12)]
    assert forms == ["по 1 голосу у Фагот, Берлиоз", "по 2 голоса у Фагот, Берлиоз",
                     "по 5 голосов у Фагот, Берлиоз", "по 21 голосу у Фагот, Берлиоз",
                     "по 12 голосов у Фагот, Берлиоз"]
    assert [ru.n_("{players} with {n} vote", "{players} with {n} votes", players="Фагот", n=n)
            for n in (1, 2, 5)] == ["Фагот: 1 голос", "Фагот: 2 голоса", "Фагот: 5 голосов"]
    assert [zh.text(tie_between(n, ("桃花", "老猫"))) for n in (1, 2)] == [
        "桃花、老猫各得 1 票", "桃花、老猫各得 2 票"]


@pytest.mark.parametrize("lang,zone,shown", [
    ("es", "Europe/Madrid", "sáb 21 nov, 22:00 (CET)"),
    ("ru", "Europe/Moscow", "22 ноября, 00:00 (MSK)"),
    ("zh", "Asia/Shanghai", "11月22日 05:00 CST"),
    ("fr", "Europe/Paris", "sam. 21 nov., 22:00 (CET)"),
    ("en", "Europe/Paris", "Sat 21 Nov 22:00 (CET)"),
])
def test_forum_time_in_each_forums_style(lang: str, zone: str, shown: str) -> None:
    assert forum_time(datetime(2026, 11, 21, 21, 0, tzinfo=UTC), zone, i18n.get(lang)) == shown


@pytest.mark.parametrize("lang,left,shown", [
    ("ru", timedelta(days=2, hours=4), "через 2 дня 4 ч"),
    ("ru", timedelta(days=5, hours=1), "через 5 дней 1 ч"),
    ("ru", timedelta(days=1, hours=3), "через 1 день 3 ч"),
    ("es", timedelta(hours=3, minutes=12), "quedan 3 h 12 min"),
    ("zh", timedelta(minutes=7), "还剩 7 分钟"),
    ("fr", timedelta(0), "passée"),
])
def test_countdown_in_each_language(lang: str, left: timedelta, shown: str) -> None:
    deadline = datetime(2026, 11, 21, 21, 0, tzinfo=UTC)
    assert countdown(deadline, deadline - left, i18n.get(lang)) == shown


# ---------------------------------------------------------------------------------------------
# The posted update: changes, L-n, countdown, "pending the GM"

NOW = datetime(2016, 1, 17, 17, 48, tzinfo=UTC)


def running(**over: object) -> Tally:
    base: dict[str, object] = dict(
        game="Мафия, игра 7", preset="mafia-ru", day=2, deadline=datetime(2016, 1, 17, 18, 0, tzinfo=UTC),
        as_of=NOW, counts=(Count("Фагот", 2, ("Гелла", "Воланд"), ("11", "12")),),
        not_voting=("Азазелло",), outcome=Outcome("eliminated", "Фагот", "R3", most_votes(2)),
        verdicts=(Verdict("12", 9, "Воланд", "Воланд", NOW, "counted", "Фагот",
                          permalink="https://m.example/t/1#entry12"),),
        living=("Гелла", "Воланд", "Фагот", "Азазелло", "Мастер"), majority=3, counted_up_to="12",
        zone="Europe/Moscow")
    base.update(over)
    return Tally(**base)  # type: ignore[arg-type]


def update(tally: Tally, lang: str, last: Tally | None = None, dialect: str = "bbcode",
           final: bool = False) -> str:
    summary = summarise(tally, final)
    return render_update(tally, summary=summary, sha256=content_sha256(summary),
                         last=summarise(last, False) if last else None,
                         last_at=NOW - timedelta(minutes=44) if last else None, now=NOW,
                         dialect=dialect, lang=lang)


def test_the_posted_update_in_russian_whole() -> None:
    before = running(counts=(Count("Мастер", 1, ("Гелла",)),), not_voting=("Воланд", "Азазелло"))
    text = update(running(), "ru", last=before)
    lines = text.splitlines()
    assert lines[:-1] == [
        "[b][u]Подсчёт голосов, день 2: Мафия, игра 7[/u][/b]",
        "",
        "[b]Фагот[/b] (2, L-1): Гелла, [url=https://m.example/t/1#entry12]Воланд[/url]",
        "[b]Не голосовали[/b] (1): Азазелло",
        "",
        "Живых: 5, для выбывания нужно 3 голоса.",
        "Фагот выбыл бы, если бы день закончился сейчас (R3: больше всего голосов (2))",
        "",
        "Изменения с прошлого подсчёта (17 января, 20:04 (MSK)): Воланд теперь за Фагот; "
        "Гелла: Мастер → Фагот.",
        "",
        "Учтено до [url=https://m.example/t/1#entry12]сообщения #9[/url], по времени форума на "
        "17 января, 20:48 (MSK).",
        "Конец голосования: 17 января, 21:00 (MSK), через 12 мин.",
    ]
    assert lines[-1].startswith("tally · ") and lines[-1].endswith(" · правила mafia-ru")


def test_the_chinese_update_says_up_to_which_floor() -> None:
    """Chinese players cite a post by its floor (楼), not by the forum's post id."""
    text = update(running(zone="Asia/Shanghai"), "zh")
    assert "计至[url=https://m.example/t/1#entry12]第 9 楼[/url]，截至论坛时间 " in text
    assert "帖子 12" not in text
    no_floor = update(running(zone="Asia/Shanghai", verdicts=()), "zh")
    assert "计至编号 12 的帖子，截至论坛时间 " in no_floor


def test_what_waits_for_the_gm_is_said_in_the_posts_language() -> None:
    doubt = Finding("C2", "unresolved name 'Фа' (written by Гелла in post 16)", "16", "Гелла",
                    needs_gm=True)
    tie = Outcome("tie", None, "E9", msg("{head}: the GM decides", head=tie_between(2, ("Moriarty", "Watson"))),
                  ("Moriarty", "Watson"))
    text = update(running(findings=(doubt,), outcome=tie, game="Espía", preset="espia"), "es",
                  final=True)
    # The unresolved vote is said once, by number, never by who wrote it; the tie is listed.
    assert ("1 voto espera al moderador: su nombre no señala claramente a un solo jugador. Este "
            "recuento aún puede cambiar.") in text.splitlines()
    assert "[b]Pendiente del moderador[/b]: el empate entre Moriarty, Watson (E9)." \
        in text.splitlines()
    assert "'Фа'" not in text and "written by" not in text
    assert "Empate entre Moriarty, Watson (E9: empate a 2 votos entre Moriarty, Watson: decide el moderador)" in text
    assert text.startswith("[b][u]Recuento de votaciones, día 2 (final): Espía[/u][/b]")


# ---------------------------------------------------------------------------------------------
# Issue 17: a name can never inject markup, nor turn the line around

JUDY = "Judy[/url][url=http://evil.example]pwn"
RLO = "Eve\u202eevil"
BOLD = "'''Boss''' <spoil>x</spoil>"


def hostile() -> Tally:
    return Tally(
        game="Game [b]7[/b]", preset="kira", day=1, deadline=datetime(2016, 1, 18, 3, 0, tzinfo=UTC),
        as_of=datetime(2016, 1, 18, 3, 10, tzinfo=UTC),
        counts=(Count(JUDY, 2, (RLO, BOLD), ("11", "12")),), not_voting=(JUDY, RLO),
        outcome=Outcome("eliminated", JUDY, "K10", most_votes(2)),
        verdicts=(Verdict("11", 1, RLO, RLO, NOW, "counted", JUDY,
                          permalink="https://f.example/viewtopic.php?p=11#p11"),
                  Verdict("12", 2, BOLD, BOLD, NOW, "counted", JUDY,
                          permalink="https://f.example/viewtopic.php?p=12#p12")),
        living=(JUDY, RLO, BOLD), threshold=2, counted_up_to="12", zone="Europe/Paris")


@pytest.mark.parametrize("lang", ["en", "es", "ru", "zh", "fr"])
def test_bbcode_names_cannot_open_or_close_a_tag(lang: str) -> None:
    post = render(hostile(), "bbcode", lang=lang)
    assert "evil.example]" not in post and "[url=http://evil" not in post
    assert "\u202e" not in post
    # Every tag in the post is tally's own: two links, the bold names and labels, the heading.
    assert post.count("[url=") == post.count("[/url]") == 2
    assert "[url=https://f.example/viewtopic.php?p=11#p11]Eveevil[/url]" in post
    assert "[b]Judy(/url)(url=http://evil.example)pwn[/b]" in post
    assert "Game (b)7(/b)" in post


def test_jv_names_cannot_bold_or_hide() -> None:
    post = render(hostile(), "jv", lang="fr")
    assert "’’’Boss’’’ (spoil)x(/spoil)" in post and "<spoil>" not in post
    assert post.count("'''") == 2 * 3  # the heading, the candidate and the label, each opened and closed
    assert "\u202e" not in post and "Judy(/url)(url=http://evil.example)pwn" in post


def test_markdown_names_are_escaped() -> None:
    post = render(hostile(), "markdown", lang="ru")
    assert "**Judy\\[/url\\]\\[url=http://evil.example\\]pwn**" in post
    assert "[Eveevil](https://f.example/viewtopic.php?p=11#p11)" in post
    assert "\u202e" not in post


def test_the_posted_update_makes_names_inert_too() -> None:
    tally = hostile()
    text = update(tally, "en", last=replace(tally, counts=(Count(RLO, 1, (JUDY,)),)))
    assert "[url=http://evil" not in text and "\u202e" not in text
    # BBCode reads no ''' nor <spoil>: those stay; its brackets are what is made inert.
    assert ("Changes since the last count (Sun 17 Jan 18:04 (CET)): '''Boss''' <spoil>x</spoil> now on "
            "Judy(/url)(url=http://evil.example)pwn; Eveevil now on Judy(/url)(url=http://evil.example)pwn; "
            "Judy(/url)(url=http://evil.example)pwn withdrew (was on Eveevil).") in text
    jv = update(tally, "fr", last=replace(tally, counts=(Count(RLO, 1, (JUDY,)),)), dialect="jv")
    assert "’’’Boss’’’ (spoil)x(/spoil) désormais sur Judy(/url)(url=http://evil.example)pwn" in jv


# ---------------------------------------------------------------------------------------------
# A sixth language is a catalogue, not code

def test_a_new_language_is_one_catalogue_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    locale = tmp_path / "locale"
    shutil.copytree(i18n.LOCALE_DIR, locale)
    po = locale / "it" / "LC_MESSAGES" / "tally.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr ""\n"Language: it\\n"\n"Content-Type: text/plain; charset=utf-8\\n"\n'
                  '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
                  'msgid "Vote count, day {day}: {game}"\nmsgstr "Conteggio dei voti, giorno {day}: {game}"\n',
                  encoding="utf-8")
    tool = Path(sys.executable).parent / "pybabel"
    subprocess.run([str(tool), "--quiet", "compile", "-d", str(locale), "-D", "tally", "-l", "it"],
                   check=True)
    monkeypatch.setattr(i18n, "LOCALE_DIR", locale)
    i18n.get.cache_clear()
    try:
        assert "it" in i18n.languages()
        post = render(running(as_of=NOW - timedelta(hours=1)), "bbcode", lang="it")
        assert post.startswith("[b][u]Conteggio dei voti, giorno 2: Мафия, игра 7[/u][/b]")
    finally:
        i18n.get.cache_clear()


# ---------------------------------------------------------------------------------------------
# The audit and the GM report: the rules' reasons are messages, said in the game's language

def audit(game: Path, source: Path, fetched_at: str, *more: str) -> str:
    result = CliRunner().invoke(app, ["audit", str(game), "--from", str(source),
                                      "--fetched-at", fetched_at, *more])
    assert result.exit_code == 0, result.output
    return result.stdout


def test_the_audit_gives_each_reason_in_the_games_language(tmp_path: Path) -> None:
    game = espia_game(tmp_path)
    spanish = audit(game, ESPIA, "2016-01-20T22:30:00Z").splitlines()
    assert spanish[0] == ("Auditoría del día 1 (¿Quién es el Espía? — Día 1, reglas espia): 9 de 9 "
                          "mensajes; horas en Europe/Madrid")
    late = spanish.index("#7    mensaje 3108       2016-01-18 22:01:00 Lestrade         NULO       "
                         "-> Moriarty  [E1]")
    assert spanish[late + 1:late + 4] == ["      tarde: enviado 22:01:00, cierre 22:00:00",
                                          "      nombre: 'Moriarty' -> Moriarty (exacto)",
                                          "      pruebas: hora mostrada: Lun 18 Ene 2016, 22:01"]
    assert "      enviado por el moderador (staff), que no vota" in spanish
    totals = spanish.index("Totales: contados 5, sin voto 2, nulos 2")
    assert spanish[totals + 1] == "Lectura del tema:"  # then the adapter's own notes
    english = audit(game, ESPIA, "2016-01-20T22:30:00Z", "--lang", "en").splitlines()
    assert "      late: posted 22:01:00, deadline 22:00:00" in english
    assert "Totals: counted 5, not_a_vote 2, void 2" in english and "Reading the thread:" in english


def test_the_gm_report_in_russian(tmp_path: Path) -> None:
    game = game_file(tmp_path, MAFIA, ('preset = "majority"', 'preset = "mafia-ru"'),
                     ("patterns = ['(?m)^[ \\t]*(?P<target>\\w+(?:[ \\t]\\w+)?)[ \\t]*$']\n", ""),
                     ('void_edited = true                  # "Правленые посты не засчитываются"\n',
                      ""))
    text = count(game, MAFIA, "2017-10-11T08:00:00Z", "--format", "text")
    gm = text[text.index("Отчёт ведущего"):]
    assert gm.startswith("Отчёт ведущего (не для публикации)\n" + "=" * 32 + "\n")
    assert ("  - R2 [нужен ведущий]: сообщение 900107 (Марго): сообщение с голосом отредактировано: "
            "учтено как написано; голос нельзя менять (правило 11): проверяет ведущий (сообщение "
            "900107)") in gm
    assert "Не голосовали: Алоизий, Соков" in gm


# ---------------------------------------------------------------------------------------------
# The README's post per language is what tally prints

def test_the_readme_shows_the_posts_tally_prints(tmp_path: Path) -> None:
    readme = (FIXTURES.parent / "README.md").read_text(encoding="utf-8")
    section = readme.split("## The count in the forum's language", 1)[1].split("\n## ", 1)[0]
    shown = [re.sub(r"^\$ tally [^\n]*\n", "", block)  # the command line above the output
             for block in re.findall(r"```\n(.*?)\n```", section, re.S)]
    mafia = game_file(tmp_path, MAFIA, ('preset = "majority"', 'preset = "mafia-ru"'),
                      ("patterns = ['(?m)^[ \\t]*(?P<target>\\w+(?:[ \\t]\\w+)?)[ \\t]*$']\n", ""),
                      ('void_edited = true                  # "Правленые посты не засчитываются"\n',
                       ""))
    (tmp_path / "t").mkdir()
    trigger = game_file(tmp_path / "t", TRIGGER, ('preset = "majority"', 'preset = "trigger-cn"'))
    (tmp_path / "f").mkdir()
    loups = game_file(tmp_path / "f", LOUPS, ('preset = "majority"', 'preset = "majority"\nlanguage = "fr"'))
    (tmp_path / "e").mkdir()
    runs = [(espia_game(tmp_path / "e"), ESPIA, "2016-01-20T22:30:00Z"),
            (mafia, MAFIA, "2017-10-11T08:00:00Z"), (trigger, TRIGGER, "2026-11-20T04:00:00Z"),
            (loups, LOUPS, "2016-03-16T19:30:00Z"), (KIRA / "game.toml", KIRA, "2016-01-18T03:10:00Z")]
    printed = [count(game, source, at, "--format", "text", "--public").rstrip("\n")
               for game, source, at in runs]
    assert shown[-5:] == printed


# ---------------------------------------------------------------------------------------------
# `tally post`: the posted count speaks the game's language (the local phpBB board)

@pytest.fixture
def board() -> Iterator[object]:
    from fakephpbb import FakePhpBB

    with FakePhpBB() as running:
        yield running


def test_the_posted_count_follows_the_game_file_and_lang(board, tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    from fakephpbb import as_cron, now_at, run_post, write_game

    as_cron(monkeypatch)
    now_at(monkeypatch, "2026-01-15 10:00", "+01:00")
    board.add_post("Moderator", "Day 1 starts now. Vote with: vote: Name")
    game = write_game(tmp_path, board.url)
    game.write_text('language = "fr"\n' + game.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.delenv("TALLY_PASSWORD", raising=False)
    now_at(monkeypatch, "2026-01-15 11:00", "+01:00")
    board.add_post("Alice", "vote: Bob")
    french = run_post(game, "--dry-run")
    assert french.exit_code == 0, french.output
    lines = french.stdout.splitlines()
    assert lines[:3] == ["[b][u]Décompte des votes, jour 1 : Mafia game 12[/u][/b]", "",
                         lines[2]] and lines[2].startswith("[b]Bob[/b] (1, L-2) : [url=")
    assert "Fin des votes : sam. 17 janv., 22:00 (CET), dans 2 jours 11 h." in lines
    russian = run_post(game, "--dry-run", "--lang", "ru").stdout.splitlines()
    assert russian[0] == "[b][u]Подсчёт голосов, день 1: Mafia game 12[/u][/b]"
    assert "Конец голосования: 17 января, 22:00 (CET), через 2 дня 11 ч." in russian
    assert russian[-1] == french.stdout.splitlines()[-1]  # the run's own line stays English
    assert board.requests_to("POST") == 0


# ---------------------------------------------------------------------------------------------
# No sentence tally writes reads as a vote in its language (issue 14): a GM who pastes a line of
# the audit or the GM report into the thread, or a player who copies one, casts nothing. Each
# translation, its fields filled with a player's name, goes through the vote grammar of the
# bundled game of that board; quoted examples ('Voto: Ana', “投票：X”) are the point of the
# grammar notes and are left out.

BOARD_GAMES = {"es": ESPIA / "espia.toml", "ru": MAFIA / "mafia-ru.toml",
               "zh": TRIGGER / "trigger-cn.toml", "fr": LOUPS / "game.toml"}
QUOTED = re.compile(r"'[^'\n]*'|«[^»]*»|“[^”]*”|\"[^\"\n]*\"")


def votes_read_in(lang: str) -> list[tuple[str, str]]:
    from babel.messages import pofile

    from tally import game as games
    from tally import rules
    from tally.extract import Extractor

    game = games.load(BOARD_GAMES[lang])
    reader = Extractor(game, rules.get(game.preset).syntax)
    name = game.players[0].name
    po = i18n.LOCALE_DIR / lang / "LC_MESSAGES" / "tally.po"
    with po.open("rb") as f:
        catalogue = pofile.read_po(f, locale=lang)
    found = []
    for message in catalogue:
        for said in (message.string if isinstance(message.string, tuple) else (message.string,)):
            if not message.id or not said:
                continue
            text = QUOTED.sub(" ", re.sub(r"\{\w+\}", name, said))
            found += [(said, a.text or a.written) for a in reader.actions(text)
                      if a.kind != "example"]
    return found


@pytest.mark.parametrize("lang", sorted(BOARD_GAMES))
def test_no_translation_reads_as_a_vote(lang: str) -> None:
    assert votes_read_in(lang) == []


def test_the_vote_scan_can_fail(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the test above would catch: the Spanish reason as it was ("segundo mensaje con voto:
    vale …" is a colon vote wherever it stands)."""
    from babel.messages.catalog import Catalog

    old = Catalog(locale="es")
    old.add("second vote post", "segundo mensaje con voto: vale el de {player}")
    monkeypatch.setattr("babel.messages.pofile.read_po", lambda f, locale=None: old)
    assert [said for said, _ in votes_read_in("es")] == [
        "segundo mensaje con voto: vale el de {player}"]
