"""Registry of the companion's games: every package under companion/games/ that exports MODULE.

The shell finds games only here (`modules()`, `get_module(id)`, `hooks_for(game)`); it never
imports one by name. A package that breaks the contract (companion/games/contract.py,
docs/games.md) is refused with a message naming what is missing (`refused()`), and the other
games stay available. Tests add a game of their own with `register()` and take it away with
`unregister()`.
"""
from __future__ import annotations

import importlib
import pkgutil

from .contract import ContractError, GameModule, GameView, Option, check_module  # noqa: F401
from .hooks import GameHooks

_modules: dict = {}
_refused: dict = {}
_packages: list | None = None  # the game folders found (names), read once
_tried: set = set()             # folders already imported (or refused)


def _folders() -> list:
    global _packages
    if _packages is None:
        _packages = [info.name for info in pkgutil.iter_modules(__path__)
                     if info.ispkg and not info.name.startswith("_")]
    return _packages


def _load(name: str) -> None:
    """Import one game folder and register it, or note why it is refused (once)."""
    if name in _tried:
        return
    _tried.add(name)
    try:
        pkg = importlib.import_module(f"{__name__}.{name}")
        module = getattr(pkg, "MODULE", None)
        if module is None:
            raise ContractError(f"game package {name!r} is refused: it exports no MODULE")
        if getattr(module, "id", None) != name:
            raise ContractError(f"game package {name!r} is refused: MODULE.id is "
                                f"{getattr(module, 'id', None)!r}, not the folder name")
        register(module)
    except Exception as exc:  # noqa: BLE001 - one broken game never hides the others
        _refused[name] = str(exc) if isinstance(exc, ContractError) else (
            f"game package {name!r} is refused: it fails to load ({type(exc).__name__}: {exc})")


def _discover():
    for name in _folders():
        _load(name)


def register(module) -> GameModule:
    """Add a game (ContractError naming what is missing when it breaks the contract)."""
    problems = check_module(module)
    if problems:
        gid = getattr(module, "id", "?")
        raise ContractError(f"game module {gid!r} is refused: " + "; ".join(problems))
    _modules[module.id] = module
    _refused.pop(module.id, None)
    return module


def unregister(game_id: str) -> None:
    _modules.pop(game_id, None)


def modules() -> list:
    """The registered games, in their menu order (the flagship first)."""
    _discover()
    return sorted(_modules.values(), key=lambda m: (m.order, m.title))


def available() -> list:
    return [m.id for m in modules()]


def refused() -> dict:
    """Game packages that could not be registered: folder name -> plain reason."""
    _discover()
    return dict(_refused)


def get_module(game_id: str) -> GameModule:
    """One game, importing only its own folder (a saved game does not load every game)."""
    if game_id not in _modules and isinstance(game_id, str) and game_id in _folders():
        _load(game_id)
    m = _modules.get(game_id)
    if m is None:
        why = _refused.get(game_id)
        raise KeyError(why or f"this app has no game {game_id!r} (it has: {', '.join(available()) or 'none'})")
    return m


def get_game(game_id: str):
    """The rules (engine.Game) of a registered game."""
    return get_module(game_id).game


def hooks_for(game_or_id) -> GameHooks:
    """A game's hooks (its module's `hooks` class, made for its rules): by id, by its GameModule,
    or by its rules (an engine.Game, found by its name; the defaults, `GameHooks`, for rules no
    registered game owns)."""
    if isinstance(game_or_id, GameModule):
        return game_or_id.hooks(game_or_id.game)
    if isinstance(game_or_id, str):
        m = get_module(game_or_id)
        return m.hooks(m.game)
    name = getattr(game_or_id, "name", None)
    try:  # the rules of a refused folder, or of no folder, get the defaults
        cls = get_module(name).hooks if name in _modules or name in _folders() else GameHooks
    except KeyError:
        cls = GameHooks
    return cls(game_or_id)


def default_id() -> str:
    """The first game of the menu (what a bare `GameController.new()` starts)."""
    ms = modules()
    if not ms:
        raise KeyError("this app has no games")
    return ms[0].id
