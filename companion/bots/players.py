"""Players the app can seat: the search bot at three levels, and the random and greedy players
the simulator and the strength benchmark measure it against.

Every player has `choose(session, seat) -> action dict` (legal for `seat` now) and
`choose_state(game, state, seat, key="") -> Action`. A choice reads only what `seat` sees:
the state goes through the game's hooks first (`observe` / `determinize`,
companion/games/hooks.py).
"""
from __future__ import annotations

import hashlib
import random
import time

from companion.games import hooks_for

from .search import Budget, Search

#: level -> search budget. Levels differ by budget only (engine steps, depth past the root);
#: the wall-clock limit stops an overrun (the best move so far is returned).
LEVELS = {
    "easy": Budget(steps=150, depth=4, seconds=1.0, width=4),
    "normal": Budget(steps=800, depth=6, seconds=2.0, width=8),
    "hard": Budget(steps=4000, depth=10, seconds=6.0, width=16),
}


class BotError(ValueError):
    """A bot asked for a move it cannot give: not its seat's turn, the game over, no legal move."""


def _seed_of(*parts) -> int:
    h = hashlib.sha256("|".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(h[:8], "big")


class Player:
    """The shared part: checks, the seat's options, the per-decision generator."""

    kind = "player"

    def __init__(self, game_id: str, seed=None):
        from companion.games import get_game

        self.game_id = game_id
        self.game = get_game(game_id)
        self.hooks = hooks_for(self.game)
        self.seed = seed if seed is not None else random.SystemRandom().randrange(2 ** 63)
        self.last = {}  # figures of the latest decision (time, iterations...)

    def __repr__(self):
        return f"{type(self).__name__}({self.game_id!r}, seed={self.seed})"

    # -- the public API ----------------------------------------------------------------------
    def choose(self, session, seat: str) -> dict:
        """One action dict legal for `seat` in the session's state now."""
        if session.game is not self.game and getattr(session.game, "name", None) != self.game_id:
            raise BotError(f"this bot plays {self.game_id}, not {getattr(session.game, 'name', '?')}")
        history = [a for a, _ in session.history]
        return self.choose_state(session.game, session.state, seat, len(history), history).to_dict()

    def choose_state(self, game, state, seat, key="", history=()):
        """The Action `seat` plays in `state`. `key` tells positions apart for the generator
        (the session gives its history length): the same seed, key and state give the same move.
        `history` (the game's Actions so far) lets the bot stop repeating a move the rules
        allow without end (GameHooks.root_options)."""
        if game.is_over(state):
            raise BotError("the game is over: there is no move to choose")
        who = game.actor(state)
        if who != seat:
            if who == "system":
                raise BotError(f"it is not {seat}'s decision: a dice roll is awaited")
            raise BotError(f"it is not {seat}'s decision: {who} must act now")
        if self.hooks.is_app_seat(state, seat):
            raise BotError(f"{seat} is played by the rules' own player (its move is the game's to decide)")
        rng = random.Random(_seed_of(self.seed, seat, key, getattr(state, "step", "")))
        if self.hooks.is_draw(state):  # the table turns up a card: a bot seat draws at random
            a = self.hooks.sample_chance(state, rng)
            if a is None or not game.is_legal(state, a):
                raise BotError(f"{seat} has no legal action now")
            return a
        view = self.hooks.observe(state, seat)
        opts = self.hooks.root_options(view, seat, self.hooks.options(view, seat), history)
        if not opts:
            raise BotError(f"{seat} has no legal action now")
        t0, c0 = time.perf_counter(), time.process_time()
        ranked = self.rank(game, view, seat, opts, rng)
        self.last = {"seconds": time.perf_counter() - t0, "cpu_seconds": time.process_time() - c0,
                     "options": len(opts), **self.last_extra}
        for o in ranked:  # the best the seat's view allows that the true state allows too
            a = self.hooks.concrete(state, o, rng)
            if game.is_legal(state, a):
                return a
        raise BotError(f"{seat} has no legal action now")

    last_extra: dict = {}

    def rank(self, game, view, seat, opts, rng) -> list:  # pragma: no cover - interface
        raise NotImplementedError


class RandomPlayer(Player):
    """Uniformly random among the seat's options."""

    kind = "random"

    def rank(self, game, view, seat, opts, rng):
        opts = list(opts)
        rng.shuffle(opts)
        return opts


class GreedyPlayer(Player):
    """The option with the best immediate score for the seat (ties at random)."""

    kind = "greedy"

    def rank(self, game, view, seat, opts, rng):
        scored = []
        world = self.hooks.determinize(view, seat, rng)  # hidden cards sampled, as the bot does
        for o in opts:
            try:
                after = game.apply(world, self.hooks.concrete(world, o, rng))
                v = self.hooks.value(after, seat)
            except Exception:  # noqa: BLE001 - a move refused in this view ranks last
                v = float("-inf")
            scored.append((v, rng.random(), o))
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [o for _, _, o in scored]


class Bot(Player):
    """The search bot (companion.bots.search): information-set MCTS with a per-game evaluation."""

    kind = "bot"

    def __init__(self, game_id: str, level: str = "normal", seed=None):
        if level not in LEVELS:
            raise BotError(f"unknown level {level!r}: choose {', '.join(LEVELS)}")
        super().__init__(game_id, seed)
        self.level = level
        self.budget = LEVELS[level]

    def __repr__(self):
        return f"Bot({self.game_id!r}, level={self.level!r}, seed={self.seed})"

    def rank(self, game, view, seat, opts, rng):
        if len(opts) == 1:
            self.last_extra = {"iterations": 0, "steps": 0, "overran": False}
            return list(opts)
        s = Search(game, self.hooks, self.budget, rng)
        ranked, _stats = s.run(view, seat, opts)
        self.last_extra = {"iterations": s.iterations, "steps": s.steps, "overran": s.overran}
        return ranked


def bot_for(game_id: str, level: str = "normal", seed=None) -> Bot:
    """A search bot for `game_id` at `level` ("easy", "normal", "hard"); `seed` makes it
    reproducible (None: a fresh random seed)."""
    return Bot(game_id, level, seed)


def player_for(game_id: str, spec: str, seed=None) -> Player:
    """A player from a seat spec: "bot" or "bot:LEVEL", "random", "greedy"."""
    spec = (spec or "").strip().lower()
    if spec == "random":
        return RandomPlayer(game_id, seed)
    if spec == "greedy":
        return GreedyPlayer(game_id, seed)
    if spec == "bot" or spec.startswith("bot:"):
        return Bot(game_id, spec.partition(":")[2] or "normal", seed)
    raise BotError(f"unknown player {spec!r}: use bot, bot:easy, bot:normal, bot:hard, random or greedy")
