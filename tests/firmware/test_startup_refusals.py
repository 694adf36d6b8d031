"""Bad input at start-up (issue 19): a board profile naming a pin the port lacks, or a sensor
map too large for the board's memory, is refused with a boot self-test fault that names it -
the board still pairs and reports, never a traceback - and main.py refuses a map file too
large to read with a plain message instead of running out of memory."""
import os
import sys
import types

import pytest

from companion.link.board_link import TableMirror
from firmware import board as board_mod
from protocol import wire
from tests.firmware import harness
from tests.firmware.harness import Rig


def boot_faults(r):
    assert r.run_until(lambda: r.of("SELF_TEST"), 500)
    st = r.of("SELF_TEST")[0]
    assert st["trigger"] == wire.TEST_AT_BOOT
    return [tuple(f) for f in st["faults"]]


def rig_with(tmp_path, monkeypatch, name, edit):
    prof = harness.load_profile(name)
    edit(prof)
    monkeypatch.setattr(harness, "load_profile", lambda n="pico": prof)
    return Rig(tmp_path, profile=name)


def test_load_pin_the_pico_lacks_is_a_boot_fault_and_the_rest_runs(tmp_path, monkeypatch):
    r = rig_with(tmp_path, monkeypatch, "pico", lambda p: p.__setitem__("load_pin", 40))
    f = boot_faults(r)
    assert (wire.FAULT_PROFILE_PIN, 40, wire.PIN_LOAD) in f
    assert r.board.chain is None and r.board.scanner is None
    assert r.of("SNAPSHOT")[-1]["lanes"] == [0] * r.smap.n_lanes
    r.world.tokens[0] = {2}
    r.tick(300)
    assert not r.of("TRACK_CHANGE")  # no chain: nothing guessed
    r.world.optics[1].roll(r.clock.t, 4, 200, False)  # the dice wells still work
    assert r.run_until(lambda: any(m["state"] == wire.DICE_SETTLED for m in r.of("DICE")), 2000)
    words = TableMirror(r.smap).apply(r.of("SELF_TEST")[0])
    pin = [x for x in words["faults"] if x["code"] == wire.FAULT_PROFILE_PIN][0]
    assert pin["where"] == "profile load_pin: pin 40"


def test_esp32_led_on_an_input_only_pin_and_i2c_pin_not_a_number(tmp_path, monkeypatch):
    def edit(p):
        p["led"]["pin"] = 35  # GPIO34-39 are inputs only on the ESP32
        p["i2c"][1]["sda"] = "GPIO25"
    r = rig_with(tmp_path, monkeypatch, "esp32", edit)
    f = boot_faults(r)
    assert (wire.FAULT_PROFILE_PIN, 35, wire.PIN_LED) in f
    assert (wire.FAULT_PROFILE_PIN, 0xFFFF, wire.PIN_I2C_SDA) in f
    assert r.board.led is None
    bus1 = [w for w in range(r.smap.n_wells) if r.smap.well_buses[w] == 1]
    assert bus1 and all(r.board.sensors[w] is None for w in bus1)
    assert not [x for x in f if x[0] in (wire.FAULT_SENSOR_MISSING, wire.FAULT_SENSOR_ID)
                and x[1] in bus1]  # the profile fault says it; no second, misleading one
    r.clear()
    r.tick(2500)
    assert not r.of("SELF_TEST")  # a config fault is not retried into a report every second
    assert r.board.chain is not None  # the chain's pins are fine: lanes still scanned


def test_map_too_large_for_the_heap_is_a_boot_fault(tmp_path, monkeypatch):
    monkeypatch.setattr(board_mod, "mem_free", lambda: 20000)
    r = Rig(tmp_path)
    f = boot_faults(r)
    need = board_mod.map_heap_bytes(r.smap)
    assert need + board_mod.HEAP_RESERVE > 20000
    assert (wire.FAULT_MAP_TOO_LARGE, need // 1024, 20000 // 1024) in f
    assert r.board.scanner is None
    assert "KB" in wire.fault_where(wire.FAULT_MAP_TOO_LARGE, need // 1024, 19)


@pytest.fixture
def main_mod(monkeypatch):
    monkeypatch.setitem(sys.modules, "machine", types.SimpleNamespace())
    sys.modules.pop("firmware.main", None)
    import firmware.main as m
    yield m
    sys.modules.pop("firmware.main", None)


def test_main_refuses_a_map_file_too_large_to_read(main_mod, monkeypatch, tmp_path):
    import gc
    p = tmp_path / "sensor_map.json"
    p.write_bytes(open(harness.MAP_PATH, "rb").read())
    monkeypatch.setattr(gc, "mem_free", lambda: 1000, raising=False)
    smap, why = main_mod._load_map(str(p))
    assert smap is None and "too large for this board's memory" in why
    monkeypatch.setattr(gc, "mem_free", lambda: 10 ** 7, raising=False)
    smap, why = main_mod._load_map(str(p))
    assert why is None and smap.n_lanes == 28
    p.write_text('{"format": 1}')
    smap, why = main_mod._load_map(str(p))
    assert smap is None and "refused" in why
    smap, why = main_mod._load_map(str(tmp_path / "missing.json"))
    assert smap is None and "no sensor map" in why
