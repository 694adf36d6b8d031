"""Game modules of the companion. `get_game(name)` returns the game object (engine.Game)."""
from __future__ import annotations

_GAMES = {
    "civmint": "companion.games.civmint",
}


def available() -> list[str]:
    return sorted(_GAMES)


def get_game(name: str):
    import importlib

    if name not in _GAMES:
        raise KeyError(f"unknown game {name!r}; available: {', '.join(available())}")
    return importlib.import_module(_GAMES[name]).GAME
