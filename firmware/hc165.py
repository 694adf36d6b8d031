"""74HC165 daisy chain read through machine.SPI plus a load pin (SH/LD), with the guidance
lights' 74HC595s shifted out on MOSI during the same clocks.

Wiring (hardware/sensor_map.json, firmware/profiles/*.json): register 0's QH drives MISO,
register k's SER is register k+1's QH, the last register's SER is tied to the map's
``tail_level``. CLK INH is tied low. SPI mode 2 (polarity 1, phase 0): the 74HC165 shifts on
the rising CLK edge and the MCU samples on the falling edge half a clock earlier, so input H
of register 0 is the first bit read. MOSI goes to chain pin 8: 595 0 of the first board, each
board's last 595 passing it on (firmware/hc595.py); the 595s shift on the falling CLK edge and
latch on the LOAD rising edge.

One read: SH/LD low (parallel load, >= 20 ns; one pin write is far longer), SH/LD high (which
also latches what the previous read shifted into the 595s), then the whole chain is clocked:
``spi.readinto(buf)``, or with a light image (``use_lights``)
``spi.write_readinto(out, buf)``, ``out`` that image's out buffer of the same length. ``buf``
holds ``registers + extra`` bytes: a scan reads registers + 1 (the tail byte), the self-test
all of them; the ``extra`` bytes after the chain carry the tail level and reveal a chain of the
wrong length (see ``chain_length``). All buffers are allocated once; no read allocates.
"""
TYPE_CHECKING = False  # true for the type checker only (the board's stubs)
if TYPE_CHECKING:
    from machine import SPI, Pin
    from firmware.hc595 import Lights


class ShiftChain:
    def __init__(self, spi, load_pin, registers, extra=4, load_active_low=True, lights=None):
        # type: (SPI, Pin, int, int, bool, Lights | None) -> None
        self.spi = spi
        self.load = load_pin
        self.registers = registers
        self.extra = extra
        self.buf = bytearray(registers + extra)
        # the scan path reads the chain plus one tail byte; self-test reads all extra bytes
        self.scan_view = memoryview(self.buf)[:registers + 1]
        self.full_view = memoryview(self.buf)
        self.scan_out = None  # type: bytearray | None
        self.full_out = None  # type: bytearray | None
        self.active = 0 if load_active_low else 1
        self.idle = 1 - self.active
        load_pin.value(self.idle)
        self.use_lights(lights)

    def use_lights(self, lights):
        # type: (Lights | None) -> None
        """Send this light image (firmware/hc595.Lights) with every read from now on; None:
        plain reads (MOSI sends zeros)."""
        if lights is None:
            self.scan_out = self.full_out = None
            return
        if len(lights.scan_out) != self.registers + 1 or \
                len(lights.full_out) != self.registers + self.extra:
            raise ValueError("light image for %d registers + %d, chain of %d + %d"
                             % (lights.registers, lights.extra, self.registers, self.extra))
        self.scan_out = lights.scan_out
        self.full_out = lights.full_out

    def _latch(self):
        self.load.value(self.active)
        self.load.value(self.idle)

    def _clock(self, out, into):
        """Latch, then clock len(into) bytes in, sending `out` (None: MOSI sends zeros)."""
        self._latch()
        if out is None:
            self.spi.readinto(into)
        else:
            self.spi.write_readinto(out, into)

    def read(self):
        """Latch the inputs and read registers + 1 tail byte into self.buf; returns self.buf."""
        self._clock(self.scan_out, self.scan_view)
        return self.buf

    def read_twin(self, twin):
        """Latch again and read registers + 1 bytes into `twin` (the scan's second read,
        firmware/tracks.py read_agreed), sending the same light image."""
        self._clock(self.scan_out, twin)

    def read_full(self):
        """Latch and read registers + extra bytes (self-test)."""
        self._clock(self.full_out, self.full_view)
        return self.buf

    def show(self):
        """Put the light image on the LEDs now: one read (its bytes dropped), then a LOAD
        pulse that latches it (a scan does the same by itself within a scan period)."""
        self.read()
        self._latch()


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
