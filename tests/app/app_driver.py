"""Drives the real companion app without a mainloop: boot, advance frames, press widgets, look.

Used in-process by tests/app/test_gui.py and as a script by the kill-and-resume test and the
benchmark (one Kivy window per process):

    python tests/app/app_driver.py play N      # boot, play N touch actions, print state, hang
    python tests/app/app_driver.py report      # boot (auto-resumes), print state, exit
    python tests/app/app_driver.py coldstart   # boot to the first drawn frame, print seconds
    python tests/app/app_driver.py barekivy    # the same for a bare Kivy app (the reference)
    python tests/app/app_driver.py settle      # start and wait until every saved game is listed
    python tests/app/app_driver.py firstframe app|bare   # the real start (the app's main(), or a
                                               # bare Kivy App.run() with the same window) to its
                                               # first frame at the window's final size

Environment: DISPLAY, TABLETOP_COMPANION_DATA and KIVY_HOME must be set by the caller.
"""
from __future__ import annotations

import json
import os
import random
import sys
import time

T0 = time.perf_counter()
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)

os.environ.setdefault("KIVY_NO_ARGS", "1")
os.environ.setdefault("KIVY_WINDOW", "sdl2")
os.environ.setdefault("KIVY_NO_CONSOLELOG", "1")
os.environ.setdefault("TABLETOP_COMPANION_BOARD", "none")


def boot(size=(1280, 800), board="none", frames=3):
    from companion import app as appmod

    appmod.configure_kivy(size)
    app = appmod.create_app(board)
    app._run_prepare()
    app.load_layouts()  # the app reads them when it leaves Home; tests make such widgets alone
    from kivy.base import runTouchApp

    runTouchApp(embedded=True)
    pump(frames)
    return app


def pump(n=2):
    from kivy.base import EventLoop

    for _ in range(n):
        EventLoop.idle()


def press(widget, frames=2):
    assert not widget.disabled, f"{widget!r} ({getattr(widget, 'text', '')!r}) is disabled"
    widget.dispatch("on_press")
    widget.dispatch("on_release")
    pump(frames)


def tap(widget, frames=2):
    """A real finger on the middle of `widget`'s visible part, through the window, as a player
    taps it: whatever lies on top there takes the touch (a widget drawn over it, a scroll view
    around it). Fails when no part of `widget` can be seen."""
    from kivy.tests.common import UnitTestTouch
    from layout_check import visible_widgets

    try:
        widget = widget.__self__  # an id of a kv rule is a weak proxy
    except (AttributeError, ReferenceError):
        pass
    seen = [box for w, box in visible_widgets() if w is widget]
    assert seen, f"{type(widget).__name__} {getattr(widget, 'text', '')!r} is not on screen"
    x0, y0, x1, y1 = seen[0]
    t = UnitTestTouch((x0 + x1) / 2, (y0 + y1) / 2)
    t.touch_down()
    _frames_for(0.1)  # a finger rests a moment (a scroll view hands it on after its timeout)
    t.touch_up()
    _frames_for(0.25)  # ... or, for a quicker tap, plays it back to its children 0.2 s later
    pump(frames)


def _frames_for(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pump(1)
        time.sleep(0.01)


def list_buttons(scr):
    """The buttons of the manual list of legal actions (opened, every page of it), each with its
    .action; the pressed button's action waits for Confirm like any choice."""
    if not scr.show_all and scr.all_count:
        scr.toggle_all()
    out = list(reversed(scr.ids.action_grid.children))
    for _ in range(scr.all_pages - 1):
        scr.turn_all_page(1)
        out += list(reversed(scr.ids.action_grid.children))
    scr.turn_all_page(-scr.all_pages)  # back to the first page
    return out


def legal_buttons(scr):
    """list_buttons, then the bar's 'Done with step' (never in the list) when it is legal."""
    out = list_buttons(scr)
    assert not [b for b in out if b.action.get("type") == "end_step"], "'done' twice on screen"
    if scr.end_step_text:
        out.append(scr.ids.end_step)
    return out


def new_game_form(app, game_id):
    """Home -> New game -> `game_id` chosen, as a player taps it; returns the form."""
    press(app.root.get_screen("home").ids.new_game)
    ng = app.root.get_screen("new_game")
    [choice] = [b for b in find(ng, "GameChoice") if b.game_id == game_id]
    press(choice)
    return ng


def start_from_form(app, game_id, names=("Ana", "Ben")):
    """A new game of `game_id` started through the form with these players' names."""
    ng = new_game_form(app, game_id)
    for i, name in enumerate(names):
        ng.name_input(f"p{i + 1}").text = name
    press(ng.ids.start)
    return ng


def find(root, cls_name=None, text=None):
    """All widgets under root (walk) matching a class name and/or exact text."""
    out = []
    for w in root.walk(restrict=True):
        if cls_name and type(w).__name__ != cls_name:
            continue
        if text is not None and getattr(w, "text", None) != text:
            continue
        out.append(w)
    return out


def pixels_stats():
    """(mean, variance) of the grey level of the current frame, read back from GL."""
    from kivy.core.window import Window
    from kivy.graphics.opengl import GL_RGB, GL_UNSIGNED_BYTE, glReadPixels

    w, h = Window.size
    data = glReadPixels(0, 0, w, h, GL_RGB, GL_UNSIGNED_BYTE)
    vals = [data[i] + data[i + 1] + data[i + 2] for i in range(0, len(data) - 2, 3 * 97)]
    n = len(vals)
    mean = sum(vals) / n
    return mean / 3, sum((v - mean) ** 2 for v in vals) / n / 9


ARTIFACTS = os.path.join(ROOT, "test-artifacts", "app")


def shot(name, min_variance=50, folder=None):
    """Save the current frame to <folder, default test-artifacts/app>/<name>.png and check it is
    not blank."""
    from kivy.core.window import Window

    pump(3)
    folder = folder or ARTIFACTS
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, name + ".png")
    made = Window.screenshot(path)  # Kivy adds a counter to the name
    os.replace(made, path)
    assert os.path.getsize(path) > 2000, path
    mean, var = pixels_stats()
    assert var > min_variance, f"{name}: screen looks blank (grey variance {var:.1f})"
    return path


def wait_for(predicate, seconds=10.0, what="condition"):
    """Advance frames (the real Clock, so board polling runs) until predicate() is true."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pump(1)
        if predicate():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out after {seconds} s waiting for {what() if callable(what) else what}")


def game_screen(app):
    return app.root.get_screen("game")


def start_with_app_seat(app, game_id, seat="p2", count=None):
    """Start `game_id` from the New game form with `seat` played by the app (easy)."""
    ng = new_game_form(app, game_id)
    if count is not None:
        ng.set_count(count)
    pump(2)
    assert ng.can_seat_app
    ng._played_by[seat].text = "Played by the app (easy)"
    press(ng.ids.start)
    pump(3)
    return app.ctrl, app.root.get_screen("game")


def table_step(ctrl, rng, keep_going=0.5):
    """One move of the table made straight on the controller: the virtual dice when a roll is
    awaited, else a random legal action (one that does not end the step, `keep_going` of the time)."""
    if ctrl.awaiting_dice():
        ctrl.roll_virtual()
        return
    acts = ctrl.legal_actions()
    other = [a for a in acts if a.get("type") != "end_step"]
    ends = [a for a in acts if a.get("type") == "end_step"]
    ctrl.dispatch(rng.choice(other) if other and (not ends or rng.random() < keep_going) else (ends or acts)[0], "ui")


def play(app, n, seed=0):
    """Play n touch actions on the game screen: virtual dice when awaited, else a legal action
    button (non-'done' ones preferred 2 times in 3) followed by Confirm."""
    rng = random.Random(seed)
    scr = game_screen(app)
    done = 0
    while done < n and not scr.over:
        if scr.awaiting_dice:
            press(scr.ids.roll_virtual)
        else:
            buttons = legal_buttons(scr)
            assert buttons, "no legal action buttons on the game screen"
            other = [b for b in buttons if b.action["type"] != "end_step"]
            ends = [b for b in buttons if b.action["type"] == "end_step"]
            pick = rng.choice(other) if other and (not ends or rng.random() < 0.66) else (ends or buttons)[0]
            press(pick, frames=1)
            press(scr.ids.confirm, frames=1)
        done += 1
    pump(2)
    return done


def state_report(app):
    scr = game_screen(app)
    ctrl = app.ctrl
    return {
        "screen": app.root.current,
        "header": scr.header,
        "panel_p1": scr.player_panels["p1"].body_text if "p1" in scr.player_panels else "",
        "panel_p2": scr.player_panels["p2"].body_text if "p2" in scr.player_panels else "",
        "actions": [b.text for b in reversed(scr.ids.action_grid.children)],
        "state": ctrl.state.to_dict() if ctrl else None,
        "journal_len": len(ctrl.journal) if ctrl else None,
        "path": ctrl.path if ctrl else None,
        # "do this at the table" and the setup checklist: the keys still open
        "todo": [r.key for r in find(scr, "TodoRow")] + [r.key for r in find(scr, "SetupRow")],
        "todo_done": getattr(scr, "_todo_done_by_driver", None),
    }


def board_latency(n=20):
    """Virtual board -> screen: a cube slid one space (mismatch row drawn) and a die thrown
    (roll journaled and shown), timed from the physical change to the frame that shows it."""
    from companion.games.civmint import lane_ids, lane_position
    from companion.controller import GameController

    app = boot(board="virtual")
    wait_for(lambda: app.board.status()["state"] == "paired", 20, "pairing")
    c = GameController.new(app.games_dir, ("A", "B"), ("red", "blue"), seed=3)
    path = c.path
    c.close()
    app.resume_game(path)
    scr = game_screen(app)
    vb = app.board.vboard
    for lane in lane_ids():
        vb.place(lane, lane_position(app.ctrl.state, lane))
    wait_for(lambda: not scr._sync.items() and all(scr._sync.table.get(l) is not None for l in lane_ids()),
             10, "table sensed")
    token, die = [], []
    lane = "culture.p1"
    for i in range(n):
        want = lane_position(app.ctrl.state, lane)
        t0 = time.perf_counter()
        vb.move(lane, want, want + 1)
        wait_for(lambda: any(r.lane == lane for r in find(scr, "SyncRow")), 5, "mismatch row")
        token.append((time.perf_counter() - t0) * 1000)
        vb.move(lane, want + 1, want)
        wait_for(lambda: not find(scr, "SyncRow"), 5, "row gone")
    for i in range(n):
        # the first-player roll, then undo is impossible (a die): start a fresh game each time
        c = GameController.new(app.games_dir, ("A", "B"), ("red", "blue"), seed=100 + i)
        path = c.path
        c.close()
        app.resume_game(path)
        pump(2)
        t0 = time.perf_counter()
        vb.roll(0, value=1 + i % 6, settle_ms=0)
        wait_for(lambda: len(app.ctrl.journal) == 1, 5, "roll journaled")
        pump(1)
        die.append((time.perf_counter() - t0) * 1000)
    app.stop()

    def stats(xs):
        xs = sorted(xs)
        return {"median_ms": round(xs[len(xs) // 2], 1), "p95_ms": round(xs[int(len(xs) * 0.95) - 1], 1),
                "max_ms": round(xs[-1], 1)}
    return {"token_to_screen": stats(token), "die_to_screen": stats(die), "samples": n}


def first_frame(which):
    """Start the real app (`companion.app.main()` with no arguments: the window made to fill the
    screen) or a bare Kivy app made with the same window settings, both through App.run(), and
    print one JSON line when the first frame at the window's final size has been drawn (a resize
    after the first frame counts until the frame after it). `since_spawn` is measured from
    $BENCH_SPAWN (the parent's time.time() just before it started this process), so the
    interpreter's start and every import count, the same way for both; `cpu` is the process's
    CPU time to that frame (all its threads: steadier than wall time on a busy machine). The
    process then ends without its teardown."""
    from kivy.clock import Clock

    flips = []

    def arm(dt):  # the first tick of the first frame: before it is drawn
        from kivy.core.window import Window

        def flipped(*_):
            flips.append((time.time(), time.perf_counter(), tuple(Window.size), time.process_time()))
            if len(flips) == 1:
                Clock.schedule_once(report, 0.4)  # time for a resize to show up
        Window.bind(on_flip=flipped)

    def report(dt):
        from kivy.app import App
        from kivy.core.window import Window

        final = tuple(Window.size)
        at = [f for f in flips if f[2] == final]
        if not at:  # resized after the last frame: wait for the frame at the final size
            Clock.schedule_once(report, 0.1)
            return
        wall, perf, _, cpu = at[0]
        spawn = float(os.environ.get("BENCH_SPAWN") or "nan")
        root = App.get_running_app().root
        print(json.dumps({"since_spawn": wall - spawn, "in_process": perf - T0, "cpu": cpu,
                          "first_flip_size": list(flips[0][2]), "size": list(final),
                          "resized": flips[0][2] != final, "frames": len(flips),
                          "screen": getattr(root, "current", which), "rss_kib": _rss_kib()}), flush=True)
        os._exit(0)

    Clock.schedule_once(arm, 0)
    if which == "app":
        from companion import app as appmod

        appmod.main([])
    elif which == "bare":
        from kivy.config import Config

        # the window main() asks for (companion.app.configure_kivy, DEFAULT_SIZE, maximized),
        # set here so that the bare app imports nothing of the companion
        for key, value in (("width", "1280"), ("height", "800"), ("minimum_width", "320"),
                           ("minimum_height", "480"), ("fullscreen", "0"), ("window_state", "maximized")):
            Config.set("graphics", key, value)
        Config.set("input", "mouse", "mouse,disable_multitouch")
        Config.set("kivy", "exit_on_escape", "0")
        from kivy.app import App
        from kivy.uix.label import Label

        class Bare(App):
            def build(self):
                return Label(text="bare")
        Bare().run()
    raise SystemExit(f"the {which} start ended before its first frame")


def _rss_kib():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def _main(argv):
    cmd = argv[0]
    if cmd == "scenario":
        # scenario FILE:FUNC [board] [WxH]: FUNC(app, drv) in this process, one window
        import importlib.util

        target, func = argv[1].rsplit(":", 1)
        board = argv[2] if len(argv) > 2 else "none"
        size = tuple(int(x) for x in argv[3].split("x")) if len(argv) > 3 else (1280, 800)
        spec = importlib.util.spec_from_file_location("scenario_module", target)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        rc = 0
        try:
            app = boot(size, board)
            try:
                getattr(mod, func)(app, sys.modules[__name__])
            finally:
                app.stop()
            print("SCENARIO OK", flush=True)
        except BaseException:
            import traceback

            # Kivy may have replaced sys.stderr with its logger: write to the real one
            sys.__stderr__.write(traceback.format_exc())
            sys.__stderr__.flush()
            rc = 1
        sys.stdout.flush()
        os._exit(rc)  # skip slow interpreter teardown of SDL/GL
    if cmd == "boardlatency":
        print(json.dumps(board_latency(int(argv[1]) if len(argv) > 1 else 20)), flush=True)
        os._exit(0)
    if cmd == "barekivy":  # the reference: a bare Kivy app, same window, to its first frame
        from companion import app as appmod

        appmod.configure_kivy((1280, 800))
        from kivy.app import App
        from kivy.base import runTouchApp
        from kivy.uix.label import Label

        class Bare(App):
            def build(self):
                return Label(text="bare")
        bare = Bare()
        bare._run_prepare()
        runTouchApp(embedded=True)
        pump(1)
        print(json.dumps({"seconds": time.perf_counter() - T0, "screen": "bare",
                          "rss_kib": _rss_kib()}), flush=True)
        return 0
    if cmd == "firstframe":
        return first_frame(argv[1])
    if cmd == "settle":  # start, then leave the home screen time to build every row
        app = boot(frames=1)
        wait_for(lambda: not app.root.get_screen("home").filling, 30, "the saved-games list")
        print(json.dumps({"seconds": time.perf_counter() - T0}), flush=True)
        return 0
    if cmd == "coldstart":  # to the first frame drawn: the home screen can be used from there
        app = boot(frames=1)
        print(json.dumps({"seconds": time.perf_counter() - T0, "screen": app.root.current,
                          "rss_kib": _rss_kib()}), flush=True)
        return 0
    app = boot()
    if cmd == "play":
        n = int(argv[1])
        if app.root.current != "game":
            press(app.root.get_screen("home").ids.new_game)
            press(app.root.get_screen("new_game").ids.start)
        play(app, n, seed=int(argv[2]) if len(argv) > 2 else 0)
        scr = game_screen(app)
        rows = find(scr, "TodoRow")
        if rows:  # one reminder ticked off at the table before the kill
            scr._todo_done_by_driver = rows[0].key
            press(rows[0].ids.done)
        print("READY " + json.dumps(state_report(app)), flush=True)
        while True:  # wait to be killed
            time.sleep(1)
    if cmd == "report":
        print("READY " + json.dumps(state_report(app)), flush=True)
        return 0
    raise SystemExit(f"unknown command {cmd!r}")


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
