"""Engine speed of every game: resume and legal-action listing. Prints figures (no assertions).
Run: .venv/bin/python benchmarks/bench_speed.py   (BENCH_QUICK=1: fewer games, a rough look;
     BENCH_RESUME_ONLY=1: the resume figures alone, no listings)

Goals (issue 29, docs/engine.md):
- resume (Session.resume: journal open and verification + replay) of a 10,000-action journal of
  any game <= 100 ms, and of the longest real game of each game <= 50 ms;
- legal_actions p99 <= 3 x python-chess's legal-move p99, measured in the same run.

"Real" games are seeded random games to their end (random legal decisions, busy 80 % of the time),
the longest of several per game. A 10,000-action journal is a long game still running: the same
random player but one that rarely ends a phase's options (it keeps trading, moving, passing) so
the game lasts; a game whose rules end it sooner says so and gives the per-action figure times
10,000. Journals live on /dev/shm when there is one (the figures are the engine's, not the disk's).
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
from companion.games import get_game  # noqa: E402

QUICK = bool(os.environ.get("BENCH_QUICK"))
RESUME_ONLY = bool(os.environ.get("BENCH_RESUME_ONLY"))
# game -> setup keywords of its largest table
GAMES = {"civmint": {"max_rounds": None}, "civ_quest": {"players": 7}, "civ_builder": {"players": 8},
         "civ_card_game": {"players": 4}, "mint_works": {}}
QUIET = ("done", "peace", "end_step", "pass", "end_turn", "defend_done", "keep_cards", "skip_special",
         "decline_sixth", "decline_science")
# actions that bring a game nearer its end: the long-game player avoids them
ENDING = {"civ_quest": ("move_from", "move", "war", "build_city", "build_wonder", "place_city"),
          "civmint": ("improve_aspect", "research", "upgrade", "build"),
          "civ_builder": (), "civ_card_game": ("buy_tech",), "mint_works": ()}


def _player(game, rng, eager, avoid=()):
    def choose(s):
        la = game.legal_actions(s)
        keep = [a for a in la if a.type not in avoid] or la
        busy = [a for a in keep if a.type not in QUIET]
        return rng.choice(busy) if busy and rng.random() < eager else rng.choice(keep)
    return choose


def play(name, seed, limit=12000, long=False):
    """(setup, actions, final state) of one seeded random game."""
    game = get_game(name)
    setup = game.default_setup(**GAMES[name])
    setup["seed"] = seed
    rng, dice = random.Random(seed), SeededDice(seed)
    choose = _player(game, rng, 0.5 if long else 0.8, ENDING[name] if long else ())
    s = game.initial_state(setup)
    acts, states = [], []
    while not game.is_over(s) and len(acts) < limit:
        if game.actor(s) == "system":
            dice.drawn = getattr(s, "chance_count", dice.drawn)
            a = game.chance_action(s, dice)
        else:
            states.append(s)
            a = choose(s)
        s = game.apply(s, a)
        acts.append(a)
    return setup, acts, s, states


def _journal_dir():
    return tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None)


def resume_ms(name, setup, acts, final, repeat=5):
    """Best times (ms) of Session.resume of a journal holding `acts`, and of the journal's own
    part of it (Journal.open + replay_actions(shared=True), what Session.resume reads: companion/store,
    read, verified and parsed): (wall, CPU, journal wall, journal CPU). The process's CPU time
    leaves out the time other work on a shared machine takes the core away: on an idle machine
    the wall time is about the CPU time."""
    from companion.store.journal import Journal

    game = get_game(name)
    with _journal_dir() as d:
        path = os.path.join(d, "bench.journal")
        j = Journal.create(path, name, setup, "bench")
        for a in acts:
            j.append(a.to_dict(), "system" if game.is_chance(a) else "ui")
        j.close()
        want = final.to_dict()
        times, cpu, jtimes, jcpu = [], [], [], []  # the best of the repeats: load only ever adds
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            sess = Session.resume(path)
            times.append(time.perf_counter() - t)
            cpu.append(time.process_time() - c)
            assert sess.state.to_dict() == want, f"{name}: resume does not rebuild the game"
            sess.close()
            t, c = time.perf_counter(), time.process_time()
            j = Journal.open(path)
            j.replay_actions(shared=True)
            jtimes.append(time.perf_counter() - t)
            jcpu.append(time.process_time() - c)
            j.close()
    return tuple(min(x) * 1e3 for x in (times, cpu, jtimes, jcpu))


def legal_times(name, states):
    """Per state, the best of 3 listings, each on a fresh copy (nothing cached from the game that
    made it): a shared machine's pauses are not the engine's (the reference is timed the same way)."""
    game = get_game(name)
    out = []
    for s in states:
        best = None
        for _ in range(3):
            c = s.copy()
            t = time.perf_counter()
            game.legal_actions(c)
            dt = time.perf_counter() - t
            best = dt if best is None or dt < best else best
        out.append(best)
    return out


def chess_times(games):
    import chess

    out = []
    rng = random.Random(1)
    for _ in range(games):
        b = chess.Board()
        while not b.is_game_over() and b.fullmove_number < 150:
            best = None
            for _ in range(3):
                c = b.copy(stack=False)  # a fresh board, as the games' fresh states
                t = time.perf_counter()
                moves = list(c.legal_moves)
                dt = time.perf_counter() - t
                best = dt if best is None or dt < best else best
            out.append(best)
            b.push(rng.choice(moves))
    return out


def p99(ts):
    ts = sorted(ts)
    return ts[min(len(ts) - 1, int(len(ts) * 0.99))] * 1e3


def calibration_ms(timer=time.perf_counter):
    """A fixed pure-Python workload, to read the figures against the machine's load."""
    import timeit
    return min(timeit.repeat("sum(range(1000))", number=1000, repeat=5, timer=timer)) * 1e3


IDLE_CALIBRATION_MS = 8.0  # calibration_ms() on an idle desktop


def _resume(r, cal):
    """'CPU ms = ratio x calibration (wall ms) [journal CPU ms = its share]' of resume_ms's r."""
    wall, cpu, _jwall, jcpu = r
    return (f"{cpu:6.1f} ms CPU = {cpu / cal:4.1f} x calibration (wall {wall:.0f} ms) "
            f"[journal {jcpu:5.1f} ms = {jcpu / cpu:4.0%}]")


def main():
    n_real = 3 if QUICK else 8
    cal = calibration_ms()
    print(f"python {sys.version.split()[0]}; {'quick' if QUICK else 'full'} run; "
          f"calibration {cal:.1f} ms (1,000 x sum(range(1000)); ~{IDLE_CALIBRATION_MS:.0f} ms on an idle "
          f"desktop: this machine runs {cal / IDLE_CALIBRATION_MS:.1f} x slower now)")
    cal = calibration_ms(time.process_time)
    print(f"resume = Session.resume (journal read and verified, then the replay), best CPU time of "
          f"the repeats and as a ratio to the calibration's CPU time ({cal:.1f} ms; on an idle "
          f"desktop ~{IDLE_CALIBRATION_MS:.0f} ms, so a ratio of 12.5 is ~100 ms there); [journal] "
          f"is the store's part of it and its share")
    legal = {}
    for name in GAMES:
        runs = [play(name, seed) for seed in range(n_real)]
        setup, acts, final, _ = max(runs, key=lambda r: len(r[1]))
        r = resume_ms(name, setup, acts, final)
        print(f"{name:14s} resume of its longest real game ({len(acts):5d} actions of {n_real}): "
              f"{_resume(r, cal)} (goal <= 50 ms)")
        lsetup, lacts, lfinal, _ = play(name, 99, limit=10000, long=True)
        # a short journal (a game its rules end early) is resumed more often: its per-action figure
        # is a small difference of two small times, which a busy machine's best of 3 leaves noisy
        short = len(lacts) < 10000
        lr = resume_ms(name, lsetup, lacts, lfinal, repeat=15 if short else 3)
        if len(lacts) >= 10000:
            print(f"{'':14s} resume of a 10,000-action journal: {_resume(lr, cal)} (goal <= 100 ms)")
        else:
            ims = resume_ms(name, lsetup, [], get_game(name).initial_state(lsetup), repeat=15)[1]
            per = max(0.0, lr[1] - ims) / len(lacts)
            ten = ims + per * 10000
            print(f"{'':14s} its rules end a long game at {len(lacts)} actions: resume {_resume(lr, cal)}; "
                  f"an empty journal {ims:.1f} ms + {per * 1e3:.1f} us an action = {ten:.0f} ms CPU "
                  f"for 10,000 = {ten / cal:.1f} x calibration (goal <= 100 ms)")
        if RESUME_ONLY:
            continue
        states = [st for r in runs[:3] for st in r[3]]
        legal[name] = legal_times(name, states[:4000])
    if RESUME_ONLY:
        return
    ref = chess_times(10 if QUICK else 40)
    ref99 = p99(ref)
    print(f"python-chess legal moves: p99 {ref99:.3f} ms over {len(ref)} positions (reference)")
    for name, ts in legal.items():
        print(f"{name:14s} legal_actions: median {statistics.median(ts) * 1e3:.3f} ms, p99 {p99(ts):.3f} ms "
              f"over {len(ts)} states = {p99(ts) / ref99:.2f} x python-chess (goal <= 3)")


if __name__ == "__main__":
    main()
