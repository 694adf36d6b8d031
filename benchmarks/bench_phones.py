"""Phones at the table (issue 37, part 7): figures, no assertions.

    .venv/bin/python benchmarks/bench_phones.py [moves]

1. Confirm to every page: a Civ Quest game of 7 players, 7 phones on loopback (aiohttp WebSocket
   clients that read every message as a page does: JSON parsed, then shown). A phone sends its
   seat's move; the time until all 7 phones hold the new state, p50 / p95 / max (goal: p95 <=
   300 ms). The reference, measured in the same run: the same moves dispatched on the tablet
   alone (journal fsync included), so the ratio is what the phones add.
2. The tablet's frame time, side by side: the real app under Xvfb (a child process, one window),
   a Civ Quest game of 7 players played at the same pace (a move every 100 ms) for the same
   time, once with the switch off (the tablet makes the moves, as taps) and once with it on (7
   phones connected, one of them makes each move through the pickers and Confirm). Frame
   intervals p50 / p95 / max in both; the goal is the same frame time.
"""
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)
DRIVER = os.path.join(ROOT, "tests", "app", "app_driver.py")
sys.path.insert(0, os.path.dirname(DRIVER))

NAMES = ["Ana", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus"]
COLOURS = ["blue", "green", "red", "yellow", "purple", "black", "orange"]


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def fig(xs):
    return (f"p50 {statistics.median(xs) * 1000:.1f} ms, p95 {pct(xs, 95) * 1000:.1f} ms, "
            f"max {max(xs) * 1000:.1f} ms (n={len(xs)})")


# ------------------------------------------------------------------------- 1. confirm to pages

class _Phone:
    def __init__(self, session, ws, seat):
        self.session, self.ws, self.seat = session, ws, seat
        self.at, self.at_time = -1, {}

    async def reader(self):
        async for msg in self.ws:
            doc = json.loads(msg.data)  # what a page does with it first
            if doc.get("type") == "state":
                self.at = doc["at"]
                self.at_time[doc["at"]] = time.perf_counter()


async def _phones(table):
    import aiohttp
    phones = []
    for seat in table.ctrl.seats():
        s = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
        async with s.get(table.server.url(seat)):
            pass
        ws = await s.ws_connect(f"http://{table.address}/ws", headers={"Origin": f"http://{table.address}"})
        phones.append(_Phone(s, ws, seat))
    tasks = [asyncio.ensure_future(p.reader()) for p in phones]
    return phones, tasks


def confirm_to_pages(moves):
    sys.path.insert(0, os.path.join(ROOT, "tests", "phones"))
    from phone_kit import Table

    from companion.controller import GameController
    from companion.phones.seat_state import SeatStates

    tmp = tempfile.mkdtemp()
    # the script: moves each seat's phone may make (from its own view), chance rolled by the tablet
    ref = GameController.new(os.path.join(tmp, "ref"), NAMES, COLOURS, seed=3, game="civ_quest")
    states, rng, script, ref_times = SeatStates(ref), random.Random(1), [], []
    while len([s for s in script if s[0]]) < moves and not ref.game.is_over(ref.state):
        if ref.awaiting_dice():
            script.append((None, None))
            ref.roll_virtual()
            continue
        seat = ref.game.actor(ref.state)
        acts = states.legal_for(seat)
        a = rng.choice([x for x in acts if x.get("type") != "end_step"] or acts)
        script.append((seat, a))
        t0 = time.perf_counter()
        ref.dispatch(a, "ui")  # the reference: the same move made on the tablet
        ref_times.append(time.perf_counter() - t0)
    ref.close()

    table = Table(os.path.join(tmp, "live"), "civ_quest", NAMES, seed=3)
    times = []

    async def go():
        phones, tasks = await _phones(table)
        by_seat = {p.seat: p for p in phones}
        await asyncio.sleep(0.3)
        for seat, action in script:
            if seat is None:
                await asyncio.get_running_loop().run_in_executor(None, table.play_chance)
                continue
            at = await asyncio.get_running_loop().run_in_executor(None, lambda: table.ctrl.journal.last_seq)
            while by_seat[seat].at != at:
                await asyncio.sleep(0.001)
            t0 = time.perf_counter()
            await by_seat[seat].ws.send_str(json.dumps({"type": "act", "at": at, "id": f"m{len(times)}",
                                                        "action": action}))
            while not all(p.at > at for p in phones):
                await asyncio.sleep(0.0005)
            new = phones[0].at
            times.append(max(p.at_time[new] for p in phones) - t0)
        for t in tasks:
            t.cancel()
        for p in phones:
            await p.ws.close()
            await p.session.close()
    try:
        asyncio.run(go())
        sizes = [len(t) for _, t in table.sent]
    finally:
        table.close()
    print(f"Confirm on a phone -> all 7 phones hold the new state (Civ Quest, 7 seats, loopback): {fig(times)}; "
          f"goal p95 <= 300 ms")
    print(f"  reference, the same moves made on the tablet alone (dispatch + journal fsync): {fig(ref_times)}; "
          f"ratio of medians {statistics.median(times) / statistics.median(ref_times):.2f}")
    print(f"  messages sent: {len(sizes)}, median {statistics.median(sizes) / 1024:.1f} KiB, "
          f"largest {max(sizes) / 1024:.1f} KiB")


# ------------------------------------------------------------------------- 2. frame time (Kivy)

def _phone_player(address, urls, stop, played):
    """7 phones in one thread: every seat's page reads every state; the seat to act picks the
    first choice at each question and confirms, a move every 100 ms at most."""
    import aiohttp

    async def go():
        sessions, wss, last = [], {}, {}
        for seat, url in urls.items():
            s = aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))
            async with s.get(url):
                pass
            wss[seat] = await s.ws_connect(f"http://{address}/ws", headers={"Origin": f"http://{address}"})
            sessions.append(s)

        async def read(seat):
            async for msg in wss[seat]:
                doc = json.loads(msg.data)
                if doc.get("type") == "state":
                    last[seat] = doc
        tasks = [asyncio.ensure_future(read(s)) for s in wss]
        sent_at = {}
        while not stop.is_set():
            await asyncio.sleep(0.02)
            for seat, st in list(last.items()):
                d = st.get("decision")
                if not d or not st["turn"]["mine"]:
                    continue
                key = (st["at"], json.dumps(d["trail"]))
                if sent_at.get(seat) == key:
                    continue
                sent_at[seat] = key
                if d["complete"]:
                    if time.monotonic() - played[-1] < 0.1 if played else False:
                        sent_at[seat] = None
                        continue
                    played.append(time.monotonic())
                    await wss[seat].send_str(json.dumps({"type": "act", "at": st["at"], "id": f"x{len(played)}",
                                                         "action": d["complete"]["action"]}))
                else:
                    q = d["question"]
                    await wss[seat].send_str(json.dumps({"type": "pick", "at": st["at"], "field": q["field"],
                                                         "option": 0}))
        for t in tasks:
            t.cancel()
        for ws in wss.values():
            await ws.close()
        for s in sessions:
            await s.close()
    asyncio.run(go())


def scenario_frames(app, drv):
    """In the app's process: the same game played for SECONDS with the switch off, then on."""
    import threading

    from kivy.clock import Clock

    from companion.controller import GameController
    from companion.gui import phones_panel

    seconds = float(os.environ.get("BENCH_SECONDS", "10"))
    phones_panel.HOST = "127.0.0.1"
    out = {}
    for mode in ("off", "on"):
        ctrl = GameController.new(app.games_dir, NAMES, COLOURS, seed=3, game="civ_quest", think_aside=True)
        app._set_game(ctrl)
        scr = drv.game_screen(app)
        drv.pump(5)
        frames, played, stop = [], [], threading.Event()
        rng = random.Random(2)

        def tablet_moves(dt, mode=mode, ctrl=ctrl):
            if ctrl.awaiting_dice():
                ctrl.roll_virtual()
            elif mode == "off":
                acts = ctrl.legal_actions()
                if acts:
                    ctrl.dispatch(rng.choice([a for a in acts if a.get("type") != "end_step"] or acts), "ui")
                    played.append(time.monotonic())
        ev = Clock.schedule_interval(tablet_moves, 0.1)
        th = None
        if mode == "on":
            panel = phones_panel.open_for(scr)
            panel.ids.switch.active = True
            drv.pump(3)
            panel.dismiss()
            server = phones_panel.table_for(scr, make=False)
            urls = {s: server.url(s) for s in ctrl.seats()}
            th = threading.Thread(target=_phone_player, args=(server.address, urls, stop, played), daemon=True)
            th.start()
            end = time.monotonic() + 3
            while time.monotonic() < end:  # the phones join
                drv.pump(1)
        rec = Clock.schedule_interval(lambda dt: frames.append(dt), 0)
        end = time.monotonic() + seconds
        n0 = len(played)
        while time.monotonic() < end:
            drv.pump(1)
        rec.cancel()
        ev.cancel()
        stop.set()
        if th is not None:
            th.join(10)
            phones_panel.stop(scr)
        out[mode] = {"frames": frames[5:], "moves": len(played) - n0}
        app.leave_game()
        drv.pump(3)
    print("FRAMES " + json.dumps(out), flush=True)


def frame_time():
    from gui_process import scenario_env

    tmp = tempfile.mkdtemp()
    env = scenario_env(tmp)
    proc = None
    if not os.environ.get("DISPLAY"):
        from bench_app import _display  # noqa: E402
        sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
        proc = _display()
        env["DISPLAY"] = os.environ["DISPLAY"]
    try:
        r = subprocess.run([sys.executable, DRIVER, "scenario", f"{os.path.abspath(__file__)}:scenario_frames",
                            "none", "1280x800"], env=env, capture_output=True, text=True, timeout=300)
    finally:
        if proc is not None:
            proc.kill()
    line = next((ln for ln in r.stdout.splitlines() if ln.startswith("FRAMES ")), None)
    if line is None:
        print("frame time: the app's run failed\n" + r.stderr[-3000:])
        return
    out = json.loads(line[len("FRAMES "):])
    print("the tablet's frame interval in the real app (Xvfb, 1280x800, Civ Quest, 7 seats, a move every "
          "100 ms at most), side by side:")
    for mode, label in (("off", "switch off (moves tapped on the tablet)"),
                        ("on", "switch on (7 phones connected, moves confirmed on phones)")):
        f = out[mode]["frames"]
        print(f"  {label}: {fig(f)}; {out[mode]['moves']} moves")
    off, on = statistics.median(out["off"]["frames"]), statistics.median(out["on"]["frames"])
    print(f"  ratio of medians on/off {on / off:.2f}; p95 on/off {pct(out['on']['frames'], 95) / pct(out['off']['frames'], 95):.2f}")


if __name__ == "__main__":
    moves = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    confirm_to_pages(moves)
    frame_time()
