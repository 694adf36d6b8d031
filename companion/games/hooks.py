"""What the bots' one search, and the phone pages, need to know about a game beyond its engine.

A game's module names its hooks class (`GameModule.hooks`, a subclass of `GameHooks` in the
game's own folder, `companion/games/<game>/hooks.py`); `companion.games.hooks_for(game)` gives
an instance. The defaults here work from the engine alone (legal actions, the game's own chance
actions filled from the bot's dice, the score as evaluation); a game whose engine keeps hidden
information or lets the table name a drawn card overrides them. Nothing here edits a game's
rules: a hook reads the state and builds engine actions. This module names no game.

What a seat may see (docs/bots.md): `observe` drops what the seat may not read; it is the one
place that decides it, for the bots and for `GameModule.seat_view` (the phone pages).
`determinize` fills every hidden card with a sample consistent with what is public, and chance
is sampled with the bot's own generator, never the game's seeded stream.
"""
from __future__ import annotations

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
        seat the rules play themselves, such as a solitaire AI)."""
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
