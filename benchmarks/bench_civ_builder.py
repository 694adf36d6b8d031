"""Civ Builder benchmark: prints figures (no assertions). Run: .venv/bin/python benchmarks/bench_civ_builder.py

Random full games (12 rounds, 2-5 players, seeded) per second and actions per second through the
validated `apply`, with CivMint's random games per second measured in the same run (the `play` of
bench_engine.py) and the ratio.
"""
from __future__ import annotations

import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from bench_engine import play as civmint_play  # noqa: E402
from companion.engine.dice import SeededDice  # noqa: E402
from companion.games.civ_builder import GAME  # noqa: E402


def play(seed, players=None):
    """One random full game: legal actions chosen at random (ends favoured a little)."""
    rng = random.Random(seed)
    dice = SeededDice(seed)
    s = GAME.initial_state(GAME.default_setup(players=players or rng.randint(2, 5)))
    n = 0
    while not s.over:
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:
            la = GAME.legal_actions(s)
            ends = [x for x in la if x.type in ("end_trade", "end_turn")]
            a = ends[0] if ends and rng.random() < 0.3 else rng.choice(la)
        s = GAME.apply(s, a)
        n += 1
    return s, n


def bench(games, fn):
    t = time.perf_counter()
    actions = 0
    for seed in range(games):
        actions += fn(seed)
    dt = time.perf_counter() - t
    return games / dt, actions / dt


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    cb_gps, cb_aps = bench(games, lambda seed: play(seed)[1])
    cm_games = max(5, games // 10)
    cm_gps, cm_aps = bench(cm_games, lambda seed: len(civmint_play(seed)[1]))
    print(f"Civ Builder: {games} random full games: {cb_gps:.1f} games/s, {cb_aps:,.0f} actions/s "
          "(legal-action listing + validated apply)")
    print(f"CivMint:     {cm_games} random full games: {cm_gps:.1f} games/s, {cm_aps:,.0f} actions/s")
    print(f"ratio Civ Builder / CivMint games per second: {cb_gps / cm_gps:.2f}")
    for n in (2, 4, 8):
        t = time.perf_counter()
        acts = sum(play(seed, players=n)[1] for seed in range(20))
        dt = time.perf_counter() - t
        print(f"  {n} players: {20 / dt:.1f} games/s, {acts / 20:.0f} actions per game")


if __name__ == "__main__":
    main()
