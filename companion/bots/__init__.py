"""Players the app can seat in any game: a search bot that plays fair (docs/bots.md), and the
random and greedy players it is measured against. No Kivy: it sits beside the engine and uses
only the games' public engine API plus the per-game hooks of companion.bots.hooks."""
from .hooks import BotDice, GameHooks, hooks_for  # noqa: F401
from .players import LEVELS, Bot, BotError, GreedyPlayer, Player, RandomPlayer, bot_for, player_for  # noqa: F401
