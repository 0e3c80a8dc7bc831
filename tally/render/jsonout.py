"""JSON output: the public count plus, unless `public`, the GM part under "gm" (C5)."""

from __future__ import annotations

import json
from datetime import datetime
from typing import TYPE_CHECKING, Any

from tally.model import Count, NameMatch, Outcome, Tally, Verdict
from tally.render.post import votes_for_the_gm, votes_not_proven

if TYPE_CHECKING:  # records only: renderers never import the reading code
    from tally.forensics import Change, Copy


def _iso(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def _count(c: Count) -> dict[str, Any]:
    return {"player": c.player, "votes": c.votes, "voters": list(c.voters), "posts": list(c.posts)}


def _outcome(o: Outcome) -> dict[str, Any]:
    return {"result": o.result, "player": o.player, "rule": o.rule, "detail": o.detail,
            "tied": list(o.tied)}


def _match(m: NameMatch | None) -> dict[str, Any] | None:
    if m is None:
        return None
    return {"written": m.written, "player": m.player, "how": m.how, "score": round(m.score, 1),
            "runner_up": m.runner_up, "runner_up_score": round(m.runner_up_score, 1)}


def _verdict(v: Verdict) -> dict[str, Any]:
    return {"post": v.post_id, "position": v.position, "author": v.author, "voter": v.voter,
            "time": _iso(v.time), "verdict": v.verdict, "target": v.target, "rule": v.rule,
            "reason": v.reason, "superseded_by": v.superseded_by, "match": _match(v.match),
            "permalink": v.permalink, "evidence": list(v.evidence)}


def as_dict(tally: Tally, *, public: bool = False) -> dict[str, Any]:
    out: dict[str, Any] = {
        "game": tally.game, "preset": tally.preset, "day": tally.day,
        "deadline": _iso(tally.deadline), "as_of": _iso(tally.as_of), "zone": tally.zone,
        "thread": tally.thread_url, "counted_up_to": tally.counted_up_to,
        "counts": [_count(c) for c in tally.counts],
        "not_voting": list(tally.not_voting), "living": list(tally.living),
        "threshold": tally.threshold, "majority": tally.majority,
        "outcome": _outcome(tally.outcome),
        "seed": tally.seed,
        # What the public post says waits for the GM (issue 16): numbers only, never who.
        "waiting_for_gm": {"names": votes_for_the_gm(tally), "edited": votes_not_proven(tally)},
    }
    if public:
        # Verdicts are public evidence, but a reason can name a secret effect: keep the post's
        # verdict and drop nothing else only when no finding is secret for that post.
        secret_posts = {f.post_id for f in tally.findings if f.secret}
        out["verdicts"] = [_verdict(v) for v in tally.verdicts if v.post_id not in secret_posts]
        return out
    out["verdicts"] = [_verdict(v) for v in tally.verdicts]
    out["gm"] = {
        "unresolved": [_finding(f) for f in tally.findings if f.rule == "C2"],
        "flags": [_finding(f) for f in tally.findings if f.rule != "C2"],
        "seed": tally.seed,
        "counts": None if tally.gm_counts is None else [_count(c) for c in tally.gm_counts],
        "outcome": None if tally.gm_outcome is None else _outcome(tally.gm_outcome),
        "notes": list(tally.notes),
        "reading": list(tally.reading),
    }
    return out


def _finding(f) -> dict[str, Any]:
    return {"rule": f.rule, "message": f.message, "post": f.post_id, "player": f.player,
            "needs_gm": f.needs_gm, "secret": f.secret}


def render_json(tally: Tally, *, public: bool = False) -> str:
    return json.dumps(as_dict(tally, public=public), ensure_ascii=False, indent=2) + "\n"


def forensics(changes: list[Change] | tuple[Change, ...]) -> list[dict[str, Any]]:
    """The audit's "forensics" list: each change with both copies and their fetch times."""
    return [{"id": c.label, "kind": c.kind, "post": c.post_id, "author": c.author,
             "position": c.position, "what": c.what, "timing": c.timing,
             "after_deadline": c.flagged, "vote_before": c.vote_before,
             "vote_after": c.vote_after, "note": c.note,
             "before": _copy(c.before), "after": _copy(c.after)} for c in changes]


def _copy(copy: Copy) -> dict[str, Any]:
    return {"shown": copy.post is not None, "text": copy.text, "fetched_at": _iso(copy.fetched_at),
            "version": copy.version, "page": copy.page,
            "edit": None if copy.post is None or copy.post.edit is None else copy.post.edit.text}
