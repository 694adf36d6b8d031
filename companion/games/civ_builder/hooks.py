"""Civ Builder's hooks for the bots' search and the seat view (companion/games/hooks.py,
docs/bots.md)."""
from __future__ import annotations

from companion.games.hooks import GameHooks


class CivBuilderHooks(GameHooks):
    """Hands are counts only: nothing to sample. In the trade step the engine lets whoever holds
    the tablet record any gift; a bot seat only gives its own cards (or ends the trade). A bot
    never cancels its own meld pick."""
    scale = 12.0

    def options(self, state, seat):
        return [o for a in self.game.legal_actions(state) for o in self.expand(state, a, seat)]

    def expand(self, state, action, seat):
        # cancel_meld is the table's way back from a mistaken pick: a bot's pick is deliberate,
        # and pick-cancel-pick could go round for ever
        if action.type == "cancel_meld" or (action.type == "give_cards" and action["giver"] != seat):
            return []
        return [action]
