"""The HTML report: one self-contained page (inline CSS and SVG, no script, nothing fetched).

The public page is built from `public_view(tally)`: the same split as the public post and the
public JSON (C5): no finding, no GM result, no preset notes, and no verdict of a post that a
secret finding points at. Roles never reach it either: they come from the game file and are
passed to the GM page only. The GM page (`gm=True`) is the public page plus a marked section with
the secret effects, and says "GM only - do not publish" at the top.

Every piece of forum text is escaped; only http(s) addresses become links (a post's permalink,
the thread), everything else on the page is an in-page anchor.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from html import escape
from urllib.parse import urljoin

from tally import __version__, times
from tally.model import Count, Finding, Outcome, Tally, Verdict
from tally.render import neutral
from tally.render.chart import palette, render_chart
from tally.render.i18n import Lang, get
from tally.render.post import line_of, outcome_text, rule_name, up_to_position
from tally.rules.reading import is_judged_on_copy
from tally.timeline import Step, Timeline


def gm_warning(t: Lang) -> str:
    return t._("GM only - do not publish")


def verdict_label(verdict: str, t: Lang) -> str:
    labels = {"counted": t.p_("verdict", "counted"), "void": t.p_("verdict", "void"),
              "superseded": t.p_("verdict", "superseded"),
              "not_a_vote": t.p_("verdict", "no vote")}
    return labels[verdict]


_SLOT = "\ue000"  # where a reason goes in its sentence, filled after escaping
_SLOT2 = "\ue002"  # a second one (a name in bold, then what it did)


def _counted(heading: str, n: int, t: Lang) -> str:
    """A heading with how many items follow ("Void votes (2)", Chinese "无效票（2）")."""
    return escape(t._("{heading} ({n})", heading=heading, n=n))


def _labelled(label: str, said: str, t: Lang) -> str:
    """Markup `label`, then `said` (markup), with the language's colon ("a: b", "a : b",
    "a：b")."""
    return escape(t._("{label}: {said}", label=_SLOT, said=_SLOT2)).replace(
        _SLOT, label).replace(_SLOT2, said)


def _text(said: str, t: Lang) -> str:
    """A rule's reason or a note in the page's language, escaped (names inside stay as written,
    less bidi controls, issue 17)."""
    return escape(t.text(said, neutral.plain))

CSS = """
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;background:#f3f4f6;color:#1c1d21;
 font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:960px;margin:0 auto;padding:10px}
header,section{background:#fff;border:1px solid #dcdfe4;border-radius:8px;padding:12px 14px;
 margin:10px 0}
h1{font-size:1.3rem;margin:0 0 6px;overflow-wrap:anywhere}
h2{font-size:1.08rem;margin:0 0 8px}
h3{font-size:.98rem;margin:12px 0 6px}
a{color:#0a58ca}
p{margin:6px 0}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:2px 12px;margin:8px 0 0}
.facts dt{color:#5b616e}
.facts dd{margin:0;overflow-wrap:anywhere}
nav{font-size:.9rem;margin-top:8px}
nav a{margin-right:10px;white-space:nowrap}
.outcome{font-weight:600;border-left:4px solid #0072B2;padding:6px 10px;background:#f0f6fb}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;max-width:100%}
table{border-collapse:collapse;width:100%;font-size:.92rem}
th,td{text-align:left;padding:5px 7px;border-bottom:1px solid #eceef1;vertical-align:top}
th{background:#f7f8fa;font-weight:600;white-space:nowrap}
td.num,th.num{text-align:right}
td{overflow-wrap:anywhere}
td.when,td.pos{white-space:nowrap}
.why{display:block;color:#5b616e;font-size:.85rem}
.badge{display:inline-block;padding:0 6px;border-radius:9px;font-size:.8rem;font-weight:600;
 white-space:nowrap}
.b-counted{background:#dff3e6;color:#0b6b2f}
.b-void{background:#fde2e1;color:#a0141e}
.b-superseded{background:#eceef1;color:#444}
.b-not_a_vote{background:#f5f5f5;color:#777;font-weight:400}
tr.v-not_a_vote td{color:#6b7079}
figure{margin:0}
svg.chart{display:block;max-width:640px;height:auto;margin:0 auto}
.legend{list-style:none;padding:0;margin:8px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px}
.legend li{white-space:nowrap}
.legend svg{vertical-align:middle;margin-right:4px}
.void-list{list-style:none;padding:0;margin:0}
.void-list>li{border:1px solid #f1c9c7;border-left:4px solid #a0141e;border-radius:6px;
 padding:8px 10px;margin:8px 0;background:#fffafa}
.void-list ul{margin:4px 0 0;padding-left:18px}
.evidence li{overflow-wrap:anywhere}
q,.quote{font-style:italic}
.gm-banner{background:#a0141e;color:#fff;font-weight:700;text-align:center;padding:8px;
 border-radius:6px;letter-spacing:.02em}
section.gm{border:2px solid #a0141e;background:#fff8f8}
section.gm h2{color:#a0141e}
.muted{color:#5b616e;font-size:.88rem}
footer{color:#5b616e;font-size:.82rem;text-align:center;padding:8px}
@media (min-width:700px){body{font-size:16px}main{padding:16px}}
@media (max-width:599px){
 table.stack thead{display:none}
 table.stack tr{display:block;border-bottom:1px solid #eceef1;padding:5px 2px}
 table.stack td{display:inline;border:0;padding:0 6px 0 0}
 table.stack td.did{display:block}
 table.stack tr.v-not_a_vote td.did{display:none}
 table.stack td.verdict{display:block}
 table.stack .why{display:inline;margin-left:4px}
}
"""


def public_view(tally: Tally) -> Tally:
    """What anyone may see (C5): jsonout's public split, with no GM-only field left to leak."""
    secret_posts = {f.post_id for f in tally.findings if f.secret}
    return replace(tally, findings=(), gm_counts=None, gm_outcome=None, notes=(),
                   verdicts=tuple(v for v in tally.verdicts if v.post_id not in secret_posts))


def absolute_links(tally: Tally) -> Tally:
    """Post links as full addresses: some engines give them relative to the forum (Forumotion's
    "/t245-…#3102"); they are resolved against the thread, as a browser on the forum would."""
    verdicts = tuple(replace(v, permalink=urljoin(tally.thread_url, v.permalink))
                     if v.permalink else v for v in tally.verdicts)
    return replace(tally, verdicts=verdicts)


def render_html(tally: Tally, timeline: Timeline, *, gm: bool = False,
                roles: Mapping[str, str] | None = None, lang: str = "en") -> str:
    """The public page, or with `gm` the GM's page (secret effects, findings, `roles`), written
    in `lang` (issue 14)."""
    t = get(lang)
    tally = absolute_links(tally)
    shown = tally if gm else public_view(tally)
    if not gm:
        timeline = replace(timeline, gm=None)  # the GM's series never reaches a public page
    final = tally.as_of >= tally.deadline or tally.ended_at is not None
    game = neutral.plain(tally.game)
    title = (t._("Vote count, day {day} (final): {game}", day=tally.day, game=game) if final
             else t._("Vote count, day {day}: {game}", day=tally.day, game=game))
    warning = gm_warning(t)
    body = ['<a id="top"></a>']
    if gm:
        body.append(f'<p class="gm-banner" id="gm-warning">{escape(warning)}</p>')
    body.append(_header(shown, title, gm, t))
    body.append(_count_section(shown, final, t))
    over_time = t._("Votes over time")
    body.append(f'<section id="chart"><h2>{escape(over_time)}</h2>'
                + _chart(shown, timeline, timeline.public, over_time, t._("public count"), t)
                + "</section>")
    body.append(_disputed_section(shown, t))
    body.append(_void_section(shown, t))
    body.append(_log_section(shown, t))
    if gm:
        body.append(_gm_section(tally, timeline, roles or {}, t))
    footer = t._("Made by tally {version} (preset {preset}). This page loads nothing from the "
                 "network; its links go to the forum.", version=__version__, preset=tally.preset)
    body.append(f"<footer>{escape(footer)}</footer>")
    tab = t._("{warning}: {title}", warning=warning, title=title) if gm else title
    head = (f'<!DOCTYPE html>\n<html lang="{escape(t.code)}">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            + ('<meta name="robots" content="noindex, nofollow">\n' if gm else "")
            + f"<title>{escape(tab)}</title>\n"
            f"<style>{CSS}</style>\n</head>\n")
    return head + "<body>\n<main>\n" + "\n".join(body) + "\n</main>\n</body>\n</html>\n"


# ---------------------------------------------------------------------------------------------
# Pieces


def _link(text: str, url: str, **attrs: str) -> str:
    """A link to the forum; plain text for anything that is not an http(s) address."""
    extra = "".join(f' {k.replace("_", "-")}="{escape(v)}"' for k, v in attrs.items())
    text = neutral.plain(text)  # a name's bidi controls never turn the line around (issue 17)
    if url.startswith(("https://", "http://")):
        return f'<a href="{escape(url)}"{extra}>{escape(text)}</a>'
    return f"<span{extra}>{escape(text)}</span>"


def _when_text(value: datetime, zone: str, t: Lang) -> str:
    """Forum time first (what players see), UTC beside it."""
    local = t.timef(value, zone, "yyyy-MM-dd HH:mm:ss")
    abbr = times.zone_abbreviation(value, zone)
    if times.to_local(value, zone).utcoffset():
        utc = f"{value:%Y-%m-%d %H:%M:%S}"
        return t._("{local} {zone} · {utc} UTC", local=local, zone=abbr, utc=utc)
    return t._("{local} {zone}", local=local, zone=abbr)


def _when(value: datetime, zone: str, t: Lang) -> str:
    return escape(_when_text(value, zone, t))


def _header(tally: Tally, title: str, gm: bool, t: Lang) -> str:
    at = _when_text(tally.as_of, tally.zone, t)
    position = up_to_position(tally)
    up_to = escape(t._("{when}, counted up to post #{position} ({post})", when=at,
                       position=position, post=tally.counted_up_to) if position is not None
                   else t._("{when}, counted up to post {post}", when=at, post=tally.counted_up_to)
                   if tally.counted_up_to else
                   t._("{when}, counted up to the start of the day", when=at))
    facts = [(t._("Day"), t.number(tally.day)), (t._("Deadline"), _when(tally.deadline, tally.zone, t)),
             (t._("As of"), up_to)]
    if tally.ended_at is not None:
        facts.append((t._("Day ended"), _when(tally.ended_at, tally.zone, t)))
    facts.append((t._("Forum time"), escape(tally.zone)))
    if tally.thread_url:
        facts.append((t._("Thread"), _link(tally.thread_url, tally.thread_url)))
    links = [("count", t._("Count")), ("chart", t._("Chart")), ("void", t._("Void votes")),
             ("log", t._("Vote log"))]
    if gm:
        links.append(("gm", t._("GM only")))
    return (f"<header><h1>{escape(title)}</h1>"
            + '<dl class="facts">' + "".join(f"<dt>{escape(k)}</dt><dd>{v}</dd>" for k, v in facts)
            + "</dl><nav>" + "".join(f'<a href="#{a}">{escape(n)}</a>' for a, n in links)
            + "</nav></header>")


def _permalinks(tally: Tally) -> dict[str, str]:
    return {v.post_id: v.permalink for v in tally.verdicts}


def _count_table(counts: Sequence[Count], permalinks: Mapping[str, str], css_id: str,
                 t: Lang) -> str:
    if not counts:
        return "<p>" + escape(t._("No votes yet.")) + "</p>"
    rows = []
    for c in counts:
        posts = c.posts or ("",) * len(c.voters)
        voters = escape(t.p_("between names", ", ")).join(
            _link(t.text(voter), permalinks.get(post, ""), data_post=post)
            for voter, post in zip(c.voters, posts))
        rows.append(f'<tr data-candidate="{escape(c.player)}" data-votes="{c.votes}">'
                    f"<td>{escape(neutral.plain(c.player))}</td><td class=\"num\">{t.number(c.votes)}</td>"
                    f"<td>{voters}</td></tr>")
    candidate, votes, voters_head = t._("Candidate"), t._("Votes"), t._("Voters")
    head = (f"<th>{escape(candidate)}</th><th class=\"num\">{escape(votes)}</th>"
            f"<th>{escape(voters_head)}</th>")
    return (f'<div class="scroll"><table id="{css_id}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _outcome(o: Outcome, text: str, css_id: str) -> str:
    who = f' data-player="{escape(o.player)}"' if o.player else ""
    return (f'<p class="outcome" id="{css_id}" data-result="{escape(o.result)}"{who}>'
            f"{escape(text)}</p>")


def _count_section(tally: Tally, final: bool, t: Lang) -> str:
    heading = t._("Count")
    parts = [f'<section id="count"><h2>{escape(heading)}</h2>',
             _outcome(tally.outcome, outcome_text(tally.outcome, final, t, neutral.plain), "outcome"),
             _count_table(tally.counts, _permalinks(tally), "counts", t)]
    if tally.not_voting:
        line = line_of(t, t._("Not voting"), t.number(len(tally.not_voting)),
                       t.names(tally.not_voting, neutral.plain))
        parts.append(f'<p id="not-voting">{escape(line)}</p>')
    if tally.majority is not None:
        parts.append("<p>" + escape(t.n_("With {alive} alive, it takes {n} to eliminate.",
                                          "With {alive} alive, it takes {n} to eliminate.",
                                          alive=len(tally.living), n=tally.majority)) + "</p>")
    if tally.threshold is not None and tally.outcome.result != "eliminated":  # as the post (K9)
        parts.append("<p>" + escape(t.n_("Nobody is eliminated with fewer than {n} votes.",
                                          "Nobody is eliminated with fewer than {n} votes.",
                                          n=tally.threshold)) + "</p>")
    if tally.seed:  # K10: the draw is public so anyone can repeat it
        seed = t._("Random draw seed: {seed}", seed=tally.seed)
        parts.append(f"<p>{escape(seed)}</p>")
    parts.append("</section>")
    return "".join(parts)


def _needed(tally: Tally, t: Lang) -> tuple[int | None, str]:
    if tally.majority is not None:
        return tally.majority, t._("majority {n}", n=tally.majority)
    if tally.threshold is not None:
        return tally.threshold, t._("{n} needed", n=tally.threshold)
    return None, ""


def _chart(tally: Tally, timeline: Timeline, steps: Sequence[Step], heading: str,
           which: str, t: Lang) -> str:
    """The figure: the SVG, its legend in text (name and final votes) and how to read it."""
    if not steps:
        return "<p>" + escape(t._("No vote in the day's window yet.")) + "</p>"
    needed, label = _needed(tally, t)
    looks = palette(timeline)
    title = t._("{heading}, day {day} ({which})", heading=heading, day=tally.day, which=which)
    svg = render_chart(timeline, steps, title=title, looks=looks, needed=needed,
                       needed_label=label, t=t)
    final = dict(steps[-1].counts)
    legend = []
    for name in timeline.candidates(steps):
        look = looks[name]
        dash = f' stroke-dasharray="{look.dash}"' if look.dash else ""
        legend.append(f'<li data-candidate="{escape(name)}"><svg width="30" height="10" '
                      f'aria-hidden="true"><line x1="1" y1="5" x2="29" y2="5" '
                      f'stroke="{look.colour}" stroke-width="3"{dash}/></svg>'
                      + escape(t._("{name}: {votes}", name=neutral.plain(name),
                                   votes=final.get(name, 0))) + "</li>")
    caption = t._("Votes standing after each change ({which}); times are forum time ({zone}). "
                  "The dashed red line is the deadline.", which=which, zone=timeline.zone)
    return (f'<figure>{svg}<figcaption><ul class="legend">{"".join(legend)}</ul>'
            f'<p class="muted">{escape(caption)}</p></figcaption></figure>')


def _did(v: Verdict, t: Lang) -> str:
    """What the post did, in words: the vote as written when no player could be matched."""
    if v.verdict == "not_a_vote":
        return "-"
    if v.target:
        return t._("vote for {player}", player=neutral.plain(v.target))
    if v.match is not None:
        return t._("vote for '{written}' (no player matched)", written=neutral.plain(v.match.written))
    return t._("unvote")


def _verdict_badge(v: Verdict, t: Lang) -> str:
    rule = f" {escape(rule_name(v.rule, t))}" if v.rule else ""
    return f'<span class="badge b-{v.verdict}">{escape(verdict_label(v.verdict, t))}{rule}</span>'


def _post_link(v: Verdict, t: Lang) -> str:
    return _link(f"#{v.position}", v.permalink, title=t._("Post {post}", post=v.post_id))


def _card(v: Verdict, tally: Tally, t: Lang, prefix: str) -> str:
    """One vote as a card: who, what, the verdict with its rule and reason, when, and every
    piece of evidence (edit markers, the copy it was judged on)."""
    evidence = "".join(f"<li>{_text(e, t)}</li>" for e in v.evidence)
    written = (t._(" (written '{written}')", written=neutral.plain(v.match.written))
               if v.target and v.match is not None and v.match.written != v.target else "")
    reason = f'<span class="reason">{_text(v.reason, t)}</span>'
    why = (escape(t._("Rule {rule}: {reason}", rule=rule_name(v.rule, t), reason=_SLOT)).replace(
        _SLOT, reason) if v.rule else reason)  # a counted vote has no rule: "Rule -:" read odd
    where = escape(t._("{when} · post {post}", when=_when_text(v.time, tally.zone, t),
                       post=v.post_id))
    return (f'<li id="{prefix}-{escape(v.post_id)}" data-post="{escape(v.post_id)}" '
            f'data-verdict="{v.verdict}">'
            + _labelled(f"<strong>{escape(neutral.plain(v.author))}</strong>",
                        escape(_did(v, t) + written), t)
            + f" {_verdict_badge(v, t)}<br>"
            + f"<span>{why}</span>"
            + f'<span class="why">{where} {_post_link(v, t)}</span>'
            + (f'<ul class="evidence">{evidence}</ul>' if evidence else "") + "</li>")


def _void_section(tally: Tally, t: Lang) -> str:
    void = [v for v in sorted(tally.verdicts, key=_order) if v.verdict == "void"]
    heading = t._("Void votes")
    if not void:
        none = t._("None.")
        return f'<section id="void"><h2>{escape(heading)}</h2><p>{escape(none)}</p></section>'
    items = "".join(_card(v, tally, t, "void") for v in void)
    return (f'<section id="void"><h2>{_counted(heading, len(void), t)}</h2>'
            f'<ul class="void-list">{items}</ul></section>')


def _disputed_section(tally: Tally, t: Lang) -> str:
    """Issue 17: a vote changed after the deadline with no edit marker (or deleted later) is
    judged on the copy fetched by the deadline (C6); its card says so, with both fetch times,
    as the public JSON does. Void ones are in the void section already."""
    judged = [v for v in sorted(tally.verdicts, key=_order)
              if v.verdict != "void" and any(is_judged_on_copy(e) for e in v.evidence)]
    if not judged:
        return ""
    items = "".join(_card(v, tally, t, "judged") for v in judged)
    heading = t._("Votes judged on the copy fetched by the deadline")
    return (f'<section id="judged"><h2>{_counted(heading, len(judged), t)}</h2>'
            f'<ul class="void-list judged-list">{items}</ul></section>')


def _order(v: Verdict) -> tuple[datetime, int]:
    return v.time, v.position


def _log_section(tally: Tally, t: Lang) -> str:
    rows = []
    for v in sorted(tally.verdicts, key=_order):
        did = _did(v, t)
        when = t.timef(v.time, tally.zone, "dd MMM HH:mm:ss")
        reason = t.text(v.reason, neutral.plain) if v.reason else ""
        judged = [_text(e, t) for e in v.evidence if is_judged_on_copy(e)]
        why = "".join(f'<span class="why reason">{w}</span>' for w in
                      ([escape(reason)] if reason and reason != did else []) + judged)
        rows.append(f'<tr class="v-{v.verdict}" data-post="{escape(v.post_id)}" '
                    f'data-verdict="{v.verdict}">'
                    f'<td class="pos">{_post_link(v, t)}</td>'
                    f'<td class="when">{escape(when)}</td>'
                    f'<td class="author">{escape(neutral.plain(v.author))}</td>'
                    f'<td class="did">{escape(did)}</td>'
                    f'<td class="verdict">{_verdict_badge(v, t)}{why}</td></tr>')
    counted = sum(1 for v in tally.verdicts if v.verdict == "counted")
    heading = t.n_("Vote log ({n} post, {counted} counted)", "Vote log ({n} posts, {counted} counted)",
                   n=len(tally.verdicts), counted=counted)
    intro = t._("Every post of the day's window in time order, forum time ({zone}); the post "
                "number links to the post.", zone=tally.zone)
    head = "".join(f"<th>{escape(h)}</th>" for h in (t._("Post"), t._("Time"), t._("Author"),
                                                    t._("The post"), t._("Verdict")))
    return (f'<section id="log"><h2>{escape(heading)}</h2>'
            f'<p class="muted">{escape(intro)}</p>'
            f'<div class="scroll"><table id="vote-log" class="stack"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div></section>")


# ---------------------------------------------------------------------------------------------
# The GM's section (never in the public page)


def _gm_section(tally: Tally, timeline: Timeline, roles: Mapping[str, str], t: Lang) -> str:
    title = t._("GM only: secret effects ({warning})", warning=gm_warning(t))
    parts = [f'<section class="gm" id="gm"><h2>{escape(title)}</h2>']
    if roles:
        rows = "".join(f"<tr><td>{escape(p)}</td><td>{escape(r)}</td></tr>"
                       for p, r in roles.items())
        words = t._("Roles"), t._("Player"), t._("Role")
        parts.append(f'<h3>{escape(words[0])}</h3><div class="scroll"><table id="roles"><thead><tr>'
                     f"<th>{escape(words[1])}</th><th>{escape(words[2])}</th></tr></thead>"
                     f"<tbody>{rows}</tbody></table></div>")
    if tally.gm_counts is not None or tally.gm_outcome is not None:
        parts.append("<h3>" + escape(t._("The GM's count, secret effects applied")) + "</h3>")
        if tally.gm_outcome is not None:
            line = t._("GM result: {outcome}",
                       outcome=outcome_text(tally.gm_outcome, True, t, neutral.plain))
            parts.append(_outcome(tally.gm_outcome, line, "gm-outcome"))
        parts.append(_count_table(tally.gm_counts or (), _permalinks(tally), "gm-counts", t))
    else:
        parts.append("<p>" + escape(t._("No secret effect changes the count.")) + "</p>")
    if timeline.gm is not None:
        over_time = t._("Votes over time")
        applied = t._("Votes over time, secret effects applied")
        parts.append(f'<h3>{escape(applied)}</h3>'
                     '<div id="gm-chart">'
                     + _chart(tally, timeline, timeline.gm, over_time, t._("GM count"), t)
                     + "</div>")
    parts.append(_findings(t._("Unresolved names"), [f for f in tally.findings if f.rule == "C2"],
                           "unresolved", t))
    parts.append(_findings(t._("Flags"), [f for f in tally.findings if f.rule != "C2"], "flags", t))
    if tally.notes:
        parts.append("<h3>" + escape(t._("Preset defaults in force")) + "</h3><ul>"
                     + "".join(f'<li class="note">{_text(n, t)}</li>' for n in tally.notes)
                     + "</ul>")
    parts.append("</section>")
    return "".join(parts)


def _findings(heading: str, found: Iterable[Finding], css_id: str, t: Lang) -> str:
    items = []
    for f in found:
        needs, secret = t._("needs GM"), t._("secret")
        marks = (f' <span class="badge b-void">{escape(needs)}</span>' if f.needs_gm else "") + (
            f' <span class="badge b-superseded">{escape(secret)}</span>' if f.secret else "")
        where = escape(t._(" (post {post})", post=f.post_id)) if f.post_id else ""
        items.append(f'<li data-rule="{escape(f.rule)}" data-secret="{str(f.secret).lower()}">'
                     + _labelled(f"<strong>{escape(rule_name(f.rule, t))}</strong>{marks}",
                                 f'<span class="reason">{_text(f.message, t)}</span>{where}', t)
                     + "</li>")
    body = (f'<ul id="{css_id}">{"".join(items)}</ul>' if items
            else "<p>" + escape(t._("None.")) + "</p>")
    return f"<h3>{_counted(heading, len(items), t)}</h3>{body}"
