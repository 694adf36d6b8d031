"""A fault-injecting link between a board endpoint and a tablet endpoint, in simulated time.

Used by the protocol tests and the soak benchmark. Everything is seeded, so a failing run can
be replayed. The board side is the real protocol.link.BoardLink, the tablet side the real
HostLink; only the cable between them is simulated.
"""
import math
import os
import random
import select
import threading
import time
import tty

from protocol import link as plink
from protocol import wire


class Faults:
    def __init__(self, bit_flip=0.0, drop=0.0, garbage=0.0, truncate=0.0, unplug_every_ms=0,
                 unplug_ms=0, reset_every_ms=0, latency_ms=1, ber=0.0):
        self.bit_flip = bit_flip  # per byte: one random bit flipped
        self.ber = ber  # per bit: flipped (independently of every other bit)
        self.ber_byte = 1.0 - (1.0 - ber) ** 8  # odds that a byte has a flipped bit
        odds = [math.comb(8, k) * ber ** k * (1.0 - ber) ** (8 - k) for k in range(1, 9)]
        total = sum(odds) or 1.0
        self.ber_k = [sum(odds[:k]) / total for k in range(1, 9)]  # cumulative, given >= 1
        self.drop = drop  # per byte: byte lost
        self.garbage = garbage  # per write: 1-20 random bytes inserted
        self.truncate = truncate  # per write: the rest of the write is lost
        self.unplug_every_ms = unplug_every_ms  # mean time between unplugs (0: never)
        self.unplug_ms = unplug_ms  # how long the cable stays out
        self.reset_every_ms = reset_every_ms  # mean time between board resets (0: never)
        self.latency_ms = latency_ms


class Wire:
    """One direction of the cable."""

    def __init__(self, rng, faults):
        self.rng = rng
        self.f = faults
        self.in_flight = []  # (deliver_at_ms, bytes)
        self.plugged = True
        self.bytes_sent = 0

    def send(self, now, data):
        self.bytes_sent += len(data)
        if not self.plugged:
            return
        rng, f = self.rng, self.f
        out = bytearray()
        if f.garbage and rng.random() < f.garbage:
            out += bytes(rng.randrange(256) for _ in range(rng.randint(1, 20)))
        for b in data:
            if f.drop and rng.random() < f.drop:
                continue
            if f.bit_flip and rng.random() < f.bit_flip:
                b ^= 1 << rng.randrange(8)
            if f.ber and rng.random() < f.ber_byte:
                # k bits of this byte flip, k >= 1 with its binomial odds, at random places
                u, k = rng.random(), 1
                while k < 8 and u > f.ber_k[k - 1]:
                    k += 1
                for i in rng.sample(range(8), k):
                    b ^= 1 << i
            out.append(b)
            if f.truncate and rng.random() < f.truncate / max(1, len(data)):
                break
        self.in_flight.append((now + f.latency_ms, bytes(out)))

    def due(self, now):
        ready = [d for t, d in self.in_flight if t <= now]
        self.in_flight = [(t, d) for t, d in self.in_flight if t > now]
        return b"".join(ready)


class Harness:
    """A board world (lanes + wells), its BoardLink, the cable, and a HostLink with a mirror."""

    def __init__(self, seed=1, faults=None, lanes=28, wells=2, window=32, ring_size=2048,
                 back_pressure=True):
        self.rng = random.Random(seed)
        self.faults = faults or Faults()
        self.now = 0
        self.lane_count = lanes
        self.true_lanes = [1] * lanes
        self.true_wells = [(wire.DICE_EMPTY, 0, 0, 0)] * wells
        self.window, self.ring_size = window, ring_size
        self.back_pressure = back_pressure
        self.to_host = Wire(random.Random(seed + 1), self.faults)
        self.to_board = Wire(random.Random(seed + 2), self.faults)
        info = {"version": (0, 1, 0), "map_hash": b"\x11" * 8, "lanes": lanes, "wells": wells}
        self.board_info = dict(info, board_id="sim-board", profile="virtual")
        self.host_info = dict(info, board_id="tablet", profile="test")
        self.board_msgs = []
        self.host_events = []  # ("event", id) / ("snapshot", reason)
        self.mirror_lanes = None
        self.mirror_wells = None
        self.generated = []  # event ids in generation order
        self.queued = {}  # id -> board session it was queued in
        self.superseded = set()  # queued ids dropped by a reset or a fresh pairing
        self.folded = set()
        self.before_pairing = set()  # made while the board had no tablet: its pairing snapshot carries them
        self.delivered = []
        self.resets = 0
        self.unplugs = 0
        self.reset_at = None
        self.resync_times = []
        self.next_id = 1
        self.inflight_ids = []  # ids in the board ring, oldest first, with their seq
        self.host = plink.HostLink(self._host_write, self._clock, self._on_host_msg,
                                   self.host_info, self.rng.getrandbits(32))
        self._boot_board()
        self.next_unplug = self._next(self.faults.unplug_every_ms)
        self.plug_back_at = None
        self.next_reset = self._next(self.faults.reset_every_ms)
        self.settle()  # the app and the board pair before the game starts

    def _next(self, mean):
        return self.now + int(self.rng.expovariate(1.0 / mean)) + 1 if mean else None

    def _clock(self):
        return self.now

    def _board_write(self, buf, start, end):
        self.to_host.send(self.now, bytes(buf[start:end]))

    def _host_write(self, buf, start, end):
        self.to_board.send(self.now, bytes(buf[start:end]))

    def _snapshot_source(self):
        return list(self.true_lanes), list(self.true_wells)

    def _boot_board(self):
        self.board = plink.BoardLink(self._board_write, self._clock, self.board_msgs.append,
                                     self.board_info, self.rng.getrandbits(32),
                                     self._snapshot_source, self.window, self.ring_size)
        orig_fresh = self.board._fresh_start

        def fresh(hello, dropped, peer_changed):
            self._supersede_ring()
            orig_fresh(hello, dropped, peer_changed)
        self.board._fresh_start = fresh
        self.inflight_ids = []

    def _supersede_ring(self):
        for ident, _ in self.inflight_ids:
            self.superseded.add(ident)
        self.inflight_ids = []

    def _on_host_msg(self, msg):
        t = msg["type"]
        if t == "SNAPSHOT":
            self.mirror_lanes = list(msg["lanes"])
            self.mirror_wells = [tuple(w) for w in msg["wells"]]
            self.host_events.append(("snapshot", msg["reason"]))
            if self.reset_at is not None:
                self.resync_times.append(self.now - self.reset_at)
                self.reset_at = None
        elif t == "TRACK_CHANGE":
            if self.mirror_lanes is not None:
                self.mirror_lanes[msg["lane"]] = msg["mask"]
            self.delivered.append(msg["mask"])
        elif t == "DICE":
            if self.mirror_wells is not None:
                self.mirror_wells[msg["well"]] = (msg["state"], msg["value"], msg["confidence"],
                                                  msg["roll"])

    # ------------------------------------------------------------------ events
    def room(self):
        return self.board.count < self.window - 1 and not self.board.snapshot_pending

    def emit_event(self):
        """A token moves: a TRACK_CHANGE whose mask carries a unique id for the accounting."""
        ident = self.next_id
        self.next_id += 1
        lane = self.rng.randrange(self.lane_count)
        self.true_lanes[lane] = ident
        self.generated.append(ident)
        seq = self.board.tx_next
        unpaired = self.board.peer_session is None
        if self.board.track_change(lane, ident):
            self.queued[ident] = self.board.session
            self.inflight_ids.append((ident, seq))
        elif unpaired:
            self.before_pairing.add(ident)
        else:
            self.folded.add(ident)

    def roll_die(self):
        well = self.rng.randrange(len(self.true_wells))
        roll = (self.true_wells[well][3] + 1) & 0xFF
        value = self.rng.randint(1, 6)
        self.true_wells[well] = (wire.DICE_SETTLED, value, 97, roll)
        # when it is folded (ring full), the coming snapshot carries the well
        self.board.dice(well, wire.DICE_SETTLED, value, 97, roll)

    # -------------------------------------------------------------------- time
    def step(self, ms=1):
        for _ in range(ms):
            self.now += 1
            f = self.faults
            if self.next_unplug is not None and self.now >= self.next_unplug:
                self.to_host.plugged = self.to_board.plugged = False
                self.unplugs += 1
                self.plug_back_at = self.now + f.unplug_ms
                self.next_unplug = self._next(f.unplug_every_ms) + f.unplug_ms
            if self.plug_back_at is not None and self.now >= self.plug_back_at:
                self.to_host.plugged = self.to_board.plugged = True
                self.plug_back_at = None
            if self.next_reset is not None and self.now >= self.next_reset:
                self._supersede_ring()
                self.resets += 1
                self.reset_at = self.now
                self.to_board.in_flight = []
                self._boot_board()
                self.next_reset = self._next(f.reset_every_ms)
            data = self.to_board.due(self.now)
            if data:
                self.board.feed(data)
            data = self.to_host.due(self.now)
            if data:
                self.host.feed(data)
            self._trim_inflight()
            self.board.poll()
            self.host.poll()

    def _trim_inflight(self):
        oldest = self.board.oldest_seq()
        while self.inflight_ids and plink.seq_diff(self.inflight_ids[0][1], oldest) < 0:
            self.inflight_ids.pop(0)

    def run_events(self, n_events, rate_per_ms=0.2, dice_every=10):
        """Generate n_events token moves (plus dice) while time runs; then let the link drain."""
        made = 0
        while made < n_events:
            if (not self.back_pressure or self.room()) and self.rng.random() < rate_per_ms:
                if made % dice_every == dice_every - 1:
                    self.roll_die()
                self.emit_event()
                made += 1
            self.step()
        self.settle()

    def settle(self, max_ms=60000):
        """Run with faults off until both sides are paired and nothing is unacknowledged."""
        saved = self.faults.__dict__.copy()
        for k in ("bit_flip", "ber", "drop", "garbage", "truncate"):
            setattr(self.faults, k, 0.0)
        self.next_unplug = self.next_reset = None
        self.plug_back_at = None
        self.to_host.plugged = self.to_board.plugged = True
        for _ in range(max_ms):
            self.step()
            if self.board.count == 0 and not self.board.snapshot_pending and self.host.synced \
                    and self.board.synced and not self.to_host.in_flight:
                break
        self.step(50)
        self.faults.__dict__.update(saved)
        self.next_unplug = self._next(self.faults.unplug_every_ms)
        self.next_reset = self._next(self.faults.reset_every_ms)

    def report(self):
        delivered = self.delivered
        seen = set()
        duplicates = 0
        for d in delivered:
            if d in seen:
                duplicates += 1
            seen.add(d)
        reordered = sum(1 for a, b in zip(delivered, delivered[1:]) if b <= a)
        queued = set(self.queued)
        lost = len(queued - seen - self.superseded)
        return {
            "generated": len(self.generated), "delivered": len(delivered),
            "lost": lost, "duplicated": duplicates, "reordered": reordered,
            "superseded_by_reset_snapshot": len(self.superseded - seen),
            "folded_into_snapshot": len(self.folded),
            "carried_by_pairing_snapshot": len(self.before_pairing), "resets": self.resets,
            "unplugs": self.unplugs, "state_matches": self.state_matches(),
            "board": dict(self.board.counters), "host": dict(self.host.counters),
        }

    def state_matches(self):
        return self.mirror_lanes == self.true_lanes and self.mirror_wells == [
            tuple(w) for w in self.true_wells]


class PtyBoardEndpoint(threading.Thread):
    """A bare BoardLink on the master side of a real pseudo-terminal, in real time.

    Only the protocol endpoint (no firmware): for link-layer tests. The app opens `path`
    with pyserial exactly as it opens a board.
    """

    def __init__(self, lanes, wells=2, map_hash=b"\x11" * 8, session=99):
        """lanes: the lane count, or the initial lane masks."""
        super().__init__(daemon=True)
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        self.path = os.ttyname(self.slave)
        self.lanes = list(lanes) if isinstance(lanes, (list, tuple)) else [0] * lanes
        lanes = len(self.lanes)
        self.wells = [(wire.DICE_EMPTY, 0, 0, 0)] * wells
        self.lock = threading.Lock()
        self.commands = []
        self.running = True
        info = {"version": (0, 1, 0), "map_hash": map_hash, "lanes": lanes, "wells": wells,
                "board_id": "pty-board", "profile": "virtual"}
        self.link = plink.BoardLink(self._write, self._ms, self.commands.append, info, session,
                                    lambda: (list(self.lanes), list(self.wells)))

    @staticmethod
    def _ms():
        return int(time.monotonic() * 1000)

    def _write(self, buf, start, end):
        try:
            os.write(self.master, bytes(buf[start:end]))
        except OSError:
            pass

    def move(self, lane, mask):
        with self.lock:
            self.lanes[lane] = mask
            return self.link.track_change(lane, mask)

    def die(self, well, state, value, confidence, roll):
        with self.lock:
            self.wells[well] = (state, value, confidence, roll)
            return self.link.dice(well, state, value, confidence, roll)

    def send(self, mtype, fields):
        with self.lock:
            return self.link.send_message(mtype, fields)

    def run(self):
        while self.running:
            r, _, _ = select.select([self.master], [], [], 0.005)
            with self.lock:
                if r:
                    try:
                        self.link.feed(os.read(self.master, 4096))
                    except OSError:
                        pass
                self.link.poll()

    def close(self):
        self.running = False
        self.join(2)
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass
