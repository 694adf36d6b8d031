"""Calibration store and session with the empty-well reference (firmware/calib.py): the file
keeps it, an old file without it loads with the default, a bad one is refused, the live mean the
Well keeps stays bound to the classifier across saves and reloads, and a session begun without a
live reading keeps the previous reference."""
import json
import os

import pytest

from firmware import calib, dice


def test_file_round_trip_keeps_the_empty_reference(tmp_path):
    path = str(tmp_path / "calibration.json")
    st = calib.Store(path, 2)
    wells = calib.defaults(2)
    wells[1][6] = [600, 180, 200, 220]
    assert st.save(wells, [[0] * 6, [1] * 6])
    doc = json.load(open(path))
    assert doc["wells"][1]["empty"] == [600, 180, 200, 220]
    assert doc["wells"][0]["empty"] == list(calib.DEFAULT_EMPTY)
    st2 = calib.Store(path, 2)
    assert st2.load() and st2.wells[1][6] == [600, 180, 200, 220]
    assert len(st2.wells[1]) == 8 and st2.wells[1][7] is st2.live[1]


def test_an_old_file_without_empty_loads_with_the_default(tmp_path):
    path = str(tmp_path / "calibration.json")
    doc = json.loads(calib.dumps(calib.defaults(2), [[0] * 6] * 2))
    for w in doc["wells"]:
        del w["empty"]
    open(path, "w").write(json.dumps(doc))
    st = calib.Store(path, 2)
    assert st.load() and st.wells[0][6] == list(calib.DEFAULT_EMPTY)


@pytest.mark.parametrize("bad", [[1, 2, 3], [-1, 0, 0, 0], [70000, 0, 0, 0], "x"])
def test_a_bad_empty_reference_is_refused(tmp_path, bad):
    doc = json.loads(calib.dumps(calib.defaults(1), [[0] * 6]))
    doc["wells"][0]["empty"] = bad
    with pytest.raises(ValueError):
        calib.parse(json.dumps(doc), 1)


def test_the_live_mean_stays_bound_across_saves(tmp_path):
    st = calib.Store(str(tmp_path / "calibration.json"), 1)
    cl = dice.Classifier(st.wells[0])
    w = dice.Well(cl)
    for _ in range(5):
        w.sample(40, 12, 12, 12)
    assert st.live[0][4] == 5 and cl.live is st.live[0]
    assert st.save(calib.defaults(1), [[0] * 6])
    cl.set(st.wells[0])
    assert cl.live is st.live[0] and st.live[0][:4] == [40, 12, 12, 12]
    assert st.load()
    assert st.wells[0][7] is st.live[0]


def test_a_session_without_a_live_reading_keeps_the_reference():
    st = calib.Store("/nonexistent/calibration.json", 1)
    st.wells[0][6] = [500, 150, 170, 180]
    ses = calib.Session(st)
    ses.begin(0)
    assert ses.empty_captured == 0 and ses.faces[6] == [500, 150, 170, 180]
    st.live[0][:] = [55, 16, 17, 18, calib.LIVE_MIN]
    ses.begin(0)
    assert ses.empty_captured == 1 and ses.faces[6] == [55, 16, 17, 18]
    assert calib.check_faces(ses.faces) is None  # the reference is not a seventh face


def test_a_reference_brighter_than_a_face_is_not_used():
    faces = calib.defaults(1)[0]
    faces[6] = [5000, 1000, 1000, 1000]  # brighter than the dimmest face (1032)
    cl = dice.Classifier(faces)
    assert cl.empty_c == -1 and cl.dark_c == dice.DARK_C


def test_the_live_mean_holds_only_the_readings_since_the_well_was_emptied():
    st = calib.Store("/nonexistent/calibration.json", 1)
    cl = dice.Classifier(st.wells[0])
    w = dice.Well(cl)
    for _ in range(10):
        w.sample(40, 12, 12, 12)      # empty
    for _ in range(10):
        w.sample(3000, 200, 900, 300)  # steady, like no face: CROOKED (a die on its edge, or an
    assert w.state == dice.CROOKED     # empty well brighter than the threshold): the live mean
    assert st.live[0] == [3000, 200, 900, 300, 7]  # follows it from the new roll on
    for _ in range(4):
        w.sample(45, 13, 13, 13)      # taken out: the mean is the empty well's again
    assert st.live[0][:5] == [45, 13, 13, 13, 4]
