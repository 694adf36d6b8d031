"""The Android USB serial adapter (companion/link/android_serial.py) on the desktop.

usb4a and usbserial4a need Android (pyjnius + the USB host API), so the tests inject stand-ins
for the two modules. The stand-in driver copies usbserial4a 0.4.0's behaviour that the adapter
relies on or works around: read(n) loops over bulk transfers of USB_READ_TIMEOUT_MILLIS until
``timeout`` expires, a failed bulk read counts as "no data", write returns None when the port is
not open and raises SerialException when a transfer fails. The end-to-end test carries real
protocol traffic from the real firmware (VirtualBoard) over a real pty.
"""
import os
import select
import time

import pytest
from serial.serialutil import SerialException

from companion.link import android_serial as aser
from companion.link.virtual_board import VirtualBoard
from protocol import wire

PICO = (0x2E8A, 0x0005)
ESP32_S3 = (0x303A, 0x1001)
CP2102 = (0x10C4, 0xEA60)
CH340 = (0x1A86, 0x7523)
CH9102 = (0x1A86, 0x55D4)
FTDI = (0x0403, 0x6001)
KEYBOARD = (0x046D, 0xC31C)


class LibSerialException(IOError):
    """usbserial4a.utilserial4a.SerialException (the library's own, not pyserial's)."""


class Device:
    """android.hardware.usb.UsbDevice as pyjnius shows it."""

    def __init__(self, name, ids, product="", broken_product=False):
        self.name, (self.vid, self.pid), self.product = name, ids, product
        self.broken_product = broken_product

    def getDeviceName(self):
        return self.name

    def getVendorId(self):
        return self.vid

    def getProductId(self):
        return self.pid

    def getProductName(self):
        if self.broken_product:
            raise RuntimeError("JavaException: device detached")
        return self.product


class FakeUsb:
    """usb4a.usb: the attached devices and the permissions the user granted."""

    def __init__(self, devices=(), granted=None):
        self.devices = list(devices)
        self.granted = granted  # None: every device; else a set of names
        self.requests = []

    def get_usb_device_list(self):
        return list(self.devices)

    def get_usb_device(self, name):
        for d in self.devices:
            if d and d.getDeviceName() == name:
                return d
        return None

    def has_usb_permission(self, dev):
        return self.granted is None or dev.getDeviceName() in self.granted

    def request_usb_permission(self, dev):
        self.requests.append(dev.getDeviceName())


class ScriptedPort:
    """A usbserial4a port whose reads come from a script; records writes."""

    USB_READ_TIMEOUT_MILLIS = 5000  # CP210x / CH34x driver default

    def __init__(self, name, *args, **kwargs):
        self.name, self.args, self.kwargs = name, args, kwargs
        self.is_open = True
        self.reads = []  # bytes, bytearray, None or an exception per read call
        self.sizes = []
        self.written = []
        self.closed = 0
        self.close_error = None
        self.write_result = "len"
        self.write_error = None

    def read(self, size=1):
        self.sizes.append(size)
        item = self.reads.pop(0) if self.reads else b""
        if isinstance(item, Exception):
            raise item
        return item

    def write(self, data):
        if self.write_error:
            raise self.write_error
        if not self.is_open:
            return None
        self.written.append(data)
        return len(data) if self.write_result == "len" else self.write_result

    def close(self):
        self.closed += 1
        self.is_open = False
        if self.close_error:
            raise self.close_error


class FakeSerial4a:
    """usbserial4a.serial4a: get_serial_port picks a driver; CdcAcmSerial is the CDC driver."""

    def __init__(self, port_cls=ScriptedPort, error=None):
        self.opened = []  # (driver, name, args, kwargs)
        self.ports = []
        self.error = error
        serial4a = self

        class CdcAcmSerial(port_cls):
            def __init__(self, name, *args, **kwargs):
                serial4a.opened.append(("CdcAcmSerial", name, args, kwargs))
                super().__init__(name, *args, **kwargs)
                serial4a.ports.append(self)

        self.CdcAcmSerial = CdcAcmSerial
        self._port_cls = port_cls

    def get_serial_port(self, name, *args, **kwargs):
        if self.error:
            raise self.error
        self.opened.append(("get_serial_port", name, args, kwargs))
        port = self._port_cls(name, *args, **kwargs)
        self.ports.append(port)
        return port


def _opener(devices, granted=None, **kw):
    usb = FakeUsb(devices, granted)
    s4a = FakeSerial4a(kw.pop("port_cls", ScriptedPort), kw.pop("error", None))
    return aser.AndroidSerialOpener(usb=usb, serial4a=s4a, **kw), usb, s4a


# ------------------------------------------------------------------ device matching

def test_boards_are_matched_by_vid_pid_and_every_device_is_listed_for_the_picker():
    usb = FakeUsb([None, Device("/dev/bus/usb/001/002", KEYBOARD, "Keyboard"),
                   Device("/dev/bus/usb/001/003", FTDI, "FT232R"),
                   Device("/dev/bus/usb/001/004", PICO, "Board in FS mode", broken_product=True),
                   Device("/dev/bus/usb/001/005", CH9102, "USB Single Serial")])
    boards = aser.find_boards(usb)
    assert [b[0] for b in boards] == ["/dev/bus/usb/001/004", "/dev/bus/usb/001/005"]
    assert "Pico" in boards[0][1] and "CH9102" in boards[1][1]
    ports = dict(aser.all_ports(usb))
    assert len(ports) == 4
    assert ports["/dev/bus/usb/001/003"] == "0403:6001 FT232R"
    assert aser.device_info(usb.devices[3])["product"] is None  # a Java error is not fatal
    for ids in (PICO, ESP32_S3, CP2102, CH340, CH9102):
        assert aser.find_boards(FakeUsb([Device("d", ids)])) == [("d", aser.describe_usb(*ids))]
    assert aser.find_boards(FakeUsb([Device("d", FTDI)])) == []


def test_open_picks_the_first_board_and_rescans_on_every_open():
    opener, usb, s4a = _opener([Device("/dev/bus/usb/001/002", KEYBOARD),
                                Device("/dev/bus/usb/001/007", CP2102)])
    port = opener()
    assert port.name == "/dev/bus/usb/001/007" and "CP210x" in port.what
    assert s4a.opened[0][:3] == ("get_serial_port", "/dev/bus/usb/001/007", (115200, 8, "N", 1))
    assert s4a.opened[0][3] == {"timeout": aser.READ_TIMEOUT_S, "write_timeout": aser.WRITE_TIMEOUT_S}
    # replugged: Android gives the same board a new bus address
    usb.devices[1] = Device("/dev/bus/usb/001/008", CP2102)
    assert opener().name == "/dev/bus/usb/001/008"
    usb.devices = [Device("/dev/bus/usb/001/002", KEYBOARD)]
    with pytest.raises(aser.BoardNotFound, match="no supported board"):
        opener()


def test_a_named_device_is_opened_even_if_unknown_and_a_missing_one_is_reported():
    opener, usb, s4a = _opener([Device("/dev/bus/usb/002/003", FTDI)],
                               device_name="/dev/bus/usb/002/003")
    assert opener().what == "USB device 0403:6001"
    usb.devices = []
    with pytest.raises(aser.BoardNotFound, match="/dev/bus/usb/002/003 is not attached"):
        opener()


def test_ch9102_gets_the_cdc_acm_driver_other_boards_the_library_choice():
    opener, usb, s4a = _opener([Device("/dev/bus/usb/001/002", CH9102)])
    opener()
    opener.device_name = None
    usb.devices = [Device("/dev/bus/usb/001/003", CH340)]
    opener()
    assert [o[0] for o in s4a.opened] == ["CdcAcmSerial", "get_serial_port"]
    assert s4a.opened[0][2:] == ((115200, 8, "N", 1), {"timeout": aser.READ_TIMEOUT_S,
                                                       "write_timeout": aser.WRITE_TIMEOUT_S})


# ------------------------------------------------------------------ permission

def test_permission_is_asked_once_per_device_then_a_clear_error_until_granted():
    opener, usb, s4a = _opener([Device("/dev/bus/usb/001/004", PICO)], granted=set())
    with pytest.raises(aser.UsbPermissionError, match="allow the app to use it") as first:
        opener()
    assert "Raspberry Pi Pico" in str(first.value) and "/dev/bus/usb/001/004" in str(first.value)
    with pytest.raises(aser.UsbPermissionError, match="unplug and replug"):
        opener()
    assert usb.requests == ["/dev/bus/usb/001/004"] and s4a.opened == []
    # a replug is a new device name: asked again
    usb.devices = [Device("/dev/bus/usb/001/005", PICO)]
    with pytest.raises(aser.UsbPermissionError, match="allow"):
        opener()
    assert usb.requests == ["/dev/bus/usb/001/004", "/dev/bus/usb/001/005"]
    usb.granted = {"/dev/bus/usb/001/005"}
    assert opener().name == "/dev/bus/usb/001/005"


def test_a_port_the_library_left_closed_is_a_permission_error_and_is_closed():
    class NotOpened(ScriptedPort):
        def __init__(self, *a, **k):
            super().__init__(*a, **k)
            self.is_open = False  # usbserial4a's open() returns early without permission

    opener, usb, s4a = _opener([Device("d", PICO)], port_cls=NotOpened)
    with pytest.raises(aser.UsbPermissionError, match="did not open"):
        opener()
    assert s4a.ports[0].closed == 1


def test_library_and_import_failures_become_android_serial_errors():
    opener, usb, s4a = _opener([Device("d", CP2102)], error=LibSerialException("Init failed! #3"))
    with pytest.raises(aser.AndroidSerialError, match="could not open: Init failed! #3") as exc:
        opener()
    assert isinstance(exc.value, SerialException) and isinstance(exc.value, OSError)
    assert isinstance(exc.value.__cause__, LibSerialException)

    class JavaBroken(FakeUsb):
        def get_usb_device_list(self):
            raise RuntimeError("Could not resolve context")

    broken = aser.AndroidSerialOpener(usb=JavaBroken(), serial4a=FakeSerial4a())
    with pytest.raises(aser.AndroidSerialError, match="Could not resolve context"):
        broken()
    # on the desktop there is no usb4a: a clear error, which BoardConnection shows and retries
    try:
        import usb4a  # noqa: F401
        pytest.skip("usb4a is importable here")
    except ImportError:
        pass
    with pytest.raises(aser.AndroidSerialError, match="usb4a/usbserial4a"):
        aser.AndroidSerialOpener()()
    with pytest.raises(aser.AndroidSerialError, match="not available"):
        aser.find_boards()


# ------------------------------------------------------------------ read/write/close

def test_read_write_close_behave_like_pyserial_for_board_connection():
    opener, usb, s4a = _opener([Device("d", PICO)])
    port = opener()
    lib = s4a.ports[0]
    assert lib.USB_READ_TIMEOUT_MILLIS == aser.USB_READ_TIMEOUT_MS  # 5000 ms cut
    assert type(lib).USB_READ_TIMEOUT_MILLIS == 5000  # on the instance only
    lib.reads = [bytearray(b"\x01\x02"), None, b"", b"abc"]
    assert port.read(4096) == b"\x01\x02" and type(port.read(1)) is bytes
    assert port.read(4096) == b"" and port.read(7) == b"abc"
    assert lib.sizes == [4096, 1, 4096, 7]
    assert port.write(bytearray(b"\x00hello\x00")) == 7 and lib.written == [b"\x00hello\x00"]
    assert type(lib.written[0]) is bytes
    lib.reads = [LibSerialException("Read endpoint does not exist!")]
    with pytest.raises(aser.AndroidSerialError, match="d: read failed: Read endpoint"):
        port.read(10)
    lib.write_error = LibSerialException("Failed to write b'x': -1")
    with pytest.raises(aser.AndroidSerialError, match="write failed: Failed to write"):
        port.write(b"x")
    lib.write_error = None
    lib.is_open = False
    with pytest.raises(aser.AndroidSerialError, match="port not open"):
        port.write(b"x")  # the library would return None and drop the bytes
    lib.close_error = RuntimeError("JavaException")
    port.close()
    port.close()
    assert lib.closed == 1 and not port.is_open
    with pytest.raises(aser.AndroidSerialError):
        port.read(1)
    with pytest.raises(aser.AndroidSerialError):
        port.write(b"x")


def test_a_short_driver_read_timeout_is_kept():
    class Cdc(ScriptedPort):
        USB_READ_TIMEOUT_MILLIS = 1

    opener, usb, s4a = _opener([Device("d", PICO)], port_cls=Cdc)
    opener()
    assert s4a.ports[0].USB_READ_TIMEOUT_MILLIS == 1


def test_an_unplug_is_noticed_while_idle_although_the_driver_reads_no_data():
    now = [100.0]
    opener, usb, s4a = _opener([Device("/dev/bus/usb/001/004", PICO)], clock=lambda: now[0],
                               presence_check_s=1.0)
    port = opener()
    s4a.ports[0].reads = [b""] * 10 + [b"late data"]
    usb.devices = []  # pulled: the driver keeps returning no data
    assert port.read(64) == b""  # checked at most once a second
    now[0] += 0.5
    assert port.read(64) == b""
    now[0] += 0.6
    with pytest.raises(aser.AndroidSerialError, match="unplugged"):
        port.read(64)


# ------------------------------------------------------------------ end to end

class PtyCdcAcm:
    """usbserial4a's CdcAcmSerial semantics over a pty: one 'bulk transfer' waits up to
    USB_READ_TIMEOUT_MILLIS; a failed transfer is 'no data'; read(n) loops until timeout."""

    USB_READ_TIMEOUT_MILLIS = 5000  # the adapter must cut this or reads stall for 5 s
    paths = {}

    def __init__(self, name, baudrate, bytesize, parity, stopbits, timeout=None,
                 write_timeout=None):
        self.timeout = timeout
        self.fd = os.open(self.paths[name], os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        self.is_open = True
        self.buf = bytearray()

    def _read(self):
        try:
            ready, _, _ = select.select([self.fd], [], [], self.USB_READ_TIMEOUT_MILLIS / 1000)
            return os.read(self.fd, 1024) if ready else b""
        except OSError:
            return b""

    def read(self, size=1):
        deadline = time.monotonic() + self.timeout
        while len(self.buf) < size:
            self.buf += self._read()
            if time.monotonic() >= deadline:
                break
        out, self.buf = bytes(self.buf[:size]), self.buf[size:]
        return out

    def write(self, data):
        if not self.is_open:
            return None
        try:
            return os.write(self.fd, data)
        except OSError as exc:
            raise LibSerialException("Failed to write: %s" % exc) from exc

    def close(self):
        if self.is_open:
            self.is_open = False
            os.close(self.fd)


def _wait(conn, events, pred, what, limit=10.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        conn.drain(events.append)
        for ev in events:
            if pred(ev):
                return ev
        time.sleep(0.01)
    raise AssertionError("no %s within %.0f s; events: %s" % (what, limit, [
        e for e in events if e["type"] == "STATE"]))


def test_board_connection_through_the_adapter_carries_the_real_firmware_traffic(tmp_path):
    vb = VirtualBoard(seed=5, flash_dir=str(tmp_path))
    path = vb.start()
    first, second = "/dev/bus/usb/001/004", "/dev/bus/usb/001/005"

    class Port(PtyCdcAcm):
        paths = {first: path, second: path}

    usb = FakeUsb([Device("/dev/bus/usb/001/002", KEYBOARD), Device(first, PICO)])
    s4a = FakeSerial4a(Port)
    conn = aser.board_connection(usb=usb, serial4a=s4a, presence_check_s=0.2)
    assert conn.port_name == "USB"
    conn.start()
    ev = []
    try:
        paired = _wait(conn, ev, lambda e: e.get("state") == "paired", "pairing")
        assert "virtual" in paired["detail"]
        assert conn.opener.device["name"] == first
        assert s4a.ports[0].USB_READ_TIMEOUT_MILLIS == aser.USB_READ_TIMEOUT_MS  # no 5 s stalls
        vb.place("military_might.p1", 2)
        vb.roll(1, value=6)
        tc = _wait(conn, ev, lambda e: e["type"] == "TRACK_CHANGE", "a track change")
        assert (tc["lane_id"], tc["positions"]) == ("military_might.p1", [2])
        dice = _wait(conn, ev, lambda e: e["type"] == "DICE" and e["state"] == "settled", "a die")
        assert dice["value"] == 6
        conn.command(wire.CMD_SELF_TEST)
        _wait(conn, ev, lambda e: e["type"] == "SELF_TEST", "a self-test report")

        # cable out: no bytes either way, and the device leaves Android's list
        vb.unplug()
        usb.devices = [Device("/dev/bus/usb/001/002", KEYBOARD)]
        gone = _wait(conn, ev, lambda e: e.get("state") == "disconnected", "the unplug", 5)
        assert "unplugged" in gone["detail"]
        _wait(conn, ev, lambda e: "no supported board" in e.get("detail", ""), "the rescan", 5)
        # cable back: Android gives it a new name; the opener finds it by VID/PID
        del ev[:]
        vb.replug()
        usb.devices.append(Device(second, PICO))
        # reopened: back to "paired" at once when the link resumes in session, else "searching"
        _wait(conn, ev, lambda e: e.get("state") == "paired"
              or (e.get("state") == "searching" and "opened" in e["detail"]), "the reopen", 5)
        assert conn.opener.device["name"] == second
        vb.place("food.p2", 4)
        tc = _wait(conn, ev, lambda e: e["type"] == "TRACK_CHANGE" and e["lane_id"] == "food.p2",
                   "a track change after the replug")
        assert tc["positions"] == [4]
        assert [p.is_open for p in s4a.ports] == [False, True]  # the old port was closed
    finally:
        conn.stop()
        vb.stop()
    assert vb.error is None


# ------------------------------------------------------------------ packaging files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _spec():
    import configparser
    cp = configparser.ConfigParser(allow_no_value=True, interpolation=None)
    cp.optionxform = str  # buildozer's option names are case-sensitive
    cp.read(os.path.join(ROOT, "buildozer.spec"), encoding="utf-8")
    app = cp["app"]
    return {k: [x.strip() for x in v.split(",")] if v else [] for k, v in app.items()}


def test_device_filter_lists_exactly_the_boards_the_link_layer_knows():
    import xml.etree.ElementTree as ET
    from companion.link.board_link import KNOWN_USB
    root = ET.parse(os.path.join(ROOT, "android", "res", "xml", "device_filter.xml")).getroot()
    entries = {(int(d.get("vendor-id")), int(d.get("product-id")) if d.get("product-id") else None)
               for d in root.iter("usb-device")}
    assert entries == {(0x2E8A, None), (0x303A, None), CP2102, CH340, CH9102}
    for vid, pid in KNOWN_USB:  # every known board starts the app on attach
        assert (vid, None) in entries or (vid, pid) in entries
    for vid, pid in entries:
        assert aser.describe_usb(vid, pid if pid is not None else 0xFFFF)


def test_intent_filter_points_at_the_device_filter_resource():
    import xml.etree.ElementTree as ET
    with open(os.path.join(ROOT, "android", "intent_filters.xml"), encoding="utf-8") as f:
        root = ET.fromstring("<activity xmlns:android='http://schemas.android.com/apk/res/"
                             "android'>%s</activity>" % f.read())
    ns = "{http://schemas.android.com/apk/res/android}"
    actions = [a.get(ns + "name") for a in root.iter("action")]
    meta = root.find("meta-data")
    assert actions == ["android.hardware.usb.action.USB_DEVICE_ATTACHED"]
    assert meta.get(ns + "name") == actions[0] and meta.get(ns + "resource") == "@xml/device_filter"


def test_buildozer_spec_packages_the_app_its_data_and_the_usb_stack():
    spec = _spec()
    reqs = dict(r.partition("==")[::2] for r in spec["requirements"])
    with open(os.path.join(ROOT, "pyproject.toml"), encoding="utf-8") as f:
        pyproject = f.read()
    for name in ("kivy", "pyserial"):  # same pins as the desktop app
        assert '"%s==%s"' % (name, reqs[name]) in pyproject
    assert reqs["usb4a"] == "0.3.0" and reqs["usbserial4a"] == "0.4.0"
    assert {"python3", "sqlite3", "pyjnius"} <= set(reqs)  # sqlite3: the journal
    assert {"landscape", "portrait"} <= set(spec["orientation"])  # a tablet and a phone (issue 39 item 11)
    assert "android.hardware.usb.host" in spec["android.features"]
    assert int(spec["android.minapi"][0]) >= 21 and int(spec["android.api"][0]) >= 33
    for key in ("android.res_xml", "android.manifest.intent_filters"):
        assert os.path.isfile(os.path.join(ROOT, spec[key][0])), key
    src = os.path.join(ROOT, spec["source.dir"][0])
    assert os.path.isfile(os.path.join(src, "main.py"))
    exts = set(spec["source.include_exts"])
    for pkg in ("companion", "protocol", "firmware"):  # the symlinks reach the real packages
        assert os.path.samefile(os.path.join(src, pkg), os.path.join(ROOT, pkg))
    data = [os.path.join("hardware", "sensor_map.json"),
            os.path.join("hardware", "sensor_map_no_resources.json"),
            os.path.join("companion", "gui", "companion.kv"),
            os.path.join("companion", "games", "civmint", "data", "tracks.json"),
            os.path.join("firmware", "profiles", "pico.json")]
    for rel in data:
        assert os.path.isfile(os.path.join(src, rel)), rel
        assert rel.rsplit(".", 1)[1] in exts, rel
    assert spec["source.exclude_patterns"] == ["hardware/*/"]


def test_android_main_keeps_saved_games_in_private_storage_and_starts_the_app(tmp_path):
    import subprocess
    import sys
    code = ("import os, companion.app as a\n"
            "a.main = lambda argv: print('MAIN', argv, os.environ['TABLETOP_COMPANION_DATA'])\n"
            "import runpy; runpy.run_path(%r, run_name='__main__')\n"
            % os.path.join(ROOT, "android", "app", "main.py"))
    env = dict(os.environ, ANDROID_PRIVATE=str(tmp_path))
    env.pop("TABLETOP_COMPANION_DATA", None)
    out = subprocess.run([sys.executable, "-c", code], env=env, cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "MAIN [] %s" % (tmp_path / "tabletop-companion")


def test_is_android_follows_the_variables_python_for_android_sets(monkeypatch):
    for var in ("KIVY_BUILD", "P4A_BOOTSTRAP", "ANDROID_ARGUMENT"):
        monkeypatch.delenv(var, raising=False)
    assert not aser.is_android()
    monkeypatch.setenv("P4A_BOOTSTRAP", "SDL2")
    assert aser.is_android()
