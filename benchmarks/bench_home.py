"""Home's first draw against the number of saved games (issue 39.12): the time from Home's
refresh to its first frame drawn, with 10 and with 300 saves, and their ratio (goal: flat, about
1.0). Also the time until every row is listed, and, for reference, what reading every save's
summary first (the list before this change) costs at each count.

    .venv/bin/python benchmarks/bench_home.py

One real app window per count (Xvfb when there is no display), its saves copies of one game with
their stored summaries (the usual case at start-up)."""
import json
import os
import shutil
import statistics
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
sys.path.insert(0, os.path.join(ROOT, "tests", "app"))
from gui_process import run_scenario  # noqa: E402

COUNTS = (10, 300)
RUNS = 9


def scenario_measure(app, drv):
    """Runs inside the app process: HOME_SAVES saves, RUNS refreshes of Home, medians printed."""
    import time

    from kivy.core.window import Window

    from companion import controller as C
    from companion.controller import GameController
    from companion.store import save_summary

    n = int(os.environ["HOME_SAVES"])
    d = str(app.games_dir)
    g = GameController.new(d, ("Ana", "Ben"), ("blue", "green"), seed=4)
    g.roll_virtual()
    first = g.path
    g.close()
    for i in range(n - 1):
        dst = os.path.join(d, f"copy{i:03d}.journal")
        shutil.copy(first, dst)
        shutil.copy(save_summary.sidecar_path(first), save_summary.sidecar_path(dst))
    home = app.root.get_screen("home")
    home.refresh()  # every save checked once (its copy stamped), as after the first start
    drv.wait_for(lambda: not home.filling, 60, "filled")
    draw, draw_cpu, full, read_all = [], [], [], []
    for _ in range(RUNS):
        home.ids.saved_list.clear_widgets()  # as at start-up: no rows yet (a refresh also removes the old ones)
        drv.pump(2)
        flips = []

        def flipped(*_):
            flips.append((time.perf_counter(), time.process_time()))
        Window.bind(on_flip=flipped)
        t0, c0 = time.perf_counter(), time.process_time()
        home.refresh()
        drv.wait_for(lambda: flips, 10, "first frame")
        Window.unbind(on_flip=flipped)
        draw.append(flips[0][0] - t0)
        draw_cpu.append(flips[0][1] - c0)
        drv.wait_for(lambda: not home.filling, 60, "filled")
        full.append(time.perf_counter() - t0)
        t1 = time.perf_counter()
        assert len(C.list_games(d)) == n
        read_all.append(time.perf_counter() - t1)
    rows = sum(1 for w in home.ids.saved_list.children if hasattr(w, "path"))
    assert rows == n, (rows, n)
    med = statistics.median
    print("HOME " + json.dumps({"n": n, "draw": med(draw), "draw_cpu": med(draw_cpu), "full": med(full),
                                "read_all": med(read_all)}), flush=True)


def main():
    tmp = tempfile.mkdtemp(prefix="bench-home-")
    try:
        if not os.environ.get("DISPLAY"):
            sys.path.insert(0, os.path.join(ROOT, "tests"))
            from conftest import _start_xvfb
            xv = _start_xvfb()
        else:
            xv = None
        got = {}
        for n in COUNTS:
            os.makedirs(os.path.join(tmp, str(n)))
            out = run_scenario(__file__, "scenario_measure", os.path.join(tmp, str(n)), size="800x480",
                               env={"HOME_SAVES": str(n)}, timeout=600)
            line = [x for x in out.splitlines() if x.startswith("HOME ")][-1]
            got[n] = json.loads(line[5:])
        a, b = got[COUNTS[0]], got[COUNTS[1]]
        print(f"Home, refresh -> first frame drawn (median of {RUNS}; window 800x480):")
        for n in COUNTS:
            r = got[n]
            print(f"  {n:3d} saves: first draw {r['draw'] * 1000:.1f} ms (CPU {r['draw_cpu'] * 1000:.1f} ms); "
                  f"every row listed {r['full'] * 1000:.0f} ms; reading every summary first "
                  f"(the list before) {r['read_all'] * 1000:.0f} ms")
        print(f"  ratio {COUNTS[1]} / {COUNTS[0]} saves: first draw {b['draw'] / a['draw']:.2f} x, "
              f"CPU {b['draw_cpu'] / a['draw_cpu']:.2f} x (goal: about 1; reading every summary "
              f"first: {b['read_all'] / a['read_all']:.1f} x)")
        if xv is not None:
            xv.terminate()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
