"""A ``machine`` module for the virtual board (CPython only): Pin, SPI, I2C, WDT.

``SimMachine(hw)`` exposes the classes the firmware uses with the MicroPython signatures.
``hw`` is a firmware.sim.world.World: it owns the chain, the I2C devices and the clock.
"""
import errno


class _Pin:
    OUT = 1
    IN = 0
    OPEN_DRAIN = 2
    PULL_UP = 1
    PULL_DOWN = 2

    def __init__(self, hw, pin, mode=None, pull=None, value=None):
        self.hw = hw
        self.id = pin
        self.mode = mode
        self.pull = pull
        if value is not None:
            self.value(value)

    def value(self, v=None):
        if v is None:
            return self.hw.pin_read(self.id, self.pull)
        self.hw.pin_write(self.id, 1 if v else 0)

    __call__ = value

    def on(self):
        self.value(1)

    def off(self):
        self.value(0)


class _SPI:
    MSB = 0
    LSB = 1

    def __init__(self, hw, spi_id, baudrate=1000000, polarity=0, phase=0, bits=8, firstbit=0,
                 sck=None, mosi=None, miso=None):
        self.hw = hw
        self.id = spi_id
        self.baudrate = baudrate
        self.polarity = polarity
        self.phase = phase
        self.firstbit = firstbit

    def _flip(self, data):
        return bytes(int("{:08b}".format(b)[::-1], 2) for b in data)

    def readinto(self, buf, write=0):
        """Read len(buf) bytes while sending the byte `write` each time (MicroPython's)."""
        return self.write_readinto(bytes((write,)) * len(buf), buf)

    def write_readinto(self, write_buf, read_buf):
        """Send write_buf on MOSI while reading as many bytes into read_buf (MicroPython:
        the two must be the same length)."""
        if len(write_buf) != len(read_buf):
            raise ValueError("buffers must be the same length")
        mosi = bytes(write_buf)
        if self.firstbit == self.LSB:
            mosi = self._flip(mosi)
        data = self.hw.spi_transfer(self.id, len(read_buf), self.polarity, self.phase, mosi)
        if self.firstbit == self.LSB:
            data = self._flip(data)
        read_buf[:] = data
        return None

    def read(self, n, write=0):
        b = bytearray(n)
        self.readinto(b, write)
        return bytes(b)


class _I2C:
    def __init__(self, hw, bus_id, scl=None, sda=None, freq=400000, timeout=50000):
        self.hw = hw
        self.id = bus_id
        self.freq = freq

    def _dev(self, addr):
        d = self.hw.i2c_device(self.id, addr)
        if d is None:
            raise OSError(errno.ENODEV, "no I2C device at 0x%02x on bus %d" % (addr, self.id))
        return d

    def scan(self):
        return self.hw.i2c_scan(self.id)

    def writeto(self, addr, buf, stop=True):
        self._dev(addr).write(bytes(buf))
        return len(buf)

    def readfrom_into(self, addr, buf, stop=True):
        buf[:] = self._dev(addr).read(len(buf))

    def readfrom(self, addr, n, stop=True):
        return bytes(self._dev(addr).read(n))

    def writeto_mem(self, addr, memaddr, buf, addrsize=8):
        self._dev(addr).write(bytes((memaddr,)) + bytes(buf))

    def readfrom_mem_into(self, addr, memaddr, buf, addrsize=8):
        d = self._dev(addr)
        d.write(bytes((memaddr,)))
        buf[:] = d.read(len(buf))

    def readfrom_mem(self, addr, memaddr, n, addrsize=8):
        b = bytearray(n)
        self.readfrom_mem_into(addr, memaddr, b)
        return bytes(b)


class _WDT:
    def __init__(self, hw, id=0, timeout=5000):
        self.hw = hw
        self.timeout = timeout
        hw.wdt_start(timeout)

    def feed(self):
        self.hw.wdt_feed()


class SimMachine:
    def __init__(self, hw):
        # the lights' /OE is a pin of ours: the 74HC595 model reads its level (1 = pulled up on
        # the boards when never driven, every LED dark)
        lights = getattr(hw, "lights", None)
        profile = getattr(hw, "profile", None)
        if lights is not None and isinstance(profile, dict):
            oe = profile.get("lights_oe_pin")
            lights.oe_level = lambda: hw.pins.get(oe, 1) if oe is not None else 1
        self.hw = hw
        outer = self

        class Pin(_Pin):
            def __init__(self, pin, mode=None, pull=None, value=None):
                _Pin.__init__(self, outer.hw, pin, mode, pull, value)

        class SPI(_SPI):
            def __init__(self, spi_id, **kw):
                _SPI.__init__(self, outer.hw, spi_id, **kw)

        class I2C(_I2C):
            def __init__(self, bus_id, **kw):
                _I2C.__init__(self, outer.hw, bus_id, **kw)

        class WDT(_WDT):
            def __init__(self, id=0, timeout=5000):
                _WDT.__init__(self, outer.hw, id, timeout)

        self.Pin = Pin
        self.SPI = SPI
        self.I2C = I2C
        self.WDT = WDT

    def unique_id(self):
        return self.hw.uid

    def reset(self):
        self.hw.request_reset()

    def idle(self):
        pass
