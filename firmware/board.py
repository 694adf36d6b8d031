"""The board firmware: peripherals from a pin profile, scanning, dice, link, commands.

Runs on MicroPython (firmware/main.py builds it with the real ``machine`` and USB CDC) and on
CPython (companion/link/virtual_board.py builds it with firmware/sim). ``step()`` is one
non-blocking main-loop iteration: serial input, a chain scan every ``scan_ms`` (200 Hz),
a dice sample per well every integration period, link timers, the indicator LED and the
watchdog. Nothing on the scan and sample paths allocates after start-up (buffers and lists
are made in __init__); frames are built in the link's preallocated ring.
"""
import os
import struct

from protocol import wire
from protocol.link import BoardLink
from firmware import calib, dice, selftest
from firmware.hc165 import ShiftChain
from firmware.hc595 import Lights
from firmware.tcs34725 import TCS34725, SensorIdError
from firmware.tracks import TrackScanner, HALL_PERIOD_MS, mask_bit

# The type checker reads TYPE_CHECKING as true (tests/firmware/test_typecheck.py checks the
# firmware against the RP2040 and ESP32 stubs); on a board it is a False constant.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import machine as machine_api

try:
    from time import ticks_diff, ticks_add  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython: plain milliseconds
    def ticks_diff(a, b):
        return a - b

    def ticks_add(a, b):
        return a + b

VERSION = (0, 1, 0)
SENSOR_RETRY_MS = 1000
FRAMES_PER_STEP = 1  # TRACK_CHANGE frames built per main-loop step (~1.6 ms each on an RP2040)
CHECK_MS = 1000  # sensor IDs re-read and stuck bits looked for this often (unprompted reports)
IDENTIFY_MS = 5000
REPL_FLUSH_MS = 150


# GPIO numbers per port: (pins, first input-only pin); Pin() on a number outside raises
PORT_PINS = {"rp2040": (30, 30), "esp32": (40, 34)}
HEAP_RESERVE = 16384  # heap the loop, the self-test and a calibration file need beside the map


def mem_free():
    """Free heap in bytes (None where gc cannot tell: CPython). No collection here: main.py
    collects before building the Board (uncollected garbage only makes the check stricter)."""
    import gc
    if not hasattr(gc, "mem_free"):
        return None
    return gc.mem_free()


def map_heap_bytes(smap):
    """Heap the board's tables for this map take (scanner, chain buffer, per-space times, wells,
    guidance lights), an upper estimate: for the CivMint map (28 lanes, 304 spaces, 40
    registers) it gives 5.3 KB with both wells, above what the board measures on the
    MicroPython VM (benchmarks/bench_firmware.py); its lights (the 74HC595 image and its two out
    buffers, 192 bytes on the VM for 40 registers, and a count per lane) are 3 bytes a register
    + one per lane + 160 here."""
    spaces = 0
    for bs in smap.lane_byte:
        spaces += len(bs)
    return 61 * smap.n_lanes + 8 * spaces + 2 * smap.chain_registers + 400 * smap.n_wells \
        + 3 * smap.chain_registers + smap.n_lanes + 160


class MapTables:
    """What the board keeps of a SensorMap: the tables the scan, the wells and the HELLO use.
    The loader, the validator and the names stay on the tablet (main.py drops the module)."""

    FIELDS = ("chain_registers", "tail_level", "spare_level", "spare_bits", "n_lanes",
              "lane_byte", "lane_mask", "n_wells", "well_buses", "well_addrs", "well_chip_ids",
              "hash8")
    chain_registers: int  # the FIELDS, declared for the type checker
    tail_level: int
    spare_level: int
    spare_bits: tuple
    n_lanes: int
    lane_byte: list
    lane_mask: list
    n_wells: int
    well_buses: list
    well_addrs: list
    well_chip_ids: list
    hash8: bytes

    def __init__(self, smap):
        for name in self.FIELDS:
            setattr(self, name, getattr(smap, name))


def _session():
    try:
        b = os.urandom(4)
    except Exception:  # a port without urandom
        import time
        b = struct.pack("<I", hash(time.ticks_cpu()) & 0xFFFFFFFF)
    return struct.unpack("<I", b)[0]


class Board:
    def __init__(self, machine, profile, smap, stream, now_ms, fs_dir="", production=False,
                 session=None, board_id=None, scan_ms=5, stable_scans=4, stuck_ms=60000,
                 atime=calib.ATIME, gain=calib.GAIN, hall_period_ms=None, start_faults=()):
        self.machine = machine
        self.profile = profile  # start-up only: dropped at the end of __init__
        self.smap = smap = MapTables(smap)
        self.stream = stream
        self.now_ms = now_ms
        self.scan_ms = scan_ms
        self.n_wells = smap.n_wells
        m = machine
        if TYPE_CHECKING:
            m = machine = machine_api  # what the simulator and the VM stand in for
        # a profile naming a pin this port lacks, or a map whose tables do not fit the heap,
        # is refused with a boot self-test fault naming it (never a traceback): the board
        # still pairs and reports, and runs whatever part is sound
        self.config_faults = list(start_faults)  # found before the Board (main.py: repl_pin)
        self.chain = None
        if self._fits(smap):
            sp = self._pins(profile, "spi", ("sck", "mosi", "miso"), (wire.PIN_SPI_SCK,
                            wire.PIN_SPI_MOSI, wire.PIN_SPI_MISO))
            load = self._pin(profile, profile.get("load_pin"), wire.PIN_LOAD, True)
            if sp is not None and load is not None:
                try:
                    self.spi = m.SPI(sp["id"], baudrate=sp["baudrate"], polarity=sp["polarity"],
                                     phase=sp["phase"], firstbit=m.SPI.MSB, sck=m.Pin(sp["sck"]),
                                     mosi=m.Pin(sp["mosi"]), miso=m.Pin(sp["miso"]))
                    load = m.Pin(profile["load_pin"], m.Pin.OUT, value=1)
                    self.chain = ShiftChain(self.spi, load, smap.chain_registers, 4,
                                            profile.get("load_active_low", True))
                except (ValueError, TypeError, KeyError, OSError):
                    self._config_fault(sp.get("sck"), wire.PIN_SPI_SCK)
        self.buses = {}
        self.sensors = []
        for w in range(self.n_wells):
            b = self._bus(profile, smap.well_buses[w])
            self.sensors.append(None if b is None else TCS34725(
                b, smap.well_addrs[w], atime, gain, smap.well_chip_ids[w],
                self._well_led(profile, smap.well_buses[w]), 1, now_ms))
        self._init_lights(profile, smap)  # before the first read: the boot scans latch it dark
        led = profile.get("led")
        self.led = None
        if led and self._pin(profile, led.get("pin"), wire.PIN_LED, True) is not None:
            try:
                self.led = m.Pin(led["pin"], m.Pin.OUT, value=0)
            except (ValueError, TypeError, OSError):
                self._config_fault(led["pin"], wire.PIN_LED)
        self.led_on_level = 1 if not led or led.get("active_high", True) else 0
        self.led_state = -1
        self.indicator = wire.IND_AUTO
        self.identify_until = None
        # calibration and dice
        self.store = calib.Store(fs_dir + "calibration.json", self.n_wells)
        self.store.load()
        self.session_cal = calib.Session(self.store)
        self.classifiers = []
        self.wells = []
        for w in range(self.n_wells):
            cl = dice.Classifier(self.store.wells[w])
            self.classifiers.append(cl)
            self.wells.append(dice.Well(cl))
        self.sensor_ok = [False] * self.n_wells
        self.sensor_fault = [None] * self.n_wells  # type: list
        self.saturated = [False] * self.n_wells
        now = now_ms()
        self.next_dice = [now] * self.n_wells
        self.next_retry = [now] * self.n_wells
        self.next_check = ticks_add(now, CHECK_MS)
        for w in range(self.n_wells):
            self._init_sensor(w, now)
        # tracks: scan until the debounce has settled, so the boot snapshot is the board
        if hall_period_ms is None:
            hall_period_ms = profile.get("hall_period_ms", HALL_PERIOD_MS)
        self.scanner = None  # no chain (a config fault): the lanes read empty, nothing scanned
        self.stuck_reported = 0
        if self.chain is not None:
            self.scanner = TrackScanner(smap, stable_scans, stuck_ms, None, scan_ms,
                                        hall_period_ms)
            for _ in range(self.scanner.hold_scans + 1):
                self.scanner.scan(self.chain.read(), now)
            # every 74HC595 now holds the (dark) image latched by those reads; the outputs go
            # on after the boot self-test measured the chain (_lights_for_chain)
            self.stuck_reported = self.scanner.stuck_signature(now)
        # lanes committed but not yet sent: a hand sweeping the board commits every lane within
        # a few scans; building all their frames (CRC, COBS) at once would take ~9 scan
        # periods, so they go out FRAMES_PER_STEP per step, each with the lane's latest mask
        self.pending = bytearray(smap.n_lanes)
        self.n_pending = 0
        self.pend_next = 0
        self.registers_found = smap.chain_registers
        self.chain_reported = False
        self.next_scan = now
        if board_id is None:
            board_id = profile.get("board", "board")
            try:
                import binascii
                board_id += "-" + binascii.hexlify(machine.unique_id()).decode()
            except Exception:
                pass
        info = {"version": VERSION, "board_id": board_id, "profile": profile.get("board", "?"),
                "map_hash": smap.hash8, "lanes": smap.n_lanes, "wells": self.n_wells}
        self.link_up = False
        self.host_errors = 0
        self.last_host_error = None
        self.pairings = 0
        self.repl_requested = False
        self.repl_at = 0
        self.running = True
        self.link = BoardLink(stream.write, now_ms, self._on_message, info,
                              _session() if session is None else session, self._snapshot,
                              window=32, ring_size=2048)
        # sent at the first pairing (nothing is sent to nobody before it); it measures the
        # chain, and the lights go on only if it matches the map
        self.boot_report = self.self_test(wire.TEST_AT_BOOT)
        self.wdt = None
        if production:
            self.wdt = m.WDT(timeout=profile.get("watchdog_ms", 5000))
        self.profile = None

    # ------------------------------------------------------------- configuration
    def _config_fault(self, pin, role):
        ok = type(pin) is int and 0 <= pin < 0xFFFF
        self.config_faults.append((wire.FAULT_PROFILE_PIN, pin if ok else 0xFFFF, role))

    def _pin(self, profile, pin, role, output):
        """pin if this port has it (as an output when asked), else None and a fault."""
        n = PORT_PINS.get(profile.get("mcu"))
        bad = type(pin) is not int or pin < 0
        if not bad and n is not None:
            bad = pin >= n[0] or (output and n[1] <= pin)
        if bad:
            self._config_fault(pin, role)
            return None
        return pin

    def _pins_of(self, entry, keys, roles):
        ok = isinstance(entry, dict)
        for i in range(len(keys)):
            if self._pin(self.profile, entry.get(keys[i]) if ok else None, roles[i],
                         keys[i] != "miso") is None:
                ok = False
        return ok

    def _pins(self, profile, key, keys, roles):
        entry = profile.get(key)
        return entry if self._pins_of(entry, keys, roles) else None

    def _well_led(self, profile, bus):
        """The open-drain pin switching the LED of the dice module on I2C bus `bus` (profile
        i2c[bus].well_led), or None: no such pin, the LED stays on (raw readings)."""
        i2c = profile.get("i2c")
        c = i2c[bus] if isinstance(i2c, list) and bus < len(i2c) else None
        pin = c.get("well_led") if isinstance(c, dict) else None
        if pin is None or self._pin(profile, pin, wire.PIN_LED, True) is None:
            return None
        m = self.machine
        if TYPE_CHECKING:
            m = machine_api
        try:
            return m.Pin(pin, m.Pin.OPEN_DRAIN, value=1)
        except (ValueError, TypeError, OSError, AttributeError):
            self._config_fault(pin, wire.PIN_LED)
            return None

    def _bus(self, profile, bus):
        """The I2C object of the profile's bus number `bus` (made once), or None and a fault."""
        if bus not in self.buses:
            m = self.machine
            if TYPE_CHECKING:
                m = machine_api
            self.buses[bus] = None
            i2c = profile.get("i2c")
            c = i2c[bus] if isinstance(i2c, list) and bus < len(i2c) else None
            if c is None:
                self._config_fault(None, wire.PIN_I2C_SDA)
            elif self._pins_of(c, ("sda", "scl"), (wire.PIN_I2C_SDA, wire.PIN_I2C_SCL)):
                try:
                    self.buses[bus] = m.I2C(c["id"], sda=m.Pin(c["sda"]), scl=m.Pin(c["scl"]),
                                            freq=c["freq"])
                except (ValueError, TypeError, KeyError, OSError):
                    self._config_fault(c.get("sda"), wire.PIN_I2C_SDA)
        return self.buses[bus]

    def _init_lights(self, profile, smap):
        """Guidance lights: one 74HC595 per 74HC165 on the same chain (MOSI to chain pin 8,
        latched by LOAD), so the light image (firmware/hc595.py) rides every chain read and a
        change shows within a scan period. The profile's `"lights": false` is a board built
        without them: no image, CMD_LIGHTS taken and nothing lit. Shift registers cannot be
        probed, so nothing here is a fault (wire.FAULT_LIGHTS is reserved); without a chain
        (a config fault) there is nothing to drive them. The lit positions are chain bits;
        lane_lit counts per lane."""
        self.lights = None
        self.lights_oe = None
        self.lights_on = False  # /OE driven low (_lights_enable)
        self.lane_lit = bytearray(smap.n_lanes)
        if profile.get("lights") is False or self.chain is None:
            return
        self.lights = Lights(smap.chain_registers, self.chain.extra)
        self.chain.use_lights(self.lights)
        # /OE of every 74HC595 (chain pins 1 and 9, pulled up on each board): their outputs come
        # up random at power-up, so they stay off until the first latched frame (_lights_enable);
        # without the pin the LEDs stay dark for good, which the boot self-test says
        pin = self._pin(profile, profile.get("lights_oe_pin"), wire.PIN_LIGHTS_OE, True)
        if pin is not None:
            m = self.machine
            if TYPE_CHECKING:
                m = machine_api
            try:
                self.lights_oe = m.Pin(pin, m.Pin.OUT, value=1)
            except (ValueError, TypeError, OSError):
                self._config_fault(pin, wire.PIN_LIGHTS_OE)

    def _lights_enable(self, on):
        """Drive /OE: low shows the latched frame, high (or released) darkens every LED."""
        if self.lights_oe is not None:
            self.lights_oe.value(0 if on else 1)
        self.lights_on = on

    def _lights_for_chain(self):
        """Lights on only for a sound chain: the length the self-test last measured matches
        the map and the scans' chain check (tail byte, spare inputs, reads that agree) holds.
        Past a short, long or reversed chain the 74HC595s latch random bits (up to ~82 mA a
        board), so the LEDs stay dark (/OE high) and the self-test's FAULT_CHAIN_LENGTH says
        why. Called after every self-test, which runs when the chain check changes its verdict."""
        sc = self.scanner
        self._lights_enable(self.lights is not None and sc is not None and not sc.chain_suspect
                            and self.registers_found == self.smap.chain_registers
                            and not self.repl_requested)

    def _fits(self, smap):
        """Do the map's run-time tables fit the free heap (with room for the loop)?"""
        free = mem_free()
        if free is None:
            return True  # CPython: no such limit
        need = map_heap_bytes(smap)
        if need + HEAP_RESERVE > free:
            self.config_faults.append((wire.FAULT_MAP_TOO_LARGE, min(need // 1024, 0xFFFF),
                                       min(free // 1024, 0xFFFF)))
            return False
        return True

    # ------------------------------------------------------------------ sensors
    def _init_sensor(self, w, now):
        s = self.sensors[w]
        if s is None:  # its bus could not be set up: a config fault, never retried
            self.sensor_ok[w] = False
            return False
        try:
            s.init()
        except SensorIdError:
            self.sensor_ok[w] = False
            self.sensor_fault[w] = (wire.FAULT_SENSOR_ID, w, s.chip_id)
            return False
        except OSError:
            self.sensor_ok[w] = False
            self.sensor_fault[w] = (wire.FAULT_SENSOR_MISSING, w, 0)
            return False
        self.sensor_ok[w] = True
        self.sensor_fault[w] = None
        self.next_dice[w] = ticks_add(now, s.integration_ms + 1)
        return True

    def sensor_check(self, w):
        """Fault tuple of well w or None; re-reads the ID of a working sensor."""
        if self.sensor_ok[w]:
            s = self.sensors[w]
            try:
                cid = s.read_id()
            except OSError:
                self._lose_sensor(w, (wire.FAULT_SENSOR_MISSING, w, 0), report=False)
                return self.sensor_fault[w]
            if cid not in s.ids:
                self._lose_sensor(w, (wire.FAULT_SENSOR_ID, w, cid), report=False)
        return self.sensor_fault[w]

    def _lose_sensor(self, w, fault, report=True):
        self.sensor_ok[w] = False
        self.sensor_fault[w] = fault
        self.next_retry[w] = ticks_add(self.now_ms(), SENSOR_RETRY_MS)
        well = self.wells[w]
        if well.state != dice.EMPTY:
            well.reset()
            self.link.dice(w, well.state, 0, 0, well.roll)
        if report:
            self.report(selftest.TEST_UNPROMPTED)

    def _check(self, now):
        """Once a second: a sensor that now answers with another chip ID (swapped, or a bus
        fault) and bits that became stuck or freed are reported unprompted."""
        for w in range(self.n_wells):
            if self.sensor_ok[w]:
                s = self.sensors[w]
                try:
                    cid = s.read_id()
                except OSError:
                    self._lose_sensor(w, (wire.FAULT_SENSOR_MISSING, w, 0))
                    continue
                if cid not in s.ids:
                    self._lose_sensor(w, (wire.FAULT_SENSOR_ID, w, cid))
        sig = self.scanner.stuck_signature(now) if self.scanner is not None else 0
        if sig != self.stuck_reported:
            self.stuck_reported = sig
            self.report(selftest.TEST_UNPROMPTED)

    def _sample_wells(self, now):
        for w in range(self.n_wells):
            if not self.sensor_ok[w]:
                if ticks_diff(now, self.next_retry[w]) >= 0:
                    self.next_retry[w] = ticks_add(now, SENSOR_RETRY_MS)
                    old = self.sensor_fault[w]
                    if self._init_sensor(w, now) or self.sensor_fault[w] != old:
                        self.report(selftest.TEST_UNPROMPTED)  # cleared, or another fault
                continue
            if ticks_diff(now, self.next_dice[w]) < 0:
                continue
            s = self.sensors[w]
            try:
                valid = s.read()
            except OSError:
                self._lose_sensor(w, (wire.FAULT_SENSOR_MISSING, w, 0))
                continue
            due = ticks_add(now, s.integration_ms + 1)
            if s.led is not None:
                # LED switched: the half under way is ready one settle time after its switch
                # (not a period after this poll, which would make a half ~50 ms, not ~32)
                d = ticks_add(s.since, s.settle_ms)
                if ticks_diff(d, now) > 0:
                    due = d
            self.next_dice[w] = due
            if not valid:
                continue
            self.saturated[w] = s.c >= s.max_count - (s.max_count >> 5)
            well = self.wells[w]
            if well.sample(s.c, s.r, s.g, s.b) and self.store.implausible[w] is None:
                # a well whose stored calibration fails the capture rules still samples (a
                # calibration needs its readings) but reports nothing: the tablet asks instead
                self.link.dice(w, well.state, well.value, well.confidence, well.roll)

    # ------------------------------------------------------------------- tracks
    def _scan(self, now):
        sc = self.scanner
        ch = self.chain
        if sc is None or ch is None:
            return
        n = sc.scan_chain(ch, now)
        pend = self.pending
        lit = self.lane_lit
        for i in range(n):
            k = sc.changes[i]
            if not pend[k]:
                pend[k] = 1
                self.n_pending += 1
            if lit[k]:
                self._token_arrived(k)
        if sc.chain_suspect != self.chain_reported:
            self.chain_reported = sc.chain_suspect
            self.report(selftest.TEST_UNPROMPTED)

    # ------------------------------------------------------------------ lights
    def _light_bit(self, k, i):
        """Chain bit of lane k space i: the position's LED (firmware/hc595.py)."""
        return self.smap.lane_byte[k][i] * 8 + mask_bit(self.smap.lane_mask[k][i])

    def _token_arrived(self, k):
        """Lane k committed a new mask: a lit space that now holds a token goes out (no round
        trip to the tablet). Small ints and preallocated tables only."""
        lights = self.lights
        if lights is None:
            self.lane_lit[k] = 0
            return
        m = self.scanner.stable[k] if self.scanner is not None else 0
        for i in range(len(self.smap.lane_byte[k])):
            if (m >> i) & 1:
                c = self._light_bit(k, i)
                if lights.is_lit(c):
                    lights.set(c, False)  # the next chain read shifts it out
                    self.lane_lit[k] -= 1

    def set_lights(self, pairs):
        """CMD_LIGHTS: the lit set becomes exactly `pairs` ((lane, position)), less the spaces
        that already hold a token. Returns None, or why the whole command is refused (a lane
        or position out of range; nothing changes then)."""
        smap = self.smap
        for lane, pos in pairs:
            if lane >= smap.n_lanes:
                return "light %d/%d: lane %d, the map has lanes 0-%d" % (lane, pos, lane, smap.n_lanes - 1)
            n = len(smap.lane_byte[lane])
            if pos >= n:
                return "light %d/%d: lane %d has positions 0-%d" % (lane, pos, lane, n - 1)
        self.clear_lights()
        lights = self.lights
        if lights is None:
            return None  # a board without lights takes the command and lights nothing
        stable = self.scanner.stable if self.scanner is not None else None
        for lane, pos in pairs:
            if stable is not None and (stable[lane] >> pos) & 1:
                continue  # the token is already there
            c = self._light_bit(lane, pos)
            if not lights.is_lit(c) and lights.set(c, True):
                self.lane_lit[lane] += 1
        return None  # the next scan shifts the image out and latches it

    def clear_lights(self):
        lit = self.lane_lit
        for k in range(len(lit)):
            lit[k] = 0
        if self.lights is not None:
            self.lights.clear()

    def lit_positions(self):
        """[(lane, position)] lit now (for the REPL and the tests; allocates)."""
        out = []
        if self.lights is None:
            return out
        for k in range(self.smap.n_lanes):
            if self.lane_lit[k]:
                for i in range(len(self.smap.lane_byte[k])):
                    if self.lights.is_lit(self._light_bit(k, i)):
                        out.append((k, i))
        return out

    def _flush_lights(self):
        """Show the light image now, not at the next scan (before the board stops)."""
        if self.lights is not None and self.chain is not None:
            self.chain.show()

    def _send_pending(self, budget):
        pend = self.pending
        n = len(pend)
        k = self.pend_next
        sc = self.scanner
        if sc is None:
            return
        stable = sc.stable
        while budget and self.n_pending:
            if pend[k]:
                pend[k] = 0
                self.n_pending -= 1
                budget -= 1
                self.link.track_change(k, stable[k])
            k += 1
            if k == n:
                k = 0
        self.pend_next = k

    def _snapshot(self):
        if self.n_pending:  # the snapshot carries them
            for k in range(len(self.pending)):
                self.pending[k] = 0
            self.n_pending = 0
        wells = []
        bad = self.store.implausible
        for i in range(len(self.wells)):
            w = self.wells[i]
            if bad[i] is not None:
                wells.append((dice.EMPTY, 0, 0, w.roll))  # reports no dice (calibrate it again)
            else:
                wells.append((w.state, w.value, w.confidence, w.roll))
        if self.scanner is None:
            return [0] * self.smap.n_lanes, wells
        return list(self.scanner.stable), wells

    # --------------------------------------------------------------- self-test
    def self_test(self, trigger):
        fields = selftest.run(self, trigger, self.now_ms())  # measures the chain
        self._lights_for_chain()
        return fields

    def report(self, trigger):
        now = self.now_ms()
        fields = self.self_test(trigger)
        if self.scanner is not None:
            # this report lists the stuck bits as they are now: the once-a-second check must
            # not send the same set again (it would bury an answer on command)
            self.stuck_reported = self.scanner.stuck_signature(now)
        self.link.reply(wire.SELF_TEST, fields)
        return fields

    # ---------------------------------------------------------------- commands
    def _on_message(self, msg):
        t = msg["type"]
        if t == "LINK_UP":
            self.link_up = True
            if not msg.get("resumed"):
                # lights belong to the tablet's stream: a fresh one starts dark, and the tablet
                # sends its lights again after the pairing SNAPSHOT (docs/protocol.md 3.7)
                self.clear_lights()
                # a fresh pairing drops the ring (boot report included): report again
                self.pairings += 1
                self.report(wire.TEST_AT_BOOT if self.pairings == 1 else
                            selftest.TEST_UNPROMPTED)
            return
        if t == "LINK_DOWN":
            self.link_up = False
            return
        if t == "ERROR":
            # the host's complaint (e.g. map_mismatch when it refuses us): never answer an error
            # with an error, or two peers could echo forever; keep the last one for the REPL
            self.host_errors += 1
            self.last_host_error = msg.get("code")
            return
        seq = msg.get("seq", 0)
        if t == "CMD_SELF_TEST":
            self.report(wire.TEST_ON_COMMAND)
        elif t == "CMD_CALIBRATE":
            self._calibrate(msg, seq)
        elif t == "CMD_REPL":
            self.repl_requested = True
            self.repl_at = self.now_ms()
        elif t == "CMD_LIGHTS":
            why = self.set_lights(msg["lights"])
            if why is not None:
                self.link.send_error(wire.E_BAD_ARGUMENT, wire.CMD_LIGHTS, seq, why)
        elif t == "CMD_INDICATOR":
            mode = msg.get("mode", -1)
            if not 0 <= mode <= wire.IND_IDENTIFY:
                self.link.send_error(wire.E_BAD_ARGUMENT, wire.CMD_INDICATOR, seq,
                                     "indicator mode %r unknown" % (mode,))
                return
            if mode == wire.IND_IDENTIFY:
                self.identify_until = ticks_add(self.now_ms(), IDENTIFY_MS)
            else:
                self.indicator = mode
                self.identify_until = None
        else:
            self.link.send_error(wire.E_UNKNOWN_TYPE, wire.TYPE_CODES.get(t, 0), seq,
                                 "command %s not handled" % (t,))

    def _cal_status(self, step, well, face, status, c=0, r=0, g=0, b=0):
        self.link.reply(wire.CAL_STATUS, {
            "step": step, "well": well, "face": face, "status": status,
            "c": c & 0xFFFF, "r": r & 0xFFFF, "g": g & 0xFFFF, "b": b & 0xFFFF})

    def _calibrate(self, msg, seq):
        step = msg["step"]
        well = msg["well"]
        face = msg["face"]
        nw = self.n_wells
        bad = None
        if not wire.CAL_BEGIN <= step <= wire.CAL_DEFAULTS:
            bad = "calibration step %d unknown" % step
        elif step in (wire.CAL_BEGIN, wire.CAL_CAPTURE) and well >= nw:
            bad = "well %d: the board has %d wells" % (well, nw)
        elif step == wire.CAL_DEFAULTS and well >= nw and well != 255:
            bad = "well %d: the board has %d wells (255 = all)" % (well, nw)
        elif step == wire.CAL_CAPTURE and not 1 <= face <= 6:
            bad = "face %d is not a top value 1-6" % face
        if bad is not None:
            self.link.send_error(wire.E_BAD_ARGUMENT, wire.CMD_CALIBRATE, seq, bad)
            self._cal_status(step, well, face, wire.CAL_BAD_ARG)
            return
        ses = self.session_cal
        if step == wire.CAL_BEGIN:
            ses.begin(well)
            self._cal_status(step, well, face, wire.CAL_OK)
        elif step == wire.CAL_CAPTURE:
            if not ses.active() or ses.well != well:
                self._cal_status(step, well, face, wire.CAL_NOT_ACTIVE)
                return
            wl = self.wells[well]
            if not self.sensor_ok[well] or wl.state in (dice.EMPTY, dice.REMOVED) \
                    or wl.dark_count:
                self._cal_status(step, well, face, wire.CAL_NO_DIE)
                return
            s = self.sensors[well]
            if not wl.stable():
                self._cal_status(step, well, face, wire.CAL_UNSTABLE, s.c, s.r, s.g, s.b)
                return
            wl.stable_mean()
            if calib.check_capture(face, (wl.mc, wl.mr, wl.mg, wl.mb)) is not None:
                self._cal_status(step, well, face, wire.CAL_IMPLAUSIBLE, wl.mc, wl.mr, wl.mg, wl.mb)
                return
            ses.capture(face, wl.mc, wl.mr, wl.mg, wl.mb)
            self._cal_status(step, well, face, wire.CAL_OK, wl.mc, wl.mr, wl.mg, wl.mb)
        elif step == wire.CAL_SAVE or step == wire.CAL_CANCEL:
            if not ses.active():
                self._cal_status(step, well, face, wire.CAL_NOT_ACTIVE)
                return
            w = ses.well
            if step == wire.CAL_CANCEL:
                ses.cancel()
                self._cal_status(step, w, face, wire.CAL_OK)
                return
            near = calib.check_faces(ses.faces)
            if near is not None:  # the session stays open: recapture, then save again
                self._cal_status(step, w, near[0], wire.CAL_IMPLAUSIBLE, near[1], near[2])
                return
            was_bad = self.store.implausible[w] is not None
            if ses.save():
                self.classifiers[w].set(self.store.wells[w])
                self._cal_status(step, w, face, wire.CAL_OK)
                if was_bad:  # the fault cleared: the well reports dice again
                    self.report(selftest.TEST_UNPROMPTED)
            else:
                self._cal_status(step, w, face, wire.CAL_STORE_FAILED)
        else:  # CAL_DEFAULTS
            wells = [[list(f) for f in x] for x in self.store.wells]
            caps = [list(c) for c in self.store.captured]
            targets = range(nw) if well == 255 else (well,)
            for w in targets:
                wells[w] = [list(f) for f in calib.DEFAULT_FACES]
                caps[w] = [0] * 6
            was_bad = [x for x in self.store.implausible if x is not None]
            if self.store.save(wells, caps):
                for w in targets:
                    self.classifiers[w].set(self.store.wells[w])
                self._cal_status(step, well, face, wire.CAL_OK)
                if was_bad:
                    self.report(selftest.TEST_UNPROMPTED)
            else:
                self._cal_status(step, well, face, wire.CAL_STORE_FAILED)

    # ---------------------------------------------------------------- main loop
    def _indicator(self, now):
        if self.led is None:
            return
        mode = self.indicator
        if self.identify_until is not None:
            if ticks_diff(now, self.identify_until) >= 0:
                self.identify_until = None
            else:
                mode = wire.IND_IDENTIFY
        if mode == wire.IND_OFF:
            on = 0
        elif mode == wire.IND_ON:
            on = 1
        elif mode == wire.IND_BLINK:
            on = (now // 250) & 1
        elif mode == wire.IND_IDENTIFY:
            on = (now // 60) & 1
        else:  # auto: steady when paired, slow blink while waiting for the tablet
            on = 1 if self.link_up else (now // 500) & 1
        if on != self.led_state:
            self.led_state = on
            self.led.value(on if self.led_on_level else 1 - on)

    def step(self):
        """One main-loop iteration; returns False once the firmware should stop (CMD_REPL)."""
        now = self.now_ms()
        data = self.stream.read()
        if data:
            self.link.feed(data)
        if ticks_diff(now, self.next_scan) >= 0:
            self.next_scan = ticks_add(self.next_scan, self.scan_ms)
            if ticks_diff(now, self.next_scan) >= 0:  # fell behind: do not try to catch up
                self.next_scan = ticks_add(now, self.scan_ms)
            self._scan(now)
        if self.n_pending:
            self._send_pending(FRAMES_PER_STEP)
        self._sample_wells(now)
        if ticks_diff(now, self.next_check) >= 0:
            self.next_check = ticks_add(now, CHECK_MS)
            self._check(now)
        self.link.poll()
        self._indicator(now)
        if self.wdt is not None:
            self.wdt.feed()
        if self.repl_requested and ticks_diff(now, self.repl_at) >= REPL_FLUSH_MS:
            self.running = False
            self.clear_lights()  # the 595s keep their outputs while the REPL runs: dark first
            self._flush_lights()
            self._lights_enable(False)  # and off, whatever is typed at the REPL
        return self.running

    def until_next(self):
        """Milliseconds until the next scheduled scan or sample (for an idle sleep)."""
        now = self.now_ms()
        if self.n_pending:
            return 0
        d = ticks_diff(self.next_scan, now)
        for w in range(self.n_wells):
            if self.sensor_ok[w]:
                e = ticks_diff(self.next_dice[w], now)
                if e < d:
                    d = e
        return d if d > 0 else 0

    def run_forever(self, sleep_ms):
        while self.step():
            if self.until_next() > 1:
                sleep_ms(1)
