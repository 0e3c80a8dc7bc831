"""The public tally post, in the markup of the forum it is pasted into.

One layout, several dialects: BBCode (phpBB, Forumotion, Discuz, Invision), JV's own markup
(no BBCode: bold is '''…''' and links are bare), Markdown, and plain text. Only public fields of
the Tally are read here; the GM's result and findings are never touched (C5).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime

from tally import __version__, times
from tally.model import Count, Finding, Outcome, Tally
from tally.render import neutral
from tally.render.i18n import Lang, get


@dataclass(frozen=True)
class Dialect:
    text: Callable[[str], str]  # forum text (a name, a quote, a reason) made inert (issue 17)
    bold: Callable[[str], str]  # these take text already made inert
    link: Callable[[str, str], str]
    small: Callable[[str], str]
    heading: Callable[[str], str]


def _plain_link(text: str, url: str) -> str:
    return text


DIALECTS = {
    "bbcode": Dialect(
        text=neutral.bbcode,
        bold=lambda s: f"[b]{s}[/b]",
        link=lambda t, u: f"[url={u}]{t}[/url]" if u else t,
        # [size] means percent on phpBB 3, pixels (1-29) on phpBB 2 and Forumotion, 1-7 on
        # Discuz and IPB: no one value is small everywhere, and a refused one shows as text.
        small=lambda s: s,
        heading=lambda s: f"[b][u]{s}[/u][/b]",
    ),
    "markdown": Dialect(
        text=neutral.markdown,
        bold=lambda s: f"**{s}**",
        link=lambda t, u: f"[{t}]({u})" if u else t,
        small=lambda s: f"<sub>{s}</sub>",
        heading=lambda s: f"### {s}",
    ),
    # jeuxvideo.com has no BBCode: ''' for bold, links are written bare.
    "jv": Dialect(text=neutral.jv, bold=lambda s: f"'''{s}'''", link=_plain_link,
                  small=lambda s: s, heading=lambda s: f"'''{s}'''"),
    "text": Dialect(text=neutral.plain, bold=lambda s: s, link=_plain_link, small=lambda s: s,
                    heading=lambda s: s),
}


def when(value: datetime, zone: str, t: Lang | None = None) -> str:
    """A time as the forum shows it (its zone), with UTC beside it when they differ."""
    t = t or get()
    local = t.timef(value, zone, "yyyy-MM-dd HH:mm:ss")
    abbr = times.zone_abbreviation(value, zone)
    if times.to_local(value, zone).utcoffset():
        utc = f"{value:%H:%M:%S}"
        return t._("{local} {zone} ({utc} UTC)", local=local, zone=abbr, utc=utc)
    return t._("{local} {zone}", local=local, zone=abbr)


def voters_of(count: Count, d: Dialect, permalinks: Mapping[str, str], t: Lang) -> str:
    """Each voter linked to the post of the vote that counts."""
    posts = count.posts or ("",) * len(count.voters)
    return t.p_("between names", ", ").join(
        d.link(t.text(voter, d.text), permalinks.get(post, ""))  # a pseudo-voter is a Message
        for voter, post in zip(count.voters, posts))


def count_line(count: Count, d: Dialect, permalinks: Mapping[str, str],
               t: Lang | None = None) -> str:
    t = t or get()
    return line_of(t, d.bold(d.text(count.player)), t.number(count.votes),
                   voters_of(count, d, permalinks, t))


def line_of(t: Lang, name: str, votes: str, names: str) -> str:
    """"Bob (3): Alice, Carol": a candidate (or the not-voting label), the number, the names, in
    the language's punctuation ("桃花（2）：青蛙王子、月下独酌", "Basile (3) : Dorian")."""
    return t._("{name} ({votes}): {names}", name=name, votes=votes, names=names)


def not_voting_line(tally: Tally, d: Dialect, t: Lang) -> str:
    label = d.bold(t._("Not voting"))
    return line_of(t, label, t.number(len(tally.not_voting)), t.names(tally.not_voting, d.text))


def rule_name(rule: str, t: Lang) -> str:
    """A rule's id from RULES.md (K10, R3) as it is; trigger-cn's section 5 has no ids and names
    its rules in words, which are translated."""
    words = {"votes": t.p_("rule", "votes"), "deadline": t.p_("rule", "deadline"),
             "not a player": t.p_("rule", "not a player"), "dead": t.p_("rule", "dead"),
             "edited": t.p_("rule", "edited"), "dead target": t.p_("rule", "dead target"),
             "joke": t.p_("rule", "joke")}
    return words.get(rule, rule)


def outcome_text(outcome: Outcome, final: bool, t: Lang, clean: Callable[[str], str]) -> str:
    """The outcome with its rule and the rule's reason, in `t`'s words; names through `clean`."""
    rule, detail = rule_name(outcome.rule, t), t.text(outcome.detail, clean)
    if outcome.result == "eliminated":
        player = clean(outcome.player or "")
        if final:
            return t._("{player} is eliminated ({rule}: {detail})", player=player, rule=rule,
                       detail=detail)
        return t._("{player} would be eliminated if the day ended now ({rule}: {detail})",
                   player=player, rule=rule, detail=detail)
    if outcome.result == "undecided":  # the GM must announce it (e.g. a protection claim, E5)
        return t._("Result pending the GM ({rule}: {detail})", rule=rule, detail=detail)
    if outcome.result == "tie":
        return t._("Tie between {players} ({rule}: {detail})",
                   players=t.names(outcome.tied, clean), rule=rule, detail=detail)
    return t._("No elimination ({rule}: {detail})", rule=rule, detail=detail)


def outcome_line(tally: Tally, final: bool, t: Lang | None = None,
                 clean: Callable[[str], str] = neutral.plain) -> str:
    return outcome_text(tally.outcome, final, t or get(), clean)


def rule_lines(tally: Tally, final: bool, t: Lang | None = None,
               clean: Callable[[str], str] = neutral.plain) -> list[str]:
    """What it takes (majority, threshold), the outcome, and the draw's seed (K10: public so
    anyone can repeat it)."""
    t = t or get()
    lines = []
    if tally.majority is not None:
        lines.append(t.n_("With {alive} alive, it takes {n} to eliminate.",
                          "With {alive} alive, it takes {n} to eliminate.",
                          alive=len(tally.living), n=tally.majority))
    # The threshold stated beside an elimination read as a contradiction ("Nobody is eliminated
    # with fewer than 3 votes." then "Dan is eliminated"): it is said where it explains the
    # outcome, when nobody is (yet) eliminated (K9).
    if tally.threshold is not None and tally.outcome.result != "eliminated":
        lines.append(t.n_("Nobody is eliminated with fewer than {n} votes.",
                          "Nobody is eliminated with fewer than {n} votes.", n=tally.threshold))
    lines.append(outcome_line(tally, final, t, clean))
    waiting = votes_for_the_gm(tally)
    if waiting:  # issue 16: the players see that the GM still decides, not only --strict
        lines.append(t.n_("{n} vote waits for the moderator: its name points at no one player "
                          "clearly. This count may still change.",
                          "{n} votes wait for the moderator: their names point at no one player "
                          "clearly. This count may still change.", n=waiting))
    unproven = votes_not_proven(tally)
    if unproven:  # K4b, C6: the same for a vote whose text at the deadline is not proven
        lines.append(t.n_("{n} vote waits for the moderator: it was edited after the deadline "
                          "and its text at the deadline is not proven. This count may still "
                          "change.",
                          "{n} votes wait for the moderator: they were edited after the deadline "
                          "and their text at the deadline is not proven. This count may still "
                          "change.", n=unproven))
    if tally.seed:
        lines.append(t._("Random draw seed: {seed}", seed=tally.seed))
    return lines


def _unresolved(f: Finding) -> bool:
    return f.rule == "C2" and f.needs_gm and not f.secret


def _unproven(f: Finding) -> bool:
    return f.rule in ("K4b", "C6") and f.needs_gm and bool(f.post_id) and not f.secret


def counted_in_rule_lines(f: Finding) -> bool:
    """A finding rule_lines says only by number: said nowhere else in a public post."""
    return _unresolved(f) or _unproven(f)


def votes_for_the_gm(tally: Tally) -> int:
    """How many votes wait for the GM's decision on their name (C2): only their number is
    public, never what was written or by whom."""
    return sum(1 for f in tally.findings if _unresolved(f))


def votes_not_proven(tally: Tally) -> int:
    """How many vote posts were edited after the deadline with no saved copy of their text at
    it (K4b, C6: rules.reading.as_at asks the GM): counted as they read now, which the GM must
    confirm. Only their number is public."""
    return sum(1 for f in tally.findings if _unproven(f))


def up_to_position(tally: Tally) -> int | None:
    """The place in the thread (Post.position: Discuz's floor, IPB's "#n") of the post the count
    is cut after, when it is known."""
    if not tally.counted_up_to:
        return None
    return next((v.position for v in tally.verdicts if v.post_id == tally.counted_up_to), None)


def render_post(tally: Tally, dialect_name: str, lang: str = "en") -> str:
    d, t = DIALECTS[dialect_name], get(lang)
    permalinks = {v.post_id: v.permalink for v in tally.verdicts}
    final = tally.as_of >= tally.deadline or tally.ended_at is not None
    game = d.text(tally.game)
    title = (t._("Vote count, day {day} (final): {game}", day=tally.day, game=game) if final
             else t._("Vote count, day {day}: {game}", day=tally.day, game=game))
    lines = [d.heading(title), ""]
    if tally.counts:
        lines += [count_line(c, d, permalinks, t) for c in tally.counts]
    else:
        lines.append(t._("No votes yet."))
    lines.append("")
    if tally.not_voting:
        lines.append(not_voting_line(tally, d, t))
    lines += rule_lines(tally, final, t, d.text)
    lines.append("")
    at = when(tally.as_of, tally.zone, t)
    position = up_to_position(tally)
    if position is not None:  # the place players cite ("#9", Discuz's floor "第 9 楼"), and the id
        lines.append(t._("Counted up to post #{position} ({post}), as of {when}.",
                         position=position, post=tally.counted_up_to, when=at))
    elif tally.counted_up_to:
        lines.append(t._("Counted up to post {post}, as of {when}.", post=tally.counted_up_to,
                         when=at))
    else:
        lines.append(t._("Counted up to the start of the day, as of {when}.", when=at))
    lines.append(t._("Deadline: {when}.", when=when(tally.deadline, tally.zone, t)))
    lines.append(d.small(t._("Counted by tally {version}, preset {preset}.",
                             version=__version__, preset=tally.preset)))
    return "\n".join(lines) + "\n"
