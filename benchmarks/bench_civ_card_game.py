"""Civilization: The Card Game benchmark: prints figures (no assertions).
Run: .venv/bin/python benchmarks/bench_civ_card_game.py  (CC_GAMES sets the number of games)

Random full games of 2-4 players (random legal decisions, cards turned up chosen at random among
those the decks still hold; a game ends when the last technology is bought): games per second and
actions per second, beside CivMint's random games per second measured in the same run
(benchmarks/bench_engine.py's `play`), and the ratio.
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

from companion.games.civ_card_game.rules import GAME  # noqa: E402


def play(seed, players):
    rng = random.Random(seed)
    s = GAME.initial_state(GAME.default_setup(players=players))
    n = 0
    while not s.over:
        s = GAME.apply(s, rng.choice(GAME.legal_actions(s)))
        n += 1
    return s, n


def main(games=int(os.environ.get("CC_GAMES", "300"))):
    t = time.perf_counter()
    actions, rounds, by_players = 0, [], {}
    for seed in range(games):
        players = 2 + seed % 3
        t1 = time.perf_counter()
        s, n = play(seed, players)
        by_players.setdefault(players, []).append(time.perf_counter() - t1)
        actions += n
        rounds.append(s.round)
    cc = time.perf_counter() - t
    t = time.perf_counter()
    cm_games = max(10, games // 4)
    for seed in range(cm_games):
        civmint_play(seed)
    cm = time.perf_counter() - t
    print(f"Civilization: The Card Game: {games} random games (2-4 players) in {cc:.2f} s: {games / cc:.1f} games/s, "
          f"{actions / cc:,.0f} actions/s, {actions / games:.0f} actions and {sum(rounds) / games:.1f} rounds a game")
    for p in sorted(by_players):
        ts = by_players[p]
        print(f"  {p} players: {len(ts) / sum(ts):.1f} games/s")
    print(f"CivMint (same run): {cm_games} random games in {cm:.2f} s: {cm_games / cm:.1f} games/s")
    print(f"ratio Civilization: The Card Game / CivMint games per second: {(games / cc) / (cm_games / cm):.2f}")


if __name__ == "__main__":
    main()
