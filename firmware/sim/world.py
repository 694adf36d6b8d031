"""The physical world of the virtual board (CPython only): tokens on lanes, dice in wells,
the 74HC165 chain and TCS34725 sensors that read them, the guidance lights' 74HC595s on the same
chain, pins, faults.

All methods are called with the owner's lock held (companion/link/virtual_board.py), or from a
single thread (tests). Positions are lane space indexes; wells are indexes into the map.
"""
import random

from firmware.sim import optics
from firmware.sim.chips import HC165Chain, HC595Chain, TCS34725Sim
from firmware.tracks import mask_bit


def input_letter(chain_bit):
    """The 74HC165 input ("H".."A") that reads this chain bit (bit 0 of a byte = H, the MSB)."""
    return "HGFEDCBA"[chain_bit & 7]


# A tumbling die turns to a neighbouring face about this often (a bouncing die turns several
# times a second); shorter than one integration (24 ms), so a reading taken while it tumbles is
# always a blur of two or more faces, never one clean face
TURN_MS = 18


class WellOptics:
    """What one dice well shows its sensor, as a function of simulated time only.

    A throw is a sequence of (face, brightness) slots of TURN_MS each from the moment it lands,
    drawn from the throw's own seed, then the face on top from settle_at on. A reading
    integrates what passed during its integration window (motion blur), so what the sensor
    reports for a window does not depend on when, or how often, the board reads it: a board
    loop that stalls (a busy CPU) reads the same tumble as one that runs."""

    def __init__(self, rng, tint=(1.0, 1.0, 1.0), noise=0.012):
        self.rng = rng
        self.tint = tint
        self.noise = noise
        self.state = "empty"  # empty | die
        self.led = 1  # the module's LED input (1 = lit)
        self.led_changes = []  # (time, level) of its recent switchings, oldest first
        self.ambient = (0.0, 0.0, 0.0, 0.0)  # room light reaching the sensor, counts per nominal cycle
        self.top = None
        self.crooked = None  # (mark a, mark b, share of a, brightness) or None
        self.settle_at = 0.0
        self.stopped_at = None
        self.landed_at = 0.0
        self._slots = []  # (mark facing the sensor, brightness) per TURN_MS of the tumble
        self._tumble = None  # the throw's own generator of its slots

    def roll(self, now, top, settle_ms, crooked, seed=None):
        """A die lands at `now`, tumbles for settle_ms, then rests with `top` up. `seed` fixes
        the tumble (default: drawn from the well's generator)."""
        self.state = "die"
        self.top = top
        self.landed_at = now
        self.settle_at = now + settle_ms
        self.stopped_at = self.settle_at
        self._slots = []
        self._tumble = random.Random(self.rng.getrandbits(32) if seed is None else seed)
        if crooked:
            a = 7 - top
            b = self.rng.choice([m for m in range(1, 7) if m not in (a, 7 - a)])
            self.crooked = (a, b, self.rng.uniform(0.45, 0.6), self.rng.uniform(0.5, 0.65))
        else:
            self.crooked = None

    def remove(self):
        self.state = "empty"
        self.top = None
        self.crooked = None

    def set_led(self, level, now):
        """The LED input switched at simulated time `now` (the board's pin write)."""
        if level != self.led:
            self.led = level
            ch = self.led_changes
            ch.append((now, level))
            if len(ch) > 16:
                del ch[0]

    def _led_share(self, start, end):
        """Share of the window [start, end] the LED was lit: a reading computed after the board
        switched the LED again still integrates the light of its own window."""
        level = self.led
        ch = self.led_changes
        i = len(ch) - 1
        while i >= 0 and ch[i][0] > start:  # the level at `start`: before the changes after it
            level = 1 - ch[i][1] if ch[i][1] in (0, 1) else level
            i -= 1
        lit = 0.0
        t = start
        for when, new in ch[i + 1:]:
            if when >= end:
                break
            if level:
                lit += when - t
            t, level = when, new
        if level:
            lit += end - t
        return lit / (end - start) if end > start else float(bool(level))

    def _noisy(self, v, scale):
        if not self.noise:  # a noiseless well (tests)
            return v
        return v * (1.0 + self.rng.gauss(0.0, self.noise)) + self.rng.gauss(0.0, 2.0) * scale

    def _slot(self, i):
        """(mark, brightness) shown during the i-th TURN_MS of the tumble: a turning die shows
        a neighbouring face, never the one it just showed nor its opposite."""
        slots = self._slots
        while len(slots) <= i:
            prev = slots[-1][0] if slots else 0
            marks = [m for m in range(1, 7) if m != prev and m != 7 - prev]
            slots.append((self._tumble.choice(marks), self._tumble.uniform(0.15, 1.0)))
        return slots[i]

    def _still(self, cycles, gain):
        if self.crooked is not None:
            a, b, share, bright = self.crooked
            return optics.mix_counts((optics.mark_lin(a), share), (optics.mark_lin(b), 1 - share),
                                     brightness=bright, tint=self.tint, cycles=cycles, gain=gain)
        return optics.face_counts(7 - self.top, 1.0, self.tint, cycles, gain)

    def source(self, end_ms, cycles, gain):
        """Counts of the integration cycle that ended at end_ms: the LED's light (when lit)
        plus the room's."""
        scale = (cycles / optics.NOMINAL_CYCLES) * (gain / optics.NOMINAL_GAIN)
        amb = tuple(x * scale for x in self.ambient)
        share = self._led_share(end_ms - cycles * 2.4, end_ms)
        if share <= 0.0:
            return amb
        lit = self._lit(end_ms, cycles, gain, scale)
        return tuple(lit[i] * share + amb[i] for i in range(4))

    def _lit(self, end_ms, cycles, gain, scale):
        span = cycles * 2.4
        start = end_ms - span
        dark = tuple(x * scale for x in optics.DARK)
        if self.state == "empty":
            base = dark
        elif start >= self.settle_at:
            base = self._still(cycles, gain)
        else:
            # the window [start, end_ms] in simulated time: empty before the die landed, the
            # tumble's slots, the still die after settle_at; each weighted by its share
            acc = [0.0, 0.0, 0.0, 0.0]
            t = start
            while t < end_ms:
                if t < self.landed_at:
                    nxt, counts = min(end_ms, self.landed_at), dark
                elif t >= self.settle_at:
                    nxt, counts = end_ms, self._still(cycles, gain)
                else:
                    i = int((t - self.landed_at) // TURN_MS)
                    nxt = min(end_ms, self.settle_at, self.landed_at + (i + 1) * TURN_MS)
                    mark, bright = self._slot(i)
                    counts = optics.face_counts(mark, bright, self.tint, cycles, gain)
                if nxt <= t:  # float rounding at a slot edge
                    nxt = min(end_ms, t + 1e-6)
                w = (nxt - t) / span
                for k in range(4):
                    acc[k] += counts[k] * w
                t = nxt
            base = tuple(acc)
        return tuple(self._noisy(x, scale) for x in base)


class World:
    def __init__(self, smap, profile, now_ms, rng=None, tints=None, spare_level=1):
        self.smap = smap
        self.profile = profile
        self.now_ms = now_ms
        self.rng = rng or random.Random(0)
        self.spare_level = spare_level
        self.tokens = {}  # lane index -> set of positions
        self.stuck = {}  # chain bit -> level forced
        self.pins = {}
        self.held_low = set()  # input pins held low (repl_pin)
        self.uid = bytes(self.rng.getrandbits(8) for _ in range(8))
        self.chain = HC165Chain(smap.chain_registers, self._inputs, smap.tail_level)
        self.load_pin = profile["load_pin"]
        self.load_active_low = profile.get("load_active_low", True)
        self.spi_id = profile["spi"]["id"]
        self.optics = []
        self.led_pins = {}  # well LED pin -> [WellOptics] (the modules of one bus share it)
        self.sensors = []
        self.devices = {}  # (bus id, addr) -> TCS34725Sim
        tints = tints or [(1.0, 1.0, 1.0), (1.06, 0.97, 1.04)]
        for w in range(smap.n_wells):
            o = WellOptics(random.Random(self.rng.getrandbits(32)), tints[w % len(tints)])
            self.optics.append(o)
            s = TCS34725Sim(now_ms, o.source, smap.well_chip_ids[w][0])
            self.sensors.append(s)
            bus = self._profile_bus(smap.well_buses[w])
            if bus is None:
                # a bus the profile lacks (the validator refuses such a map; a board given one
                # anyway reports FAULT_PROFILE_PIN): the module is wired to nothing it can reach
                continue
            self.devices[(bus.get("id"), smap.well_addrs[w])] = s
            led = bus.get("well_led")
            if led is not None:
                self.led_pins.setdefault(led, []).append(o)
        # guidance lights: one 74HC595 per 74HC165 on the same chain, fed from MOSI, latched
        # by LOAD (firmware/hc595.py); random outputs at power-up (their own generator, so the
        # world's stays as it was); "lights": false in the profile builds a board without them
        self.lights = None
        if profile.get("lights") is not False:
            self.lights = HC595Chain(smap.chain_registers, random.Random(0x595))
        self.removed = set()  # wells whose sensor is unplugged
        self.timeline = []  # (at_ms, callable)
        self.wdt_timeout = None
        self.wdt_fed = None
        self.reset_requested = False

    def _profile_bus(self, n):
        """The profile's I2C bus entry number n (a dict), or None when it has none."""
        buses = self.profile.get("i2c")
        if not isinstance(buses, list) or not 0 <= n < len(buses) or not isinstance(buses[n], dict):
            return None
        return buses[n]

    # ------------------------------------------------------------------ chain
    def _inputs(self):
        n = self.chain.registers
        data = bytearray(b"\xff" * n)
        spare_clear = not self.spare_level
        for b in self.smap.spare_bits:
            if spare_clear and (b >> 3) < n:
                data[b >> 3] &= ~(0x80 >> (b & 7))
        for k, poss in self.tokens.items():
            bs = self.smap.lane_byte[k]
            ms = self.smap.lane_mask[k]
            for p in poss:
                if bs[p] < n:
                    data[bs[p]] &= ~ms[p]
        for b, level in self.stuck.items():
            if (b >> 3) < n:
                if level:
                    data[b >> 3] |= 0x80 >> (b & 7)
                else:
                    data[b >> 3] &= ~(0x80 >> (b & 7))
        return data

    def set_chain_registers(self, n):
        """Physically connected registers (the map's count unless a fault is injected); the
        boards' 74HC595s come and go with their 74HC165s."""
        self.chain.registers = n
        self.chain.tail_noise = None
        if self.lights is not None:
            self.lights.noise_from = None
            self.lights.resize(n)

    def reverse_cable(self, registers):
        """The cable after `registers` registers plugged the other way round (pin p meets pin
        10 - p, hardware/docs/pcb.md): the controller reads the registers before it, then
        noise (that board's last SER meets the next board's LOAD input: 10 kOhm up against
        10 kOhm down). The boards past it keep their power and /OE (pins 1 and 9 meet each
        other), and their 74HC595s, clocked by the light data, latch noise at every LOAD edge:
        lit wherever /OE is low."""
        self.chain.registers = registers
        self.chain.tail_noise = random.Random(0xEE5E)
        if self.lights is not None:
            self.lights.resize(self.smap.chain_registers)
            self.lights.noise_from = (registers, random.Random(0x0E))

    def lights_oe_low(self):
        """Is the lights' /OE driven low (their outputs on)?"""
        return self.lights is not None and not self.lights.oe_level()

    def pin_write(self, pin, level):
        self.pins[pin] = level
        for o in self.led_pins.get(pin, ()):
            o.set_led(1 if level else 0, self.now_ms())
        if pin == self.load_pin:
            was = self.chain.loading
            self.chain.load_pin(level, self.load_active_low)
            if was and not self.chain.loading and self.lights is not None \
                    and not self.chain.unplugged:
                self.lights.latch()  # RCLK: the edge that ends the parallel load

    def pin_read(self, pin, pull):
        if pin in self.held_low:
            return 0
        return self.pins.get(pin, 1 if pull == 1 else 0)

    def spi_transfer(self, spi_id, n, polarity, phase, mosi=None):
        """Clock n bytes: what MISO returns; `mosi` (n bytes, default zeros) is what the master
        sends, which the 74HC595s shift in."""
        if spi_id != self.spi_id:
            return bytearray(b"\xff" * n)
        if self.lights is not None and not self.chain.unplugged:
            self.lights.transfer(bytes(n) if mosi is None else mosi, polarity, phase)
        return self.chain.transfer(n, polarity, phase)

    def lit_positions(self):
        """{(lane index, position)} whose guidance LED is lit now: the 74HC595s' latched
        outputs, each position's LED on the output of the same letter as the input that reads
        it, on the 595 of its register (input H <-> QH ... A <-> QA)."""
        out = set()
        if self.lights is None:
            return out
        smap = self.smap
        for k in range(smap.n_lanes):
            bs = smap.lane_byte[k]
            ms = smap.lane_mask[k]
            for i in range(len(bs)):
                if self.lights.output(bs[i], input_letter(bs[i] * 8 + mask_bit(ms[i]))):
                    out.add((k, i))
        return out

    # -------------------------------------------------------------------- I2C
    def i2c_device(self, bus_id, addr):
        d = self.devices.get((bus_id, addr))
        if d is None or not d.present:
            return None
        return d

    def i2c_scan(self, bus_id):
        return sorted(a for (b, a), d in self.devices.items() if b == bus_id and d.present)

    # ---------------------------------------------------------------- watchdog
    def wdt_start(self, timeout):
        self.wdt_timeout = timeout
        self.wdt_fed = self.now_ms()

    def wdt_feed(self):
        self.wdt_fed = self.now_ms()

    def wdt_expired(self):
        return self.wdt_timeout is not None and self.now_ms() - self.wdt_fed > self.wdt_timeout

    def request_reset(self):
        self.reset_requested = True

    # ---------------------------------------------------------------- timeline
    def at(self, when, fn):
        self.timeline.append((when, fn))
        self.timeline.sort(key=lambda e: e[0])

    def run_due(self):
        now = self.now_ms()
        while self.timeline and self.timeline[0][0] <= now:
            _, fn = self.timeline.pop(0)
            fn()
