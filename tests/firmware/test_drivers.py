"""Drivers against the simulated chips; calibration store; default centroids."""
import os
import random

import pytest

from firmware import calib
from firmware.hc165 import ShiftChain, chain_length
from firmware.sim import optics
from firmware.sim.machine import SimMachine
from firmware.sim.world import World
from firmware.tcs34725 import TCS34725, SensorIdError
from tests.firmware.harness import Clock, load_map, load_profile


@pytest.fixture
def hw():
    clock = Clock()
    smap = load_map()
    prof = load_profile("pico")
    world = World(smap, prof, clock, random.Random(2), spare_level=1)
    return clock, smap, prof, world, SimMachine(world)


def _chain(m, prof, smap, phase=0, polarity=1):
    sp = prof["spi"]
    spi = m.SPI(sp["id"], baudrate=1000000, polarity=polarity, phase=phase, firstbit=m.SPI.MSB)
    return ShiftChain(spi, m.Pin(prof["load_pin"], m.Pin.OUT, value=1), smap.chain_registers)


def test_chain_reads_bits_where_the_map_says(hw):
    clock, smap, prof, world, m = hw
    k = smap.lane_index("stone.p2")
    world.tokens[k] = {0, 10}
    buf = _chain(m, prof, smap).read()
    for i, b in enumerate(smap.lane_bits(k)):
        occupied = not buf[b >> 3] & (0x80 >> (b & 7))
        assert occupied == (i in (0, 10))
    assert buf[smap.chain_registers] == 0  # tail byte
    assert chain_length(_chain(m, prof, smap).read_full(), smap.chain_registers + 4, 0) == smap.chain_registers == 40


def test_wrong_spi_mode_loses_the_first_bit(hw):
    clock, smap, prof, world, m = hw
    world.tokens[0] = {0}  # chain bit 0 = register 0 input H, the first bit out
    good = bytes(_chain(m, prof, smap).read())
    bad = bytes(_chain(m, prof, smap, phase=1).read())
    assert not good[0] & 0x80 and bad[0] & 0x80 and good != bad


def test_tcs34725_init_avalid_and_burst(hw):
    clock, smap, prof, world, m = hw
    i2c = m.I2C(0)
    s = TCS34725(i2c)
    s.init()
    sim = world.sensors[0]
    assert (sim.regs[0x00], sim.regs[0x01], sim.regs[0x0F]) == (0x03, 0xF6, 0x01)
    assert s.config() == (0x03, 0xF6, 0x01)
    assert s.read() is False  # nothing integrated yet: AVALID 0
    clock.t += 27
    assert s.read() is True
    assert [s.c, s.r, s.g, s.b] == sim.data
    world.optics[0].roll(clock.t - 1000, 6, 0, False)
    clock.t += 25
    assert s.read() and s.c > 1000


def test_tcs34725_missing_and_wrong_id(hw):
    clock, smap, prof, world, m = hw
    world.sensors[1].chip_id = 0x60
    with pytest.raises(SensorIdError):
        TCS34725(m.I2C(1)).init()
    world.sensors[0].present = False
    with pytest.raises(OSError):
        TCS34725(m.I2C(0)).init()


def test_default_centroids_match_the_optical_model():
    assert [tuple(f) for f in calib.DEFAULT_FACES] == optics.default_faces()


def test_calibration_store_round_trip_corruption_and_tmp_fallback(tmp_path):
    path = str(tmp_path / "calibration.json")
    st = calib.Store(path, 2)
    assert not st.load() and st.defaults_in_use and st.problem == "no calibration file"
    wells = calib.defaults(2)
    wells[1][2] = [1234, 100, 200, 300]
    assert st.save(wells, [[0] * 6, [0, 0, 1, 0, 0, 0]])
    assert not os.path.exists(path + ".tmp")
    st2 = calib.Store(path, 2)
    assert st2.load() and st2.wells[1][2] == [1234, 100, 200, 300]
    with open(path, "w") as f:
        f.write("{garbage")
    st3 = calib.Store(path, 2)
    assert not st3.load() and st3.defaults_in_use and "calibration.json" in st3.problem
    # an interrupted save on a filesystem whose rename refuses a target: only .tmp is left
    os.remove(path)
    with open(path + ".tmp", "w") as f:
        f.write(calib.dumps(wells, [[0] * 6, [1] * 6]))
    st4 = calib.Store(path, 2)
    assert st4.load() and st4.captured[1] == [1] * 6
    assert calib.Store(path, 3).load() is False  # another number of wells
