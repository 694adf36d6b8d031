"""The token magnet against the hall switch (issue 17 item 4): the field of the chosen magnet at
the trip and lift distances, computed with the on-axis formula of a cylinder magnet, against the
switch's operate and release points; the off-axis field (two charged discs) agrees with the
formula on the axis; the debounce windows are longer than the switch's update period; the
bring-up guide quotes exactly these figures."""
import importlib.util
import os

import pytest

from hwcommon import FW, HW, design


def B(br, d, h, z):
    return design.field_on_axis(br, d, h, z) * 1000  # mT


def test_on_axis_formula_matches_known_values():
    # far away a cylinder is a dipole: B = mu0 m / (2 pi r^3), m = Br V / mu0
    import math
    br, d, h = 1.2, 3.0, 1.0
    z = 60.0
    r = z + h / 2.0
    dipole = br * math.pi * (d / 2) ** 2 * h / (2 * math.pi * r ** 3) * 1000
    assert B(br, d, h, z) == pytest.approx(dipole, rel=0.01)
    # at the face of a long magnet the field tends to Br/2
    assert B(1.2, 3.0, 300.0, 0.0) == pytest.approx(600.0, rel=0.01)


@pytest.mark.parametrize("z", [1.0, 3.2, 6.0, 10.0])
def test_off_axis_field_equals_the_formula_on_the_axis(z):
    m = design.MAGNET
    assert design.field_off_axis(m["br_min_t"], m["d_mm"], m["h_mm"], z, 0.0) * 1000 == \
        pytest.approx(B(m["br_min_t"], m["d_mm"], m["h_mm"], z), rel=1e-3)


def test_the_magnet_trips_the_switch_through_the_card():
    h, m = design.HALL, design.MAGNET
    z = design.trip_distance_mm()
    assert z == pytest.approx(design.CARD_MM + design.PCB_MM + design.HALL_DEPTH_MM)
    # weakest magnet of the grade, worst-case switch, token set down off centre: still trips
    b_off = design.field_off_axis(m["br_min_t"], m["d_mm"], m["h_mm"], z, design.TOKEN_PLAY_MM) * 1000
    assert b_off >= design.TRIP_MARGIN * h["bop_max_mt"]
    assert B(m["br_min_t"], m["d_mm"], m["h_mm"], z) > b_off


def test_the_switch_releases_when_the_token_is_lifted_a_few_millimetres():
    h, m = design.HALL, design.MAGNET
    z = design.trip_distance_mm()
    # strongest magnet of the grade: below the typical release point at the lift the guide tests
    assert B(m["br_max_t"], m["d_mm"], m["h_mm"], z + design.LIFT_CLAIM_MM) < h["brp_typ_mt"]
    f = design.magnet_figures()
    assert f["lift_typ_mm"] <= design.LIFT_CLAIM_MM < f["lift_worst_mm"] <= 8.0
    # the old 5 x 2 mm magnet held the switch on far beyond a few millimetres
    assert B(m["br_max_t"], 5.0, 2.0, z + design.LIFT_CLAIM_MM) > 3 * h["brp_typ_mt"]


def test_the_next_space_never_trips():
    f = design.magnet_figures()
    assert f["b_neighbour_mt"] < design.HALL["brp_min_mt"] / 2


def test_debounce_is_longer_than_the_switch_update_period():
    spec = importlib.util.spec_from_file_location("_mag_tracks", os.path.join(FW, "tracks.py"))
    tracks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tracks)
    period = design.HALL["period_max_ms"]
    assert tracks.HALL_PERIOD_MS >= period
    scan_ms = 5

    class Map:  # the smallest map the scanner takes: one lane of one register
        n_lanes = 1
        chain_registers = 1
        lane_byte = [bytes([0, 0, 0])]
        lane_mask = [bytes([0x80, 0x40, 0x20])]
        tail_level = 0
        spare_level = 1
        spare_bits = (3, 4, 5, 6, 7)
    sc = tracks.TrackScanner(Map(), 4, 60000, None, scan_ms, tracks.HALL_PERIOD_MS)
    assert (sc.hold_scans - 1) * scan_ms > period  # consecutive agreeing scans span > a period


def test_bringup_quotes_the_computed_figures():
    text = open(os.path.join(HW, "docs", "bringup.md")).read()
    f = design.magnet_figures()
    for key in ("b_trip_mt", "b_trip_off_centre_mt", "b_lift_claim_mt"):
        assert "%.1f mT" % f[key] in text, key
    assert "%.1f mm up" % f["lift_typ_mm"] in text and "%.1f mm" % f["lift_worst_mm"] in text
    assert "lift it straight up\n      %g mm" % design.LIFT_CLAIM_MM in text.replace("Lift it straight up", "lift it straight up")
    assert "5 x 2 mm" not in text
    # says plainly where the switch's figures come from, or that they are assumed
    if design.HALL["verified"]:
        assert design.HALL["source"].split(" (")[0] in text and "no maximum is quoted" in text
    else:
        assert "NOT yet checked against the datasheet" in text
