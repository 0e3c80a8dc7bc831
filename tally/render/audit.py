"""`tally audit`: one line per post in the day's window saying why it counted or not (C4).

For each vote, the name match (what was written, which player, score, runner-up) and the
evidence (edit marker, time as shown) follow on indented lines, with the post's link. When the
thread was read through the snapshot store, a forensics section follows: each change found
between the stored fetches, with the copy before and the copy after and their fetch times
(issue 6); the post's own lines point at it.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from tally import times
from tally.model import NameMatch, Tally, Verdict

if TYPE_CHECKING:  # records only: renderers never import the reading code
    from tally.forensics import Change, Copy, Report


def describe_match(m: NameMatch) -> str:
    if m.how in ("exact", "alias", "resolution"):
        return f"name: {m.written!r} -> {m.player} ({m.how})"
    if m.how == "fuzzy":
        runner = f", runner-up {m.runner_up} {m.runner_up_score:.0f}" if m.runner_up else ""
        return f"name: {m.written!r} -> {m.player} (fuzzy, score {m.score:.0f}{runner})"
    if m.how == "ignored":
        return f"name: {m.written!r} ignored by the GM's resolutions"
    if m.named:  # several players on one vote line (issue 13): no "closest" to suggest
        return f"name: {m.written!r} -> ambiguous, names {', '.join(m.named)}"
    guess = f"; closest {m.runner_up} {m.runner_up_score:.0f}" if m.runner_up else ""
    label = {"ambiguous": "ambiguous", "unknown": "no player", "mixed_script": "mixes scripts"}[m.how]
    return f"name: {m.written!r} -> {label}{guess}"


def verdict_lines(v: Verdict, zone: str, changes: tuple[Change, ...] = ()) -> list[str]:
    local = times.to_local(v.time, zone)
    head = (f"#{v.position:<4} post {v.post_id:<10} {local:%Y-%m-%d %H:%M:%S} "
            f"{v.author:<16} {v.verdict.upper():<10}")
    if v.target:
        head += f" -> {v.target}"
    if v.rule:
        head += f"  [{v.rule}]"
    lines = [head.rstrip()]
    if v.reason:
        lines.append(f"      {v.reason}")
    if v.superseded_by and v.superseded_by not in v.reason:
        lines.append(f"      superseded by post {v.superseded_by}")
    if v.match:
        lines.append(f"      {describe_match(v.match)}")
    lines += [f"      evidence: {e}" for e in v.evidence]
    lines += [f"      forensics {c.label}: {c.headline}" for c in changes]
    if v.permalink:
        lines.append(f"      {v.permalink}")
    return lines


def render_audit(tally: Tally, *, player: str | None = None, post: str | None = None,
                 forensics: Report | None = None) -> str:
    def wanted(v: Verdict) -> bool:
        if post is not None and v.post_id != post:
            return False
        if player is not None:
            key = player.casefold()
            return key in {(v.voter or "").casefold(), v.author.casefold(), (v.target or "").casefold()}
        return True

    chosen = [v for v in tally.verdicts if wanted(v)]
    zone = tally.zone
    out = [f"Audit of day {tally.day} ({tally.game}, preset {tally.preset}): "
           f"{len(chosen)} of {len(tally.verdicts)} posts; times in {zone}"]
    for v in chosen:
        out += verdict_lines(v, zone, forensics.of_post(v.post_id) if forensics else ())
    summary: dict[str, int] = {}
    for v in chosen:
        summary[v.verdict] = summary.get(v.verdict, 0) + 1
    out.append("Totals: " + ", ".join(f"{k} {n}" for k, n in sorted(summary.items())))
    if tally.reading:  # what reading skipped (a sponsored block, a hidden post): issue 13
        out += ["Reading the thread:", *(f"  - {note}" for note in tally.reading)]
    if forensics is not None:
        shown = {v.post_id for v in chosen}
        out += forensics_lines(forensics, zone, [c for c in forensics.changes if c.post_id in shown])
    return "\n".join(out) + "\n"


def forensics_lines(report: Report, zone: str, changes: list[Change]) -> list[str]:
    """The forensics section: each change with the copy before and the copy after."""
    span = ""
    if report.first is not None and report.last is not None:
        span = f", {report.first:%Y-%m-%d %H:%M:%S} to {report.last:%Y-%m-%d %H:%M:%S} UTC"
    head = (f"Forensics: {len(changes)} change{'s' if len(changes) != 1 else ''} found between "
            f"the {report.fetches} stored page fetches{span}")
    out = [head]
    for change in changes:
        out.append(f"{change.label} post {change.post_id} by {change.author} (#{change.position}): "
                   f"{change.headline}")
        if change.note:
            out.append(f"    {change.note}")
        out += _copy_lines("before", "last fetch showing it", change.before, zone)
        out += _copy_lines("after", "first fetch showing it", change.after, zone)
    return out


def _copy_lines(side: str, which: str, copy: Copy, zone: str) -> list[str]:
    if copy.post is None:
        which = "fetch lacking it"
    lines = [f"  {side}: {which}, {_both_clocks(copy.fetched_at, zone)}, page {copy.page}, "
             f"version {copy.version}"]
    return lines + [f"    | {line}".rstrip() for line in copy.text.splitlines()]


def _both_clocks(at: datetime, zone: str) -> str:
    """A fetch time in UTC and as the forum's clock showed it."""
    local = times.to_local(at, zone)
    return f"{at:%Y-%m-%d %H:%M:%S} UTC ({local:%Y-%m-%d %H:%M:%S} forum time)"
