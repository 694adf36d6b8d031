"""CivMint's hooks for the bots' search and the seat view (companion/games/hooks.py,
docs/bots.md)."""
from __future__ import annotations

from companion.games.hooks import GameHooks

from .data_load import DATA


class CivMintHooks(GameHooks):
    """The Trade step allows any number of offers to the opponent (REG-P2): a bot makes one
    offer per Trade step, else two bots can swap a Food for a Stone back and forth for ever.
    The cut-off values what will score later: every unit on the map (each is a production die,
    and settlers become villages), and resources at their exact worth rather than in whole
    points, so keeping them is not better than spending them."""
    scale = 6.0
    UNIT = 0.8

    def value(self, state, seat):
        g = self.game
        sc = g.score(state)[seat]
        rd = DATA.resources
        res = sum(state.players[seat].res[r] for r in rd["score_resources"]) / rd["score_resources_per_point"]
        return sc["total"] - sc["items"]["resources"] + res + self.UNIT * g.dice_count(state, seat)
    TRADE_STEP = ("trade", "trade_opponent", "accept_trade", "decline_trade", "correct_track")

    def root_options(self, state, seat, opts, history):
        if state.step != "trade":
            return opts
        for a in reversed(history):
            if a.type not in self.TRADE_STEP:
                break
            if a.type == "trade_opponent" and a.get("player") == seat:
                return [o for o in opts if o.type != "trade_opponent"] or opts
        return opts
