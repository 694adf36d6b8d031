"""Guidance lights on 74HC595 shift registers that ride the 74HC165 chain.

Every board carries one 74HC595 per 74HC165 (register r has 595 r), on the same CLK (inverted
by a 74LVC1G14, so a 595 samples MOSI on the falling edge, half a clock after the MCU changed it
in SPI mode 2) and the same LOAD net (RCLK: the rising edge that ends a parallel load latches
the LED outputs). The MCU's SPI MOSI reaches chain pin 8 of the first board; QH' of a board's
last 595 passes it on. So the 595s are in register order along the chain, and every chain read
is also a write: ``spi.write_readinto(out, in)`` (firmware/hc165.py).

The image is one byte per register with the SAME layout as the byte read: the position read at
chain bit c (byte c >> 3, bit c & 7, 0 = input H = the MSB; firmware/tracks.py mask_bit) is lit
by output Q of the same letter on 595 c >> 3: image bit ``0x80 >> (c & 7)``. Nothing stored,
nothing hand-written: the sensor map's chain bits are the light map.

Out buffers: a read of L bytes shifts L bytes out, MSB first; after it 595 r holds
out[L - 1 - r], so out[L - 1 - r] = image[r] and the leading L - registers bytes are 0 (they
fall off the end of the chain). The next LOAD pulse (the next read) latches them onto the LEDs.
``scan_out`` is L = registers + 1 (a scan: the chain plus its tail byte), ``full_out`` is
L = registers + extra (the self-test's chain-length read). Both are kept equal to the image at
every change, so a read sends the image without copying it; the scan's double read sends the
same image twice (harmless). The lights cannot be probed (a 595 answers nothing): a board built
without them says so in its profile ("lights": false) and keeps no image.

Nothing here allocates after construction.
"""


class Lights:
    """The LED image of a chain of `registers` 74HC165/74HC595 pairs and its out buffers for
    reads of registers + 1 and registers + `extra` bytes. Positions are chain bits."""

    def __init__(self, registers, extra=4):
        # type: (int, int) -> None
        if extra < 1:
            raise ValueError("extra must be at least 1 (the scan reads registers + 1 bytes)")
        self.registers = registers
        self.extra = extra
        self.image = bytearray(registers)  # image[r]: 595 r's outputs, bit 7 = QH .. bit 0 = QA
        self.scan_out = bytearray(registers + 1)  # out[registers - r] = image[r]; out[0] = 0
        self.full_out = bytearray(registers + extra)  # out[registers + extra - 1 - r] = image[r]
        self.n_lit = 0

    def _put(self, r, v):
        self.image[r] = v
        self.scan_out[self.registers - r] = v
        self.full_out[self.registers + self.extra - 1 - r] = v

    def set(self, chain_bit, on):
        """Light (on) or put out the LED of chain bit `chain_bit`; False when the bit lies past
        the chain (nothing changes)."""
        r = chain_bit >> 3
        if r >= self.registers or chain_bit < 0:
            return False
        m = 0x80 >> (chain_bit & 7)
        old = self.image[r]
        if on:
            if not old & m:
                self._put(r, old | m)
                self.n_lit += 1
        elif old & m:
            self._put(r, old ^ m)
            self.n_lit -= 1
        return True

    def is_lit(self, chain_bit):
        r = chain_bit >> 3
        if r >= self.registers or chain_bit < 0:
            return False
        return bool(self.image[r] & (0x80 >> (chain_bit & 7)))

    def clear(self):
        """Every LED out (the out buffers too: the next read latches a dark chain)."""
        if self.n_lit:
            for r in range(self.registers):
                if self.image[r]:
                    self._put(r, 0)
        self.n_lit = 0
