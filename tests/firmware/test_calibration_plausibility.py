"""The board refuses implausible calibration captures (CAL_IMPLAUSIBLE, docs/protocol.md 3.5)."""
import os

from protocol import wire
from firmware import calib
from tests.firmware.harness import Rig


def _cal(r, step, well=0, face=0):
    r.clear()
    r.host.command(wire.CMD_CALIBRATE, {"step": step, "well": well, "face": face})
    r.run_until(lambda: r.of("CAL_STATUS"), 500)
    return r.of("CAL_STATUS")[-1]


def _show(r, well, top):
    # a reading is LED-on minus LED-off, two integrations (~64 ms): 3 stable readings after the
    # tumble take ~300 ms
    r.world.optics[well].roll(r.clock.t, top, 50, False)
    r.tick(500)


def test_a_die_turned_the_wrong_way_is_not_captured(tmp_path):
    r = Rig(tmp_path)
    assert _cal(r, wire.CAL_BEGIN, 0)["status"] == wire.CAL_OK
    _show(r, 0, 6)  # the player left 6 on top while the wizard asks for 2
    st = _cal(r, wire.CAL_CAPTURE, 0, 2)
    assert st["status"] == wire.CAL_IMPLAUSIBLE and st["face"] == 2
    assert calib.check_capture(2, (st["c"], st["r"], st["g"], st["b"])) == 6
    assert r.board.session_cal.captured[1] == 0, "nothing of it was kept"
    _show(r, 0, 2)
    assert _cal(r, wire.CAL_CAPTURE, 0, 2)["status"] == wire.CAL_OK


def test_a_save_with_two_faces_alike_is_refused_and_the_session_stays_open(tmp_path):
    r = Rig(tmp_path)
    assert _cal(r, wire.CAL_BEGIN, 1)["status"] == wire.CAL_OK
    for face in range(1, 7):
        _show(r, 1, face)
        assert _cal(r, wire.CAL_CAPTURE, 1, face)["status"] == wire.CAL_OK
    # a session whose face 4 centroid equals face 3's (as if captured under a lamp that hid the
    # difference) cannot be saved
    r.board.session_cal.faces[3] = list(r.board.session_cal.faces[2])
    st = _cal(r, wire.CAL_SAVE, 1)
    assert st["status"] == wire.CAL_IMPLAUSIBLE and (st["face"], st["c"]) == (3, 4) and st["r"] < calib.MIN_FACE_GAP
    assert r.board.session_cal.active()
    assert not os.path.exists(os.path.join(str(tmp_path), "calibration.json"))
    _show(r, 1, 4)
    assert _cal(r, wire.CAL_CAPTURE, 1, 4)["status"] == wire.CAL_OK
    assert _cal(r, wire.CAL_SAVE, 1)["status"] == wire.CAL_OK
    assert os.path.exists(os.path.join(str(tmp_path), "calibration.json"))
