"""`tally audit`: one line per post in the day's window saying why it counted or not (C4).

For each vote, the name match (what was written, which player, score, runner-up) and the
evidence (edit marker, time as shown) follow on indented lines, with the post's link.
"""

from __future__ import annotations

from tally import times
from tally.model import NameMatch, Tally, Verdict


def describe_match(m: NameMatch) -> str:
    if m.how in ("exact", "alias", "resolution"):
        return f"name: {m.written!r} -> {m.player} ({m.how})"
    if m.how == "fuzzy":
        runner = f", runner-up {m.runner_up} {m.runner_up_score:.0f}" if m.runner_up else ""
        return f"name: {m.written!r} -> {m.player} (fuzzy, score {m.score:.0f}{runner})"
    if m.how == "ignored":
        return f"name: {m.written!r} ignored by the GM's resolutions"
    guess = f"; closest {m.runner_up} {m.runner_up_score:.0f}" if m.runner_up else ""
    label = {"ambiguous": "ambiguous", "unknown": "no player", "mixed_script": "mixes scripts"}[m.how]
    return f"name: {m.written!r} -> {label}{guess}"


def verdict_lines(v: Verdict, zone: str) -> list[str]:
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
    if v.permalink:
        lines.append(f"      {v.permalink}")
    return lines


def render_audit(tally: Tally, *, player: str | None = None, post: str | None = None) -> str:
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
        out += verdict_lines(v, zone)
    summary: dict[str, int] = {}
    for v in chosen:
        summary[v.verdict] = summary.get(v.verdict, 0) + 1
    out.append("Totals: " + ", ".join(f"{k} {n}" for k, n in sorted(summary.items())))
    return "\n".join(out) + "\n"
