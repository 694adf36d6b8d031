"""Engine benchmarks: prints figures (no assertions). Run: .venv/bin/python benchmarks/bench_engine.py

Goals (docs/engine.md): >= 50,000 actions/s applied; legal-action listing < 1 ms median;
random full games per second (reported); resume of a 1,000-action journal <= 300 ms.
"""
from __future__ import annotations

import os
import random
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from companion.engine import Session  # noqa: E402
from companion.engine.dice import SeededDice  # noqa: E402
from companion.games.civmint import GAME  # noqa: E402


def play(seed, max_rounds=12, keep=False):
    rng = random.Random(seed)
    dice = SeededDice(seed)
    s = GAME.initial_state(GAME.default_setup(max_rounds=max_rounds))
    actions, states = [], []
    while not s.over:
        if keep:
            states.append(s)
        if GAME.actor(s) == "system":
            a = GAME.chance_action(s, dice)
        else:
            la = GAME.legal_actions(s)
            ne = [x for x in la if x.type != "end_step"]
            a = rng.choice(ne) if ne and rng.random() < 0.6 else rng.choice(la)
        s = GAME.apply(s, a)
        actions.append(a)
    return s, actions, states


def bench_apply(games=30):
    recorded = [play(seed)[1] for seed in range(games)]
    setup = GAME.default_setup(max_rounds=12)
    n = sum(len(r) for r in recorded)
    t = time.perf_counter()
    for acts in recorded:
        s = GAME.initial_state(setup)
        for a in acts:
            s = GAME.apply(s, a)
    dt = time.perf_counter() - t
    # the same without validation (the raw reducer), for reference
    t = time.perf_counter()
    for acts in recorded:
        s = GAME.initial_state(setup)
        for a in acts:
            new = s.copy()
            getattr(GAME, "do_" + a.type)(new, a)
            s = new
    dt_raw = time.perf_counter() - t
    return n, n / dt, n / dt_raw


def bench_legal(games=10):
    times = []
    for seed in range(games):
        _, _, states = play(1000 + seed, keep=True)
        for s in states:
            t = time.perf_counter()
            GAME.legal_actions(s)
            times.append(time.perf_counter() - t)
    times.sort()
    return len(times), statistics.median(times) * 1e3, times[int(len(times) * 0.95)] * 1e3, times[-1] * 1e3


def bench_games(seconds=5.0, max_rounds=12):
    t = time.perf_counter()
    n = acts = 0
    while time.perf_counter() - t < seconds:
        _, a, _ = play(5000 + n, max_rounds)
        n += 1
        acts += len(a)
    dt = time.perf_counter() - t
    return n / dt, acts / max(n, 1)


def bench_resume(n_actions=1000):
    try:
        import companion.store.journal  # noqa: F401
    except ImportError:
        return None
    with tempfile.TemporaryDirectory() as d:
        return _bench_resume(os.path.join(d, "bench.civj"), n_actions)


def _bench_resume(path, n_actions):
    sess = Session.new("civmint", GAME.default_setup(max_rounds=None), path, seed=7)
    rng = random.Random(7)
    while len(sess.history) < n_actions:
        if sess.state.over:
            break
        if sess.actor() == "system":
            sess.roll()
        else:
            la = sess.legal_actions()
            # a long game: keep the tracks low so it does not end before n_actions
            ne = [x for x in la if x.type not in ("end_step", "improve_aspect", "research", "upgrade", "build")]
            la = [x for x in la if x.type not in ("improve_aspect", "research", "upgrade", "build")] or la
            sess.dispatch(rng.choice(ne) if ne and rng.random() < 0.6 else rng.choice(la), "ui")
    n = len(sess.history)
    want = sess.state.to_dict()
    sess.close()
    times = []
    for _ in range(5):
        t = time.perf_counter()
        back = Session.resume(path)
        times.append(time.perf_counter() - t)
        assert back.state.to_dict() == want
        back.close()
    return n, statistics.median(times) * 1e3


def main():
    print(f"python {sys.version.split()[0]}")
    n, rate, raw = bench_apply()
    print(f"apply (validated):   {rate:12,.0f} actions/s  over {n} recorded actions   (goal >= 50,000)")
    print(f"apply (raw reducer): {raw:12,.0f} actions/s")
    cnt, med, p95, mx = bench_legal()
    print(f"legal_actions:       median {med:.3f} ms, p95 {p95:.3f} ms, max {mx:.3f} ms over {cnt} states (goal < 1 ms median)")
    gps, apg = bench_games()
    print(f"random full games:   {gps:.1f} games/s (12-round limit, {apg:.0f} actions/game, legal-list policy)")
    r = bench_resume()
    if r is None:
        print("resume:              companion.store.journal not available")
    else:
        print(f"resume:              {r[1]:.1f} ms median for a {r[0]}-action journal (goal <= 300 ms)")


if __name__ == "__main__":
    main()
