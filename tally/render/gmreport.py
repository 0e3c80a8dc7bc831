"""The GM's private report: what needs a human look, and the result with secret effects applied."""

from __future__ import annotations

from tally.model import Finding, Tally
from tally.render.post import DIALECTS, count_line, when


def unresolved(tally: Tally) -> list[Finding]:
    return [f for f in tally.findings if f.rule == "C2"]


def render_gm(tally: Tally) -> str:
    d = DIALECTS["text"]
    lines = ["GM report (private: do not post)", "=" * 32]
    names = unresolved(tally)
    lines.append(f"Unresolved names ({len(names)}):" if names else "Unresolved names: none")
    lines += [f"  - {f.message}" for f in names]
    flags = [f for f in tally.findings if f.rule != "C2"]
    lines.append(f"Flags ({len(flags)}):" if flags else "Flags: none")
    for f in flags:
        mark = " [needs GM]" if f.needs_gm else ""
        secret = " [secret]" if f.secret else ""
        where = f" (post {f.post_id})" if f.post_id else ""
        lines.append(f"  - {f.rule}{mark}{secret}: {f.message}{where}")
    lines.append(f"Not voting: {', '.join(tally.not_voting) or 'none'}")
    if tally.seed:
        lines.append(f"Tiebreak seed: {tally.seed}")
    if tally.gm_counts is not None or tally.gm_outcome is not None:
        lines.append("")
        lines.append("GM result with secret effects applied:")
        permalinks = {v.post_id: v.permalink for v in tally.verdicts}
        for count in tally.gm_counts or ():
            lines.append("  " + count_line(count, d, permalinks))
        if tally.gm_outcome:
            o = tally.gm_outcome
            who = f" {o.player}" if o.player else ""
            lines.append(f"  Outcome: {o.result}{who} ({o.rule}: {o.detail})")
    if tally.notes:
        lines.append("")
        lines.append("Preset defaults in force:")
        lines += [f"  - {n}" for n in tally.notes]
    if tally.reading:
        lines.append("")
        lines.append("Reading the thread:")
        lines += [f"  - {n}" for n in tally.reading]
    lines.append(f"Report made as of {when(tally.as_of, tally.zone)}.")
    return "\n".join(lines) + "\n"
