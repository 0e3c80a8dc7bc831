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
from tally.render.chart import palette, render_chart
from tally.render.post import outcome_line
from tally.timeline import Step, Timeline

GM_WARNING = "GM only - do not publish"

VERDICT_LABELS = {"counted": "counted", "void": "void", "superseded": "superseded",
                  "not_a_vote": "no vote"}

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
                roles: Mapping[str, str] | None = None) -> str:
    """The public page, or with `gm` the GM's page (secret effects, findings, `roles`)."""
    tally = absolute_links(tally)
    shown = tally if gm else public_view(tally)
    if not gm:
        timeline = replace(timeline, gm=None)  # the GM's series never reaches a public page
    final = tally.as_of >= tally.deadline or tally.ended_at is not None
    title = f"Vote count, day {tally.day}{' (final)' if final else ''}: {tally.game}"
    body = ['<a id="top"></a>']
    if gm:
        body.append(f'<p class="gm-banner" id="gm-warning">{GM_WARNING}</p>')
    body.append(_header(shown, title, gm))
    body.append(_count_section(shown, final))
    body.append('<section id="chart"><h2>Votes over time</h2>'
                + _chart(shown, timeline, timeline.public, "Votes over time", "public count")
                + "</section>")
    body.append(_void_section(shown))
    body.append(_log_section(shown))
    if gm:
        body.append(_gm_section(tally, timeline, roles or {}))
    body.append(f"<footer>Made by tally {escape(__version__)} (preset {escape(tally.preset)}). "
                "This page loads nothing from the network; its links go to the forum.</footer>")
    head = ('<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
            '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
            + ('<meta name="robots" content="noindex, nofollow">\n' if gm else "")
            + f"<title>{escape((GM_WARNING + ': ') if gm else '')}{escape(title)}</title>\n"
            f"<style>{CSS}</style>\n</head>\n")
    return head + "<body>\n<main>\n" + "\n".join(body) + "\n</main>\n</body>\n</html>\n"


# ---------------------------------------------------------------------------------------------
# Pieces


def _link(text: str, url: str, **attrs: str) -> str:
    """A link to the forum; plain text for anything that is not an http(s) address."""
    extra = "".join(f' {k.replace("_", "-")}="{escape(v)}"' for k, v in attrs.items())
    if url.startswith(("https://", "http://")):
        return f'<a href="{escape(url)}"{extra}>{escape(text)}</a>'
    return f"<span{extra}>{escape(text)}</span>"


def _when(value: datetime, zone: str) -> str:
    """Forum time first (what players see), UTC beside it."""
    local = times.to_local(value, zone)
    shown = f"{local:%Y-%m-%d %H:%M:%S} {local.tzname() or zone}"
    if local.utcoffset():
        shown += f" · {value:%Y-%m-%d %H:%M:%S} UTC"
    return escape(shown)


def _header(t: Tally, title: str, gm: bool) -> str:
    up_to = f"post {t.counted_up_to}" if t.counted_up_to else "the start of the day"
    facts = [("Day", str(t.day)), ("Deadline", _when(t.deadline, t.zone)),
             ("As of", f"{_when(t.as_of, t.zone)}, counted up to {escape(up_to)}")]
    if t.ended_at is not None:
        facts.append(("Day ended", _when(t.ended_at, t.zone)))
    facts.append(("Forum time", escape(t.zone)))
    if t.thread_url:
        facts.append(("Thread", _link(t.thread_url, t.thread_url)))
    links = [("count", "Count"), ("chart", "Chart"), ("void", "Void votes"), ("log", "Vote log")]
    if gm:
        links.append(("gm", "GM only"))
    return (f"<header><h1>{escape(title)}</h1>"
            + '<dl class="facts">' + "".join(f"<dt>{k}</dt><dd>{v}</dd>" for k, v in facts)
            + "</dl><nav>" + "".join(f'<a href="#{a}">{n}</a>' for a, n in links)
            + "</nav></header>")


def _permalinks(t: Tally) -> dict[str, str]:
    return {v.post_id: v.permalink for v in t.verdicts}


def _count_table(counts: Sequence[Count], permalinks: Mapping[str, str], css_id: str) -> str:
    if not counts:
        return "<p>No votes yet.</p>"
    rows = []
    for c in counts:
        posts = c.posts or ("",) * len(c.voters)
        voters = ", ".join(_link(voter, permalinks.get(post, ""), data_post=post)
                           for voter, post in zip(c.voters, posts))
        rows.append(f'<tr data-candidate="{escape(c.player)}" data-votes="{c.votes}">'
                    f"<td>{escape(c.player)}</td><td class=\"num\">{c.votes}</td>"
                    f"<td>{voters}</td></tr>")
    return (f'<div class="scroll"><table id="{css_id}"><thead><tr><th>Candidate</th>'
            '<th class="num">Votes</th><th>Voters</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>")


def _outcome(o: Outcome, text: str, css_id: str) -> str:
    who = f' data-player="{escape(o.player)}"' if o.player else ""
    return (f'<p class="outcome" id="{css_id}" data-result="{escape(o.result)}"{who}>'
            f"{escape(text)}</p>")


def _count_section(t: Tally, final: bool) -> str:
    parts = ['<section id="count"><h2>Count</h2>',
             _outcome(t.outcome, outcome_line(t, final), "outcome"),
             _count_table(t.counts, _permalinks(t), "counts")]
    if t.not_voting:
        parts.append(f'<p id="not-voting">Not voting ({len(t.not_voting)}): '
                     f"{escape(', '.join(t.not_voting))}</p>")
    if t.majority is not None:
        parts.append(f"<p>With {len(t.living)} alive, it takes {t.majority} to eliminate.</p>")
    if t.threshold is not None:
        parts.append(f"<p>Nobody is eliminated with fewer than {t.threshold} votes.</p>")
    if t.seed:  # K10: the draw is public so anyone can repeat it
        parts.append(f"<p>Random draw seed: <code>{escape(t.seed)}</code></p>")
    parts.append("</section>")
    return "".join(parts)


def _needed(t: Tally) -> tuple[int | None, str]:
    if t.majority is not None:
        return t.majority, f"majority {t.majority}"
    if t.threshold is not None:
        return t.threshold, f"{t.threshold} needed"
    return None, ""


def _chart(t: Tally, timeline: Timeline, steps: Sequence[Step], heading: str,
           which: str) -> str:
    """The figure: the SVG, its legend in text (name and final votes) and how to read it."""
    if not steps:
        return "<p>No vote in the day's window yet.</p>"
    needed, label = _needed(t)
    looks = palette(timeline)
    svg = render_chart(timeline, steps, title=f"{heading}, day {t.day} ({which})", looks=looks,
                       needed=needed, needed_label=label)
    final = dict(steps[-1].counts)
    legend = []
    for name in timeline.candidates(steps):
        look = looks[name]
        dash = f' stroke-dasharray="{look.dash}"' if look.dash else ""
        legend.append(f'<li data-candidate="{escape(name)}"><svg width="30" height="10" '
                      f'aria-hidden="true"><line x1="1" y1="5" x2="29" y2="5" '
                      f'stroke="{look.colour}" stroke-width="3"{dash}/></svg>'
                      f"{escape(name)}: {final.get(name, 0)}</li>")
    return (f'<figure>{svg}<figcaption><ul class="legend">{"".join(legend)}</ul>'
            f'<p class="muted">Votes standing after each change ({escape(which)}); times are '
            f"forum time ({escape(timeline.zone)}). The dashed red line is the deadline."
            "</p></figcaption></figure>")


def _did(v: Verdict) -> str:
    """What the post did, in words: the vote as written when no player could be matched."""
    if v.verdict == "not_a_vote":
        return "-"
    if v.target:
        return f"vote for {v.target}"
    if v.match is not None:
        return f"vote for '{v.match.written}' (no player matched)"
    return "unvote"


def _verdict_badge(v: Verdict) -> str:
    rule = f" {escape(v.rule)}" if v.rule else ""
    return (f'<span class="badge b-{v.verdict}">{VERDICT_LABELS[v.verdict]}{rule}</span>')


def _post_link(v: Verdict) -> str:
    return _link(f"#{v.position}", v.permalink, title=f"post {v.post_id}")


def _void_section(t: Tally) -> str:
    void = [v for v in sorted(t.verdicts, key=_order) if v.verdict == "void"]
    if not void:
        return '<section id="void"><h2>Void votes</h2><p>None.</p></section>'
    items = []
    for v in void:
        evidence = "".join(f"<li>{escape(e)}</li>" for e in v.evidence)
        written = (f" (written {escape(repr(v.match.written))})" if v.target and
                   v.match is not None and v.match.written != v.target else "")
        items.append(
            f'<li id="void-{escape(v.post_id)}" data-post="{escape(v.post_id)}">'
            f"<strong>{escape(v.author)}</strong>: {escape(_did(v))}{written} "
            f"{_verdict_badge(v)}<br>"
            f"<span>Rule {escape(v.rule or '-')}: {escape(v.reason)}</span>"
            f'<span class="why">{_when(v.time, t.zone)} · post {escape(v.post_id)} '
            f"{_post_link(v)}</span>"
            + (f'<ul class="evidence">{evidence}</ul>' if evidence else "") + "</li>")
    return (f'<section id="void"><h2>Void votes ({len(void)})</h2>'
            f'<ul class="void-list">{"".join(items)}</ul></section>')


def _order(v: Verdict) -> tuple[datetime, int]:
    return v.time, v.position


def _log_section(t: Tally) -> str:
    rows = []
    for v in sorted(t.verdicts, key=_order):
        local = times.to_local(v.time, t.zone)
        why = (f'<span class="why">{escape(v.reason)}</span>'
               if v.reason and v.reason != _did(v) else "")
        rows.append(f'<tr class="v-{v.verdict}" data-post="{escape(v.post_id)}" '
                    f'data-verdict="{v.verdict}">'
                    f'<td class="pos">{_post_link(v)}</td>'
                    f'<td class="when">{local:%d %b %H:%M:%S}</td>'
                    f'<td class="author">{escape(v.author)}</td>'
                    f'<td class="did">{escape(_did(v))}</td>'
                    f'<td class="verdict">{_verdict_badge(v)}{why}</td></tr>')
    counted = sum(1 for v in t.verdicts if v.verdict == "counted")
    return (f'<section id="log"><h2>Vote log ({len(t.verdicts)} posts, {counted} counted)</h2>'
            f'<p class="muted">Every post of the day\'s window in time order, forum time '
            f"({escape(t.zone)}); the post number links to the post.</p>"
            '<div class="scroll"><table id="vote-log" class="stack"><thead><tr><th>Post</th><th>Time</th>'
            "<th>Author</th><th>The post</th><th>Verdict</th></tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table></div></section>")


# ---------------------------------------------------------------------------------------------
# The GM's section (never in the public page)


def _gm_section(t: Tally, timeline: Timeline, roles: Mapping[str, str]) -> str:
    parts = [f'<section class="gm" id="gm"><h2>GM only: secret effects ({GM_WARNING})</h2>']
    if roles:
        rows = "".join(f"<tr><td>{escape(p)}</td><td>{escape(r)}</td></tr>"
                       for p, r in roles.items())
        parts.append('<h3>Roles</h3><div class="scroll"><table id="roles"><thead><tr>'
                     f"<th>Player</th><th>Role</th></tr></thead><tbody>{rows}</tbody></table>"
                     "</div>")
    if t.gm_counts is not None or t.gm_outcome is not None:
        parts.append("<h3>The GM's count, secret effects applied</h3>")
        if t.gm_outcome is not None:
            parts.append(_outcome(t.gm_outcome, _gm_outcome_line(t.gm_outcome), "gm-outcome"))
        parts.append(_count_table(t.gm_counts or (), _permalinks(t), "gm-counts"))
    else:
        parts.append("<p>No secret effect changes the count.</p>")
    if timeline.gm is not None:
        parts.append('<h3>Votes over time, secret effects applied</h3><div id="gm-chart">'
                     + _chart(t, timeline, timeline.gm, "Votes over time", "GM count")
                     + "</div>")
    parts.append(_findings("Unresolved names", [f for f in t.findings if f.rule == "C2"], "unresolved"))
    parts.append(_findings("Flags", [f for f in t.findings if f.rule != "C2"], "flags"))
    if t.notes:
        parts.append("<h3>Preset defaults in force</h3><ul>"
                     + "".join(f"<li>{escape(n)}</li>" for n in t.notes) + "</ul>")
    parts.append("</section>")
    return "".join(parts)


def _gm_outcome_line(o: Outcome) -> str:
    who = f" {o.player}" if o.player else ""
    return f"GM result: {o.result}{who} ({o.rule}: {o.detail})"


def _findings(heading: str, found: Iterable[Finding], css_id: str) -> str:
    items = []
    for f in found:
        marks = (' <span class="badge b-void">needs GM</span>' if f.needs_gm else "") + (
            ' <span class="badge b-superseded">secret</span>' if f.secret else "")
        where = f" (post {escape(f.post_id)})" if f.post_id else ""
        items.append(f'<li data-rule="{escape(f.rule)}" data-secret="{str(f.secret).lower()}">'
                     f"<strong>{escape(f.rule)}</strong>{marks}: {escape(f.message)}{where}</li>")
    body = f'<ul id="{css_id}">{"".join(items)}</ul>' if items else "<p>None.</p>"
    return f"<h3>{escape(heading)} ({len(items)})</h3>{body}"
