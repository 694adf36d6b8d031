"""TCS34725 colour sensor driver (ams datasheet), one sensor per I2C bus.

Registers used: ENABLE 0x00 (PON 0x01, AEN 0x02), ATIME 0x01, CONTROL 0x0F (gain), ID 0x12
(0x44 TCS34721/5, 0x4D TCS34723/7), STATUS 0x13 (AVALID 0x01), CDATAL..BDATAH 0x14..0x1B.
Every register access starts with a command byte: 0x80 (CMD) | type | address, type 0x20 =
auto-increment. One burst read from STATUS gives STATUS, C, R, G, B (9 bytes, little-endian
channels); reading a channel's low byte latches its high byte, so the burst is consistent.

The sensor is configured once and left running (PON + AEN): it integrates continuously and
the data registers always hold the last completed cycle. AVALID is 0 until the first cycle
after AEN has completed; a burst with AVALID 0 is ignored. The caller reads once per
integration period (``integration_ms``).
"""
TYPE_CHECKING = False  # true for the type checker only (the board's stubs)
if TYPE_CHECKING:
    from machine import I2C

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:
    def const(x):
        return x

try:
    from time import sleep_ms  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython (virtual board): the simulated chip models the warm-up
    def sleep_ms(ms):
        pass

ADDR = const(0x29)
CMD = const(0x80)
AUTO_INC = const(0x20)
REG_ENABLE = const(0x00)
REG_ATIME = const(0x01)
REG_CONTROL = const(0x0F)
REG_ID = const(0x12)
REG_STATUS = const(0x13)
REG_CDATAL = const(0x14)
PON = const(0x01)
AEN = const(0x02)
AVALID = const(0x01)
GAINS = (1, 4, 16, 60)
IDS = (0x44, 0x4D)


class SensorIdError(OSError):
    pass


class TCS34725:
    """One sensor. ``atime`` register value (integration = (256 - atime) * 2.4 ms), ``gain``
    CONTROL AGAIN code (0..3 = 1x, 4x, 16x, 60x)."""

    def __init__(self, i2c, addr=ADDR, atime=0xF6, gain=1, ids=IDS):
        # type: (I2C, int, int, int, tuple) -> None
        self.i2c = i2c
        self.addr = addr
        self.atime = atime
        self.gain = gain
        self.ids = ids
        self.cycles = 256 - atime
        self.integration_ms = (self.cycles * 24 + 9) // 10
        self.max_count = min(65535, self.cycles * 1024)
        self.burst = bytearray(9)  # STATUS, CDATAL, CDATAH, RDATAL, ..., BDATAH
        self.one = bytearray(1)
        self.chip_id = None
        self.c = self.r = self.g = self.b = 0

    def _write(self, reg, value):
        self.one[0] = value
        self.i2c.writeto_mem(self.addr, CMD | reg, self.one)

    def _read(self, reg):
        self.i2c.readfrom_mem_into(self.addr, CMD | reg, self.one)
        return self.one[0]

    def read_id(self):
        """The ID register; raises OSError when the sensor does not answer."""
        self.chip_id = self._read(REG_ID)
        return self.chip_id

    def init(self):
        """Check the ID, set integration time and gain, power on and enable the ADC.

        Raises OSError (no answer) or SensorIdError (wrong ID, ``.chip_id`` holds it)."""
        cid = self.read_id()
        if cid not in self.ids:
            raise SensorIdError("TCS34725 ID 0x%02x not in %r" % (cid, self.ids))
        self._write(REG_ENABLE, 0)
        self._write(REG_ATIME, self.atime)
        self._write(REG_CONTROL, self.gain)
        self._write(REG_ENABLE, PON)
        sleep_ms(3)  # 2.4 ms oscillator warm-up between PON and AEN
        self._write(REG_ENABLE, PON | AEN)

    def read(self):
        """One burst read; True and .c/.r/.g/.b set when AVALID, else False. No allocation."""
        b = self.burst
        self.i2c.readfrom_mem_into(self.addr, CMD | AUTO_INC | REG_STATUS, b)
        if not b[0] & AVALID:
            return False
        self.c = b[1] | (b[2] << 8)
        self.r = b[3] | (b[4] << 8)
        self.g = b[5] | (b[6] << 8)
        self.b = b[7] | (b[8] << 8)
        return True

    def config(self):
        """(ENABLE, ATIME, CONTROL) read back, for the self-test."""
        return (self._read(REG_ENABLE), self._read(REG_ATIME), self._read(REG_CONTROL))
