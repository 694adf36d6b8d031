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

Ambient light (``led`` given): the breakout's white LED is switched from a pin (the module's LED
input, driven open-drain by the MCU; hardware/docs/pins_and_wiring.md) and every reported
reading is an LED-on integration minus the latest LED-off one. The LED is off for one
integration after every ``ON_PER_OFF`` (2) lit ones, so a reading comes every lit half, two per
three halves, not one per two (a die's three stable readings take about 160 ms, not 200-250).
Three consecutive readings always span two different LED-off halves, so room light that changes
between them (a hand's shadow leaving) makes them disagree and the well waits; room light that
stays the same cancels. After each switch of the LED (and before each lit half) the integration
is restarted (AEN off/on) and the reading is taken only once a whole cycle has passed since
(``settle_ms``: the 2.4 ms start-up plus the integration time and 20 % for the chip's
oscillator tolerance), so no cycle mixes the two states. What remains is the LED's light
reflected by whatever lies in the well. ``ambient`` keeps the clear count of the last LED-off
half. A lit half darker than the LED-off one (the room got darker since: the LED only adds
light) gives no reading, and the LED-off half is taken again next. When either half is
saturated the difference means nothing: ``read`` then reports
c = ``max_count`` (the board's saturation check fires and the well sees no face) and sets
``saturated``. Without ``led`` the LED stays on and a reading is the raw counts (the virtual
board's simulated chip models the switched LED too).
"""
TYPE_CHECKING = False  # true for the type checker only (the board's stubs)
if TYPE_CHECKING:
    from typing import Callable, Optional
    from machine import I2C, Pin

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:
    def const(x):
        return x

try:
    from time import sleep_ms, ticks_ms, ticks_diff  # pyright: ignore[reportAssignmentType]
except ImportError:  # CPython (virtual board): the simulated chip models the warm-up
    def sleep_ms(ms):
        pass

    def ticks_ms():
        import time
        return int(time.time() * 1000)

    def ticks_diff(a, b):
        return a - b

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
ON_PER_OFF = const(2)  # lit integrations per LED-off one (see the module doc)


class SensorIdError(OSError):
    pass


class TCS34725:
    """One sensor. ``atime`` register value (integration = (256 - atime) * 2.4 ms), ``gain``
    CONTROL AGAIN code (0..3 = 1x, 4x, 16x, 60x)."""

    def __init__(self, i2c, addr=ADDR, atime=0xF6, gain=1, ids=IDS, led=None, led_on=1,
                 now_ms=None):
        # type: (I2C, int, int, int, tuple, Optional[Pin], int, Optional[Callable[[], int]]) -> None
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
        # LED switching (None: LED always on, raw readings)
        self.led = led
        self.led_on = 1 if led_on else 0
        self.now_ms = now_ms if now_ms is not None else ticks_ms
        self.settle_ms = (self.cycles * 24 * 12 + 99) // 100 + 3  # 2.4 ms start + 1.2 x cycle
        self.lit = True  # the LED state of the integration under way
        self.since = 0  # when that integration was restarted
        self.ons = 0  # lit halves since the last LED-off half
        self.have_off = False  # an LED-off half has been read since init
        self.oc = self.orr = self.og = self.ob = 0  # the last LED-off half
        self.off_saturated = False
        self.ambient = 0  # clear count of the last LED-off half
        self.saturated = False  # either half of the last reading at full scale
        self.readings = 0

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
        if self.led is not None:
            self.have_off = False
            self._switch(False)  # an LED-off half first: every lit one then has its reference

    def _switch(self, lit):
        """LED on or off, then restart the integration so that no cycle spans the switch."""
        self.lit = lit
        self.led.value(self.led_on if lit else 1 - self.led_on)  # pyright: ignore[reportOptionalMemberAccess]
        self._write(REG_ENABLE, PON)
        self._write(REG_ENABLE, PON | AEN)
        self.since = self.now_ms()

    def read(self):
        """True and .c/.r/.g/.b set when a reading is complete, else False. No allocation.

        Without ``led``: one burst read, complete when AVALID. With ``led``: complete at every
        settled lit half (LED-on minus the last LED-off half); an LED-off half completes
        nothing and comes after every ON_PER_OFF lit ones."""
        b = self.burst
        if self.led is not None and ticks_diff(self.now_ms(), self.since) < self.settle_ms:
            return False
        self.i2c.readfrom_mem_into(self.addr, CMD | AUTO_INC | REG_STATUS, b)
        if not b[0] & AVALID:
            return False
        c = b[1] | (b[2] << 8)
        r = b[3] | (b[4] << 8)
        g = b[5] | (b[6] << 8)
        bl = b[7] | (b[8] << 8)
        if self.led is None:
            self.c = c
            self.r = r
            self.g = g
            self.b = bl
            return True
        full = self.max_count - (self.max_count >> 5)
        if not self.lit:
            self.oc = c
            self.orr = r
            self.og = g
            self.ob = bl
            self.ambient = c
            self.off_saturated = c >= full
            self.have_off = True
            self.ons = 0
            self._switch(True)
            return False
        self.ons += 1
        # the LED only adds light: a lit half darker than the LED-off one means the room got
        # darker since (a shadow); no reading then, and the next half refreshes the LED-off one
        fell = self.have_off and c < self.oc
        self._switch(self.ons < ON_PER_OFF and not fell)  # the next half: lit, or LED-off
        if fell or not self.have_off:
            return False
        self.saturated = self.off_saturated or c >= full
        if self.saturated:
            self.c = self.max_count
            self.r = self.g = self.b = 0
        else:
            oc = self.oc
            self.c = c - oc if c > oc else 0
            self.r = r - self.orr if r > self.orr else 0
            self.g = g - self.og if g > self.og else 0
            self.b = bl - self.ob if bl > self.ob else 0
        self.readings += 1
        return True

    def config(self):
        """(ENABLE, ATIME, CONTROL) read back, for the self-test."""
        return (self._read(REG_ENABLE), self._read(REG_ATIME), self._read(REG_CONTROL))
