"""The GM's private report: what needs a human look, and the result with secret effects applied.
Written in the game's language (issue 14); the rules' findings are messages, translated here."""

from __future__ import annotations

from tally.model import Finding, Tally
from tally.render.i18n import get
from tally.render.post import DIALECTS, count_line, outcome_text, rule_name, when


def unresolved(tally: Tally) -> list[Finding]:
    return [f for f in tally.findings if f.rule == "C2"]


def render_gm(tally: Tally, lang: str = "en") -> str:
    d, t = DIALECTS["text"], get(lang)
    title = t._("GM report (private: do not post)")
    lines = [title, "=" * 32]
    names = unresolved(tally)
    lines.append(t._("Unresolved names ({n}):", n=len(names)) if names
                 else t._("Unresolved names: none"))
    lines += [f"  - {t.text(f.message)}" for f in names]
    flags = [f for f in tally.findings if f.rule != "C2"]
    lines.append(t._("Flags ({n}):", n=len(flags)) if flags else t._("Flags: none"))
    needs, secret = t._(" [needs GM]"), t._(" [secret]")
    for f in flags:
        where = t._(" (post {post})", post=f.post_id) if f.post_id else ""
        label = f"{rule_name(f.rule, t)}{needs if f.needs_gm else ''}{secret if f.secret else ''}"
        said = t.text(f.message) + where
        lines.append("  - " + t._("{label}: {said}", label=label, said=said))
    absent = t.names(tally.not_voting) or t._("none")
    lines.append(t._("Not voting: {players}", players=absent))
    if tally.seed:
        lines.append(t._("Tiebreak seed: {seed}", seed=tally.seed))
    if tally.gm_counts is not None or tally.gm_outcome is not None:
        lines.append("")
        lines.append(t._("GM result with secret effects applied:"))
        permalinks = {v.post_id: v.permalink for v in tally.verdicts}
        for count in tally.gm_counts or ():
            lines.append("  " + count_line(count, d, permalinks, t))
        if tally.gm_outcome:
            o = tally.gm_outcome
            if t.code == "en":  # the outcome's own key, as before (tests and scripts read it)
                who = f" {o.player}" if o.player else ""
                lines.append(f"  Outcome: {o.result}{who} ({o.rule}: {o.detail})")
            else:
                lines.append("  " + t._("Outcome: {outcome}",
                                        outcome=outcome_text(o, True, t, d.text)))
    if tally.notes:
        lines.append("")
        lines.append(t._("Preset defaults in force:"))
        lines += [f"  - {t.text(n)}" for n in tally.notes]
    if tally.reading:
        lines.append("")
        lines.append(t._("Reading the thread:"))
        lines += [f"  - {t.text(n)}" for n in tally.reading]
    lines.append(t._("Report made as of {when}.", when=when(tally.as_of, tally.zone, t)))
    return "\n".join(lines) + "\n"
