"""One deadline run per engine through the `tally` command, on that engine's main saved thread.

Each case's game file (fixtures/<engine>/<case>/game.toml) is written in the forum's language,
with the case's players, its zone and the day's window as the thread announces it. The expected
numbers are read off the posts themselves, never off the tool's output:

- phpBB, kira-en: the intended count in fixtures/phpbb/kira-en/README.md.
- Forumotion, espia-phpbb3-es (La Ratonera): Zven opens day 1 at 21:00, closes at 22:00 "ni un
  minuto más". Irene 3102 "Voto: Moriarty" (edited by Zven two days later: kept, flagged),
  Sherlock 3103 quotes Irene then "Voto a Lestrade", Watson 3104 "voto: Moriarty" (his joke vote
  is in a spoiler), Mrs Hudson 3105 "Voto a Moriarty.", Moriarty 3107 "Voto: Sherlock" at 22:00
  (in time: the minute is inclusive, C7), Lestrade 3108 at 22:01 (late). Zven's own recount in
  3110 agrees: Moriarty 3 (Irene Adler, Watson, Mrs Hudson), Lestrade's vote null.
- jeuxvideo.com, kira-2026 (make_payload.py): day 3 runs 05:00:00-04:59:59 Paris. L_Lawliet
  votes Kira_Yagami then Mello (1357, K6); Misa-Misa's bold "Je vote L_Lawliet" (0302) stands,
  her 05:00:03 vote is late; Near_'s self-edited vote (0388) is void (K4) and he votes again
  for Kira_Yagami (1244); Mello votes Near_ (0411); Matsuda's vote for Mello (0500) was edited by
  the GM (kept, K5) and his vote for Soichiro was deleted (no copy: not a vote); Soichiro's
  spoiler is not a vote, "Je vote Mello" is (0533); Kira_Yagami votes L_Lawliet (0702). Mello has
  3, the threshold (K9): Mello dies (K10).
- Discuz!, trigger-utf8: floor 1 sets the deadline "11月18日 18:00". 桃花 votes 老猫, then
  unvotes and votes 青蛙王子 (#12); 白菜 votes 老猫, then 青蛙王子 (#19, moderator edit); 风清扬
  quotes 桃花 and votes 老猫 (#9), his 23:59 vote (#20) is late; 青蛙王子 (#14) and 月下独酌 (#15)
  vote 桃花; 阿飞 votes 老猫 (#18). Three players at 2: a tie for the GM.
- Invision, mafia-ipb3-ru (make_pages.py): "one post, one nick" until 21:00; edited posts do not
  count (Марго 900107, void), the GM's typo fix on Мастер's post does; the queued (900180) and
  soft-deleted (900193) posts have no text; posts after 21:00 are late. Азазелло 6, Фагот 4.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tally.cli import app

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@dataclass(frozen=True)
class EngineCase:
    engine: str
    folder: str
    fetched_at: str  # the case's fetch time (case.toml), the anchor of relative dates
    counts: dict[str, list[str]]  # target -> voters, in the order their votes were cast
    posts: dict[str, list[str]]  # target -> the counted post of each voter
    not_voting: list[str]
    outcome: tuple[str, str | None, str]  # result, player, rule
    quoted_post: str  # a post whose only vote is quoted from someone else (C1)

    @property
    def path(self) -> Path:
        return FIXTURES / self.engine / self.folder

    @property
    def saved(self) -> list[str]:
        return [str(self.path / "game.toml"), "--from", str(self.path),
                "--fetched-at", self.fetched_at]


CASES = [
    EngineCase(
        "phpbb", "kira-en", "2016-01-18 03:10",
        counts={"Dan": ["Bob", "Frank", "Grace", "Ivan"], "Bob": ["Carol", "Alice"],
                "Carol": ["Eve", "Judy"]},
        posts={"Dan": ["5003", "5009", "5022", "5024"], "Bob": ["5004", "5012"],
               "Carol": ["5007", "5013"]},
        not_voting=["Dan", "Heidi"],
        outcome=("eliminated", "Dan", "K10"),
        quoted_post="5046",
    ),
    EngineCase(
        "forumotion", "espia-phpbb3-es", "2016-01-20T22:30:00Z",
        counts={"Moriarty": ["Irene Adler", "Watson", "Mrs Hudson"], "Lestrade": ["Sherlock"],
                "Sherlock": ["Moriarty"]},
        posts={"Moriarty": ["3102", "3104", "3105"], "Lestrade": ["3103"], "Sherlock": ["3107"]},
        not_voting=["Lestrade"],
        outcome=("eliminated", "Moriarty", "C3"),
        quoted_post="3110",
    ),
    EngineCase(
        "jv", "kira-2026", "2026-06-03T03:30:00Z",
        counts={"Mello": ["Matsuda", "Soichiro", "L_Lawliet"],
                "L_Lawliet": ["Misa-Misa", "Kira_Yagami"], "Near_": ["Mello"],
                "Kira_Yagami": ["Near_"]},
        posts={"Mello": ["1312400500", "1312400533", "1312401357"],
               "L_Lawliet": ["1312400302", "1312400702"], "Near_": ["1312400411"],
               "Kira_Yagami": ["1312401244"]},
        not_voting=[],
        outcome=("eliminated", "Mello", "K10"),
        quoted_post="1312401301",
    ),
    EngineCase(
        "discuz", "trigger-utf8", "2026-11-20T04:00:00Z",
        counts={"桃花": ["青蛙王子", "月下独酌"], "老猫": ["风清扬", "阿飞"],
                "青蛙王子": ["桃花", "白菜"]},
        posts={"桃花": ["2310515", "2310520"], "老猫": ["2310490", "2310533"],
               "青蛙王子": ["2310507", "2310537"]},
        not_voting=["小鱼儿", "老猫"],
        outcome=("tie", None, "C3"),
        quoted_post="2310511",
    ),
    EngineCase(
        "invision", "mafia-ipb3-ru", "2017-10-11T08:00:00Z",
        counts={"Азазелло": ["Воланд", "Фагот", "Понырев", "Стравинский", "Гелла", "Мастер"],
                "Фагот": ["Кот Бегемот", "Азазелло", "Лиходеев", "Коровьев"],
                "Берлиоз": ["Варенуха", "Римский"], "Мастер": ["Берлиоз", "Аннушка"],
                "Воланд": ["Босой"]},
        posts={"Азазелло": ["900102", "900118", "900150", "900189", "900206", "900270"],
               "Фагот": ["900112", "900131", "900166", "900197"],
               "Берлиоз": ["900153", "900160"], "Мастер": ["900144", "900184"],
               "Воланд": ["900175"]},
        not_voting=["Марго", "Алоизий", "Соков"],
        outcome=("eliminated", "Азазелло", "C3"),
        # No post of this thread holds only a quoted vote: 900112 quotes Марго's "голосую за
        # Берлиоз" and votes Фагот itself (see test_quoted_vote_with_own_vote_counts_own).
        quoted_post="",
    ),
]
BY_ENGINE = {case.engine: case for case in CASES}


def run(*args: str):
    return CliRunner().invoke(app, list(args))


def count_json(case: EngineCase) -> dict:
    result = run("count", *case.saved, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def verdict_of(data: dict, post: str) -> dict:
    return next(v for v in data["verdicts"] if v["post"] == post)


def test_every_registered_engine_has_a_deadline_run_here():
    from tally import adapters

    assert {case.engine for case in CASES} == set(adapters.engines())


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.engine)
def test_count_gives_the_tally_the_posts_show(case: EngineCase):
    data = count_json(case)
    got = {c["player"]: sorted(c["voters"]) for c in data["counts"]}
    assert got == {target: sorted(voters) for target, voters in case.counts.items()}
    for c in data["counts"]:
        assert c["votes"] == len(case.counts[c["player"]])
        by_voter = dict(zip(c["voters"], c["posts"]))
        want = dict(zip(case.counts[c["player"]], case.posts[c["player"]]))
        assert by_voter == want, c["player"]
    assert sorted(data["not_voting"]) == sorted(case.not_voting)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.engine)
def test_json_output_has_its_keys_and_the_outcome(case: EngineCase):
    data = count_json(case)
    assert {"day", "deadline", "as_of", "counts", "not_voting", "outcome", "verdicts",
            "gm"} <= set(data)
    assert {"player", "votes", "voters", "posts"} <= set(data["counts"][0])
    assert {"post", "position", "author", "time", "verdict", "target", "rule",
            "reason"} <= set(data["verdicts"][0])
    result, player, rule = case.outcome
    assert (data["outcome"]["result"], data["outcome"]["player"], data["outcome"]["rule"]) == (
        result, player, rule)
    # C4: one verdict per post of the window, no post twice.
    ids = [v["post"] for v in data["verdicts"]]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("case", [c for c in CASES if c.quoted_post], ids=lambda c: c.engine)
def test_audit_says_a_quoted_vote_is_not_a_vote(case: EngineCase):
    result = run("audit", *case.saved, "--post", case.quoted_post)
    assert result.exit_code == 0, result.output
    line = result.stdout.splitlines()[1]
    assert f"post {case.quoted_post}" in line and "NOT_A_VOTE" in line


def test_quoted_vote_with_own_vote_counts_own():
    """Invision 900112: Кот Бегемот quotes Марго's vote for Берлиоз and votes Фагот (C1)."""
    result = run("audit", *BY_ENGINE["invision"].saved, "--post", "900112")
    assert result.exit_code == 0, result.output
    line = result.stdout.splitlines()[1]
    assert "COUNTED" in line and "Фагот" in line and "Берлиоз" not in result.stdout


@pytest.mark.parametrize("engine,post,words", [
    ("forumotion", "3108", ["VOID", "late: posted 22:01:00, deadline 22:00:00"]),  # C7
    ("forumotion", "3107", ["COUNTED", "Sherlock"]),  # 22:00 is in time: the minute counts
    ("jv", "1312400388", ["VOID", "[K4]"]),  # Near_ edited his own vote
    ("jv", "1312400500", ["COUNTED", "edited by staff Ryuk_Shinigami, kept"]),  # K5
    ("jv", "1312401402", ["VOID", "late"]),  # 05:00:03 Paris
    ("discuz", "2310540", ["VOID", "late"]),  # 前天 23:59, after 18:00
    ("invision", "900107", ["VOID", "edit marker"]),  # "Правленые посты не засчитываются"
    ("invision", "900251", ["VOID", "late"]),  # 21:44
])
def test_audit_explains_the_engine_specific_posts(engine: str, post: str, words: list[str]):
    result = run("audit", *BY_ENGINE[engine].saved, "--post", post)
    assert result.exit_code == 0, result.output
    for word in words:
        assert word in result.stdout, result.stdout


def test_forumotion_saved_page_two_keeps_its_positions():
    data = count_json(BY_ENGINE["forumotion"])
    assert verdict_of(data, "3107")["position"] == 6
    assert verdict_of(data, "3108")["position"] == 7


def test_triggers_report_is_private_and_names_the_sofa(tmp_path: Path) -> None:
    """`tally triggers` on the Discuz thread: the sofa (floor 2, T1) makes 阿飞 a substitute,
    announced at 13:00 the next day (T6); the public count never mentions it (T8)."""
    source = FIXTURES / "discuz" / "trigger-utf8"
    text = (source / "game.toml").read_text(encoding="utf-8")
    text = text.replace('preset = "majority"', 'preset = "trigger-cn"')
    text = text.replace('name = "桃花"\n', 'name = "桃花"\nrole = "杀手"\n', 1)
    text += ('\n[[events]]\nat = "2026-11-12 19:00"\nkind = "trigger"\ncondition = "first_reply"\n'
             'name = "沙发"\nsecret = true\n')
    game = tmp_path / "game.toml"
    game.write_text(text, encoding="utf-8")
    saved = ["--from", str(source), "--fetched-at", "2026-11-20T04:00:00Z"]
    report = CliRunner().invoke(app, ["triggers", str(game), *saved, "--lang", "en"])
    assert report.exit_code == 0, report.output
    assert "阿飞 at floor 2 (2026-11-12 20:03): 阿飞 becomes a substitute killer" in report.stdout
    assert "announce at 2026-11-13 13:00 (T6)" in report.stdout
    public = CliRunner().invoke(app, ["count", str(game), *saved])
    assert public.exit_code == 0, public.output
    assert "沙发" not in public.stdout and "substitute" not in public.stdout
    wrong = CliRunner().invoke(app, ["triggers", str(FIXTURES / "phpbb" / "kira-en" / "game.toml")])
    assert wrong.exit_code == 3 and "tally triggers is for trigger-cn games" in wrong.stderr
