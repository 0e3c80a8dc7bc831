"""One deadline run per preset through the `tally` command, on saved pages of the forum engine
that game is played on, in its language (RULES.md sections 1, 2, 3 and 5).

tests/test_cli_engines.py counts the same saved threads with the game files as they are (most
of them `majority`); here each game file is copied with the game's own preset, so the numbers
below are the preset's, read off the posts themselves (the fixtures' make_pages.py tables, the
pages' text), never off the tool's output:

- espia on Forumotion, espia-phpbb3-es (La Ratonera, Spanish). Zven opens day 1 at 21:00 and
  closes at 22:00 "ni un minuto más". Irene 3102 "Voto: Moriarty" (edited by Zven two days
  later), Sherlock 3103 quotes Irene, "Voto a Lestrade", Watson 3104 "voto: Moriarty" (edited by
  himself at 21:44; his joke vote is in a spoiler), Mrs Hudson 3105 "Voto a Moriarty.",
  Moriarty 3107 "Voto: Sherlock" at 22:00 (in time, E1/C7), Lestrade 3108 "voto: Moriarty" at
  22:01 (null), Zven's recount 3110 (quotes Irene), Sherlock 3111 "Voto: Moriarty" on the 20th.
  Moriarty 3, the most voted, dies (E2); Lestrade voted late: listed for E4.
- mafia-ru on Invision, mafia-ipb3-ru (Russian; make_pages.py POSTS). Voting 22:00 to 21:00
  (R1); one post, one nick, the first vote post stands (R2). Азазелло: Воланд 900102, Фагот
  900118 (bold nick), Мастер 900140 (the GM's typo fix), Понырев 900150, Стравинский 900189,
  Гелла 900206; Фагот: Кот Бегемот 900112 (quotes Марго), Азазелло 900131, Лиходеев 900166,
  Коровьев 900197; Берлиоз: Марго 900107 (edited by herself: taken as it reads and flagged),
  Варенуха 900153, Римский 900160; Мастер: Берлиоз 900144, Аннушка 900184; Воланд: Босой
  900175. Мастер's second vote post 900270 is void (R2). Алоизий's post is queued and Соков's
  deleted: no vote (R9). Азазелло leaves (R3).
- trigger-cn on Discuz!, trigger-utf8 (Chinese). Deadline 11月18日 18:00; the last vote counts,
  edits do not void (section 5 defaults). 桃花 votes 老猫 (#5), then revokes and votes 青蛙王子
  in her self-edited #12; 白菜 老猫 (#8) then 青蛙王子 (#19, the moderator's edit); 风清扬
  老猫 (#9; his #20 at 23:59 is late); 青蛙王子 (#14) and 月下独酌 (#15) vote 桃花; 阿飞 老猫
  (#18). Three at 2: the GM decides. 桃花 is the killer: a floor-5 trigger is her own post and
  passes to the next post by someone else, 青蛙王子's floor 6 (T2), announced 13:00 (T6), never
  in the public post (T8).
- kira on JV, kira-2026 (French; make_payload.py PAGES). Mello 3 (Matsuda 0500 edited by the
  GM, Soichiro 0533, L_Lawliet 1357 replacing his Kira_Yagami vote 0187), L_Lawliet 2 (Misa-Misa
  0302, Kira_Yagami 0702), Near_ 1 (Mello 0411), Kira_Yagami 1 (Near_ 1244; his edited 0388 is
  void). Mello reaches 3 and dies (K9, K10). At 04:00, before L_Lawliet's switch, three players
  have 2 and nobody dies (K9).

R10 across the game threads (mafia-ru): the voting thread beside day 2's discussion thread, a page
written with make_pages.py's own IPB templates (see `discussion_page`), given with --from-extra,
or read through the snapshot store from the game file's `threads`.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from casefiles import fixture_module
from typer.testing import CliRunner

from tally.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
ESPIA = FIXTURES / "forumotion" / "espia-phpbb3-es"
MAFIA = FIXTURES / "invision" / "mafia-ipb3-ru"
TRIGGER = FIXTURES / "discuz" / "trigger-utf8"
KIRA = FIXTURES / "jv" / "kira-2026"


def game_file(tmp_path: Path, case: Path, *edits: tuple[str, str]) -> Path:
    """The case's game file with each (old, new) edit made once; an edit that misses fails."""
    text = (case / "game.toml").read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) >= 1, f"{case.name}/game.toml: {old!r} not found"
        text = text.replace(old, new, 1)
    path = tmp_path / f"{case.name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def run(*args: str | Path) -> str:
    result = CliRunner().invoke(app, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result.stdout


def count_json(game: Path, source: Path, fetched_at: str, *more: str) -> dict:
    return json.loads(run("count", game, "--from", source, "--fetched-at", fetched_at,
                          "--format", "json", *more))


def tallied(data: dict) -> dict[str, dict[str, str]]:
    """target -> {voter: the counted post}."""
    return {c["player"]: dict(zip(c["voters"], c["posts"], strict=True)) for c in data["counts"]}


def verdict(data: dict, post: str) -> dict:
    found = [v for v in data["verdicts"] if v["post"] == post]
    assert len(found) == 1, f"post {post}: {len(found)} verdicts"
    return found[0]


def flags(data: dict, rule: str) -> list[dict]:
    return [f for f in data["gm"]["flags"] if f["rule"] == rule]


def outcome(data: dict) -> tuple[str, str | None, str]:
    return data["outcome"]["result"], data["outcome"]["player"], data["outcome"]["rule"]


# ---------------------------------------------------------------------------------------------
# espia: La Ratonera, Forumotion phpBB3 theme, Spanish (RULES.md section 2)

ESPIA_SAVED = (ESPIA, "2016-01-20T22:30:00Z")


def espia_game(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    path = game_file(tmp_path, ESPIA, ('preset = "majority"', 'preset = "espia"'), *edits)
    # E1, C7: the fixture's file already closes day 1 at 22:00, the whole minute in time.
    text = path.read_text(encoding="utf-8")
    assert 'deadline = "2016-01-18 22:00"' in text and 'precision = "minute"' in text
    return path


def test_espia_day_1_counts_until_22_00_and_the_22_01_vote_is_null(tmp_path: Path) -> None:
    data = count_json(espia_game(tmp_path), *ESPIA_SAVED)
    assert (data["preset"], data["deadline"]) == ("espia", "2016-01-18T21:00:00Z")  # 22:00 Madrid
    assert tallied(data) == {
        "Moriarty": {"Irene Adler": "3102", "Watson": "3104", "Mrs Hudson": "3105"},
        "Lestrade": {"Sherlock": "3103"},
        "Sherlock": {"Moriarty": "3107"},
    }
    assert outcome(data) == ("eliminated", "Moriarty", "E2")
    # E1: "quien vote desde las 22:01 en adelante, tendrá nulo su voto"; 22:00 is in time.
    assert verdict(data, "3107")["verdict"] == "counted"
    late = verdict(data, "3108")
    assert (late["verdict"], late["rule"], late["target"]) == ("void", "E1", "Moriarty")
    assert "late" in late["reason"] and "22:01" in late["reason"]
    # Sherlock's post of the 20th is long past day 1's close: late, not a change of vote.
    assert (verdict(data, "3111")["verdict"], verdict(data, "3111")["rule"]) == ("void", "E1")
    # E3: Watson edited his own vote post; no copy shows the text before: taken as it reads.
    watson = verdict(data, "3104")
    assert watson["verdict"] == "counted" and "text before the edit is not known" in watson["reason"]
    assert [(f["post"], f["needs_gm"]) for f in flags(data, "E3")] == [("3104", True)]
    # E4 (8C): Lestrade's only vote was null, so he did not vote.
    assert data["not_voting"] == ["Lestrade"]
    assert [f["player"] for f in flags(data, "E4")] == ["Lestrade"]
    assert verdict(data, "3110")["verdict"] == "not_a_vote"  # Zven quotes Irene (C1)


def test_espia_a_moved_close_makes_sherlocks_second_vote_a_change(tmp_path: Path) -> None:
    """E1: the GM may move the close; recorded as a deadline event, here to 22:00 on the 20th.
    Then Lestrade's 22:01 vote is in time and Sherlock's 3111 "Voto: Moriarty" changes his 3103
    "Voto a Lestrade": both are void and the first vote does not come back (E3, 8A)."""
    moved = ('\n[[events]]\nat = "2016-01-18 21:05"\nkind = "deadline"\nday = 1\n'
             'deadline = "2016-01-20 22:00"\n')
    game = espia_game(tmp_path, ('[votes]', moved.lstrip() + '\n[votes]'))
    data = count_json(game, *ESPIA_SAVED)
    assert tallied(data) == {
        "Moriarty": {"Irene Adler": "3102", "Watson": "3104", "Mrs Hudson": "3105",
                     "Lestrade": "3108"},
        "Sherlock": {"Moriarty": "3107"},
    }
    assert outcome(data) == ("eliminated", "Moriarty", "E2")
    change, first = verdict(data, "3111"), verdict(data, "3103")
    assert (change["verdict"], change["rule"]) == ("void", "E3")
    assert "change of vote from Lestrade to Moriarty" in change["reason"]
    assert (first["verdict"], first["rule"]) == ("void", "E3")
    assert "does not come back" in first["reason"]
    assert data["not_voting"] == []  # Sherlock voted; his case is E3's, not E4's
    # Zven's edit of Irene's post is now before the close: a staff edit, kept (C6).
    assert "edited by staff Zven, kept" in verdict(data, "3102")["reason"]


# ---------------------------------------------------------------------------------------------
# mafia-ru: an IPB 3.4 voting thread, Russian (RULES.md section 3)

MAFIA_SAVED = (MAFIA, "2017-10-11T08:00:00Z")


def mafia_game(tmp_path: Path, *edits: tuple[str, str]) -> Path:
    # The majority file's own nick pattern and void_edited give way to the preset's R2.
    return game_file(tmp_path, MAFIA, ('preset = "majority"', 'preset = "mafia-ru"'),
                     ("patterns = ['(?m)^[ \\t]*(?P<target>\\w+(?:[ \\t]\\w+)?)[ \\t]*$']\n", ""),
                     ('void_edited = true                  # "Правленые посты не засчитываются"\n',
                      ""), *edits)


def test_mafia_ru_day_2_first_vote_post_stands(tmp_path: Path) -> None:
    data = count_json(mafia_game(tmp_path), *MAFIA_SAVED)
    assert data["preset"] == "mafia-ru"
    assert tallied(data) == {
        "Азазелло": {"Воланд": "900102", "Фагот": "900118", "Мастер": "900140",
                     "Понырев": "900150", "Стравинский": "900189", "Гелла": "900206"},
        "Фагот": {"Кот Бегемот": "900112", "Азазелло": "900131", "Лиходеев": "900166",
                  "Коровьев": "900197"},
        "Берлиоз": {"Марго": "900107", "Варенуха": "900153", "Римский": "900160"},
        "Мастер": {"Берлиоз": "900144", "Аннушка": "900184"},
        "Воланд": {"Босой": "900175"},
    }
    assert outcome(data) == ("eliminated", "Азазелло", "R3")
    # R2 (rule 11): Мастер's 20:59 "голосую за Азазелло" is a second vote post: void.
    second = verdict(data, "900270")
    assert (second["verdict"], second["rule"]) == ("void", "R2")
    assert any(f["post"] == "900270" and "900140 stands" in f["message"] for f in flags(data, "R2"))
    # R2 default: Марго's self-edited vote counts as it reads and goes to the GM.
    assert any(f["post"] == "900107" and f["needs_gm"] for f in flags(data, "R2"))
    # R1: Коровьев's 21:44 vote and Берлиоз's next-morning vote are late.
    for late in ("900251", "900284", "900257", "900280"):
        assert (verdict(data, late)["verdict"], verdict(data, late)["rule"]) == ("void", "R1"), late
    # R9: no vote in force means autokill: the queued (Алоизий) and deleted (Соков) posts.
    assert sorted(data["not_voting"]) == ["Алоизий", "Соков"]
    assert sorted(f["player"] for f in flags(data, "R9")) == ["Алоизий", "Соков"]


# ---------------------------------------------------------------------------------------------
# trigger-cn: a Discuz! X3.4 thread, Simplified Chinese (RULES.md section 5)

TRIGGER_SAVED = (TRIGGER, "2026-11-20T04:00:00Z")


def trigger_game(tmp_path: Path) -> Path:
    floor_5 = ('\n[[events]]\nat = "2026-11-12 19:00"\nkind = "trigger"\ncondition = "floor"\n'
               'floor = 5\nname = "第5楼"\nsecret = true\n')
    return game_file(tmp_path, TRIGGER, ('preset = "majority"', 'preset = "trigger-cn"'),
                     ('name = "桃花"\n', 'name = "桃花"\nrole = "杀手"\n'),
                     ('[votes]', floor_5.lstrip() + '\n[votes]'))


def test_trigger_cn_day_1_tie_and_the_killers_floor_passes_on(tmp_path: Path) -> None:
    game = trigger_game(tmp_path)
    data = count_json(game, *TRIGGER_SAVED)
    assert data["preset"] == "trigger-cn"
    assert tallied(data) == {
        "桃花": {"青蛙王子": "2310515", "月下独酌": "2310520"},
        "老猫": {"风清扬": "2310490", "阿飞": "2310533"},
        "青蛙王子": {"桃花": "2310507", "白菜": "2310537"},
    }
    assert outcome(data)[:2] == ("tie", None)
    assert sorted(data["outcome"]["tied"]) == ["桃花", "老猫", "青蛙王子"]
    assert sorted(data["not_voting"]) == ["小鱼儿", "老猫"]
    # Section 5 default: edits do not void; 桃花's self-edited #12 holds her last vote.
    edited = verdict(data, "2310507")
    assert (edited["verdict"], edited["target"]) == ("counted", "青蛙王子")
    assert verdict(data, "2310470")["verdict"] == "superseded"
    assert (verdict(data, "2310540")["verdict"], "late" in verdict(data, "2310540")["reason"]) == (
        "void", True)
    # T2, T6, T8: floor 5 is the killer's own post; floor 6 (青蛙王子) meets it, secretly.
    t2 = flags(data, "T2")
    assert len(t2) == 1 and t2[0]["secret"] and t2[0]["post"] is None
    assert "青蛙王子 at floor 6" in t2[0]["message"] and "2026-11-13 13:00" in t2[0]["message"]
    public = run("count", game, "--from", TRIGGER, "--fetched-at", TRIGGER_SAVED[1])
    assert "第5楼" not in public and "substitute" not in public and "杀手" not in public


# ---------------------------------------------------------------------------------------------
# kira: the 2026 JV front-end, French (RULES.md section 1)

KIRA_SAVED = (KIRA, "2026-06-03T03:30:00Z")


def test_kira_day_3_mello_reaches_three_and_dies() -> None:
    data = count_json(KIRA / "game.toml", *KIRA_SAVED)
    assert data["preset"] == "kira"
    assert tallied(data) == {
        "Mello": {"Matsuda": "1312400500", "Soichiro": "1312400533", "L_Lawliet": "1312401357"},
        "L_Lawliet": {"Misa-Misa": "1312400302", "Kira_Yagami": "1312400702"},
        "Near_": {"Mello": "1312400411"},
        "Kira_Yagami": {"Near_": "1312401244"},
    }
    assert outcome(data) == ("eliminated", "Mello", "K10")
    # K6: L_Lawliet's first vote is replaced by his last; K4: Near_'s own edit voids his vote.
    first = verdict(data, "1312400187")
    assert (first["verdict"], first["superseded_by"]) == ("superseded", "1312401357")
    assert (verdict(data, "1312400388")["verdict"], verdict(data, "1312400388")["rule"]) == (
        "void", "K4")
    assert (verdict(data, "1312401402")["verdict"], verdict(data, "1312401402")["rule"]) == (
        "void", "K1")  # 05:00:03 Paris: the deadline second 04:59:59 is the last one


def test_kira_before_the_last_switch_nobody_has_three() -> None:
    """--as-of 04:00 Paris: L_Lawliet still votes Kira_Yagami; Mello, L_Lawliet and Kira_Yagami
    have 2 each, under the threshold: nobody dies (K9)."""
    data = count_json(KIRA / "game.toml", *KIRA_SAVED, "--as-of", "2026-06-03 04:00")
    assert tallied(data) == {
        "Mello": {"Matsuda": "1312400500", "Soichiro": "1312400533"},
        "L_Lawliet": {"Misa-Misa": "1312400302", "Kira_Yagami": "1312400702"},
        "Kira_Yagami": {"L_Lawliet": "1312400187", "Near_": "1312401244"},
        "Near_": {"Mello": "1312400411"},
    }
    assert outcome(data)[:2] == ("none", None) and outcome(data)[2] == "K9"


# ---------------------------------------------------------------------------------------------
# mafia-ru R10 across the game threads: the day's discussion thread beside the voting thread

DISCUSSION = "https://mafia.example.ru/topic/4820-obsuzhdenie-den-2/"


def discussion_page() -> bytes:
    """Day 2's discussion thread ("Общая", one per game day), in the voting thread's IPB 3.4
    markup: make_pages.py's own templates, fed this table instead of the voting thread's.
    Воланд (2 posts in the voting thread) writes 3 here in the day, Мастер (3 there) 2; Гелла
    (2 there) 2 in the day, one before 22:00 and one after 21:00; the GM's post is nobody's. Гелла
    also writes a vote here: a discussion post is never a vote."""
    pages = fixture_module(MAFIA / "make_pages.py", "mafia_make_pages_discussion")  # fed our table
    pages.POSTS = []
    rows = [(899001, pages.GM, "2017-10-09T19:00:00Z", "Обсуждение второго дня открыто."),
            (899004, pages.GELLA, "2017-10-09T18:30:00Z", "Рано пришла."),  # 21:30, day 1
            (899007, pages.VOLAND, "2017-10-09T19:30:00Z", "Добрый вечер."),
            (899010, pages.MASTER, "2017-10-09T20:10:00Z", "Роман почти дописан."),
            (899013, pages.GELLA, "2017-10-10T06:00:00Z", "голосую за Воланд"),
            (899016, pages.VOLAND, "2017-10-10T09:00:00Z", "Посмотрим."),
            (899019, pages.MASTER, "2017-10-10T11:00:00Z", "Рукописи не горят."),
            (899022, pages.GELLA, "2017-10-10T12:00:00Z", "Вечереет."),
            (899025, pages.VOLAND, "2017-10-10T18:00:59Z", "Успел."),  # 21:00:59, in time
            (899028, pages.GELLA, "2017-10-10T18:30:00Z", "Поздно.")]  # 21:30, after the close
    for n, (pid, who, utc, text) in enumerate(rows, start=1):
        shown = f"{datetime.fromisoformat(pages.iso_local(utc)):%d %B %Y - %H:%M}"  # as IPB 3.4
        pages.post(pid, n, who, utc, shown, f"<p>{text}</p>")
    pages.PAGES = (DISCUSSION,)
    pages.PAGE_OF = [(0, len(rows))]
    return pages.page_html(1).encode("utf-8")


def mafia_with_threads(tmp_path: Path) -> Path:
    return mafia_game(tmp_path, ('staff = ["Despina"]', f'threads = ["{DISCUSSION}"]\n'
                                                       'staff = ["Despina"]'))


def r10(data: dict) -> dict[str, str]:
    return {f["player"]: f["message"] for f in flags(data, "R10")}


def test_mafia_ru_r10_counts_the_discussion_thread_given_with_from_extra(tmp_path: Path) -> None:
    extra = tmp_path / "discussion"
    extra.mkdir()
    (extra / "page-1.html").write_bytes(discussion_page())
    game = mafia_with_threads(tmp_path)
    alone = count_json(game, *MAFIA_SAVED)  # no --from-extra: this thread only, and it says so
    both = count_json(game, *MAFIA_SAVED, "--from-extra", str(extra))
    assert tallied(both) == tallied(alone) and outcome(both) == outcome(alone)
    assert r10(alone)["Воланд"] == ("Воланд: 2 posts in this thread in the game day, fewer than "
                                    "5: autoban unless the other game threads make up the rest "
                                    "(rule 8)")
    assert len(r10(alone)) == 18  # nobody has 5 posts in the voting thread alone
    # Воланд 2 + 3 and Мастер 3 + 2 make 5; Гелла 2 + 2 in the day; Соков's only post was
    # deleted by the moderators as flood: not a meaningful post (rule 8), so 0.
    assert "Воланд" not in r10(both) and "Мастер" not in r10(both)
    assert len(r10(both)) == 16
    assert r10(both)["Гелла"] == ("Гелла: 4 posts in the game day across 2 game threads (this "
                                  "thread 2, the others 2), fewer than 5: autoban (rule 8)")
    assert r10(both)["Соков"].startswith("Соков: 0 posts in the game day across 2 game threads "
                                         "(this thread 0, the others 0)")


def test_mafia_ru_r10_reads_the_game_files_threads_through_the_store_offline(
        tmp_path: Path) -> None:
    """Online, each URL of `threads` is read like the voting thread, through the same snapshot
    store: here the store holds both threads and the count runs --offline."""
    from tally import adapters
    from tally.fetch import Response
    from tally.store import Store

    engine = adapters.get("invision")
    fetched = datetime(2017, 10, 11, 8, 0, tzinfo=UTC)
    store = Store(tmp_path / "snapshots.sqlite")
    voting = "https://mafia.example.ru/topic/4821-golosovanie-den-2/"
    for number, url in enumerate((voting, f"{voting}page-2", f"{voting}page-3"), start=1):
        body = (MAFIA / f"page-{number}.html").read_bytes()
        store.save(Response(url, 200, {}, body, fetched), engine.thread_key(voting), number)
    store.save(Response(DISCUSSION, 200, {}, discussion_page(), fetched),
               engine.thread_key(DISCUSSION), 1)
    data = json.loads(run("count", mafia_with_threads(tmp_path), "--offline", "--store",
                          tmp_path / "snapshots.sqlite", "--format", "json"))
    assert "Воланд" not in r10(data) and len(r10(data)) == 16
    assert "(this thread 2, the others 2)" in r10(data)["Гелла"]


def test_from_extra_needs_from(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["count", str(mafia_with_threads(tmp_path)), "--offline",
                                      "--from-extra", str(tmp_path)])
    assert result.exit_code == 3 and "--from-extra needs --from" in result.stderr


def test_lupus_round_one_on_the_spanish_forumotion_thread(tmp_path: Path) -> None:
    """L1/L2 on saved Forumotion pages in Spanish: round one names two suspects. Moriarty leads
    with 3 (Irene Adler 3102, Watson 3104, Mrs Hudson 3105); Lestrade (Sherlock 3103) and
    Sherlock (Moriarty 3107, shown 22:00) tie at 1. Seats run clockwise 1-6 in roster order and
    Watson (seat 3) holds ¡Bienvenido!: from him, Mrs Hudson 4, Moriarty 5, Lestrade 6 come
    before Sherlock 2, so Lestrade wins the tie. Round one eliminates nobody."""
    seats = [(f'name = "{n}"\n', f'name = "{n}"\nseat = {i}\n') for i, n in enumerate(
        ["Irene Adler", "Sherlock", "Watson", "Mrs Hudson", "Moriarty", "Lestrade"], 1)]
    holder = ('[votes]', '[[events]]\nat = "2016-01-18 21:00"\nkind = "bienvenido"\n'
              'player = "Watson"\n\n[votes]')
    game = game_file(tmp_path, ESPIA, ('preset = "majority"', 'preset = "lupus"'), *seats, holder)
    data = count_json(game, *ESPIA_SAVED)
    assert tallied(data) == {
        "Moriarty": {"Irene Adler": "3102", "Watson": "3104", "Mrs Hudson": "3105"},
        "Lestrade": {"Sherlock": "3103"},
        "Sherlock": {"Moriarty": "3107"},
    }
    assert outcome(data) == ("none", None, "L2")
    assert data["outcome"]["detail"].startswith("suspects: Moriarty, Lestrade")
    assert "Lestrade sits closest to Watson (¡Bienvenido!)" in data["outcome"]["detail"]
