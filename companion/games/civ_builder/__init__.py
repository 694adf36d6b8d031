"""Civ Builder: `GAME` is its engine.Game, `MODULE` what the shell gets.

rules.py (+ state.py, data_load.py) holds the rules, data/*.json the values (civilisations, deck,
special actions, score bands), view.py the plain words, sensing.py the rolls the dice wells fill,
ui/ the Kivy panels. Register: docs/civ_builder-register.md; trace: docs/civ_builder-trace.md."""
import os

from companion.games.contract import GameModule

from .data_load import DATA
from .hooks import CivBuilderHooks
from .rules import CivBuilder
from .sensing import SENSING
from .view import VIEW

GAME = CivBuilder()
_UI = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ui")


def make_setup(players: list, options: dict) -> dict:
    """The engine's setup from the new-game form (SetupError when the engine refuses it)."""
    setup = {"players": {f"p{i + 1}": {"name": p["name"], "colour": p["colour"]} for i, p in enumerate(players)}}
    GAME.initial_state(setup)
    return setup


MODULE = GameModule(
    id="civ_builder", title="Civ Builder", players=(DATA.min_players, DATA.max_players), play_time="60-90 min",
    blurb="Meld cards to grow ten attributes; the highest in each holds a privilege. 12 rounds.",
    data_version=2, game=GAME, view=VIEW, make_setup=make_setup, sensing=SENSING,
    hooks=CivBuilderHooks,
    panels={"setup_roll": "companion.games.civ_builder.ui.panels:CBRollsPanel",
            "trade": "companion.games.civ_builder.ui.panels:CBTradePanel",
            "meld": "companion.games.civ_builder.ui.panels:CBMeldPanel"},
    kv_files=tuple(os.path.join(_UI, f) for f in sorted(os.listdir(_UI)) if f.endswith(".kv")),
    register="docs/civ_builder-register.md", trace="docs/civ_builder-trace.md", order=30,
)
