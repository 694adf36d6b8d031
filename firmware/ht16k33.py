"""HT16K33 LED matrix driver (Holtek, RAM mapping 16x8) for the guidance lights.

One chip drives 128 LEDs: 16 ROW outputs (anodes, sourcing) by 8 COM outputs (cathodes,
sinking), scanned by the chip itself (one COM at a time, 1/9 duty with the key-scan slot).
Display RAM: 16 bytes; address 2*com holds ROW0-7 (bit = row), 2*com + 1 holds ROW8-15.
Commands are single bytes written as the I2C "register" with no data: 0x21 system setup
(oscillator on), 0xA0 ROW/INT set (pin 13 a ROW output), 0xE0 | n dimming (n + 1 of 16),
0x80 | 1 display setup (on, no blink). Writing [0x00, 16 bytes] fills the RAM from address 0.
Address 0x70 | A2 A1 A0: 8 chips on one bus.

The LED of a sensed position sits beside its hall switch and is wired like it: each chip
drives up to 16 consecutive chain registers, register r is ROW r - start of its chip, its
input bit b (0 = H, the first bit shifted out) is COM b. So the sensor map's chain bits *are*
the light map (nothing stored, nothing hand-written). Where each chip starts (`chip_starts`):
every 16 registers; or, given the first register of each strip (board) of the map, strips
packed in chain order so that no board is split between two chips (a new chip where the next
strip does not fit the current one's remaining ROWs). CivMint: starts 0, 16, 32 by register;
0 (the 8 track boards), 16 (resource board p1), 25 (resource board p2) by strips. A map the
drivers cannot light (a strip over 16 registers, more than 8 chips) is refused naming the
entry (`check_map`, `chip_starts`).

Nothing here allocates after construction: `Lights` keeps one 16-byte RAM image per chip and
a dirty flag, and writes a chip only when its image changed (one 17-byte I2C write).
"""
TYPE_CHECKING = False  # true for the type checker only (the board's stubs)
if TYPE_CHECKING:
    from machine import I2C

try:
    from micropython import const  # pyright: ignore[reportAssignmentType]
except ImportError:
    def const(x):
        return x

ADDR = const(0x70)
MAX_CHIPS = const(8)  # A2..A0
ROWS = const(16)
COMS = const(8)
LEDS_PER_CHIP = const(128)
REGISTERS_PER_CHIP = const(16)  # one ROW per 74HC165, one COM per input
CMD_OSC_ON = const(0x21)
CMD_ROW_OUTPUT = const(0xA0)
CMD_DIM = const(0xE0)
CMD_DISPLAY_ON = const(0x81)
CMD_DISPLAY_OFF = const(0x80)
RAM_ADDR = const(0x00)
DEFAULT_DIM = const(15)  # 16/16: the peak current is set by the ROW resistors


class LightsMapError(ValueError):
    pass


def chips_for(registers):
    """HT16K33 chips a chain of this many registers needs, one per 16 registers."""
    return (registers + REGISTERS_PER_CHIP - 1) // REGISTERS_PER_CHIP


def chip_starts(registers, strip_starts=None, strip_ids=None):
    """First chain register of each chip's ROW 0, in chain order (a list; start-up only).

    Without strips: every 16 registers. With `strip_starts` (the first register of each strip,
    any order): strips packed in chain order, a new chip where the next strip would not fit the
    current chip's 16 ROWs, so no strip is split between chips. Raises LightsMapError naming a
    strip longer than 16 registers; more than 8 chips is left to the caller (check_map, Lights)."""
    if not strip_starts:
        return list(range(0, registers, REGISTERS_PER_CHIP))
    order = sorted(range(len(strip_starts)), key=lambda j: strip_starts[j])
    starts = []
    for n in range(len(order)):
        j = order[n]
        first = strip_starts[j]
        end = strip_starts[order[n + 1]] if n + 1 < len(order) else registers
        if end - first > REGISTERS_PER_CHIP:
            raise LightsMapError("strip %s (strips[%d]) has %d registers (%d-%d); one HT16K33 lights "
                                 "16 registers and a strip is never split between two"
                                 % (repr(strip_ids[j]) if strip_ids else "at register %d" % first,
                                    j, end - first, first, end - 1))
        if not starts or end - starts[-1] > REGISTERS_PER_CHIP:
            starts.append(first)
    return starts


def chip_of(register, starts):
    """Index into `starts` of the chip that drives this register (no allocation)."""
    c = 0
    n = len(starts)
    while c + 1 < n and starts[c + 1] <= register:
        c += 1
    return c


def led_of(chain_bit, starts=None):
    """(chip, row, com) of the LED under the position read at this chain bit."""
    reg = chain_bit >> 3
    if starts is None:
        return reg >> 4, reg & 15, chain_bit & 7
    c = chip_of(reg, starts)
    return c, reg - starts[c], chain_bit & 7


def check_map(smap, strip_starts=None, strip_ids=None):
    """Raise LightsMapError naming the first entry the drivers cannot light: a strip over 16
    registers, or a lane space on a chip past the 8th; returns the chips the map needs."""
    from firmware.tracks import mask_bit
    starts = chip_starts(smap.chain_registers, strip_starts, strip_ids)
    if len(starts) <= MAX_CHIPS:
        return len(starts)
    for k in range(smap.n_lanes):
        bs = smap.lane_byte[k]
        ms = smap.lane_mask[k]
        for i in range(len(bs)):
            c = chip_of(bs[i], starts)
            if c >= MAX_CHIPS:
                raise LightsMapError(
                    "lane %r (lanes[%d]) space %d: chain bit %d is register %d, which needs HT16K33 "
                    "number %d; one I2C bus holds %d (0x70-0x77)"
                    % (smap.lane_ids[k], k, i, bs[i] * 8 + mask_bit(ms[i]), bs[i], c, MAX_CHIPS))
    return len(starts)


class HT16K33:
    """One chip: its RAM image and the commands it needs. Raises OSError when it does not answer."""

    def __init__(self, i2c, addr=ADDR, dim=DEFAULT_DIM):
        # type: (I2C, int, int) -> None
        self.i2c = i2c
        self.addr = addr
        self.dim = dim
        self.ram = bytearray(16)
        self.none = bytearray(0)
        self.dirty = False

    def command(self, cmd):
        self.i2c.writeto_mem(self.addr, cmd, self.none)

    def init(self):
        """Oscillator on, ROW outputs, brightness, RAM cleared, display on (OSError: no chip)."""
        self.command(CMD_OSC_ON)
        self.command(CMD_ROW_OUTPUT)
        self.command(CMD_DIM | (self.dim & 15))
        ram = self.ram
        for i in range(16):
            ram[i] = 0
        self.write()
        self.command(CMD_DISPLAY_ON)

    def set(self, row, com, on):
        a = 2 * com + (row >> 3)
        bit = 1 << (row & 7)
        old = self.ram[a]
        new = (old | bit) if on else (old & ~bit)
        if new != old:
            self.ram[a] = new
            self.dirty = True

    def get(self, row, com):
        return (self.ram[2 * com + (row >> 3)] >> (row & 7)) & 1

    def write(self):
        """The whole RAM image from address 0 (one I2C write of 17 bytes)."""
        self.i2c.writeto_mem(self.addr, RAM_ADDR, self.ram)
        self.dirty = False


class Lights:
    """The guidance lights of a chain of `registers` 74HC165s: chips at ADDR.. on one bus, the
    chip c driving the registers from starts[c] (chip_starts). A chip that does not answer at
    start-up is None in `chips` (its lights cannot be lit; `missing` lists their numbers).
    Positions are chain bits (sensormap: byte * 8 + bit)."""

    def __init__(self, i2c, registers, addr=ADDR, dim=DEFAULT_DIM, starts=None):
        # type: (I2C, int, int, int, list | None) -> None
        if starts is None:
            starts = chip_starts(registers)
        n = len(starts)
        if n > MAX_CHIPS:
            raise LightsMapError("%d registers need %d HT16K33 chips; one bus holds %d"
                                 % (registers, n, MAX_CHIPS))
        self.starts = starts
        self.chips = []  # type: list
        self.missing = []  # type: list
        for c in range(n):
            chip = HT16K33(i2c, addr + c, dim)
            try:
                chip.init()
            except OSError:
                chip = None
                self.missing.append(c)
            self.chips.append(chip)
        self.n_lit = 0

    def present(self):
        """Does any chip answer? (A board built without lights has none: not a fault.)"""
        return len(self.missing) < len(self.chips)

    def set(self, chain_bit, on):
        reg = chain_bit >> 3
        c = chip_of(reg, self.starts)
        chip = self.chips[c]
        if chip is None:
            return False
        row = reg - self.starts[c]
        com = chain_bit & 7
        if chip.get(row, com) != (1 if on else 0):
            chip.set(row, com, on)
            self.n_lit += 1 if on else -1
        return True

    def is_lit(self, chain_bit):
        reg = chain_bit >> 3
        c = chip_of(reg, self.starts)
        chip = self.chips[c]
        return chip is not None and chip.get(reg - self.starts[c], chain_bit & 7) == 1

    def clear(self):
        for chip in self.chips:
            if chip is not None:
                ram = chip.ram
                for i in range(16):
                    if ram[i]:
                        ram[i] = 0
                        chip.dirty = True
        self.n_lit = 0

    def flush(self):
        """Write the chips whose image changed; OSError (a chip lost) propagates after the others."""
        err = None
        for chip in self.chips:
            if chip is not None and chip.dirty:
                try:
                    chip.write()
                except OSError as exc:
                    chip.dirty = False  # retried at the next change, not every loop
                    err = exc
        if err is not None:
            raise err
