"""What the one search needs to know about each game, beyond the engine's public API.

`hooks_for(game_id)` gives a `GameHooks`: the defaults work from the engine alone (legal actions,
the game's own chance actions filled from the bot's dice, the score as evaluation); a game whose
engine keeps hidden information or lets the table name a drawn card adds a subclass here, keyed
by its id. Nothing here edits a game's rules: a hook reads the state and builds engine actions.

Fair play (docs/bots.md): `observe` drops what the seat may not read, `determinize` fills every
hidden card with a sample consistent with what is public, and chance is sampled with the bot's
own generator, never the game's seeded stream.
"""
from __future__ import annotations

import itertools
import math
import random

SYSTEM = "system"


class BotDice:
    """Dice for `Game.chance_action` drawn from the bot's own generator (never the game's seed)."""

    def __init__(self, rng: random.Random):
        self.rng = rng

    def roll(self, n: int = 1) -> list:
        return [self.rng.randint(1, 6) for _ in range(n)]


def _sigmoid(x: float) -> float:
    if x < -30:
        return 0.0
    if x > 30:
        return 1.0
    return 1.0 / (1.0 + math.exp(-x))


class GameHooks:
    """Defaults for a game whose state holds nothing hidden and whose chance is dice."""

    #: score difference that makes a cut-off position worth about 73 % (the logistic's unit)
    scale = 5.0
    #: the level's depth (decisions past the root) is multiplied by this for the game
    depth_scale = 1.0

    def __init__(self, game):
        self.game = game

    # -- who decides -----------------------------------------------------------------------
    def decider(self, state):
        """The seat whose decision is awaited, or None (game over, a draw or roll awaited, or a
        seat the rules play themselves, such as Mint Works' solitaire AI)."""
        who = self.game.actor(state)
        if who is None or who == SYSTEM or self.is_draw(state) or self.is_app_seat(state, who):
            return None
        return who

    def is_app_seat(self, state, seat) -> bool:
        """A seat whose move the rules decide (`Game.app_seats`, `Game.app_action`)."""
        fn = getattr(self.game, "app_seats", None)
        return fn is not None and seat in fn(state)

    def table_action(self, state, rng):
        """What happens next without a seat deciding: the move of a seat the rules play, else
        the roll or draw, sampled (`sample_chance`)."""
        who = self.game.actor(state)
        if who is not None and who != SYSTEM and self.is_app_seat(state, who):
            return self.game.app_action(state, who)
        return self.sample_chance(state, rng)

    def is_draw(self, state) -> bool:
        """A seat's action that is really chance: the table names a card it turned up."""
        return False

    # -- chance ----------------------------------------------------------------------------
    def sample_chance(self, state, rng):
        """The awaited roll or draw, sampled from `rng` (the game's own chance stream is never used)."""
        return self.game.chance_action(state, BotDice(rng))

    def deal(self, state, rng) -> None:
        """Give cards the engine counts but does not name (a draw) identities sampled from what
        is unseen, so a simulated table knows every hand. Mutates `state` (a fresh copy)."""

    # -- what a seat sees ------------------------------------------------------------------
    def observe(self, state, seat):
        """`state` as `seat` may know it: hidden things of other seats dropped (counts kept)."""
        return state

    def determinize(self, state, seat, rng):
        """A full state consistent with what `seat` observes, hidden cards sampled from `rng`.
        Must read only what `observe(state, seat)` keeps."""
        return state

    # -- choices ---------------------------------------------------------------------------
    def options(self, state, seat) -> list:
        """The moves `seat` chooses between now (engine actions, maybe needing `concrete`)."""
        return self.game.legal_actions(state)

    def concrete(self, state, option, rng):
        """The engine action for an option (a random element such as which card is stolen)."""
        return option

    def root_options(self, state, seat, opts, history) -> list:
        """The options of a real decision, given the game's history (Actions, oldest first):
        where the rules allow a move to be repeated without end, the bot stops repeating it."""
        return opts

    def expand(self, state, action, seat) -> list:
        """The options one legal engine action stands for (default: itself; [] drops it)."""
        return [action]

    def random_option(self, state, seat, rng):
        """A uniformly random option, cheaper than listing them all (the search's continuation):
        candidates in random order, the first the engine accepts."""
        acts = self.game.pseudo_legal_actions(state)
        for i in rng.sample(range(len(acts)), len(acts)):
            a = acts[i]
            if self.game.is_legal(state, a):
                opts = self.expand(state, a, seat)
                if opts:
                    return opts[rng.randrange(len(opts))]
        opts = self.options(state, seat)
        return opts[rng.randrange(len(opts))] if opts else None

    def rollout_option(self, state, seat, rng):
        """The move of the search's continuation past its tree (default: uniformly random)."""
        return self.random_option(state, seat, rng)

    # -- value -----------------------------------------------------------------------------
    def value(self, state, seat) -> float:
        """A score-like figure of `seat`'s position (higher is better)."""
        sc = getattr(self.game, "score", None)
        if sc is None:
            return 0.0
        v = sc(state).get(seat)
        if isinstance(v, dict):
            return float(v.get("total", 0))
        return float(v or 0)

    def seats(self, state) -> tuple:
        s = getattr(state, "seats", None)
        if s:
            return tuple(s)
        return tuple(self.game.score(state)) if hasattr(self.game, "score") else ("p1", "p2")

    def outcome(self, state) -> dict:
        """seat -> 1 (won), 0 (lost), shared wins split, at the end of a game."""
        seats = self.seats(state)
        res = self.game.result(state) if hasattr(self.game, "result") else {}
        winners = res.get("winners") or ([res["winner"]] if res.get("winner") else [])
        if not winners:  # a shared victory: everybody equal
            winners = list(seats)
        share = 1.0 / len(winners)
        return {s: (share if s in winners else 0.0) for s in seats}

    def evaluate(self, state) -> dict:
        """seat -> estimated chance of winning in [0, 1] at a depth cut-off (or the outcome)."""
        if self.game.is_over(state):
            return self.outcome(state)
        seats = self.seats(state)
        vals = {s: self.value(state, s) for s in seats}
        out = {}
        for s in seats:
            best_other = max((v for o, v in vals.items() if o != s), default=0.0)
            out[s] = _sigmoid((vals[s] - best_other) / self.scale)
        return out


# ---------------------------------------------------------------------------------------- games

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
        from companion.games.civmint.data_load import DATA

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
        for p, i in hidden:
            s.plans[p][i] = ("?", False, True)
        return s

    def determinize(self, state, seat, rng):
        hidden = [(p, i) for p in state.seats if p != seat
                  for i, (_, built, secret) in enumerate(state.plans[p]) if secret and not built]
        if not hidden:
            return state
        s = state.copy()
        # what `seat` cannot tell apart: the deck and the plans it has not seen anywhere (the
        # hidden plans' own ids are not read, so an observed state with "?" works the same)
        seen = set(s.supply) | set(s.bottom) | set(s.deck) | {
            pid for p in s.seats for i, (pid, _, _) in enumerate(s.plans[p]) if (p, i) not in hidden}
        pool = sorted(set(s.deck) | (set(self.game.data.plans) - seen))
        rng.shuffle(pool)
        for p, i in hidden:
            s.plans[p][i] = (pool.pop(), False, True)
        s.deck = sorted(pool)
        return s


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


HOOKS = {"civmint": CivMintHooks, "civ_quest": CivQuestHooks, "civ_builder": CivBuilderHooks,
         "mint_works": MintWorksHooks, "civ_card_game": CivCardGameHooks}


def hooks_for(game) -> GameHooks:
    """The hooks of an engine.Game (by its name; the defaults for a game without its own)."""
    return HOOKS.get(getattr(game, "name", None), GameHooks)(game)
