#!/usr/bin/env python3
"""The translation catalogues (issue 14): `check` fails when one is out of date, `update` brings
them up to date after a message changed.

    python .ci/catalogues.py check    # CI: every msgid in every .po, translated; every .mo current
    python .ci/catalogues.py update   # extract, merge into each .po, compile each .mo

Both extract with `pybabel extract -F babel.cfg` into a temporary .pot. `check` then compares
message ids (never locations), so it fails when the code says something a catalogue lacks, or a
catalogue keeps a message the code no longer says; when any message of a .po is untranslated,
fuzzy, or misses a plural form; and when a compiled .mo differs from its .po.
"""

from __future__ import annotations

import string
import subprocess
import sys
import tempfile
from pathlib import Path

from babel.messages import mofile, pofile
from babel.messages.catalog import Catalog

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "tally" / "locale"
POT = LOCALE / "tally.pot"
KEYWORDS = ["_", "n_:1,2", "p_:1c,2", "msg", "msg_n:1,2", "timef:3"]


def pybabel(*args: str) -> None:
    tool = Path(sys.executable).parent / "pybabel"
    command = [str(tool)] if tool.exists() else [sys.executable, "-m", "babel.messages.frontend"]
    subprocess.run(command + ["--quiet", *args], check=True, cwd=ROOT)


def extract(out: Path) -> None:
    keywords = [arg for k in KEYWORDS for arg in ("-k", k)]
    pybabel("extract", "-F", "babel.cfg", "--no-location", "--sort-output", "--no-wrap",
            "--project", "tally", "--copyright-holder", "tally's authors",
            "--msgid-bugs-address", "https://github.com/", *keywords, "-o", str(out), ".")


def norm(value: object) -> object:
    """A plural message's id or strings as a tuple (the .mo reader gives lists)."""
    return tuple(value) if isinstance(value, list | tuple) else value


def ids(catalog: Catalog) -> set[tuple[str | None, object]]:
    return {(m.context, norm(m.id)) for m in catalog if m.id}


def fields(template: str) -> set[str]:
    """The {named} fields of a message, as str.format reads them (a stray brace is a field too,
    and fails the check)."""
    try:
        return {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError:
        return {"<unbalanced brace>"}


def read_po(path: Path) -> Catalog:
    with path.open("rb") as f:
        return pofile.read_po(f, locale=path.parent.parent.name)


def problems_of(po_path: Path, wanted: set[tuple[str | None, object]]) -> list[str]:
    lang = po_path.parent.parent.name
    catalog = read_po(po_path)
    have = ids(catalog)
    out = [f"{lang}: lacks {mid!r}" + (f" (context {ctx!r})" if ctx else "")
           for ctx, mid in sorted(wanted - have, key=str)]
    out += [f"{lang}: keeps {mid!r}, which the code no longer says" for ctx, mid in
            sorted(have - wanted, key=str)]
    for m in catalog:
        if not m.id:
            continue
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        if m.fuzzy or not all(strings) or (
                isinstance(m.id, tuple) and len(strings) != catalog.num_plurals):
            out.append(f"{lang}: {m.id!r} is not translated (or fuzzy, or lacks a plural form)")
        known = set().union(*(fields(i) for i in (m.id if isinstance(m.id, tuple) else (m.id,))))
        for s in strings:
            if s and not fields(s) <= known:  # str.format would fail on an unknown field
                out.append(f"{lang}: {s!r} has fields {sorted(fields(s) - known)} that "
                           f"{m.id!r} does not give")
    mo_path = po_path.with_suffix(".mo")
    if not mo_path.exists():
        return out + [f"{lang}: no compiled {mo_path.name} (run .ci/catalogues.py update)"]
    with mo_path.open("rb") as f:
        compiled = mofile.read_mo(f)
    shown = {(m.context, norm(m.id)): norm(m.string) for m in catalog if m.id and not m.fuzzy}
    if {(m.context, norm(m.id)): norm(m.string) for m in compiled if m.id} != shown:
        out.append(f"{lang}: {mo_path.name} does not match {po_path.name} (run .ci/catalogues.py "
                   "update)")
    return out


def check() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        pot = Path(tmp) / "tally.pot"
        extract(pot)
        with pot.open("rb") as f:
            wanted = ids(pofile.read_po(f))
    problems = [p for po in sorted(LOCALE.glob("*/LC_MESSAGES/tally.po"))
                for p in problems_of(po, wanted)]
    for problem in problems:
        print(f"catalogues: {problem}", file=sys.stderr)
    if not problems:
        print(f"catalogues: {len(wanted)} messages, every language complete and compiled")
    return 1 if problems else 0


def update() -> int:
    extract(POT)
    for po in sorted(LOCALE.glob("*/LC_MESSAGES/tally.po")):
        pybabel("update", "-i", str(POT), "-d", str(LOCALE), "-D", "tally", "-l",
                po.parent.parent.name, "--no-wrap", "--ignore-obsolete", "--no-fuzzy-matching",
                "--previous")
    pybabel("compile", "-d", str(LOCALE), "-D", "tally", "--statistics")
    return check()


if __name__ == "__main__":
    commands = {"check": check, "update": update}
    if len(sys.argv) != 2 or sys.argv[1] not in commands:
        sys.exit("usage: catalogues.py check|update")
    sys.exit(commands[sys.argv[1]]())
