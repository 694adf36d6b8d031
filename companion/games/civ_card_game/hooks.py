"""Civilization: The Card Game's hooks for the bots' search and the seat view
(companion/games/hooks.py, docs/bots.md)."""
from __future__ import annotations

import itertools

from companion.games.hooks import GameHooks


class CivCardGameHooks(GameHooks):
    """The companion counts hands and names only the cards it saw. For the search every hand is
    named: other seats' hands (their known cards included) are sampled from the copies `seat`
    cannot place, a drawn card is dealt from the unseen copies, a card the table turns up is
    drawn at random, a stolen card is taken at random from the target's hand, and a discard
    names the cards it drops."""
    scale = 3.0

    # chance ------------------------------------------------------------------------------
    def is_draw(self, state):
        h = self.game.head(state)
        return h is not None and h[0] in ("deal", "row", "turn_up") and not state.over

    def sample_chance(self, state, rng):
        g = self.game
        h = g.head(state)
        if h is None or h[0] not in ("deal", "row", "turn_up"):
            return None
        if h[0] == "turn_up" and h[2] == "techs":
            cards = list(state.tech_deck)
        else:
            cards = [c for c, n in sorted(state.plot_deck.items()) for _ in range(n)]
        if not cards:
            return None
        return g.codec.fast("turn_up", player=h[1], card=cards[rng.randrange(len(cards))])

    def _unseen_pool(self, state, exclude_known_of=()):
        """Copies of each play-deck card not in sight: not on a plot, in the known discards, in a
        fight, or in the known part of the hands of `exclude_known_of`."""
        g = self.game
        seen = {}
        cards = [b for ps in state.plots.values() for _, _, bs in ps for b in bs]
        cards += list(state.discard_known) + [c[0] for c in state.combat if c[2] in ("in", "blocked")]
        for p in exclude_known_of:
            cards += list(state.known[p])
        for c in cards:
            seen[c] = seen.get(c, 0) + 1
        pool = []
        for c in sorted(g.play_deck):
            pool += [c] * max(0, g.play_deck[c]["copies"] - seen.get(c, 0))
        return pool

    def deal(self, state, rng):
        short = [p for p in state.seats if state.hand[p] > len(state.known[p])]
        if not short:
            return
        pool = self._unseen_pool(state, exclude_known_of=state.seats)
        for p in short:
            need = state.hand[p] - len(state.known[p])
            got = []
            for _ in range(min(need, len(pool))):
                got.append(pool.pop(rng.randrange(len(pool))))
            state.known[p] = state.known[p] + tuple(got)

    # what a seat sees ----------------------------------------------------------------------
    def observe(self, state, seat):
        if all(not state.known[p] for p in state.seats if p != seat):
            return state
        s = state.copy()
        for p in s.seats:
            if p != seat:
                s.known[p] = ()
        return s

    def determinize(self, state, seat, rng):
        s = state.copy()
        pool = self._unseen_pool(state, exclude_known_of=(seat,))  # others' known cards stay unplaced
        for p in s.seats:
            if p != seat:
                s.known[p] = ()
        for p in (seat,) + tuple(x for x in s.seats if x != seat):
            need = s.hand[p] - len(s.known[p])
            got = []
            for _ in range(min(need, len(pool))):
                got.append(pool.pop(rng.randrange(len(pool))))
            s.known[p] = s.known[p] + tuple(got)
        return s

    # choices -----------------------------------------------------------------------------
    def options(self, state, seat):
        out = []
        for a in self.game.legal_actions(state):
            for o in self.expand(state, a, seat):
                if o not in out or o.type != "steal_card":
                    out.append(o)
        return out

    def expand(self, state, action, seat):
        if action.type == "steal_card":  # one blind steal per target (`concrete` draws the card)
            return [self.game.codec.fast("steal_card", player=action["player"], target=action["target"])]
        if action.type in ("discard", "end_turn"):
            return self._discards(state, action)
        return [action]

    def _discards(self, state, a):
        """The discard named card by card: each choice of the hand's known cards, as many as
        the engine keeps the hand's count consistent with (the rest fall from the unknown part)."""
        g, seat = self.game, a["player"]
        if a.type == "discard":
            n, drawn = g.rules["initial_discard"], 0
        else:
            draw, n = g.draw_count(state, seat)
            drawn = min(draw, state.deck + state.discard_unknown + len(state.discard_known))
        known = state.known[seat]
        n = min(n, state.hand[seat] + drawn)
        unknown = state.hand[seat] - len(known) + drawn
        lo, hi = max(0, n - unknown), min(n, len(known))
        out = []
        for k in range(lo, hi + 1):
            for combo in sorted(set(itertools.combinations(sorted(known), k))):
                out.append(g.codec.fast(a.type, player=seat, known=list(combo)) if combo
                           else g.codec.fast(a.type, player=seat))
        return out or [a]

    def concrete(self, state, option, rng):
        if option.type != "steal_card" or option.get("card") is not None:
            return option
        tgt = option["target"]
        if state.hand[tgt] > len(state.known[tgt]):
            return option  # the engine takes an unknown card by itself
        cards = state.known[tgt]
        return self.game.codec.fast("steal_card", player=option["player"], target=tgt,
                                    card=cards[rng.randrange(len(cards))])

    #: the cut-off's worth of a resource in hand, and of a resource of income a turn while every
    #: technology is still to buy (it falls as they are bought: the game ends with the last)
    RESOURCE = 0.08
    INCOME = 0.6
    #: within this many rounds of the round limit (CC-E3) income counts for the rounds left
    INCOME_HORIZON = 10
    #: the continuation ends the purchase step with this chance at each of its moves
    ROLLOUT_DONE = 0.35
    depth_scale = 2.0

    def value(self, state, seat):
        # VP (CC: population, technologies, wonders), what the resources in hand will buy, and
        # the production that brings more: a resource held was valued like a VP (0.1 each) and the
        # bot hoarded 90 hammers while random players bought population and plots
        g = self.game
        left = (len(state.tech_row) + len(state.tech_deck)) / max(1, len(g.techs))
        limit = g.rules.get("round_limit")  # CC-E3: income is worth less in the last rounds
        if limit:
            left = min(left, max(0, limit - state.round) / self.INCOME_HORIZON)
        income = sum(g.fixed_yield(state, seat)) + sum(p for _, p, _ in state.plots[seat])
        return super().value(state, seat) + self.RESOURCE * sum(state.res[seat]) + self.INCOME * left * income

    def rollout_option(self, state, seat, rng):
        """The continuation's purchase step buys at random and ends (`done`) with a fixed chance
        at each move: uniform over 30 to 100 purchases it almost never ended, so a move at the
        root that bought something lost the turn's combat below the depth cut-off and ending the
        step at once looked best (the bot bought nothing for 20 rounds). Bank trades are left to
        the tree."""
        g = self.game
        if g.head(state) is None and state.step == "purchase" and not state.over:
            done = g.codec.fast("done", player=seat)
            if rng.random() < self.ROLLOUT_DONE:
                return done
            acts = [a for a in g.pseudo_legal_actions(state) if a.type not in ("done", "trade")]
            return acts[rng.randrange(len(acts))] if acts else done
        return self.random_option(state, seat, rng)
