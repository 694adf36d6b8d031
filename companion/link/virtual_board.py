"""Virtual board: the real firmware (firmware/board.py) on simulated chips, on a real pty.

    vb = VirtualBoard("hardware/sensor_map.json", profile="virtual", seed=1)
    path = vb.start()              # e.g. /dev/pts/7: open it with pyserial like a board
    vb.place("military_might.p2", 3)
    vb.roll(0, value=4, settle_ms=300)
    vb.stop()

The firmware main loop runs in a background thread in real time (1 ms idle sleeps); the
chips answer at register and bit level (firmware/sim/chips.py); the flash is a directory.
Control calls may come from any thread.
"""
import json
import os
import random
import shutil
import tempfile
import threading
import time
import tty

from firmware import sensormap
from firmware.board import Board
from firmware.sim.machine import SimMachine
from firmware.sim.world import World

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_MAP = os.path.join(ROOT, "hardware", "sensor_map.json")
PROFILES = os.path.join(ROOT, "firmware", "profiles")
REPL_BANNER = (b"\r\nMicroPython (tabletop virtual board) REPL: the firmware stopped on "
               b"CMD_REPL; VirtualBoard.reset() restarts it\r\n>>> ")


def load_profile(name):
    """A profile from firmware/profiles/<name>.json; 'virtual' = the Pico pins, board 'virtual'."""
    if name == "virtual":
        with open(os.path.join(PROFILES, "pico.json")) as f:
            prof = json.load(f)
        prof["board"] = "virtual"
        prof["name"] = "Virtual board (simulated chips, Pico pin-out)"
        return prof
    path = name if name.endswith(".json") else os.path.join(PROFILES, name + ".json")
    with open(path) as f:
        return json.load(f)


class PtyStream:
    """The board's USB CDC port: the master side of a pty; drops bytes when unplugged/full."""

    def __init__(self):
        self.master, self.slave = os.openpty()
        tty.setraw(self.slave)
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.plugged = True
        self.rx_bytes = 0
        self.tx_bytes = 0
        self.dropped = 0

    def read(self):
        try:
            data = os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return None
        if not self.plugged:
            return None
        self.rx_bytes += len(data)
        return data

    def write(self, buf, start, end):
        if not self.plugged:
            self.dropped += end - start
            return
        try:
            n = os.write(self.master, bytes(buf[start:end]))
        except (BlockingIOError, OSError):
            n = 0
        self.tx_bytes += n
        self.dropped += end - start - n

    def raw(self, data):
        try:
            os.write(self.master, data)
        except OSError:
            pass

    def close(self):
        for fd in (self.master, self.slave):
            try:
                os.close(fd)
            except OSError:
                pass


class VirtualBoard:
    """A board the app opens like a real one. Lanes by id ('food.p1') or index, wells by
    index or id ('well0'); positions are 0-based printed spaces; die values are top faces."""

    def __init__(self, sensor_map_path=DEFAULT_MAP, profile="virtual", seed=None,
                 flash_dir=None, production=False, stuck_ms=60000, tick_s=0.001):
        self.map_path = sensor_map_path
        self.smap = sensormap.load(sensor_map_path)
        self.profile = load_profile(profile)
        self.rng = random.Random(seed)
        self.seed = seed
        self._own_flash = flash_dir is None
        self.flash_dir = flash_dir or tempfile.mkdtemp(prefix="vboard-flash-")
        self.production = production
        self.stuck_ms = stuck_ms
        self.tick_s = tick_s
        self.lock = threading.RLock()
        self._t0 = time.monotonic()
        self.world = World(self.smap, self.profile, self.now_ms, self.rng,
                           spare_level=self.smap.spare_level)
        self.machine = SimMachine(self.world)
        self.stream = None
        self.board = None
        self.state = "off"  # off | running | repl | stopped
        self.boots = 0
        self.thread = None
        self._stop = threading.Event()
        self.error = None

    def now_ms(self):
        return int((time.monotonic() - self._t0) * 1000)

    # ------------------------------------------------------------ life cycle
    def start(self):
        """Open the pty, boot the firmware, start the loop thread; returns the pty path."""
        self.stream = PtyStream()
        with self.lock:
            self._boot()
        self.thread = threading.Thread(target=self._run, name="virtual-board", daemon=True)
        self.thread.start()
        return self.stream.path

    @property
    def path(self):
        return self.stream.path if self.stream else None

    def _boot(self):
        self.world.reset_requested = False
        self.world.wdt_timeout = None
        self.boots += 1
        self.board = Board(self.machine, self.profile, self.smap, self.stream, self.now_ms,
                           fs_dir=self.flash_dir + os.sep, production=self.production,
                           session=self.rng.getrandbits(32),
                           board_id="virtual-%08x" % self.rng.getrandbits(32),
                           stuck_ms=self.stuck_ms)
        self.state = "running"

    def _run(self):
        while not self._stop.is_set():
            with self.lock:
                try:
                    self.world.run_due()
                    if self.state == "running":
                        if not self.board.step():
                            self.state = "repl"
                            self.stream.raw(REPL_BANNER)
                        elif self.world.reset_requested or self.world.wdt_expired():
                            self._boot()
                except Exception as exc:  # keep the thread alive; tests look at .error
                    self.error = exc
                    self.state = "stopped"
                    raise
            time.sleep(self.tick_s)

    def stop(self):
        self._stop.set()
        if self.thread is not None:
            self.thread.join(5)
        if self.stream is not None:
            self.stream.close()
        self.state = "stopped"
        if self._own_flash:
            shutil.rmtree(self.flash_dir, ignore_errors=True)

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def reset(self):
        """Press the reset button: new session, calibration kept, tokens stay where they are."""
        with self.lock:
            self._boot()

    def unplug(self):
        """Pull the USB cable: no bytes either way; the firmware keeps running."""
        with self.lock:
            self.stream.plugged = False

    def replug(self):
        with self.lock:
            self.stream.plugged = True

    # ---------------------------------------------------------------- tokens
    def _lane(self, lane):
        return lane if isinstance(lane, int) else self.smap.lane_index(lane)

    def _well(self, well):
        return well if isinstance(well, int) else self.smap.well_index(well)

    def _check_pos(self, k, position):
        if not 0 <= position < self.smap.n_spaces(k):
            raise ValueError("lane %s has spaces 0..%d" % (self.smap.lane_ids[k],
                                                           self.smap.n_spaces(k) - 1))

    def place(self, lane_id, position):
        """Put a token on a space (another token in the same lane stays)."""
        k = self._lane(lane_id)
        self._check_pos(k, position)
        with self.lock:
            self.world.tokens.setdefault(k, set()).add(position)

    def remove(self, lane_id, position):
        k = self._lane(lane_id)
        self._check_pos(k, position)
        with self.lock:
            self.world.tokens.get(k, set()).discard(position)

    def move(self, lane_id, from_pos, to_pos, ms_per_space=12):
        """Slide a token along the lane: over each space boundary the magnet covers both
        spaces, then only the next one, each for ms_per_space / 2. Returns when queued."""
        k = self._lane(lane_id)
        self._check_pos(k, from_pos)
        self._check_pos(k, to_pos)
        step = 1 if to_pos > from_pos else -1
        with self.lock:
            t = self.now_ms()
            half = max(1, ms_per_space // 2)
            p = from_pos
            while p != to_pos:
                q = p + step
                self.world.at(t, self._setter(k, p, {p, q}))
                t += half
                self.world.at(t, self._setter(k, p, {q}, drop=(p, q)))
                t += half
                p = q

    def _setter(self, k, old, positions, drop=None):
        def fn():
            s = self.world.tokens.setdefault(k, set())
            s.discard(old)
            if drop:
                for d in drop:
                    s.discard(d)
            s.update(positions)
        return fn

    def tokens(self):
        with self.lock:
            return {self.smap.lane_ids[k]: sorted(v) for k, v in self.world.tokens.items() if v}

    def lane_masks(self):
        """What the lanes physically hold, as masks (bit i = space i)."""
        with self.lock:
            out = [0] * self.smap.n_lanes
            for k, v in self.world.tokens.items():
                for p in v:
                    out[k] |= 1 << p
            return out

    # ------------------------------------------------------------------ dice
    def roll(self, well, value=None, settle_ms=400, crooked=False):
        """Throw a die into the well; it tumbles for settle_ms then rests with ``value`` on
        top (random when None), or crooked against the wall. Returns the value."""
        w = self._well(well)
        if value is None:
            value = self.rng.randint(1, 6)
        if not 1 <= value <= 6:
            raise ValueError("a die shows 1..6")
        with self.lock:
            self.world.optics[w].roll(self.now_ms(), value, settle_ms, crooked)
        return value

    def remove_die(self, well):
        with self.lock:
            self.world.optics[self._well(well)].remove()

    def die_stopped_at(self, well):
        """Board time (ms) at which the last rolled die came to rest."""
        return self.world.optics[self._well(well)].stopped_at

    # ---------------------------------------------------------------- faults
    def inject_stuck_bit(self, bit, level=0):
        """Force chain bit ``bit`` to ``level`` (0 = a hall switch stuck on)."""
        with self.lock:
            self.world.stuck[bit] = level

    def clear_stuck_bit(self, bit):
        with self.lock:
            self.world.stuck.pop(bit, None)

    def remove_sensor(self, well):
        """Unplug a well's colour sensor (it stops answering on I2C)."""
        with self.lock:
            self.world.sensors[self._well(well)].present = False

    def restore_sensor(self, well):
        with self.lock:
            self.world.sensors[self._well(well)].present = True

    def set_sensor_id(self, well, chip_id):
        with self.lock:
            self.world.sensors[self._well(well)].chip_id = chip_id

    def set_chain_registers(self, n):
        """Physically connected 74HC165 count (wrong-length fault when != the map's)."""
        with self.lock:
            self.world.set_chain_registers(n)

    def hold_repl_pin(self, held=True):
        with self.lock:
            if held:
                self.world.held_low.add(self.profile["repl_pin"])
            else:
                self.world.held_low.discard(self.profile["repl_pin"])

    def call(self, fn):
        """Run fn(board) under the loop lock (inspection in tests)."""
        with self.lock:
            return fn(self.board)
