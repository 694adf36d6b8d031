"""Mint Works's hooks for the bots' search and the seat view (companion/games/hooks.py,
docs/bots.md)."""
from __future__ import annotations

from companion.games.hooks import GameHooks

from .rules import HIDDEN


def _hide_drawn(s, hidden_plans):
    """The draws told to the table, a hidden Lotto plan not named (in place, on a copy)."""
    s.drawn = [(kind, seat, HIDDEN if kind == "lotto" and pid in hidden_plans else pid, n)
               for kind, seat, pid, n in s.drawn]


class MintWorksHooks(GameHooks):
    """The Plan Deck is drawn by the app from the game's seed: the bot draws uniformly from the
    plans that may come off the deck instead. A plan won at the Lotto is secret: other seats'
    unbuilt secret plans are swapped for samples from the deck."""
    scale = 2.0

    def is_draw(self, state):
        return state.step == "draw" and not state.over

    def sample_chance(self, state, rng):
        g = self.game
        cands = g.draw_candidates(state)
        if not cands:
            return None
        plan = cands[rng.randrange(len(cands))]
        if state.deck_mode == "app":
            return g.codec.fast("draw", plan=plan)
        return g.codec.fast("reveal", player=g.reveal_seat(state), plan=plan)

    def value(self, state, seat):
        # stars, then what the plans in hand and the Mints will become (the tie-breaks of
        # MW-E2 end the same way: fewer plans, more Mints)
        plans = self.game.data.plans
        unbuilt = sum(plans.get(p, {}).get("stars", 1) for p, built, _ in state.plans[seat] if not built)
        return super().value(state, seat) + 0.4 * unbuilt + 0.25 * state.mints[seat]

    def observe(self, state, seat):
        hidden = [(p, i) for p in state.seats if p != seat
                  for i, (_, built, secret) in enumerate(state.plans[p]) if secret and not built]
        if not hidden:
            return state
        s = state.copy()
        _hide_drawn(s, {s.plans[p][i][0] for p, i in hidden})
        for p, i in hidden:
            s.plans[p][i] = (HIDDEN, False, True)
        # the deck's list, taken from every plan, would name the hidden plans: only its size shows
        s.deck = [HIDDEN] * len(s.deck)
        return s

    def determinize(self, state, seat, rng):
        hidden = [(p, i) for p in state.seats if p != seat
                  for i, (_, built, secret) in enumerate(state.plans[p]) if secret and not built]
        if not hidden:
            return state
        s = state.copy()
        _hide_drawn(s, {s.plans[p][i][0] for p, i in hidden})
        # what `seat` cannot tell apart: every plan it has not seen face up (the deck and the
        # hidden plans; neither is read, so an observed state with HIDDEN works the same)
        seen = set(s.supply) | set(s.bottom) | {
            pid for p in s.seats for i, (pid, _, _) in enumerate(s.plans[p]) if (p, i) not in hidden}
        pool = sorted(set(self.game.data.plans) - seen)
        rng.shuffle(pool)
        for p, i in hidden:
            s.plans[p][i] = (pool.pop(), False, True)
        s.deck = sorted(pool)
        return s
