"""Players the app can seat in any game: a search bot that plays fair (docs/bots.md), and the
random and greedy players it is measured against. No Kivy: it sits beside the engine and uses
only the games' public engine API plus each game's hooks, found through the registry
(`companion.games.hooks_for`). It names no game."""
from .players import LEVELS, Bot, BotError, GreedyPlayer, Player, RandomPlayer, bot_for, player_for  # noqa: F401
