"""A real pseudo-terminal: a BoardLink on the master side, pyserial + HostLink on the tty side."""
import time

import serial

from companion.link.linksim import PtyBoardEndpoint
from protocol import link as plink
from protocol import wire

INFO = {"version": (0, 1, 0), "map_hash": b"\x42" * 8, "lanes": 6, "wells": 2}


def _ms():
    return int(time.monotonic() * 1000)


def test_board_endpoint_to_pyserial_over_a_real_pty():
    board = PtyBoardEndpoint(lanes=[1, 0, 0, 0, 0, 0], map_hash=INFO["map_hash"])
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
        assert board.link.counters["folded"] == 0
        host.command(wire.CMD_INDICATOR, {"mode": wire.IND_IDENTIFY})
        assert pump(lambda: host.count == 0 and board.commands)
        assert board.commands[-1]["type"] == "CMD_INDICATOR"
    finally:
        port.close()
        board.close()
