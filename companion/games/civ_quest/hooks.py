"""Civ Quest's hooks for the bots' search and the seat view (companion/games/hooks.py,
docs/bots.md)."""
from __future__ import annotations

from companion.games.hooks import GameHooks


class CivQuestHooks(GameHooks):
    """VP come late (areas, cities, wonders): the cut-off also values population, cities and
    stored Resource Points, and a civilisation with one area left is close to elimination."""
    scale = 6.0

    def value(self, state, seat):
        pt = cities = areas = 0
        for owner, n, city in state.units.values():
            if owner == seat:
                pt, cities, areas = pt + n, cities + bool(city), areas + 1
        v = super().value(state, seat) + 0.2 * pt + 2.0 * cities + 0.1 * state.players[seat].rp
        return v - (3.0 if areas <= 1 else 0.0)
