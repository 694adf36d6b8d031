"""A real pseudo-terminal: a BoardLink on the master side, pyserial + HostLink on the tty side."""
import os
import select
import threading
import time
import tty

import serial

from protocol import link as plink
from protocol import wire

INFO = {"version": (0, 1, 0), "map_hash": b"\x42" * 8, "lanes": 6, "wells": 2}


def _ms():
    return int(time.monotonic() * 1000)


class PtyBoard(threading.Thread):
    def __init__(self):
        super().__init__(daemon=True)
        self.master, slave = os.openpty()
        tty.setraw(slave)
        self.path = os.ttyname(slave)
        self._slave = slave
        self.lanes = [1, 0, 0, 0, 0, 0]
        self.lock = threading.Lock()
        self.commands = []
        self.stop = False
        self.link = plink.BoardLink(self._write, _ms, self.commands.append,
                                    dict(INFO, board_id="pty-board", profile="virtual"), 99,
                                    lambda: (list(self.lanes), [(0, 0, 0, 0), (0, 0, 0, 0)]))

    def _write(self, buf, start, end):
        try:
            os.write(self.master, bytes(buf[start:end]))
        except OSError:
            pass

    def move(self, lane, mask):
        with self.lock:
            self.lanes[lane] = mask
            self.link.track_change(lane, mask)

    def run(self):
        while not self.stop:
            r, _, _ = select.select([self.master], [], [], 0.005)
            with self.lock:
                if r:
                    self.link.feed(os.read(self.master, 4096))
                self.link.poll()


def test_board_endpoint_to_pyserial_over_a_real_pty():
    board = PtyBoard()
    board.start()
    port = serial.Serial(board.path, baudrate=115200, timeout=0.01)
    received = []
    host = plink.HostLink(lambda b, s, e: port.write(bytes(b[s:e])), _ms, received.append,
                          dict(INFO, board_id="tablet", profile="test"), 5)
    try:
        def pump(until, limit=5.0):
            end = time.monotonic() + limit
            while time.monotonic() < end and not until():
                data = port.read(4096)
                if data:
                    host.feed(data)
                host.poll()
            return until()

        assert pump(lambda: any(m["type"] == "SNAPSHOT" for m in received))
        snap = [m for m in received if m["type"] == "SNAPSHOT"][-1]
        assert snap["lanes"] == [1, 0, 0, 0, 0, 0]
        for i in range(200):
            # a token moves whenever the board's resend ring has room (tokens move at human pace)
            assert pump(lambda: board.link.count < 30)
            board.move(i % 6, 1 << (i % 11))
        assert pump(lambda: len([m for m in received if m["type"] == "TRACK_CHANGE"]) >= 200)
        moves = [(m["lane"], m["mask"]) for m in received if m["type"] == "TRACK_CHANGE"]
        assert moves == [(i % 6, 1 << (i % 11)) for i in range(200)]
        host.command(wire.CMD_INDICATOR, {"mode": wire.IND_IDENTIFY})
        assert pump(lambda: host.count == 0 and board.commands)
        assert board.commands[-1]["type"] == "CMD_INDICATOR"
    finally:
        board.stop = True
        board.join(2)
        port.close()
        os.close(board.master)
        os.close(board._slave)
