"""Vote-counting rules: small policies composed into named presets (RULES.md, STYLE.md).

    preset = rules.get("kira")     # or "majority"
    tally = preset.judge(ballots, game, day, as_of, history)
"""

from __future__ import annotations

from typing import Any

from tally.rules.preset import Preset

from tally.errors import InputError


def _presets() -> dict[str, Preset[Any]]:
    from tally.rules import kira, majority

    return {p.name: p for p in (kira.PRESET, majority.PRESET)}


def names() -> list[str]:
    return sorted(_presets())


def get(name: str) -> Preset[Any]:
    presets = _presets()
    try:
        return presets[name]
    except KeyError:
        raise InputError(f"unknown preset {name!r} (known: {', '.join(sorted(presets))})") from None


__all__ = ["Preset", "get", "names"]
