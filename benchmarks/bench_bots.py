"""The bots' strength and speed: prints figures (no assertions).
Run: .venv/bin/python benchmarks/bench_bots.py [--games N] [--game ID ...] [--opponent random|greedy]
     [--level normal] [--max-actions N] [--json FILE]

For each game, N two-player games of the bot against a uniformly random player and N against a
greedy player (best immediate score), seats alternating, seeds 0..N-1 (the simulator of
companion/cli/simulate.py: the table's dice are the session's seeded dice, hidden cards are
dealt by name). Prints the bot's win rate with its 95 % Wilson interval and the sample size
(goals, issue 31: at least 80 % against random, 55 % against greedy), and the bot's decision
time over the decisions it searched (more than one option): median and 95th percentile of the
wall clock and of the process's CPU time (goals: 200 ms and 1 s; on a machine shared with other
work the CPU time is the figure that compares), with the number of decisions. A shared victory counts half a win.

The machine's load changes the times (not the moves: the budget is in engine steps); the
reference measured in the same run is the engine's own speed (a random player's legal-actions
listing plus apply, per action, over a random game), and the median decision is printed as that
many engine actions. The default (2 games per pairing) finishes in a few minutes on two idle
cores; the win-rate intervals at that size are wide: use --games 20 or more for a figure to
quote.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from companion.bots import LEVELS  # noqa: E402
from companion.cli.simulate import play_game, wilson  # noqa: E402
from companion.games import get_module, hooks_for  # noqa: E402

GAMES = ("mint_works", "civ_builder", "civmint", "civ_card_game", "civ_quest")


def pairing(gid, bot, other, games, seed=0, max_actions=3000):
    """`games` games of `bot` against `other`, seats alternating: wins (ties half), times. A
    game not over after `max_actions` is decided on the score reached (counted as unfinished):
    two greedy-minded players of the Card Game may never buy the last technology."""
    module = get_module(gid)
    wins, times, all_times, lengths, cpu, overran, unfinished = 0.0, [], [], [], [], 0, 0
    t0 = time.perf_counter()
    for k in range(games):
        specs = [bot, other] if k % 2 == 0 else [other, bot]
        bot_seat = 0 if k % 2 == 0 else 1

        def note(p, seat):
            nonlocal overran
            if p.kind == "bot":
                all_times.append(p.last["seconds"])
                if p.last.get("options", 1) > 1:
                    times.append(p.last["seconds"])
                    cpu.append(p.last["cpu_seconds"])
                    overran += bool(p.last.get("overran"))
        r = play_game(module, specs, seed + k, on_decision=note, max_actions=max_actions, score_unfinished=True)
        unfinished += not r["finished"]
        if bot_seat in r["winners"]:
            wins += 1.0 / len(r["winners"])
        lengths.append(r["actions"])
    return {"games": games, "wins": wins, "win_rate": wins / games, "ci95": wilson(round(wins), games),
            "times": times, "all_times": all_times, "cpu": cpu, "overran": overran, "unfinished": unfinished, "seconds": time.perf_counter() - t0,
            "length": statistics.fmean(lengths)}


def engine_ms_per_action(gid, seed=0):
    """Milliseconds per action of a random two-player game: legal_actions + apply (the reference)."""
    import random

    from companion.engine import Session

    module = get_module(gid)
    sess = Session.new(gid, module.sample_setup(2), seed=seed)
    g, h, rng = sess.game, hooks_for(sess.game), random.Random(seed)
    state, n = sess.state, 0
    h.deal(state, rng)
    t0 = time.perf_counter()
    while not g.is_over(state) and n < 5000:
        if h.decider(state) is None:
            a = h.sample_chance(state, rng)
        else:
            a = h.concrete(state, rng.choice(h.options(state, h.decider(state))), rng)
        state = g.apply(state, a)
        h.deal(state, rng)
        n += 1
    return (time.perf_counter() - t0) * 1000 / max(n, 1)


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=2, help="games per pairing and game (default 2)")
    ap.add_argument("--game", action="append", choices=GAMES, help="only these games (repeatable)")
    ap.add_argument("--level", default="normal", choices=tuple(LEVELS))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-actions", type=int, default=3000,
                    help="a game not over by then is decided on the score reached (default 3000)")
    ap.add_argument("--opponent", action="append", choices=("random", "greedy"),
                    help="only these opponents (repeatable; default both): a long pairing can run on its own")
    ap.add_argument("--json", metavar="FILE")
    args = ap.parse_args(argv)
    bot = f"bot:{args.level}"
    out = {}
    print(f"bot level {args.level}: budget {LEVELS[args.level].steps} engine steps, depth "
          f"{LEVELS[args.level].depth}, at most {LEVELS[args.level].seconds} s; {args.games} games per pairing, "
          f"seeds {args.seed}..{args.seed + args.games - 1}; load average {os.getloadavg()[0]:.1f} "
          f"on {os.cpu_count()} cores")
    for gid in args.game or GAMES:
        row = {}
        for other in args.opponent or ("random", "greedy"):
            r = pairing(gid, bot, other, args.games, args.seed, args.max_actions)
            lo, hi = r["ci95"]
            print(f"{gid:<14} vs {other:<6}: wins {r['wins']:g}/{r['games']} = {r['win_rate'] * 100:5.1f} % "
                  f"(95 % CI {lo * 100:.0f}-{hi * 100:.0f} %), {r['length']:.0f} actions a game, "
                  f"{r['seconds']:.0f} s" + (f"; {r['unfinished']} game(s) not over after {args.max_actions} "
                                             "actions, decided on the score reached" if r["unfinished"] else ""),
                  flush=True)
            row[other] = r
        ref = engine_ms_per_action(gid, args.seed)
        ts = [t for r in row.values() for t in r["times"]]
        alls = [t for r in row.values() for t in r["all_times"]]
        cs = [t for r in row.values() for t in r["cpu"]]
        over = sum(r["overran"] for r in row.values())
        print(f"{gid:<14} decision time over {len(ts)} searched decisions: median {statistics.median(ts) * 1000:.0f} ms, "
              f"p95 {pct(ts, 0.95) * 1000:.0f} ms, max {max(ts) * 1000:.0f} ms; over all {len(alls)} decisions: "
              f"median {statistics.median(alls) * 1000:.0f} ms, p95 {pct(alls, 0.95) * 1000:.0f} ms; CPU time of a "
              f"searched decision: median {statistics.median(cs) * 1000:.0f} ms, p95 {pct(cs, 0.95) * 1000:.0f} ms; "
              f"{over} search(es) stopped by the clock; reference: "
              f"{ref:.3f} ms per engine action now, so the median search = "
              f"{statistics.median(ts) * 1000 / ref:.0f} engine actions", flush=True)
        out[gid] = {o: {k: v for k, v in r.items() if k not in ("times", "all_times", "cpu")} | {
            "cpu_median_s": statistics.median(r["cpu"]) if r["cpu"] else None,
            "cpu_p95_s": pct(r["cpu"], 0.95) if r["cpu"] else None,
            "decision_median_s": statistics.median(r["times"]) if r["times"] else None,
            "decision_p95_s": pct(r["times"], 0.95) if r["times"] else None,
            "searched_decisions": len(r["times"])} for o, r in row.items()}
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"level": args.level, "games": args.games, "results": out}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
