"""The virtual board on a real pty, opened with pyserial, spoken to with protocol HostLink."""
import os
import subprocess
import sys
import time

import pytest
import serial

from companion.link.virtual_board import VirtualBoard
from protocol import wire
from protocol.link import HostLink
from tests.firmware.harness import MAP_PATH, ROOT


class App:
    """What the tablet app does: pyserial + HostLink, pumped in the test thread."""

    def __init__(self, vb):
        self.ser = serial.Serial(vb.path, 115200, timeout=0)
        self.ser.reset_input_buffer()
        self.t0 = time.monotonic()
        self.msgs = []
        info = {"version": (0, 1, 0), "board_id": "tablet", "profile": "test",
                "map_hash": vb.smap.hash8, "lanes": vb.smap.n_lanes, "wells": vb.smap.n_wells}
        self.host = HostLink(self._write, self.now, self.msgs.append, info, 4242)

    def now(self):
        return int((time.monotonic() - self.t0) * 1000)

    def _write(self, buf, start, end):
        self.ser.write(bytes(buf[start:end]))

    def pump_until(self, cond, timeout=10.0):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            d = self.ser.read(4096)
            if d:
                self.host.feed(d)
            self.host.poll()
            if cond():
                return True
            time.sleep(0.002)
        return cond()

    def of(self, t):
        return [m for m in self.msgs if m["type"] == t]

    def close(self):
        self.ser.close()


@pytest.fixture
def vb(tmp_path):
    b = VirtualBoard(MAP_PATH, seed=3, flash_dir=str(tmp_path))
    b.start()
    yield b
    b.stop()
    assert b.error is None


def test_app_pairs_and_gets_events_over_the_pty(vb):
    vb.place("military_might.p2", 2)
    time.sleep(0.2)  # the board commits it after its 20 ms debounce; then the app connects
    app = App(vb)
    try:
        assert app.pump_until(lambda: app.of("SNAPSHOT"))
        snap = app.of("SNAPSHOT")[-1]
        k = vb.smap.lane_index("military_might.p2")
        assert snap["lanes"][k] == 1 << 2
        assert bytes(app.of("LINK_UP")[0]["peer"]["map_hash"]) == vb.smap.hash8
        assert app.of("LINK_UP")[0]["peer"]["profile"] == "virtual"
        vb.move("military_might.p2", 2, 5)
        assert app.pump_until(lambda: app.of("TRACK_CHANGE"))
        app.pump_until(lambda: False, 0.3)
        assert [(m["lane"], m["mask"]) for m in app.of("TRACK_CHANGE")] == [(k, 1 << 5)]
        vb.roll(1, value=6, settle_ms=150)
        assert app.pump_until(lambda: [m for m in app.of("DICE") if m["state"] == 2])
        assert [m["value"] for m in app.of("DICE") if m["state"] == 2] == [6]
        vb.inject_stuck_bit(127)
        app.pump_until(lambda: False, 0.1)  # let the board scan it
        app.host.command(wire.CMD_SELF_TEST)
        assert app.pump_until(lambda: [m for m in app.of("SELF_TEST") if m["trigger"] == 1])
        st = [m for m in app.of("SELF_TEST") if m["trigger"] == 1][0]
        names = [vb.smap.bit_name(i) for c, i, v in st["faults"] if c == wire.FAULT_BIT_STUCK]
        assert names == ["spare bit 127 (register 15 input A)"]
    finally:
        app.close()


def test_unplug_replug_resumes_and_reset_restarts(vb):
    app = App(vb)
    try:
        assert app.pump_until(lambda: app.of("SNAPSHOT"))
        session = app.host.peer_session
        vb.unplug()
        vb.place("food.p1", 4)
        assert app.pump_until(lambda: app.of("LINK_DOWN"))
        vb.replug()
        assert app.pump_until(lambda: app.of("TRACK_CHANGE"))
        assert app.of("TRACK_CHANGE")[-1]["mask"] == 1 << 4
        assert app.host.peer_session == session
        del app.msgs[:]
        vb.reset()
        assert app.pump_until(lambda: app.of("SNAPSHOT"))
        assert app.host.peer_session != session
        assert app.of("SNAPSHOT")[-1]["lanes"][vb.smap.lane_index("food.p1")] == 1 << 4
    finally:
        app.close()


def test_cmd_repl_drops_to_a_repl_banner(vb):
    app = App(vb)
    try:
        assert app.pump_until(lambda: app.of("SNAPSHOT"))
        app.host.command(wire.CMD_REPL)
        assert app.pump_until(lambda: vb.state == "repl")
        vb.reset()
        assert vb.state == "running"
    finally:
        app.close()


def test_cli_virtual_prints_pty_and_takes_commands():
    p = subprocess.Popen([sys.executable, "-m", "companion.cli.board_cli", "virtual", "--seed", "1"],
                         cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        path = p.stdout.readline().strip()
        assert path.startswith("/dev/") and os.path.exists(path)
        p.stdin.write("place food.p2 3\ntokens\nroll 0 4\nbogus\nquit\n")
        p.stdin.flush()
        out = [p.stdout.readline().strip() for _ in range(4)]
        assert out[0] == "ok" and "'food.p2': [3]" in out[1]
        assert out[2] == "rolled 4" and out[3].startswith("error:")
        assert p.wait(10) == 0
    finally:
        if p.poll() is None:
            p.kill()
