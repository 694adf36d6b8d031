"""Byte transports for the link on the board (MicroPython): USB CDC or a UART.

Both give ``read()`` -> bytes or None (never blocks) and ``write(buf, start, end)`` (sends
buf[start:end] without slicing; when the host is not reading, the frame is dropped instead
of stalling the main loop: the link resends it).
"""
import select


class UsbCdc:
    """The USB serial port the REPL normally uses: sys.stdin.buffer / sys.stdout.buffer.

    kbd_intr(-1): a 0x03 byte in a frame must not raise KeyboardInterrupt. Ways back to the
    REPL: CMD_REPL, or the profile's repl_pin held low at boot (firmware/main.py)."""

    def __init__(self, rx_size=128):
        import sys
        import micropython
        micropython.kbd_intr(-1)
        self.inp = sys.stdin.buffer
        self.out = sys.stdout.buffer
        self.pin = select.poll()
        self.pin.register(sys.stdin, select.POLLIN)
        self.pout = select.poll()
        self.pout.register(sys.stdout, select.POLLOUT)
        self.one = bytearray(1)
        self.rx = bytearray(rx_size)

    def read(self):
        n = 0
        rx = self.rx
        while n < len(rx) and self.pin.poll(0):
            self.inp.readinto(self.one)
            rx[n] = self.one[0]
            n += 1
        if not n:
            return None
        return bytes(rx[:n])

    def write(self, buf, start, end):
        for _ in self.pout.ipoll(0):
            self.out.write(buf, start, end - start)
            return

    def close(self):
        import micropython
        micropython.kbd_intr(3)


class Uart:
    """machine.UART from the profile's "uart" entry (an alternative to USB)."""

    def __init__(self, machine, cfg, rx_size=128):
        self.uart = machine.UART(cfg["id"], baudrate=cfg["baudrate"], tx=machine.Pin(cfg["tx"]),
                                 rx=machine.Pin(cfg["rx"]), rxbuf=1024, txbuf=1024)
        self.rx = bytearray(rx_size)

    def read(self):
        if not self.uart.any():
            return None
        n = self.uart.readinto(self.rx)
        if not n:
            return None
        return bytes(self.rx[:n])

    def write(self, buf, start, end):
        self.uart.write(memoryview(buf)[start:end])

    def close(self):
        pass
