"""The board link's serial port on Android: usb4a + usbserial4a behind pyserial's read/write/close.

Android has no /dev/tty* for USB devices an app may use: the app talks to the board through the
USB host API (python-for-android + pyjnius), which usb4a wraps (`usb.get_usb_device_list()`,
`usb.has_usb_permission(dev)`, `usb.request_usb_permission(dev)`) and usbserial4a drives
(`serial4a.get_serial_port(name, baudrate, 8, 'N', 1, timeout=...)`: CDC-ACM, CP210x, CH34x,
FTDI, PL2303). `BoardConnection` only needs ``read(n)`` (bytes, short timeout, b"" when idle),
``write(bytes)`` and ``close()``, and treats any exception as an unplug; this module supplies an
``open_port`` callable that returns exactly that::

    from companion.link import android_serial
    conn = android_serial.board_connection()   # first supported board; rescanned on each retry

What the adapter adds over usbserial4a (see docs/android.md):

* the board is looked up by VID/PID (``board_link.describe_usb``) on every open, because Android
  names a device by bus address (/dev/bus/usb/001/004) and the name changes on every replug;
* USB permission is asked once per device and a missing permission is a clear error (the
  library would return a port that is silently not open);
* CH9102 (1A86:55D4) is a CDC-ACM device: usbserial4a's vendor table would give it the CH34x
  driver, so it gets ``CdcAcmSerial``;
* the drivers' bulk-read timeout (5 s for CP210x/CH34x) is cut so ``read`` returns within ~20 ms;
* the drivers turn a failed bulk read into "no data", so an unplug is noticed by checking once a
  second while idle that the device is still attached;
* every exception from the library or from Java comes out as ``AndroidSerialError`` (a
  pyserial ``SerialException``) naming the device.

Desktop tests inject stand-ins for the two modules (``usb=``, ``serial4a=``); nothing here
imports usb4a or pyjnius until a port is opened without them.
"""
from __future__ import annotations

import os
import time

from serial.serialutil import SerialException

from companion.link.board_link import DEFAULT_MAP, BoardConnection, describe_usb

BAUDRATE = 115200
READ_TIMEOUT_S = 0.005  # as the desktop port in BoardConnection
WRITE_TIMEOUT_S = 0.5
USB_READ_TIMEOUT_MS = 20  # one bulk IN transfer while idle
PRESENCE_CHECK_S = 1.0
AUTO = "USB"  # BoardConnection's port label when the board is found by VID/PID

# Devices whose vendor id usbserial4a maps to a vendor driver although they are CDC-ACM.
CDC_ACM_IDS = {(0x1A86, 0x55D4)}  # CH9102


class AndroidSerialError(SerialException):
    """A USB serial problem on Android (a SerialException, so an OSError)."""


class BoardNotFound(AndroidSerialError):
    pass


class UsbPermissionError(AndroidSerialError):
    pass


def is_android() -> bool:
    """Same test as kivy.utils.platform == 'android', without importing Kivy."""
    return os.environ.get("KIVY_BUILD") == "android" or "P4A_BOOTSTRAP" in os.environ \
        or "ANDROID_ARGUMENT" in os.environ


def load_modules(usb=None, serial4a=None, need_serial=True):
    """(usb4a.usb, usbserial4a.serial4a), or the stand-ins given (serial4a None if not needed)."""
    try:
        if usb is None:
            from usb4a import usb
        if serial4a is None and need_serial:
            from usbserial4a import serial4a
    except Exception as exc:  # ImportError on the desktop (no usb4a / jnius)
        raise AndroidSerialError("USB host support (usb4a/usbserial4a) is not available: %s: %s"
                                 % (exc.__class__.__name__, exc)) from exc
    return usb, serial4a


def _call(fn, default=None):
    try:
        return fn()
    except Exception:  # an optional Java getter (e.g. getProductName on a detached device)
        return default


def device_info(dev) -> dict:
    """name, vid, pid, product and `what` (describe_usb, None when not a supported board)."""
    vid, pid = dev.getVendorId(), dev.getProductId()
    return {"name": dev.getDeviceName(), "vid": vid, "pid": pid,
            "product": _call(dev.getProductName), "what": describe_usb(vid, pid)}


def list_devices(usb) -> list[dict]:
    return [device_info(d) for d in usb.get_usb_device_list() if d]


def find_boards(usb=None) -> list[tuple[str, str]]:
    """Attached USB devices that look like a supported board: [(device name, description)]."""
    usb, _ = load_modules(usb, need_serial=False)
    return [(d["name"], d["what"]) for d in list_devices(usb) if d["what"]]


def all_ports(usb=None) -> list[tuple[str, str]]:
    """Every attached USB device, for a manual picker: [(device name, description)]."""
    usb, _ = load_modules(usb, need_serial=False)
    return [(d["name"], d["what"] or "%04X:%04X %s" % (d["vid"], d["pid"], d["product"] or ""))
            for d in list_devices(usb)]


class UsbSerialPort:
    """A usbserial4a port seen through the pyserial calls BoardConnection makes."""

    def __init__(self, port, device_name, usb, what="", presence_check_s=PRESENCE_CHECK_S,
                 clock=time.monotonic):
        self._port = port
        self.name = device_name
        self.what = what
        self._usb = usb
        self._presence_check_s = presence_check_s
        self._clock = clock
        self._checked_at = clock()
        self._closed = False

    @property
    def is_open(self):
        return not self._closed

    def _fail(self, doing, exc):
        return AndroidSerialError("%s: %s failed: %s" % (self.name, doing, exc or "port not open"))

    def read(self, size=1):
        if self._closed:
            raise self._fail("read", None)
        try:
            data = self._port.read(size)
        except Exception as exc:
            raise self._fail("read", exc) from exc
        if data:
            return bytes(data)
        now = self._clock()
        if now - self._checked_at >= self._presence_check_s:
            self._checked_at = now
            try:
                present = self._usb.get_usb_device(self.name) is not None
            except Exception as exc:
                raise self._fail("USB device check", exc) from exc
            if not present:
                raise AndroidSerialError("%s: the board was unplugged" % self.name)
        return b""

    def write(self, data):
        if self._closed:
            raise self._fail("write", None)
        data = bytes(data)
        try:
            n = self._port.write(data)
        except Exception as exc:
            raise self._fail("write", exc) from exc
        if n is None:  # usbserial4a returns None when its port is not open
            raise self._fail("write", None)
        return n

    def close(self):
        """Never raises (the device may already be gone); idempotent."""
        if self._closed:
            return
        self._closed = True
        try:
            self._port.close()
        except Exception:
            pass


class AndroidSerialOpener:
    """BoardConnection's ``open_port``: finds, asks permission for and opens the board."""

    def __init__(self, device_name=None, baudrate=BAUDRATE, timeout=READ_TIMEOUT_S,
                 write_timeout=WRITE_TIMEOUT_S, usb=None, serial4a=None,
                 usb_read_timeout_ms=USB_READ_TIMEOUT_MS, presence_check_s=PRESENCE_CHECK_S,
                 clock=time.monotonic):
        self.device_name = device_name
        self.baudrate = baudrate
        self.timeout = timeout
        self.write_timeout = write_timeout
        self._usb = usb
        self._serial4a = serial4a
        self.usb_read_timeout_ms = usb_read_timeout_ms
        self.presence_check_s = presence_check_s
        self._clock = clock
        self.asked = set()  # device names permission was requested for
        self.device = None  # device_info() of the last device opened

    def _pick(self, usb):
        if self.device_name:
            dev = usb.get_usb_device(self.device_name)
            if dev is None:
                raise BoardNotFound("%s is not attached" % self.device_name)
            return dev, device_info(dev)
        for dev in usb.get_usb_device_list():
            if dev:
                info = device_info(dev)
                if info["what"]:
                    return dev, info
        raise BoardNotFound("no supported board on USB (Raspberry Pi Pico/RP2040, ESP32, CP210x, "
                            "CH340 or CH9102); connect it with a USB OTG adapter")

    def __call__(self):
        usb, serial4a = load_modules(self._usb, self._serial4a)
        self._usb, self._serial4a = usb, serial4a
        try:
            dev, info = self._pick(usb)
            granted = usb.has_usb_permission(dev)
        except AndroidSerialError:
            raise
        except Exception as exc:
            raise AndroidSerialError("USB device list failed: %s" % exc) from exc
        name = info["name"]
        what = info["what"] or "USB device %04X:%04X" % (info["vid"], info["pid"])
        if not granted:
            if name not in self.asked:
                self.asked.add(name)
                try:
                    usb.request_usb_permission(dev)
                except Exception as exc:
                    raise UsbPermissionError("%s (%s): asking for USB permission failed: %s"
                                             % (what, name, exc)) from exc
                raise UsbPermissionError("%s (%s): allow the app to use it in Android's USB "
                                         "permission dialog" % (what, name))
            raise UsbPermissionError("%s (%s): USB permission not granted; if the dialog was "
                                     "refused, unplug and replug the board to be asked again"
                                     % (what, name))
        try:
            if (info["vid"], info["pid"]) in CDC_ACM_IDS:
                port = serial4a.CdcAcmSerial(name, self.baudrate, 8, "N", 1, timeout=self.timeout,
                                             write_timeout=self.write_timeout)
            else:
                port = serial4a.get_serial_port(name, self.baudrate, 8, "N", 1,
                                                timeout=self.timeout,
                                                write_timeout=self.write_timeout)
        except Exception as exc:
            raise AndroidSerialError("%s (%s): could not open: %s" % (what, name, exc)) from exc
        if not getattr(port, "is_open", False):  # permission withdrawn between check and open
            try:
                port.close()
            except Exception:
                pass
            raise UsbPermissionError("%s (%s): the port did not open (USB permission?)"
                                     % (what, name))
        ms = getattr(port, "USB_READ_TIMEOUT_MILLIS", None)
        if isinstance(ms, int) and ms > self.usb_read_timeout_ms:
            port.USB_READ_TIMEOUT_MILLIS = self.usb_read_timeout_ms  # instance attr shadows class
        self.device = info
        return UsbSerialPort(port, name, usb, what, self.presence_check_s, self._clock)


def board_connection(device_name=None, map_path=DEFAULT_MAP, baudrate=BAUDRATE, **opener_kw):
    """A BoardConnection over Android USB; ``device_name`` None = first supported board."""
    opener = AndroidSerialOpener(device_name, baudrate, **opener_kw)
    conn = BoardConnection(device_name or AUTO, map_path, baudrate, open_port=opener)
    conn.opener = opener
    return conn
