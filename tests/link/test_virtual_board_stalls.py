"""The virtual board (real firmware on the simulated world, real pty, the app's link) with its
loop stalled while dice tumble, as a busy tablet CPU stalls it: the die moves on the board's
clock, not on loop steps, so every throw is read as the face thrown, and only after it stopped."""
import random
import threading
import time

from companion.link.board_link import DEFAULT_MAP
from companion.link.board_port import open_board
from firmware import sensormap

SMAP = sensormap.load(DEFAULT_MAP)


def test_throws_read_right_through_loop_stalls():
    board = open_board("virtual")
    board.start()
    vb = board.vboard
    rng = random.Random(7)
    try:
        end = time.monotonic() + 10
        while time.monotonic() < end and board.status()["state"] != "paired":
            board.poll()
            time.sleep(0.02)
        assert board.status()["state"] == "paired"
        for n in range(8):
            well = n % SMAP.n_wells
            wid = SMAP.well_ids[well]
            value = rng.randint(1, 6)
            vb.remove_die(well)
            end = time.monotonic() + 5
            while time.monotonic() < end and board.wells().get(wid, ("",))[0] not in ("removed", "empty"):
                board.poll()
                time.sleep(0.01)
            stalls = []

            def stall():  # hold the board's lock: its loop cannot step meanwhile
                for _ in range(3):
                    time.sleep(rng.uniform(0.0, 0.08))
                    with vb.lock:
                        t0 = vb.now_ms()
                        time.sleep(rng.uniform(0.05, 0.15))
                        stalls.append((t0, vb.now_ms()))
            staller = threading.Thread(target=stall)
            vb.roll(well, value=value, settle_ms=300)
            staller.start()
            seen = []
            end = time.monotonic() + 8
            while time.monotonic() < end:
                for ev in board.poll():
                    if ev.get("type") == "DICE" and ev.get("well") == well and ev["state"] == "settled":
                        seen.append((vb.now_ms(), ev["value"]))
                if seen:
                    break
                time.sleep(0.005)
            staller.join()
            assert stalls and seen, "no settled report"
            assert seen[0][1] == value, (value, seen, stalls)
            assert seen[0][0] >= vb.die_stopped_at(well)
    finally:
        board.stop()
