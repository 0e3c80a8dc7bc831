"""Vote-counting rules: small policies composed into named presets (RULES.md, STYLE.md).

    preset = rules.get("kira")     # majority, espia, mafia-ru, lupus, trigger-cn
    tally = preset.judge(ballots, game, day, as_of, history)
"""

from __future__ import annotations

from typing import Any

from tally.errors import InputError
from tally.rules.preset import Preset


def _presets() -> dict[str, Preset[Any]]:
    from tally.rules import espia, kira, lupus, mafia_ru, majority, trigger_cn

    presets = (kira.PRESET, majority.PRESET, espia.PRESET, mafia_ru.PRESET, lupus.PRESET,
               trigger_cn.PRESET)
    return {p.name: p for p in presets}


def names() -> list[str]:
    return sorted(_presets())


def get(name: str) -> Preset[Any]:
    presets = _presets()
    try:
        return presets[name]
    except KeyError:
        raise InputError(f"unknown preset {name!r} (known: {', '.join(sorted(presets))})") from None


__all__ = ["Preset", "get", "names"]
