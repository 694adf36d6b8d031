"""Register- and bit-level models of the chips (CPython only): 74HC165 chain, the guidance
lights' 74HC595 chain beside it, TCS34725.

HC165Chain: the whole chain is one shift register of 8 * registers bits (a Python int; the
most significant bit is QH of register 0, which drives MISO). While SH/LD is low the inputs
are loaded continuously and clocks do not shift; with SH/LD high each rising CLK edge shifts
every register by one (register k's SER = register k+1's QH, the last one's SER = the tail
level). The SPI master samples MISO on the falling edge in mode 2 (polarity 1, phase 0),
before the shift; in the other modes the sample falls on or after the shifting edge, so
input H of register 0 is lost (the model samples after the shift), as on a real chain.

HC595Chain: the 74HC595s on the same CLK (inverted) and LOAD (their RCLK), fed from MOSI: what
the SPI master sends during a read is shifted in, and the LOAD rising edge latches it onto the
LEDs (see the class).

TCS34725Sim: registers ENABLE, ATIME, WTIME, thresholds, PERS, CONFIG, CONTROL, ID, STATUS,
CDATAL..BDATAH; the command byte (bit 7 CMD, type 00 repeated byte / 01 auto-increment /
11 special function); reading a channel's low byte latches its high byte. With PON then AEN
(after the 2.4 ms warm-up) the ADC integrates continuously; each cycle of (256 - ATIME) *
2.4 ms latches a new reading from ``source(now_ms, cycles, gain)`` and sets AVALID.
"""
import collections
import errno

GAINS = (1, 4, 16, 60)


class HC165Chain:
    def __init__(self, registers, inputs, tail_level=0):
        self.registers = registers
        self.inputs = inputs  # callable -> bytearray(registers): input levels, bit 7 = H
        self.tail_level = tail_level
        self.value = 0
        self.loading = False
        self.unplugged = False  # MISO floats high (pull-up) when the chain is not connected
        # a random.Random when the last register's SER reads noise rather than the tail level
        # (a reversed cable: it meets the next board's LOAD input, pulled up against its own
        # pull-down, half the supply), else None
        self.tail_noise = None
        self.clocks = 0

    @property
    def nbits(self):
        return self.registers * 8

    def load_pin(self, level, active_low=True):
        self.loading = (level == 0) if active_low else (level == 1)
        if self.loading:
            self._load()

    def _load(self):
        data = self.inputs()
        v = 0
        for i in range(self.registers):
            v = (v << 8) | (data[i] if i < len(data) else 0xFF)
        self.value = v

    def _qh(self):
        return (self.value >> (self.nbits - 1)) & 1

    def _shift(self):
        mask = (1 << self.nbits) - 1
        if self.tail_noise is not None:
            ser = self.tail_noise.getrandbits(1)
        else:
            ser = 1 if self.tail_level else 0
        self.value = ((self.value << 1) & mask) | ser

    def transfer(self, nbytes, polarity, phase):
        """Clock nbytes * 8 bits; return the bytes seen on MISO."""
        out = bytearray(nbytes)
        if self.unplugged:
            for i in range(nbytes):
                out[i] = 0xFF
            return out
        sample_first = polarity == 1 and phase == 0
        for i in range(nbytes):
            byte = 0
            for _ in range(8):
                self.clocks += 1
                if self.loading:
                    self._load()
                    bit = self._qh()
                elif sample_first:
                    bit = self._qh()
                    self._shift()
                else:
                    self._shift()
                    bit = self._qh()
                byte = (byte << 1) | bit
            out[i] = byte
        return out


class TCS34725Sim:
    def __init__(self, now_ms, source, chip_id=0x44):
        self.now_ms = now_ms
        self.source = source  # source(now_ms, cycles, gain) -> (c, r, g, b)
        self.chip_id = chip_id
        self.regs = bytearray(0x20)
        self.regs[0x01] = 0xFF
        self.regs[0x03] = 0xFF
        self.pointer = 0
        self.auto = False
        self.pon_ms = None
        self.start_ms = None
        self.cycles_done = 0
        self.data = [0, 0, 0, 0]
        self.shadow = 0
        self.present = True
        self.transactions = 0

    # -------------------------------------------------------------- integration
    def _cycle_ms(self):
        return (256 - self.regs[0x01]) * 2.4

    def _update(self):
        if self.start_ms is None:
            return
        now = self.now_ms()
        done = int((now - self.start_ms) // self._cycle_ms()) if now >= self.start_ms else 0
        if done > self.cycles_done:
            self.cycles_done = done
            cycles = 256 - self.regs[0x01]
            gain = GAINS[self.regs[0x0F] & 3]
            end = self.start_ms + done * self._cycle_ms()
            c, r, g, b = self.source(end, cycles, gain)
            full = min(65535, cycles * 1024)
            self.data = [max(0, min(full, int(round(x)))) for x in (c, r, g, b)]
            self.regs[0x13] |= 0x01  # AVALID
            if self.data[0] > self.regs[0x06] | (self.regs[0x07] << 8) or \
                    self.data[0] < self.regs[0x04] | (self.regs[0x05] << 8):
                self.regs[0x13] |= 0x10  # AINT (persistence 0: every cycle out of range)

    def _write_enable(self, v):
        old = self.regs[0x00]
        self.regs[0x00] = v & 0x5B
        now = self.now_ms()
        if not v & 0x01:
            self.pon_ms = None
            self.start_ms = None
            self.regs[0x13] &= ~0x01
            return
        if not old & 0x01:
            self.pon_ms = now
        if v & 0x02 and not old & 0x02:
            # integration starts after the 2.4 ms oscillator warm-up that follows PON
            self.start_ms = max(now, self.pon_ms + 2.4)
            self.cycles_done = 0
            self.regs[0x13] &= ~0x01
        elif not v & 0x02:
            self.start_ms = None
            self.regs[0x13] &= ~0x01

    # --------------------------------------------------------------- registers
    def _read_reg(self, a):
        self._update()
        if a == 0x12:
            return self.chip_id
        if 0x14 <= a <= 0x1B:
            ch = (a - 0x14) >> 1
            if a & 1:  # high byte: the value latched by the low-byte read
                return self.shadow
            v = self.data[ch]
            self.shadow = (v >> 8) & 0xFF
            return v & 0xFF
        return self.regs[a]

    def _write_reg(self, a, v):
        if a == 0x00:
            self._write_enable(v)
        elif a in (0x01, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0C, 0x0D, 0x0F):
            self.regs[a] = v
            if a == 0x01 and self.start_ms is not None:
                self.start_ms = self.now_ms()
                self.cycles_done = 0
        # ID, STATUS and the data registers are read-only

    def _command(self, cmd):
        if not cmd & 0x80:
            raise OSError(errno.EIO, "TCS34725: byte without the CMD bit")
        typ = (cmd >> 5) & 3
        if typ == 3:
            if cmd & 0x1F == 0x06:
                self.regs[0x13] &= ~0x10  # clear channel interrupt clear
            return False
        if typ == 2:
            raise OSError(errno.EIO, "TCS34725: reserved command type")
        self.pointer = cmd & 0x1F
        self.auto = typ == 1
        return True

    def _next(self):
        if self.auto:
            self.pointer = (self.pointer + 1) & 0x1F

    def write(self, data):
        self.transactions += 1
        if not data:
            return
        if not self._command(data[0]):
            return
        for v in data[1:]:
            self._write_reg(self.pointer, v)
            self._next()

    def read(self, n):
        self.transactions += 1
        out = bytearray(n)
        for i in range(n):
            out[i] = self._read_reg(self.pointer)
            self._next()
        return out


class HC595Chain:
    """The guidance lights' 74HC595s, one per 74HC165, along the same chain (firmware/hc595.py).

    The shift registers are one of 8 * registers bits (a Python int): bit 8r + j is output
    Q(A + j) of 595 r, so bit 0 is QA of 595 0, whose SER is MOSI (chain pin 8), and 595 r's QH'
    feeds 595 r + 1's SER. SRCLK is the chain CLK inverted: each falling CLK edge shifts MOSI in.
    In SPI mode 2 (polarity 1, phase 0) the MCU changes MOSI on the rising edge, so the sample
    falls half a clock after the change and every bit arrives; mode 1 likewise. In modes 0 and 3
    MOSI changes on the very edge the 595s sample: the model takes the new bit (each bit one
    clock early, the first bit of the transfer lost), as a real chain may.
    RCLK is the LOAD net: the rising edge that ends the 74HC165s' parallel load copies the shift
    registers to the outputs (``latched``). /SRCLR is tied high. /OE is the chain's LIGHTS_OFF
    line (cable pins 1 and 9), pulled up on every board: ``oe_level()`` gives its level (1, all
    outputs off, unless the MCU drives it low; the virtual board's machine wires it to the
    profile's lights_oe_pin). At power-up both registers hold random bits (``power_up``, a
    random.Random) until the first latch: dark while /OE stays high."""

    LETTERS = "ABCDEFGH"

    def __init__(self, registers, power_up=None):
        self.registers = registers
        self.value = 0
        self.latched = bytearray(registers)  # latched[r]: 595 r's outputs, bit 7 = QH .. bit 0 = QA
        if power_up is not None:
            self.value = power_up.getrandbits(8 * registers) if registers else 0
            for r in range(registers):
                self.latched[r] = power_up.getrandbits(8)
        self.clocks = 0
        self.latches = 0
        # (first register, random.Random): the 595s from that register on get no valid data
        # or clock (past a reversed cable: clocked by the light data, latched by a LOAD input
        # at half the supply) and latch noise; None when every 595 is on a sound chain
        self.noise_from = None
        self.oe_level = lambda: 1  # /OE pulled up: nothing drives it until a machine wires it

    @property
    def nbits(self):
        return self.registers * 8

    def resize(self, registers):
        """Registers physically on the chain (boards unplugged or added keep their state)."""
        old = self.latched
        self.latched = bytearray(registers)
        self.latched[:min(len(old), registers)] = old[:registers]
        self.registers = registers
        self.value &= (1 << self.nbits) - 1

    def transfer(self, mosi, polarity, phase):
        """Clock len(mosi) bytes, each sent MSB first on MOSI."""
        nb = 8 * len(mosi)
        stream = int.from_bytes(bytes(mosi), "big")  # the first bit sent is the top one
        if (polarity, phase) not in ((1, 0), (0, 1)):
            # sampled as MOSI changes: each sample takes the next bit, the last one held
            stream = ((stream << 1) | (stream & 1)) & ((1 << nb) - 1)
        self.clocks += nb
        self.value = ((self.value << nb) | stream) & ((1 << self.nbits) - 1)

    def latch(self):
        """RCLK rising edge: the shift registers to the outputs."""
        self.latches += 1
        v = self.value
        for r in range(self.registers):
            self.latched[r] = (v >> (8 * r)) & 0xFF
        if self.noise_from is not None:
            first, rng = self.noise_from
            for r in range(first, self.registers):
                self.latched[r] = rng.getrandbits(8)

    def shifted(self, r):
        """595 r's shift register (not yet latched), bit 7 = QH."""
        return (self.value >> (8 * r)) & 0xFF

    def output(self, r, letter):
        """Level of output Q<letter> ("A".."H") of 595 r: its LED is lit when it is high (and
        /OE low: with /OE high the outputs float, every LED dark)."""
        if self.oe_level():
            return False
        return bool((self.latched[r] >> self.LETTERS.index(letter)) & 1) if r < self.registers else False
