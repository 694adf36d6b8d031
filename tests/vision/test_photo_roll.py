"""A photo is another dice source through the same binding (companion/table/photo_roll.py): the
awaited roll from a real reading of a real photo, a plain refusal when the count differs (and
nothing recorded), the journal's `camera` source and the confidence kept beside the entry."""
import os
import sqlite3
import subprocess
import sys

import cv2
import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(__file__))

import dice_scenes as ds  # noqa: E402
from companion.controller import GameController  # noqa: E402
from companion.engine.session import Session  # noqa: E402
from companion.games.civmint.sensing import SENSING  # noqa: E402
from companion.store.journal import Journal  # noqa: E402
from companion.table.dice_photo import DiceReading, draw_reading, read_dice  # noqa: E402
from companion.table.photo_roll import field_names, roll_from_photo  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def photo_of(n, seed=0):
    """A standard photo of exactly n dice that the reader reads right (the first such seed)."""
    for s in range(seed, seed + 60):
        sc = ds.make_scene(s, "standard", n_dice=n, size=(960, 540))
        r = read_dice(sc.jpeg)
        if r.ok and sorted(r.values) == sorted(sc.values):
            return sc, r
    raise AssertionError(f"no readable photo of {n} dice")


def event_request():
    roll = SENSING.roll_for("roll_event")
    return {"action": roll.action, "roll": roll.name, "count": roll.dice, "spec": roll, "kind": "dice", "who": None}


def test_asked_for_2_dice_the_photo_shows_3_nothing_recorded():
    _, r = photo_of(3)
    got = roll_from_photo(r, event_request())
    assert got.action is None and got.sensed is None
    assert got.refusal.startswith("Event roll asks for 2 dice, the photo shows 3: nothing recorded.")


def test_two_dice_fill_the_event_roll():
    _, r = photo_of(2)
    got = roll_from_photo(r, event_request())
    assert got.refusal == ""
    assert got.action == {"type": "roll_event", "dice": list(r.values)}
    assert got.sensed["confidence"] == pytest.approx(r.confidence, abs=1e-3)
    assert [d["value"] for d in got.sensed["dice"]] == r.values
    assert not any(d["corrected"] for d in got.sensed["dice"])


def test_a_correction_by_tap_fills_the_roll_and_is_noted():
    _, r = photo_of(2)
    other = 7 - r.values[1]
    got = roll_from_photo(r, event_request(), values=[None, other])
    assert got.action["dice"] == [r.values[0], other]
    assert got.sensed["dice"][1]["corrected"] and got.sensed["dice"][1]["read"] == r.values[1]
    assert got.sensed["confidence"] == got.sensed["dice"][0]["confidence"]  # only the die kept
    assert roll_from_photo(r, event_request(), values=[None, 9]).action is None
    assert roll_from_photo(r, event_request(), values=[None]).action is None


def test_refusals_in_words():
    _, r = photo_of(1)
    assert roll_from_photo(r, None).refusal == "No dice roll is awaited now: nothing recorded."
    draw = {"action": "draw", "roll": "Event card", "count": 0, "spec": None, "kind": "draw"}
    assert "drawn at the table" in roll_from_photo(r, draw).refusal
    dark = read_dice(np.full((400, 600, 3), 5, np.uint8))
    got = roll_from_photo(dark, event_request())
    assert got.action is None and got.refusal.startswith("The photo is too dark")
    unread = DiceReading(dice=(r.dice[0].__class__(None, (1, 1), ((0, 0),) * 4, 0.0, "Glare on a die: tilt the phone."),
                               r.dice[0]))
    got = roll_from_photo(unread, event_request())
    assert got.action is None and got.refusal.startswith("Glare on a die: tilt the phone. Tap it")
    # ... and the table sets the unread die with a tap
    got = roll_from_photo(unread, event_request(), values=[4, None])
    assert got.action == {"type": "roll_event", "dice": [4, r.dice[0].value]}


def test_field_names_for_the_confirm_screen():
    combat = SENSING.roll_for("roll_combat")
    assert field_names({"spec": combat}) == ["attacker", "defender"]
    assert field_names(event_request()) == []


def test_a_photo_roll_is_journaled_with_source_camera_and_its_confidence(tmp_path):
    c = GameController.new(tmp_path, seed=1, game="civmint")
    req = c.dice_request()
    assert req["action"] == "roll_first_player"
    _, two = photo_of(2)
    refused = roll_from_photo(two, req)
    assert refused.action is None and "asks for 1 die, the photo shows 2" in refused.refusal
    assert len(c.journal) == 0  # nothing recorded
    _, one = photo_of(1)
    got = roll_from_photo(one, req)
    c.dispatch(got.action, "camera", sensed=got.sensed)
    path = c.path
    c.close()
    with Journal.open(path) as j:
        (e,) = j.actions()
        assert e.source == "camera" and e.action == got.action
        assert j.sensed() == {e.seq: got.sensed}
    # the save resumes exactly; the detail is never part of the replayed action
    s = Session.resume(path)
    assert s.history[0][1] == "camera"
    s.close()
    # a tampered detail is left out, never trusted (the entry stands)
    con = sqlite3.connect(path)
    con.execute("DROP TRIGGER sensed_no_update")
    con.execute("UPDATE sensed SET detail = '{\"confidence\": 1.0}'")
    con.commit()
    con.close()
    with Journal.open(path) as j:
        assert j.sensed() == {} and j.actions()[0].source == "camera"


def test_journal_refuses_a_sensed_detail_that_is_not_json(tmp_path):
    with Journal.create(tmp_path / "g.journal", "civmint", {}, "t") as j:
        with pytest.raises(ValueError):
            j.append({"type": "roll_event", "dice": [1, 2]}, "camera", sensed={"x": float("nan")})
        with pytest.raises(ValueError):
            j.append({"type": "roll_event", "dice": [1, 2]}, "camera", sensed=[1])
        assert len(j) == 0 and j.sensed() == {}
        with pytest.raises(ValueError):
            j.append({"type": "roll_event", "dice": [1, 2]}, "webcam")


def test_draw_reading_marks_each_die():
    sc, r = photo_of(2)
    png = draw_reading(sc.jpeg, r, max_side=640)
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_COLOR)
    assert img.shape[1] == 640
    assert draw_reading(b"not an image", r) is None


def test_cli_reads_image_files(tmp_path):
    sc, r = photo_of(2)
    photo = tmp_path / "roll.jpg"
    photo.write_bytes(sc.jpeg)
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not a photo at all, just words")
    out = subprocess.run([sys.executable, "-m", "companion.app", "read-dice", str(photo), str(junk),
                          "--draw", str(tmp_path / "drawn.png")], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith(f"{photo}: {' '.join(map(str, r.values))} (confidence")
    assert lines[1] == f"{junk}: not read: This file is not a photo the app can read (JPEG or PNG)."
    assert (tmp_path / "drawn.png").stat().st_size > 1000


def test_android_build_asks_for_opencv_and_numpy():
    import configparser
    cp = configparser.ConfigParser(interpolation=None)
    cp.read(os.path.join(ROOT, "buildozer.spec"), encoding="utf-8")
    reqs = [r.partition("==")[0] for r in cp["app"]["requirements"].split(",")]
    assert "opencv" in reqs and "numpy" in reqs
