"""Mint Works benchmarks: prints figures (no assertions).
Run: .venv/bin/python benchmarks/bench_mint_works.py [games]

Random full games per second (2-4 players, and solitaire against each AI), actions per second,
the AI's decision time (goal: under 10 ms), 1,000 solitaire games per AI against a random player,
and CivMint's random games per second measured in the same run, with the ratio.
"""
from __future__ import annotations

import os
import random
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))

from bench_engine import play as civmint_play  # noqa: E402

from companion.games.mint_works import GAME, MODULE  # noqa: E402
from companion.games.mint_works import ai as AI  # noqa: E402

NAMES = [{"name": n, "colour": c} for n, c in zip(("Ana", "Ben", "Cy", "Di"), ("blue", "green", "red", "yellow"))]


def setup(players, opponent=None, seed=0):
    s = MODULE.setup_from_form(NAMES[:players], {"opponent": opponent or "none", "advanced": "random"})
    s["seed"] = seed
    return s


def play(su, seed):
    """A random game (a random player places 80% of its turns); returns (final state, actions)."""
    rng = random.Random(seed)
    s = GAME.initial_state(su)
    n = 0
    while not s.over:
        a = GAME.chance_action(s, None) if GAME.actor(s) == "system" else None
        if a is None and GAME.actor(s) in GAME.app_seats(s):
            a = GAME.app_action(s, GAME.actor(s))  # the AI's move, as the app plays it
        if a is None:
            acts = GAME.legal_actions(s)
            places = [x for x in acts if x.type == "place"]
            a = rng.choice(places) if places and rng.random() < 0.8 else rng.choice(acts)
        s = GAME.apply(s, a)
        n += 1
    return s, n


def bench_games(games):
    out = {}
    for label, players, opp in [("2 players", 2, None), ("3 players", 3, None), ("4 players", 4, None)]:
        t = time.perf_counter()
        acts = sum(play(setup(players, opp, seed), seed)[1] for seed in range(games))
        dt = time.perf_counter() - t
        out[label] = (games / dt, acts / dt)
    return out


def bench_ai(games):
    """1,000 solitaire games per AI; the AI's decision time per call."""
    rows = {}
    real = AI.decide
    times = []

    def timed(game, s):
        t = time.perf_counter()
        r = real(game, s)
        times.append(time.perf_counter() - t)
        return r
    AI.decide = timed
    try:
        for ai in ("justin", "rachael", "sonic", "mort"):
            times.clear()
            wins = {}
            t = time.perf_counter()
            acts = 0
            for seed in range(games):
                s, n = play(setup(1, ai, seed), seed)
                acts += n
                w = GAME.result(s)["winner"]
                wins[w] = wins.get(w, 0) + 1
            dt = time.perf_counter() - t
            times.sort()
            p99 = times[int(len(times) * 0.99)]
            rows[ai] = (games / dt, acts / dt, statistics.median(times) * 1e3, p99 * 1e3, max(times) * 1e3,
                        wins.get("p2", 0) / games)
    finally:
        AI.decide = real
    return rows


def main(argv):
    games = int(argv[1]) if len(argv) > 1 else 200
    print(f"Mint Works benchmark ({games} random games per player count, 1000 solitaire games per AI)")
    comp = bench_games(games)
    for label, (gps, aps) in comp.items():
        print(f"  {label}: {gps:8.1f} games/s  {aps:9.0f} actions/s")
    for ai, (gps, aps, med, p99, worst, won) in bench_ai(1000).items():
        print(f"  solitaire vs {ai:8s}: {gps:7.1f} games/s  {aps:8.0f} actions/s  AI decision median "
              f"{med:.3f} ms, p99 {p99:.3f} ms, worst {worst:.1f} ms (goal < 10 ms)  "
              f"AI won {won:.0%} against a random player")
    t = time.perf_counter()
    civ = 20
    for seed in range(civ):
        civmint_play(seed)
    civ_gps = civ / (time.perf_counter() - t)
    mw = comp["2 players"][0]
    print(f"  CivMint: {civ_gps:.1f} random games/s; Mint Works (2 players) / CivMint = {mw / civ_gps:.1f}x")


if __name__ == "__main__":
    main(sys.argv)
