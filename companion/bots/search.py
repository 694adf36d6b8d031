"""One search for every game: single-observer information-set Monte Carlo tree search (ISMCTS,
Cowling, Powley and Whitehouse 2012), open loop, with a depth cut-off.

Each iteration samples a determinization (hidden cards filled in from what the searching seat
may know, `GameHooks.determinize`), walks the tree by UCB1 over the moves available in that
sample (availability counts), expands one move, plays a short random continuation and scores
the position with the game's evaluation (`GameHooks.evaluate`: the outcome at the end of a game,
else the score difference through a logistic). Rolls and cards the table turns up are sampled
with the bot's own generator each time they come up and are not tree nodes (open loop). Rewards
are per seat, so every seat in the tree (the opponents too) picks what is best for itself.

The budget is counted in engine steps (deterministic: the same seed and state give the same
move); a wall-clock limit stops a search that overruns and returns its best move so far.
"""
from __future__ import annotations

import math
import time

from companion.engine.errors import Rejected


class Node:
    __slots__ = ("children", "n", "w", "avail")

    def __init__(self):
        self.children = {}  # option (engine Action) -> Node
        self.n = 0
        self.w = {}         # seat -> summed reward
        self.avail = 0


class Budget:
    """How much one decision may search."""

    def __init__(self, steps: int, depth: int, seconds: float, c: float = 0.7, width: int = 0):
        self.steps = steps      # engine steps (applied actions) over all iterations
        self.depth = depth      # decisions played past the root before the evaluation
        self.seconds = seconds  # wall-clock limit: past it, the best move so far
        self.c = c              # UCB1 exploration constant
        self.width = width      # root moves searched: the best by their immediate value (0: all)


class Search:
    def __init__(self, game, hooks, budget: Budget, rng, clock=time.perf_counter):
        self.game = game
        self.hooks = hooks
        self.budget = budget
        self.rng = rng
        self.clock = clock
        self.steps = 0
        self.iterations = 0
        self.overran = False

    # -- stepping a sampled state ------------------------------------------------------------
    def _apply(self, state, action):
        self.steps += 1
        new = self.game.apply(state, action)
        self.hooks.deal(new, self.rng)
        return new

    def _settle_chance(self, state):
        """Sample rolls and turned-up cards until a seat decides (or the game ends)."""
        h = self.hooks
        guard = 0
        while not self.game.is_over(state) and h.decider(state) is None:
            a = h.table_action(state, self.rng)
            if a is None or guard > 200:
                return state, False  # nothing the bot can sample: treat as a cut-off
            state = self._apply(state, a)
            guard += 1
        return state, True

    def _play(self, state, option):
        return self._apply(state, self.hooks.concrete(state, option, self.rng))

    # -- the search ----------------------------------------------------------------------------
    def run(self, root_state, seat, candidates):
        """The option of `candidates` (legal for `seat` in `root_state`) the search likes best,
        with the root's statistics: (option, {option: (visits, mean reward)})."""
        root = Node()
        b = self.budget
        start = self.clock()
        cand = self._prune(root_state, seat, list(candidates))
        cset = set(cand)
        while self.steps < b.steps:
            if self.iterations and self.clock() - start > b.seconds:
                self.overran = True
                break
            self.iterations += 1
            try:
                self._iterate(root, root_state, seat, cset, cand)
            except Rejected:
                # a sampled world where an expected move is refused: skip this sample
                continue
        stats = {o: (ch.n, ch.w.get(seat, 0.0) / ch.n) for o, ch in root.children.items() if ch.n}
        # the best mean among the moves searched at least half as much as the most searched one:
        # evaluations differ by a few hundredths, so visit counts alone are mostly exploration
        top = max((n for n, _ in stats.values()), default=0)
        well = {o for o, (n, _) in stats.items() if 2 * n >= top}
        ranked = sorted(cand, key=lambda o: (o not in well, -stats.get(o, (0, 0.0))[1], -stats.get(o, (0, 0.0))[0]))
        return ranked + [o for o in candidates if o not in cset], stats

    def _prune(self, root_state, seat, cand):
        """With many moves the budget would give each a handful of samples: keep the `width`
        best by the evaluation right after the move (in one sampled world), ties at random.
        Moves of the same type compete among themselves first, so every kind of move (a
        purchase, a trade, ending the step) keeps its best candidates."""
        w = self.budget.width
        if not w or len(cand) <= w:
            return cand
        h, g, rng = self.hooks, self.game, self.rng
        world = h.determinize(root_state, seat, rng)
        scored = []
        for o in cand:
            try:
                after = g.apply(world, h.concrete(world, o, rng))
                self.steps += 1
                v = h.evaluate(after).get(seat, 0.0)
            except Rejected:
                v = -1.0
            scored.append((v, rng.random(), o))
        scored.sort(key=lambda x: (-x[0], x[1]))
        by_type = {}
        for v, r, o in scored:
            by_type.setdefault(o.type, []).append(o)
        keep = []
        rank = 0
        while len(keep) < w:  # round-robin over the move types, best first within each
            added = False
            for v, r, o in scored:
                lst = by_type[o.type]
                if rank < len(lst) and lst[rank] is o and o not in keep and len(keep) < w:
                    keep.append(o)
                    added = True
            if not added:
                break
            rank += 1
        return keep

    def _iterate(self, root, root_state, seat, cset, cand):
        h, g, rng, c = self.hooks, self.game, self.rng, self.budget.c
        state = h.determinize(root_state, seat, rng)
        node, path, depth = root, [root], 0
        expanded = False
        while True:
            state, ok = self._settle_chance(state)
            if not ok or g.is_over(state) or depth >= self.budget.depth * h.depth_scale:
                break
            who = h.decider(state)
            if expanded:  # the continuation past the tree: the game's playout moves up to the depth limit
                o = h.rollout_option(state, who, rng)
                if o is None:
                    break
                state = self._play(state, o)
                depth += 1
                continue
            opts = h.options(state, who)
            if node is root:
                opts = [o for o in opts if o in cset] or list(cand)
            if not opts:
                break
            untried = [o for o in opts if o not in node.children]
            if untried:  # expand one new move
                o = untried[rng.randrange(len(untried))]
                node.children[o] = Node()
                best = o
                expanded = True
            else:  # UCB1 over the moves available in this sample
                best, best_v = None, -1.0
                for x in opts:
                    ch = node.children[x]
                    v = ch.w.get(who, 0.0) / ch.n + c * math.sqrt(math.log(max(ch.avail, 1)) / ch.n) \
                        if ch.n else float("inf")
                    if v > best_v:
                        best, best_v = x, v
            for x in opts:
                if x in node.children:
                    node.children[x].avail += 1
            state = self._play(state, best)
            node = node.children[best]
            path.append(node)
            depth += 1
        reward = h.evaluate(state)
        for n in path:
            n.n += 1
            for s, r in reward.items():
                n.w[s] = n.w.get(s, 0.0) + r
