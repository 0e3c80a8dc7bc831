"""`tally audit`: one line per post in the day's window saying why it counted or not (C4).

For each vote, the name match (what was written, which player, score, runner-up) and the
evidence (edit marker, time as shown) follow on indented lines, with the post's link. When the
thread was read through the snapshot store, a forensics section follows: each change found
between the stored fetches, with the copy before and the copy after and their fetch times
(issue 6); the post's own lines point at it. Written in the game's language (issue 14): the
rules' reasons are messages, translated here; names and the forum's text stay as written.
"""

from __future__ import annotations

import unicodedata
from datetime import datetime
from typing import TYPE_CHECKING

from tally import times
from tally.model import NameMatch, Tally, Verdict
from tally.render.i18n import Lang, get
from tally.render.post import rule_name

if TYPE_CHECKING:  # records only: renderers never import the reading code
    from tally.forensics import Change, Copy, Report


def _pad(text: str, width: int) -> str:
    """`text` padded to `width` columns of a terminal: a Chinese character takes two, so the
    columns stay aligned in a Chinese audit ("法官大人" is 8 columns, not 4)."""
    wide = sum(1 for ch in text if unicodedata.east_asian_width(ch) in ("W", "F"))
    return text + " " * max(0, width - len(text) - wide)


def describe_match(m: NameMatch, t: Lang | None = None) -> str:
    t = t or get()
    # repr shows invisible characters (\u202e); each language puts its own quotes around it.
    written, runner_score = repr(m.written)[1:-1], f"{m.runner_up_score:.0f}"
    if m.how in ("exact", "alias", "resolution"):
        how = {"exact": t.p_("name match", "exact"), "alias": t.p_("name match", "alias"),
               "resolution": t.p_("name match", "resolution")}[m.how]
        return t._("name: '{written}' -> {player} ({how})", written=written, player=m.player or "",
                   how=how)
    if m.how == "fuzzy":
        score = f"{m.score:.0f}"
        if m.runner_up:
            return t._("name: '{written}' -> {player} (fuzzy, score {score}, runner-up {runner} "
                       "{runner_score})", written=written, player=m.player or "", score=score,
                       runner=m.runner_up, runner_score=runner_score)
        return t._("name: '{written}' -> {player} (fuzzy, score {score})", written=written,
                   player=m.player or "", score=score)
    if m.how == "ignored":
        return t._("name: '{written}' ignored by the GM's resolutions", written=written)
    if m.named:  # several players on one vote line (issue 13): no "closest" to suggest
        return t._("name: '{written}' -> ambiguous, names {players}", written=written,
                   players=t.names(m.named))
    label = {"ambiguous": t.p_("name match", "ambiguous"), "unknown": t.p_("name match", "no player"),
             "mixed_script": t.p_("name match", "mixes scripts")}[m.how]
    if m.runner_up:
        return t._("name: '{written}' -> {label}; closest {runner} {runner_score}", written=written,
                   label=label, runner=m.runner_up, runner_score=runner_score)
    return t._("name: '{written}' -> {label}", written=written, label=label)


def _verdict_word(verdict: str, t: Lang) -> str:
    words = {"counted": t.p_("verdict", "counted"), "void": t.p_("verdict", "void"),
             "superseded": t.p_("verdict", "superseded"), "not_a_vote": t.p_("verdict", "no vote")}
    return words[verdict]


def verdict_lines(v: Verdict, zone: str, changes: tuple[Change, ...] = (),
                  t: Lang | None = None) -> list[str]:
    t = t or get()
    local = times.to_local(v.time, zone)
    # The verdict's own key in English ("NOT_A_VOTE"), its word in another language.
    word = (v.verdict if t.code == "en" else _verdict_word(v.verdict, t)).upper().replace(" ", "_")
    post = t.p_("audit", "post")
    head = (f"#{v.position:<4} {post} {v.post_id:<10} {local:%Y-%m-%d %H:%M:%S} "
            f"{_pad(v.author, 16)} {_pad(word, 10)}")
    if v.target:
        head += f" -> {v.target}"
    if v.rule:
        head += f"  [{rule_name(v.rule, t)}]"
    lines = [head.rstrip()]
    if v.reason:
        lines.append(f"      {t.text(v.reason)}")
    if v.superseded_by and v.superseded_by not in v.reason:
        lines.append("      " + t._("superseded by post {post}", post=v.superseded_by))
    if v.match:
        lines.append(f"      {describe_match(v.match, t)}")
    lines += ["      " + t._("evidence: {evidence}", evidence=t.text(e)) for e in v.evidence]
    lines += ["      " + t._("forensics {label}: {headline}", label=c.label, headline=c.headline)
              for c in changes]
    if v.permalink:
        lines.append(f"      {v.permalink}")
    return lines


def render_audit(tally: Tally, *, player: str | None = None, post: str | None = None,
                 forensics: Report | None = None, lang: str = "en") -> str:
    t = get(lang)

    def wanted(v: Verdict) -> bool:
        if post is not None and v.post_id != post:
            return False
        if player is not None:
            key = player.casefold()
            return key in {(v.voter or "").casefold(), v.author.casefold(), (v.target or "").casefold()}
        return True

    chosen = [v for v in tally.verdicts if wanted(v)]
    zone = tally.zone
    out = [t._("Audit of day {day} ({game}, preset {preset}): {shown} of {total} posts; times in "
               "{zone}", day=tally.day, game=tally.game, preset=tally.preset, shown=len(chosen),
               total=len(tally.verdicts), zone=zone)]
    for v in chosen:
        out += verdict_lines(v, zone, forensics.of_post(v.post_id) if forensics else (), t)
    summary: dict[str, int] = {}
    for v in chosen:
        summary[v.verdict] = summary.get(v.verdict, 0) + 1
    keys = {"counted": t.p_("verdict key", "counted"), "void": t.p_("verdict key", "void"),
            "superseded": t.p_("verdict key", "superseded"),
            "not_a_vote": t.p_("verdict key", "not_a_vote")}
    totals = t.p_("between names", ", ").join(f"{keys[k]} {t.number(n)}"
                                              for k, n in sorted(summary.items()))
    out.append(t._("Totals: {totals}", totals=totals))
    if tally.reading:  # what reading skipped (a sponsored block, a hidden post): issue 13
        out += [t._("Reading the thread:"), *(f"  - {t.text(note)}" for note in tally.reading)]
    if forensics is not None:
        shown = {v.post_id for v in chosen}
        out += forensics_lines(forensics, zone, [c for c in forensics.changes if c.post_id in shown],
                               t)
    return "\n".join(out) + "\n"


def forensics_lines(report: Report, zone: str, changes: list[Change],
                    t: Lang | None = None) -> list[str]:
    """The forensics section: each change with the copy before and the copy after."""
    t = t or get()
    if report.first is not None and report.last is not None:
        first, last = f"{report.first:%Y-%m-%d %H:%M:%S}", f"{report.last:%Y-%m-%d %H:%M:%S}"
        head = t.n_("Forensics: {n} change found between the {fetches} stored page fetches, "
                    "{first} to {last} UTC",
                    "Forensics: {n} changes found between the {fetches} stored page fetches, "
                    "{first} to {last} UTC", n=len(changes), fetches=report.fetches,
                    first=first, last=last)
    else:
        head = t.n_("Forensics: {n} change found between the {fetches} stored page fetches",
                    "Forensics: {n} changes found between the {fetches} stored page fetches",
                    n=len(changes), fetches=report.fetches)
    out = [head]
    for change in changes:
        out.append(t._("{label} post {post} by {author} (#{position}): {headline}",
                       label=change.label, post=change.post_id, author=change.author,
                       position=change.position, headline=change.headline))
        if change.note:
            out.append(f"    {t.text(change.note)}")
        out += _copy_lines(t._("before"), t._("last fetch showing it"), change.before, zone, t)
        out += _copy_lines(t._("after"), t._("first fetch showing it"), change.after, zone, t)
    return out


def _copy_lines(side: str, which: str, copy: Copy, zone: str, t: Lang) -> list[str]:
    if copy.post is None:
        which = t._("fetch lacking it")
    lines = ["  " + t._("{side}: {which}, {clocks}, page {page}, version {version}", side=side,
                        which=which, clocks=_both_clocks(copy.fetched_at, zone, t),
                        page=copy.page, version=copy.version)]
    return lines + [f"    | {line}".rstrip()
                    for said in copy.lines for line in t.text(said).splitlines()]


def _both_clocks(at: datetime, zone: str, t: Lang) -> str:
    """A fetch time in UTC and as the forum's clock showed it."""
    utc, local = f"{at:%Y-%m-%d %H:%M:%S}", f"{times.to_local(at, zone):%Y-%m-%d %H:%M:%S}"
    return t._("{utc} UTC ({local} forum time)", utc=utc, local=local)
