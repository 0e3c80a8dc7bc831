"""Fixture cases for adapter tests (STYLE.md "Test data beside the engine").

A case is a folder `fixtures/<engine>/<case>/` holding:
- `case.toml`: where the markup comes from and how to read it:
      source = "phpBB 3.3.11 prosilver, English; written from FORUMS.md §2.1"
      zone = "Europe/London"            # the board's zone
      fetched_at = "2026-11-20T12:00:00Z"
      language = "en"                   # optional
      per_page = 10                     # optional
      [[pages]]
      file = "page-1.html"
      url = "https://forum.example/viewtopic.php?f=2&t=123"
      fetched_at = "…"                  # optional, overrides the case's
- the saved pages, as a browser or tally saved them (bytes, any charset);
- `expected.json`: {"pages": [{"file": …, "number": 1, "count": 3, "posts": [ {…}, … ]}]}
  Each post lists the fields to check; any field left out is not checked:
      id, position, author, author_id, created_at (UTC ISO, "Z"), time_text, deleted, permalink,
      edit (null, or {"editor", "edited_at", "times"}), own_contains [..], own_excludes [..],
      bold [..] (exact list), quotes (how many), quote_authors [..], spoilers (how many),
      signature_contains, notes_contain [..]
  Adding a case is adding a folder: tests are parametrised over the folders.
"""

from __future__ import annotations

import importlib.util
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tally import times
from tally.adapters.base import PageContext
from tally.model import Page, Post

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@dataclass(frozen=True)
class CasePage:
    file: str
    data: bytes
    ctx: PageContext


@dataclass(frozen=True)
class Case:
    path: Path
    meta: dict[str, Any]
    pages: tuple[CasePage, ...]
    expected: dict[str, Any]

    @property
    def name(self) -> str:
        return f"{self.path.parent.name}/{self.path.name}"


def case_dirs(engine: str) -> list[Path]:
    root = FIXTURES / engine
    return sorted(p for p in root.iterdir() if (p / "case.toml").exists()) if root.exists() else []


def load_case(path: Path) -> Case:
    meta = tomllib.loads((path / "case.toml").read_text(encoding="utf-8"))
    default_fetch = times.parse_iso(meta["fetched_at"])
    pages = []
    for row in meta["pages"]:
        fetched = times.parse_iso(row["fetched_at"]) if "fetched_at" in row else default_fetch
        ctx = PageContext(url=row["url"], fetched_at=fetched, zone=meta["zone"],
                          language=meta.get("language"), per_page=meta.get("per_page"))
        pages.append(CasePage(row["file"], (path / row["file"]).read_bytes(), ctx))
    expected_file = path / "expected.json"
    expected = json.loads(expected_file.read_text(encoding="utf-8")) if expected_file.exists() else {}
    return Case(path, meta, tuple(pages), expected)


def _iso(value: Any) -> str | None:
    return None if value is None else value.isoformat().replace("+00:00", "Z")


def check_post(post: Post, want: dict[str, Any], where: str) -> None:
    """Assert every field `want` names, with a message that says which post and field."""
    def eq(field: str, got: Any) -> None:
        assert got == want[field], f"{where} post {post.id}: {field}: got {got!r}, want {want[field]!r}"

    simple = {"id": post.id, "position": post.position, "author": post.author,
              "author_id": post.author_id, "time_text": post.time_text, "deleted": post.deleted,
              "created_at": _iso(post.created_at), "permalink": post.permalink}
    for field, got in simple.items():
        if field in want:
            eq(field, got)
    if "edit" in want:
        got_edit = None if post.edit is None else {
            "editor": post.edit.editor, "edited_at": _iso(post.edit.edited_at), "times": post.edit.times}
        if want["edit"] is not None and got_edit is not None:
            got_edit = {k: got_edit[k] for k in want["edit"]}
        eq("edit", got_edit)
    for text in want.get("own_contains", []):
        assert text in post.body.own, f"{where} post {post.id}: own text lacks {text!r}: {post.body.own!r}"
    for text in want.get("own_excludes", []):
        assert text not in post.body.own, f"{where} post {post.id}: own text has {text!r}: {post.body.own!r}"
    if "bold" in want:
        eq("bold", list(post.body.bold))
    if "quotes" in want:
        eq("quotes", len(post.body.quotes))
    if "quote_authors" in want:
        eq("quote_authors", [q.author for q in post.body.quotes])
    if "spoilers" in want:
        eq("spoilers", len(post.body.spoilers))
    if "signature_contains" in want:
        assert want["signature_contains"] in post.body.signature, f"{where} post {post.id}: signature"
    for text in want.get("notes_contain", []):
        assert any(text in n for n in post.notes), f"{where} post {post.id}: notes {post.notes!r} lack {text!r}"


def check_page(page: Page, want: dict[str, Any], where: str) -> None:
    for field in ("number", "count"):
        if field in want:
            assert getattr(page, field) == want[field], f"{where}: page {field}: got {getattr(page, field)!r}"
    if "posts" in want:
        got_ids = [p.id for p in page.posts]
        want_ids = [p["id"] for p in want["posts"]]
        assert got_ids == want_ids, f"{where}: post ids {got_ids} != {want_ids}"
        for post, post_want in zip(page.posts, want["posts"]):
            check_post(post, post_want, where)


def check_case(engine: Any, case_dir: Path) -> list[tuple[CasePage, Page]]:
    """Parse every page of a case with `engine` and check it against expected.json.

    Also checks what holds for every engine: the case says where its markup comes from, every
    expected page is saved, and each post carries its page's URL, fetch time and zone. Returns
    the parsed pages for engine-specific checks.
    """
    case = load_case(case_dir)
    assert "source" in case.meta, f"{case.name}: case.toml must say where its markup comes from"
    wanted = {page["file"]: page for page in case.expected["pages"]}
    assert set(wanted) == {page.file for page in case.pages}, f"{case.name}: pages vs expected.json"
    parsed = []
    for saved in case.pages:
        page = engine.parse_page(saved.data, saved.ctx)
        check_page(page, wanted[saved.file], f"{case.name}/{saved.file}")
        for post in page.posts:
            assert (post.fetched_at, post.page_url, post.zone) == (
                saved.ctx.fetched_at, saved.ctx.url, saved.ctx.zone), f"{case.name} post {post.id}"
            assert post.created_at.utcoffset() is not None
        parsed.append((saved, page))
    return parsed


def fixture_module(path: Path, name: str) -> Any:
    """A fixture's Python file (a page generator, a table of versions) loaded as a module: the
    fixtures folder is data, not a package, so it is imported from its path."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
