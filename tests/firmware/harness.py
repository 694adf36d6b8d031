"""Deterministic harness: the firmware Board on simulated chips with a manual clock, and a
real protocol.link.HostLink on the other end of an in-memory cable."""
import json
import os
import random

from firmware import sensormap
from firmware.board import Board
from firmware.sim.machine import SimMachine
from firmware.sim.world import World
from protocol.link import HostLink

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAP_PATH = os.path.join(ROOT, "hardware", "sensor_map.json")
NO_RES_MAP_PATH = os.path.join(ROOT, "hardware", "sensor_map_no_resources.json")


def load_map(path=MAP_PATH):
    return sensormap.load(path)  # the loader sets spare_level from the file


def long_chain_map(lanes=33, spaces=32):
    """A sensor map of another game, far longer than CivMint's: `lanes` lanes of `spaces`
    spaces on consecutive chain bits (33 x 32 = 132 registers)."""
    seats = ["s%d" % i for i in range(lanes)]
    return {"format": 1, "game": "bigtrack", "seats": seats,
            "tracks": {"t": {"kind": "resource", "spaces": spaces}},
            "chain": {"registers": lanes * spaces // 8},
            "lanes": [{"id": "t.%s" % s, "track": "t", "seat": s,
                       "bits": list(range(k * spaces, (k + 1) * spaces))} for k, s in enumerate(seats)],
            "wells": [{"id": "w0", "bus": 0}]}


def load_profile(name="pico"):
    with open(os.path.join(ROOT, "firmware", "profiles", name + ".json")) as f:
        return json.load(f)


class Clock:
    def __init__(self, t=1000):
        self.t = t

    def __call__(self):
        return self.t


class MemStream:
    def __init__(self):
        self.inbox = bytearray()
        self.out = bytearray()

    def read(self):
        if not self.inbox:
            return None
        d = bytes(self.inbox)
        self.inbox.clear()
        return d

    def write(self, buf, start, end):
        self.out += bytes(buf[start:end])


class Rig:
    def __init__(self, tmp_path, map_path=MAP_PATH, profile="pico", seed=1, setup=None,
                 stuck_ms=60000, connect=True):
        self.clock = Clock()
        self.smap = load_map(map_path)
        self.profile = load_profile(profile)
        self.world = World(self.smap, self.profile, self.clock, random.Random(seed),
                           spare_level=self.smap.spare_level)
        if setup:
            setup(self.world)
        self.machine = SimMachine(self.world)
        self.stream = MemStream()
        self.flash = str(tmp_path) + os.sep
        self.stuck_ms = stuck_ms
        self.each_ms = []  # called every simulated ms, after the world's own events
        self.boot()
        self.msgs = []
        info = {"version": (0, 1, 0), "board_id": "tablet", "profile": "test",
                "map_hash": self.smap.hash8, "lanes": self.smap.n_lanes,
                "wells": self.smap.n_wells}
        self.host = HostLink(self._host_write, self.clock, self.msgs.append, info, 77)
        if connect:
            self.run_until(lambda: self.of("SNAPSHOT"), 3000)

    def boot(self):
        self.board = Board(self.machine, self.profile, self.smap, self.stream, self.clock,
                           fs_dir=self.flash, session=random.Random(5).getrandbits(32),
                           board_id="rig", stuck_ms=self.stuck_ms)

    def _host_write(self, buf, start, end):
        self.stream.inbox += bytes(buf[start:end])

    def tick(self, ms=1):
        for _ in range(ms):
            self.clock.t += 1
            self.world.run_due()
            for fn in self.each_ms:
                fn()
            self.board.step()
            if self.stream.out:
                d = bytes(self.stream.out)
                self.stream.out.clear()
                self.host.feed(d)
            self.host.poll()

    def run_until(self, cond, limit_ms=5000):
        for _ in range(limit_ms):
            if cond():
                return True
            self.tick()
        return cond()

    def of(self, mtype):
        return [m for m in self.msgs if m["type"] == mtype]

    def clear(self):
        del self.msgs[:]
