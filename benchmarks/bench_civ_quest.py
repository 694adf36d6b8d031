"""Civ Quest benchmark: prints figures (no assertions).  Run: .venv/bin/python benchmarks/bench_civ_quest.py

Random full games of 2-7 players (seeded dice, random legal decisions, the text's end conditions
with a 60-round backstop): games per second and actions per second, beside CivMint's random games
per second measured in the same run (benchmarks/bench_engine.py's `play`), and the ratio.
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
from companion.games.civ_quest.rules import GAME  # noqa: E402


def play(seed, players):
    rng = random.Random(seed)
    dice = SeededDice(seed)
    s = GAME.initial_state(GAME.default_setup(players=players, max_rounds=60))
    n = 0
    while not s.over:
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:
            la = GAME.legal_actions(s)
            busy = [x for x in la if x.type not in ("done", "peace")]
            a = rng.choice(busy) if busy and rng.random() < 0.8 else rng.choice(la)
        s = GAME.apply(s, a)
        n += 1
    return s, n


def main(games=int(os.environ.get("CQ_GAMES", "60"))):
    t = time.perf_counter()
    actions, rounds, by_players = 0, [], {}
    for seed in range(games):
        players = 2 + seed % 6
        t1 = time.perf_counter()
        s, n = play(seed, players)
        by_players.setdefault(players, []).append(time.perf_counter() - t1)
        actions += n
        rounds.append(s.round)
    cq = time.perf_counter() - t
    t = time.perf_counter()
    cm_games = max(10, games // 2)
    for seed in range(cm_games):
        civmint_play(seed)
    cm = time.perf_counter() - t
    print(f"Civ Quest: {games} random games (2-7 players) in {cq:.2f} s: {games / cq:.1f} games/s, "
          f"{actions / cq:,.0f} actions/s, {actions / games:.0f} actions and {sum(rounds) / games:.1f} rounds a game")
    for p in sorted(by_players):
        ts = by_players[p]
        print(f"  {p} players: {len(ts) / sum(ts):.1f} games/s")
    print(f"CivMint (same run): {cm_games} random games in {cm:.2f} s: {cm_games / cm:.1f} games/s")
    print(f"ratio Civ Quest / CivMint games per second: {(games / cq) / (cm_games / cm):.2f}")


if __name__ == "__main__":
    main()
