"""The GM's private trigger report (T1-T8, `tally triggers`): never posted (T8)."""

from __future__ import annotations

from tally.rules.trigger_cn import Judged, trigger_line


def render_triggers(judged: Judged) -> str:
    lines = ["Trigger report (private: do not post; T8)", "=" * 42]
    for finding in judged.notes:
        lines.append(f"! {finding.message}")
    lines.append(f"Met ({len(judged.changes)}):" if judged.changes else "Met: none")
    lines += [f"  - [{c.rule}] {trigger_line(c, judged.zone)}" for c in judged.changes]
    lines.append(f"Open ({len(judged.open)}):" if judged.open else "Open: none")
    for cond, passed in judged.open:
        lines.append(f"  - “{cond.name}”" + "".join(f"; passed over {p}" for p in passed))
    subs = sorted(p for p, s in judged.roles.items() if s != "civilian")
    lines.append("Substitute killers: " + (", ".join(
        f"{p} ({'promoted' if judged.roles[p] == 'promoted' else 'waiting'})" for p in subs) or "none"))
    return "\n".join(lines) + "\n"
