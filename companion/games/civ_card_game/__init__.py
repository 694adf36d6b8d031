"""Civilization: The Card Game (../shared/rules/civilization-the-card-game.txt), 2-4 players: plots,
population, technologies, buildings, wonders and combat, with every price and status kept by the
companion. No dice and no tracks: nothing is sensed (CC-H2 in the register)."""
from __future__ import annotations

import os

from companion.games.contract import GameModule

from .hooks import CivCardGameHooks
from .rules import GAME
from .view import CivCardView


def make_setup(players, options):
    return {"players": {f"p{i + 1}": {"name": p["name"], "colour": p["colour"]} for i, p in enumerate(players)}}


MODULE = GameModule(
    id="civ_card_game", title="Civilization: The Card Game", players=tuple(GAME.rules["players"]),
    play_time="60-120 min",
    blurb="Plots, population, technologies, buildings and wonders from a deck of cards; the app keeps every price.",
    data_version=2, game=GAME, view=CivCardView(), make_setup=make_setup, sensing=None,
    hooks=CivCardGameHooks,
    panels={"purchase": "companion.games.civ_card_game.ui.panels:CCPurchasePanel",
            "combat": "companion.games.civ_card_game.ui.panels:CCCombatPanel"},
    kv_files=(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ui", "civ_card_game.kv"),),
    register="docs/civ_card_game-register.md", trace="docs/civ_card_game-trace.md", order=50)
