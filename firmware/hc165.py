"""74HC165 daisy chain read through machine.SPI plus a load pin (SH/LD).

Wiring (hardware/sensor_map.json, firmware/profiles/*.json): register 0's QH drives MISO,
register k's SER is register k+1's QH, the last register's SER is tied to the map's
``tail_level``. CLK INH is tied low. SPI mode 2 (polarity 1, phase 0): the 74HC165 shifts on
the rising CLK edge and the MCU samples on the falling edge half a clock earlier, so input H
of register 0 is the first bit read.

One read: SH/LD low (parallel load, >= 20 ns; one pin write is far longer), SH/LD high, then
``spi.readinto(buf)`` clocks the whole chain. ``buf`` holds ``registers + extra`` bytes: the
``extra`` bytes after the chain carry the tail level and reveal a chain of the wrong length
(see ``chain_length``). All buffers are allocated once; ``read`` does not allocate.
"""
TYPE_CHECKING = False  # true for the type checker only (the board's stubs)
if TYPE_CHECKING:
    from machine import SPI, Pin


class ShiftChain:
    def __init__(self, spi, load_pin, registers, extra=4, load_active_low=True):
        # type: (SPI, Pin, int, int, bool) -> None
        self.spi = spi
        self.load = load_pin
        self.registers = registers
        self.extra = extra
        self.buf = bytearray(registers + extra)
        # the scan path reads the chain plus one tail byte; self-test reads all extra bytes
        self.scan_view = memoryview(self.buf)[:registers + 1]
        self.full_view = memoryview(self.buf)
        self.active = 0 if load_active_low else 1
        self.idle = 1 - self.active
        load_pin.value(self.idle)

    def _latch(self):
        self.load.value(self.active)
        self.load.value(self.idle)

    def read(self):
        """Latch the inputs and read registers + 1 tail byte into self.buf; returns self.buf."""
        self._latch()
        self.spi.readinto(self.scan_view)
        return self.buf

    def read_full(self):
        """Latch and read registers + extra bytes (self-test)."""
        self._latch()
        self.spi.readinto(self.full_view)
        return self.buf


def chain_length(buf, nbytes, tail_level):
    """Registers found in a read of ``nbytes`` bytes, or -1 when no tail was seen.

    After the last register, the chain shifts in its SER level: bytes of 0x00 for tail
    level 0 (0xFF for 1). The chain length is where the run of tail bytes that reaches the
    end of the read starts. A real register reading exactly the tail byte (all eight inputs
    at the tail level) would look like tail: the maps keep spare inputs tied to the opposite
    level in the last registers, so that cannot happen there.
    """
    tail = 0xFF if tail_level else 0x00
    i = nbytes
    while i > 0 and buf[i - 1] == tail:
        i -= 1
    if i == nbytes:
        return -1  # the last byte read is not tail: the chain is longer than the read
    return i
