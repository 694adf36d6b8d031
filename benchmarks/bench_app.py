"""Companion app figures: cold start to the home screen, resume of a 1,000-action game, memory,
board event (virtual board) to screen updated.

    .venv/bin/python benchmarks/bench_app.py

Needs a display; without one it starts Xvfb (like the tests). Goals: cold start <= 2 s and
<= 1.3 x a bare Kivy app's start measured the same way in the same run (see startup_vs_saves),
flat from 0 to 100 saved games; resume <= 300 ms.
"""
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DRIVER = os.path.join(ROOT, "tests", "app", "app_driver.py")
sys.path.insert(0, os.path.dirname(DRIVER))
from gui_process import scenario_env  # noqa: E402  (the tests' child-process environment)


def _display():
    if os.environ.get("DISPLAY"):
        return None
    for n in range(150, 199):
        if os.path.exists(f"/tmp/.X{n}-lock"):
            continue
        p = subprocess.Popen(["Xvfb", f":{n}", "-screen", "0", "1280x800x24", "-nolisten", "tcp"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _ in range(50):
            if os.path.exists(f"/tmp/.X11-unix/X{n}"):
                os.environ["DISPLAY"] = f":{n}"
                return p
            time.sleep(0.1)
        p.kill()
    raise SystemExit("no display and no Xvfb")


def make_game(directory, n=1000, seed=1):
    """A saved game of n journaled actions, played from the legal-action list (random play that
    keeps the tracks low, so the game lasts long enough)."""
    from companion.controller import GameController

    for attempt in range(20):
        c = GameController.new(directory, ("A", "B"), ("blue", "green"), seed=seed + attempt,
                               max_rounds=None)
        rng = random.Random(seed + attempt)
        while len(c.journal) < n:
            if c.awaiting_dice():
                c.roll_virtual()
                continue
            acts = c.legal_actions()
            if not acts:
                break
            # keep the tracks low so the game does not end before n actions
            slow = ("improve_aspect", "research", "upgrade", "build")
            ne = [a for a in acts if a["type"] not in slow + ("end_step",)]
            la = [a for a in acts if a["type"] not in slow] or acts
            a = rng.choice(ne) if ne and rng.random() < 0.6 else rng.choice(la)
            c.dispatch(a)
        path, done = c.path, len(c.journal)
        c.close()
        if done >= n:
            return path
    raise RuntimeError("could not make a long enough game")


def _first_frame(env, which="app", cmd="firstframe"):
    """One start in a new process, to its first frame at the window's final size: {"since_spawn"
    (s from just before the process was started), "size", "resized", "screen", "rss_kib"}."""
    e = dict(env)
    e["BENCH_SPAWN"] = repr(time.time())
    r = subprocess.run([sys.executable, DRIVER, cmd, which], env=e, capture_output=True, text=True,
                       timeout=120)
    lines = [ln for ln in r.stdout.splitlines() if ln.startswith("{")]
    assert r.returncode == 0 and lines, r.stderr[-2000:]
    return json.loads(lines[-1])


def _settle(env):
    r = subprocess.run([sys.executable, DRIVER, "settle"], env=env, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr[-2000:]


RUNS = 11


def startup_vs_saves(tmp, env):
    """Start-up against a bare Kivy app in the same run, measured the same way: each start is a
    new process (`app_driver.py firstframe`), timed from just before the process is started to
    the first frame drawn at the window's final size (the app through its real main() with no
    arguments, so the window fills the screen; the bare app through App.run() with the same
    window settings). The starts are interleaved (bare, app with 0, 30 and 100 saved games of
    200 actions each, then again), RUNS rounds, and the medians compared. Then the first start
    after the summaries stored beside the saves were lost (every game replayed once)."""
    from companion.store import save_summary

    src_dir = os.path.join(tmp, "src")
    one = make_game(src_dir, 200, seed=7)
    kinds = {"bare": ("bare", env)}
    for n in (0, 30, 100):
        e = dict(env)
        e["TABLETOP_COMPANION_DATA"] = os.path.join(tmp, f"saves{n}")
        games = os.path.join(e["TABLETOP_COMPANION_DATA"], "games")
        os.makedirs(games)
        for i in range(n):
            dst = os.path.join(games, f"game{i:03d}.journal")
            shutil.copy(one, dst)
            shutil.copy(save_summary.sidecar_path(one), save_summary.sidecar_path(dst))
        kinds[n] = ("app", e)
    for which, e in kinds.values():  # warm the OS file cache (and bytecode) once, then measure
        _first_frame(e, which)
    runs = {k: [] for k in kinds}
    for _ in range(RUNS):
        for k, (which, e) in kinds.items():
            runs[k].append(_first_frame(e, which))

    def med(k, what="since_spawn"):
        return statistics.median(r[what] for r in runs[k])

    def spread(k):
        xs = [r["since_spawn"] for r in runs[k]]
        return f"{min(xs):.2f}-{max(xs):.2f}"

    sizes = {tuple(r["size"]) for rs in runs.values() for r in rs}
    resized = sum(r["resized"] for rs in runs.values() for r in rs)
    assert len(sizes) == 1, f"the starts ended at different window sizes: {sizes}"
    bare, bare_cpu = med("bare"), med("bare", "cpu")
    print(f"start-up, process start -> first frame drawn at the final window size "
          f"{'x'.join(map(str, sizes.pop()))} (median of {RUNS} interleaved runs each; "
          f"{resized} of {RUNS * len(runs)} starts resized after their first frame); wall time, "
          f"and the process's CPU time (steadier on a busy machine):")
    print(f"  bare Kivy app: {bare * 1000:.0f} ms (runs {spread('bare')} s), CPU {bare_cpu * 1000:.0f} ms; "
          f"the app's goals: <= 1.3 x bare and <= 2 s")
    for n in (0, 30, 100):
        rss = statistics.median(r["rss_kib"] for r in runs[n]) / 1024
        assert all(r["screen"] == "home" for r in runs[n])
        print(f"  app, {n:3d} saved games: {med(n) * 1000:.0f} ms = {med(n) / bare:.2f} x bare "
              f"(goal <= 1.3; runs {spread(n)} s), CPU {med(n, 'cpu') * 1000:.0f} ms = "
              f"{med(n, 'cpu') / bare_cpu:.2f} x; RSS at Home {rss:.0f} MiB")
    which, e = kinds[100]
    games = os.path.join(e["TABLETOP_COMPANION_DATA"], "games")
    for i in range(100):
        os.unlink(save_summary.sidecar_path(os.path.join(games, f"game{i:03d}.journal")))
    without = _first_frame(e)["since_spawn"]  # replays the first screenful, the rest as they come
    _settle(e)  # every row listed: the summaries stored again
    again = statistics.median(_first_frame(e)["since_spawn"] for _ in range(3))
    print(f"  100 saved games whose summaries were lost: {without * 1000:.0f} ms "
          f"({without / bare:.2f} x) once, then {again * 1000:.0f} ms ({again / bare:.2f} x)")


def main():
    xv = _display()
    tmp = tempfile.mkdtemp(prefix="bench-app-")
    try:
        env = scenario_env(tmp)
        # measured as installed: with bytecode (pip and the Android build compile it), kept in
        # a cache of this run's own (the first, warming start of each kind writes it)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = os.path.join(tmp, "pycache")
        startup_vs_saves(tmp, env)

        from companion.controller import GameController

        games = os.path.join(tmp, "games")
        path = make_game(games, 1000)
        times = []
        for _ in range(7):
            t = time.perf_counter()
            c = GameController.open(path)
            snap = c.snapshot()
            acts = c.legal_actions()
            c.log(limit=40)  # the dashboard log is part of what a resume shows
            times.append(time.perf_counter() - t)
            c.close()
        size = os.path.getsize(path) // 1024
        print(f"resume of a 1,000-action game (open + verify + replay + dashboard data): "
              f"median {statistics.median(times) * 1000:.0f} ms, max {max(times) * 1000:.0f} ms "
              f"(goal <= 300 ms); round {snap['round']}, {len(acts)} legal actions, {size} KiB file")

        # the same resume through the real app (auto-resume at start), in a subprocess
        env2 = dict(env)
        env2["TABLETOP_COMPANION_DATA"] = os.path.join(tmp, "data2")
        os.makedirs(env2["TABLETOP_COMPANION_DATA"], exist_ok=True)
        with open(os.path.join(env2["TABLETOP_COMPANION_DATA"], "current"), "w") as f:
            f.write(path)
        d = _first_frame(env2)
        print(f"cold start straight into that 1,000-action game: {d['since_spawn']:.2f} s to its first "
              f"frame (screen {d['screen']}), RSS {d['rss_kib'] / 1024:.0f} MiB")

        # board event -> screen updated (virtual board: firmware on simulated chips, real pty + link)
        env3 = dict(env)
        env3["TABLETOP_COMPANION_DATA"] = os.path.join(tmp, "data3")
        env3["TABLETOP_COMPANION_BOARD"] = "virtual"
        r = subprocess.run([sys.executable, DRIVER, "boardlatency", "20"], env=env3, capture_output=True,
                           text=True, timeout=180)
        d = json.loads(r.stdout.strip().splitlines()[-1])
        tk, dk = d["token_to_screen"], d["die_to_screen"]
        print(f"board event -> screen updated ({d['samples']} samples each, 60 fps frames): "
              f"cube slid one space -> mismatch row drawn: median {tk['median_ms']} ms, p95 {tk['p95_ms']} ms; "
              f"die thrown (rests at once) -> roll journaled and shown: median {dk['median_ms']} ms, "
              f"p95 {dk['p95_ms']} ms (includes the firmware's settle detection)")

        import resource

        print(f"peak RSS of this benchmark process (engine + journal, no Kivy window): "
              f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
        if xv is not None:
            xv.terminate()


if __name__ == "__main__":
    main()
