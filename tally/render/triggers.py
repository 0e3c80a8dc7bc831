"""The GM's private trigger report (T1-T8, `tally triggers`): never posted (T8). Written in the
game's language like the GM report (issue 14); the rules' lines are messages, translated here."""

from __future__ import annotations

from tally.render.i18n import get
from tally.render.post import rule_name
from tally.rules.trigger_cn import Judged, trigger_line


def render_triggers(judged: Judged, lang: str = "en") -> str:
    t = get(lang)
    lines = [t._("Trigger report (private: do not post; T8)"), "=" * 42]
    for finding in judged.notes:
        lines.append(f"! {t.text(finding.message)}")
    lines.append(t._("Met ({n}):", n=len(judged.changes)) if judged.changes else t._("Met: none"))
    lines += [f"  - [{rule_name(c.rule, t)}] {t.text(trigger_line(c, judged.zone))}"
              for c in judged.changes]
    lines.append(t._("Open ({n}):", n=len(judged.open)) if judged.open else t._("Open: none"))
    for cond, passed in judged.open:
        lines.append("  - " + t._("“{condition}”", condition=cond.name)
                     + "".join(t._("; passed over {who}", who=p) for p in passed))
    subs = sorted(p for p, s in judged.roles.items() if s != "civilian")
    standing = [t._("{player} (promoted)", player=p) if judged.roles[p] == "promoted"
                else t._("{player} (waiting)", player=p) for p in subs]
    lines.append(t._("Substitute killers: {players}",
                     players=t.p_("between names", ", ").join(standing) or t._("none")))
    return "\n".join(lines) + "\n"
