"""Board screen in the real app (one Kivy window per scenario, on the virtual board: the real
firmware on simulated chips behind a real pty, through the real link layer)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gui_process import run_scenario  # noqa: E402

pytestmark = pytest.mark.timeout(180)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
NO_RES = os.path.join(ROOT, "hardware", "sensor_map_no_resources.json")


def _open_board_screen(app, drv):
    drv.press(app.root.get_screen("home").ids.board_status)
    scr = app.root.get_screen("board")
    assert app.root.current == "board"
    return scr


def _paired(app, drv, scr, seconds=15):
    drv.wait_for(lambda: app.board.status()["state"] == "paired" and app.board.wells(), seconds,
                 "the virtual board to pair and report its table")
    drv.pump(2)
    assert scr.paired


def _tab(drv, scr, name):
    drv.press(scr.ids["tab_" + name])
    assert scr.view == name and scr.ids.views.current == name


def _port_row(drv, scr, choice):
    rows = [w for w in scr.ids.port_list.children if w.choice == choice]
    assert len(rows) == 1, [w.choice for w in scr.ids.port_list.children]
    return rows[0]


# ------------------------------------------------------------------ scenarios
def scenario_versions_and_virtual_controls(app, drv):
    from companion.controller import GameController
    from firmware import sensormap
    from companion.link.board_link import DEFAULT_MAP

    smap = sensormap.load(DEFAULT_MAP)
    scr = _open_board_screen(app, drv)
    _paired(app, drv, scr)
    assert app.board.mode == "virtual" and scr.virtual_mode
    assert "Virtual board" in scr.summary_text and "paired" in scr.summary_text
    v = scr.versions_text
    assert "Firmware / app version: board 0.1.0, app 0.1.0" in v
    assert "Protocol version: board 2, app 2" in v
    assert "Sensor map: board %s, app %s" % (smap.hash_hex, smap.hash_hex) in v
    assert "profile virtual" in v and scr.problem_text == "" and scr.ids.use_virtual.height == 0
    assert _port_row(drv, scr, "virtual").state == "down" or _port_row(drv, scr, "auto").state == "down"
    drv.shot("board-connection")
    drv.press(scr.ids.identify)
    assert "blinks" in scr.message
    drv.wait_for(lambda: app.board.virtual.call(lambda b: b.identify_until is not None), 3,
                 "the board to blink")

    _tab(drv, scr, "virtual")
    ids = scr.ids
    # the exact controls name lanes as the table knows them, never by id
    assert "food.p1" not in scr.v_lane_ids and "Food (seat 1)" in scr.v_lane_ids
    ids.v_lane.text = scr.lane_words("food.p1")
    drv.pump(1)
    assert scr.v_spaces == [str(i) for i in range(16)]
    ids.v_space.text = "2"
    drv.press(ids.v_place)
    drv.wait_for(lambda: app.board.lanes().get("food.p1") == 2, 5, "the placed token through the link")
    drv.press(ids.v_remove)
    drv.wait_for(lambda: app.board.sensed_positions().get("food.p1") == [], 5, "the token taken off")
    drv.pump(1)
    assert "Food (seat 1): no token" in scr.v_sensed_text
    ids.v_lane.text = "Military might (seat 2)"
    drv.pump(1)
    assert scr.v_spaces == [str(i) for i in range(6)]
    ids.v_space.text = "3"
    drv.press(ids.v_place)
    drv.wait_for(lambda: app.board.lanes().get("military_might.p2") == 3, 5, "the placed token")
    drv.pump(1)
    assert "Military might (seat 2): space 3: level 4" in scr.v_sensed_text
    ids.v_to.text = "5"
    drv.press(ids.v_move)
    drv.wait_for(lambda: app.board.lanes().get("military_might.p2") == 5, 5, "the slid token")
    rows = sorted(ids.v_wells.children, key=lambda r: r.index)
    assert [r.well_id for r in rows] == list(smap.well_ids)
    rows[1].ids.value.text = "4"
    drv.press(rows[1].ids.roll)
    drv.wait_for(lambda: app.board.wells().get("well1") == ("settled", 4), 5, "the die through the link")
    drv.pump(1)
    assert rows[1].sensed == "settled 4"
    drv.press(rows[0].ids.crooked)
    drv.wait_for(lambda: app.board.wells().get("well0", ("",))[0] == "crooked", 5, "a crooked die")
    drv.pump(1)
    assert "roll again" in rows[0].sensed
    drv.shot("board-virtual")

    # unplug: the app loses the link; what happens meanwhile arrives after plugging back in
    drv.press(ids.v_unplug)
    drv.wait_for(lambda: app.board.status()["state"] == "searching", 6, "the link timeout")
    drv.pump(1)
    assert "searching" in scr.summary_text and not scr.paired and "unplugged" in scr.v_cable_text
    drv.press(rows[1].ids.take_out)
    drv.press(ids.v_replug)
    drv.wait_for(lambda: app.board.status()["state"] == "paired"
                 and app.board.wells().get("well1", ("",))[0] == "removed", 8, "re-pairing")
    drv.pump(1)
    assert rows[1].sensed == "die taken out" and "plugged in" in scr.v_cable_text

    # the sensed table against a game (military might p2 sits on 5 = level 6)
    ctrl = GameController.new(app.games_dir, ("Ada", "Bo"), ("red", "yellow"), seed=4)
    path = ctrl.path
    ctrl.close()
    assert app.resume_game(path)
    drv.press(app.root.get_screen("home").ids.board_status) if app.root.current == "home" else app.go("board")
    drv.pump(2)
    assert app.root.current == "board"
    _tab(drv, scr, "table")
    want = app.ctrl.state.players["p2"].asp["military_might"]
    assert want != 6
    assert "1 lane(s) differ from the game" in scr.lanes_text
    assert "Bo - Military Might: table 6, game %d" % want in scr.lanes_text  # the game's counter, by player
    assert "well 2: die taken out" in scr.lanes_text
    cells = [w.text for w in reversed(scr.ids.table_grid.children)]
    assert cells[:3] == ["[b]Track[/b]", "[b]Ada[/b]", "[b]Bo[/b]"]
    row = cells.index("Military Might")
    assert cells[row + 2] == "[color=ffcc66]level 6  (game level %d)[/color]" % want
    assert cells[row + 1].startswith("[color=777777]no token[/color]")
    delivered = app.board.counters()["rx_delivered"]
    drv.press(scr.ids.snapshot)
    assert "fresh snapshot" in scr.message
    drv.wait_for(lambda: app.board.counters()["rx_delivered"] > delivered, 3, "the snapshot")
    drv.shot("board-table")


def scenario_selftest_and_calibration(app, drv):
    scr = _open_board_screen(app, drv)
    _paired(app, drv, scr)
    ids = scr.ids
    vb = app.board.virtual

    _tab(drv, scr, "selftest")
    drv.press(ids.run_selftest)
    drv.wait_for(lambda: "on request" in scr.selftest_text, 5, "the self-test answer")
    assert "calibration defaults in use" in scr.selftest_text  # a fresh board's flash

    # the wizard, driven by the on-screen virtual dice
    _tab(drv, scr, "calibrate")
    cal_rows = sorted(ids.cal_wells.children, key=lambda r: r.index)
    assert [r.text for r in cal_rows] == ["Well 1", "Well 2"]
    drv.press(cal_rows[1])
    assert scr.cal_well == 1 and [r.state for r in cal_rows] == ["normal", "down"]
    drv.press(ids.cal_primary)  # Start
    assert scr.wizard.phase == "empty" and "Take any die out of well 2" in scr.cal_text
    drv.press(ids.cal_primary)  # the well is empty: BEGIN
    drv.wait_for(lambda: scr.wizard.phase == "face", 5, "BEGIN answered")
    drv.pump(1)
    assert scr.cal_primary_text == "Capture" and "with 1 on top" in scr.cal_text
    drv.shot("board-calibrate")
    well_row = [r for r in ids.v_wells.children if r.index == 1][0]
    for face in range(1, 7):
        well_row.ids.value.text = str(face)
        _tab(drv, scr, "virtual")
        drv.press(well_row.ids.roll)
        _tab(drv, scr, "calibrate")
        drv.wait_for(lambda: app.board.wells().get("well1") == ("settled", face), 5, "face %d settled" % face)
        drv.pump(1)
        assert "well 2: settled %d" % face in scr.cal_well_text
        drv.press(ids.cal_primary)  # Capture
        drv.wait_for(lambda: scr.wizard.waiting is None, 5, "capture %d answered" % face)
        drv.pump(1)
        assert face in scr.wizard.captured, scr.cal_text
        assert abs(ids.cal_progress.value - face / 6) < 1e-6
    assert scr.cal_primary_text == "Save" and ids.cal_cancel.disabled is False
    drv.press(ids.cal_primary)  # Save
    drv.wait_for(lambda: scr.wizard.phase == "done", 5, "SAVE answered")
    drv.pump(1)
    assert "Calibration of well 2 saved" in scr.cal_text and ids.cal_cancel.disabled
    assert "Face 6: clear" in scr.cal_captured_text
    drv.shot("board-calibrate-done")

    # again, cancelled at the first face: the board drops its session, the saved one stays
    drv.press(ids.cal_primary)
    drv.press(ids.cal_primary)  # the die from face 6 is still in the well
    assert scr.wizard.phase == "empty" and "still sees something in well 2 (settled)" in scr.cal_text
    drv.press(well_row.ids.take_out)
    drv.wait_for(lambda: app.board.wells().get("well1", ("",))[0] == "removed", 5, "the die out")
    drv.press(ids.cal_primary)
    drv.wait_for(lambda: scr.wizard.phase == "face", 5, "BEGIN answered")
    drv.press(ids.cal_cancel)
    drv.wait_for(lambda: scr.wizard.waiting is None, 5, "CANCEL answered")
    assert scr.wizard.phase == "cancelled" and "cancelled" in scr.cal_text
    assert not vb.call(lambda b: b.session_cal.active())
    assert vb.call(lambda b: b.store.captured[1]) == [1] * 6

    # calibrated: clean self-test; then a stuck spare input and an unplugged sensor
    _tab(drv, scr, "selftest")
    drv.press(ids.run_selftest)
    drv.wait_for(lambda: "No faults." in scr.selftest_text, 5, "a clean self-test")
    drv.shot("board-selftest-clean")
    spare = app.board.smap.spare_bits[0]
    vb.inject_stuck_bit(spare, level=0)
    vb.remove_sensor(0)
    stuck = "sensor bit stuck on - %s" % app.board.smap.bit_name(spare)
    # the board notices both faults itself (after its debounce): wait for that, under any load
    drv.wait_for(lambda: "noticed by the board" in scr.selftest_text and stuck in scr.selftest_text
                 and "dice sensor missing - well 1" in scr.selftest_text, 10,
                 lambda: "the faults reported unprompted (the screen shows %r)" % scr.selftest_text)
    drv.wait_for(lambda: not ids.run_selftest.disabled, 5, "the self-test button")
    drv.press(ids.run_selftest)
    drv.wait_for(lambda: "on request" in scr.selftest_text and stuck in scr.selftest_text
                 and "dice sensor missing - well 1" in scr.selftest_text, 10,
                 lambda: "the faults on request (the screen shows %r)" % scr.selftest_text)
    assert "sensor bit stuck on - %s" % app.board.smap.bit_name(spare) in scr.selftest_text
    assert "dice sensor missing - well 1" in scr.selftest_text
    drv.shot("board-selftest-faults")


def scenario_port_picker_and_refused_board(app, drv):
    from companion.link.board_link import DEFAULT_MAP
    from companion.link.virtual_board import VirtualBoard
    from firmware import sensormap

    scr = _open_board_screen(app, drv)
    _paired(app, drv, scr)
    names = [w.choice for w in reversed(scr.ids.port_list.children)]
    assert names[:3] == ["auto", "virtual", "none"]
    drv.press(scr.ids.refresh)
    assert [w.choice for w in reversed(scr.ids.port_list.children)] == names
    drv.press(scr.ids.connect_port)  # nothing typed: a hint, the board stays
    assert "Type a port name first" in scr.message and app.board.mode == "virtual"
    drv.press(_port_row(drv, scr, "none"))
    assert app.board.mode == "manual" and "manual" in scr.status_text
    assert _port_row(drv, scr, "none").state == "down" and scr.ids.tab_virtual.disabled
    assert scr.versions_text.endswith("No board has said hello yet.")
    drv.shot("board-manual")
    drv.press(_port_row(drv, scr, "virtual"))
    assert app.board.mode == "virtual" and not scr.ids.tab_virtual.disabled
    _paired(app, drv, scr)

    # a board flashed for another sensor map, on a port typed by hand
    other = VirtualBoard(NO_RES, seed=2)
    path = other.start()
    try:
        scr.ids.port_input.text = path
        drv.press(scr.ids.connect_port)
        assert app.board.mode == "hardware" and app.board.status()["port"] == path
        drv.wait_for(lambda: app.board.status()["state"] == "refused", 8, "the refusal")
        drv.pump(2)
        mine, theirs = sensormap.load(DEFAULT_MAP), sensormap.load(NO_RES)
        msg = scr.problem_text
        assert "board map %s (%d lanes, 2 wells)" % (theirs.hash_hex, theirs.n_lanes) in msg
        assert "app map %s (%d lanes, 2 wells)" % (mine.hash_hex, mine.n_lanes) in msg
        assert "Board firmware 0.1.0, app 0.1.0" in msg
        assert "refused" in scr.summary_text and scr.ids.use_virtual.height > 40
        assert "Sensor map: board [color=ff7766]%s" % theirs.hash_hex in scr.versions_text
        assert scr.ids.run_selftest.disabled and scr.ids.identify.disabled
        drv.shot("board-refused")
        drv.press(scr.ids.use_virtual)
        assert app.board.mode == "virtual"
        _paired(app, drv, scr)
        assert scr.problem_text == ""
    finally:
        other.stop()

    # a board whose frames carry another protocol version
    sys.path.insert(0, os.path.join(ROOT, "tests", "link"))
    from test_board_port import NewerProtocolBoard
    peer = NewerProtocolBoard()
    peer.start()
    try:
        scr.ids.port_input.text = peer.path
        drv.press(scr.ids.connect_port)
        drv.wait_for(lambda: app.board.status()["state"] == "refused", 8, "the refusal")
        drv.pump(2)
        assert "speaks protocol version 3; this app speaks protocol version 2" in scr.problem_text
        assert "Protocol version: board [color=ff7766]3[/color], app 2" in scr.versions_text
        drv.shot("board-refused-protocol")
    finally:
        drv.press(scr.ids.use_virtual)
        peer.close()
    _paired(app, drv, scr)

    # a port where nothing answers: searching, with a hint
    master, slave = os.openpty()
    try:
        scr.ids.port_input.text = os.ttyname(slave)
        drv.press(scr.ids.connect_port)
        drv.wait_for(lambda: app.board.status()["state"] == "searching", 5, "the port opened")
        drv.pump(2)
        assert "not a recognised board" in scr.status_text and "tabletop firmware" in scr.hint_text
        assert scr.ids.run_selftest.disabled and scr.ids.cal_primary.disabled
    finally:
        drv.press(_port_row(drv, scr, "virtual"))
        os.close(master)
        os.close(slave)
    _paired(app, drv, scr)


def scenario_small_window(app, drv):
    from kivy.core.window import Window

    scr = _open_board_screen(app, drv)
    _paired(app, drv, scr)
    assert tuple(Window.size) == (800, 480)
    for tid in ("back", "tab_connection", "tab_table", "tab_selftest", "tab_calibrate", "tab_virtual"):
        w = scr.ids[tid]
        assert w.height >= 48 and w.x >= 0 and w.right <= Window.width + 1, tid
    drv.shot("board-connection-800x480")
    _tab(drv, scr, "virtual")
    for tid in ("v_lane", "v_place", "v_unplug"):
        assert scr.ids[tid].height >= 48
    drv.shot("board-virtual-800x480")


def scenario_phone_window(app, drv):
    """A phone in portrait: the tab bar is two rows of three, every tab and the Back button a
    full finger high and inside the window, each tab's words on one line."""
    from kivy.core.window import Window
    from kivy.metrics import dp

    scr = _open_board_screen(app, drv)
    _paired(app, drv, scr)
    assert tuple(Window.size) == (412, 915)
    tabs = ("back", "tab_connection", "tab_table", "tab_selftest", "tab_calibrate", "tab_virtual")
    for tid in tabs:
        w = scr.ids[tid]
        assert w.height >= dp(48) and w.x >= 0 and w.right <= Window.width + 1, tid
        w.texture_update()
        assert w.texture_size[1] < dp(30), (tid, w.text, w.texture_size)   # one line, no word cut in two
    assert len({round(scr.ids[t].y) for t in tabs}) == 2                      # two rows
    # the connection view stacks: the board's state above, the ports below, each the full width
    _tab(drv, scr, "connection")
    drv.pump(2)
    ident = scr.ids.identify
    ident.texture_update()
    assert ident.texture_size[0] <= ident.width and ident.right <= Window.width + 1     # its words whole
    assert scr.ids.port_input.width >= dp(150)
    for view in ("connection", "table", "selftest", "calibrate", "virtual"):
        _tab(drv, scr, view)
        drv.shot("board-%s-412x915" % view)
        if view == "table":  # no game open: the seats as the table names them, never by id
            cells = [w.text for w in reversed(scr.ids.table_grid.children)]
            assert cells[:3] == ["[b]Track[/b]", "[b]Seat 1[/b]", "[b]Seat 2[/b]"], cells[:3]


# ------------------------------------------------------------------ tests
def test_board_screen_on_a_phone(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_phone_window", tmp_path, board="virtual", size="412x915")


def test_versions_and_virtual_board_controls(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_versions_and_virtual_controls", tmp_path, board="virtual")


def test_self_test_and_calibration_wizard(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_selftest_and_calibration", tmp_path, board="virtual")


def test_port_picker_and_refused_board(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_port_picker_and_refused_board", tmp_path, board="virtual")


def test_board_screen_at_800x480(xdisplay, tmp_path):
    run_scenario(__file__, "scenario_small_window", tmp_path, board="virtual", size="800x480")
