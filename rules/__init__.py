"""Vote-counting rules: small policies composed into named presets (RULES.md, STYLE.md).

    preset = rules.get("kira")     # majority, espia, mafia-ru, lupus, trigger-cn
    tally = preset.judge(ballots, game, day, as_of, history)
"""

from __future__ import annotations

from typing import Any

from tally.errors import GameFileError, InputError
from tally.game import Game
from tally.names import normalise
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


def for_game(game: Game) -> Preset[Any]:
    """The game file's preset, its event kinds, the fields they need and its options checked,
    naming the file and line (GameFileError, exit 3) as every other game-file error does."""
    presets = _presets()
    if game.preset not in presets:
        raise GameFileError(f"{game.path}:{game.lines.get('preset', '?')}: preset: unknown "
                            f"preset {game.preset!r} (known: {', '.join(sorted(presets))})")
    _no_staff_player(game)
    preset = presets[game.preset]
    preset.validate(game)
    return preset


def _no_staff_player(game: Game) -> None:
    """Staff never vote (K5): a player listed in `staff` (a copy-paste, a co-moderator who
    plays) would lose every vote in silence, listed as not voting. Checked here, not by the
    game-file reader: names are compared as votes compare them (tally.names), and tally.names
    reads Game records."""
    listed = {normalise(name): name for name in game.staff}
    for player in game.players:
        for account in player.accounts:
            if normalise(account) in listed:
                raise GameFileError(f"{game.path}:{game.lines.get('staff', '?')}: staff: "
                                    f"{listed[normalise(account)]!r} is staff and the account "
                                    f"of player {player.name}: staff never vote, so every vote "
                                    "of that player would be left out; keep the account in one "
                                    "of the two")


__all__ = ["Preset", "for_game", "get", "names"]
